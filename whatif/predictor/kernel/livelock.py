"""Livelock detection: a check whose state repeats an earlier one ends the run.

The reference engine's ``reference/livelock.py`` is this module's pure-Python twin; it
follows the same steps.

Hadoop 1/2 preemption can livelock as the real schedulers do (victims
killed for a queue that cannot use what they free are re-run at once, and killed
again at the next check):
once every job is submitted, a check whose state (running tasks in order with their
start and end times relative to now, warned tasks, stage and re-queue lists, starvation
timers) equals the state at an earlier check with no end or AM-ready event in between
(Brent's cycle finding) ends the run there: nothing would ever finish again. Hadoop 1's
state adds each job's pending task-cleanup attempts and the free slots, and, with delay
scheduling, each job's locality level and wait (capped at two delays) and the jobs
skipped at the last assignTasks call: progress there is not a cycle. With node
reservations on (``reservations.py``) it adds each node's reserved app and stage. Hadoop 3
livelocks the same way (an app that cannot use what is killed for it, e.g. its AM over
maxAMShare, has a container killed at every re-check); its check state adds each
runnable app's fair-share timer, re-check time and starvation amounts, the nodes' claims
(``claims.py``), and the pending events (even one for an ended attempt makes an iteration
that schedules a check). A claim enters the state capped at the cluster's size: an app
that cannot use what is killed for it claims more at every kill, and a claim that large
outlasts what the app can be allocated while the run cycles, so a larger one changes
nothing there.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.allocate_cycle import _am_call, _cycles, _run_start
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.events import _expired
from whatif.predictor.kernel.phases import _hang_due, _replay_row, _timed
from whatif.predictor.world import float_from_ordered


@kernel_jit
def _hash(v):
    """64-bit hash of a float64 vector's bits."""
    bits = v.view(np.uint64)
    h = np.uint64(14695981039346656037)
    for i in range(bits.shape[0]):
        h = (h ^ bits[i]) * np.uint64(1099511628211)
        h = h ^ (h >> np.uint64(29))
    return h


@kernel_jit
def _repeats(W, state):
    """Whether the state at this check equals, shifted in time, the state at an earlier
    check with no progress since (no end or AM-ready event, see GI_PROGRESS):
    then the run only cycles and nothing ever finishes again. Brent's cycle finding on
    state hashes: compare with one saved state, saved again after 1, 2, 4, ... checks."""
    gi = W[24]
    hu = gi.view(np.uint64)
    s_hash = _hash(state)
    if gi[S.GI_SEEN_SET] == 0 or gi[S.GI_SEEN_PROG] != gi[S.GI_PROGRESS]:
        gi[S.GI_SEEN_SET] = 1
        gi[S.GI_SEEN_PROG] = gi[S.GI_PROGRESS]
        hu[S.GI_SEEN_STATE] = s_hash
        gi[S.GI_SEEN_POWER] = 1
        gi[S.GI_SEEN_STEPS] = 0
        return False
    gi[S.GI_SEEN_STEPS] += 1
    if hu[S.GI_SEEN_STATE] == s_hash:
        return True
    if gi[S.GI_SEEN_STEPS] == gi[S.GI_SEEN_POWER]:
        hu[S.GI_SEEN_STATE] = s_hash
        gi[S.GI_SEEN_POWER] *= 2
        gi[S.GI_SEEN_STEPS] = 0
    return False


@kernel_jit
def _put_list(out, n, head, nodes, nxt):
    """Write a linked list's rows (`head`, then nodes[x, nxt]) to out[n:] and a -3 after
    them; returns where the next value goes."""
    x = head
    while x >= 0:
        out[n] = x
        n += 1
        x = nodes[x, nxt]
    out[n] = -3.0
    return n + 1


