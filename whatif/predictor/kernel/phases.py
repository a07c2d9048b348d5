"""MapReduce job phases: submission and maxRunningApps, the AM, stages and slowstart,
attempts starting and ending, job end, and the MapReduce AM's reduce ramp-down and ramp-up.

The reference engine's ``reference/phases.py`` is this module's pure-Python twin; it
follows the same steps.

Apps and stages: maxRunningApps (user, then each queue leaf to root) decides at
submission whether an app is runnable; on each job end the waiting apps are
scanned in submission order and every one that now fits is made runnable.
Stages are released in order; a ``reduce`` stage right after a ``map`` stage is
released once done maps / maps >= slowstart, and its tasks end at
``max(start + latency + a, last_map_end + b) + c`` (see ``pack._replay_parts``),
which is known only when the last map ends (until then the attempt runs with no
end event). Other tasks end at ``start + latency + duration``; a failing attempt
(noise) ends at ``start + latency + frac * duration`` and the task is re-queued.
A job ends when its last stage completes; its AM container is released then. An AM
container the Capacity Scheduler's preemption monitor kills fails the app's attempt
(`_am_preempted`): a new attempt starts, which recovers the completed tasks.
On Hadoop 2/3 the MapReduce AM ramps reduces down (`_preempt_reduces`) when a job's maps
cannot run; on Hadoop 1's slot pools the JobTracker never kills or holds back reduces for
maps (on one pool of memory the rule stays, or waiting reduces could hold it forever).

Killed and failed attempts free their resources at once and their task is queued
again where Hadoop hands it out again (`requests._requeue`).
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.allocate_cycle import _am_call, _cycles, _reask_call, _run_start
from whatif.predictor.kernel.apptree import _free_slot, _take_slot, _touch
from whatif.predictor.kernel.blocked_lists import (
    _rc_asleep,
    _rc_bound,
    _rc_sleep,
    _rc_unbound,
    _rc_unsleep,
    _rc_wake,
)
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.capacity import _cs_admit, _cs_user_room
from whatif.predictor.kernel.events import heap_pop, heap_push
from whatif.predictor.kernel.heartbeats import _push_end, _touch_node
from whatif.predictor.kernel.jobtracker import _jt_refresh
from whatif.predictor.kernel.lists import (
    _append,
    _append_via,
    _keep_listed,
    _remove,
    _remove_via,
)
from whatif.predictor.kernel.live_rows import _give_live_row, _take_live_row
from whatif.predictor.kernel.locality import _loc_requeued
from whatif.predictor.kernel.queues import _count_runnable, _fits_to, _up
from whatif.predictor.kernel.ramp_lists import (
    _ramp_catch_up,
    _ramp_keep_h,
    _ramp_list,
    _ramp_reset_h,
    _ramp_rest,
    _ramp_sleep,
    _ramp_stage,
    _ramp_wake,
)
from whatif.predictor.kernel.requests import _give_back, _head_task, _requeue
from whatif.predictor.kernel.resting import _park_again
from whatif.predictor.kernel.starvation import _unlist_min_starvation
from whatif.predictor.kernel.victims import _free_add, _free_remove, _held_changed
from whatif.predictor.world import float_from_ordered

#: a count past any stage's tasks (`_window_req`: every unassigned one)
ALL = 2**31 - 1


@kernel_jit
def _add_pending(W, j, x0, x1):
    js, jf, ji = W[6], W[8], W[9]
    u = np.uint64(j)  # unsigned rows: no negative-index wraparound
    leaf = js[u, S.JS_QUEUE]
    jf[u, S.JF_PEND] += x0
    jf[u, S.JF_PEND + 1] += x1
    _touch(W, j)
    _rc_wake(W, j)
    _up(W, S.QF_PALL, leaf, x0, x1)
    if ji[u, S.JI_STATE] == 2:
        _up(W, S.QF_PRUN, leaf, x0, x1)
    W[24][S.GI_CHANGED] = 1


@kernel_jit
def _release_stage(W, j, s):
    """Release stage `s` (and, with slowstart 0, the reduce stage after it at once); with
    an allocate cycle, at the AM's next call (`allocate_cycle.py`)."""
    js, ss, ssf, si, cfg = W[6], W[12], W[13], W[14], W[25]
    _ramp_wake(W, j)
    if _cycles(W, j) and W[9][j, S.JI_AM_STATE] == 3:
        now = W[23][S.G_NOW]
        call = _am_call(W, j, now, True)
        if call > now:
            si[s, S.SI_RELEASED] = 2
            if W[9][j, S.JI_ASKING] == 0:
                W[9][j, S.JI_ASKING] = 1
                heap_push(W[21], W[22], W[24], call, S.AM_ASK, W[9][j, S.JI_AM_ATT], -1, j)
            return
    while True:
        si[s, S.SI_RELEASED] = 1
        si[s, S.SI_PENDING] = ss[s, S.SS_HI] - ss[s, S.SS_LO] - si[s, S.SI_DONE]
        if ss[s, S.SS_JT] != 0:
            _jt_refresh(W, j)  # the JobTracker hands it out, not the scheduler
            return
        _map_asked(W, j, s)
        if _ramps(W, j, s):
            si[s, S.SI_ASKED] = 0  # the AM asks for its reduces as it ramps them up
            _ramp_refresh(W, j)
            _ramp_job(W, j)
        elif (
            si[s, S.SI_NEXT] == ss[s, S.SS_LO]
            and si[s, S.SI_RETRY_HEAD] < 0
            and si[s, S.SI_DONE] == 0
        ):
            _add_pending(W, j, ssf[s, 0], ssf[s, 1])
        else:  # a restarted AM asks for what its failed attempt left (`_am_preempted`)
            r0, r1 = _unassigned_req(W, s)
            _add_pending(W, j, r0, r1)
        nxt = s + 1
        if nxt < js[j, S.JS_ST_HI] and ss[nxt, S.SS_SLOW] == 1 and si[nxt, S.SI_RELEASED] == 0:
            if si[s, S.SI_DONE] / (ss[s, S.SS_HI] - ss[s, S.SS_LO]) >= cfg[S.C_SLOWSTART]:
                s = nxt
                continue
        return


@kernel_jit
def _maybe_slowstart(W, j, s):
    """Release the reduce stage after map stage `s` once enough maps completed."""
    js, ss, si, cfg = W[6], W[12], W[14], W[25]
    nxt = s + 1
    if nxt < js[j, S.JS_ST_HI] and ss[nxt, S.SS_SLOW] == 1 and si[nxt, S.SI_RELEASED] == 0:
        size = ss[s, S.SS_HI] - ss[s, S.SS_LO]
        if si[s, S.SI_DONE] / size >= cfg[S.C_SLOWSTART]:
            _release_stage(W, j, nxt)


@kernel_jit
def _can_run(W, j):
    qs, qi, js, umax, urun = W[0], W[4], W[6], W[10], W[11]
    user = js[j, S.JS_USER]
    if umax[user] >= 0 and urun[user] >= umax[user]:
        return False
    q = js[j, S.JS_QUEUE]
    while q >= 0:
        if qs[q, S.QS_MAX_APPS] >= 0 and qi[q, S.QI_RUNNABLE] >= qs[q, S.QS_MAX_APPS]:
            return False
        q = qs[q, S.QS_PARENT]
    return True


@kernel_jit
def _make_runnable(W, j):
    qi, js, jf, ji, urun = W[4], W[6], W[8], W[9], W[11]
    leaf = js[j, S.JS_QUEUE]
    W[24][S.GI_CHANGED] = 1
    ji[j, S.JI_STATE] = 2
    _take_slot(W, j)
    _touch(W, j)
    urun[js[j, S.JS_USER]] += 1
    _count_runnable(W, leaf, 1)
    _up(W, S.QF_PRUN, leaf, jf[j, S.JF_PEND], jf[j, S.JF_PEND + 1])
    _append(ji, S.JI_APP_NEXT, S.JI_APP_PREV, qi[leaf], S.QI_APP_HEAD, j)
    _jt_refresh(W, j)


@kernel_jit
def _unlink_app(W, j):
    qi, js, ji = W[4], W[6], W[9]
    _remove(ji, S.JI_APP_NEXT, S.JI_APP_PREV, qi[js[j, S.JS_QUEUE]], S.QI_APP_HEAD, j)


@kernel_jit
def _submit(W, j):
    js, jsf, jf, ji, gf, gi = W[6], W[7], W[8], W[9], W[23], W[24]
    if W[25][S.C_CS] != 0.0 and not _cs_admit(W, j):
        ji[j, S.JI_STATE] = 3  # rejected (maximum-applications): never runs, no finish time
        return
    ji[j, S.JI_STATE] = 1
    jf[j, S.JF_LFAIR] = -S.INF
    if js[j, S.JS_HAS_AM] == 0 and js[j, S.JS_ST_LO] == js[j, S.JS_ST_HI]:
        ji[j, S.JI_STATE] = 3
        jf[j, S.JF_FINISH] = gf[S.G_NOW]
        return
    W[4][js[j, S.JS_QUEUE], S.QI_LIVE] += 1
    if js[j, S.JS_HAS_AM] == 1:
        ji[j, S.JI_AM_STATE] = 1
        _add_pending(W, j, jsf[j, S.JSF_AM], jsf[j, S.JSF_AM + 1])
    else:
        _release_stage(W, j, js[j, S.JS_ST_LO])
    if _can_run(W, j):
        _make_runnable(W, j)
    else:
        _append(ji, S.JI_WAIT_NEXT, S.JI_WAIT_PREV, gi, S.GI_WAIT_HEAD, j)


@kernel_jit
def _promote_waiting(W):
    """Scan waiting apps in submission order; make runnable every one the limits allow."""
    ji, gi = W[9], W[24]
    j = gi[S.GI_WAIT_HEAD]
    while j >= 0:
        nxt = ji[j, S.JI_WAIT_NEXT]
        if _can_run(W, j):
            _remove(ji, S.JI_WAIT_NEXT, S.JI_WAIT_PREV, gi, S.GI_WAIT_HEAD, j)
            _make_runnable(W, j)
        j = nxt


