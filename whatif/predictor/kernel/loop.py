"""The kernel's main loop and entry points: the clock jumps from event time to event time.

The reference engine's ``reference/loop.py`` is this module's pure-Python twin; it
follows the same steps.

Time warp. The clock jumps from one event time to the next: task ends (success or
noise failure), kills of preemption victims (Hadoop 3), AM start-up completions and
allocate calls that send released stages, node heartbeats and continuous scheduling
passes, job submissions and preemption checks (a starvation timeout expiring, an app's
starvation re-check delay ending, or, in Hadoop 1/2, the next multiple of the
preemption interval after a timeout expired). There is no fixed tick. At each
event time ``t`` one iteration runs:

1. pop every heap event with time ``t`` in (time, sequence number) order; a newly
   pushed event at ``t`` waits for the next iteration at the same ``t``;
2. submit every job with ``submit_s == t`` in workload order (submit time, job id);
3. recompute instantaneous fair shares if the set of active queues changed
   (a queue is active while it or a queue below it has a runnable app);
4. allocate: repeatedly descend from the root and assign one container, until
   nothing fits (one pass per slot pool on a Hadoop 1 slot cluster); with heartbeats,
   only on the nodes heartbeating at ``t`` (below), each in the order first listed, then,
   when one is due, a continuous scheduling pass over every node (``continuous.py``);
5. preemption (if on): Hadoop 3 starvation and victim selection, or the Hadoop 1/2
   queue-level check when ``t`` is the scheduled check time, or in the Capacity
   Scheduler mode a round of its preemption monitor (``capacity_preemption.py``) when
   ``t`` is the multiple of its interval at or after an event time, or a round while
   containers are marked;
6. with heartbeats, drop the claims a heartbeat would (``claims.py``), and schedule the
   next continuous scheduling pass (if on) and the next heartbeat of the nodes that may
   now assign.
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.allocation import _allocate, _node_allocate
from whatif.predictor.kernel.apptree import _trees_fit
from whatif.predictor.kernel.blocked_lists import _rc_asleep
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.capacity_preemption import _cs_monitor
from whatif.predictor.kernel.claims import _claims_sweep
from whatif.predictor.kernel.continuous import _continuous_pass, _pass_now, _schedule_pass
from whatif.predictor.kernel.events import _grid_after, _grid_at_or_after, heap_pop
from whatif.predictor.kernel.fairshare import _compute_shares
from whatif.predictor.kernel.heartbeats import _beat, _catch_up, _wake
from whatif.predictor.kernel.jobtracker import _end_task_cleanup
from whatif.predictor.kernel.lists import _keep_listed
from whatif.predictor.kernel.live_rows import _live_rows_room
from whatif.predictor.kernel.livelock import _cycling_v3
from whatif.predictor.kernel.phases import (
    _am_ask,
    _am_ready,
    _drop_idle_hangs,
    _end_attempt,
    _make_runnable,
    _preempt_reduces,
    _promote_waiting,
    _ramp_due,
    _ramp_reduces,
    _reask_event,
    _submit,
)
from whatif.predictor.kernel.preemption import _preempt_v3
from whatif.predictor.kernel.preemption_v12 import _preempt_v12, _v12_timers
from whatif.predictor.kernel.queues import _up
from whatif.predictor.world import borrowed, float_from_ordered, ordered_bits, prefetch, world_ref


@kernel_jit
def _borrow_world(W):
    """The world tuple with every array borrowed (see `world.borrowed`)."""
    return (
        borrowed(W[0]), borrowed(W[1]), borrowed(W[2]), borrowed(W[3]),
        borrowed(W[4]), borrowed(W[5]), borrowed(W[6]), borrowed(W[7]),
        borrowed(W[8]), borrowed(W[9]), borrowed(W[10]), borrowed(W[11]),
        borrowed(W[12]), borrowed(W[13]), borrowed(W[14]), borrowed(W[15]),
        borrowed(W[16]), borrowed(W[17]), borrowed(W[18]), borrowed(W[19]),
        borrowed(W[20]), borrowed(W[21]), borrowed(W[22]), borrowed(W[23]),
        borrowed(W[24]), borrowed(W[25]), borrowed(W[26]), borrowed(W[27]),
        borrowed(W[28]), borrowed(W[29]), borrowed(W[30]), borrowed(W[31]),
        borrowed(W[32]), borrowed(W[33]), borrowed(W[34]), borrowed(W[35]),
        borrowed(W[36]), borrowed(W[37]), borrowed(W[38]), borrowed(W[39]),
        borrowed(W[40]), borrowed(W[41]), borrowed(W[42]), borrowed(W[43]),
        borrowed(W[44]), borrowed(W[45]), borrowed(W[46]), borrowed(W[47]), borrowed(W[48]),
        borrowed(W[49]), borrowed(W[50]), borrowed(W[51]), borrowed(W[52]), borrowed(W[53]),
    )  # fmt: skip


@kernel_jit
def _ramp_down(W, heartbeats):
    """The MapReduce AM's reduce ramp-down, then its ramp-up (`_ramp_reduces`), after an
    allocation. With heartbeats they run once per event time, and what they free or ask
    for is assigned at the nodes' next heartbeats; without, at once, until the ramp-down
    frees and the ramp-up asks for nothing more."""
    gi = W[24]
    if heartbeats:
        if gi[S.GI_RC_HEAD] >= 0 or _rc_asleep(W):
            _preempt_reduces(W)
        if gi[S.GI_RAMP_HEAD] >= 0:
            _ramp_reduces(W)
        return
    while (gi[S.GI_RC_HEAD] >= 0 or _rc_asleep(W)) and _preempt_reduces(W):
        _allocate(W)
    while gi[S.GI_RAMP_HEAD] >= 0 and _ramp_reduces(W):
        _allocate(W)


@kernel_jit(inline="always")
def _check_due(gf, g, t):
    """Whether the preemption check at grid time `g` is due now; a later one becomes the
    next check if it is sooner than the one set."""
    if g == t:
        return True
    if g < gf[S.G_NEXT_CHECK]:
        gf[S.G_NEXT_CHECK] = g
    return False


@kernel_jit
def advance(W, t_stop, att_room):
    """Run iterations while the next event time is <= `t_stop`.

    Returns 0 when done or stopped, 1 when fewer than `att_room` attempt slots are
    left at the start of an iteration (the caller grows the arrays and calls again), 2
    when the iteration's submissions may not fit a leaf's app trees (`_trees_fit`: the
    caller grows them and calls again).
    """
    lf, li = W[52], W[51]
    W = world_ref(_borrow_world(W))
    js, jsf, jf, ts, tsf, af, ai, hk = W[6], W[7], W[8], W[16], W[17], W[19], W[20], W[21]
    hi, gf, gi, cfg = W[22], W[23], W[24], W[25]
    nj = js.shape[0]
    while True:
        _drop_idle_hangs(W)
        t_heap = float_from_ordered(hk[0, S.HK_KEY]) if gi[S.GI_HEAP_N] > 0 else S.INF
        t_sub = jsf[gi[S.GI_NEXT_SUBMIT], S.JSF_SUBMIT] if gi[S.GI_NEXT_SUBMIT] < nj else S.INF
        t = min(t_heap, t_sub, gf[S.G_NEXT_CHECK], gf[S.G_RAMP_DUE])
        if t == S.INF or t > t_stop or gi[S.GI_LIVELOCK] != 0:
            break
        # an iteration's pushes: an end or a kill mark per container (att_room), a re-ask
        # per kill, two hang timers per stage asked for (again), an AM call per job, and
        # a heartbeat per node
        room = 4 * att_room + 3 * nj + W[40].shape[0]
        if (
            ai.shape[0] - gi[S.GI_N_ATT] < att_room
            or _live_rows_room(W) < att_room
            or hk.shape[0] - gi[S.GI_HEAP_N] < room
        ):
            return 1
        if t == t_sub and not _trees_fit(W, t):
            return 2
        gf[S.G_NOW] = t
        first = t != gf[S.G_LAST_T]  # the first iteration at t: every heartbeat at t is in it
        gf[S.G_LAST_T] = t
        gi[S.GI_ITER] += 1
        gi[S.GI_BEAT_N] = 0
        t_key = ordered_bits(t)
        check = gf[S.G_NEXT_CHECK] == t
        if check:
            gf[S.G_NEXT_CHECK] = S.INF
        events = False
        ramp_call = gf[S.G_RAMP_DUE] == t  # an AM's call whose ramp-up changes its asks
        passing = False  # a continuous scheduling pass is due now
        while gi[S.GI_HEAP_N] > 0 and hk[0, S.HK_KEY] == t_key:
            events = True
            its_task = hi[0, S.HI_TASK]
            kind, ident = heap_pop(hk, hi, gi)
            if gi[S.GI_HEAP_N] > 0:
                # the rows the next event reads: its attempt, task and job
                if hi[0, S.HI_KIND] < S.AM_READY:
                    prefetch(ai, hi[0, S.HI_IDENT])
                    prefetch(af, hi[0, S.HI_IDENT])
                    prefetch(ts, hi[0, S.HI_TASK])
                    prefetch(tsf, hi[0, S.HI_TASK])
                prefetch(js, hi[0, S.HI_JOB])
                prefetch(jf, hi[0, S.HI_JOB])
            a = np.uint64(ident)  # an attempt's row, unsigned: no negative-index wraparound
            if kind == S.END:
                if ai[a, S.AI_STATE] == S.RUNNING:
                    live = ai[a, S.AI_LIVE]  # read before the end gives the live row back
                    n = li[live, S.LI_NODE]
                    end = lf[live, S.LF_END]
                    _end_attempt(W, ident, li[live, S.LI_OUTCOME])
                    gi[S.GI_PROGRESS] += 1
                    if n >= 0:
                        # reported at its node's heartbeat; it ended at its own time
                        af[a, S.AF_FINISH] = end
                        _beat(W, n)
                        W[41][n, S.NI_DONE] = gi[S.GI_ITER]
            elif kind == S.KILL:
                if ai[a, S.AI_STATE] == S.RUNNING and lf[ai[a, S.AI_LIVE], S.LF_MARK] == t:
                    _end_attempt(W, ident, S.KILLED)
            elif kind == S.HEARTBEAT:
                W[40][ident, S.NF_HB] = S.INF
                _beat(W, ident)
            elif kind == S.CONTINUOUS:
                gf[S.G_CONT] = S.INF
                passing = True
            elif kind == S.AM_ASK:
                _am_ask(W, ident)
                if cfg[S.C_CS] == 0.0:  # the Capacity mode's check state holds AM states
                    gi[S.GI_PROGRESS] += 1
            elif kind == S.TC_END:
                n = _end_task_cleanup(W, ident)
                if n >= 0:
                    _beat(W, n)  # reported at its node's heartbeat
            elif kind == S.HANG:
                pass  # the reduce ramp-down below sees the job's maps hang (`_hanging`)
            elif kind == S.REASK:
                _reask_event(W, ident, its_task)
            else:
                _am_ready(W, ident)
                if cfg[S.C_CS] == 0.0:  # the Capacity mode's check state holds AM states
                    gi[S.GI_PROGRESS] += 1
        while gi[S.GI_NEXT_SUBMIT] < nj and jsf[gi[S.GI_NEXT_SUBMIT], S.JSF_SUBMIT] == t:
            events = True
            _submit(W, gi[S.GI_NEXT_SUBMIT])
            gi[S.GI_NEXT_SUBMIT] += 1
        if gi[S.GI_DIRTY] != 0:
            _compute_shares(W)
        heartbeats = cfg[S.C_HB] != 0.0
        if heartbeats:
            if first:
                _catch_up(W, t)
            # with continuous scheduling, Hadoop 2 (before 2.9) assigns on a heartbeat only
            # when it reported a finished container
            only_done = cfg[S.C_CONT] != 0.0 and cfg[S.C_VERSION] == 2.0
            for i in range(gi[S.GI_BEAT_N]):
                n = W[42][i]
                if not only_done or W[41][n, S.NI_DONE] == gi[S.GI_ITER]:
                    _node_allocate(W, n)
            if cfg[S.C_CONT] != 0.0 and first and not passing:
                passing = _pass_now(W, t)  # a change at a grid time: the pass there sees it
            if passing:
                _continuous_pass(W)
        else:
            _allocate(W)
        _ramp_down(W, heartbeats)
        gi[S.GI_RAMP_RUN] = 0 if events else gi[S.GI_RAMP_RUN] + 1
        events = events or ramp_call
        if cfg[S.C_PREEMPT] != 0.0:
            if cfg[S.C_CS] != 0.0:
                if events:
                    # the first round at or after an event sees its state (one round a time)
                    g = _grid_at_or_after(t, cfg[S.C_CS_INTERVAL])
                    if g == gf[S.G_CS_LAST]:
                        g = _grid_after(t, cfg[S.C_CS_INTERVAL])
                    check = _check_due(gf, g, t) or check
                if check:
                    gf[S.G_CS_LAST] = t
                    if _cycling_v3(W):
                        gi[S.GI_LIVELOCK] = 1  # the monitor's rounds only cycle
                    elif _cs_monitor(W) > 0:
                        if not heartbeats:
                            _allocate(W)
                        _ramp_down(W, heartbeats)
            elif cfg[S.C_VERSION] == 3.0:
                if events:
                    # the next update() sees this state; one before it would see no change
                    check = _check_due(gf, _grid_at_or_after(t, cfg[S.C_UPDATE]), t) or check
                if check:
                    if _cycling_v3(W):
                        gi[S.GI_LIVELOCK] = 1  # the loop ends before the next time
                    else:
                        _preempt_v3(W)
            else:
                idle = _preempt_v12(W)
                if not heartbeats:
                    _allocate(W)
                _ramp_down(W, heartbeats)
                _v12_timers(W, idle)
        if heartbeats:
            if gi[S.GI_CLAIM_LIVE] > 0:
                _claims_sweep(W)  # what the nodes' next heartbeats would drop first
            if cfg[S.C_CONT] != 0.0:
                _schedule_pass(W, t)
            gf[S.G_RAMP_DUE] = S.INF
            if gi[S.GI_RAMP_HEAD] >= 0 and gi[S.GI_RAMP_RUN] < S.RAMP_RUN_MAX:
                gf[S.G_RAMP_DUE] = _ramp_due(W)
            _wake(W, t)
    if t_stop != S.INF and t_stop > gf[S.G_NOW]:
        gf[S.G_NOW] = t_stop
    return 0


@kernel_jit
def rebuild_queue_state(W):
    """Re-attribute every live job's usage, pending demand and AM usage to a fresh queue tree.

    Jobs are visited in index order, so leaf app lists are in submission order afterwards.
    """
    W = world_ref(_borrow_world(W))
    qf, js, jsf, jf, ji, hold = W[3], W[6], W[7], W[8], W[9], W[37]
    W[24][S.GI_RCL_HEAD] = -1  # the fresh leaves hold no asleep blocked jobs: all wake
    W[24][S.GI_RCL_TAIL] = -1
    for j in range(js.shape[0]):
        if ji[j, S.JI_IN_RCS] == 1:
            ji[j, S.JI_IN_RCS] = 0
            _keep_listed(ji, S.JI_RC_NEXT, S.JI_RC_PREV, W[24], S.GI_RC_HEAD, S.JI_IN_RC, j, True)
        if ji[j, S.JI_HOLD_POS] >= 0:
            hold[ji[j, S.JI_HOLD_POS], 1] = js[j, S.JS_QUEUE]
        state = ji[j, S.JI_STATE]
        if state != 1 and state != 2:
            continue
        leaf = js[j, S.JS_QUEUE]
        _up(W, S.QF_USE, leaf, jf[j, S.JF_USE], jf[j, S.JF_USE + 1])
        _up(W, S.QF_PALL, leaf, jf[j, S.JF_PEND], jf[j, S.JF_PEND + 1])
        _up(W, S.QF_TBP, leaf, jf[j, S.JF_TBP], jf[j, S.JF_TBP + 1])
        if state == 2:
            ji[j, S.JI_STATE] = 1
            _make_runnable(W, j)
        if ji[j, S.JI_AM_STATE] >= 2:
            qf[leaf, S.QF_AM] += jsf[j, S.JSF_AM]
            qf[leaf, S.QF_AM + 1] += jsf[j, S.JSF_AM + 1]


@kernel_jit
def promote_waiting(W):
    """Make runnable every waiting app the (new) limits allow, in submission order."""
    W = world_ref(_borrow_world(W))
    _promote_waiting(W)
