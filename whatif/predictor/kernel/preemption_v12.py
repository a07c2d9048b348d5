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

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.events import _expired, _grid_after, _grid_at_or_after
from whatif.predictor.kernel.livelock import _repeats, _v12_state
from whatif.predictor.kernel.ordering import _cmp_apps, _cmp_queues
from whatif.predictor.kernel.phases import _end_attempt
from whatif.predictor.kernel.preemption import _gate
from whatif.predictor.kernel.queues import _demand, _up
from whatif.predictor.kernel.resources import _below, _rmax, _rmin
from whatif.predictor.kernel.victims import _free_remove, _held_changed


@kernel_jit
def _v12_dims(W):
    """The pools starvation is kept for: Hadoop 1's map and reduce slots, else one."""
    return 2 if (W[25][S.C_VERSION] == 1.0 and W[25][S.C_SLOT] != 0.0) else 1


@kernel_jit
def _stamp_v12(W):
    """Update the starvation timers with the state now; returns the grid time the first
    timer acts (next check) and the first one still ahead of now."""
    qs, qsf, qf, gf, cfg = W[0], W[1], W[3], W[23], W[25]
    t = gf[S.G_NOW]
    interval = cfg[S.C_INTERVAL]
    v1 = cfg[S.C_VERSION] == 1.0
    ndims = _v12_dims(W)
    nxt = S.INF
    fut = S.INF
    for leaf in range(qs.shape[0]):
        if qs[leaf, S.QS_LEAF] == 0:
            continue
        for d in range(ndims):
            policy = 0 if v1 else qs[leaf, S.QS_POLICY]
            u0 = qf[leaf, S.QF_USE]
            u1 = qf[leaf, S.QF_USE + 1]
            if v1:
                dd = qf[leaf, S.QF_USE + d] + qf[leaf, S.QF_PALL + d]
                min_starved = qf[leaf, S.QF_USE + d] < min(qsf[leaf, S.QSF_MIN + d], dd)
                fair_starved = qf[leaf, S.QF_USE + d] < math.floor(
                    min(qf[leaf, S.QF_FAIR + d] / 2.0, dd)
                )
            else:
                d0, d1 = _demand(W, leaf)
                m0, m1 = _rmin(W, policy, qsf[leaf, S.QSF_MIN], qsf[leaf, S.QSF_MIN + 1], d0, d1)
                min_starved = _below(W, policy, u0, u1, m0, m1)
                s0 = math.floor(qf[leaf, S.QF_FAIR] * qsf[leaf, S.QSF_THRESH])
                s1 = math.floor(qf[leaf, S.QF_FAIR + 1] * qsf[leaf, S.QSF_THRESH])
                f0, f1 = _rmin(W, policy, s0, s1, d0, d1)
                fair_starved = _below(W, policy, u0, u1, f0, f1)
            if not min_starved:
                qf[leaf, S.QF_LMIN + d] = -S.INF
            elif qf[leaf, S.QF_LMIN + d] == -S.INF:
                qf[leaf, S.QF_LMIN + d] = t
            if not fair_starved:
                qf[leaf, S.QF_LFAIR + d] = -S.INF
            elif qf[leaf, S.QF_LFAIR + d] == -S.INF:
                qf[leaf, S.QF_LFAIR + d] = t
            for which in range(2):
                if which == 0:
                    last = qf[leaf, S.QF_LMIN + d]
                    timeout = qsf[leaf, S.QSF_MIN_TO]
                    starving = min_starved
                else:
                    last = qf[leaf, S.QF_LFAIR + d]
                    timeout = qsf[leaf, S.QSF_FAIR_TO]
                    starving = fair_starved
                if starving and timeout != S.INF:
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
    t = gf[S.G_NOW]
    interval = cfg[S.C_INTERVAL]
    v1 = cfg[S.C_VERSION] == 1.0
    _stamp_v12(W)
    # a check time: the scheduled one, or any grid time after it (checks skipped while idle)
    check = gf[S.G_NEXT_V12] <= t and _grid_at_or_after(t, interval) == t
    if check and W[24][S.GI_NEXT_SUBMIT] == W[6].shape[0] and _repeats(W, _v12_state(W)):
        # the state repeats an earlier check's: from here on the run only cycles
        W[24][S.GI_LIVELOCK] = 1
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
    t = gf[S.G_NOW]
    interval = cfg[S.C_INTERVAL]
    nxt, fut = _stamp_v12(W)
    wake = nxt
    if idle:
        # idle: until another event, a check only acts once a timer expires or a warned
        # container passes waitTimeBeforeKill, so only those times are woken for
        wake = fut
        ai, gi, warned = W[20], W[24], W[28]
        for i in range(gi[S.GI_WARNED_N]):
            a = warned[i]
            k = _grid_after(lf[ai[a, S.AI_LIVE], S.LF_MARK] + cfg[S.C_WAIT_KILL], interval)
            if ai[a, S.AI_STATE] == S.RUNNING and k > t and nxt < S.INF and k < wake:
                wake = k
    gf[S.G_NEXT_V12] = nxt
    gf[S.G_NEXT_CHECK] = wake


