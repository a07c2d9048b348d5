"""Does the Capacity Scheduler's live queue tree show a given ``capacity-scheduler.xml`` in force?

After a refresh, tempo reads ``/ws/v1/cluster/scheduler`` (`tempo.rm.capacity_state`)
and compares each declared queue with what the configuration implies: that it
exists, its state, and its capacity and maximum capacity as fractions of the
cluster (``absoluteCapacity``, ``absoluteMaxCapacity``; percentage and weight modes
are resolved by `whatif.capacity.effective_queues`, so both compare the same way).
Absolute-mode capacities need the cluster size and are compared only through the
queue's presence and state; limits the REST API does not show (ACLs, ordering
policy, preemption properties) cannot be confirmed this way.
"""

from __future__ import annotations

from tempo.rm.capacity_state import CapacitySchedulerState
from whatif.capacity import ConfigurationDocument, effective_queues

#: Percentage points a reported absolute capacity may be off by (the RM rounds to floats).
CAPACITY_TOLERANCE = 0.1


def capacity_mismatches(
    state: CapacitySchedulerState,
    doc: ConfigurationDocument,
    *,
    tolerance: float = CAPACITY_TOLERANCE,
) -> list[str]:
    """One line per way the RM's queue tree differs from `doc` (empty: it is in force)."""
    live = state.queues
    problems = []
    for path, queue in effective_queues(doc).items():
        found = live.get(path)
        if found is None:
            problems.append(f"{path}: not in the RM's queue tree")
            continue
        if found.state is not None and found.state.upper() != queue.state:
            problems.append(f"{path}: state {found.state}, expected {queue.state}")
        for label, expected, reported in (
            ("absolute capacity", queue.absolute_capacity, found.absolute_capacity),
            (
                "absolute maximum capacity",
                queue.absolute_maximum_capacity,
                found.absolute_max_capacity,
            ),
        ):
            if expected is None or reported is None:
                continue
            if abs(reported - expected * 100.0) > tolerance:
                problems.append(f"{path}: {label} {reported:g}%, expected {expected * 100.0:.4g}%")
    return problems
