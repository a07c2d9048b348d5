"""The reference engine: a plain-Python time-warp event loop with the full semantics.

Readable twin of ``kernel.py``: both read the same `Packed` arrays and must give the
same schedule (tests compare them on random workloads). Every rule and tie-break is
described once, in the ``kernel`` module docstring; the code here follows it step by
step with Python objects instead of flat arrays.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from whatif.allocation.fairshare import compute_shares
from whatif.predictor.nodes import next_heartbeat
from whatif.predictor.pack import Packed, PackedQueues
from whatif.predictor.settings import SchedulerSettings

INF = math.inf
LOG2 = math.log(2.0)
# Event kinds, in the order their tie-breaks do not depend on (heap is (time, seq)).
END, KILL, AM_READY, HEARTBEAT = 0, 1, 2, 3
# Attempt states (index into pack.ATTEMPT_STATE_NAMES).
RUNNING, SUCCEEDED, FAILED, KILLED, AM_KILLED = 0, 1, 2, 3, 4
# Hadoop 3 checks with no progress before the livelock search starts (kernel.QUIET_CHECKS)
QUIET_CHECKS = 16


def div(x: float, w: float) -> float:
    """Java double division: x / 0 is inf for x > 0 and NaN for 0 / 0."""
    if w != 0.0:
        return x / w
    if x > 0.0:
        return INF
    if x < 0.0:
        return -INF
    return math.nan


def java_int(x: float) -> int:
    """(int) cast of a double: NaN is 0, out-of-range values saturate."""
    if x != x:
        return 0
    return int(max(min(x, 2147483647.0), -2147483648.0))


def signum(x: float) -> int:
    """(int) Math.signum(x): NaN is 0."""
    return 1 if x > 0.0 else (-1 if x < 0.0 else 0)


def res_compare(policy: int, a, b, cluster) -> int:
    """The policy's ResourceCalculator.compare: memory for fair/fifo, dominant share for drf."""
    if policy != 2:
        return signum(a[0] - b[0])
    if a[0] == b[0] and a[1] == b[1]:
        return 0
    la, sa = div(a[0], cluster[0]), div(a[1], cluster[1])
    lb, sb = div(b[0], cluster[0]), div(b[1], cluster[1])
    r = signum(max(la, sa) - max(lb, sb))
    if r != 0:
        return r
    return signum(min(la, sa) - min(lb, sb))


