"""Queue accounting up the tree: usage, pending demand, runnable counts, demand
capped at maxResources, and whether a request fits.

The pure-Python twin of ``whatif/predictor/kernel/queues.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from whatif.predictor.reference.protocol import EngineState


class Queues(EngineState):
    """Queue usage, demand and room (twin of ``kernel/queues.py``)."""

    def _ancestors(self, q: int, top: int = -1) -> Iterator[int]:
        """`q` and the queues above it up to `top`, not included (-1: to the root)."""
        while q != top:
            yield q
            q = int(self.q.parent[q])

    def _up(self, table: np.ndarray, leaf: int, amount: np.ndarray | float) -> None:
        for q in self._ancestors(leaf):
            table[q] += amount

    def _count_runnable(self, leaf: int, delta: int) -> None:
        for q in self._ancestors(leaf):
            before = self.q_runnable[q]
            self.q_runnable[q] += delta
            if (before == 0) != (self.q_runnable[q] == 0):
                self.shares_dirty = True
        self.leaf_dirty[leaf] = True

    def _children(self, q: int) -> list[int]:
        result: list[int] = self.q.children[self.q.child_ptr[q] : self.q.child_ptr[q + 1]].tolist()
        return result

    def _demand(self, q: int) -> np.ndarray:
        """Queue demand: usage + pending of all its apps, capped at maxShare at every level."""
        if self.q.is_leaf[q]:
            raw = self.q_usage[q] + self.q_pend_all[q]
        else:
            raw = sum((self._demand(c) for c in self._children(q)), np.zeros(2))
        result: np.ndarray = np.minimum(raw, self.q.max_share[q])
        return result

    def _avail(self) -> np.ndarray:
        """Free resources of the node heartbeating, or of the cluster."""
        return self.node_free[self.cur_node] if self.cur_node >= 0 else self.free

    def _fits(self, leaf: int, req: np.ndarray, top: int = -1) -> bool:
        """Free resources and the maxResources from the leaf up to `top`, not included (-1:
        the root's too, the scheduler's check; see the kernel's `_fits_to`)."""
        free = self._avail()
        if free[0] < req[0] or free[1] < req[1]:
            return False
        for q in self._ancestors(leaf, top):
            if (self.q_usage[q] + req > self.q.max_share[q]).any():
                return False
        return True
