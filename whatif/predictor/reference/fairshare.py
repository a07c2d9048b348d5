"""Fair shares of queues (ComputeFairShares, top-down) and of a leaf's apps.

The pure-Python twin of ``whatif/predictor/kernel/fairshare.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

import math

import numpy as np

from whatif.allocation.fairshare import compute_shares
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.state import INF, LOG2


class FairShares(EngineState):
    """Fair shares (twin of ``kernel/fairshare.py``)."""

    def _compute_shares(self) -> None:
        """Instantaneous fair shares top-down; only queues with runnable apps are active
        (none under the Capacity Scheduler)."""
        self.shares_dirty = False
        if self.q.capacity is not None:
            return
        old = self.q_fair.copy()
        self.q_fair[0] = self.cluster
        for q in range(len(self.q.parent)):
            kids = self._children(q)
            if not kids:
                continue
            active = np.array([self.q_runnable[c] > 0 for c in kids])
            for d in (0, 1):
                self.q_fair[kids, d] = compute_shares(
                    self.q.weight[kids],
                    self.q.min_share[kids, d],
                    self.q.max_share[kids, d],
                    self.q_fair[q, d],
                    active,
                )
        changed = np.flatnonzero((old != self.q_fair).any(axis=1))
        for changed_q in changed:
            self.leaf_dirty[changed_q] = True

    def _app_weight(self, j: int) -> float:
        if self.s.size_based_weight:
            return math.log1p(self.job_usage[j, 0] + self.job_pend[j, 0]) / LOG2
        return 1.0

    def _app_shares(self, leaf: int) -> None:
        """Apps' fair shares within a leaf (weight 1, or log2(1 + demand) with sizebasedweight)."""
        if not self.leaf_dirty[leaf] and not self.s.size_based_weight:
            return
        self.leaf_dirty[leaf] = False
        apps = self.leaf_apps[leaf]
        if not apps:
            return
        if self.q.policy[leaf] == 1:
            first = min(apps)
            for j in apps:
                self.job_fair[j] = self.q_fair[leaf] if j == first else 0.0
            return
        weights = np.array([self._app_weight(j) for j in apps])
        for d in (0, 1):
            self.job_fair[apps, d] = compute_shares(
                weights, np.zeros(len(apps)), np.full(len(apps), INF), self.q_fair[leaf, d]
            )
