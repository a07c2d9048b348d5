"""Fair Scheduler allocation files: the document model, XML I/O, validation, effective values."""

from whatif.allocation.effective import (
    EffectiveAllocation,
    EffectiveQueue,
    QueueDefaults,
    ResourceLimit,
    Resources,
)

__all__ = ["EffectiveAllocation", "EffectiveQueue", "QueueDefaults", "ResourceLimit", "Resources"]
