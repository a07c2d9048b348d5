"""The Capacity Scheduler's preemption monitor, memory only.

The pure-Python twin of ``whatif/predictor/kernel/capacity_preemption.py`` (whose
docstring gives the rules and the Hadoop methods they follow): the same steps with
Python objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.state import KILLED, RUNNING

JAVA_INT_MAX = 2147483647.0


def _f32_ratio(a: float, b: float) -> float:
    """Java's ``(float) a / b`` of two longs, as a double."""
    return float(np.float32(a) / np.float32(b))


class CapacityPreemption(EngineState):
    """ProportionalCapacityPreemptionPolicy (twin of ``kernel/capacity_preemption.py``)."""

    def _cs_pending(self, leaf: int) -> float:
        """Pending memory within user limits: per user, min(limit - used (>= 0), pending)."""
        common = self._cs_user_limit(leaf)
        apps = self.leaf_apps[leaf]
        users = dict.fromkeys(int(self.p.job_user[j]) for j in apps)
        total = 0.0
        for u in users:
            mine = [j for j in apps if self.p.job_user[j] == u]
            limit = self._cs_weighted(common, mine[0])  # the user's own (its weight)
            used = sum(float(self.job_usage[j, 0]) for j in mine)
            pend = sum(float(self.job_pend[j, 0]) for j in mine)
            total += min(max(limit - used, 0.0), pend)
        return total

    def _cs_dead_zone(self, q: int) -> bool:
        """Not disable_preemption, and used > guarantee x (1 + max_ignored), truncated."""
        if self.cs.no_preemption[q]:
            return False
        g = math.floor(float(self.cs.guarantee_mb[q]))
        ignored = self.cs.monitor.max_ignored_over_capacity
        return bool(self.q_usage[q, 0] > math.floor(g * (1.0 + ignored)))

    def _cs_fixpoint(
        self,
        members: list[int],
        zero: bool,
        unassigned: float,
        snap: dict[str, dict[int, float]],
    ) -> float:
        """computeFixpointAllocation over `members`; returns what is left unassigned."""
        U, P, G, M = snap["used"], snap["pending"], snap["guar"], snap["max"]
        ideal, untouch = snap["ideal"], snap["untouch"]
        asking: list[int] = []
        for c in members:
            ideal[c] = G[c] + untouch[c] if U[c] > G[c] else U[c]
            unassigned -= ideal[c]
            if ideal[c] < U[c] + P[c]:
                asking.append(c)

        def ratio(c: int) -> float:
            return _f32_ratio(ideal[c], G[c]) if G[c] > 0 else JAVA_INT_MAX

        while asking and unassigned > 0:
            total_g = sum(G[c] for c in asking)
            n = len(asking)
            best = min(ratio(c) for c in asking)
            served = [c for c in asking if ratio(c) == best]
            taken = 0.0
            for c in served:
                share = (
                    float(np.float32(1.0) / np.float32(n)) if zero else _f32_ratio(G[c], total_g)
                )
                avail = math.floor(unassigned * share + 0.5)
                accepted = min(max(M[c] - ideal[c], 0.0), min(avail, U[c] + P[c] - ideal[c]))
                if self.q.is_leaf[c]:
                    accepted = min(accepted, max(max(U[c], G[c]) - ideal[c], 0.0))
                ideal[c] += accepted
                taken += accepted
                if accepted <= 0:
                    asking.remove(c)
            unassigned -= taken
        return unassigned

    def _cs_to_obtain(self, budget: float) -> dict[int, float]:
        """Each yielding leaf's to-obtain this round (MB)."""
        nq = len(self.q.parent)
        snap: dict[str, dict[int, float]] = {
            "used": {q: float(self.q_usage[q, 0]) for q in range(nq)},
            "guar": {q: float(math.floor(self.cs.guarantee_mb[q])) for q in range(nq)},
            "max": {q: float(math.floor(self.q.max_share[q, 0])) for q in range(nq)},
            "pending": {},
            "untouch": {},
            "ideal": dict.fromkeys(range(nq), 0.0),  # Hadoop's initial idealAssigned
        }
        U, G, P, untouch = snap["used"], snap["guar"], snap["pending"], snap["untouch"]
        spare: dict[int, float] = {}
        for q in reversed(range(nq)):  # children before their parent
            extra = max(U[q] - G[q], 0.0)
            if self.q.is_leaf[q]:
                P[q] = self._cs_pending(q)
                untouch[q] = extra if self.cs.no_preemption[q] else 0.0
                spare[q] = 0.0 if self.cs.no_preemption[q] else extra
            else:
                kids = self._children(q)
                P[q] = sum(P[c] for c in kids)
                below = sum(spare[c] for c in kids)
                untouch[q] = 0.0 if below >= extra else extra - below
                spare[q] = min(below, extra)
        ideal = snap["ideal"]
        ideal[0] = G[0]
        to_preempt: dict[int, float] = {}
        for q in range(nq):
            if self.q.is_leaf[q]:
                continue
            kids = self._children(q)
            left = self._cs_fixpoint([c for c in kids if G[c] > 0], False, ideal[q], snap)
            zeros = [c for c in kids if G[c] <= 0]
            if zeros and left > 0:
                self._cs_fixpoint(zeros, True, left, snap)
            needed = sum(U[c] - ideal[c] for c in kids if U[c] > ideal[c])
            scale = _f32_ratio(budget, needed) if needed > budget else 1.0
            for c in kids:
                keep = max(min(U[c] + P[c], G[c]), ideal[c])
                to_preempt[c] = math.floor((U[c] - keep) * scale) if U[c] > keep else 0.0
        natural = self.cs.monitor.natural_termination_factor
        return {
            q: float(math.floor(to_preempt[q] * natural + 0.5))
            for q in range(nq)
            if self.q.is_leaf[q] and self._cs_dead_zone(q) and to_preempt[q] > 0
        }

    def _cs_take(self, leaf: int, obtain: float, budget: float, chosen: list[int]) -> float:
        """FifoCandidatesSelector on one leaf; appends to `chosen`, returns the budget left."""
        p = self.p
        apps = self.leaf_apps[leaf]
        if self.q.policy[leaf] == 0:  # fair: most used first, then later submitted
            apps = sorted(
                apps,
                key=lambda j: (self._cs_magnitude(leaf, j), float(p.job_submit[j]), j),
                reverse=True,
            )
        else:
            apps = sorted(apps, reverse=True)
        place = {j: i for i, j in enumerate(apps)}

        def job_of(a: int) -> int:
            task = self.att_task[a]
            return int(p.task_job[task]) if task >= 0 else -1 - task

        def priority(a: int) -> int:
            task = self.att_task[a]
            return int(p.stage_priority[p.task_stage[task]]) if task >= 0 else 0

        mine = [a for a in self.running if p.job_queue[job_of(a)] == leaf]
        mine.sort(key=lambda a: (place[job_of(a)], -priority(a), -a))
        skipped: list[int] = []
        for a in mine:
            if obtain <= 0:
                break
            task = self.att_task[a]
            if task < 0:
                skipped.append(a)  # an AM: set aside
                continue
            size = float(p.task_req[task, 0])
            if size <= budget:
                obtain -= size
                budget -= size
                chosen.append(a)
        return self._cs_take_ams(leaf, skipped, obtain, budget, chosen)

    def _cs_take_ams(
        self, leaf: int, skipped: list[int], obtain: float, budget: float, chosen: list[int]
    ) -> float:
        """preemptAMContainers: the set-aside AMs while the leaf still has to obtain and
        their memory exceeds its max AM capacity (see the kernel's)."""
        size = {a: float(self.p.job_am[-1 - self.att_task[a], 0]) for a in skipped}
        left = 0.0
        for a in skipped:
            left += size[a]
        pct = float(np.float32(self.cs.am_percent[leaf]))
        cap = math.floor(math.floor(float(self.cs.guarantee_mb[leaf])) * pct)
        for a in skipped:
            if obtain <= 0 or left <= cap:
                break
            if size[a] <= budget:
                obtain -= size[a]
                budget -= size[a]
                left -= size[a]
                chosen.append(a)
        return budget

    def _cs_monitor(self) -> int:
        """One monitor round now; returns the containers killed (the loop schedules the
        next round while marks are held)."""
        mon = self.cs.monitor
        interval_s = mon.monitoring_interval_ms / 1000.0
        interval, wait = float(mon.monitoring_interval_ms), float(mon.max_wait_before_kill_ms)
        k = math.floor(self.now / interval_s + 0.5)
        now = k * interval
        chosen: list[int] = []
        nq = len(self.q.parent)
        if any(self.q.is_leaf[q] and self._cs_dead_zone(q) for q in range(nq)):
            budget = float(
                math.floor(self.cluster[0] * float(np.float32(mon.total_preemption_per_round)))
            )
            for q, obtain in self._cs_to_obtain(budget).items():
                if obtain > 0:
                    budget = self._cs_take(q, obtain, budget, chosen)
        # marks the previous round's cleanup kept (rounds skipped as idle included)
        for a, m in list(self.cs_marks.items()):
            if self.att_state[a] != RUNNING or m * interval + 2 * wait < now - interval:
                del self.cs_marks[a]
        killed = 0
        for a in chosen:
            if a in self.cs_marks:
                if self.cs_marks[a] * interval + wait <= now:
                    del self.cs_marks[a]
                    if self.att_task[a] < 0:
                        self._am_preempted(a)  # its app's attempt fails: a new one starts
                    else:
                        self._end_attempt(a, KILLED)
                    killed += 1
            else:
                self.cs_marks[a] = k
        for a, m in list(self.cs_marks.items()):
            if m * interval + 2 * wait < now:
                del self.cs_marks[a]
        return killed
