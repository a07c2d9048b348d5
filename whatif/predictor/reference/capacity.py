"""The Capacity Scheduler mode: child order, leaf, user and AM limits, admission.

The pure-Python twin of ``whatif/predictor/kernel/capacity.py`` (whose docstring gives the
rules and the Hadoop methods they follow): the same steps with Python objects, on the
`ReferenceEngine`'s state (a mixin of it; see ``loop.py``). Memory is column 0.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.capacity import PackedCapacity
from whatif.predictor.reference.protocol import EngineState


class Capacity(EngineState):
    """The Capacity Scheduler's rules (twin of ``kernel/capacity.py``)."""

    @property
    def cs(self) -> PackedCapacity:
        assert self.q.capacity is not None  # only called in the Capacity Scheduler mode
        return self.q.capacity

    def _cs_best_child(self, q: int, d: int, tried: set[int]) -> int | None:
        """The child to offer the node to: capacity > 0 first, then, among children on the
        same side, `_cs_order` (used / guarantee, or used / cluster between zero-capacity
        children; priorities under a priority-utilization parent), then document order."""
        m = self.s.min_allocation_mb
        best: int | None = None
        best_key: tuple[bool, float, float, float] = (True, 0.0, 0.0, 0.0)
        for c in self._children(q):
            if c in tried or self.q_pend_run[c, d] <= 0:
                continue
            if self.q_usage[c, 0] >= self.q.max_share[c, 0]:
                continue
            a = float(self.cs.absolute[c])
            zero = a <= 0.0
            used = float(self.q_usage[c, 0])
            u = used / self.cluster[0] if zero else used / max(float(self.cs.guarantee_mb[c]), m)
            key = (zero, u, float(self.cs.priority[c]), a)
            if best is None or _cs_order(key, best_key) < 0:
                best, best_key = c, key
        return best

    def _cs_headroom(self, leaf: int) -> float:
        """Least maximum - used from the leaf to the root, rounded down to m."""
        m = self.s.min_allocation_mb
        room = min(self.q.max_share[q, 0] - self.q_usage[q, 0] for q in self._ancestors(leaf))
        return float(math.floor(room / m) * m)

    def _cs_user_used(self, leaf: int, u: int) -> tuple[float, float]:
        """User `u`'s usage and AM usage (MB) in `leaf`."""
        mine = [j for j in self.leaf_apps[leaf] if self.p.job_user[j] == u]
        used = sum(float(self.job_usage[j, 0]) for j in mine)
        am = sum(float(self.p.job_am[j, 0]) for j in mine if self.job_am_state[j] >= 2)
        return used, am

    def _cs_users(self, leaf: int, active_only: bool) -> tuple[int, float, np.float32]:
        """The number of the leaf's users (`active_only`: with an app asking), their usage,
        and the Java float sum of their weights (in the order the apps are listed)."""
        apps = self.leaf_apps[leaf]
        first: dict[int, int] = {}  # user -> the first of its apps listed
        for j in apps:
            if not active_only or (self.job_pend[j] > 0).any():
                first.setdefault(int(self.p.job_user[j]), j)
        used = sum(float(self.job_usage[j, 0]) for j in apps if int(self.p.job_user[j]) in first)
        weights = np.float32(0.0)
        for j in first.values():
            weights = np.float32(weights + np.float32(self.p.job_user_weight[j]))
        return len(first), used, weights

    def _cs_weighted(self, limit: float, j: int) -> float:
        """App `j`'s user's own limit: the leaf's times the user's weight, rounded down to m."""
        m = self.s.min_allocation_mb
        return float(math.floor(math.floor(limit * float(self.p.job_user_weight[j])) / m) * m)

    def _cs_user_limit(self, leaf: int) -> float:
        """UsersManager.computeUserLimit (see the kernel's)."""
        m = self.s.min_allocation_mb
        guar = float(self.cs.guarantee_mb[leaf])
        cap_q = max(guar, m)
        consumed = float(self.q_usage[leaf, 0])
        current = cap_q if consumed < cap_q else consumed + m
        _, active_used, weights = self._cs_users(leaf, True)
        per_user = 0.0
        if weights != 0.0:
            per_user = math.ceil(np.float32(active_used + m) / weights)
        limit = max(
            per_user,
            math.ceil(math.floor(current * float(self.cs.user_limit_percent[leaf])) / 100.0),
        )
        factor = float(self.cs.user_limit_factor[leaf])
        if factor == -1.0 or guar <= 0.0:
            cap = float(self.q.max_share[leaf, 0])
        else:
            cap = cap_q * factor
        return float(math.ceil(min(limit, cap) / m) * m)

    def _cs_user_room(self, j: int, leaf: int) -> float:
        """The user's part of the headroom app `j`'s AM is told (see the kernel's)."""
        m = self.s.min_allocation_mb
        used, _ = self._cs_user_used(leaf, int(self.p.job_user[j]))
        return float(math.floor((self._cs_weighted(self._cs_user_limit(leaf), j) - used) / m) * m)

    def _cs_user_ok(self, j: int, leaf: int) -> bool:
        used, _ = self._cs_user_used(leaf, int(self.p.job_user[j]))
        return used <= self._cs_weighted(self._cs_user_limit(leaf), j)

    def _cs_am_ok(self, j: int, leaf: int) -> bool:
        """The leaf's and the user's AM limits for app `j`'s AM (see the kernel's)."""
        used_am = float(self.q_am_usage[leaf, 0])
        if used_am <= 0.0:
            return True
        m = self.s.min_allocation_mb
        am = float(self.p.job_am[j, 0])
        pct = float(self.cs.am_percent[leaf])
        guar = float(self.cs.guarantee_mb[leaf])
        current = float(self.q_usage[leaf, 0]) + self._cs_headroom(leaf)
        queue_limit = math.ceil(max(guar, current) * pct / m) * m
        if used_am + am > queue_limit:
            return False
        users, _, _ = self._cs_users(leaf, False)
        factor = float(self.cs.user_limit_factor[leaf])
        share = max(float(self.cs.user_limit_percent[leaf]) / 100.0, 1.0 / max(users, 1))
        share = min(share * float(self.p.job_user_weight[j]), 1.0)
        raw = guar * pct if factor == -1.0 else guar * pct * share * factor
        user_limit = min(math.ceil(raw / m) * m, queue_limit)
        _, user_am = self._cs_user_used(leaf, int(self.p.job_user[j]))
        return user_am + am <= user_limit

    def _cs_admit(self, j: int) -> bool:
        """maximum-applications and its per-user limit, at submission."""
        leaf, u = int(self.p.job_queue[j]), int(self.p.job_user[j])
        apps = list(self.leaf_apps[leaf]) + [k for k in self.waiting if self.p.job_queue[k] == leaf]
        mine = sum(1 for k in apps if self.p.job_user[k] == u)
        limit = float(self.cs.max_apps[leaf])
        user_limit = float(self.cs.max_apps_per_user[leaf])
        if limit >= 0 and len(apps) >= limit:
            return False
        return not (user_limit >= 0 and mine >= user_limit)

    def _cs_apps_in_order(self, leaf: int, d: int) -> list[int]:
        """The leaf's apps asking in `d`: fifo by app; fair by (used MB or its size-based
        magnitude, submit time, app)."""
        apps = [j for j in self.leaf_apps[leaf] if self.job_pend[j, d] > 0]
        if self.q.policy[leaf] == 0:  # fair
            return sorted(
                apps,
                key=lambda j: (self._cs_magnitude(leaf, j), float(self.p.job_submit[j]), j),
            )
        return sorted(apps)

    def _cs_magnitude(self, leaf: int, j: int) -> float:
        """FairOrderingPolicy.getMagnitude (see the kernel's)."""
        used = float(self.job_usage[j, 0])
        if not self.cs.size_based_weight[leaf]:
            return used
        weight = math.log1p(used + float(self.job_pend[j, 0])) / math.log(2.0)
        if weight > 0.0:
            return used / weight
        return 0.0 if used == 0.0 else math.inf


def _cs_order(a: tuple[bool, float, float, float], b: tuple[bool, float, float, float]) -> int:
    """PriorityUtilizationQueueOrderingPolicy's comparator on (zero capacity, used capacity,
    priority, capacity): a child with capacity before one without; of different
    priorities, the higher first when both are under their guarantee (used < 1) or both at
    or over it; else the less used first, then the larger capacity."""
    (zero_a, u_a, p_a, cap_a), (zero_b, u_b, p_b, cap_b) = a, b
    if zero_a != zero_b:
        return 1 if zero_a else -1
    if p_a != p_b and (u_a < 1.0) == (u_b < 1.0):
        return -1 if p_a > p_b else 1
    if u_a != u_b:
        return -1 if u_a < u_b else 1
    return -1 if cap_a > cap_b else (1 if cap_a < cap_b else 0)
