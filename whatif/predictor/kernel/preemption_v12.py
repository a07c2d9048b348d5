"""Preemption, Hadoop 1 and 2: the queue-level check on the preemption interval's grid.

The reference engine's ``reference/preemption_v12.py`` is this module's pure-Python twin; it
follows the same steps.

Preemption, Hadoop 2: starvation timers are updated at every event, and again once
what the event time changed after the check (its kills, the AM's ramp-down) is done, so a
queue starved by those is starved from that time, not from the next event; on multiples of
the preemption interval (when a timeout has expired and utilization is above the
threshold) the amount is the sum over leaves of max(min-share part, fair-share
part) and it is taken as Hadoop 2.8 does: warned containers are killed once warned
longer than waitTimeBeforeKill (strictly), then new victims are warned by
descending to the child most over its share (comparator, largest wins), the app
most over its share, and its container with the largest priority number (ties: the
newest). Hadoop 1: per slot pool, min-share and half-fair-share starvation acting
once the timeout is strictly exceeded, and on each check the newest running tasks of
pools above their fair share are killed at once (no utilization gate; without slot
pools memory is the pool, and a kill counts its task's memory). A Hadoop 1/2 check
that warns and kills nothing would do nothing again until some other event, so while
idle the next checks are only woken for a timer expiring or a warned container passing
waitTimeBeforeKill; any later event on a grid time after it runs the check as
scheduled.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.events import _expired, _grid_after, _grid_at_or_after
from whatif.predictor.kernel.livelock import _repeats, _v12_state
from whatif.predictor.kernel.ordering import _cmp_apps, _cmp_queues
from whatif.predictor.kernel.phases import _end_attempt
from whatif.predictor.kernel.preemption import _gate
from whatif.predictor.kernel.queues import _demand, _up
from whatif.predictor.kernel.resources import _below, _rmax, _rmin
from whatif.predictor.kernel.state import (
    AF_START,
    AI_LIVE,
    AI_STATE,
    AI_TASK,
    C_INTERVAL,
    C_SLOT,
    C_VERSION,
    C_WAIT_KILL,
    G_NEXT_CHECK,
    G_NEXT_V12,
    G_NOW,
    GI_LIVELOCK,
    GI_NEXT_SUBMIT,
    GI_RUN_HEAD,
    GI_RUN_TAIL,
    GI_WARNED_N,
    INF,
    JF_TBP,
    JI_APP_NEXT,
    JS_QUEUE,
    KILLED,
    LF_MARK,
    LI_RUN_NEXT,
    LI_RUN_PREV,
    QF_FAIR,
    QF_LFAIR,
    QF_LMIN,
    QF_PALL,
    QF_TBP,
    QF_USE,
    QI_APP_HEAD,
    QS_CH_HI,
    QS_CH_LO,
    QS_LEAF,
    QS_PARENT,
    QS_POLICY,
    QS_PREEMPTABLE,
    QSF_FAIR_TO,
    QSF_MIN,
    QSF_MIN_TO,
    QSF_THRESH,
    RUNNING,
    SS_DIM,
    SS_JT,
    SS_PRIO,
    TS_JOB,
    TS_STAGE,
    TSF_REQ,
)
from whatif.predictor.kernel.victims import _free_remove, _held_changed


@kernel_jit
def _v12_dims(W):
    """The pools starvation is kept for: Hadoop 1's map and reduce slots, else one."""
    return 2 if (W[25][C_VERSION] == 1.0 and W[25][C_SLOT] != 0.0) else 1


