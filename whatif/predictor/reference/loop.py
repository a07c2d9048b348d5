"""The reference engine: a plain-Python time-warp event loop with the full semantics.

Readable twin of the numba kernel (``whatif/predictor/kernel/``): both read the same
`Packed` arrays and must give the same schedule (tests compare them on random
workloads). Every rule and tie-break is described once, in the kernel module of the
same name as the module here that follows it step by step, with Python objects instead
of flat arrays: `ReferenceEngine` is the main loop and the state, and takes each
concept's steps from a mixin in that concept's module.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np

from whatif.predictor.capacity import capacity_settings
from whatif.predictor.pack import Packed, PackedQueues
from whatif.predictor.reference.allocate_cycle import AllocateCycle
from whatif.predictor.reference.allocation import Allocation
from whatif.predictor.reference.capacity import Capacity
from whatif.predictor.reference.capacity_locality import CapacityLocality
from whatif.predictor.reference.capacity_preemption import CapacityPreemption
from whatif.predictor.reference.claims import Claims
from whatif.predictor.reference.continuous import Continuous
from whatif.predictor.reference.events import Events, _grid_after, _grid_at_or_after
from whatif.predictor.reference.fair_locality import FairLocality
from whatif.predictor.reference.fairshare import FairShares
from whatif.predictor.reference.heartbeats import Heartbeats
from whatif.predictor.reference.jobtracker import JobTracker
from whatif.predictor.reference.livelock import Livelock
from whatif.predictor.reference.locality import Locality
from whatif.predictor.reference.ordering import Ordering
from whatif.predictor.reference.phases import Phases, RampUp
from whatif.predictor.reference.preemption import Preemption
from whatif.predictor.reference.preemption_v12 import PreemptionV12
from whatif.predictor.reference.queues import Queues
from whatif.predictor.reference.requests import Requests
from whatif.predictor.reference.reservations import Reservations
from whatif.predictor.reference.state import (
    AM_ASK,
    CONTINUOUS,
    END,
    HANG,
    HEARTBEAT,
    INF,
    KILL,
    KILLED,
    RAMP_RUN_MAX,
    REASK,
    RUNNING,
    TC_END,
)
from whatif.predictor.settings import SchedulerSettings


class ReferenceEngine(
    Queues,
    Events,
    Heartbeats,
    FairShares,
    Ordering,
    Allocation,
    Requests,
    AllocateCycle,
    JobTracker,
    Locality,
    Phases,
    RampUp,
    Preemption,
    PreemptionV12,
    Claims,
    Continuous,
    Livelock,
    Capacity,
    CapacityPreemption,
    CapacityLocality,
    FairLocality,
    Reservations,
):
    """A simulation in progress; `advance_to` moves it forward, `records` reads it out."""

    def __init__(self, packed: Packed, settings: SchedulerSettings) -> None:
        if packed.queues.capacity is not None:
            settings = capacity_settings(settings, packed.queues.capacity)
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
        # the AM's allocate cycle (`allocate_cycle.py`): when each AM became ready, the
        # stages released but not yet sent, and the apps with an AM_ASK event pending
        self.job_am_t0 = np.zeros(nj)
        # the AM's unconditional reduce preemption (`phases._hang_due`): when each job's map
        # requests last went from none to some, its earliest next such preemption
        off = self.s.hadoop_version == 1  # see the kernel's
        self.hang_delay = -1.0 if off else self.s.reducer_unconditional_preempt_delay_s
        # mapreduce.job.reducer.preempt.delay.sec for the headroom rule (0: at once)
        self.headroom_delay = 0.0 if off else max(self.s.reducer_preempt_delay_s, 0.0)
        self.job_map_ask = np.zeros(nj)
        self.job_hang_next = np.full(nj, -INF)
        self.job_rd_call = np.full(nj, -INF)
        self.job_ramp_next = np.zeros(nj)  # the AM's next call at which it ramps
        # with heartbeats: the next AM call whose ramp-up changes what it asks for
        # (`_ramp_due`), and the iterations in a row that were only such calls
        self.ramp_due = INF
        self.ramp_run = 0
        self.stage_asked: set[int] = set()
        self.asking: set[int] = set()
        # tasks killed or failed whose AM has not asked for them again: the seq of their
        # REASK event (`phases._reask`)
        self.limbo: dict[int, int] = {}
        self.user_running = [0] * len(packed.user_max_apps)
        self.waiting: list[int] = []  # submitted, not runnable, in submit order
        # stages
        self.stage_released = [False] * ns
        self.stage_next = packed.stage_task_start.copy()
        self.stage_pending = [0] * ns
        self.stage_done = [0] * ns
        self.stage_done_time = np.full(ns, np.nan)
        self.stage_retry: list[list[int]] = [[] for _ in range(ns)]
        self.stage_front = [0] * ns  # re-queued tasks that go before the fresh ones
        self.stage_waiting: list[list[int]] = [[] for _ in range(ns)]
        self.stage_held = [False] * ns
        self.stage_ramp = [-1] * ns  # reduces asked for as ramped up (-1: all)
        self.ramping: list[int] = []  # jobs whose reduces the AM ramps, in order begun
        self.reducing: list[int] = []  # jobs with reduces waiting for maps, in order found
        # Hadoop 1: the slot pool each JobTracker stage's running task holds, and the jobs
        # with a setup or cleanup task to hand out (`jobtracker.py`)
        self.stage_slot = [0] * ns
        self.jt_jobs: dict[int, None] = {}
        # Hadoop 1: task-cleanup attempts to run, per job and slot pool, and whether any are
        self.job_tc = [[0, 0] for _ in range(nj)]
        self.tc_on = (
            packed.slot_mode and settings.hadoop_version == 1 and settings.task_cleanup_s > 0
        )
        # tasks
        self.task_failures = [0] * nt
        self.task_failed_on = [-1] * nt  # the node its last failed attempt ran on
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
        # the Capacity Scheduler's preemption monitor: marks (attempt -> round), last round
        self.cs_marks: dict[int, int] = {}
        self.cs_last_round = -INF
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
        # Hadoop 3 claims on preempted resources per node (row 0: the cluster), in order
        self.claims: list[dict[int, np.ndarray]] = [{} for _ in range(max(self.nn, 1))]
        # continuous scheduling (`continuous.py`): on (with nodes), the next pass's time,
        # and the nodes whose heartbeat reported a finished container this iteration
        self.continuous = settings.continuous_scheduling and self.hb and not packed.slot_mode
        self.next_pass: float = INF
        self.reported: set[int] = set()
        self.init_locality(packed)
        self.init_capacity_locality(packed)
        self.init_fair_locality(packed, settings)
        self.init_reservations()
        self.set_queues(packed.queues)

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
        self.seen_state: tuple[Any, ...] | None = None
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

    def _ramp_down(self) -> None:
        """The MapReduce AM's reduce ramp-down, then its ramp-up, after an allocation (see
        the kernel's)."""
        if self.hb:
            if self.reducing:
                self._preempt_reduces()
            if self.ramping:
                self._ramp_reduces()
            return
        while self.reducing and self._preempt_reduces():
            self._allocate()
        while self.ramping and self._ramp_reduces():
            self._allocate()

    def advance_to(self, t_stop: float) -> None:
        """Process every event at or before `t_stop` (``inf``: run to the end)."""
        p = self.p
        while True:
            self._drop_idle_hangs()
            t_heap = self.heap[0][0] if self.heap else INF
            t_sub = p.job_submit[self.next_submit] if self.next_submit < len(p.job_submit) else INF
            t = min(t_heap, t_sub, self.next_check, self.ramp_due)
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
            ramp_call = t == self.ramp_due  # an AM's call whose ramp-up changes its asks
            passing = False  # a continuous scheduling pass is due now
            self.reported = set()
            while self.heap and self.heap[0][0] == t:
                events = True
                _, seq, kind, ident = heapq.heappop(self.heap)
                if kind == END:
                    if self.att_state[ident] == RUNNING:
                        self._end_attempt(ident, self.att_outcome[ident])
                        self.progress += 1
                        n = self.att_node[ident]
                        if n >= 0:
                            # reported at its node's heartbeat; it ended at its own time
                            self.att_finish[ident] = self.att_end[ident]
                            self._beat(n, beating)
                            self.reported.add(n)
                elif kind == KILL:
                    if self.att_state[ident] == RUNNING and self.att_mark[ident] == t:
                        self._end_attempt(ident, KILLED)
                elif kind == HEARTBEAT:
                    self.node_hb[ident] = INF
                    self._beat(ident, beating)
                elif kind == CONTINUOUS:
                    self.next_pass = INF
                    passing = True
                elif kind == AM_ASK:
                    self._am_ask(ident)
                    if self.q.capacity is None:  # the Capacity mode's check state holds AM states
                        self.progress += 1
                elif kind == TC_END:
                    n = self._end_task_cleanup(ident)
                    if n >= 0:
                        self._beat(n, beating)  # reported at its node's heartbeat
                elif kind == HANG:
                    pass  # the reduce ramp-down below sees the job's maps hang (`_hanging`)
                elif kind == REASK:
                    if self.limbo.get(ident) == seq:
                        del self.limbo[ident]
                        self._reask(ident, p.task_req[ident])
                else:
                    self._am_ready(ident)
                    if self.q.capacity is None:  # the Capacity mode's check state holds AM states
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
                # with continuous scheduling, Hadoop 2 (before 2.9) assigns on a heartbeat
                # only when it reported a finished container
                only_done = self.continuous and self.s.hadoop_version == 2
                for n in beating:
                    if not only_done or n in self.reported:
                        self._node_allocate(n)
                if self.continuous and first and not passing:
                    passing = self._pass_now(t)  # a change at a grid time: the pass there sees it
                if passing:
                    self._continuous_pass()
            else:
                self._allocate()
            self._ramp_down()
            self.ramp_run = 0 if events else self.ramp_run + 1
            events = events or ramp_call
            if self.s.preemption:
                if self.q.capacity is not None:
                    interval_s = self.q.capacity.monitor.monitoring_interval_ms / 1000.0
                    if events:
                        # the first round at or after an event sees its state (one a time)
                        g = _grid_at_or_after(t, interval_s)
                        if g == self.cs_last_round:
                            g = _grid_after(t, interval_s)
                        if g == t:
                            check = True
                        else:
                            self.next_check = min(self.next_check, g)
                    if check:
                        self.cs_last_round = t
                        if self._cycling_v3(t):
                            self.livelocked = True  # the monitor's rounds only cycle
                        else:
                            self._cs_round(t, interval_s)
                elif self.s.hadoop_version == 3:
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
                    idle = self._preempt_v12()
                    if not self.hb:
                        self._allocate()
                    self._ramp_down()
                    self._v12_timers(idle)
            if self.hb:
                self._claims_sweep()  # what the nodes' next heartbeats would drop first
                if self.continuous:
                    self._schedule_pass(t)
                self.ramp_due = INF
                if self.ramping and self.ramp_run < RAMP_RUN_MAX:
                    self.ramp_due = self._ramp_due()
                self._wake(t)
        if t_stop != INF and t_stop > self.now:
            self.now = t_stop

    def _cs_round(self, t: float, interval_s: float) -> None:
        """A monitor round at `t`; the next one while marks are held or it killed."""
        killed = self._cs_monitor()
        if self.cs_marks or killed:  # held marks, or what kills changed
            k = math.floor(t / interval_s + 0.5)
            self.next_check = min(self.next_check, (k + 1.0) * interval_s)
        if killed > 0:
            if not self.hb:
                self._allocate()
            self._ramp_down()

    def reconfigure(self, packed: Packed) -> None:
        """Install a new queue tree now; waiting apps are promoted if the new limits allow."""
        self.p = packed
        self.set_queues(packed.queues)
        self.changed = True  # new limits may let parked nodes assign
        for k in list(self.waiting):
            if self._can_run(k):
                self._make_runnable(k)
                self.waiting.remove(k)
        # Hadoop 3 checks starvation at the next update(); Hadoop 1/2 decide on their grid;
        # the Capacity Scheduler's monitor at its next round
        if packed.queues.capacity is not None:
            interval = packed.queues.capacity.monitor.monitoring_interval_ms / 1000.0
            self.next_check = _grid_at_or_after(self.now, interval)
        else:
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