@kernel_jit
def _am_ask(W, a):
    """The allocate call of AM attempt `a` sends the stages released since its last one
    (nothing, if the attempt has failed since: `_am_preempted`)."""
    js, ji, si = W[6], W[9], W[14]
    j = -1 - W[20][a, S.AI_TASK]
    if ji[j, S.JI_AM_ATT] != a or ji[j, S.JI_AM_STATE] != 3:
        return
    ji[j, S.JI_ASKING] = 0
    for s in range(js[j, S.JS_ST_LO], js[j, S.JS_ST_HI]):
        if si[s, S.SI_RELEASED] == 2:
            si[s, S.SI_RELEASED] = 0
            _release_stage(W, j, s)


@kernel_jit
def _am_ready(W, a):
    """AM attempt `a` is ready (unless it has failed since): it releases its job's first
    stage, or after a failed attempt the first one not completed (`_am_preempted`)."""
    js, ji, si = W[6], W[9], W[14]
    j = -1 - W[20][a, S.AI_TASK]
    if ji[j, S.JI_AM_ATT] == a and ji[j, S.JI_AM_STATE] == 2:
        ji[j, S.JI_AM_STATE] = 3
        W[8][j, S.JF_AM_T0] = W[23][S.G_NOW]
        s = js[j, S.JS_ST_LO]
        while s < js[j, S.JS_ST_HI] and si[s, S.SI_RELEASED] != 0:
            s += 1
        if s == js[j, S.JS_ST_HI]:
            _finish_job(W, j)
        else:
            _release_stage(W, j, s)


@kernel_jit
def _start_attempt(W, j, task, r0, r1):
    js, ji, ss, si, sdone = W[6], W[9], W[12], W[14], W[15]
    ts, tsf, ti, af, ai, hk, hi, gf = W[16], W[17], W[18], W[19], W[20], W[21], W[22], W[23]
    gi, cfg = W[24], W[25]
    # rows as unsigned numbers: indexing by them compiles without negative-index wraparound
    uj = np.uint64(j)
    t = gf[S.G_NOW]
    lat = cfg[S.C_LAT]
    _ramp_wake(W, j)
    leaf = js[uj, S.JS_QUEUE]
    a = gi[S.GI_N_ATT]
    ua = np.uint64(a)
    gi[S.GI_N_ATT] = a + 1
    ai[ua, S.AI_TASK] = task
    ai[ua, S.AI_STATE] = S.RUNNING
    ai[ua, S.AI_PREEMPTED] = 0
    af[ua, S.AF_START] = t
    af[ua, S.AF_FINISH] = S.INF
    li, lf = W[51], W[52]
    live = _take_live_row(W, a)
    li[live, S.LI_CHOSEN] = 0
    li[live, S.LI_DEF_NEXT] = -1
    li[live, S.LI_DEF_PREV] = -1
    lf[live, S.LF_MARK] = -1.0
    lf[live, S.LF_END] = S.INF
    lf[live, S.LF_DUE] = S.INF
    node = gi[S.GI_CUR_NODE]
    li[live, S.LI_NODE] = node
    gi[S.GI_CHANGED] = 1
    _append_via(li, ai, S.AI_LIVE, S.LI_RUN_NEXT, S.LI_RUN_PREV, gi, S.GI_RUN_HEAD, a)
    gf[S.G_FREE] -= r0
    gf[S.G_FREE + 1] -= r1
    if node >= 0:
        W[40][node, S.NF_FREE] -= r0
        W[40][node, S.NF_FREE + 1] -= r1
        _park_again(W, node)
    s = -1
    if task >= 0:
        s = ts[np.uint64(task), S.TS_STAGE]
    if task < 0 or ss[np.uint64(s), S.SS_JT] == 0:  # JobTracker tasks: in no pool
        _use_pending(W, j, leaf, r0, r1)
        if task >= 0:
            _free_add(W, a, j)
    if task < 0:
        li[live, S.LI_OUTCOME] = S.SUCCEEDED
        ji[uj, S.JI_AM_STATE] = 2
        ji[uj, S.JI_AM_ATT] = a
        W[3][leaf, S.QF_AM] += r0
        W[3][leaf, S.QF_AM + 1] += r1
        heap_push(hk, hi, gi, t + lat + cfg[S.C_AM_LAT], S.AM_READY, a, -1, j)
        return
    us = np.uint64(s)
    ut = np.uint64(task)
    si[us, S.SI_PENDING] -= 1
    if si[us, S.SI_ASKED] > 0:
        si[us, S.SI_ASKED] -= 1
    if ti[ut, S.TI_FAILS] < ts[ut, S.TS_FAILS]:
        li[live, S.LI_OUTCOME] = S.FAILED
        _push_end(W, a, _run_start(W, j, t) + tsf[ut, S.TSF_FRAC] * tsf[ut, S.TSF_DUR], task, j)
    elif ss[us, S.SS_SLOW] == 1:
        li[live, S.LI_OUTCOME] = S.SUCCEEDED
        if np.isnan(sdone[s - 1]):
            _append_via(li, ai, S.AI_LIVE, S.LI_DEF_NEXT, S.LI_DEF_PREV, si[s], S.SI_DEF_HEAD, a)
            if ji[uj, S.JI_IN_RED] == 0:
                _red_link(W, j)
        else:
            _push_end(W, a, _replay_finish(W, a, task, sdone[s - 1]), task, j)
    else:
        li[live, S.LI_OUTCOME] = S.SUCCEEDED
        _push_end(W, a, _run_start(W, j, t) + tsf[ut, S.TSF_DUR], task, j)
    _red_refresh(W, j)


@kernel_jit
def _use_pending(W, j, leaf, r0, r1):
    """A container of (r0, r1) starts for app `j`'s pending request: the app's and its
    queues' usage grow by it and their pending demand shrinks by it, as `_up` of the
    usage and `_add_pending` of minus it would, in one walk up the queues, not three."""
    qs, qf, jf, ji = W[0], W[3], W[8], W[9]
    u = np.uint64(j)  # unsigned rows: no negative-index wraparound
    x0 = -r0
    x1 = -r1
    jf[u, S.JF_USE] += r0
    jf[u, S.JF_USE + 1] += r1
    _held_changed(W, j)
    jf[u, S.JF_PEND] += x0
    jf[u, S.JF_PEND + 1] += x1
    _touch(W, j)
    running = ji[u, S.JI_STATE] == 2
    q = leaf
    while q >= 0:
        uq = np.uint64(q)
        qf[uq, S.QF_USE] += r0
        qf[uq, S.QF_USE + 1] += r1
        qf[uq, S.QF_PALL] += x0
        qf[uq, S.QF_PALL + 1] += x1
        if running:
            qf[uq, S.QF_PRUN] += x0
            qf[uq, S.QF_PRUN + 1] += x1
        q = qs[uq, S.QS_PARENT]
    W[24][S.GI_CHANGED] = 1


@kernel_jit
def _replay_row(W, task):
    """The row in `rsf` of `task`, of a slowstart stage."""
    ss, ts = W[12], W[16]
    s = ts[task, S.TS_STAGE]
    return ss[s, S.SS_RR] + task - ss[s, S.SS_LO]


@kernel_jit
def _replay_finish(W, a, task, last_map):
    af, rsf = W[19], W[50]
    r = _replay_row(W, task)
    begin = _run_start(W, W[16][task, S.TS_JOB], af[a, S.AF_START]) + rsf[r, S.RS_A]
    return max(begin, last_map + rsf[r, S.RS_B]) + rsf[r, S.RS_C]


@kernel_jit
def _release_container(W, a, state):
    """Record the attempt's end and give its resources and its live row back; returns
    (job, r0, r1)."""
    qf, js, jsf, jf, ts, tsf, af, ai = W[3], W[6], W[7], W[8], W[16], W[17], W[19], W[20]
    gf, gi = W[23], W[24]
    t = gf[S.G_NOW]
    ua = np.uint64(a)  # unsigned rows: no negative-index wraparound
    task = ai[ua, S.AI_TASK]
    jt = False
    if task < 0:
        j = -1 - task
        r0 = jsf[np.uint64(j), S.JSF_AM]
        r1 = jsf[np.uint64(j), S.JSF_AM + 1]
    else:
        ut = np.uint64(task)
        j = ts[ut, S.TS_JOB]
        s = np.uint64(ts[ut, S.TS_STAGE])
        jt = W[12][s, S.SS_JT] != 0
        if jt:  # a JobTracker task holds one slot of the pool it was given
            r1 = float(W[14][s, S.SI_SLOT])
            r0 = 1.0 - r1
        else:
            r0 = tsf[ut, S.TSF_REQ]
            r1 = tsf[ut, S.TSF_REQ + 1]
    uj = np.uint64(j)
    leaf = js[uj, S.JS_QUEUE]
    ai[ua, S.AI_STATE] = S.KILLED if state == S.AM_KILLED else state
    af[ua, S.AF_FINISH] = t
    ai[ua, S.AI_PREEMPTED] = 1 if state == S.KILLED else 0
    li, lf = W[51], W[52]
    live = ai[ua, S.AI_LIVE]
    _remove_via(li, ai, S.AI_LIVE, S.LI_RUN_NEXT, S.LI_RUN_PREV, gi, S.GI_RUN_HEAD, a)
    if lf[live, S.LF_MARK] < 0.0 and task >= 0 and not jt:
        _free_remove(W, a, j)
    if lf[live, S.LF_MARK] >= 0.0:
        jf[uj, S.JF_TBP] -= r0
        jf[uj, S.JF_TBP + 1] -= r1
        _up(W, S.QF_TBP, leaf, -r0, -r1)
    gf[S.G_FREE] += r0
    gf[S.G_FREE + 1] += r1
    gi[S.GI_CHANGED] = 1
    node = li[live, S.LI_NODE]
    _give_live_row(W, a)
    if node >= 0:
        W[40][node, S.NF_FREE] += r0
        W[40][node, S.NF_FREE + 1] += r1
        _park_again(W, node)
        _touch_node(W, node)
    _touch(W, j)
    if jt:
        return j, r0, r1
    jf[uj, S.JF_USE] -= r0
    jf[uj, S.JF_USE + 1] -= r1
    _held_changed(W, j)
    _up(W, S.QF_USE, leaf, -r0, -r1)
    if task < 0:
        qf[leaf, S.QF_AM] -= r0
        qf[leaf, S.QF_AM + 1] -= r1
    return j, r0, r1