@kernel_jit
def _stamp_v12(W):
    """Update the starvation timers with the state now; returns the grid time the first
    timer acts (next check) and the first one still ahead of now."""
    qs, qsf, qf, gf, cfg = W[0], W[1], W[3], W[23], W[25]
    t = gf[G_NOW]
    interval = cfg[C_INTERVAL]
    v1 = cfg[C_VERSION] == 1.0
    ndims = _v12_dims(W)
    nxt = INF
    fut = INF
    for leaf in range(qs.shape[0]):
        if qs[leaf, QS_LEAF] == 0:
            continue
        for d in range(ndims):
            policy = 0 if v1 else qs[leaf, QS_POLICY]
            u0 = qf[leaf, QF_USE]
            u1 = qf[leaf, QF_USE + 1]
            if v1:
                dd = qf[leaf, QF_USE + d] + qf[leaf, QF_PALL + d]
                min_starved = qf[leaf, QF_USE + d] < min(qsf[leaf, QSF_MIN + d], dd)
                fair_starved = qf[leaf, QF_USE + d] < math.floor(
                    min(qf[leaf, QF_FAIR + d] / 2.0, dd)
                )
            else:
                d0, d1 = _demand(W, leaf)
                m0, m1 = _rmin(W, policy, qsf[leaf, QSF_MIN], qsf[leaf, QSF_MIN + 1], d0, d1)
                min_starved = _below(W, policy, u0, u1, m0, m1)
                s0 = math.floor(qf[leaf, QF_FAIR] * qsf[leaf, QSF_THRESH])
                s1 = math.floor(qf[leaf, QF_FAIR + 1] * qsf[leaf, QSF_THRESH])
                f0, f1 = _rmin(W, policy, s0, s1, d0, d1)
                fair_starved = _below(W, policy, u0, u1, f0, f1)
            if not min_starved:
                qf[leaf, QF_LMIN + d] = -INF
            elif qf[leaf, QF_LMIN + d] == -INF:
                qf[leaf, QF_LMIN + d] = t
            if not fair_starved:
                qf[leaf, QF_LFAIR + d] = -INF
            elif qf[leaf, QF_LFAIR + d] == -INF:
                qf[leaf, QF_LFAIR + d] = t
            for which in range(2):
                if which == 0:
                    last = qf[leaf, QF_LMIN + d]
                    timeout = qsf[leaf, QSF_MIN_TO]
                    starving = min_starved
                else:
                    last = qf[leaf, QF_LFAIR + d]
                    timeout = qsf[leaf, QSF_FAIR_TO]
                    starving = fair_starved
                if starving and timeout != INF:
                    e = last + timeout
                    # the timer acts once strictly past the timeout
                    g = _grid_after(max(e, t), interval)
                    if g < nxt:
                        nxt = g
                    if e >= t and g < fut:
                        fut = g
    return nxt, fut


@kernel_jit
def _preempt_v12(W):
    """Hadoop 1/2: the starvation timers at every event; preemption on interval multiples.

    Returns whether this was a check that warned and killed nothing (an idle one).
    """
    gf, cfg = W[23], W[25]
    t = gf[G_NOW]
    interval = cfg[C_INTERVAL]
    v1 = cfg[C_VERSION] == 1.0
    _stamp_v12(W)
    # a check time: the scheduled one, or any grid time after it (checks skipped while idle)
    check = gf[G_NEXT_V12] <= t and _grid_at_or_after(t, interval) == t
    if check and W[24][GI_NEXT_SUBMIT] == W[6].shape[0] and _repeats(W, _v12_state(W)):
        # the state repeats an earlier check's: from here on the run only cycles
        W[24][GI_LIVELOCK] = 1
        return False
    acted = False
    if check and (v1 or _gate(W)):
        if v1:
            for d in range(_v12_dims(W)):
                if _preempt_v1(W, d):
                    acted = True
        else:
            acted = _preempt_v2(W)
    return check and not acted


@kernel_jit
def _v12_timers(W, idle):
    """Stamp the timers with the iteration's final state and schedule the next checks.

    Runs after what follows the check at the same time (the AM's reduce ramp-down, an
    allocation), so a leaf starved by those is stamped now, not at whatever event comes
    next (an idle heartbeat would otherwise move the timer).
    """
    lf, gf, cfg = W[52], W[23], W[25]
    t = gf[G_NOW]
    interval = cfg[C_INTERVAL]
    nxt, fut = _stamp_v12(W)
    wake = nxt
    if idle:
        # idle: until another event, a check only acts once a timer expires or a warned
        # container passes waitTimeBeforeKill, so only those times are woken for
        wake = fut
        ai, gi, warned = W[20], W[24], W[28]
        for i in range(gi[GI_WARNED_N]):
            a = warned[i]
            k = _grid_after(lf[ai[a, AI_LIVE], LF_MARK] + cfg[C_WAIT_KILL], interval)
            if ai[a, AI_STATE] == RUNNING and k > t and nxt < INF and k < wake:
                wake = k
    gf[G_NEXT_V12] = nxt
    gf[G_NEXT_CHECK] = wake


