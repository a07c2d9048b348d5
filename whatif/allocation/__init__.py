"""Fair Scheduler allocation files: the document model, XML I/O, validation, effective values."""

from whatif.allocation.assign import apply_assignments, parse_assignment
from whatif.allocation.diff import SettingDiff, diff_allocations, format_setting_value
from whatif.allocation.effective import (
    EffectiveAllocation,
    EffectiveQueue,
    QueueDefaults,
    ResourceLimit,
    Resources,
)
from whatif.allocation.model import (
    NEVER_TIMEOUT_S,
    AllocationDocument,
    PlacementPolicy,
    PlacementRule,
    QueueElement,
    Setting,
    UserLimit,
)
from whatif.allocation.resource_string import ResourceValue
from whatif.allocation.summary import queue_table
from whatif.allocation.validate import Issue, validate
from whatif.allocation.xml_io import write_allocation

__all__ = [
    "NEVER_TIMEOUT_S",
    "AllocationDocument",
    "EffectiveAllocation",
    "EffectiveQueue",
    "Issue",
    "PlacementPolicy",
    "PlacementRule",
    "QueueDefaults",
    "QueueElement",
    "ResourceLimit",
    "ResourceValue",
    "Resources",
    "Setting",
    "SettingDiff",
    "UserLimit",
    "apply_assignments",
    "diff_allocations",
    "format_setting_value",
    "parse_assignment",
    "queue_table",
    "validate",
    "write_allocation",
]