@kernel_jit
def _end_attempt(W, a, state):
    """A task attempt ends: re-queue its task, or count it done and move the job on."""
    js, ji, ss, si, sdone = W[6], W[9], W[12], W[14], W[15]
    ti, ai, gf, li = W[18], W[20], W[23], W[51]
    t = gf[S.G_NOW]
    task = ai[np.uint64(a), S.AI_TASK]
    s = W[16][np.uint64(task), S.TS_STAGE]
    us = np.uint64(s)  # unsigned rows: no negative-index wraparound
    # what the release gives back with the live row: its node, and a reduce waiting for
    # the maps (killed or failed) leaves the stage's list of them first
    live = ai[a, S.AI_LIVE]
    node = li[live, S.LI_NODE]
    unlisted = False
    if state != S.SUCCEEDED and ss[s, S.SS_SLOW] == 1:
        if li[live, S.LI_DEF_PREV] >= 0 or si[s, S.SI_DEF_HEAD] == a:
            _remove_via(li, ai, S.AI_LIVE, S.LI_DEF_NEXT, S.LI_DEF_PREV, si[s], S.SI_DEF_HEAD, a)
            unlisted = True
    j, r0, r1 = _release_container(W, a, state)
    _ramp_wake(W, j)
    if state != S.SUCCEEDED:
        if state == S.FAILED:
            ti[task, S.TI_FAILS] += 1
            ti[task, S.TI_FAILED_ON] = node
        if unlisted and si[s, S.SI_DEF_HEAD] < 0 and ji[j, S.JI_IN_RED] == 1:
            _red_unlink(W, j)
        due = _reask_call(W, j, state)
        if due > t:  # unassigned (neither running nor asked for) until then
            heap_push(W[21], W[22], W[24], due, S.REASK, ji[j, S.JI_AM_ATT], task, j)
        else:
            _reask(W, j, s, task, r0, r1)
        _red_refresh(W, j)
        return
    si[us, S.SI_DONE] += 1
    if ss[us, S.SS_JT] != 0:
        _jt_refresh(W, j)  # its next task, if it has more than one, may go now
    size = ss[us, S.SS_HI] - ss[us, S.SS_LO]
    last = s + 1 == js[np.uint64(j), S.JS_ST_HI]
    if si[us, S.SI_DONE] == size:
        sdone[s] = t
        ji[j, S.JI_STAGES_DONE] += 1
        if not last:
            if si[s + 1, S.SI_RELEASED] == 0:
                _release_stage(W, j, s + 1)
            if ss[s + 1, S.SS_SLOW] == 1:
                w = si[s + 1, S.SI_DEF_HEAD]
                while w >= 0:
                    wt = ai[w, S.AI_TASK]
                    _push_end(W, w, _replay_finish(W, w, wt, t), wt, j)
                    nw = li[ai[w, S.AI_LIVE], S.LI_DEF_NEXT]
                    li[ai[w, S.AI_LIVE], S.LI_DEF_NEXT] = -1
                    li[ai[w, S.AI_LIVE], S.LI_DEF_PREV] = -1
                    w = nw
                si[s + 1, S.SI_DEF_HEAD] = -1
                si[s + 1, S.SI_DEF_TAIL] = -1
                if ji[j, S.JI_IN_RED] == 1:
                    _red_unlink(W, j)
        if ji[j, S.JI_STAGES_DONE] == js[j, S.JS_ST_HI] - js[j, S.JS_ST_LO]:
            _finish_job(W, j)
    elif not last:
        _maybe_slowstart(W, j, s)
    _red_refresh(W, j)


@kernel_jit
def _reask(W, j, s, task, r0, r1):
    """Task `task` of job `j`'s stage `s`, its attempt killed or failed, is unassigned
    again, asking for (`r0`, `r1`) (`allocate_cycle._reask_call`: when)."""
    ji, ss, si = W[9], W[12], W[14]
    _ramp_wake(W, j)
    if ss[s, S.SS_LOC] == 0 or _give_back(W, s, task):
        _requeue(W, s, task)
    if ss[s, S.SS_LOC] != 0:
        _loc_requeued(W, s, task)
    si[s, S.SI_PENDING] += 1
    if si[s, S.SI_PENDING] == 1 and si[s, S.SI_RELEASED] == 1:
        _map_asked(W, j, s)
    if ss[s, S.SS_JT] != 0:
        _jt_refresh(W, j)
    elif si[s, S.SI_HELD] == 0 and si[s, S.SI_ASKED] < 0:  # ramped: pending, not asked
        _add_pending(W, j, r0, r1)
    if W[25][S.C_TC] > 0.0 and ss[s, S.SS_JT] == 0 and ji[j, S.JI_STATE] == 2:
        ji[j, S.JI_TC + ss[s, S.SS_DIM]] += 1  # its task-cleanup attempt (`jobtracker.py`)
        _jt_refresh(W, j)


@kernel_jit
def _reask_task(W, j, task):
    """`_reask` of job `j`'s `task`, asking for its own request."""
    tsf = W[17]
    _reask(W, j, W[16][task, S.TS_STAGE], task, tsf[task, S.TSF_REQ], tsf[task, S.TSF_REQ + 1])


@kernel_jit
def _reask_event(W, a, task):
    """The `REASK` event of AM attempt `a` for `task` (nothing, if the attempt has failed
    since: `_am_preempted` asked for the task then)."""
    j = W[16][task, S.TS_JOB]
    if W[9][j, S.JI_AM_ATT] == a and W[9][j, S.JI_AM_STATE] == 3:
        _reask_task(W, j, task)
        _red_refresh(W, j)


@kernel_jit
def _finish_job(W, j):
    js, jf, ji, urun, gf = W[6], W[8], W[9], W[11], W[23]
    jf[j, S.JF_FINISH] = gf[S.G_NOW]
    if ji[j, S.JI_AM_STATE] >= 2:
        _release_container(W, ji[j, S.JI_AM_ATT], S.SUCCEEDED)
    leaf = js[j, S.JS_QUEUE]
    W[4][leaf, S.QI_LIVE] -= 1
    _up(W, S.QF_PALL, leaf, -jf[j, S.JF_PEND], -jf[j, S.JF_PEND + 1])
    if ji[j, S.JI_STATE] == 2:
        _up(W, S.QF_PRUN, leaf, -jf[j, S.JF_PEND], -jf[j, S.JF_PEND + 1])
        urun[js[j, S.JS_USER]] -= 1
        _count_runnable(W, leaf, -1)
        _unlink_app(W, j)
        _free_slot(W, j)
        if ji[j, S.JI_MSTARV_POS] >= 0:
            _unlist_min_starvation(W, j)  # a finished app's amount is never read again
    ji[j, S.JI_STATE] = 3
    _ramp_list(W, j, False)
    ji[j, S.JI_TC] = 0  # task-cleanup attempts are handed out only while the job runs
    ji[j, S.JI_TC + 1] = 0
    if ji[j, S.JI_IN_JT] == 1:
        _jt_refresh(W, j)
    _touch(W, j)
    _promote_waiting(W)


@kernel_jit
def _red_link(W, j):
    ji, gi = W[9], W[24]
    _append(ji, S.JI_RED_NEXT, S.JI_RED_PREV, gi, S.GI_RED_HEAD, j)
    ji[j, S.JI_IN_RED] = 1
    ji[j, S.JI_RED_SEQ] = gi[S.GI_RED_SEQ]
    gi[S.GI_RED_SEQ] += 1
    _red_refresh(W, j)


@kernel_jit
def _red_unlink(W, j):
    ji, gi = W[9], W[24]
    _remove(ji, S.JI_RED_NEXT, S.JI_RED_PREV, gi, S.GI_RED_HEAD, j)
    ji[j, S.JI_IN_RED] = 0
    _red_refresh(W, j)


@kernel_jit
def _waiting_reduce_stage(W, j):
    """The stage of job `j` whose reduces wait for maps (-1 if none follows a map stage)."""
    js, ji, si = W[6], W[9], W[14]
    if ji[j, S.JI_IN_RED] == 0:
        return -1
    s = js[j, S.JS_ST_LO]
    while s < js[j, S.JS_ST_HI] and si[s, S.SI_DEF_HEAD] < 0:
        s += 1
    if s == js[j, S.JS_ST_LO] or s == js[j, S.JS_ST_HI]:
        return -1
    return s


@kernel_jit
def _red_blocked(W, j):
    """Job `j` has reduces waiting for maps, unassigned maps and no running map."""
    ss, si = W[12], W[14]
    s = _waiting_reduce_stage(W, j)
    if s < 0:
        return False
    m = s - 1
    running_maps = (ss[m, S.SS_HI] - ss[m, S.SS_LO]) - si[m, S.SI_PENDING] - si[m, S.SI_DONE]
    return si[m, S.SI_PENDING] > 0 and running_maps == 0


@kernel_jit
def _red_refresh(W, j):
    """Keep job `j`'s membership of the blocked-jobs list (see `_preempt_reduces`) true,
    awake (`blocked_lists.py`)."""
    if W[9][j, S.JI_IN_RCS] == 1:
        _rc_unsleep(W, j)
    blocked = _red_blocked(W, j)
    _keep_listed(W[9], S.JI_RC_NEXT, S.JI_RC_PREV, W[24], S.GI_RC_HEAD, S.JI_IN_RC, j, blocked)


