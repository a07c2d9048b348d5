"""Fair Scheduler allocation files, read one way: bytes -> parsed XML (`xml_io`) -> the
document (`model`) -> issues (`validate`) -> the effective tree (`resolve`) -> a file on
disk (`write`); `diff`, `assign`, `created` (the queues the scheduler adds) and
`summary` build on those. No module imports one
that imports it back (tests/test_layers.py)."""

from whatif.allocation.assign import apply_assignments, parse_assignment
from whatif.allocation.created import with_startup_queues, with_undeclared_queues
from whatif.allocation.diff import SettingDiff, diff_allocations, diff_rows, format_setting_value
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
from whatif.allocation.resolve import effective_allocation
from whatif.allocation.resource_string import ResourceValue
from whatif.allocation.summary import queue_table
from whatif.allocation.validate import Issue, validate
from whatif.allocation.write import write_allocation

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
    "diff_rows",
    "effective_allocation",
    "format_setting_value",
    "parse_assignment",
    "queue_table",
    "validate",
    "with_startup_queues",
    "with_undeclared_queues",
    "write_allocation",
]
