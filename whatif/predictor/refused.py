"""Containers Hadoop would refuse: above their queue's ``maxContainerAllocation``.

Hadoop 3's Fair Scheduler caps a container's size per queue (``maxContainerAllocation``,
inherited from the nearest parent that sets it: FSQueue.getMaximumContainerAllocation).
The ResourceManager refuses an ask above it (FairScheduler.getMaximumResourceCapability,
checked by RMServerUtils.normalizeAndValidateRequests and at submission), and the
MapReduce AM kills its job as it starts when a map or reduce asks more than the
maximum it registered with (RMContainerAllocator). The predictor has no job that fails
at start: it runs such jobs as asked, and says so here, once per queue and limit.

Requests are compared as packed (normalized: at least the minimum allocation, rounded up
to the increments), and so is the limit, so a job is named only when what it asked was
above the limit.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.allocation.effective import EffectiveAllocation, Resources
from whatif.predictor.never_placed import size_text
from whatif.predictor.pack import Packed, normalize_requests
from whatif.predictor.settings import SchedulerSettings


def refused(
    packed: Packed, allocation: EffectiveAllocation, settings: SchedulerSettings
) -> tuple[str, ...]:
    """Per queue, the jobs whose AM or a task asks more than its maxContainerAllocation."""
    if settings.hadoop_version < 3 or packed.slot_mode or packed.queues.capacity is not None:
        return ()  # Hadoop 3's Fair Scheduler element
    limits = _limits(packed, allocation, settings)
    if not np.isfinite(limits).any():
        return ()
    leaf = packed.job_queue
    asked = np.where(packed.job_has_am[:, None] == 1, packed.job_am, 0.0)
    np.maximum.at(asked, packed.stage_jobs(), packed.stage_largest())
    over = (asked > limits[leaf]).any(axis=1)
    found = []
    for q in np.unique(leaf[over]):
        jobs = np.flatnonzero(over & (leaf == q))
        limit = limits[q]
        found.append(
            f"{packed.queues.names[q]}: {len(jobs)} job{'s ask' if len(jobs) != 1 else ' asks'} "
            f"containers of up to {size_text(packed, asked[jobs].max(axis=0))}, above its "
            f"maxContainerAllocation ({size_text(packed, limit)}): Hadoop refuses such a request (the "
            "MapReduce AM kills its job as it starts); the predictor runs them as asked"
        )
    return tuple(found)


def _limits(
    packed: Packed, allocation: EffectiveAllocation, settings: SchedulerSettings
) -> np.ndarray:
    """Each packed queue's maxContainerAllocation (its own, else the nearest parent's;
    inf: none), normalized as requests are: a request at most the limit is, once
    normalized, at most the normalized limit."""
    whole = Resources(float(packed.cluster[0]), float(packed.cluster[1]))
    own = {
        queue.name: queue.max_container_allocation.resolve(whole)
        for queue in allocation.root.walk()
        if not queue.max_container_allocation.is_unlimited
    }
    pq = packed.queues
    limits = np.full((len(pq.names), 2), math.inf)
    for q, name in enumerate(pq.names):  # parents come before their children
        if name in own:
            memory, vcores = normalize_requests(
                np.array([own[name].memory_mb]), np.array([own[name].vcores]), settings
            )
            limits[q] = (memory[0], vcores[0])
        elif pq.parent[q] >= 0:
            limits[q] = limits[pq.parent[q]]
    return limits