@kernel_jit
def _hold(W, j, s, hold):
    """Withdraw (or re-issue) the requests of a reduce stage's unassigned tasks: those
    asked for (all, or as many as the AM ramped up), moved back to its pending reduces
    (clearAllPendingReduceRequests); re-issued, all of them (scheduleAllReduces)."""
    si = W[14]
    if hold:  # the walk must see it withheld: an asleep job's calls stop moving now
        _ramp_wake(W, j)
    si[s, S.SI_HELD] = 1 if hold else 0
    k = si[s, S.SI_ASKED]
    if hold:
        t0, t1 = _window_req(W, s, 0, k if k >= 0 else ALL)
        _add_pending(W, j, -t0, -t1)
        if k > 0:
            si[s, S.SI_ASKED] = 0
    else:
        t0, t1 = _unassigned_req(W, s)
        _add_pending(W, j, t0, t1)
        si[s, S.SI_ASKED] = -1
        _ramp_refresh(W, j)


@kernel_jit
def _preempt_reduces(W):
    """MapReduce AM's preemptReducesIfNeeded: a job with unassigned maps, no running map
    and reduces waiting for maps whose maps hang (`_hanging`), or whose next map does
    not fit its headroom (`_headroom_acts`: less its asked reduces in Hadoop 3, once its
    maps have waited mapreduce.job.reducer.preempt.delay.sec), withholds its reduce
    requests until every map is assigned and kills some of its waiting reduces
    (`_preempt_reducer`).

    Only blocked jobs (`_red_blocked`) can act, and a job with an allocate cycle only at
    its AM's calls (`_at_am_call`); they are visited in the order they joined
    the list of jobs with waiting reduces, as a scan of that whole list would, but for
    those asleep, which would not act (`blocked_lists.py`). Hadoop 1
    has no such AM: on its slot pools, where maps and reduces never take each other's
    room, its JobTracker never kills or holds back reduces for maps. (Hadoop 1 on one
    pool of memory, which no Hadoop 1 cluster is, keeps the rule: without it reduces
    waiting for maps could hold the whole pool forever.)"""
    js, ji, si, tsf, gi, jbuf = W[6], W[9], W[14], W[17], W[24], W[30]
    if W[25][S.C_VERSION] == 1.0 and W[25][S.C_SLOT] != 0.0:
        return False
    # the Fair Scheduler's AM rules on Hadoop 2/3, whose headroom is its leaf's alone
    sleepy = W[25][S.C_CS] == 0.0 and W[25][S.C_VERSION] != 1.0
    if sleepy and _rc_asleep(W):
        _rc_wake_leaves(W, W[23][S.G_NOW])
    killed = False
    order = jbuf[:, 0]
    n = 0
    j = gi[S.GI_RC_HEAD]
    while j >= 0:
        # insertion by join order (the list is short: jobs blocked right now)
        k = n
        while k > 0 and ji[order[k - 1], S.JI_RED_SEQ] > ji[j, S.JI_RED_SEQ]:
            order[k] = order[k - 1]
            k -= 1
        order[k] = j
        n += 1
        j = ji[j, S.JI_RC_NEXT]
    for i in range(n):
        j = order[i]
        if not _red_blocked(W, j):
            _red_refresh(W, j)  # woken (`_rc_wake`) by a change that unblocked it
        elif _at_am_call(W, j):
            s = _waiting_reduce_stage(W, j)
            task = _head_task(W, s - 1)
            now = W[23][S.G_NOW]
            if _hanging(W, j, now):
                _preempt_reducer(W, j, s, task)
                killed = True
            elif W[25][S.C_VERSION] != 1.0:
                if _headroom_acts(W, j, s, task, now):
                    _preempt_reducer(W, j, s, task)
                    killed = True
                elif sleepy and not _cycles(W, j):
                    _rc_doze(W, j, s, task, now)
            else:  # no AM: room for its next map, no more
                leaf = js[j, S.JS_QUEUE]
                r0, r1 = tsf[task, S.TSF_REQ], tsf[task, S.TSF_REQ + 1]
                if _am_room(W, j, leaf, r0, r1):
                    continue
                if si[s, S.SI_HELD] == 0:
                    _hold(W, j, s, True)
                while si[s, S.SI_DEF_HEAD] >= 0 and not _am_room(W, j, leaf, r0, r1):
                    _end_attempt(W, si[s, S.SI_DEF_TAIL], S.AM_KILLED)
                    killed = True
    return killed


@kernel_jit
def _rc_doze(W, j, s, task, now):
    """Blocked job `j` (no allocate cycle), whose reduces of stage `s` a visit at `now`
    found would not be preempted, falls asleep (`blocked_lists.py`) until its timed rules
    may act: its last preemption rested, its map requests waited for either rule; and,
    while only the headroom rule can act, needing room for what `_headroom_short` asks."""
    jf = W[8]
    wake = np.inf
    rested = _reducer_rested(W, j, now)
    if not rested:
        wake = jf[j, S.JF_HANG_NEXT]
    n0, n1 = -np.inf, -np.inf
    delay = W[25][S.C_PDELAY]
    due = _hang_due(W, j, jf[j, S.JF_MAP_ASK], delay) if delay > 0.0 else -np.inf
    if now < due:
        wake = min(wake, due)
    elif rested:
        n0, n1 = _headroom_need(W, s, task)
    if W[25][S.C_HANG] >= 0.0:
        due = _hang_due(W, j, jf[j, S.JF_MAP_ASK], W[25][S.C_HANG])
        if now < due:
            wake = min(wake, due)
    _rc_sleep(W, j, n0, n1, wake)


@kernel_jit
def _rc_wake_leaves(W, now):
    """Wake the asleep blocked jobs that may act at `now`: in each leaf whose headroom has
    no room for its largest request or whose earliest time has come, those whose own
    request or time does; the leaf's bounds are then those of the jobs left asleep."""
    qf, qi, jf, ji = W[3], W[4], W[8], W[9]
    leaf = W[24][S.GI_RCL_HEAD]
    while leaf >= 0:
        after = qi[leaf, S.QI_RCL_NEXT]
        if now >= qf[leaf, S.QF_RCS_WAKE] or not _am_room(
            W, -1, leaf, qf[leaf, S.QF_RCS_NEED], qf[leaf, S.QF_RCS_NEED + 1]
        ):
            _rc_unbound(W, leaf)
            j = qi[leaf, S.QI_RCS_HEAD]
            while j >= 0:
                nxt = ji[j, S.JI_RCS_NEXT]
                n0, n1 = jf[j, S.JF_RCS_NEED], jf[j, S.JF_RCS_NEED + 1]
                if now >= jf[j, S.JF_RCS_WAKE] or not _am_room(W, j, leaf, n0, n1):
                    _rc_wake(W, j)
                else:
                    _rc_bound(W, leaf, j)
                j = nxt
        leaf = after


@kernel_jit
def _at_am_call(W, j):
    """Whether blocked job `j`'s AM may preempt its reduces now: it runs
    preemptReducesIfNeeded in its heartbeat, so with an allocate cycle only at its calls;
    at another time a `HANG` event at its next call (one per call) brings it there."""
    if not _cycles(W, j):
        return True
    now = W[23][S.G_NOW]
    call = _am_call(W, j, now, True)
    if call == now:
        return True
    jf = W[8]
    if jf[j, S.JF_RD_CALL] != call:
        jf[j, S.JF_RD_CALL] = call
        heap_push(W[21], W[22], W[24], call, S.HANG, j, -1, j)
    return False


@kernel_jit
def _hang_due(W, j, ask, delay):
    """When map requests job `j`'s AM made at `ask` have waited `delay` (getNumHangingRequests:
    longer than the delay; with 0, every request): the AM's first heartbeat after ``ask +
    delay``. The unconditional rule's delay is
    ``mapreduce.job.reducer.unconditional-preempt.delay.sec``, the headroom rule's
    ``mapreduce.job.reducer.preempt.delay.sec``."""
    t = ask + delay
    if _cycles(W, j):
        t = _am_call(W, j, t, delay == 0.0)
    return t


@kernel_jit
def _timed(W):
    """Whether either rule of the AM's reduce preemption times its map requests."""
    return W[25][S.C_HANG] >= 0.0 or W[25][S.C_PDELAY] > 0.0


@kernel_jit
def _map_asked(W, j, s):
    """Map stage `s` of job `j` (one its reduces wait for) went from no unassigned task to
    some: its requests are made now (ContainerRequest.requestTimeMs), and a `HANG` event
    comes when they will have waited long enough for each timed rule."""
    if not _timed(W) or s + 1 >= W[6][j, S.JS_ST_HI] or W[12][s + 1, S.SS_SLOW] != 1:
        return
    now = W[23][S.G_NOW]
    W[8][j, S.JF_MAP_ASK] = now
    _rc_wake(W, j)
    if W[25][S.C_HANG] >= 0.0:
        heap_push(W[21], W[22], W[24], _hang_due(W, j, now, W[25][S.C_HANG]), S.HANG, j, -1, j)
    if W[25][S.C_PDELAY] > 0.0:
        heap_push(W[21], W[22], W[24], _hang_due(W, j, now, W[25][S.C_PDELAY]), S.HANG, j, -1, j)


@kernel_jit
def _hanging(W, j, now):
    """Whether blocked job `j`'s AM preempts reduces unconditionally at `now`: its map
    requests have hung (`_hang_due`), and its last such preemption was at an earlier
    heartbeat."""
    delay = W[25][S.C_HANG]
    if delay < 0.0 or now < _hang_due(W, j, W[8][j, S.JF_MAP_ASK], delay):
        return False
    return _reducer_rested(W, j, now)