@kernel_jit
def _shortfall(W, policy, t, since, timeout, s0, s1, d0, d1, u0, u1):
    """Hadoop 2's resToPreempt for one kind of starvation, starved since `since` (-inf:
    not starved): once that is longer than `timeout`, how far usage (u) falls short of
    min(share (s), demand (d)), at least zero by the policy's comparator; else nothing."""
    if since > -INF and _expired(t - since, timeout):
        return _rmax(W, policy, 0.0, 0.0, min(s0, d0) - u0, min(s1, d1) - u1)
    return 0.0, 0.0


@kernel_jit
def _preempt_v2(W):
    """Hadoop 2.8 preemptTasksIfNecessary: warn, then kill warned ones past the wait.

    Returns whether anything was warned or killed.
    """
    lf = W[52]
    qs, qsf, qf, js, jf, ts, tsf = W[0], W[1], W[3], W[6], W[8], W[16], W[17]
    ai, gf, gi, cfg, warned = W[20], W[23], W[24], W[25], W[28]
    t = gf[G_NOW]
    tp0 = 0.0
    tp1 = 0.0
    for leaf in range(qs.shape[0]):
        if qs[leaf, QS_LEAF] == 0:
            continue
        policy = qs[leaf, QS_POLICY]
        d0, d1 = _demand(W, leaf)
        u0 = qf[leaf, QF_USE]
        u1 = qf[leaf, QF_USE + 1]
        # resToPreempt: for min share, then for fair share
        rm0, rm1 = _shortfall(
            W, policy, t, qf[leaf, QF_LMIN], qsf[leaf, QSF_MIN_TO], qsf[leaf, QSF_MIN],
            qsf[leaf, QSF_MIN + 1], d0, d1, u0, u1,
        )  # fmt: skip
        rf0, rf1 = _shortfall(
            W, policy, t, qf[leaf, QF_LFAIR], qsf[leaf, QSF_FAIR_TO], qf[leaf, QF_FAIR],
            qf[leaf, QF_FAIR + 1], d0, d1, u0, u1,
        )  # fmt: skip
        x0, x1 = _rmax(W, policy, rm0, rm1, rf0, rf1)
        tp0 = tp0 + x0
        tp1 = tp1 + x1
    if not tp0 > 0.0:
        return False
    acted = False
    nw = gi[GI_WARNED_N]
    keep = 0
    for i in range(nw):
        a = warned[i]
        if ai[a, AI_STATE] == RUNNING and tp0 > 0.0:
            task = ai[a, AI_TASK]
            r0 = tsf[task, TSF_REQ]
            r1 = tsf[task, TSF_REQ + 1]
            if lf[ai[a, AI_LIVE], LF_MARK] + cfg[C_WAIT_KILL] < t:
                _end_attempt(W, a, KILLED)
                acted = True
            else:
                warned[keep] = a
                keep += 1
            tp0 = tp0 - r0
            tp1 = tp1 - r1
    gi[GI_WARNED_N] = keep
    while tp0 > 0.0:
        a = _preempt_container(W)
        if a < 0:
            break
        task = ai[a, AI_TASK]
        j = ts[task, TS_JOB]
        r0 = tsf[task, TSF_REQ]
        r1 = tsf[task, TSF_REQ + 1]
        lf[ai[a, AI_LIVE], LF_MARK] = t
        _free_remove(W, a, j)
        jf[j, JF_TBP] += r0
        jf[j, JF_TBP + 1] += r1
        _held_changed(W, j)
        _up(W, QF_TBP, js[j, JS_QUEUE], r0, r1)
        warned[gi[GI_WARNED_N]] = a
        gi[GI_WARNED_N] += 1
        tp0 = tp0 - r0
        tp1 = tp1 - r1
        acted = True
    return acted