@kernel_jit
def _v12_state(W):
    """Everything a Hadoop 1/2 run's future depends on, times relative to now, flattened."""
    lf, li = W[52], W[51]
    qs, qsf, qf, ji, ss, si, sdone = W[0], W[1], W[3], W[9], W[12], W[14], W[15]
    ts, ti, af, ai, gf, gi = W[16], W[18], W[19], W[20], W[23], W[24]
    cfg, warned = W[25], W[28]
    t = gf[S.G_NOW]
    ns = si.shape[0]
    nq = qs.shape[0]
    v1 = cfg[S.C_VERSION] == 1.0
    ndims = 2 if (v1 and cfg[S.C_SLOT] != 0.0) else 1
    n_run = 0
    a = gi[S.GI_RUN_HEAD]
    while a >= 0:
        n_run += 1
        a = li[ai[a, S.AI_LIVE], S.LI_RUN_NEXT]
    nodef = W[40]
    nn = nodef.shape[0] if cfg[S.C_HB] != 0.0 else 0
    res = cfg[S.C_RES] != 0.0  # each node's reservation (`reservations.py`) too
    out = np.empty(
        8
        + 7 * n_run
        + gi[S.GI_WARNED_N]
        + 7 * ns
        + ti.shape[0]
        + ji.shape[0]
        + 4 * ndims * nq
        + (5 if res else 3) * nn
        + 5 * ji.shape[0]
        + 1
    )

    n = 0
    a = gi[S.GI_RUN_HEAD]
    while a >= 0:
        task = ai[a, S.AI_TASK]
        live = ai[a, S.AI_LIVE]
        extra = -1.0
        if task >= 0 and li[live, S.LI_OUTCOME] == S.SUCCEEDED:
            s = ts[task, S.TS_STAGE]
            if ss[s, S.SS_SLOW] == 1:
                done = sdone[s - 1]
                r = _replay_row(W, task)
                begin = _run_start(W, ts[task, S.TS_JOB], af[a, S.AF_START]) + W[50][r, S.RS_A]
                extra = -2.0 if np.isnan(done) else max(0.0, done + W[50][r, S.RS_B] - begin)
        out[n] = task
        # without an end event (AMs, reduces waiting for maps) only the order matters
        out[n + 1] = af[a, S.AF_START] - t + 0.0 if task >= 0 and extra != -2.0 else 0.0
        out[n + 2] = li[live, S.LI_OUTCOME]
        out[n + 3] = extra + 0.0
        out[n + 4] = lf[live, S.LF_MARK] - t + 0.0 if lf[live, S.LF_MARK] >= 0.0 else 1.0
        out[n + 5] = li[live, S.LI_NODE]
        out[n + 6] = lf[live, S.LF_DUE] - t + 0.0 if lf[live, S.LF_DUE] < S.INF else 1.0
        n += 7
        a = li[live, S.LI_RUN_NEXT]
    out[n] = -3.0
    n += 1
    for i in range(0 if cfg[S.C_CS] != 0.0 else gi[S.GI_WARNED_N]):  # CS: marks (`_cs_state`)
        out[n] = ai[warned[i], S.AI_TASK]
        n += 1
    out[n] = -3.0
    n += 1
    for s in range(ns):
        out[n] = si[s, S.SI_NEXT]
        out[n + 1] = si[s, S.SI_PENDING]
        out[n + 2] = si[s, S.SI_HELD]
        out[n + 3] = si[s, S.SI_RELEASED]
        out[n + 4] = si[s, S.SI_ASKED]
        out[n + 5] = si[s, S.SI_FRONT_N]
        n += 6
    for s in range(ns):
        n = _put_list(out, n, si[s, S.SI_RETRY_HEAD], ti, S.TI_RETRY_NEXT)
    n = _put_list(out, n, gi[S.GI_RED_HEAD], ji, S.JI_RED_NEXT)
    for leaf in range(nq):
        if qs[leaf, S.QS_LEAF] == 0:
            continue
        for d in range(ndims):
            for which in range(2):
                last = qf[leaf, (S.QF_LMIN if which == 0 else S.QF_LFAIR) + d]
                timeout = qsf[leaf, S.QSF_MIN_TO if which == 0 else S.QSF_FAIR_TO]
                if last == -S.INF or timeout == S.INF:
                    out[n] = S.INF if last == -S.INF else 1.0  # not starved / never acts
                else:
                    out[n] = -S.INF if _expired(t - last, timeout) else last - t + 0.0
                n += 1
    out[n] = gf[S.G_NEXT_V12] - t + 0.0
    n += 1
    for i in range(nn):
        out[n] = nodef[i, S.NF_FREE] + 0.0
        out[n + 1] = nodef[i, S.NF_FREE + 1] + 0.0
        out[n + 2] = nodef[i, S.NF_HB] - t + 0.0 if nodef[i, S.NF_HB] < S.INF else 1.0
        n += 3
        if res:
            out[n] = W[41][i, S.NI_RES_APP]
            out[n + 1] = W[41][i, S.NI_RES_STAGE]
            n += 2
    out[n] = gf[S.G_CONT] - t + 0.0 if gf[S.G_CONT] < S.INF else 1.0  # the next continuous pass
    n += 1
    n = _hang_timers(W, out, n)
    if cfg[S.C_FLOC] != 0.0:
        return np.concatenate((out[:n], _v1_state(W, False), _floc_state(W)))
    if ndims == 2 or cfg[S.C_LOC] != 0.0:
        return np.concatenate((out[:n], _v1_state(W, ndims == 2)))
    return out[:n]