@kernel_jit
def _headroom_acts(W, j, s, task, now):
    """Whether blocked job `j`'s AM preempts reduces of stage `s` at `now` by the headroom
    rule: its next map `task` does not fit its headroom (`_headroom_short`), its map
    requests have waited mapreduce.job.reducer.preempt.delay.sec, and its last such
    preemption was at an earlier heartbeat."""
    delay = W[25][S.C_PDELAY]
    if delay > 0.0 and now < _hang_due(W, j, W[8][j, S.JF_MAP_ASK], delay):
        return False
    return _reducer_rested(W, j, now) and _headroom_short(W, j, s, task)


@kernel_jit
def _headroom_short(W, j, s, task):
    """Whether job `j`'s headroom has no room for its next map `task`. Hadoop 3 (and 2.8+,
    MAPREDUCE-6689) first takes off the reduces of stage `s` it asked for and that are
    not yet assigned (scheduledRequests.reduces); Hadoop 2.7 compares the headroom itself."""
    r0, r1 = _headroom_need(W, s, task)
    return not _am_room(W, j, W[6][j, S.JS_QUEUE], r0, r1)


@kernel_jit
def _headroom_need(W, s, task):
    """The request `_headroom_short` looks for room for: map `task`'s, and on Hadoop 3
    the asked reduces of stage `s` not yet assigned."""
    r0, r1 = W[17][task, S.TSF_REQ], W[17][task, S.TSF_REQ + 1]
    si = W[14]
    if W[25][S.C_VERSION] == 3.0 and si[s, S.SI_HELD] == 0:
        k = si[s, S.SI_ASKED]
        x0, x1 = _window_req(W, s, 0, k if k >= 0 else ALL)
        r0 += x0
        r1 += x1
    return r0, r1


@kernel_jit
def _reducer_rested(W, j, now):
    """Whether job `j`'s AM's last preemptReducer (`_preempt_reducer`) was at an earlier
    heartbeat than `now`: preemptReducesIfNeeded acts once a heartbeat (JF_HANG_NEXT is
    the AM's next one; with no AM heartbeat interval, once an event time)."""
    nxt = W[8][j, S.JF_HANG_NEXT]
    return now > nxt or (now == nxt and W[25][S.C_AM_HB] > 0.0)


@kernel_jit
def _headroom_acts_at(W, j, now):
    """`_headroom_acts` for blocked job `j`, its waiting reduce stage and next map; on
    Hadoop 1, whether its next map finds no room (`_preempt_reduces`: on one pool of
    memory; never on slots)."""
    s = _waiting_reduce_stage(W, j)
    task = _head_task(W, s - 1)
    if W[25][S.C_VERSION] == 1.0:
        if W[25][S.C_SLOT] != 0.0:
            return False
        r0, r1 = W[17][task, S.TSF_REQ], W[17][task, S.TSF_REQ + 1]
        return not _am_room(W, j, W[6][j, S.JS_QUEUE], r0, r1)
    return _headroom_acts(W, j, s, task, now)


@kernel_jit
def _drop_idle_hangs(W):
    """Pop the `HANG` events at the heap's top whose job would not preempt at their time
    (not blocked, or its requests made again since): an iteration made for nothing is not
    neutral (it schedules preemption checks, counts scheduling opportunities), so only a
    HANG that acts makes one. A job that becomes blocked later acts then, at the event
    that blocks it."""
    hk, hi, gi = W[21], W[22], W[24]
    while gi[S.GI_HEAP_N] > 0 and hi[0, S.HI_KIND] == S.HANG:
        j = hi[0, S.HI_IDENT]
        t: float = float_from_ordered(hk[0, S.HK_KEY])
        if _red_blocked(W, j) and (_hanging(W, j, t) or _headroom_acts_at(W, j, t)):
            return
        heap_pop(hk, hi, gi)


@kernel_jit
def _ceil_containers(a0, a1, r0, r1):
    """ResourceCalculatorUtils.divideAndCeilContainers with memory and vcores (the Fair
    Scheduler's scheduling resource types): the most of ceil(a / r) over both."""
    n = math.ceil(a0 / r0) if r0 > 0.0 else 0.0
    if r1 > 0.0:
        n = max(n, math.ceil(a1 / r1))
    return n


@kernel_jit
def _preempt_reducer(W, j, s, task):
    """RMContainerAllocator.preemptReducer for job `j` (next map `task`), by either rule
    (its maps hang, or no map fits its headroom: with
    mapreduce.job.reducer.preempt.delay.sec at 0, every unassigned map counts as hanging
    then): withhold its reduce requests (clearAllPendingReduceRequests), and kill
    min(max(reduces for one map, reduces for mapreduce.job.reduce.preemption.limit (0.5)
    of the AM's resource limit), reduces for every hanging map) of its newest waiting
    reduces. The resource limit is the headroom (`_am_headroom`) plus the job's task
    containers; every unassigned map counts as hanging (they are asked for together).
    The counts are over the RM's scheduling resource types: memory and vcores under the
    Fair Scheduler, memory only under the Capacity Scheduler's DefaultResourceCalculator
    (CapacityScheduler.getSchedulingResourceTypes), whose vcores here are unlimited."""
    si, jf, tsf, ai = W[14], W[8], W[17], W[20]
    if si[s, S.SI_HELD] == 0:
        _hold(W, j, s, True)
    red = ai[si[s, S.SI_DEF_TAIL], S.AI_TASK]
    r0, r1 = tsf[red, S.TSF_REQ], tsf[red, S.TSF_REQ + 1]
    if W[25][S.C_CS] != 0.0:
        r1 = 0.0  # memory only: `_ceil_containers` skips a type asked for as 0
    m0, m1 = tsf[task, S.TSF_REQ], tsf[task, S.TSF_REQ + 1]
    h0, h1 = _am_headroom(W, j)
    if W[9][j, S.JI_AM_STATE] >= 2:  # the AM's own container is not the allocator's
        h0 -= W[7][j, S.JSF_AM]
        h1 -= W[7][j, S.JSF_AM + 1]
    one = _ceil_containers(m0, m1, r0, r1)
    limit = _ceil_containers(
        math.floor((h0 + jf[j, S.JF_USE]) * 0.5),
        math.floor((h1 + jf[j, S.JF_USE + 1]) * 0.5),
        r0,
        r1,
    )
    hung = si[s - 1, S.SI_PENDING]
    n = min(max(one, limit), _ceil_containers(m0 * hung, m1 * hung, r0, r1))
    while n > 0 and si[s, S.SI_DEF_HEAD] >= 0:
        _end_attempt(W, si[s, S.SI_DEF_TAIL], S.AM_KILLED)
        n -= 1
    now = W[23][S.G_NOW]
    # the AM preempts again at its next heartbeat if its maps still hang: its next
    # allocate call, or an interval on for a job without a recorded AM (not at the next
    # event time, which a heartbeat that assigns nothing would make)
    nxt = now + W[25][S.C_AM_HB]
    if _cycles(W, j):
        nxt = _am_call(W, j, now, False)
    jf[j, S.JF_HANG_NEXT] = nxt
    if nxt > now:
        heap_push(W[21], W[22], W[24], nxt, S.HANG, j, -1, j)


@kernel_jit
def _headroom_top(W, leaf):
    """The queue above those whose maximum bounds the headroom of an AM in `leaf` (-1:
    the root's too). The Fair Scheduler's (FSAppAttempt.getHeadroom) takes its leaf's
    maxResources alone, its parents' never (its scheduler still keeps every one:
    `_fits`). The Capacity Scheduler's leaf limit is min(its parent's limit - the
    parent's usage + its own, its maximum) up to the root (ParentQueue
    .getResourceLimitsOfChild), so every ancestor's; Hadoop 1 has no headroom, and its
    rule on one pool of memory (`_am_room`) keeps the scheduler's check."""
    if W[25][S.C_CS] == 0.0 and W[25][S.C_VERSION] != 1.0:
        return W[0][leaf, S.QS_PARENT]
    return -1


@kernel_jit
def _am_headroom(W, j):
    """The headroom (memory, vcores) the RM reports to job `j`'s AM as the predictor
    models it (`_am_room`): free in the cluster (reserved resources are free: the root
    queue's allocated resources leave them out) and under the maxima of its queues
    (`_headroom_top`: the leaf's alone in the Fair Scheduler), and in the Capacity
    Scheduler mode under its user's limit, in the Fair Scheduler's under its leaf's fair
    share minus its usage (`_fair_cap`)."""
    leaf = W[6][j, S.JS_QUEUE]
    h0, h1 = _leaf_headroom(W, leaf)
    if W[25][S.C_CS] != 0.0:
        h0 = min(h0, _cs_user_room(W, j, leaf))
    return max(h0, 0.0), max(h1, 0.0)


@kernel_jit
def _leaf_headroom(W, leaf):
    """`_am_headroom` before the Capacity Scheduler's user limit and the floor at 0: the
    same for every app of `leaf`."""
    qs, qsf, qf, gf = W[0], W[1], W[3], W[23]
    h0, h1 = gf[S.G_FREE], gf[S.G_FREE + 1]
    top = _headroom_top(W, leaf)
    q = leaf
    while q != top:
        h0 = min(h0, qsf[q, S.QSF_MAX] - qf[q, S.QF_USE])
        h1 = min(h1, qsf[q, S.QSF_MAX + 1] - qf[q, S.QF_USE + 1])
        q = qs[q, S.QS_PARENT]
    if W[25][S.C_CS] == 0.0 and W[25][S.C_VERSION] != 1.0:
        h0, h1 = _fair_cap(W, leaf, h0, h1)
    return h0, h1


