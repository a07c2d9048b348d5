"""The nodes that heartbeat: per-node capacity and the heartbeat interval, for both engines.

Hadoop hands out containers (YARN) and task slots (Hadoop 1) only when a node
heartbeats, so the predictor models nodes when `SchedulerSettings.heartbeats` is on and
the cluster says what its nodes are. Node ``i`` of ``n`` heartbeats at
``i * interval / n + k * interval`` (phases spread evenly, as nodes that registered at
random times are on average); `next_heartbeat` is that grid's next time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from whatif.cluster import Cluster
from whatif.predictor.grid import on_grid
from whatif.predictor.settings import SchedulerSettings

#: Hadoop 1's ``mapred.tasktracker.map.tasks.maximum`` and ``...reduce.tasks.maximum``
#: defaults: the slots per TaskTracker assumed when a slot cluster does not name its trackers.
DEFAULT_SLOTS_PER_TRACKER = 2


@dataclass(frozen=True, eq=False)
class NodeLayout:
    """Per-node capacity ``(n, 2)`` (memory MB and vcores, or map and reduce slots) and the
    heartbeat interval (s). No rows: the instant model (no heartbeats)."""

    capacity: np.ndarray
    interval_s: float

    @property
    def count(self) -> int:
        return int(self.capacity.shape[0])


def _spread(total: int, parts: int) -> np.ndarray:
    """`total` slots over `parts` trackers as evenly as whole slots allow (first ones get more)."""
    base, extra = divmod(int(total), parts)
    return np.array([base + (1 if i < extra else 0) for i in range(parts)], dtype=float)


def node_layout(cluster: Cluster, settings: SchedulerSettings) -> NodeLayout:
    """The nodes the predictor schedules on (see the module docstring)."""
    none = NodeLayout(np.zeros((0, 2)), math.inf)
    if not settings.heartbeats:
        return none
    if cluster.slots:
        pools = cluster.slot_pools
        maps, reduces = int(pools.get("map", 0)), int(pools.get("reduce", 0))
        count = len(cluster.nodes) or max(
            1, math.ceil(max(maps, reduces) / DEFAULT_SLOTS_PER_TRACKER)
        )
        capacity = np.column_stack([_spread(maps, count), _spread(reduces, count)])
    elif cluster.nodes:
        capacity = np.array([[n.memory_mb, n.vcores] for n in cluster.nodes], dtype=float)
    else:
        return none
    return NodeLayout(capacity, float(settings.heartbeat_interval_s(capacity.shape[0])))


def next_heartbeat(node: int, count: int, interval: float, t: float, *, at: bool = False) -> float:
    """Node `node`'s first heartbeat after `t` (at or after it with `at`). Every heartbeat
    time is computed as ``phase + k * interval``, so equal times compare equal (the kernel's
    `_next_heartbeat` is the same steps)."""
    return on_grid(node * interval / count, interval, t, at)


@dataclass(frozen=True)
class ReservationParams:
    """Fair Scheduler node reservations (``kernel/reservations.py``): whether they can
    happen at all, the threshold a request must reach (memory, vcores), the most nodes
    an app may hold reserved, and ``yarn.scheduler.fair.reservable-nodes`` as the Java
    float it is read as (a rack's cap is `allowed_reservations` of its nodes)."""

    on: bool
    threshold: tuple[float, float]
    cap: float
    ratio: float


def allowed_reservations(nodes: int, ratio: float) -> int:
    """FSAppAttempt.reservationExceedsThreshold's ``(int) Math.ceil(nodes * ratio)``, in
    Java float arithmetic (the kernel's `reservations._allowed`)."""
    return math.ceil(float(np.float32(nodes) * np.float32(ratio)))


def reservation_params(
    settings: SchedulerSettings, nodes: int, requests: np.ndarray, fair_yarn: bool
) -> ReservationParams:
    """FairScheduler.updateReservationThreshold (the increment times the multiple, each
    component cut to a whole number as Resources.multiply does) and
    FSAppAttempt.reservationExceedsThreshold (``(int) Math.ceil(nodes * ratio)`` in Java
    float arithmetic). On only for nodes that heartbeat under the Fair Scheduler of Hadoop
    2/3 (`fair_yarn`) when some of `requests` (rows of memory, vcores) reaches the
    threshold: otherwise no request can ever reserve a node, and the kernel skips them."""
    mult = float(np.float32(settings.reservation_threshold_multiple))
    thr = (
        float(math.floor(settings.increment_mb * mult)),
        float(math.floor(settings.increment_vcores * mult)),
    )
    cap = float(allowed_reservations(nodes, settings.reservable_nodes))
    big = bool(((requests[:, 0] >= thr[0]) | (requests[:, 1] >= thr[1])).any())
    on = nodes > 0 and fair_yarn and settings.hadoop_version != 1 and cap >= 1.0 and big
    return ReservationParams(on, thr, cap, float(np.float32(settings.reservable_nodes)))