@kernel_jit
def _floc_state(W):
    """The Fair Scheduler's delay scheduling (`fair_locality.py`): each stage's allowed
    level and its opportunities, capped at the cluster's nodes plus one (past that no
    threshold, at most 1, tells them apart)."""
    si, cfg = W[14], W[25]
    ns = si.shape[0]
    out = np.empty(2 * ns)
    for s in range(ns):
        out[2 * s] = si[s, S.SI_FLOC_LEVEL]
        out[2 * s + 1] = min(si[s, S.SI_FLOC_OPP], cfg[S.C_FLOC_NODES] + 1.0)
    return out


@kernel_jit
def _hang_timers(W, out, n):
    """The AM's reduce preemption timers (`phases._hang_due`) of each job with reduces
    waiting for maps (only such a job can preempt; a reduce that starts later is in the
    state), relative to now (-inf: passed; 1: the rule is not timed): its next such
    preemption, when its map requests hang for the unconditional rule and when they have
    waited long enough for the headroom rule (where either rule is timed), and its AM's
    next allocate call, at which its ramp-down acts (`phases._at_am_call`; 1: no cycle).
    They stand for the `HANG` events, which the Hadoop 3 state leaves out."""
    jf, ji, t, cfg = W[8], W[9], W[23][S.G_NOW], W[25]
    timed = _timed(W)
    j = W[24][S.GI_RED_HEAD]
    while j >= 0:
        out[n] = j
        out[n + 1] = _am_call(W, j, t, False) - t + 0.0 if _cycles(W, j) else 1.0
        n += 2
        if timed:
            nxt = jf[j, S.JF_HANG_NEXT]
            out[n] = nxt - t + 0.0 if nxt > t else -S.INF
            for which in range(2):
                delay = cfg[S.C_HANG] if which == 0 else cfg[S.C_PDELAY]
                due = _hang_due(W, j, jf[j, S.JF_MAP_ASK], delay)
                on = delay >= 0.0 if which == 0 else delay > 0.0
                out[n + 1 + which] = (due - t + 0.0 if due > t else -S.INF) if on else 1.0
            n += 3
        j = ji[j, S.JI_RED_NEXT]
    return n


