"""Hadoop 2/3 Fair Scheduler node reservations.

The pure-Python twin of ``whatif/predictor/kernel/reservations.py`` (where the rules are
described, with the Java methods they follow): the same steps with Python objects, on the
`ReferenceEngine`'s state (a mixin of it; see ``loop.py``). A node's reservation is its
app (-1: none), the reserved stage (-1: the AM) and the booked resources.
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.nodes import allowed_reservations
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.resources import res_compare


class Reservations(EngineState):
    """Node reservations (twin of ``kernel/reservations.py``)."""

    def init_reservations(self) -> None:
        r = self.p.reservations(self.s)
        self.res_on = r.on
        self.res_thr = np.array(r.threshold)
        self.res_cap = r.cap
        self.res_ratio = r.ratio
        self.res_app = [-1] * self.nn
        self.res_stage = [-1] * self.nn
        self.res_req = np.zeros((max(self.nn, 1), 2))
        self.job_res = [0] * len(self.p.job_submit)
        self.res_any: int | None = None  # `_res_slots` of this settling pass
        self.res_made = 0

    def _res_head(self, j: int) -> tuple[int, np.ndarray]:
        """App `j`'s next request in the memory pool: (stage, request), stage -1 for its
        AM, -2 when it asks for nothing (or is not runnable)."""
        if self.job_state[j] != 2:
            return -2, np.zeros(2)
        if self.job_am_state[j] == 1:
            return -1, self.p.job_am[j]
        s = self._next_stage(j, 0)
        if s < 0:
            return -2, np.zeros(2)
        return s, self.p.task_req[self._head(s)]

    def _fits_max(self, leaf: int, req: np.ndarray) -> bool:
        """FSQueue.fitsInMaxShare up the tree."""
        return all(
            not (self.q_usage[q] + req > self.q.max_share[q]).any() for q in self._ancestors(leaf)
        )

    def _starved(self, j: int, leaf: int) -> bool:
        """FSAppAttempt.isStarved."""
        if self.job_min_starv[j].any():
            return True
        self._app_shares(leaf)
        return self._below(int(self.q.policy[leaf]), self.job_usage[j], self.job_fair[j])

    def _res_may(self, j: int, leaf: int, req: np.ndarray) -> bool:
        """isReservable (the cap on the app's reserved nodes is `_res_room`'s)."""
        if res_compare(int(self.q.policy[leaf]), req, self.res_thr, self.cluster) < 0:
            return False
        return not self.v3 or self._starved(j, leaf)

    def _res_room(self, j: int, kind: int, n: int) -> bool:
        """Not FSAppAttempt.reservationExceedsThreshold for a container of type `kind`
        (kernel `_res_room`)."""
        if kind == 0:
            return True
        if kind == 2:
            return self.job_res[j] < self.res_cap
        rack = [m for m in range(self.nn) if self.node_rack[m] == self.node_rack[n]]
        held = sum(self.res_app[m] == j for m in rack)
        return held < allowed_reservations(len(rack), self.res_ratio)

    def _reserve(self, n: int, j: int, s: int, req: np.ndarray) -> None:
        self.res_app[n] = j
        self.res_stage[n] = s
        self.res_req[n] = req
        self.job_res[j] += 1
        self.res_made += 1

    def _res_drop(self, n: int) -> None:
        self.job_res[self.res_app[n]] -= 1
        self.res_app[n] = -1
        self.res_stage[n] = -1
        self.changed = True

    def _stage_asks(self, s: int) -> bool:
        if not self.stage_released[s] or self.stage_held[s] or self.stage_ramp[s] == 0:
            return False
        return self.stage_pending[s] > 0

    def _res_valid(self, n: int) -> bool:
        """FSAppAttempt.isValidReservation."""
        j, s = self.res_app[n], self.res_stage[n]
        if self.job_state[j] != 2:
            return False
        leaf = int(self.p.job_queue[j])
        if s < 0:
            if self.job_am_state[j] != 1:
                return False
            am = self.p.job_am[j]
            return self._fits_max(leaf, am) and self._am_fits(leaf, am)
        if self.job_am_state[j] == 1 or not self._stage_asks(s):
            return False
        return self._fits_max(leaf, self.p.task_req[self._head(s)])

    def _booked_fits(self, n: int) -> bool:
        return bool((self.node_free[n] >= self.res_req[n]).all())

    def _res_slots(self) -> int:
        """How many more nodes runnable apps could reserve now (an upper bound)."""
        total = 0
        for leaf in self._leaves():
            for j in self.leaf_apps[leaf]:
                s, req = self._res_head(j)
                if (
                    s > -2
                    and self.job_res[j] < self.res_cap
                    and self._res_may(j, leaf, req)
                    and self._fits_max(leaf, req)
                    and (s >= 0 or self._am_fits(leaf, req))
                ):
                    total += int(self.res_cap) - self.job_res[j]
        return total

    def _res_open(self) -> int:
        """`_res_slots`, scanned once per settling pass when first needed."""
        if self.res_any is None:
            self.res_any = self._res_slots()
        return self.res_any

    def _res_wants(self, n: int) -> bool:
        """`_node_wants` with reservations."""
        if self.res_app[n] >= 0:
            claimed = self._node_room(n) and self._claimed_demand(n)
            return self._booked_fits(n) or not self._res_valid(n) or claimed
        if self.q_pend_run[0, 0] <= 0:
            return False
        if self._node_room(n):
            return True
        return self._res_open() > 0

    def _res_scan(self) -> None:
        """Before settling nodes: whether some app could reserve a node is not known yet."""
        self.res_any = None
