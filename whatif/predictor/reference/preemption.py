"""Preemption, Hadoop 3: starvation at update() times and the containers taken for it.

The pure-Python twin of ``whatif/predictor/kernel/preemption.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.reference.events import _grid_after, _grid_at_or_after
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.resources import div, java_int, res_compare
from whatif.predictor.reference.state import INF, KILL


class Preemption(EngineState):
    """Hadoop 3 preemption (twin of ``kernel/preemption.py``)."""

    def _utilization_gate(self) -> bool:
        used = 1.0 - self.free / np.where(self.cluster > 0, self.cluster, 1.0)
        result: bool = (
            max(used[0], used[1] if self.cluster[1] > 0 else 0.0) > self.s.utilization_threshold
        )
        return result

    def _leaves(self) -> list[int]:
        return [q for q in range(len(self.q.parent)) if self.q.is_leaf[q]]

    def _below(self, policy: int, usage: np.ndarray, share: np.ndarray) -> bool:
        return res_compare(policy, usage, share, self.cluster) < 0

    def _set_min_starv(self, j: int, amount: np.ndarray) -> None:
        """Set app `j`'s min-share starvation; whether it is starved, so may reserve a
        node, changing is a change (kernel `_set_min_starvation`)."""
        if self.res_on and bool(self.job_min_starv[j].any()) != bool(amount.any()):
            self.changed = True
        self.job_min_starv[j] = amount

    def _preempt_v3(self) -> None:
        """FSLeafQueue.updateStarvedApps + FSPreemptionThread, at an update() time."""
        self.next_check = INF
        if not self._utilization_gate():
            return
        t = self.now
        starved: list[int] = []
        candidates: list[float] = []
        for leaf in self._leaves():
            if self.q.fair_timeout[leaf] == INF and self.q.min_timeout[leaf] == INF:
                continue
            self._app_shares(leaf)
            policy = int(self.q.policy[leaf])
            apps = [
                j
                for j in self.leaf_apps[leaf]
                if (self.job_pend[j] > 0).any() and t >= self.job_next_check[j]
            ]
            for j in self.leaf_apps[leaf]:
                if (self.job_pend[j] > 0).any() and t < self.job_next_check[j]:
                    candidates.append(self.job_next_check[j])
            ordered = self._sorted_apps(apps, policy)
            fair_total = np.zeros(2)
            timeout = float(self.q.fair_timeout[leaf])
            threshold = float(self.q.fair_threshold[leaf])
            for j in ordered:
                fair_demand = np.minimum(
                    np.floor(self.job_fair[j] * threshold), self.job_usage[j] + self.job_pend[j]
                )
                is_starved = self._below(policy, self.job_usage[j], fair_demand)
                if not is_starved:
                    self.job_last_fair[j] = -INF
                elif self.job_last_fair[j] == -INF:
                    self.job_last_fair[j] = t
                if not is_starved or t - self.job_last_fair[j] < timeout:
                    self.job_fair_starv[j] = 0.0
                    if is_starved:
                        candidates.append(self.job_last_fair[j] + timeout)
                    break
                self.job_fair_starv[j] = np.maximum(fair_demand - self.job_usage[j], 0.0)
                if j not in starved:
                    starved.append(j)
                fair_total += self.job_fair_starv[j]
            demand = self._demand(leaf)
            starvation = np.maximum(
                np.minimum(self.q.min_share[leaf], demand) - self.q_usage[leaf], 0.0
            )
            min_timeout = float(self.q.min_timeout[leaf])
            pending = np.zeros(2)
            if not starvation.any():
                self.q_last_min[leaf, 0] = -INF
            else:
                if self.q_last_min[leaf, 0] == -INF:
                    self.q_last_min[leaf, 0] = t
                if t - self.q_last_min[leaf, 0] >= min_timeout:
                    pending = np.maximum(starvation - fair_total, 0.0)
                else:
                    candidates.append(self.q_last_min[leaf, 0] + min_timeout)
            for j in ordered:
                if pending.any():
                    app_min = np.maximum(self.job_pend[j] - self.job_fair_starv[j], 0.0)
                    if res_compare(policy, app_min, pending, self.cluster) > 0:
                        app_min = np.maximum(app_min - pending, 0.0)
                        pending = np.zeros(2)
                    else:
                        pending = np.maximum(pending - app_min, 0.0)
                    self._set_min_starv(j, app_min)
                    if j not in starved:
                        starved.append(j)
                else:
                    self._set_min_starv(j, np.zeros(2))
        for j in starved:
            self._preempt_for(j)
            self.job_next_check[j] = t + self.s.starvation_recheck_delay_s
            candidates.append(self.job_next_check[j])
        # checks fall on the update grid: the first one a timer expires by, and the next one
        # after a check that found starved apps (those are skipped then, so others may starve)
        interval = self.s.update_interval_s
        future = [_grid_at_or_after(c, interval) for c in candidates if t < c < INF]
        if starved:
            future.append(_grid_after(t, interval))
        self.next_check = min(future) if future else INF

    def _sorted_apps(self, apps: list[int], policy: int) -> list[int]:
        """Apps in the leaf policy's order (selection by the same first-best scan)."""
        rest, out = list(apps), []
        while rest:
            j = self._best(rest, self._app_key, policy, 0)
            assert j is not None  # rest is not empty
            out.append(j)
            rest.remove(j)
        return out

    def _requests(self, j: int) -> list[tuple[np.ndarray, int]]:
        """The app's outstanding requests in priority order: (capability, count)."""
        p = self.p
        if self.job_am_state[j] == 1:
            return [(p.job_am[j], 1)]
        stages = [
            s
            for s in range(int(p.job_stage_ptr[j]), int(p.job_stage_ptr[j + 1]))
            if self.stage_released[s]
            and not self.stage_held[s]
            and self.stage_pending[s] > 0
            and self.stage_ramp[s] != 0
        ]
        stages.sort(key=lambda s: (self._stage_priority(s), s))
        out = []
        for s in stages:
            task = self._head(s)
            asked = self.stage_ramp[s]
            out.append((p.task_req[task], self.stage_pending[s] if asked < 0 else asked))
        return out

    def _preempt_for(self, j: int) -> None:
        """FSPreemptionThread.identifyContainersToPreempt for one starved app, then schedule kills."""
        p = self.p
        leaf = int(p.job_queue[j])
        policy = int(self.q.policy[leaf])
        pending = self.job_fair_starv[j] + self.job_min_starv[j]
        victims: list[int] = []
        chosen: set[int] = set()
        for cap, count in self._requests(j):
            if not pending.any():
                break
            if policy == 2:
                ratio = max(div(pending[0], cap[0]), div(pending[1], cap[1]))
            else:
                ratio = div(pending[0], cap[0])
            fit = java_int(math.floor(ratio) if ratio == ratio and abs(ratio) != INF else ratio)
            if fit == 0:
                continue  # getStarvedResourceRequests: a capability too large for pending
            n = min(fit, count)
            pending = pending - cap * n
            for _ in range(n):
                found = self._victims_for(cap, chosen)
                if not found:
                    # nothing changed, so every further scan for this request ends the same
                    break
                victims.extend(found)
                chosen.update(found)
                for a in found:
                    # trackContainerForPreemption as each container's victims are found:
                    # the next scan's fair-share test sees them (one app gives up only
                    # what keeps it at its share, not every container in turn)
                    task = self.att_task[a]
                    self.job_tbp[int(p.task_job[task])] += p.task_req[task]
        for a in victims:
            task = self.att_task[a]
            self.att_mark[a] = self.now + self.s.wait_time_before_kill_s
            self._push(self.att_mark[a], KILL, a)
            self._claim_add(max(self.att_node[a], 0), j, p.task_req[task])

    def _victims_for(self, cap: np.ndarray, chosen: set[int]) -> list[int] | None:
        """identifyContainersToPreemptOnNode with the cluster as one node (AMs never chosen)."""
        p = self.p
        potential = np.maximum(self.free, 0.0)
        found: list[int] = []
        considered: dict[int, np.ndarray] = {}
        for a in reversed(self.running):
            task = self.att_task[a]
            if task < 0 or a in chosen or self.att_mark[a] >= 0:
                continue
            vj = int(p.task_job[task])
            vleaf = int(p.job_queue[vj])
            req = p.task_req[task]
            if self.q.preemptable[vleaf]:
                self._app_shares(vleaf)
                after = self.job_usage[vj] - self.job_tbp[vj] - req - considered.get(vj, 0.0)
                if not self._below(int(self.q.policy[vleaf]), after, self.job_fair[vj]):
                    found.append(a)
                    considered[vj] = considered.get(vj, 0.0) + req
                    potential = potential + req
            if cap[0] <= potential[0] and cap[1] <= potential[1]:
                return found
        return None
