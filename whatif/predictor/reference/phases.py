"""MapReduce job phases: submission and maxRunningApps, the AM, stages and slowstart,
attempts starting and ending, job end, and the MapReduce AM's reduce ramp-down and ramp-up.

The pure-Python twin of ``whatif/predictor/kernel/phases.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.state import (
    AM_ASK,
    AM_KILLED,
    AM_READY,
    FAILED,
    HANG,
    INF,
    KILLED,
    REASK,
    RUNNING,
    SUCCEEDED,
)

#: a count past any stage's tasks (`_window_req`: every unassigned one)
ALL = 2**31 - 1


class Phases(EngineState):
    """MapReduce job phases (twin of ``kernel/phases.py``)."""

    def _submit(self, j: int) -> None:
        p = self.p
        if self.q.capacity is not None and not self._cs_admit(j):
            self.job_state[j] = 3  # rejected (maximum-applications): never runs, no finish
            return
        self.job_state[j] = 1
        self.job_last_fair[j] = -INF
        if not p.job_has_am[j] and p.job_stage_ptr[j] == p.job_stage_ptr[j + 1]:
            self.job_state[j] = 3
            self.job_finish[j] = self.now
            return
        if p.job_has_am[j]:
            self.job_am_state[j] = 1
            self._add_pending(j, p.job_am[j])
        else:
            self._release_stage(j, int(p.job_stage_ptr[j]))
        if self._can_run(j):
            self._make_runnable(j)
        else:
            self.waiting.append(j)

    def _can_run(self, j: int) -> bool:
        """MaxRunningAppsEnforcer.canAppBeRunnable: user and every queue up to root under limit."""
        user = int(self.p.job_user[j])
        limit = int(self.p.user_max_apps[user])
        if limit >= 0 and self.user_running[user] >= limit:
            return False
        for q in self._ancestors(int(self.p.job_queue[j])):
            if self.q.max_apps[q] >= 0 and self.q_runnable[q] >= self.q.max_apps[q]:
                return False
        return True

    def _make_runnable(self, j: int) -> None:
        leaf = int(self.p.job_queue[j])
        self.changed = True
        self.job_state[j] = 2
        self.user_running[int(self.p.job_user[j])] += 1
        self._count_runnable(leaf, 1)
        self._up(self.q_pend_run, leaf, self.job_pend[j])
        self.leaf_apps[leaf].append(j)
        self._jt_refresh(j)

    def _add_pending(self, j: int, amount: np.ndarray) -> None:
        leaf = int(self.p.job_queue[j])
        self.job_pend[j] += amount
        self._up(self.q_pend_all, leaf, amount)
        if self.job_state[j] == 2:
            self._up(self.q_pend_run, leaf, amount)
        self.changed = True

    def _release_stage(self, j: int, s: int) -> None:
        """Release stage `s` (with slowstart 0, the reduces after it too); with an allocate
        cycle, at the AM's next call (`allocate_cycle.py`)."""
        p = self.p
        if s in self.stage_asked:
            return
        if self._cycles(j) and self.job_am_state[j] == 3:
            call = self._am_call(j, self.now, True)
            if call > self.now:
                self.stage_asked.add(s)
                if j not in self.asking:
                    self.asking.add(j)
                    self._push(call, AM_ASK, self.job_am_attempt[j])
                return
        self.stage_released[s] = True
        lo, hi = int(p.stage_task_start[s]), int(p.stage_task_end[s])
        self.stage_pending[s] = hi - lo - self.stage_done[s]
        if p.stage_jobtracker[s]:
            self._jt_refresh(j)  # the JobTracker hands it out, not the scheduler
            return
        self._map_asked(j, s)
        if self._ramps(s):
            self.stage_ramp[s] = 0  # the AM asks for its reduces as it ramps them up
            self._ramp_refresh(j)
            self._ramp_job(j)
        elif self.stage_next[s] == lo and not self.stage_retry[s] and self.stage_done[s] == 0:
            self._add_pending(j, p.task_req[lo:hi].sum(axis=0))
        else:  # a restarted AM asks for what its failed attempt left (`_am_preempted`)
            self._add_pending(j, self._unassigned_req(s))
        self._maybe_slowstart(j, s)

    def _maybe_slowstart(self, j: int, s: int) -> None:
        """Release the reduce stage after map stage `s` once enough maps completed."""
        p = self.p
        nxt = s + 1
        if nxt < p.job_stage_ptr[j + 1] and p.stage_slowstart[nxt] and not self.stage_released[nxt]:
            size = p.stage_task_end[s] - p.stage_task_start[s]
            if self.stage_done[s] / size >= self.s.slowstart_completed_maps:
                self._release_stage(j, nxt)

    def _am_ask(self, a: int) -> None:
        """AM attempt `a`'s allocate call sends the stages released since its last one
        (nothing, if the attempt has failed since)."""
        j = -1 - self.att_task[a]
        if self.job_am_attempt[j] != a or self.job_am_state[j] != 3:
            return
        self.asking.discard(j)
        p = self.p
        for s in range(int(p.job_stage_ptr[j]), int(p.job_stage_ptr[j + 1])):
            if s in self.stage_asked:
                self.stage_asked.remove(s)
                self._release_stage(j, s)

    def _am_ready(self, a: int) -> None:
        """AM attempt `a` is ready (unless it has failed since): it releases its job's first
        stage not completed."""
        j = -1 - self.att_task[a]
        if self.job_am_attempt[j] == a and self.job_am_state[j] == 2:
            self.job_am_state[j] = 3
            self.job_am_t0[j] = self.now
            lo, hi = int(self.p.job_stage_ptr[j]), int(self.p.job_stage_ptr[j + 1])
            todo = [s for s in range(lo, hi) if not self.stage_released[s]]
            if not todo:
                self._finish_job(j)
            else:
                self._release_stage(j, todo[0])

    def _hold(self, j: int, s: int, hold: bool) -> None:
        """Withdraw the requests of a reduce stage's unassigned tasks asked for (all, or
        as many as the AM ramped up), or re-issue all of them (see the kernel's)."""
        self.stage_held[s] = hold
        k = self.stage_ramp[s]
        if hold:
            self._add_pending(j, -self._window_req(s, 0, k if k >= 0 else ALL))
            if k > 0:
                self.stage_ramp[s] = 0
        else:
            self._add_pending(j, self._unassigned_req(s))
            self.stage_ramp[s] = -1
            self._ramp_refresh(j)

    def _unassigned_req(self, s: int) -> np.ndarray:
        """The summed requests of stage `s`'s unassigned tasks."""
        return self._window_req(s, 0, ALL)

    def _am_preempted(self, a: int) -> None:
        """The monitor kills AM container `a`: its app's attempt fails, with its other
        containers and requests; a new attempt asks for its AM at once (see the kernel's)."""
        p = self.p
        j = -1 - self.att_task[a]
        self._end_attempt(a, KILLED)
        for task in [task for task in self.limbo if p.task_job[task] == j]:
            del self.limbo[task]  # the recovering AM asks for them (as for those killed next)
            self._reask(task, p.task_req[task])
        for b in list(self.running):
            task = self.att_task[b]
            if task >= 0 and p.task_job[task] == j:
                self._end_attempt(b, AM_KILLED)
        for s in range(int(p.job_stage_ptr[j]), int(p.job_stage_ptr[j + 1])):
            if self.stage_done[s] < p.stage_task_end[s] - p.stage_task_start[s]:
                self.stage_released[s] = False
                self.stage_held[s] = False
                self.stage_ramp[s] = -1
                self.stage_missed[s] = 0
                self.stage_floc_level[s] = -1  # a new attempt's keys start afresh
                self.stage_floc_opp[s] = 0
                self.stage_asked.discard(s)
                self.stage_retry[s].sort()  # task order, before the fresh ones (kernel's)
                self.stage_front[s] = len(self.stage_retry[s])
        self._ramp_refresh(j)
        self.asking.discard(j)
        self._add_pending(j, -self.job_pend[j])
        self.job_am_state[j] = 1
        self._add_pending(j, p.job_am[j])

    def _preempt_reduces(self) -> bool:
        """MapReduce AM (RMContainerAllocator.preemptReducesIfNeeded): free room for maps.

        A job with unassigned maps, no running map and reduces waiting for maps whose
        maps hang, or whose next map does not fit its headroom (less its asked reduces in
        Hadoop 3, once its maps have waited mapreduce.job.reducer.preempt.delay.sec),
        withholds its reduce requests until every map is assigned and kills some of its
        waiting reduces (`_preempt_reducer`). Returns whether anything was killed.
        Hadoop 1 has no such AM: on its slot pools its JobTracker never kills or holds
        back reduces for maps (on one pool of memory the rule stays; see the kernel's).
        """
        if self.s.hadoop_version == 1 and self.p.slot_mode:
            return False
        p = self.p
        killed = False
        for j in list(self.reducing):
            s = next(
                k
                for k in range(int(p.job_stage_ptr[j]), int(p.job_stage_ptr[j + 1]))
                if self.stage_waiting[k]
            )
            m = s - 1
            size = int(p.stage_task_end[m] - p.stage_task_start[m])
            running_maps = size - self.stage_pending[m] - self.stage_done[m]
            if self.stage_pending[m] == 0 or running_maps > 0 or not self._at_am_call(j):
                continue
            task = self._head(m)
            if self._hanging(j, self.now):
                self._preempt_reducer(j, s, task)
                killed = True
                continue
            if self.s.hadoop_version != 1:
                if self._headroom_acts(j, s, task, self.now):
                    self._preempt_reducer(j, s, task)
                    killed = True
            elif self._am_room(j, int(p.job_queue[j]), p.task_req[task]):
                continue
            elif self._free_one_map(j, s, task):
                killed = True
            if not self.stage_waiting[s] and j in self.reducing:
                self.reducing.remove(j)
        return killed

    def _free_one_map(self, j: int, s: int, task: int) -> bool:
        """Hadoop 1 on one pool of memory (no AM): withhold job `j`'s reduce requests and
        kill its newest waiting reduces until its next map `task` fits (see the kernel's
        `_preempt_reduces`); whether it killed one."""
        req = self.p.task_req[task]
        leaf = int(self.p.job_queue[j])
        if not self.stage_held[s]:
            self._hold(j, s, True)
        killed = False
        while self.stage_waiting[s] and not self._am_room(j, leaf, req):
            self._end_attempt(self.stage_waiting[s][-1], AM_KILLED)
            killed = True
        return killed

    def _headroom_short(self, j: int, s: int, task: int) -> bool:
        """Whether blocked job `j`'s headroom has no room for its next map `task`, less
        its reduces asked for in Hadoop 3 (see the kernel's)."""
        req = self.p.task_req[task]
        if self.s.hadoop_version == 3 and not self.stage_held[s]:
            k = self.stage_ramp[s]
            req = req + self._window_req(s, 0, k if k >= 0 else ALL)
        return not self._am_room(j, int(self.p.job_queue[j]), req)

    def _at_am_call(self, j: int) -> bool:
        """Whether blocked job `j`'s AM may preempt its reduces now: only at its allocate
        calls; at another time a `HANG` at its next call, one per call (see the kernel's)."""
        if not self._cycles(j):
            return True
        call = self._am_call(j, self.now, True)
        if call == self.now:
            return True
        if self.job_rd_call[j] != call:
            self.job_rd_call[j] = call
            self._push(call, HANG, j)
        return False

    def _hang_due(self, j: int, ask: float, delay: float) -> float:
        """When map requests made at `ask` have waited `delay` (see the kernel's)."""
        t = ask + delay
        if self._cycles(j):
            t = self._am_call(j, t, delay == 0.0)
        return t

    def _timed(self) -> bool:
        """Whether either rule times the map requests (see the kernel's)."""
        return self.hang_delay >= 0.0 or self.headroom_delay > 0.0

    def _map_asked(self, j: int, s: int) -> None:
        """Map stage `s`'s requests are made now; a `HANG` event when they hang."""
        p = self.p
        if not self._timed() or s + 1 >= p.job_stage_ptr[j + 1] or not p.stage_slowstart[s + 1]:
            return
        self.job_map_ask[j] = self.now
        if self.hang_delay >= 0.0:
            self._push(self._hang_due(j, self.now, self.hang_delay), HANG, j)
        if self.headroom_delay > 0.0:
            self._push(self._hang_due(j, self.now, self.headroom_delay), HANG, j)

    def _hanging(self, j: int, now: float) -> bool:
        """Whether blocked job `j`'s AM preempts reduces unconditionally at `now`."""
        ask = float(self.job_map_ask[j])
        if self.hang_delay < 0.0 or now < self._hang_due(j, ask, self.hang_delay):
            return False
        return self._reducer_rested(j, now)

    def _headroom_acts(self, j: int, s: int, task: int, now: float) -> bool:
        """Whether blocked job `j`'s AM preempts reduces of stage `s` at `now` by the
        headroom rule: its next map `task` does not fit (`_headroom_short`), its map
        requests have waited the headroom delay, and it rested (see the kernel's)."""
        ask = float(self.job_map_ask[j])
        if self.headroom_delay > 0.0 and now < self._hang_due(j, ask, self.headroom_delay):
            return False
        return self._reducer_rested(j, now) and self._headroom_short(j, s, task)

    def _headroom_acts_at(self, j: int, now: float) -> bool:
        """`_headroom_acts` for blocked job `j`, its waiting reduce stage and next map; on
        Hadoop 1, whether its next map finds no room (see the kernel's)."""
        p = self.p
        lo, hi = int(p.job_stage_ptr[j]), int(p.job_stage_ptr[j + 1])
        s = next(k for k in range(lo, hi) if self.stage_waiting[k])
        task = self._head(s - 1)
        if self.s.hadoop_version == 1:
            if p.slot_mode:
                return False
            return not self._am_room(j, int(p.job_queue[j]), p.task_req[task])
        return self._headroom_acts(j, s, task, now)

    def _reducer_rested(self, j: int, now: float) -> bool:
        """Whether job `j`'s AM's last preemptReducer was at an earlier heartbeat (see the
        kernel's)."""
        nxt = float(self.job_hang_next[j])
        return now > nxt or (now == nxt and self.s.am_heartbeat_interval_s > 0.0)

    def _drop_idle_hangs(self) -> None:
        """Pop the `HANG` events at the heap's top that would not act (see the kernel's)."""
        while self.heap and self.heap[0][2] == HANG:
            time, _, _, j = self.heap[0]
            if self._blocked(j) and (self._hanging(j, time) or self._headroom_acts_at(j, time)):
                return
            heapq.heappop(self.heap)

    def _blocked(self, j: int) -> bool:
        """Job `j` has reduces waiting for maps, unassigned maps and no running map."""
        if j not in self.reducing:
            return False
        p = self.p
        lo, hi = int(p.job_stage_ptr[j]), int(p.job_stage_ptr[j + 1])
        s = next(k for k in range(lo, hi) if self.stage_waiting[k])
        size = int(p.stage_task_end[s - 1] - p.stage_task_start[s - 1])
        running_maps = size - self.stage_pending[s - 1] - self.stage_done[s - 1]
        return self.stage_pending[s - 1] > 0 and running_maps == 0

    def _preempt_reducer(self, j: int, s: int, task: int) -> None:
        """RMContainerAllocator.preemptReducer, by either rule (see the kernel's)."""
        p = self.p
        if not self.stage_held[s]:
            self._hold(j, s, True)
        red = p.task_req[self.att_task[self.stage_waiting[s][-1]]]
        if self.q.capacity is not None:  # DefaultResourceCalculator: memory only
            red = np.array([red[0], 0.0])
        mreq = p.task_req[task]
        limit = self._am_headroom(j) + self.job_usage[j]
        if self.job_am_state[j] >= 2:
            limit = limit - p.job_am[j]
        one = _ceil_containers(mreq, red)
        half = _ceil_containers(np.floor(limit * 0.5), red)
        n = min(max(one, half), _ceil_containers(mreq * self.stage_pending[s - 1], red))
        while n > 0 and self.stage_waiting[s]:
            self._end_attempt(self.stage_waiting[s][-1], AM_KILLED)
            n -= 1
        nxt = self.now + self.s.am_heartbeat_interval_s  # see the kernel's
        if self._cycles(j):
            nxt = self._am_call(j, self.now, False)
        self.job_hang_next[j] = nxt
        if nxt > self.now:
            self._push(nxt, HANG, j)

    def _headroom_top(self, leaf: int) -> int:
        """The queue above those whose maximum bounds the headroom (-1: the root's too): the
        leaf's parent in the Fair Scheduler, whose headroom takes the leaf's maximum alone
        (see the kernel's)."""
        if self.q.capacity is None and self.s.hadoop_version != 1:
            return int(self.q.parent[leaf])
        return -1

    def _am_headroom(self, j: int) -> np.ndarray:
        """The headroom job `j`'s AM is told, as modeled (see the kernel's `_am_headroom`)."""
        leaf = int(self.p.job_queue[j])
        h = self.free.copy()
        for q in self._ancestors(leaf, self._headroom_top(leaf)):
            h = np.minimum(h, self.q.max_share[q] - self.q_usage[q])
        if self.q.capacity is not None:
            h[0] = min(h[0], self._cs_user_room(j, leaf))
        elif self.s.hadoop_version != 1:
            h = self._fair_cap(leaf, h)
        room: np.ndarray = np.maximum(h, 0.0)
        return room

    def _fair_cap(self, leaf: int, h: np.ndarray) -> np.ndarray:
        """The leaf's policy cap on the Fair Scheduler's headroom (see the kernel's)."""
        cap = np.maximum(self.q_fair[leaf] - self.q_usage[leaf], 0.0)
        out = h.astype(float).copy()
        out[0] = min(out[0], cap[0])
        if int(self.q.policy[leaf]) == 2:
            out[1] = min(out[1], cap[1])
        return out

    def _am_room(self, j: int, leaf: int, req: np.ndarray) -> bool:
        """Room for `req` in the headroom app `j`'s AM is told: the cluster's and its queues'
        (`_fits` up to `_headroom_top`: the leaf's alone in the Fair Scheduler), and in the
        Capacity Scheduler mode its user's limit too, in the Fair Scheduler's (Hadoop 2/3)
        its leaf's fair share minus its usage (see the kernel's)."""
        if not self._fits(leaf, req, self._headroom_top(leaf)):
            return False
        if self.q.capacity is not None:
            return float(req[0]) <= self._cs_user_room(j, leaf)
        if self.s.hadoop_version == 1:  # no AM, no headroom (see the kernel's)
            return True
        return bool((self._fair_cap(leaf, req) == req).all())

    def _start_attempt(self, j: int, task: int, req: np.ndarray) -> None:
        p, t, lat = self.p, self.now, self.s.container_launch_latency_s
        leaf = int(p.job_queue[j])
        a = len(self.att_task)
        self.att_task.append(task)
        self.att_start.append(t)
        self.att_finish.append(INF)
        self.att_state.append(RUNNING)
        self.att_preempted.append(False)
        self.att_mark.append(-1.0)
        self.changed = True
        self.att_node.append(self.cur_node)
        self.att_end.append(INF)
        self.att_due.append(INF)
        self.running[a] = None
        self.free -= req
        if self.cur_node >= 0:
            self.node_free[self.cur_node] -= req
        if task < 0 or not p.stage_jobtracker[p.task_stage[task]]:  # JobTracker: no pool's
            self.job_usage[j] += req
            self._up(self.q_usage, leaf, req)
            self._add_pending(j, -req)
        if task < 0:
            self.att_outcome.append(SUCCEEDED)
            self.job_am_state[j] = 2
            self.job_am_attempt[j] = a
            self.q_am_usage[leaf] += req
            self._push(t + lat + self.s.am_start_latency_s, AM_READY, a)
            return
        s = int(p.task_stage[task])
        self.stage_pending[s] -= 1
        if self.stage_ramp[s] > 0:
            self.stage_ramp[s] -= 1
        if self.task_failures[task] < p.task_fail_count[task]:
            self.att_outcome.append(FAILED)
            self._push_end(a, self._run_start(j, t) + p.task_fail_frac[task] * p.task_dur[task])
        elif p.stage_slowstart[s]:
            self.att_outcome.append(SUCCEEDED)
            if np.isnan(self.stage_done_time[s - 1]):
                self.stage_waiting[s].append(a)
                if j not in self.reducing:
                    self.reducing.append(j)
            else:
                self._push_end(a, self._replay_finish(a, task, self.stage_done_time[s - 1]))
        else:
            self.att_outcome.append(SUCCEEDED)
            self._push_end(a, self._run_start(j, t) + p.task_dur[task])

    def _replay_finish(self, a: int, task: int, last_map: float) -> float:
        p = self.p
        part_a, part_b, part_c = p.replay[p.replay_row(task)]
        begin = self._run_start(int(p.task_job[task]), self.att_start[a]) + part_a
        result: float = max(begin, last_map + part_b) + part_c
        return result

    def _end_attempt(self, a: int, state: int) -> None:
        p, t = self.p, self.now
        task = self.att_task[a]
        j = -1 - task if task < 0 else int(p.task_job[task])
        leaf = int(p.job_queue[j])
        req = p.job_am[j] if task < 0 else p.task_req[task]
        jt = task >= 0 and bool(p.stage_jobtracker[p.task_stage[task]])
        if jt:  # a JobTracker task holds one slot of the pool it was given
            d = self.stage_slot[int(p.task_stage[task])]
            req = np.array([1.0 - d, float(d)])
        self.att_state[a] = state
        self.att_finish[a] = t
        self.att_preempted[a] = state == KILLED
        if state == AM_KILLED:
            self.att_state[a] = KILLED
        del self.running[a]
        if self.att_mark[a] >= 0:
            self.att_mark[a] = -1.0
            self.job_tbp[j] -= req
        self.free += req
        self.changed = True
        n = self.att_node[a]
        if n >= 0:
            self.node_free[n] += req
            self.touched[n] = None
        if not jt:
            self.job_usage[j] -= req
            self._up(self.q_usage, leaf, -req)
        if task < 0:
            self.q_am_usage[leaf] -= req
            return
        s = int(p.task_stage[task])
        if state != SUCCEEDED:
            if state == FAILED:
                self.task_failures[task] += 1
                self.task_failed_on[task] = self.att_node[a]
            if a in self.stage_waiting[s]:
                self.stage_waiting[s].remove(a)
                if not self.stage_waiting[s] and j in self.reducing:
                    self.reducing.remove(j)
            due = self._reask_call(j, state)
            if due > t:
                self.limbo[task] = self.seq
                self._push(due, REASK, task)
            else:
                self._reask(task, req)
            return
        self.stage_done[s] += 1
        if jt:
            self._jt_refresh(j)  # its next task, if it has more than one, may go now
        size = int(p.stage_task_end[s] - p.stage_task_start[s])
        last = s + 1 == p.job_stage_ptr[j + 1]
        if self.stage_done[s] == size:
            self.stage_done_time[s] = t
            self.job_stages_done[j] += 1
            if not last:
                if not self.stage_released[s + 1]:
                    self._release_stage(j, s + 1)
                if p.stage_slowstart[s + 1]:
                    for w in self.stage_waiting[s + 1]:
                        self._push_end(w, self._replay_finish(w, self.att_task[w], t))
                    self.stage_waiting[s + 1] = []
                    if j in self.reducing:
                        self.reducing.remove(j)
            if self.job_stages_done[j] == p.job_stage_ptr[j + 1] - p.job_stage_ptr[j]:
                self._finish_job(j)
        elif not last:
            self._maybe_slowstart(j, s)

    def _reask(self, task: int, req: np.ndarray) -> None:
        """Task `task`, its attempt killed or failed, is unassigned again, asking for
        `req` (see the kernel's)."""
        p = self.p
        s = int(p.task_stage[task])
        j = int(p.task_job[task])
        jt = bool(p.stage_jobtracker[s])
        if not self.stage_located[s] or self._give_back(s, task):
            self._requeue(s, task)
        self.stage_pending[s] += 1
        if self.stage_pending[s] == 1 and self.stage_released[s]:
            self._map_asked(j, s)
        if jt:
            self._jt_refresh(j)
        elif not self.stage_held[s] and self.stage_ramp[s] < 0:  # ramped: not asked
            self._add_pending(j, req)
        if self.tc_on and not jt and self.job_state[j] == 2:
            self.job_tc[j][int(p.stage_dim[s])] += 1  # its task-cleanup attempt
            self._jt_refresh(j)

    def _finish_job(self, j: int) -> None:
        p = self.p
        self.job_finish[j] = self.now
        if self.job_am_state[j] >= 2:
            self._end_attempt(self.job_am_attempt[j], SUCCEEDED)
        leaf = int(p.job_queue[j])
        self._up(self.q_pend_all, leaf, -self.job_pend[j])
        if self.job_state[j] == 2:
            self._up(self.q_pend_run, leaf, -self.job_pend[j])
            self.user_running[int(p.job_user[j])] -= 1
            self._count_runnable(leaf, -1)
            self.leaf_apps[leaf].remove(j)
        self.job_state[j] = 3
        if j in self.ramping:
            self.ramping.remove(j)
        self.job_tc[j] = [0, 0]  # task-cleanup attempts are handed out only while it runs
        self._jt_refresh(j)
        for k in list(self.waiting):
            if self._can_run(k):
                self._make_runnable(k)
                self.waiting.remove(k)