@kernel_jit
def _fair_cap(W, leaf, h0, h1):
    """The leaf's policy cap on the Fair Scheduler's headroom (FSAppAttempt.getHeadroom):
    its instantaneous fair share minus its usage, at least 0: memory under fair and fifo
    (FairSharePolicy / FifoPolicy.getHeadroom), each resource under drf."""
    qf = W[3]
    h0 = min(h0, max(qf[leaf, S.QF_FAIR] - qf[leaf, S.QF_USE], 0.0))
    if W[0][leaf, S.QS_POLICY] == 2:
        h1 = min(h1, max(qf[leaf, S.QF_FAIR + 1] - qf[leaf, S.QF_USE + 1], 0.0))
    return h0, h1


@kernel_jit
def _am_room(W, j, leaf, r0, r1):
    """Whether app `j`'s AM sees room for a request in the headroom the RM reports: free
    in the cluster and under its queues' maxima (`_headroom_top`: the leaf's alone in
    the Fair Scheduler), and in the Capacity Scheduler mode also under its user's limit
    (LeafQueue.getHeadroom), or reduces that hold the user limit would wait for maps
    that never start; in the Fair Scheduler's (Hadoop 2/3) also under its leaf's fair
    share minus its usage (`_fair_cap`)."""
    if not _fits_to(W, leaf, _headroom_top(W, leaf), r0, r1):
        return False
    if W[25][S.C_CS] != 0.0:
        return r0 <= _cs_user_room(W, j, leaf)
    if W[25][S.C_VERSION] == 1.0:  # no AM, no headroom: the rule on one pool of memory
        return True
    h0, h1 = _fair_cap(W, leaf, r0, r1)
    return h0 == r0 and h1 == r1


@kernel_jit
def _unassigned_req(W, s):
    """The summed requests (memory, vcores) of stage `s`'s unassigned tasks."""
    return _window_req(W, s, 0, ALL)


@kernel_jit
def _window_req(W, s, k0, k1):
    """The summed requests (memory, vcores) of stage `s`'s unassigned tasks at places
    [k0, k1) in the order they are taken (`_head_task`): its re-queued ones that go first,
    its fresh ones (of a located stage, those not taken out of order), then its other
    re-queued ones."""
    ss, si, tsf, tfl = W[12], W[14], W[17], W[47]
    loc = ss[s, S.SS_LOC] != 0
    task, k, t0, t1 = _listed_req(
        W, si[s, S.SI_RETRY_HEAD], si[s, S.SI_FRONT_N], k0, k1, 0, 0.0, 0.0
    )
    for fresh in range(si[s, S.SI_NEXT], ss[s, S.SS_HI]):
        if loc and (tfl[fresh] & S.TF_TAKEN) != 0:
            continue
        if k >= k1:
            return t0, t1
        if k >= k0:
            t0 += tsf[fresh, S.TSF_REQ]
            t1 += tsf[fresh, S.TSF_REQ + 1]
        k += 1
    _, k, t0, t1 = _listed_req(W, task, ss[s, S.SS_HI] - ss[s, S.SS_LO], k0, k1, k, t0, t1)
    return t0, t1


@kernel_jit
def _listed_req(W, task, n, k0, k1, k, t0, t1):
    """`_window_req` over at most `n` tasks of a retry list from `task`, the first at place
    `k`, added to (t0, t1): the next task, place and sums."""
    tsf, ti = W[17], W[18]
    for _ in range(n):
        if task < 0 or k >= k1:
            break
        if k >= k0:
            t0 += tsf[task, S.TSF_REQ]
            t1 += tsf[task, S.TSF_REQ + 1]
        k += 1
        task = ti[task, S.TI_RETRY_NEXT]
    return task, k, t0, t1


@kernel_jit
def _sort_retry(W, s):
    """Put stage `s`'s re-queued tasks in task order, before its fresh ones: a new
    MapReduce AM asks for every task it did not recover as new, in task order (JobImpl's
    task sets are LinkedHashSets that `scheduleTasks` walks), and a re-queued task was
    assigned before, so it comes before every fresh one (of a located stage, whose fresh
    tasks may be taken out of order, only nearly: an untaken fresh task below a re-queued
    one goes after it)."""
    si, ti = W[14], W[18]
    n = 0
    task = si[s, S.SI_RETRY_HEAD]
    while task >= 0:
        n += 1
        task = ti[task, S.TI_RETRY_NEXT]
    si[s, S.SI_FRONT_N] = n
    if n < 2:
        return
    tasks = np.empty(n, dtype=np.int64)
    task = si[s, S.SI_RETRY_HEAD]
    for i in range(n):
        tasks[i] = task
        task = ti[task, S.TI_RETRY_NEXT]
    tasks.sort()
    for i in range(n - 1):
        ti[tasks[i], S.TI_RETRY_NEXT] = tasks[i + 1]
    ti[tasks[n - 1], S.TI_RETRY_NEXT] = -1
    si[s, S.SI_RETRY_HEAD] = tasks[0]
    si[s, S.SI_RETRY_TAIL] = tasks[n - 1]


@kernel_jit
def _am_preempted(W, a):
    """The preemption monitor kills AM container `a`: its application attempt fails
    (``RMAppAttemptImpl``, exit status PREEMPTED, which does not count toward the
    maximum attempts) and the scheduler kills the attempt's other containers
    (``CapacityScheduler.doneApplicationAttempt``; killed, not preempted) and drops its
    requests. The app keeps its place in its leaf and asks at once for the next
    attempt's AM container. When that AM is ready (`_am_ready`), the MapReduce AM
    recovers the completed tasks from the job history (``MRAppMaster.processRecovery``,
    ``yarn.app.mapreduce.am.job.recovery.enable``): stages completed stay completed, and
    each other stage's tasks not completed are asked for again, in task order, when the
    new AM releases the stage (its first stage not completed, then as usual)."""
    li = W[51]
    js, jsf, jf, ji, ss, si, ai, gi = W[6], W[7], W[8], W[9], W[12], W[14], W[20], W[24]
    j = -1 - ai[a, S.AI_TASK]
    _release_container(W, a, S.KILLED)
    _flush_reasks(W, j, a)
    b = gi[S.GI_RUN_HEAD]
    while b >= 0:
        nxt = li[ai[b, S.AI_LIVE], S.LI_RUN_NEXT]
        task = ai[b, S.AI_TASK]
        if task >= 0 and W[16][task, S.TS_JOB] == j:
            _end_attempt(W, b, S.AM_KILLED)
        b = nxt
    for s in range(js[j, S.JS_ST_LO], js[j, S.JS_ST_HI]):
        if si[s, S.SI_DONE] < ss[s, S.SS_HI] - ss[s, S.SS_LO]:
            si[s, S.SI_RELEASED] = 0
            si[s, S.SI_HELD] = 0
            si[s, S.SI_ASKED] = -1
            si[s, S.SI_CS_MISSED] = 0
            si[s, S.SI_FLOC_LEVEL] = -1  # a new attempt's keys start afresh (`fair_locality.py`)
            si[s, S.SI_FLOC_OPP] = 0
            _sort_retry(W, s)
    _ramp_refresh(W, j)
    ji[j, S.JI_ASKING] = 0
    _add_pending(W, j, -jf[j, S.JF_PEND], -jf[j, S.JF_PEND + 1])
    ji[j, S.JI_AM_STATE] = 1
    _add_pending(W, j, jsf[j, S.JSF_AM], jsf[j, S.JSF_AM + 1])


@kernel_jit
def _flush_reasks(W, j, a):
    """The tasks failed or killed under job `j`'s AM attempt `a` that it has not asked for
    again are unassigned now, in the order they ended: the next attempt asks for them."""
    hk, hi = W[21], W[22]
    n = W[24][S.GI_HEAP_N]
    mine = np.zeros(n, np.bool_)
    for e in range(n):
        mine[e] = hi[e, S.HI_KIND] == S.REASK and hi[e, S.HI_JOB] == j and hi[e, S.HI_IDENT] == a
    found = np.flatnonzero(mine)
    for e in found[np.argsort(hk[found, S.HK_SEQ])]:
        task = hi[e, S.HI_TASK]
        _reask_task(W, j, task)
    _red_refresh(W, j)


@kernel_jit
def _ramps(W, j, s):
    """Whether job `j`'s AM ramps up the reduces of stage `s` as it releases it: a reduce
    stage after maps not all assigned, on Hadoop 2/3 (RMContainerAllocator.scheduleReduces;
    once every map is assigned it asks for them all)."""
    return (
        W[25][S.C_VERSION] != 1.0
        and W[12][s, S.SS_SLOW] == 1
        and W[12][s, S.SS_JT] == 0
        and W[14][s - 1, S.SI_PENDING] > 0
    )


@kernel_jit
def _ramp_refresh(W, j):
    """Keep job `j`'s membership of the ramping-jobs list (`_ramp_reduces`) true."""
    _ramp_list(W, j, _ramp_stage(W, j) >= 0)


@kernel_jit
def _set_asked(W, j, s, k):
    """Job `j`'s AM asks for the first `k` (-1: all) unassigned reduces of stage `s`: those
    it ramps up or down move between its scheduled and pending reduces."""
    si = W[14]
    n = si[s, S.SI_PENDING]
    old = si[s, S.SI_ASKED]
    a = n if old < 0 else old
    b = n if k < 0 else k
    if b > a:
        t0, t1 = _window_req(W, s, a, b)
        _add_pending(W, j, t0, t1)
    elif b < a:
        t0, t1 = _window_req(W, s, b, a)
        _add_pending(W, j, -t0, -t1)
    si[s, S.SI_ASKED] = k
    if k < 0:
        _ramp_refresh(W, j)


@kernel_jit
def _maps_assigned(W, j, s):
    """A map of stage `s` was assigned: if it was the last one, the AM asks for all the
    reduces after it, withheld (`_hold`) or not yet ramped up (scheduleAllReduces)."""
    si = W[14]
    if si[s, S.SI_PENDING] != 0 or s + 1 >= W[6][j, S.JS_ST_HI]:
        return
    if si[s + 1, S.SI_HELD] == 1:
        _hold(W, j, s + 1, False)
    elif si[s + 1, S.SI_ASKED] >= 0 and si[s + 1, S.SI_RELEASED] == 1:
        _set_asked(W, j, s + 1, -1)