@kernel_jit
def _preempt_container(W):
    """FSParentQueue/FSLeafQueue/FSAppAttempt.preemptContainer (Hadoop 2); -1 for none."""
    lf, li = W[52], W[51]
    qs, children, qf, qi, ji, ts, ss, ai = W[0], W[2], W[3], W[4], W[9], W[16], W[12], W[20]
    gi = W[24]
    q = 0
    while qs[q, QS_LEAF] == 0:
        best = -1
        for k in range(qs[q, QS_CH_LO], qs[q, QS_CH_HI]):
            c = children[k]
            if best < 0 or _cmp_queues(W, qs[q, QS_POLICY], 0, c, best, True) > 0:
                best = c
        if best < 0:
            return -1
        q = best
    policy = qs[q, QS_POLICY]
    u0 = qf[q, QF_USE] - qf[q, QF_TBP]
    u1 = qf[q, QF_USE + 1] - qf[q, QF_TBP + 1]
    if qs[qs[q, QS_PARENT], QS_POLICY] == 2:
        over = not (u0 <= qf[q, QF_FAIR] and u1 <= qf[q, QF_FAIR + 1])
    else:
        over = u0 > qf[q, QF_FAIR]
    if not over or qs[q, QS_PREEMPTABLE] == 0:
        return -1
    app = -1
    j = qi[q, QI_APP_HEAD]
    while j >= 0:
        if app < 0 or _cmp_apps(W, policy, 0, j, app, True) > 0:
            app = j
        j = ji[j, JI_APP_NEXT]
    if app < 0:
        return -1
    victim = -1
    a = gi[GI_RUN_HEAD]
    while a >= 0:
        task = ai[a, AI_TASK]
        if task >= 0 and ts[task, TS_JOB] == app and lf[ai[a, AI_LIVE], LF_MARK] < 0.0:
            if (
                victim < 0
                or ss[ts[task, TS_STAGE], SS_PRIO] >= ss[ts[ai[victim, AI_TASK], TS_STAGE], SS_PRIO]
            ):
                victim = a
        a = li[ai[a, AI_LIVE], LI_RUN_NEXT]
    return victim


@kernel_jit
def _preempt_v1(W, d):
    """MRv1 preemptTasks for slot pool `d`: kill the newest tasks of pools above fair share.

    Returns whether anything was killed.
    """
    li = W[51]
    qs, qsf, qf, js, ss, ts, tsf, af = W[0], W[1], W[3], W[6], W[12], W[16], W[17], W[19]
    ai, gf, gi, vict = W[20], W[23], W[24], W[29]
    t = gf[G_NOW]
    total = 0.0
    nq = qs.shape[0]
    for leaf in range(nq):
        if qs[leaf, QS_LEAF] == 0:
            continue
        dd = qf[leaf, QF_USE + d] + qf[leaf, QF_PALL + d]
        running = qf[leaf, QF_USE + d]
        n_min = 0.0
        n_fair = 0.0
        last = qf[leaf, QF_LMIN + d]
        if last > -INF and _expired(t - last, qsf[leaf, QSF_MIN_TO]):
            n_min = max(0.0, min(qsf[leaf, QSF_MIN + d], dd) - running)
        last = qf[leaf, QF_LFAIR + d]
        if last > -INF and _expired(t - last, qsf[leaf, QSF_FAIR_TO]):
            n_fair = max(0.0, math.floor(min(qf[leaf, QF_FAIR + d], dd)) - running)
        total += math.floor(max(n_min, n_fair))
    if total <= 0:
        return False
    acted = False
    left = qf[:, QF_USE + d].copy()
    nv = 0
    a = gi[GI_RUN_TAIL]
    while a >= 0:
        task = ai[a, AI_TASK]
        # JobTracker tasks (setup, cleanup) are no job's map or reduce tasks: never victims
        if task >= 0 and ss[ts[task, TS_STAGE], SS_DIM] == d and ss[ts[task, TS_STAGE], SS_JT] == 0:
            leaf = js[ts[task, TS_JOB], JS_QUEUE]
            if qf[leaf, QF_USE + d] > qf[leaf, QF_FAIR + d] and qs[leaf, QS_PREEMPTABLE] == 1:
                vict[nv] = a
                nv += 1
        a = li[ai[a, AI_LIVE], LI_RUN_PREV]
    starts = np.empty(nv)
    for i in range(nv):
        starts[i] = -af[vict[i], AF_START]
    order = np.argsort(starts, kind="mergesort")
    for i in range(nv):
        a = vict[order[i]]
        leaf = js[ts[ai[a, AI_TASK], TS_JOB], JS_QUEUE]
        if left[leaf] > qf[leaf, QF_FAIR + d]:
            # a kill frees the task's share of the pool: one slot, or its memory
            size = tsf[ai[a, AI_TASK], TSF_REQ + d]
            _end_attempt(W, a, KILLED)
            acted = True
            left[leaf] -= size
            total -= size
            if total <= 0.0:
                break
    return acted
