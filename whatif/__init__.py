"""whatif: the what-if engine under tempo.

Workload and schedule data model, trace readers, allocation files, the schedule
predictor, QS metrics, the workload model and provisioning analysis. It knows
nothing of optimization and never imports ``tempo``.
"""

from whatif.allocation import (
    EffectiveAllocation,
    EffectiveQueue,
    QueueDefaults,
    ResourceLimit,
    Resources,
)
from whatif.allocation.fairshare import compute_shares, fair_shares
from whatif.cluster import Cluster, Node
from whatif.errors import (
    AllocationError,
    ClusterSpecError,
    TraceFormatError,
    UnfinishedJobsError,
    ValidationError,
    WhatifError,
)
from whatif.schedule import Schedule
from whatif.trace import Trace
from whatif.workload import Workload

__all__ = [
    "AllocationError",
    "Cluster",
    "ClusterSpecError",
    "EffectiveAllocation",
    "EffectiveQueue",
    "Node",
    "QueueDefaults",
    "ResourceLimit",
    "Resources",
    "Schedule",
    "Trace",
    "TraceFormatError",
    "UnfinishedJobsError",
    "ValidationError",
    "WhatifError",
    "Workload",
    "compute_shares",
    "fair_shares",
]
__version__ = "0.1.0"