@kernel_jit
def _avail_containers(a0, a1, r0, r1):
    """ResourceCalculatorUtils.computeAvailableContainers over memory and vcores (the
    Fair Scheduler's scheduling resource types; a type asked for as 0 is skipped, as the
    Capacity Scheduler's vcores are): the fewest of a / r over both, each truncated."""
    n = math.trunc(a0 / r0) if r0 > 0.0 else ALL
    if r1 > 0.0:
        n = min(n, math.trunc(a1 / r1))
    return n


@kernel_jit
def _ramp_terms(W, s):
    """`_ramp_count`'s counts for reduce stage `s`: maps scheduled, maps asked for or
    running, reduces running, reduces asked for or running, and the reduces' ideal share
    of the limit (a Java float)."""
    ss, si = W[12], W[14]
    m = s - 1
    maps = ss[m, S.SS_HI] - ss[m, S.SS_LO]
    run_r = ss[s, S.SS_HI] - ss[s, S.SS_LO] - si[s, S.SI_PENDING] - si[s, S.SI_DONE]
    f = min(np.float32(si[m, S.SI_DONE]) / np.float32(maps), np.float32(W[25][S.C_RAMP]))
    return si[m, S.SI_PENDING], maps - si[m, S.SI_DONE], run_r, si[s, S.SI_ASKED] + run_r, f


@kernel_jit
def _ramp_mem_cap(W, s, h0):
    """An upper bound on `_ramp_count` at memory headroom `h0`, whatever the vcores and
    whichever share it takes: the reduces the larger of both memory shares leaves room
    for. It never falls as `h0` grows (each step of it is monotone)."""
    ss, tsf = W[12], W[17]
    sched_m, net_m, run_r, net_r, f = _ramp_terms(W, s)
    m0, r0 = tsf[ss[s - 1, S.SS_LO], S.TSF_REQ], tsf[ss[s, S.SS_LO], S.TSF_REQ]
    t0 = h0 + m0 * (net_m - sched_m) + r0 * run_r
    i0 = max(math.floor(t0 * np.float64(f)), t0 - m0 * net_m)
    return _avail_containers(i0 - r0 * net_r, 0.0, r0, 0.0)


@kernel_jit
def _ramp_mem_room(W, s):
    """A memory headroom up to which `_ramp_count` for stage `s` is 0 or less whatever the
    vcores (`_ramp_mem_cap`), just under the least that leaves room for one more reduce in
    either share; -inf if none is found (a reduce asking for no memory)."""
    ss, tsf = W[12], W[17]
    sched_m, net_m, run_r, net_r, f = _ramp_terms(W, s)
    m0, r0 = tsf[ss[s - 1, S.SS_LO], S.TSF_REQ], tsf[ss[s, S.SS_LO], S.TSF_REQ]
    room = r0 * (net_r + 1) + m0 * net_m
    if f > 0.0:
        room = min(room, r0 * (net_r + 1) / np.float64(f))
    h0 = room - (m0 * (net_m - sched_m) + r0 * run_r) - 1.0
    step = 1.0
    for _ in range(8):
        if _ramp_mem_cap(W, s, h0) <= 0:
            return h0
        h0 -= step
        step *= 4.0
    return -math.inf


@kernel_jit
def _ramp_count(W, j, s):
    """RMContainerAllocator.scheduleReduces (Hadoop 2.7+/3): how many reduces of stage `s`
    job `j`'s AM ramps up (> 0) or down (< 0). Its resource limit is the headroom
    (`_am_headroom`) plus its assigned maps and reduces; the reduces' ideal share of it is
    min(done maps / maps, mapreduce.job.reduce.rampup.limit) (Java floats, products
    truncated), plus what the maps leave unused when the rest holds every map asked for
    or running; less the reduces asked for or running, in reduce containers."""
    h0, h1 = _am_headroom(W, j)
    return _ramp_count_at(W, s, h0, h1)


@kernel_jit
def _ramp_count_at(W, s, h0, h1):
    """`_ramp_count` for reduce stage `s` at headroom (`h0`, `h1`): it never falls as
    either grows (each step of it is monotone)."""
    ss, tsf = W[12], W[17]
    m = s - 1
    sched_m, net_m, run_r, net_r, f = _ramp_terms(W, s)
    m0, m1 = tsf[ss[m, S.SS_LO], S.TSF_REQ], tsf[ss[m, S.SS_LO], S.TSF_REQ + 1]
    r0, r1 = tsf[ss[s, S.SS_LO], S.TSF_REQ], tsf[ss[s, S.SS_LO], S.TSF_REQ + 1]
    if W[25][S.C_CS] != 0.0:  # the DefaultResourceCalculator: memory only
        m1, r1, h1 = 0.0, 0.0, 0.0
    t0 = h0 + m0 * (net_m - sched_m) + r0 * run_r
    t1 = h1 + m1 * (net_m - sched_m) + r1 * run_r
    i0 = math.floor(t0 * np.float64(f))
    i1 = math.floor(t1 * np.float64(f))
    if _avail_containers(t0 - i0, t1 - i1, m0, m1) >= net_m:
        i0 = t0 - m0 * net_m
        i1 = t1 - m1 * net_m
    return _avail_containers(i0 - r0 * net_r, i1 - r1 * net_r, r0, r1)


@kernel_jit
def _ramp_job(W, j):
    """The MapReduce AM's scheduleReduces for job `j`: once every map is assigned it asks
    for all its reduces; before, it ramps them up or down by `_ramp_count` (none while
    withheld: `_hold`). With an allocate cycle it recalculates at its AM's calls: with
    heartbeats at each call that changes what it asks for (`_ramp_due`), in the instant
    model at the first event time at or after each; without a cycle at every event time.
    True if it asked for more."""
    return _ramp_job_at(W, j, _ramp_stage(W, j))


@kernel_jit
def _ramp_job_at(W, j, s):
    """`_ramp_job` for job `j`, whose ramped stage (`_ramp_stage`) is `s`."""
    si = W[14]
    if s < 0:
        return False
    if si[s, S.SI_HELD] == 1:
        _ramp_rest(W, j)  # withheld: nothing until re-issued, which takes it off the list
        return False
    if _cycles(W, j):
        W[8][j, S.JF_RAMP_NEXT] = _am_call(W, j, W[23][S.G_NOW], False)
    if si[s - 1, S.SI_PENDING] == 0:
        _set_asked(W, j, s, -1)
        return True
    asked = si[s, S.SI_ASKED]
    n = 0
    h0, h1 = 0.0, 0.0
    if si[s, S.SI_PENDING] != asked:  # else no pending reduce: it does not recalculate
        h0, h1 = _am_headroom(W, j)
        n = _ramp_count_at(W, s, h0, h1)
    if n > 0:
        _ramp_wake(W, j)
        _set_asked(W, j, s, asked + min(n, si[s, S.SI_PENDING] - asked))
        return True
    if n < 0:
        _set_asked(W, j, s, asked - min(-n, asked))
    # asleep it is passed over while its headroom keeps within bounds (`_ramp_mark`):
    # none needed with no reduce left to ask for, none below with none asked for; the
    # Capacity Scheduler's headroom is its user's, which its leaf's bounds do not hold
    if si[s, S.SI_ASKED] == 0 or si[s, S.SI_PENDING] == asked or (n == 0 and W[25][S.C_CS] == 0.0):
        if n < 0:  # its cancel changed its demand
            h0, h1 = _am_headroom(W, j)
        _ramp_mark(W, j, s, h0, h1)
        _ramp_sleep(W, j)
    return False


@kernel_jit
def _ramp_sig_same(W, j, s):
    """Whether job `j`'s maps and reduces of stage `s` are as at its last ramp-up that
    asked for nothing (`_ramp_mark`)."""
    si, ji = W[14], W[9]
    return (
        ji[j, S.JI_RAMP_SIG] == si[s - 1, S.SI_DONE]
        and ji[j, S.JI_RAMP_SIG + 1] == si[s - 1, S.SI_PENDING]
        and ji[j, S.JI_RAMP_SIG + 2] == si[s, S.SI_PENDING]
        and ji[j, S.JI_RAMP_SIG + 3] == si[s, S.SI_DONE]
    )


@kernel_jit
def _ramp_mark(W, j, s, h0, h1):
    """Job `j`'s ramp-up changed nothing (`_ramp_job_at`) at its headroom (`h0`, `h1`):
    keep its maps' and reduces' counts, the reduces it asked for, and the headrooms
    between which it changes nothing again, for `_ramp_idle`. Above: its own, or memory
    alone (vcores unbounded) where `_ramp_mem_room` reaches further, so a headroom a
    little larger does not wake it in vain; none with every reduce asked for (it does
    not recalculate). Below: none with none asked for (there is nothing to cancel), else
    `_ramp_floor`."""
    si, ji, jf = W[14], W[9], W[8]
    ji[j, S.JI_RAMP_SIG] = si[s - 1, S.SI_DONE]
    ji[j, S.JI_RAMP_SIG + 1] = si[s - 1, S.SI_PENDING]
    ji[j, S.JI_RAMP_SIG + 2] = si[s, S.SI_PENDING]
    ji[j, S.JI_RAMP_SIG + 3] = si[s, S.SI_DONE]
    ji[j, S.JI_RAMP_ASKED] = si[s, S.SI_ASKED]
    lo0, lo1 = -math.inf, -math.inf
    if si[s, S.SI_PENDING] == si[s, S.SI_ASKED]:
        h0, h1 = math.inf, math.inf
    else:
        if si[s, S.SI_ASKED] > 0:
            lo0, lo1 = _ramp_floor(W, s, h0, h1)
        room = _ramp_mem_room(W, s)
        if room >= h0:  # memory alone keeps it from asking: vcores need no bound
            h0, h1 = room, math.inf
    jf[j, S.JF_RAMP_H] = h0
    jf[j, S.JF_RAMP_H + 1] = h1
    jf[j, S.JF_RAMP_LO] = lo0
    jf[j, S.JF_RAMP_LO + 1] = lo1


