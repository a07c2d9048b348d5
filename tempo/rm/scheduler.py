"""The Fair Scheduler's live queue tree, as ``GET /ws/v1/cluster/scheduler`` reports it.

Used to read what the RM has in force (steady and instantaneous fair shares,
limits, demand) and to confirm that a new allocation file took effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from tempo.errors import RMError
from tempo.rm import payload
from tempo.rm.queue_states import NamedQueue, QueueStates
from whatif.allocation import Resources

#: ``schedulerInfo.type`` of the Fair Scheduler.
FAIR_SCHEDULER = "fairScheduler"


@dataclass(frozen=True)
class QueueState(NamedQueue):
    """One queue of the running Fair Scheduler.

    Resource fields are None when this RM version does not report them
    (``steadyFairResources`` and ``demandResources`` are missing before Hadoop 2.6/2.8).
    ``max_apps`` of 2147483647 means unlimited, as the RM reports it.
    """

    name: str
    min_resources: Resources | None = None
    max_resources: Resources | None = None
    used_resources: Resources | None = None
    fair_resources: Resources | None = None
    steady_fair_resources: Resources | None = None
    demand_resources: Resources | None = None
    am_used_resources: Resources | None = None
    am_max_resources: Resources | None = None
    max_apps: int | None = None
    policy: str | None = None
    preemptable: bool | None = None
    num_active_apps: int | None = None
    num_pending_apps: int | None = None
    children: tuple[QueueState, ...] = ()


@dataclass(frozen=True)
class SchedulerState(QueueStates[QueueState]):
    """The Fair Scheduler queue tree in force on the RM, and the cluster size it saw."""

    cluster_resources: Resources | None = None

    def queue(self, name: str) -> QueueState:
        """The queue called `name` (a full path)."""
        try:
            return self.queues[name]
        except KeyError:
            raise RMError(
                f"queue {name!r} is not in the RM's queue tree ({', '.join(self.queues)})"
            ) from None


def parse_scheduler(body: object) -> SchedulerState:
    """A `SchedulerState` from a decoded ``/ws/v1/cluster/scheduler`` response.

    Raises
    ------
    RMError
        The RM runs another scheduler (tempo needs the Fair Scheduler), or a needed
        field is missing or of the wrong type; the message names the field path.
    """
    where = "scheduler"
    top = payload.member(payload.mapping(body, where="response"), "scheduler", where="response")
    info = payload.member(top, "schedulerInfo", where=where)
    where += ".schedulerInfo"
    kind = info.get("type")
    if kind is not None and kind != FAIR_SCHEDULER:
        name = {
            "capacityScheduler": "the Capacity Scheduler",
            "fifoScheduler": "the FIFO scheduler",
        }
        raise RMError(
            f"the ResourceManager runs {name.get(str(kind), repr(kind))} "
            f"(schedulerInfo.type {kind!r}); tempo needs the Fair Scheduler "
            "(yarn.resourcemanager.scheduler.class = "
            "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler)"
        )
    if "rootQueue" not in info and "queues" in info:
        raise RMError(
            "the ResourceManager's scheduler response has no rootQueue but a 'queues' list, "
            "as the Capacity Scheduler reports; tempo needs the Fair Scheduler"
        )
    root_obj = payload.member(info, "rootQueue", where=where)
    root = _queue(root_obj, where=f"{where}.rootQueue")
    cluster = _resources(root_obj, "clusterResources", where=f"{where}.rootQueue")
    return SchedulerState(root=root, cluster_resources=cluster)


def _queue(obj: Mapping[str, Any], *, where: str) -> QueueState:
    name = payload.text(obj, "queueName", where=where)
    where = f"queue[{name}]"
    children = tuple(
        _queue(child, where=at)
        for at, child in payload.listed(obj, "childQueues", "queue", where=where)
    )
    optional_int = partial(payload.integer, obj, default=None, where=where)
    return QueueState(
        name=name,
        min_resources=_resources(obj, "minResources", where=where),
        max_resources=_resources(obj, "maxResources", where=where),
        used_resources=_resources(obj, "usedResources", where=where),
        fair_resources=_resources(obj, "fairResources", where=where),
        steady_fair_resources=_resources(obj, "steadyFairResources", where=where),
        demand_resources=_resources(obj, "demandResources", where=where),
        am_used_resources=_resources(obj, "amUsedResources", where=where),
        am_max_resources=_resources(obj, "amMaxResources", where=where),
        max_apps=optional_int("maxApps"),
        policy=payload.text(obj, "schedulingPolicy", where=where, default=None),
        preemptable=payload.flag(obj, "preemptable", where=where, default=None),
        num_active_apps=optional_int("numActiveApps"),
        num_pending_apps=optional_int("numPendingApps"),
        children=children,
    )


def _resources(obj: Mapping[str, Any], key: str, *, where: str) -> Resources | None:
    """``{"memory": MB, "vCores": n}`` as `Resources`; None when absent."""
    value = obj.get(key)
    if value is None:
        return None
    value = payload.mapping(value, where=f"{where}.{key}")
    memory = payload.number(value, "memory", where=f"{where}.{key}")
    vcores = payload.number(value, "vCores", where=f"{where}.{key}", default=0.0)
    return Resources(memory, vcores)
