"""Policy comparators of queues and apps (fair, drf, fifo).

The pure-Python twin of ``whatif/predictor/kernel/ordering.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.resources import div, signum

if TYPE_CHECKING:
    from whatif.predictor.reference.protocol import Key


class Ordering(EngineState):
    """Comparators (twin of ``kernel/ordering.py``)."""

    def _compare(self, policy: int, dim: int, a: Key, b: Key) -> int:
        """Policy comparator on (usage, demand, min_share, weight, start, rank) tuples."""
        ua, da, ma, wa, sa, ra = a
        ub, db, mb, wb, sb, rb = b
        if policy == 2:
            res = self._compare_drf(ua, ma, wa, ub, mb, wb)
        elif policy == 1:
            res = 0
        else:
            res = self._compare_fair(dim, ua, da, ma, wa, ub, db, mb, wb)
        if res == 0:
            res = signum(sa - sb)
        if res == 0:
            res = -1 if ra < rb else (1 if ra > rb else 0)
        return res

    def _compare_fair(
        self,
        d: int,
        ua: np.ndarray,
        da: np.ndarray,
        ma: np.ndarray,
        wa: float,
        ub: np.ndarray,
        db: np.ndarray,
        mb: np.ndarray,
        wb: float,
    ) -> int:
        if self.v3:
            if da[d] == 0 and db[d] > 0:
                return 1
            if db[d] == 0 and da[d] > 0:
                return -1
        min_a, min_b = min(ma[d], da[d]), min(mb[d], db[d])
        needy_a, needy_b = ua[d] < min_a, ub[d] < min_b
        if needy_a and not needy_b:
            return -1
        if needy_b and not needy_a:
            return 1
        if needy_a and needy_b:
            return signum(ua[d] / max(min_a, 1.0) - ub[d] / max(min_b, 1.0))
        if not self.v3 or (wa > 0.0 and wb > 0.0):
            return signum(div(ua[d], wa) - div(ub[d], wb))
        if wa == wb:
            return signum(ua[d] - ub[d])
        return signum(-wa + wb)

    def _compare_drf(
        self,
        ua: np.ndarray,
        ma: np.ndarray,
        wa: float,
        ub: np.ndarray,
        mb: np.ndarray,
        wb: float,
    ) -> int:
        c = self.cluster
        sa = [div(div(ua[0], c[0]), wa), div(div(ua[1], c[1]), wa)]
        sb = [div(div(ub[0], c[0]), wb), div(div(ub[1], c[1]), wb)]
        oa = (0, 1) if sa[0] > sa[1] else (1, 0)
        ob = (0, 1) if sb[0] > sb[1] else (1, 0)
        na = [div(ua[0], ma[0]), div(ua[1], ma[1])]
        nb = [div(ub[0], mb[0]), div(ub[1], mb[1])]
        needy_a, needy_b = na[oa[0]] < 1.0, nb[ob[0]] < 1.0
        if needy_a and not needy_b:
            return -1
        if needy_b and not needy_a:
            return 1
        xa, xb = (na, nb) if needy_a else (sa, sb)
        for i in (0, 1):
            r = signum(xa[oa[i]] - xb[ob[i]])
            if r != 0:
                return r
        return 0

    def _queue_key(self, q: int, usage_less: np.ndarray | None = None) -> Key:
        usage = self.q_usage[q] if usage_less is None else self.q_usage[q] - usage_less[q]
        min_share = self.q.min_share[q]
        needs_demand = self.v3 or min_share[0] > 0 or min_share[1] > 0
        demand = self._demand(q) if needs_demand else np.zeros(2)
        return (usage, demand, min_share, float(self.q.weight[q]), 0.0, int(self.q.name_rank[q]))

    def _app_key(self, j: int, usage_less: bool = False) -> Key:
        usage = self.job_usage[j] - self.job_tbp[j] if usage_less else self.job_usage[j]
        demand = self.job_usage[j] + self.job_pend[j]
        return (
            usage,
            demand,
            np.zeros(2),
            self._app_weight(j),
            float(self.p.job_submit[j]),
            int(self.p.job_rank[j]),
        )