def _ceil_containers(amount: np.ndarray, req: np.ndarray) -> float:
    """ResourceCalculatorUtils.divideAndCeilContainers over memory and vcores."""
    n = math.ceil(amount[0] / req[0]) if req[0] > 0 else 0
    if req[1] > 0:
        n = max(n, math.ceil(amount[1] / req[1]))
    return float(n)


class RampUp(EngineState):
    """The MapReduce AM's reduce ramp-up (twin of the kernel's `_ramp_job`)."""

    def _ramps(self, s: int) -> bool:
        """Whether the AM ramps up the reduces of stage `s` as it releases it (see the
        kernel's)."""
        p = self.p
        return (
            self.s.hadoop_version != 1
            and bool(p.stage_slowstart[s])
            and not p.stage_jobtracker[s]
            and self.stage_pending[s - 1] > 0
        )

    def _ramp_stage(self, j: int) -> int:
        """Job `j`'s released reduce stage the AM ramps up (-1: none)."""
        for s in range(int(self.p.job_stage_ptr[j]), int(self.p.job_stage_ptr[j + 1])):
            if self.stage_ramp[s] >= 0 and self.stage_released[s]:
                return s
        return -1

    def _ramp_refresh(self, j: int) -> None:
        """Keep job `j` in the ramping-jobs list exactly while it ramps a stage."""
        listed = self._ramp_stage(j) >= 0
        if listed and j not in self.ramping:
            self.ramping.append(j)
        elif not listed and j in self.ramping:
            self.ramping.remove(j)

    def _window_req(self, s: int, k0: int, k1: int) -> np.ndarray:
        """The summed requests of stage `s`'s unassigned tasks at places [k0, k1) in the
        order they are taken: the re-queued ones that go first, fresh (of a located stage,
        not taken out of order), then the other re-queued ones."""
        p = self.p
        fresh = range(int(self.stage_next[s]), int(p.stage_task_end[s]))
        loc = self.stage_located[s]
        front, back = (
            self.stage_retry[s][: self.stage_front[s]],
            self.stage_retry[s][self.stage_front[s] :],
        )
        tasks = front + [t for t in fresh if not (loc and self.task_taken[t])] + back
        total = np.zeros(2)
        for task in tasks[k0:k1]:
            total = total + p.task_req[task]
        return total

    def _set_asked(self, j: int, s: int, k: int) -> None:
        """The AM asks for the first `k` (-1: all) unassigned reduces of stage `s`."""
        n = self.stage_pending[s]
        old = self.stage_ramp[s]
        a = n if old < 0 else old
        b = n if k < 0 else k
        if b > a:
            self._add_pending(j, self._window_req(s, a, b))
        elif b < a:
            self._add_pending(j, -self._window_req(s, b, a))
        self.stage_ramp[s] = k
        if k < 0:
            self._ramp_refresh(j)

    def _maps_assigned(self, j: int, s: int) -> None:
        """A map of stage `s` was assigned: if the last, the AM asks for all the reduces."""
        if self.stage_pending[s] != 0 or s + 1 >= self.p.job_stage_ptr[j + 1]:
            return
        if self.stage_held[s + 1]:
            self._hold(j, s + 1, False)
        elif self.stage_ramp[s + 1] >= 0 and self.stage_released[s + 1]:
            self._set_asked(j, s + 1, -1)

    def _ramp_count(self, j: int, s: int) -> int:
        """How many reduces of stage `s` the AM ramps up (> 0) or down (< 0) (see the
        kernel's)."""
        p = self.p
        m = s - 1
        maps = int(p.stage_task_end[m] - p.stage_task_start[m])
        sched_m = self.stage_pending[m]
        net_m = maps - self.stage_done[m]
        run_r = int(p.stage_task_end[s] - p.stage_task_start[s])
        run_r -= self.stage_pending[s] + self.stage_done[s]
        net_r = self.stage_ramp[s] + run_r
        mreq = p.task_req[int(p.stage_task_start[m])].copy()
        rreq = p.task_req[int(p.stage_task_start[s])].copy()
        head = self._am_headroom(j)
        if self.q.capacity is not None:  # the DefaultResourceCalculator: memory only
            mreq[1] = rreq[1] = head[1] = 0.0
        total = head + mreq * (net_m - sched_m) + rreq * run_r
        f = min(
            np.float32(self.stage_done[m]) / np.float32(maps),
            np.float32(self.s.reduce_rampup_limit),
        )
        ideal = np.floor(total * np.float64(f))
        if _avail_containers(total - ideal, mreq) >= net_m:
            ideal = total - mreq * net_m
        return _avail_containers(ideal - rreq * net_r, rreq)

    def _ramp_job(self, j: int) -> bool:
        """The AM's scheduleReduces for job `j` (see the kernel's); True if it asked for
        more."""
        s = self._ramp_stage(j)
        if s < 0 or self.stage_held[s]:
            return False
        if self._cycles(j):
            self.job_ramp_next[j] = self._am_call(j, self.now, False)
        if self.stage_pending[s - 1] == 0:
            self._set_asked(j, s, -1)
            return True
        asked = self.stage_ramp[s]
        if self.stage_pending[s] == asked:  # no pending reduce: it does not recalculate
            return False
        n = self._ramp_count(j, s)
        if n > 0:
            self._set_asked(j, s, asked + min(n, self.stage_pending[s] - asked))
            return True
        if n < 0:
            self._set_asked(j, s, asked - min(-n, asked))
        return False

    def _ramp_reduces(self) -> bool:
        """The ramp-up at every event time, for each ramping job whose AM's call is due
        (see the kernel's), in the order it began; True if one asked for more. With
        heartbeats only a call at this time is due: one before it changed nothing
        (`_ramp_due`)."""
        more = False
        for j in list(self.ramping):
            if self.hb and self._cycles(j) and self.job_ramp_next[j] < self.now:
                self.job_ramp_next[j] = self._am_call(j, self.now, True)
            if self.now >= self.job_ramp_next[j] and self._ramp_job(j):
                more = True
        return more

    def _ramp_changes(self, j: int) -> bool:
        """Whether job `j`'s ramp-up (`_ramp_job`) would change the reduces its AM asks
        for, were it called now (see the kernel's)."""
        s = self._ramp_stage(j)
        if s < 0 or self.stage_held[s]:
            return False
        if self.stage_pending[s - 1] == 0:
            return True
        asked = self.stage_ramp[s]
        if self.stage_pending[s] == asked:
            return False
        n = self._ramp_count(j, s)
        return n > 0 or (n < 0 and asked > 0)

    def _ramp_due(self) -> float:
        """The first AM call after now at which a ramping job's ramp-up would change what
        it asks for (inf: none; see the kernel's)."""
        due = INF
        for j in self.ramping:
            if self._cycles(j) and self._ramp_changes(j):
                due = min(due, self._am_call(j, self.now, False))
        return due


def _avail_containers(amount: np.ndarray, req: np.ndarray) -> int:
    """ResourceCalculatorUtils.computeAvailableContainers over memory and vcores (a type
    asked for as 0 is skipped): the fewest of amount / req, each truncated."""
    n = math.trunc(amount[0] / req[0]) if req[0] > 0 else ALL
    if req[1] > 0:
        n = min(n, math.trunc(amount[1] / req[1]))
    return int(n)