@kernel_jit
def _ramp_floor(W, s, h0, h1):
    """A headroom at or above which (in both resources) `_ramp_count` for stage `s` is 0
    or more, given that it is at (`h0`, `h1`): the least at which the reduces' share
    (with no unused map share) still holds those asked for or running, if the count
    there says so, else (`h0`, `h1`) itself. -inf in a resource no reduce asks for."""
    ss, tsf = W[12], W[17]
    sched_m, net_m, run_r, net_r, f = _ramp_terms(W, s)
    m, r = np.uint64(ss[s - 1, S.SS_LO]), np.uint64(ss[s, S.SS_LO])
    if f <= 0.0:
        return h0, h1
    lo0 = _ramp_least(tsf[m, S.TSF_REQ], tsf[r, S.TSF_REQ], sched_m, net_m, run_r, net_r, f)
    lo1 = -math.inf
    if W[25][S.C_CS] == 0.0:  # the DefaultResourceCalculator: memory only
        lo1 = _ramp_least(
            tsf[m, S.TSF_REQ + 1], tsf[r, S.TSF_REQ + 1], sched_m, net_m, run_r, net_r, f
        )
    if lo0 <= h0 and lo1 <= h1 and _ramp_count_at(W, s, max(lo0, 0.0), max(lo1, 0.0)) >= 0:
        return lo0, lo1
    return h0, h1


@kernel_jit
def _ramp_least(m0, r0, sched_m, net_m, run_r, net_r, f):
    """`_ramp_floor` in one resource (maps asking `m0`, reduces `r0`): the least headroom
    whose limit, times the reduces' share `f` (> 0), floored, exceeds the reduces asked for
    or running but one (so `_avail_containers` truncates to 0 or more). -inf if reduces
    ask for none of it."""
    if r0 <= 0.0:
        return -math.inf
    return (r0 * (net_r - 1) + 1.0) / np.float64(f) - (m0 * (net_m - sched_m) + r0 * run_r)


@kernel_jit
def _ramp_bound(W, leaf):
    """The headroom of a job in `leaf` (`_am_headroom`), the same for each under the Fair
    Scheduler; under the Capacity Scheduler a bound on it, its user's limit left out, in
    memory alone (vcores: -inf)."""
    u0, u1 = _leaf_headroom(W, leaf)
    if W[25][S.C_CS] != 0.0:
        return max(u0, 0.0), -math.inf
    return max(u0, 0.0), max(u1, 0.0)


@kernel_jit
def _ramp_within(u0, u1, h0, h1):
    """Whether the bound (u0, u1) (`_ramp_bound`) is within the headroom (h0, h1): vcores
    only when bounded (not under the Capacity Scheduler); a NaN headroom never is."""
    return u0 <= h0 and (u1 == -math.inf or u1 <= h1)


@kernel_jit
def _ramp_idle(W, j, s):
    """A shortcut, not a rule: job `j`'s ramp-up would change nothing, as at its last one
    (`_ramp_mark`) with the same maps and reduces asked for or not, and a headroom within
    the bounds it kept (its ramp-up grows with the headroom; `_ramp_bound` bounds it from
    above). `s`: its ramped stage (`_ramp_stage`)."""
    jf, ji, si = W[8], W[9], W[14]
    if s < 0 or si[s, S.SI_HELD] == 1 or si[s, S.SI_ASKED] != ji[j, S.JI_RAMP_ASKED]:
        return False
    if not _ramp_sig_same(W, j, s):
        return False
    u0, u1 = _ramp_bound(W, W[6][j, S.JS_QUEUE])
    return _ramp_within(u0, u1, jf[j, S.JF_RAMP_H], jf[j, S.JF_RAMP_H + 1]) and _ramp_above(
        u0, u1, jf[j, S.JF_RAMP_LO], jf[j, S.JF_RAMP_LO + 1]
    )


@kernel_jit
def _ramp_above(u0, u1, lo0, lo1):
    """Whether the headroom (u0, u1) (`_ramp_bound`, exact where a job keeps a floor: the
    Fair Scheduler's) is at or above the floor (lo0, lo1) (`_ramp_floor`; -inf: none; a
    NaN one never is)."""
    return u0 >= lo0 and u1 >= lo1


@kernel_jit
def _ramp_asleep_idle(W):
    """Whether every asleep ramping job (`ramp_lists.py`) would change nothing: no leaf's
    bound (`_ramp_bound`) exceeds the least headroom its asleep jobs kept, nor does its
    headroom fall below the largest floor they kept. Marks each leaf where one does
    (QF_RAMP_WAKE): only its asleep jobs may ask for more or cancel some."""
    qf = W[3]
    idle = True
    for q in range(qf.shape[0]):
        qf[q, S.QF_RAMP_WAKE] = 0.0
        if qf[q, S.QF_RAMP_H] == math.inf and qf[q, S.QF_RAMP_H + 1] == math.inf:
            if qf[q, S.QF_RAMP_LO] == -math.inf and qf[q, S.QF_RAMP_LO + 1] == -math.inf:
                continue
        u0, u1 = _ramp_bound(W, q)
        if not (
            _ramp_within(u0, u1, qf[q, S.QF_RAMP_H], qf[q, S.QF_RAMP_H + 1])
            and _ramp_above(u0, u1, qf[q, S.QF_RAMP_LO], qf[q, S.QF_RAMP_LO + 1])
        ):
            qf[q, S.QF_RAMP_WAKE] = 1.0
            idle = False
    return idle


@kernel_jit
def _ramp_reduces(W):
    """The MapReduce AM's reduce ramp-up at every event time, for each job whose reduces
    it ramps and whose AM's call is due (`_ramp_job`), in the order they began to; True
    if one asked for more. It passes over the asleep jobs (`ramp_lists.py`) while they
    would all change nothing (`_ramp_asleep_idle`); else it visits every ramping job
    (passing over the asleep ones of leaves it did not mark: they would change nothing),
    and keeps the asleep ones' bounds again. With heartbeats only a call at this time
    is due: one before it would have changed nothing (`_ramp_due`)."""
    ji, jf, gi, qf, gf = W[9], W[8], W[24], W[3], W[23]
    now = gf[S.G_NOW]
    prev = gf[S.G_RAMP_LAST]
    gf[S.G_RAMP_LAST] = now
    heartbeats = W[25][S.C_HB] != 0.0
    every = not _ramp_asleep_idle(W)
    if every:
        _ramp_reset_h(W)
    more = False
    j = gi[S.GI_RAMP_HEAD] if every else gi[S.GI_RA_HEAD]
    while j >= 0:
        nxt = ji[j, S.JI_RAMP_NEXT] if every else ji[j, S.JI_RA_NEXT]
        asleep = every and ji[j, S.JI_IN_RA] == 0
        if asleep and qf[W[6][j, S.JS_QUEUE], S.QF_RAMP_WAKE] == 0.0:
            pass
        else:
            if asleep:
                _ramp_catch_up(W, j, prev)
            if heartbeats and jf[j, S.JF_RAMP_NEXT] < now and _cycles(W, j):
                # a call since the last walk changed nothing (`_ramp_due`): only one now is due
                jf[j, S.JF_RAMP_NEXT] = _am_call(W, j, now, True)
            if now >= jf[j, S.JF_RAMP_NEXT]:
                s = _ramp_stage(W, j)
                if _ramp_idle(W, j, s):
                    if _cycles(W, j):  # as `_ramp_job_at` would
                        jf[j, S.JF_RAMP_NEXT] = _am_call(W, j, now, False)
                    _ramp_sleep(W, j)
                elif _ramp_job_at(W, j, s):
                    more = True
        if every and ji[j, S.JI_IN_RAMP] == 1 and ji[j, S.JI_IN_RA] == 0:
            _ramp_keep_h(W, j)
        j = nxt
    return more


@kernel_jit
def _ramp_changes(W, j, s):
    """Whether job `j`'s ramp-up (`_ramp_job_at`; `s`: its ramped stage) would change the
    reduces its AM asks for, were it called now."""
    si = W[14]
    if s < 0 or si[s, S.SI_HELD] == 1:
        return False
    if si[s - 1, S.SI_PENDING] == 0:
        return True
    asked = si[s, S.SI_ASKED]
    if si[s, S.SI_PENDING] == asked:
        return False
    n = _ramp_count(W, j, s)
    return n > 0 or (n < 0 and asked > 0)


@kernel_jit
def _ramp_due(W):
    """With heartbeats, after an iteration: the first AM call after now at which a ramping
    job's ramp-up would change what it asks for (inf: none), for an iteration there, so
    that it sees the state at its call and its nodes' next heartbeats see what it asked
    for. The state does not change before the next iteration, so a call at which the
    ramp-up would change nothing is passed over; the asleep jobs of leaves the walk would
    not mark (`_ramp_asleep_idle`) would change nothing."""
    ji, qf, gi, gf = W[9], W[3], W[24], W[23]
    now = gf[S.G_NOW]
    every = not _ramp_asleep_idle(W)
    due = S.INF
    j = gi[S.GI_RAMP_HEAD] if every else gi[S.GI_RA_HEAD]
    while j >= 0:
        nxt = ji[j, S.JI_RAMP_NEXT] if every else ji[j, S.JI_RA_NEXT]
        awake = ji[j, S.JI_IN_RA] == 1 or qf[W[6][j, S.JS_QUEUE], S.QF_RAMP_WAKE] != 0.0
        if awake and _cycles(W, j) and _ramp_changes(W, j, _ramp_stage(W, j)):
            due = min(due, _am_call(W, j, now, False))
        j = nxt
    return due