@kernel_jit
def _v1_state(W, slots):
    """Hadoop 1's own state, times relative to now: with slots, each job's task-cleanup
    attempts to hand out and the free slots (a running one holds one); with delay
    scheduling, each job's locality level and wait (capped at 2 delays, beyond which
    it allows any map: a job skipped for ever would never repeat otherwise), the jobs
    skipped at the last assignTasks call, and that call's time."""
    jf, ji, gf, gi, cfg, lvis = W[8], W[9], W[23], W[24], W[25], W[48]
    t = gf[S.G_NOW]
    nj = ji.shape[0]
    loc = cfg[S.C_LOC] != 0.0
    out = np.empty(2 * nj + 2 + (2 * nj + gi[S.GI_LSKIP_N] + 2 if loc else 0))
    n = 0
    if slots:
        for j in range(nj):
            out[n] = ji[j, S.JI_TC]
            out[n + 1] = ji[j, S.JI_TC + 1]
            n += 2
        out[n] = gf[S.G_FREE] + 0.0
        out[n + 1] = gf[S.G_FREE + 1] + 0.0
        n += 2
    if loc:
        cap = 2.0 * cfg[S.C_LOC_DELAY]
        for j in range(nj):
            out[n] = ji[j, S.JI_LOC_LEVEL]
            out[n + 1] = min(jf[j, S.JF_LOC_WAIT], cap) + 0.0
            n += 2
        for i in range(gi[S.GI_LSKIP_N]):
            out[n] = lvis[i, 1]
            n += 1
        out[n] = -3.0
        out[n + 1] = gf[S.G_LOC_LAST] - t + 0.0 if gf[S.G_LOC_LAST] > -S.INF else 1.0
        n += 2
    return out[:n]


@kernel_jit
def _cycling_v3(W):
    """Hadoop 3 livelock: at an update() check once every job is submitted, whether the
    state repeats an earlier check's with nothing finished since (see `_repeats`).
    The search (and building states) starts only after QUIET_CHECKS checks with no
    progress: in a busy run something ends every few checks, and a cycle found later
    is still exact."""
    gi = W[24]
    if gi[S.GI_NEXT_SUBMIT] < W[6].shape[0]:
        return False
    if gi[S.GI_SEEN_PROG] != gi[S.GI_PROGRESS]:
        gi[S.GI_SEEN_PROG] = gi[S.GI_PROGRESS]
        gi[S.GI_SEEN_SET] = 0
        gi[S.GI_QUIET] = 0
        return False
    gi[S.GI_QUIET] += 1
    return gi[S.GI_QUIET] >= S.QUIET_CHECKS and _repeats(W, _v3_state(W))


