"""Preemption, Hadoop 1 and 2: the queue-level check on the preemption interval's grid.

The pure-Python twin of ``whatif/predictor/kernel/preemption_v12.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from whatif.predictor.reference.events import _expired, _grid_after, _grid_at_or_after
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.resources import res_compare
from whatif.predictor.reference.state import INF, KILLED, RUNNING

if TYPE_CHECKING:
    from whatif.predictor.reference.protocol import Key


class PreemptionV12(EngineState):
    """Hadoop 1/2 preemption (twin of ``kernel/preemption_v12.py``)."""

    def _stamp_v12(self) -> tuple[float, float]:
        """Update the starvation timers with the state now; returns the grid time the first
        timer acts and the first one still ahead of now."""
        t = self.now
        interval = self.s.preemption_interval_s
        assert interval is not None  # resolved when the settings are built
        v1 = self.s.hadoop_version == 1
        nxt = ahead = INF
        for leaf in self._leaves():
            for d in self.dims if v1 else [0]:
                policy = 0 if v1 else int(self.q.policy[leaf])
                usage, demand = self.q_usage[leaf], self._demand(leaf)
                if v1:
                    demand = self.q_usage[leaf] + self.q_pend_all[leaf]
                    min_starved = usage[d] < min(self.q.min_share[leaf, d], demand[d])
                    fair_starved = usage[d] < math.floor(min(self.q_fair[leaf, d] / 2.0, demand[d]))
                else:
                    min_starved = self._below(
                        policy, usage, self._rmin(policy, self.q.min_share[leaf], demand)
                    )
                    share = np.floor(self.q_fair[leaf] * self.q.fair_threshold[leaf])
                    fair_starved = self._below(policy, usage, self._rmin(policy, share, demand))
                for table, timeout, starving in (
                    (self.q_last_min, self.q.min_timeout[leaf], min_starved),
                    (self.q_last_fair, self.q.fair_timeout[leaf], fair_starved),
                ):
                    if not starving:
                        table[leaf, d] = -INF
                        continue
                    if table[leaf, d] == -INF:
                        table[leaf, d] = t
                    if timeout != INF:
                        # a timer acts once strictly past the timeout (curTime - last > timeout)
                        e = table[leaf, d] + timeout
                        g = _grid_after(max(e, t), interval)
                        nxt = min(nxt, g)
                        if e >= t:
                            ahead = min(ahead, g)
        return nxt, ahead

    def _preempt_v12(self) -> bool:
        """Hadoop 2 preemptTasksIfNecessary / Hadoop 1 preemptTasksIfNecessary, on a grid.

        Returns whether this was a check that warned and killed nothing (an idle one).
        """
        t = self.now
        interval = self.s.preemption_interval_s
        assert interval is not None
        self._stamp_v12()
        # a check time: the scheduled one, or any grid time after it (checks skipped while idle)
        check = self.next_check_v12 <= t and _grid_at_or_after(t, interval) == t
        if (
            check
            and self.next_submit == len(self.p.job_submit)
            and self._repeats(self._v12_state(t))
        ):
            # the state repeats a recent check's: from here on the run only cycles
            self.livelocked = True
            return False
        acted = False
        if check and self._utilization_gate_v12():
            if self.s.hadoop_version == 1:
                for d in self.dims:
                    acted = self._preempt_v1(d) or acted
            else:
                acted = self._preempt_v2()
        return check and not acted

    def _v12_timers(self, idle: bool) -> None:
        """Stamp the timers with the iteration's final state and schedule the next checks
        (after the AM's ramp-down and an allocation at the same time: see the kernel's)."""
        t = self.now
        interval = self.s.preemption_interval_s
        assert interval is not None
        nxt, wake = self._stamp_v12()
        if not idle:
            wake = nxt
        elif nxt < INF:
            # idle: until another event, a check only acts once a timer expires or a warned
            # container passes waitTimeBeforeKill, so only those times are woken for
            for a in self.warned:
                k = _grid_after(self.att_mark[a] + self.s.wait_time_before_kill_s, interval)
                if self.att_state[a] == RUNNING and k > t:
                    wake = min(wake, k)
        self.next_check_v12: float = nxt
        self.next_check = wake

    def _utilization_gate_v12(self) -> bool:
        return True if self.s.hadoop_version == 1 else self._utilization_gate()

    def _rmin(self, policy: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a if res_compare(policy, a, b, self.cluster) <= 0 else b

    def _rmax(self, policy: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a if res_compare(policy, a, b, self.cluster) >= 0 else b

    def _preempt_v2(self) -> bool:
        """Hadoop 2 warn-then-kill; returns whether anything was warned or killed."""
        t = self.now
        to_preempt = np.zeros(2)
        for leaf in self._leaves():
            policy = int(self.q.policy[leaf])
            demand = self._demand(leaf)
            usage = self.q_usage[leaf]
            res_min = res_fair = np.zeros(2)
            if self.q_last_min[leaf, 0] > -INF and _expired(
                t - self.q_last_min[leaf, 0], self.q.min_timeout[leaf]
            ):
                target = np.minimum(self.q.min_share[leaf], demand)
                res_min = self._rmax(policy, np.zeros(2), target - usage)
            if self.q_last_fair[leaf, 0] > -INF and _expired(
                t - self.q_last_fair[leaf, 0], self.q.fair_timeout[leaf]
            ):
                target = np.minimum(self.q_fair[leaf], demand)
                res_fair = self._rmax(policy, np.zeros(2), target - usage)
            to_preempt = to_preempt + self._rmax(policy, res_min, res_fair)
        if not to_preempt[0] > 0:
            return False
        acted = False
        keep = []
        for a in self.warned:
            if self.att_state[a] == RUNNING and to_preempt[0] > 0:
                req = self.p.task_req[self.att_task[a]]
                if self.att_mark[a] + self.s.wait_time_before_kill_s < t:
                    self._end_attempt(a, KILLED)
                    acted = True
                else:
                    keep.append(a)
                to_preempt = to_preempt - req
        self.warned: list[int] = keep
        warned_q = np.zeros_like(self.q_usage)
        for j in self.jobs_with_tbp():
            self._up(warned_q, int(self.p.job_queue[j]), self.job_tbp[j])
        while to_preempt[0] > 0:
            victim = self._preempt_container(0, warned_q)
            if victim is None:
                break
            task = self.att_task[victim]
            j = int(self.p.task_job[task])
            self.att_mark[victim] = t
            self.job_tbp[j] += self.p.task_req[task]
            self._up(warned_q, int(self.p.job_queue[j]), self.p.task_req[task])
            self.warned.append(victim)
            to_preempt = to_preempt - self.p.task_req[task]
            acted = True
        return acted

    def jobs_with_tbp(self) -> list[int]:
        return [int(j) for j in np.flatnonzero((self.job_tbp != 0).any(axis=1))]

    def _preempt_container(self, q: int, warned_q: np.ndarray) -> int | None:
        """FSParentQueue/FSLeafQueue/FSAppAttempt.preemptContainer (Hadoop 2)."""
        p = self.p
        while not self.q.is_leaf[q]:
            best: int | None = None
            best_key: Key = ()
            for c in self._children(q):
                k = self._queue_key(c, warned_q)
                if best is None or self._compare(int(self.q.policy[q]), 0, k, best_key) > 0:
                    best, best_key = c, k
            if best is None:
                return None
            q = best
        policy = int(self.q.policy[q])
        usage = self.q_usage[q] - warned_q[q]
        if self.q.policy[self.q.parent[q]] == 2:
            over = not (usage[0] <= self.q_fair[q, 0] and usage[1] <= self.q_fair[q, 1])
        else:
            over = usage[0] > self.q_fair[q, 0]
        if not over or not self.q.preemptable[q]:
            return None
        app: int | None = None
        app_key: Key = ()
        for j in self.leaf_apps[q]:
            k = self._app_key(j, usage_less=True)
            if app is None or self._compare(policy, 0, k, app_key) > 0:
                app, app_key = j, k
        if app is None:
            return None
        victim = None
        for a in self.running:
            task = self.att_task[a]
            if task < 0 or int(p.task_job[task]) != app or self.att_mark[a] >= 0:
                continue
            if (
                victim is None
                or p.stage_priority[p.task_stage[task]]
                >= p.stage_priority[p.task_stage[self.att_task[victim]]]
            ):
                victim = a
        return victim

    def _preempt_v1(self, d: int) -> bool:
        """MRv1 FairScheduler.preemptTasks for slot pool `d`: kill the newest tasks at once.

        Returns whether anything was killed.
        """
        t = self.now
        p = self.p
        total = 0.0
        leaves = self._leaves()
        for leaf in leaves:
            demand = self.q_usage[leaf, d] + self.q_pend_all[leaf, d]
            running = self.q_usage[leaf, d]
            n_min = n_fair = 0.0
            if self.q_last_min[leaf, d] > -INF and _expired(
                t - self.q_last_min[leaf, d], self.q.min_timeout[leaf]
            ):
                n_min = max(0.0, min(self.q.min_share[leaf, d], demand) - running)
            if self.q_last_fair[leaf, d] > -INF and _expired(
                t - self.q_last_fair[leaf, d], self.q.fair_timeout[leaf]
            ):
                n_fair = max(0.0, math.floor(min(self.q_fair[leaf, d], demand)) - running)
            total += math.floor(max(n_min, n_fair))
        if total <= 0:
            return False
        acted = False
        over = {
            leaf
            for leaf in leaves
            if self.q_usage[leaf, d] > self.q_fair[leaf, d] and self.q.preemptable[leaf]
        }
        left = {leaf: self.q_usage[leaf, d] for leaf in leaves}
        victims = [
            a
            for a in reversed(self.running)
            if self.att_task[a] >= 0
            and p.stage_dim[p.task_stage[self.att_task[a]]] == d
            and not p.stage_jobtracker[p.task_stage[self.att_task[a]]]
            and int(p.job_queue[int(p.task_job[self.att_task[a]])]) in over
        ]
        victims.sort(key=lambda a: -self.att_start[a])
        for a in victims:
            leaf = int(p.job_queue[int(p.task_job[self.att_task[a]])])
            if left[leaf] > self.q_fair[leaf, d]:
                # a kill frees the task's share of the pool: one slot, or its memory
                size = p.task_req[self.att_task[a], d]
                self._end_attempt(a, KILLED)
                acted = True
                left[leaf] -= size
                total -= size
                if total <= 0:
                    break
        del t
        return acted