class ReferenceEngine:
    """A simulation in progress; `advance_to` moves it forward, `records` reads it out."""

    def __init__(self, packed: Packed, settings: SchedulerSettings) -> None:
        self.p = packed
        self.s = settings
        self.now = 0.0
        self.cluster = packed.cluster.astype(float).copy()
        self.free = self.cluster.copy()
        self.v3 = settings.hadoop_version == 3
        self.dims = [0, 1] if packed.slot_mode else [0]
        nj, nt, ns = len(packed.job_submit), len(packed.task_dur), len(packed.stage_task_start)
        self.heap: list[tuple[float, int, int, int]] = []
        self.progress = 0  # end and AM-ready events handled so far
        self.seq = 0
        self.next_submit = 0
        self.next_check = INF
        # jobs
        self.job_state = [0] * nj  # 0 unsubmitted, 1 waiting (not runnable), 2 runnable, 3 done
        self.job_usage = np.zeros((nj, 2))
        self.job_pend = np.zeros((nj, 2))
        self.job_am_state = [0] * nj  # 0 no AM, 1 requested, 2 starting, 3 running
        self.job_am_attempt = [-1] * nj
        self.job_stages_done = [0] * nj
        self.job_finish = np.full(nj, np.nan)
        self.job_fair = np.zeros((nj, 2))
        self.job_last_fair = np.full(nj, -INF)  # -inf: not starved at the last check
        self.job_next_check = np.zeros(nj)
        self.job_fair_starv = np.zeros((nj, 2))
        self.job_min_starv = np.zeros((nj, 2))
        self.job_tbp = np.zeros((nj, 2))  # to be preempted (Hadoop 3) / warned (Hadoop 2)
        self.user_running = [0] * len(packed.user_max_apps)
        self.waiting: list[int] = []  # submitted, not runnable, in submit order
        # stages
        self.stage_released = [False] * ns
        self.stage_next = packed.stage_task_start.copy()
        self.stage_pending = [0] * ns
        self.stage_done = [0] * ns
        self.stage_done_time = np.full(ns, np.nan)
        self.stage_retry: list[list[int]] = [[] for _ in range(ns)]
        self.stage_waiting: list[list[int]] = [[] for _ in range(ns)]
        self.stage_held = [False] * ns
        self.reducing: list[int] = []  # jobs with reduces waiting for maps, in order found
        # tasks
        self.task_failures = [0] * nt
        # attempts
        self.att_task: list[int] = []
        self.att_start: list[float] = []
        self.att_finish: list[float] = []
        self.att_state: list[int] = []
        self.att_preempted: list[bool] = []
        self.att_outcome: list[int] = []
        self.att_mark: list[float] = []  # Hadoop 3: -1 or kill time; Hadoop 2: -1 or warn time
        self.running: dict[int, None] = {}  # running attempts in allocation order
        self.warned: list[int] = []  # Hadoop 2 warned containers, in warn order
        # nodes (heartbeats; none: the instant model)
        self.nn = len(packed.node_capacity)
        self.hb = self.nn > 0
        self.node_cap = packed.node_capacity.astype(float).copy()
        self.node_free = self.node_cap.copy()
        self.node_hb = [INF] * self.nn  # time of the node's scheduled heartbeat event
        self.last_time = -INF  # time of the previous iteration
        # parked nodes (room, no heartbeat scheduled), a list with swap removal, and where
        # each is in it (-1: not parked); every node starts parked
        self.parked = list(range(self.nn))
        self.park_pos = list(range(self.nn))
        self.cur_node = -1  # the node heartbeating in an allocation (-1: the cluster)
        self.iteration = 0
        self.changed = False  # something an allocation depends on changed since `_wake`
        self.touched: dict[int, None] = {}  # nodes heartbeating or freed, this iteration
        self.att_node: list[int] = []
        self.att_end: list[float] = []  # a task attempt's own end (reported at a heartbeat)
        self.att_due: list[float] = []  # when its end event comes (INF: none pushed)
        self.set_queues(packed.queues)

    # ------------------------------------------------------------------ queues
    def set_queues(self, pq: PackedQueues) -> None:
        """Install a queue tree (at start, or on reconfiguration) and rebuild its aggregates."""
        self.q = pq
        nq = len(pq.parent)
        self.q_usage = np.zeros((nq, 2))
        self.q_pend_all = np.zeros((nq, 2))
        self.q_pend_run = np.zeros((nq, 2))
        self.q_runnable = [0] * nq
        self.q_am_usage = np.zeros((nq, 2))
        self.q_fair = np.zeros((nq, 2))
        self.q_last_min = np.full((nq, 2), -INF)  # -inf: not starved at the last check
        self.q_last_fair = np.full((nq, 2), -INF)
        self.next_check_v12 = INF
        # Hadoop 1/2 livelock detection (Brent's cycle finding over the states at checks)
        self.seen_progress = -1
        self.seen_state: tuple | None = None
        self.seen_power = self.seen_steps = self.quiet = 0
        self.livelocked = False
        self.leaf_apps: list[list[int]] = [[] for _ in range(nq)]
        self.leaf_dirty = [True] * nq
        self.shares_dirty = True
        self.job_last_fair[:] = -INF
        for j, state in enumerate(self.job_state):
            if state in (1, 2):
                leaf = int(self.p.job_queue[j])
                self._up(self.q_usage, leaf, self.job_usage[j])
                self._up(self.q_pend_all, leaf, self.job_pend[j])
                if state == 2:
                    self._up(self.q_pend_run, leaf, self.job_pend[j])
                    self._count_runnable(leaf, 1)
                    self.leaf_apps[leaf].append(j)
                if self.job_am_state[j] >= 2:
                    self.q_am_usage[leaf] += self.p.job_am[j]

    def _ancestors(self, q: int):
        while q >= 0:
            yield q
            q = int(self.q.parent[q])

    def _up(self, table: np.ndarray, leaf: int, amount) -> None:
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
        return self.q.children[self.q.child_ptr[q] : self.q.child_ptr[q + 1]].tolist()

    def _demand(self, q: int) -> np.ndarray:
        """Queue demand: usage + pending of all its apps, capped at maxShare at every level."""
        if self.q.is_leaf[q]:
            raw = self.q_usage[q] + self.q_pend_all[q]
        else:
            raw = sum((self._demand(c) for c in self._children(q)), np.zeros(2))
        return np.minimum(raw, self.q.max_share[q])

    # ------------------------------------------------------------------ events
    def _push(self, time: float, kind: int, ident: int) -> None:
        heapq.heappush(self.heap, (time, self.seq, kind, ident))
        self.seq += 1

    def advance_to(self, t_stop: float) -> None:
        """Process every event at or before `t_stop` (``inf``: run to the end)."""
        p = self.p
        while True:
            t_heap = self.heap[0][0] if self.heap else INF
            t_sub = p.job_submit[self.next_submit] if self.next_submit < len(p.job_submit) else INF
            t = min(t_heap, t_sub, self.next_check)
            if t == INF or t > t_stop or self.livelocked:
                break
            self.now = t
            first = t != self.last_time  # the first iteration at t: every heartbeat at t is in it
            self.last_time = t
            self.iteration += 1
            beating: dict[int, None] = {}  # nodes heartbeating now, in order
            check = self.next_check == t
            if check:
                self.next_check = INF
            events = False
            while self.heap and self.heap[0][0] == t:
                events = True
                _, _, kind, ident = heapq.heappop(self.heap)
                if kind == END:
                    if self.att_state[ident] == RUNNING:
                        self._end_attempt(ident, self.att_outcome[ident])
                        self.progress += 1
                        n = self.att_node[ident]
                        if n >= 0:
                            # reported at its node's heartbeat; it ended at its own time
                            self.att_finish[ident] = self.att_end[ident]
                            self._beat(n, beating)
                elif kind == KILL:
                    if self.att_state[ident] == RUNNING and self.att_mark[ident] == t:
                        self._end_attempt(ident, KILLED)
                elif kind == HEARTBEAT:
                    self.node_hb[ident] = INF
                    self._beat(ident, beating)
                else:
                    self._am_ready(ident)
                    self.progress += 1
            while self.next_submit < len(p.job_submit) and p.job_submit[self.next_submit] == t:
                events = True
                self._submit(self.next_submit)
                self.next_submit += 1
            if self.shares_dirty:
                self._compute_shares()
            if self.hb:
                if first:
                    self._catch_up(t, beating)
                for n in beating:
                    self._node_allocate(n)
                self._ramp_down_once()
            else:
                self._allocate()
                while self.reducing and self._preempt_reduces():
                    self._allocate()
            if self.s.preemption:
                if self.s.hadoop_version == 3:
                    if events:
                        # the next update() sees this state; one before it would see no change
                        g = _grid_at_or_after(t, self.s.update_interval_s)
                        if g == t:
                            check = True
                        else:
                            self.next_check = min(self.next_check, g)
                    if check:
                        if self._cycling_v3(t):
                            self.livelocked = True  # the loop ends before the next time
                        else:
                            self._preempt_v3()
                else:
                    self._preempt_v12()
                    if self.hb:
                        self._ramp_down_once()
                    else:
                        self._allocate()
                        while self.reducing and self._preempt_reduces():
                            self._allocate()
            if self.hb:
                self._wake(t)
        if t_stop != INF and t_stop > self.now:
            self.now = t_stop

    # ------------------------------------------------------------------ heartbeats
    def _beat(self, n: int, beating: dict[int, None]) -> None:
        """Node `n` heartbeats now: it is offered containers after this time's events."""
        beating[n] = None
        self.touched[n] = None

    def _ramp_down_once(self) -> None:
        """With heartbeats the MapReduce AM's reduce ramp-down runs once per event time:
        what it frees is assigned at the nodes' next heartbeats."""
        if self.reducing:
            self._preempt_reduces()

    def _node_room(self, n: int) -> bool:
        """Whether node `n` could take the smallest request (a slot of either pool)."""
        free = self.node_free[n]
        if self.p.slot_mode:
            return bool(free[0] >= 1.0 or free[1] >= 1.0)
        return bool(free[0] >= self.p.min_request[0] and free[1] >= self.p.min_request[1])

    def _node_wants(self, n: int) -> bool:
        """Whether node `n` has room for some runnable pending demand."""
        free = self.node_free[n]
        if self.p.slot_mode:
            return any(free[d] >= 1.0 and self.q_pend_run[0, d] > 0 for d in (0, 1))
        return self._node_room(n) and bool(self.q_pend_run[0, 0] > 0)

    def _park(self, n: int, parked: bool) -> None:
        pos = self.park_pos[n]
        if parked and pos < 0:
            self.park_pos[n] = len(self.parked)
            self.parked.append(n)
        elif not parked and pos >= 0:
            last = self.parked.pop()
            if last != n:
                self.parked[pos] = last
                self.park_pos[last] = pos
            self.park_pos[n] = -1

    def _settle(self, n: int, t: float, wake: bool) -> None:
        """Node `n` without a heartbeat scheduled: schedule its next one if it may assign
        (`wake`: something changed since it last found nothing) and has room for pending
        demand; else park it while it has room (a node without room waits for a release)."""
        if self.node_hb[n] != INF:
            return
        if wake and self._node_wants(n):
            self.node_hb[n] = next_heartbeat(n, self.nn, self.p.heartbeat_interval_s, t)
            self._push(self.node_hb[n], HEARTBEAT, n)
            self._park(n, False)
        else:
            self._park(n, self._node_room(n))

    def _catch_up(self, t: float, beating: dict[int, None]) -> None:
        """Before the first allocation at `t`: a node without a heartbeat scheduled whose
        heartbeat grid has `t` heartbeats now if it has room for pending demand and was
        freed now or anything changed (what it would have seen had its heartbeat at `t`
        been scheduled, as the events at `t` come before the heartbeats' assignments)."""
        interval = self.p.heartbeat_interval_s

        def beats_now(n: int) -> bool:
            if (
                n not in beating
                and self.node_hb[n] == INF
                and self._node_wants(n)
                and next_heartbeat(n, self.nn, interval, t, at=True) == t
            ):
                self._beat(n, beating)
                self._park(n, False)
                return True
            return False

        for n in list(self.touched):
            beats_now(n)
        if self.changed:
            i = 0
            while i < len(self.parked):
                if not beats_now(self.parked[i]):
                    i += 1

    def _wake(self, t: float) -> None:
        """After an event time: the nodes that heartbeated or had resources freed, and, if
        anything an allocation depends on changed, every parked node, get their next
        heartbeat scheduled when they may assign something. A node's heartbeats in
        between would find what its last one found, nothing, so they are skipped."""
        for n in self.touched:
            self._settle(n, t, self.changed)
        demand = self.q_pend_run[0, 0] > 0 or (self.p.slot_mode and self.q_pend_run[0, 1] > 0)
        if self.changed and demand:
            i = 0
            while i < len(self.parked):
                before = len(self.parked)
                self._settle(self.parked[i], t, True)
                if len(self.parked) == before:
                    i += 1
        self.changed = False
        self.touched = {}

    def _load_ok(self, n: int, d: int) -> bool:
        """Hadoop 1 CapBasedLoadManager: a tracker runs at most
        ceil(slots * min(1, runnable tasks / cluster slots)) tasks of a type."""
        total = self.cluster[d]
        if total <= 0:
            return False
        runnable = self.q_usage[0, d] + self.q_pend_run[0, d]
        cap = math.ceil(self.node_cap[n, d] * min(1.0, runnable / total))
        return self.node_cap[n, d] - self.node_free[n, d] < cap

    def _node_allocate(self, n: int) -> None:
        """Assign containers on node `n`'s heartbeat: Hadoop 1 FairScheduler.assignTasks
        on a slot cluster, else FairScheduler.attemptScheduling."""
        s = self.s
        self.cur_node = n
        count = 0
        if self.p.slot_mode:
            multi = s.assign_multiple
            caps = (s.assign_multiple_maps, s.assign_multiple_reduces) if multi else (1, 1)
            assigned, rejected = [0, 0], [False, False]
            while True:
                for d in (0, 1):
                    if not rejected[d] and (
                        assigned[d] == caps[d]
                        or self.q_pend_run[0, d] <= 0
                        or not self._load_ok(n, d)
                    ):
                        rejected[d] = True
                if (rejected[0] and rejected[1]) or (not multi and count > 0):
                    break
                if rejected[0] or rejected[1]:
                    d = 1 if rejected[0] else 0
                else:
                    used = self.node_cap[n] - self.node_free[n]
                    d = 0 if used[0] <= used[1] else 1
                if self._assign_one(d):
                    assigned[d] += 1
                    count += 1
                else:
                    rejected[d] = True
        else:
            start = self.node_free[n].copy()
            half = np.floor(start * 0.5)
            dynamic = s.dynamic_max_assign and self.v3
            while self._has_room(0) and self.q_pend_run[0, 0] > 0:
                if not self._assign_one(0):
                    break
                count += 1
                if not s.assign_multiple:
                    break
                if dynamic:
                    used = start - self.node_free[n]
                    if not (used[0] <= half[0] and used[1] <= half[1]):
                        break
                elif s.max_assign > 0 and count >= s.max_assign:
                    break
        self.cur_node = -1

    def _avail(self) -> np.ndarray:
        """Free resources of the node heartbeating, or of the cluster."""
        return self.node_free[self.cur_node] if self.cur_node >= 0 else self.free

    def _push_end(self, a: int, time: float) -> None:
        """The end event of attempt `a`, which ends at `time`: with heartbeats its node
        reports it (and frees its resources) at its next heartbeat."""
        n = self.att_node[a]
        if n >= 0:
            self.att_end[a] = time
            time = next_heartbeat(n, self.nn, self.p.heartbeat_interval_s, time)
            self.att_due[a] = time
        self._push(time, END, a)

    def _submit(self, j: int) -> None:
        p = self.p
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

    def _add_pending(self, j: int, amount) -> None:
        leaf = int(self.p.job_queue[j])
        self.job_pend[j] += amount
        self._up(self.q_pend_all, leaf, amount)
        if self.job_state[j] == 2:
            self._up(self.q_pend_run, leaf, amount)
        self.changed = True

    def _release_stage(self, j: int, s: int) -> None:
        p = self.p
        self.stage_released[s] = True
        lo, hi = int(p.stage_task_start[s]), int(p.stage_task_end[s])
        self.stage_pending[s] = hi - lo
        self._add_pending(j, p.task_req[lo:hi].sum(axis=0))
        self._maybe_slowstart(j, s)

    def _maybe_slowstart(self, j: int, s: int) -> None:
        """Release the reduce stage after map stage `s` once enough maps completed."""
        p = self.p
        nxt = s + 1
        if nxt < p.job_stage_ptr[j + 1] and p.stage_slowstart[nxt] and not self.stage_released[nxt]:
            size = p.stage_task_end[s] - p.stage_task_start[s]
            if self.stage_done[s] / size >= self.s.slowstart_completed_maps:
                self._release_stage(j, nxt)

    def _am_ready(self, j: int) -> None:
        if self.job_am_state[j] == 2:
            self.job_am_state[j] = 3
            if self.p.job_stage_ptr[j] == self.p.job_stage_ptr[j + 1]:
                self._finish_job(j)
            else:
                self._release_stage(j, int(self.p.job_stage_ptr[j]))

    def _hold(self, j: int, s: int, hold: bool) -> None:
        """Withdraw (or re-issue) the requests of a reduce stage's unassigned tasks."""
        p = self.p
        self.stage_held[s] = hold
        tasks = list(range(int(self.stage_next[s]), int(p.stage_task_end[s]))) + self.stage_retry[s]
        total = np.zeros(2)
        for task in tasks:
            total = total + p.task_req[task]
        self._add_pending(j, -total if hold else total)

    def _preempt_reduces(self) -> bool:
        """MapReduce AM (RMContainerAllocator.preemptReducesIfNeeded): free room for maps.

        A job with unassigned maps, no running map and reduces waiting for maps kills
        its newest waiting reduces until its next map fits, and withholds its reduce
        requests until every map is assigned. Returns whether anything was killed.
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
            if self.stage_pending[m] == 0 or running_maps > 0:
                continue
            task = (
                int(self.stage_next[m])
                if self.stage_next[m] < p.stage_task_end[m]
                else self.stage_retry[m][0]
            )
            leaf = int(p.job_queue[j])
            if self._fits(leaf, p.task_req[task]):
                continue
            if not self.stage_held[s]:
                self._hold(j, s, True)
            while self.stage_waiting[s] and not self._fits(leaf, p.task_req[task]):
                self._end_attempt(self.stage_waiting[s][-1], AM_KILLED)
                killed = True
            if not self.stage_waiting[s] and j in self.reducing:
                self.reducing.remove(j)
        return killed

    # ------------------------------------------------------------------ shares
    def _compute_shares(self) -> None:
        """Instantaneous fair shares top-down; only queues with runnable apps are active."""
        self.shares_dirty = False
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
        for q in changed:
            self.leaf_dirty[q] = True

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

    # ------------------------------------------------------------------ ordering
    def _compare(self, policy: int, dim: int, a: tuple, b: tuple) -> int:
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

    def _compare_fair(self, d, ua, da, ma, wa, ub, db, mb, wb) -> int:
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

    def _compare_drf(self, ua, ma, wa, ub, mb, wb) -> int:
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

    def _queue_key(self, q: int, usage_less=None) -> tuple:
        usage = self.q_usage[q] if usage_less is None else self.q_usage[q] - usage_less[q]
        min_share = self.q.min_share[q]
        needs_demand = self.v3 or min_share[0] > 0 or min_share[1] > 0
        demand = self._demand(q) if needs_demand else np.zeros(2)
        return (usage, demand, min_share, float(self.q.weight[q]), 0.0, int(self.q.name_rank[q]))

    def _app_key(self, j: int, usage_less: bool = False) -> tuple:
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

    # ------------------------------------------------------------------ allocation
    def _allocate(self) -> None:
        """Assign containers until nothing more fits (one pass per slot pool on Hadoop 1)."""
        for d in self.dims:
            while self._has_room(d) and self.q_pend_run[0, d] > 0:
                if not self._assign_one(d):
                    break

    def _has_room(self, d: int) -> bool:
        free = self._avail()
        if self.p.slot_mode:
            return free[d] >= 1.0
        return free[0] >= self.p.min_request[0] and free[1] >= self.p.min_request[1]

    def _best(self, candidates: list, key, policy: int, dim: int):
        """First-best by linear scan: a candidate replaces the best only if it compares lower."""
        best, best_key = None, None
        for c in candidates:
            k = key(c)
            if best is None or self._compare(policy, dim, k, best_key) < 0:
                best, best_key = c, k
        return best

    def _assign_one(self, d: int) -> bool:
        return self._assign_in(0, d)

    def _assign_in(self, q: int, d: int) -> bool:
        tried: set[int] = set()
        while True:
            cands = [
                c
                for c in self._children(q)
                if c not in tried
                and self.q_pend_run[c, d] > 0
                and (self.q_usage[c] <= self.q.max_share[c]).all()
            ]
            best = self._best(cands, self._queue_key, int(self.q.policy[q]), d)
            if best is None:
                return False
            if self.q.is_leaf[best]:
                if self._assign_leaf(best, d):
                    return True
            elif self._assign_in(best, d):
                return True
            tried.add(best)

    def _assign_leaf(self, leaf: int, d: int) -> bool:
        tried: set[int] = set()
        policy = int(self.q.policy[leaf])
        while True:
            cands = [j for j in self.leaf_apps[leaf] if j not in tried and self.job_pend[j, d] > 0]
            j = self._best(cands, self._app_key, policy, d)
            if j is None:
                return False
            if self._try_app(j, leaf, d):
                return True
            tried.add(j)

    def _next_stage(self, j: int, d: int) -> int:
        """The app's highest-priority released stage with unassigned tasks in pool `d`."""
        p = self.p
        best = -1
        for s in range(int(p.job_stage_ptr[j]), int(p.job_stage_ptr[j + 1])):
            if (
                self.stage_released[s]
                and not self.stage_held[s]
                and self.stage_pending[s] > 0
                and p.stage_dim[s] == d
            ):
                if best < 0 or p.stage_priority[s] < p.stage_priority[best]:
                    best = s
        return best

    def _fits(self, leaf: int, req) -> bool:
        free = self._avail()
        if free[0] < req[0] or free[1] < req[1]:
            return False
        for q in self._ancestors(leaf):
            if (self.q_usage[q] + req > self.q.max_share[q]).any():
                return False
        return True

    def _am_fits(self, leaf: int, am) -> bool:
        share = float(self.q.max_am_share[leaf])
        if abs(share + 1.0) < 1e-4:
            return True
        cap = self.q_fair[leaf].copy()
        for d in (0, 1):
            if cap[d] == 0:
                cap[d] = min(self.free[d], self.q.max_share[leaf, d])
            cap[d] = math.floor(cap[d] * share)
        return bool((self.q_am_usage[leaf] + am <= cap).all())

    def _try_app(self, j: int, leaf: int, d: int) -> bool:
        p = self.p
        if self.job_am_state[j] == 1:
            am = p.job_am[j]
            if not self._fits(leaf, am) or not self._am_fits(leaf, am):
                return False
            self._start_attempt(j, -1 - j, am)
            return True
        s = self._next_stage(j, d)
        if s < 0:
            return False
        lo = int(p.stage_task_start[s])
        task = (
            int(self.stage_next[s])
            if self.stage_next[s] < p.stage_task_end[s]
            else self.stage_retry[s][0]
        )
        req = p.task_req[task]
        if not self._fits(leaf, req):
            return False
        if self.stage_next[s] < p.stage_task_end[s]:
            self.stage_next[s] += 1
        else:
            self.stage_retry[s].pop(0)
        del lo
        self._start_attempt(j, task, req)
        if self.stage_pending[s] == 0 and s + 1 < p.job_stage_ptr[j + 1] and self.stage_held[s + 1]:
            self._hold(j, s + 1, False)
        return True

    def _start_attempt(self, j: int, task: int, req) -> None:
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
        self.job_usage[j] += req
        self._up(self.q_usage, leaf, req)
        self._add_pending(j, -req)
        if task < 0:
            self.att_outcome.append(SUCCEEDED)
            self.job_am_state[j] = 2
            self.job_am_attempt[j] = a
            self.q_am_usage[leaf] += req
            self._push(t + lat + self.s.am_start_latency_s, AM_READY, j)
            return
        s = int(p.task_stage[task])
        self.stage_pending[s] -= 1
        if self.task_failures[task] < p.task_fail_count[task]:
            self.att_outcome.append(FAILED)
            self._push_end(a, t + lat + p.task_fail_frac[task] * p.task_dur[task])
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
            self._push_end(a, t + lat + p.task_dur[task])

    def _replay_finish(self, a: int, task: int, last_map: float) -> float:
        p = self.p
        begin = self.att_start[a] + self.s.container_launch_latency_s + p.task_a[task]
        return max(begin, last_map + p.task_b[task]) + p.task_c[task]

    def _end_attempt(self, a: int, state: int) -> None:
        p, t = self.p, self.now
        task = self.att_task[a]
        j = -1 - task if task < 0 else int(p.task_job[task])
        leaf = int(p.job_queue[j])
        req = p.job_am[j] if task < 0 else p.task_req[task]
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
        self.job_usage[j] -= req
        self._up(self.q_usage, leaf, -req)
        if task < 0:
            self.q_am_usage[leaf] -= req
            return
        s = int(p.task_stage[task])
        if state != SUCCEEDED:
            if state == FAILED:
                self.task_failures[task] += 1
            if a in self.stage_waiting[s]:
                self.stage_waiting[s].remove(a)
                if not self.stage_waiting[s] and j in self.reducing:
                    self.reducing.remove(j)
            self.stage_retry[s].append(task)
            self.stage_pending[s] += 1
            if not self.stage_held[s]:
                self._add_pending(j, req)
            return
        self.stage_done[s] += 1
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
        for k in list(self.waiting):
            if self._can_run(k):
                self._make_runnable(k)
                self.waiting.remove(k)

    # ------------------------------------------------------------------ preemption
    def _utilization_gate(self) -> bool:
        used = 1.0 - self.free / np.where(self.cluster > 0, self.cluster, 1.0)
        return max(used[0], used[1] if self.cluster[1] > 0 else 0.0) > self.s.utilization_threshold

    def _leaves(self) -> list[int]:
        return [q for q in range(len(self.q.parent)) if self.q.is_leaf[q]]

    def _below(self, policy: int, usage, share) -> bool:
        return res_compare(policy, usage, share, self.cluster) < 0

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
                    self.job_min_starv[j] = app_min
                    if j not in starved:
                        starved.append(j)
                else:
                    self.job_min_starv[j] = 0.0
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
            if self.stage_released[s] and not self.stage_held[s] and self.stage_pending[s] > 0
        ]
        stages.sort(key=lambda s: (p.stage_priority[s], s))
        out = []
        for s in stages:
            task = (
                int(self.stage_next[s])
                if self.stage_next[s] < p.stage_task_end[s]
                else self.stage_retry[s][0]
            )
            out.append((p.task_req[task], self.stage_pending[s]))
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
                break
            n = min(fit, count)
            pending = pending - cap * n
            for _ in range(n):
                found = self._victims_for(cap, chosen)
                if not found:
                    # nothing changed, so every further scan for this request ends the same
                    break
                victims.extend(found)
                chosen.update(found)
        for a in victims:
            task = self.att_task[a]
            vj = int(p.task_job[task])
            self.job_tbp[vj] += p.task_req[task]
            self.att_mark[a] = self.now + self.s.wait_time_before_kill_s
            self._push(self.att_mark[a], KILL, a)

    def _victims_for(self, cap, chosen: set[int]) -> list[int] | None:
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

    def _preempt_v12(self) -> None:
        """Hadoop 2 preemptTasksIfNecessary / Hadoop 1 preemptTasksIfNecessary, on a grid."""
        t = self.now
        interval = self.s.preemption_interval_s
        v1 = self.s.hadoop_version == 1
        leaves = self._leaves()
        expiries = []
        for leaf in leaves:
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
                for table, starving in (
                    (self.q_last_min, min_starved),
                    (self.q_last_fair, fair_starved),
                ):
                    if not starving:
                        table[leaf, d] = -INF
                    elif table[leaf, d] == -INF:
                        table[leaf, d] = t
                for last, timeout, starving in (
                    (self.q_last_min[leaf, d], self.q.min_timeout[leaf], min_starved),
                    (self.q_last_fair[leaf, d], self.q.fair_timeout[leaf], fair_starved),
                ):
                    if starving and timeout != INF:
                        expiries.append(last + timeout)
        # a check time: the scheduled one, or any grid time after it (checks skipped while idle)
        check = self.next_check_v12 <= t and _grid_at_or_after(t, interval) == t
        if (
            check
            and self.next_submit == len(self.p.job_submit)
            and self._repeats(self._v12_state(t))
        ):
            # the state repeats a recent check's: from here on the run only cycles
            self.livelocked = True
            return
        acted = False
        if check and self._utilization_gate_v12():
            if v1:
                for d in self.dims:
                    acted = self._preempt_v1(d) or acted
            else:
                acted = self._preempt_v2()
        nxt = wake = INF
        for e in expiries:
            # a timer acts once strictly past the timeout (curTime - last > timeout)
            g, ahead = _grid_after(max(e, t), interval), e >= t
            nxt = min(nxt, g)
            if ahead or not (check and not acted):
                wake = min(wake, g)
        if check and not acted:
            # idle: until another event, a check only acts once a timer expires or a warned
            # container passes waitTimeBeforeKill, so only those times are woken for
            for a in self.warned:
                k = _grid_after(self.att_mark[a] + self.s.wait_time_before_kill_s, interval)
                if self.att_state[a] == RUNNING and k > t and nxt < INF:
                    wake = min(wake, k)
        self.next_check_v12 = nxt
        self.next_check = wake

    def _repeats(self, state: tuple) -> bool:
        """Whether the state at this check equals, shifted in time, the state at an earlier
        check with no progress since (no end or AM-ready event, see `progress`):
        then the run only cycles and nothing ever finishes again. Brent's cycle finding:
        compare with one saved state, saved again after 1, 2, 4, ... checks."""
        if self.progress != self.seen_progress or self.seen_state is None:
            self.seen_progress, self.seen_state = self.progress, state
            self.seen_power, self.seen_steps = 1, 0
            return False
        self.seen_steps += 1
        if state == self.seen_state:
            return True
        if self.seen_steps == self.seen_power:
            self.seen_state = state
            self.seen_power *= 2
            self.seen_steps = 0
        return False

    def _v12_state(self, t: float) -> tuple:
        """Everything a Hadoop 1/2 run's future depends on, with times relative to `t`."""
        p, lat = self.p, self.s.container_launch_latency_s
        running = []
        for a in self.running:
            task = self.att_task[a]
            extra = -1.0
            if task >= 0 and self.att_outcome[a] == SUCCEEDED:
                s = int(p.task_stage[task])
                if p.stage_slowstart[s]:
                    done = self.stage_done_time[s - 1]
                    begin = self.att_start[a] + lat + p.task_a[task]
                    extra = -2.0 if np.isnan(done) else max(0.0, done + p.task_b[task] - begin)
            mark = self.att_mark[a] - t if self.att_mark[a] >= 0 else 1.0
            # without an end event (AMs, reduces waiting for maps) only the order matters
            start = self.att_start[a] - t if task >= 0 and extra != -2.0 else 0.0
            due = self.att_due[a] - t if self.att_due[a] < INF else 1.0
            running.append((task, start, self.att_outcome[a], extra, mark, self.att_node[a], due))
        timers = []
        v1 = self.s.hadoop_version == 1
        for leaf in self._leaves():
            for d in self.dims if v1 else [0]:
                for table, timeout in (
                    (self.q_last_min, self.q.min_timeout[leaf]),
                    (self.q_last_fair, self.q.fair_timeout[leaf]),
                ):
                    last = table[leaf, d]
                    if last == -INF or timeout == INF:
                        timers.append(INF if last == -INF else 1.0)  # not starved / never acts
                    else:
                        timers.append(-INF if _expired(t - last, timeout) else last - t)
        return (
            tuple(running),
            tuple(self.att_task[a] for a in self.warned),
            tuple(self.stage_next.tolist()),
            tuple(self.stage_pending),
            tuple(self.stage_held),
            tuple(self.stage_released),
            tuple(tuple(r) for r in self.stage_retry),
            tuple(self.reducing),
            tuple(timers),
            self.next_check_v12 - t,
            tuple(self.node_free.ravel().tolist()),
            tuple(h - t if h < INF else 1.0 for h in self.node_hb),
        )

    def _cycling_v3(self, t: float) -> bool:
        """Hadoop 3 livelock: at an update() check once every job is submitted, whether the
        state repeats an earlier check's with nothing finished since (see `_repeats`).
        The search (and building states) starts only after QUIET_CHECKS checks with no
        progress: in a busy run something ends every few checks, and a cycle found later
        is still exact."""
        if self.next_submit < len(self.p.job_submit):
            return False
        if self.progress != self.seen_progress:
            self.seen_progress, self.seen_state, self.quiet = self.progress, None, 0
            return False
        self.quiet += 1
        return self.quiet >= QUIET_CHECKS and self._repeats(self._v3_state(t))

    def _v3_state(self, t: float) -> tuple:
        """Everything a Hadoop 3 run's future depends on at an update() check, with times
        relative to `t`: the Hadoop 1/2 state (running attempts, stages, min-share timers),
        each runnable app's fair-share timer, re-check time and last starvation amounts,
        and the pending events in (time, seq) order, since even one for an attempt that
        has ended makes an iteration that schedules a check."""
        jobs = []
        for leaf in self._leaves():
            timeout = float(self.q.fair_timeout[leaf])
            for j in self.leaf_apps[leaf]:
                last, nxt = self.job_last_fair[j], self.job_next_check[j]
                if last == -INF or timeout == INF:
                    fair = INF if last == -INF else 1.0  # not starved / never acts
                else:
                    fair = -INF if t - last >= timeout else last - t
                jobs.append(
                    (
                        j,
                        fair,
                        -INF if nxt <= t else nxt - t,
                        tuple(self.job_fair_starv[j].tolist()),
                        tuple(self.job_min_starv[j].tolist()),
                    )
                )
        events = []
        for time, _, kind, ident in sorted(self.heap):
            what = -1  # an event that does nothing when it comes (its attempt has ended)
            if kind == AM_READY:
                what = ident if self.job_am_state[ident] == 2 else -1
            elif kind == HEARTBEAT:
                what = ident
            elif self.att_state[ident] == RUNNING and (kind == END or self.att_mark[ident] == time):
                what = self.att_task[ident]
            events.append((time - t, kind, what))
        return self._v12_state(t) + (tuple(jobs), tuple(events))

    def _utilization_gate_v12(self) -> bool:
        return True if self.s.hadoop_version == 1 else self._utilization_gate()

    def _rmin(self, policy: int, a, b):
        return a if res_compare(policy, a, b, self.cluster) <= 0 else b

    def _rmax(self, policy: int, a, b):
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
        self.warned = keep
        warned_q = np.zeros_like(self.q_usage)
        for j in self.jobs_with_tbp():
            self._up(warned_q, int(self.p.job_queue[j]), self.job_tbp[j])
        while to_preempt[0] > 0:
            a = self._preempt_container(0, warned_q)
            if a is None:
                break
            task = self.att_task[a]
            j = int(self.p.task_job[task])
            self.att_mark[a] = t
            self.job_tbp[j] += self.p.task_req[task]
            self._up(warned_q, int(self.p.job_queue[j]), self.p.task_req[task])
            self.warned.append(a)
            to_preempt = to_preempt - self.p.task_req[task]
            acted = True
        return acted

    def jobs_with_tbp(self) -> list[int]:
        return [int(j) for j in np.flatnonzero((self.job_tbp != 0).any(axis=1))]

    def _preempt_container(self, q: int, warned_q) -> int | None:
        """FSParentQueue/FSLeafQueue/FSAppAttempt.preemptContainer (Hadoop 2)."""
        p = self.p
        while not self.q.is_leaf[q]:
            best, best_key = None, None
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
        app, app_key = None, None
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

    def reconfigure(self, packed: Packed) -> None:
        """Install a new queue tree now; waiting apps are promoted if the new limits allow."""
        self.p = packed
        self.set_queues(packed.queues)
        self.changed = True  # new limits may let parked nodes assign
        for k in list(self.waiting):
            if self._can_run(k):
                self._make_runnable(k)
                self.waiting.remove(k)
        # Hadoop 3 checks starvation at the next update(); Hadoop 1/2 decide on their grid
        interval = self.s.update_interval_s
        self.next_check = _grid_at_or_after(self.now, interval) if self.v3 else self.now

    def queue_table(self) -> tuple[np.ndarray, ...]:
        """Per-queue usage, pending demand, fair share and runnable app count."""
        return (
            self.q_usage.copy(),
            self.q_pend_all.copy(),
            self.q_fair.copy(),
            np.array(self.q_runnable),
        )

    # ------------------------------------------------------------------ output
    def records(self) -> tuple[np.ndarray, ...]:
        """Attempt arrays (task, start, finish, state, preempted) and job finish times."""
        return (
            np.array(self.att_task, dtype=np.int64),
            np.array(self.att_start, dtype=float),
            np.array(self.att_finish, dtype=float),
            np.array(self.att_state, dtype=np.int64),
            np.array(self.att_preempted, dtype=bool),
            self.job_finish.copy(),
        )

    def take_records(self) -> tuple[np.ndarray, ...]:
        """`records()` at the end of a run (the compiled engine frees its arrays here)."""
        return self.records()


def _expired(waited: float, timeout: float) -> bool:
    """Whether a Hadoop 1/2 starvation timer acts: once strictly past the timeout
    (Hadoop 1 tasksToPreempt, Hadoop 2 resToPreempt: curTime - lastTime > timeout)."""
    return waited > timeout


def _grid_at_or_after(x: float, interval: float) -> float:
    k = math.floor(x / interval)
    g = k * interval
    return g if g >= x else (k + 1) * interval


def _grid_after(x: float, interval: float) -> float:
    k = math.floor(x / interval)
    g = k * interval
    return g if g > x else (k + 1) * interval