@kernel_jit
def _v3_state(W):
    """Everything a Hadoop 3 run's future depends on at an update() check, times relative
    to now, flattened: the Hadoop 1/2 state (running attempts, stages, min-share timers),
    each runnable app's fair-share timer, re-check time and last starvation amounts, each
    node's claims (`claims.py`), and the pending events in (time, seq) order, since even one
    for an attempt that has ended makes an iteration that schedules a check."""
    lf = W[52]
    qs, qsf, qi, jf, ji, ai, hk = W[0], W[1], W[4], W[8], W[9], W[20], W[21]
    hi, gf, gi = W[22], W[23], W[24]
    t = gf[S.G_NOW]
    base = _v12_state(W)
    nh = gi[S.GI_HEAP_N]
    nodei, clf, cli = W[41], W[43], W[44]
    nn = nodei.shape[0]
    out = np.empty(base.shape[0] + 7 * ji.shape[0] + 3 * nh + 3 * gi[S.GI_CLAIM_LIVE] + nn + 2)
    out[: base.shape[0]] = base
    n = base.shape[0]
    for leaf in range(qs.shape[0]):
        if qs[leaf, S.QS_LEAF] == 0:
            continue
        timeout = qsf[leaf, S.QSF_FAIR_TO]
        j = qi[leaf, S.QI_APP_HEAD]
        while j >= 0:
            last = jf[j, S.JF_LFAIR]
            nxt = jf[j, S.JF_NCHECK]
            out[n] = j
            if last == -S.INF or timeout == S.INF:
                out[n + 1] = S.INF if last == -S.INF else 1.0  # not starved / never acts
            else:
                out[n + 1] = -S.INF if t - last >= timeout else last - t + 0.0
            out[n + 2] = -S.INF if nxt <= t else nxt - t + 0.0
            out[n + 3] = jf[j, S.JF_FSTARV] + 0.0
            out[n + 4] = jf[j, S.JF_FSTARV + 1] + 0.0
            out[n + 5] = jf[j, S.JF_MSTARV] + 0.0
            out[n + 6] = jf[j, S.JF_MSTARV + 1] + 0.0
            n += 7
            j = ji[j, S.JI_APP_NEXT]
    out[n] = -3.0
    n += 1
    cluster = W[26]
    for node in range(nn):  # each node's claims in list order, saturated (see the module)
        e = nodei[node, S.NI_CL_HEAD]
        while e >= 0:
            out[n] = cli[e, S.CL_APP]
            out[n + 1] = min(clf[e, 0], cluster[0]) + 0.0
            out[n + 2] = min(clf[e, 1], cluster[1]) + 0.0
            n += 3
            e = cli[e, S.CL_NEXT]
        out[n] = -4.0
        n += 1
    order = np.argsort(hk[:nh, S.HK_SEQ])
    order = order[np.argsort(hk[:nh, S.HK_KEY][order], kind="mergesort")]
    for i in range(nh):
        e = order[i]
        kind = hi[e, S.HI_KIND]
        ident = hi[e, S.HI_IDENT]
        what = -1  # an event that does nothing when it comes (its attempt has ended)
        if kind == S.REASK:  # ident: the AM's attempt
            j = hi[e, S.HI_JOB]
            if ji[j, S.JI_AM_ATT] == ident and ji[j, S.JI_AM_STATE] == 3:
                what = hi[e, S.HI_TASK]
        elif kind == S.AM_READY or kind == S.AM_ASK:  # ident: the AM's attempt
            j = -1 - ai[ident, S.AI_TASK]
            if ji[j, S.JI_AM_ATT] == ident and ji[j, S.JI_AM_STATE] == (
                2 if kind == S.AM_READY else 3
            ):
                what = j
        elif kind == S.HANG:
            continue  # `_hang_timers` stand for it
        elif kind == S.HEARTBEAT or kind == S.CONTINUOUS:
            what = ident
        elif ai[ident, S.AI_STATE] == S.RUNNING and (
            kind == S.END
            or lf[ai[ident, S.AI_LIVE], S.LF_MARK] == float_from_ordered(hk[e, S.HK_KEY])
        ):
            what = ai[ident, S.AI_TASK]
        out[n] = float_from_ordered(hk[e, S.HK_KEY]) - t + 0.0
        out[n + 1] = kind
        out[n + 2] = what
        n += 3
    out[n] = -3.0
    n += 1
    if W[25][S.C_CS] != 0.0:
        return np.concatenate((out[:n], _cs_state(W)))
    return out[:n]


@kernel_jit
def _cs_state(W):
    """The Capacity Scheduler's own state at a monitor round: each running attempt's mark,
    in rounds before this one (-1: none); each stage's missed opportunities, capped at the
    node count + 1 (every test of them compares with at most the node count); each job's
    state and AM state (its AM events are no progress here); and the next round, relative
    to now."""
    li = W[51]
    ji, si, ai, gf, gi, cfg, warned = W[9], W[14], W[20], W[23], W[24], W[25], W[28]
    t = gf[S.G_NOW]
    k = math.floor(t / cfg[S.C_CS_INTERVAL] + 0.5)
    nj, ns = ji.shape[0], si.shape[0]
    n_run = 0
    a = gi[S.GI_RUN_HEAD]
    while a >= 0:
        n_run += 1
        a = li[ai[a, S.AI_LIVE], S.LI_RUN_NEXT]
    out = np.empty(n_run + ns + 2 * nj + 1)
    n = 0
    a = gi[S.GI_RUN_HEAD]
    while a >= 0:
        out[n] = -1.0
        for i in range(gi[S.GI_WARNED_N]):
            if warned[2 * i] == a:
                out[n] = k - warned[2 * i + 1]
        n += 1
        a = li[ai[a, S.AI_LIVE], S.LI_RUN_NEXT]
    for s in range(ns):
        out[n] = min(si[s, S.SI_CS_MISSED], cfg[S.C_CS_NODES] + 1.0)
        n += 1
    for j in range(nj):
        out[n] = ji[j, S.JI_STATE]
        out[n + 1] = ji[j, S.JI_AM_STATE]
        n += 2
    out[n] = gf[S.G_NEXT_CHECK] - t + 0.0 if gf[S.G_NEXT_CHECK] < S.INF else 1.0
    return out[: n + 1]
