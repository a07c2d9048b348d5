"""The Capacity Scheduler's live queue tree, as ``GET /ws/v1/cluster/scheduler`` reports it.

`scheduler_type` tells which scheduler an RM runs from the same response, so a
caller can pick the Fair Scheduler reader (`tempo.rm.scheduler.parse_scheduler`) or
`parse_capacity_scheduler`. Capacities are percentages as the RM reports them
(``capacity`` of the parent, ``absoluteCapacity`` of the cluster); queue names are
full paths (``queuePath`` where the RM gives it, else built from ``queueName``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from tempo.errors import RMError
from tempo.rm import payload
from tempo.rm.queue_states import NamedQueue, QueueStates

SchedulerType = Literal["fair", "capacity", "fifo"]
_TYPES: Mapping[str, SchedulerType] = {
    "fairScheduler": "fair",
    "capacityScheduler": "capacity",
    "fifoScheduler": "fifo",
}


@dataclass(frozen=True)
class CapacityQueueState(NamedQueue):
    """One queue of the running Capacity Scheduler (None where this RM version omits a field)."""

    name: str
    capacity: float | None = None
    max_capacity: float | None = None
    absolute_capacity: float | None = None
    absolute_max_capacity: float | None = None
    used_capacity: float | None = None
    state: str | None = None
    num_applications: int | None = None
    max_applications: int | None = None
    max_applications_per_user: int | None = None
    user_limit: float | None = None
    user_limit_factor: float | None = None
    num_active_applications: int | None = None
    num_pending_applications: int | None = None
    children: tuple[CapacityQueueState, ...] = ()


@dataclass(frozen=True)
class CapacitySchedulerState(QueueStates[CapacityQueueState]):
    """The Capacity Scheduler queue tree in force on the RM."""


def scheduler_type(body: object) -> SchedulerType:
    """Which scheduler a decoded ``/ws/v1/cluster/scheduler`` response comes from."""
    top = payload.member(payload.mapping(body, where="response"), "scheduler", where="response")
    info = payload.member(top, "schedulerInfo", where="scheduler")
    kind = info.get("type")
    if kind in _TYPES:
        return _TYPES[str(kind)]
    if kind is None and "rootQueue" in info:
        return "fair"
    if kind is None and "queues" in info:
        return "capacity"
    raise RMError(
        f"scheduler.schedulerInfo.type: expected fairScheduler, capacityScheduler or "
        f"fifoScheduler, got {kind!r}"
    )


def parse_capacity_scheduler(body: object) -> CapacitySchedulerState:
    """A `CapacitySchedulerState` from a decoded ``/ws/v1/cluster/scheduler`` response.

    Raises `RMError` when the RM runs another scheduler or a field has the wrong type
    (the message names the field path).
    """
    kind = scheduler_type(body)
    if kind != "capacity":
        raise RMError(f"the ResourceManager runs the {kind} scheduler, not the Capacity Scheduler")
    info = body["scheduler"]["schedulerInfo"]  # type: ignore[index]
    return CapacitySchedulerState(_queue(info, None, where="scheduler.schedulerInfo"))


def _queue(obj: Mapping[str, Any], parent: str | None, *, where: str) -> CapacityQueueState:
    short = payload.text(obj, "queueName", where=where)
    path = obj.get("queuePath")
    name = (
        path
        if isinstance(path, str) and path
        else (short if parent is None else f"{parent}.{short}")
    )
    where = f"queue[{name}]"
    children = tuple(
        _queue(child, name, where=at)
        for at, child in payload.listed(obj, "queues", "queue", where=where)
    )
    number = partial(payload.number, obj, default=None, where=where)
    integer = partial(payload.integer, obj, default=None, where=where)
    return CapacityQueueState(
        name=name,
        capacity=number("capacity"),
        max_capacity=number("maxCapacity"),
        absolute_capacity=number("absoluteCapacity"),
        absolute_max_capacity=number("absoluteMaxCapacity"),
        used_capacity=number("usedCapacity"),
        state=payload.text(obj, "state", where=where, default=None),
        num_applications=integer("numApplications"),
        max_applications=integer("maxApplications"),
        max_applications_per_user=integer("maxApplicationsPerUser"),
        user_limit=number("userLimit"),
        user_limit_factor=number("userLimitFactor"),
        num_active_applications=integer("numActiveApplications"),
        num_pending_applications=integer("numPendingApplications"),
        children=children,
    )