@kernel_jit
def _shortfall(W, policy, t, since, timeout, s0, s1, d0, d1, u0, u1):
    """Hadoop 2's resToPreempt for one kind of starvation, starved since `since` (-inf:
    not starved): once that is longer than `timeout`, how far usage (u) falls short of
    min(share (s), demand (d)), at least zero by the policy's comparator; else nothing."""
    if since > -S.INF and _expired(t - since, timeout):
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
    t = gf[S.G_NOW]
    tp0 = 0.0
    tp1 = 0.0
    for leaf in range(qs.shape[0]):
        if qs[leaf, S.QS_LEAF] == 0:
            continue
        policy = qs[leaf, S.QS_POLICY]
        d0, d1 = _demand(W, leaf)
        u0 = qf[leaf, S.QF_USE]
        u1 = qf[leaf, S.QF_USE + 1]
        # resToPreempt: for min share, then for fair share
        rm0, rm1 = _shortfall(
            W, policy, t, qf[leaf, S.QF_LMIN], qsf[leaf, S.QSF_MIN_TO], qsf[leaf, S.QSF_MIN],
            qsf[leaf, S.QSF_MIN + 1], d0, d1, u0, u1,
        )  # fmt: skip
        rf0, rf1 = _shortfall(
            W, policy, t, qf[leaf, S.QF_LFAIR], qsf[leaf, S.QSF_FAIR_TO], qf[leaf, S.QF_FAIR],
            qf[leaf, S.QF_FAIR + 1], d0, d1, u0, u1,
        )  # fmt: skip
        x0, x1 = _rmax(W, policy, rm0, rm1, rf0, rf1)
        tp0 = tp0 + x0
        tp1 = tp1 + x1
    if not tp0 > 0.0:
        return False
    acted = False
    nw = gi[S.GI_WARNED_N]
    keep = 0
    for i in range(nw):
        a = warned[i]
        if ai[a, S.AI_STATE] == S.RUNNING and tp0 > 0.0:
            task = ai[a, S.AI_TASK]
            r0 = tsf[task, S.TSF_REQ]
            r1 = tsf[task, S.TSF_REQ + 1]
            if lf[ai[a, S.AI_LIVE], S.LF_MARK] + cfg[S.C_WAIT_KILL] < t:
                _end_attempt(W, a, S.KILLED)
                acted = True
            else:
                warned[keep] = a
                keep += 1
            tp0 = tp0 - r0
            tp1 = tp1 - r1
    gi[S.GI_WARNED_N] = keep
    while tp0 > 0.0:
        a = _preempt_container(W)
        if a < 0:
            break
        task = ai[a, S.AI_TASK]
        j = ts[task, S.TS_JOB]
        r0 = tsf[task, S.TSF_REQ]
        r1 = tsf[task, S.TSF_REQ + 1]
        lf[ai[a, S.AI_LIVE], S.LF_MARK] = t
        _free_remove(W, a, j)
        jf[j, S.JF_TBP] += r0
        jf[j, S.JF_TBP + 1] += r1
        _held_changed(W, j)
        _up(W, S.QF_TBP, js[j, S.JS_QUEUE], r0, r1)
        warned[gi[S.GI_WARNED_N]] = a
        gi[S.GI_WARNED_N] += 1
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
    while qs[q, S.QS_LEAF] == 0:
        best = -1
        for k in range(qs[q, S.QS_CH_LO], qs[q, S.QS_CH_HI]):
            c = children[k]
            if best < 0 or _cmp_queues(W, qs[q, S.QS_POLICY], 0, c, best, True) > 0:
                best = c
        if best < 0:
            return -1
        q = best
    policy = qs[q, S.QS_POLICY]
    u0 = qf[q, S.QF_USE] - qf[q, S.QF_TBP]
    u1 = qf[q, S.QF_USE + 1] - qf[q, S.QF_TBP + 1]
    if qs[qs[q, S.QS_PARENT], S.QS_POLICY] == 2:
        over = not (u0 <= qf[q, S.QF_FAIR] and u1 <= qf[q, S.QF_FAIR + 1])
    else:
        over = u0 > qf[q, S.QF_FAIR]
    if not over or qs[q, S.QS_PREEMPTABLE] == 0:
        return -1
    app = -1
    j = qi[q, S.QI_APP_HEAD]
    while j >= 0:
        if app < 0 or _cmp_apps(W, policy, 0, j, app, True) > 0:
            app = j
        j = ji[j, S.JI_APP_NEXT]
    if app < 0:
        return -1
    victim = -1
    a = gi[S.GI_RUN_HEAD]
    while a >= 0:
        task = ai[a, S.AI_TASK]
        if task >= 0 and ts[task, S.TS_JOB] == app and lf[ai[a, S.AI_LIVE], S.LF_MARK] < 0.0:
            if (
                victim < 0
                or ss[ts[task, S.TS_STAGE], S.SS_PRIO]
                >= ss[ts[ai[victim, S.AI_TASK], S.TS_STAGE], S.SS_PRIO]
            ):
                victim = a
        a = li[ai[a, S.AI_LIVE], S.LI_RUN_NEXT]
    return victim


