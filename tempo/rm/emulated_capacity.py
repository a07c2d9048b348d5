"""``GET /ws/v1/cluster/scheduler`` of an emulated RM running the Capacity Scheduler.

The body a Hadoop 3 ResourceManager's ``CapacitySchedulerInfo`` serializes to (the shape of
``../shared/data/hadoop/rest/rm-scheduler-capacity.json``, which
`tempo.rm.capacity_state.parse_capacity_scheduler` reads): ``type``
``capacityScheduler`` and root's ``capacity``/``maxCapacity``/``usedCapacity`` at the
top, ``queues.queue`` below; per queue ``queueName`` (short), ``queuePath`` (full),
``capacity`` and ``maxCapacity`` (percent of the parent), ``absoluteCapacity``,
``absoluteMaxCapacity``, ``absoluteUsedCapacity`` (percent of the cluster),
``usedCapacity`` (percent of the queue's own guarantee), ``numApplications``,
``resourcesUsed``, ``state``; leaves add ``type`` ``capacitySchedulerLeafQueueInfo``,
active and pending application counts, ``numContainers``, ``maxApplications``,
``maxApplicationsPerUser``, ``userLimit`` and ``userLimitFactor``. Capacities and usage
come from the configuration in force (`whatif.predictor.capacity.CapacityAllocation`) and
the simulation's queue table (memory: the DefaultResourceCalculator's view).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tempo.rm.emulated_rest import JSON, UNLIMITED_APPS, Snapshot, _res, _row
from whatif.allocation import EffectiveQueue
from whatif.capacity import EffectiveQueue as CapacityQueue
from whatif.predictor.capacity import CapacityAllocation


def capacity_scheduler(snap: Snapshot, allocation: CapacityAllocation) -> JSON:
    """The Capacity Scheduler's ``/ws/v1/cluster/scheduler`` body for `snap` under `allocation`."""
    jobs = snap.jobs
    unfinished = jobs[~np.isfinite(jobs["finish_s"].to_numpy(dtype=float))]
    running = snap.attempts[snap.attempts["state"] == "RUNNING"]
    tree = _CapacityTree(
        allocation=allocation,
        memory_mb=float(snap.cluster.memory_mb),
        table=snap.queues.set_index("queue"),
        waiting=unfinished.groupby("queue", sort=False).size().to_dict(),
        containers={str(q): int(n) for q, n in running.groupby("queue").size().items()},
    )
    root = tree.render(allocation.root)
    info: JSON = {
        "type": "capacityScheduler",
        "capacity": 100.0,
        "usedCapacity": root["absoluteUsedCapacity"],
        "maxCapacity": 100.0,
        "queueName": "root",
        "queues": root.get("queues", {"queue": []}),
    }
    return {"scheduler": {"schedulerInfo": info}}


@dataclass(frozen=True)
class _CapacityTree:
    """What each queue is rendered from: its configuration, usage and application counts."""

    allocation: CapacityAllocation
    memory_mb: float
    table: pd.DataFrame
    waiting: Mapping[Hashable, int]
    containers: Mapping[str, int]

    def render(self, queue: EffectiveQueue) -> JSON:
        """One queue's object, its children's nested."""
        name, children = queue.name, queue.children
        conf = self.allocation.capacity[name]
        row = _row(self.table, name)
        used_mb = float(row["usage_memory_mb"]) if row is not None else 0.0
        absolute = _fraction(conf.absolute_capacity)
        absolute_max = _fraction(conf.absolute_maximum_capacity, default=1.0)
        inside = [q for q in self.containers if q == name or q.startswith(name + ".")]
        info: JSON = {
            "queuePath": name,
            "queueName": name.rpartition(".")[2],
            "capacity": _percent_of_parent(conf, absolute, self.allocation, name),
            "maxCapacity": float(conf.maximum_capacity),
            "absoluteCapacity": 100.0 * absolute,
            "absoluteMaxCapacity": 100.0 * absolute_max,
            "absoluteUsedCapacity": 100.0 * used_mb / self.memory_mb if self.memory_mb else 0.0,
            "usedCapacity": 100.0 * used_mb / (absolute * self.memory_mb) if absolute else 0.0,
            "numApplications": int(
                sum(
                    n for q, n in self.waiting.items() if q == name or str(q).startswith(name + ".")
                )
            ),
            "resourcesUsed": _res(used_mb, float(row["usage_vcores"]) if row is not None else 0.0),
            "state": conf.state,
        }
        if children:
            info["queues"] = {"queue": [self.render(child) for child in children]}
            return info
        runnable = int(row["runnable_apps"]) if row is not None else 0
        info.update(
            {
                "type": "capacitySchedulerLeafQueueInfo",
                "numActiveApplications": runnable,
                "numPendingApplications": max(int(self.waiting.get(name, 0)) - runnable, 0),
                "numContainers": int(sum(self.containers[q] for q in inside)),
                "maxApplications": _apps(conf.maximum_applications),
                "maxApplicationsPerUser": _apps(conf.maximum_applications_per_user),
                "userLimit": conf.minimum_user_limit_percent,
                "userLimitFactor": conf.user_limit_factor,
                "users": None,
            }
        )
        return info


def _fraction(value: float | None, default: float = 0.0) -> float:
    return default if value is None else float(value)


def _apps(value: int | None) -> int:
    return UNLIMITED_APPS if value is None else int(value)


def _percent_of_parent(
    conf: CapacityQueue, absolute: float, allocation: CapacityAllocation, name: str
) -> float:
    """``capacity``: the queue's share of its parent in percent (weights and absolute
    guarantees resolved, as the RM reports them)."""
    if name == "root":
        return 100.0
    parent = allocation.capacity[name.rpartition(".")[0]]
    parent_absolute = _fraction(parent.absolute_capacity)
    if conf.mode == "percentage" and conf.capacity is not None:
        return float(conf.capacity)
    return 100.0 * absolute / parent_absolute if parent_absolute else 0.0