@kernel_jit
def _preempt_v1(W, d):
    """MRv1 preemptTasks for slot pool `d`: kill the newest tasks of pools above fair share.

    Returns whether anything was killed.
    """
    li = W[51]
    qs, qsf, qf, js, ss, ts, tsf, af = W[0], W[1], W[3], W[6], W[12], W[16], W[17], W[19]
    ai, gf, gi, vict = W[20], W[23], W[24], W[29]
    t = gf[S.G_NOW]
    total = 0.0
    nq = qs.shape[0]
    for leaf in range(nq):
        if qs[leaf, S.QS_LEAF] == 0:
            continue
        dd = qf[leaf, S.QF_USE + d] + qf[leaf, S.QF_PALL + d]
        running = qf[leaf, S.QF_USE + d]
        n_min = 0.0
        n_fair = 0.0
        last = qf[leaf, S.QF_LMIN + d]
        if last > -S.INF and _expired(t - last, qsf[leaf, S.QSF_MIN_TO]):
            n_min = max(0.0, min(qsf[leaf, S.QSF_MIN + d], dd) - running)
        last = qf[leaf, S.QF_LFAIR + d]
        if last > -S.INF and _expired(t - last, qsf[leaf, S.QSF_FAIR_TO]):
            n_fair = max(0.0, math.floor(min(qf[leaf, S.QF_FAIR + d], dd)) - running)
        total += math.floor(max(n_min, n_fair))
    if total <= 0:
        return False
    acted = False
    left = qf[:, S.QF_USE + d].copy()
    nv = 0
    a = gi[S.GI_RUN_TAIL]
    while a >= 0:
        task = ai[a, S.AI_TASK]
        # JobTracker tasks (setup, cleanup) are no job's map or reduce tasks: never victims
        if (
            task >= 0
            and ss[ts[task, S.TS_STAGE], S.SS_DIM] == d
            and ss[ts[task, S.TS_STAGE], S.SS_JT] == 0
        ):
            leaf = js[ts[task, S.TS_JOB], S.JS_QUEUE]
            if qf[leaf, S.QF_USE + d] > qf[leaf, S.QF_FAIR + d] and qs[leaf, S.QS_PREEMPTABLE] == 1:
                vict[nv] = a
                nv += 1
        a = li[ai[a, S.AI_LIVE], S.LI_RUN_PREV]
    starts = np.empty(nv)
    for i in range(nv):
        starts[i] = -af[vict[i], S.AF_START]
    order = np.argsort(starts, kind="mergesort")
    for i in range(nv):
        a = vict[order[i]]
        leaf = js[ts[ai[a, S.AI_TASK], S.TS_JOB], S.JS_QUEUE]
        if left[leaf] > qf[leaf, S.QF_FAIR + d]:
            # a kill frees the task's share of the pool: one slot, or its memory
            size = tsf[ai[a, S.AI_TASK], S.TSF_REQ + d]
            _end_attempt(W, a, S.KILLED)
            acted = True
            left[leaf] -= size
            total -= size
            if total <= 0.0:
                break
    return acted
