"""The Capacity Scheduler's preemption monitor (``ProportionalCapacityPreemptionPolicy``
with its default ``FifoCandidatesSelector``), memory only (DefaultResourceCalculator).

The reference engine's ``reference/capacity_preemption.py`` is this module's pure-Python
twin. Rules from Hadoop 3.x (``docs/capacity-scheduler.md``, section 6):

- Rounds. ``editSchedule`` runs at every multiple of ``monitoring_interval`` from the
  ResourceManager's start (time 0), after the events of that time. A round that would
  find the state of the previous round, with no container marked, would do nothing, so
  rounds are only run at the first multiple at or after an event time (one round a time:
  events after it at the same time wait for the next multiple) and, while marks are held
  or after a round killed, at the next multiple (`_cs_monitor`).
- Snapshot. Per queue: used memory (AM containers included), guaranteed and maximum
  memory (the mode's guarantee and maximum, truncated to whole MB as Hadoop's
  ``Resources.multiply`` does), and for a leaf its pending memory within user limits
  (``LeafQueue.getTotalPendingResourcesConsideringUserLimit``: per user, the least of its
  runnable apps' pending memory and its user limit less its usage, at least 0); a
  parent's pending is its children's sum. The round's budget B is the cluster's memory x
  ``total_preemption_per_round`` (a Java float), truncated.
- Extras (``TempQueuePerPartition.updatePreemptableExtras``, bottom-up): a leaf's
  usage above its guarantee is untouchable if it has ``disable_preemption``, else
  preemptable; a parent's untouchable extra is its own excess less its children's
  preemptable extras (at least 0).
- Ideal allocation (``PreemptableResourceCalculator``): root's ideal is its guarantee;
  each parent's ideal is split among its children (`_cs_distribute`): first among
  children with a guarantee > 0, then, if some is left, equally among those without
  (`_cs_fixpoint`: each starts at guarantee + untouchable extra if above its guarantee,
  else at its usage; the ones below usage + pending take, round after round, the
  unassigned memory x their share of the guarantees still asking, offered first to
  those with the least ideal / guarantee (Java float ratios; ties all at once), each
  accepting at most its maximum, its usage + pending and, for a leaf, max(guarantee,
  usage) less its ideal; offers are rounded half up to whole MB). Needed = sum of
  usage - ideal over children above their ideal; each child's to-preempt is (usage -
  max(min(usage + pending, guarantee), ideal)) x min(1, B / needed) (a Java float),
  truncated, when positive.
- A leaf (not ``disable_preemption``) yields only when its usage is above its guarantee
  x (1 + ``max_ignored_over_capacity``), truncated: then its to-obtain is its
  to-preempt x ``natural_termination_factor``, rounded half up.
- Victims (`_cs_take`), leaf by leaf in the tree's order (Hadoop: a hash set's), while
  the leaf's to-obtain is above 0: apps in reverse ordering-policy order (fifo: newest
  first; fair: most used memory first (with size-based weight, the largest magnitude,
  `capacity._cs_magnitude`), then the later submitted, then the later app),
  each app's running containers by request priority, numerically largest first
  (maps before reduces), then the newest first; a container is taken when its memory
  is within what is left of B, and is deducted from the to-obtain and from B. AM
  containers met while the to-obtain is above 0 are set aside (``preemptFrom``), then
  (``preemptAMContainers``, `_cs_take_ams`) taken in the order set aside, by the same
  rule, while the to-obtain is above 0 and the set-aside AMs' memory (less those taken)
  is above the leaf's max AM capacity: its guarantee (truncated) x
  ``maximum-am-resource-percent`` (a Java float), truncated.
- Marks (``preemptOrkillSelectedContainerAfterWait``, `_cs_marks`): a selected container
  without a mark is marked (nothing else happens: the AM is only told); one selected
  again by a round at or after its mark + ``max_wait_before_kill`` is killed at once
  (lazy preemption off, the default), in selection order, its task re-run as any killed
  attempt (``phases._end_attempt``); a killed AM fails its app's attempt, which restarts
  (``phases._am_preempted``: the attempt's other containers are killed, a new AM is
  asked for at once, and the MapReduce AM recovers the completed tasks); a mark is
  dropped by the first round more than 2 x ``max_wait_before_kill`` after it
  (``cleanupStaledPreemptionCandidates``). Times are whole rounds (Hadoop's clock reads
  a few ms after each tick). What a kill frees is not earmarked: node heartbeats
  allocate it by the usual rules.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.capacity import (
    _cs_magnitude,
    _cs_user_limit,
    _cs_weighted,
    _unmark_users,
)
from whatif.predictor.kernel.phases import _am_preempted, _end_attempt

JAVA_INT_MAX = 2147483647.0  # TQComparator: a queue without a guarantee is the most served


@kernel_jit
def _f32_ratio(a, b):
    """Java's ``(float) a / b`` of two longs, as a double."""
    return float(np.float32(a) / np.float32(b))


@kernel_jit
def _cs_pending(W, leaf):
    """The leaf's pending memory within user limits (see the module docstring)."""
    js, jf, ji, qi, jbuf = W[6], W[8], W[9], W[4], W[30]
    common = _cs_user_limit(W, leaf)
    _unmark_users(W, leaf)
    total = 0.0
    j = qi[leaf, S.QI_APP_HEAD]
    while j >= 0:
        u = js[j, S.JS_USER]
        if jbuf[u, 0] == 0:
            jbuf[u, 0] = 1
            limit = _cs_weighted(W, common, j)  # the user's own (its weight in the leaf)
            used = 0.0
            pend = 0.0
            k = j
            while k >= 0:
                if js[k, S.JS_USER] == u:
                    used += jf[k, S.JF_USE]
                    pend += jf[k, S.JF_PEND]
                k = ji[k, S.JI_APP_NEXT]
            total += min(max(limit - used, 0.0), pend)
        j = ji[j, S.JI_APP_NEXT]
    return total


@kernel_jit
def _cs_dead_zone(W, q):
    """Whether leaf `q` may yield: preemption not disabled, and its usage above its
    guarantee x (1 + max_ignored_over_capacity), truncated."""
    qsf, qf, cfg = W[1], W[3], W[25]
    if qsf[q, S.QSF_CS_NOPREEMPT] != 0.0:
        return False
    g = math.floor(qsf[q, S.QSF_CS_GUAR])
    return qf[q, S.QF_USE] > math.floor(g * (1.0 + cfg[S.C_CS_IGNORED]))


@kernel_jit
def _cs_fixpoint(W, q, zero, unassigned, U, P, G, M, ideal, untouch, active):
    """computeFixpointAllocation over `q`'s children with (`zero`: without) a guarantee;
    returns what is left unassigned."""
    qs, children = W[0], W[2]
    lo, hi = qs[q, S.QS_CH_LO], qs[q, S.QS_CH_HI]
    for k in range(lo, hi):
        c = children[k]
        active[c] = False
        if (G[c] > 0.0) == zero:
            continue
        ideal[c] = G[c] + untouch[c] if U[c] > G[c] else U[c]
        unassigned -= ideal[c]
        active[c] = ideal[c] < U[c] + P[c]
    while unassigned > 0.0:
        n = 0
        total_g = 0.0
        best = math.inf
        for k in range(lo, hi):
            c = children[k]
            if active[c]:
                n += 1
                total_g += G[c]
                r = _f32_ratio(ideal[c], G[c]) if G[c] > 0.0 else JAVA_INT_MAX
                best = min(best, r)
        if n == 0:
            break
        taken = 0.0
        for k in range(lo, hi):
            c = children[k]
            if not active[c]:
                continue
            r = _f32_ratio(ideal[c], G[c]) if G[c] > 0.0 else JAVA_INT_MAX
            if r != best:
                continue
            share = float(np.float32(1.0) / np.float32(n)) if zero else _f32_ratio(G[c], total_g)
            avail = math.floor(unassigned * share + 0.5)
            accepted = min(max(M[c] - ideal[c], 0.0), min(avail, U[c] + P[c] - ideal[c]))
            if qs[c, S.QS_LEAF] == 1:
                accepted = min(accepted, max(max(U[c], G[c]) - ideal[c], 0.0))
            ideal[c] += accepted
            active[c] = accepted > 0.0
            taken += accepted
        unassigned -= taken
    return unassigned


@kernel_jit
def _cs_distribute(W, q, budget, U, P, G, M, ideal, untouch, tbp, active):
    """computeIdealResourceDistribution of `q`'s ideal among its children, and each
    child's to-preempt (scaled to the round's budget)."""
    qs, children = W[0], W[2]
    lo, hi = qs[q, S.QS_CH_LO], qs[q, S.QS_CH_HI]
    unassigned = _cs_fixpoint(W, q, False, ideal[q], U, P, G, M, ideal, untouch, active)
    zeros = False
    for k in range(lo, hi):
        zeros = zeros or G[children[k]] <= 0.0
    if zeros and unassigned > 0.0:
        _cs_fixpoint(W, q, True, unassigned, U, P, G, M, ideal, untouch, active)
    needed = 0.0
    for k in range(lo, hi):
        c = children[k]
        if U[c] > ideal[c]:
            needed += U[c] - ideal[c]
    scale = 1.0
    if needed > budget:
        scale = _f32_ratio(budget, needed)
    for k in range(lo, hi):
        c = children[k]
        keep = max(min(U[c] + P[c], G[c]), ideal[c])
        tbp[c] = math.floor((U[c] - keep) * scale) if U[c] > keep else 0.0


@kernel_jit
def _cs_to_obtain(W, budget):
    """Each leaf's to-obtain this round (nq,), MB (0: it yields nothing)."""
    qs, qsf, qf, cfg = W[0], W[1], W[3], W[25]
    nq = qs.shape[0]
    U = np.empty(nq)
    P = np.zeros(nq)
    G = np.empty(nq)
    M = np.empty(nq)
    ideal = np.zeros(nq)
    untouch = np.zeros(nq)
    spare = np.zeros(nq)  # preemptable extra
    tbp = np.zeros(nq)
    active = np.zeros(nq, dtype=np.bool_)
    for q in range(nq):
        U[q] = qf[q, S.QF_USE]
        G[q] = math.floor(qsf[q, S.QSF_CS_GUAR])
        M[q] = math.floor(qsf[q, S.QSF_MAX])
    children = W[2]
    for q in range(nq - 1, -1, -1):  # children come after their parent
        extra = max(U[q] - G[q], 0.0)
        if qs[q, S.QS_LEAF] == 1:
            P[q] = _cs_pending(W, q)
            if qsf[q, S.QSF_CS_NOPREEMPT] != 0.0:
                untouch[q] = extra
            else:
                spare[q] = extra
        else:
            below = 0.0
            for k in range(qs[q, S.QS_CH_LO], qs[q, S.QS_CH_HI]):
                P[q] += P[children[k]]
                below += spare[children[k]]
            untouch[q] = 0.0 if below >= extra else extra - below
            spare[q] = min(below, extra)
    ideal[0] = G[0]
    for q in range(nq):
        if qs[q, S.QS_LEAF] == 0:
            _cs_distribute(W, q, budget, U, P, G, M, ideal, untouch, tbp, active)
    obtain = np.zeros(nq)
    for q in range(nq):
        if qs[q, S.QS_LEAF] == 1 and _cs_dead_zone(W, q) and tbp[q] > 0.0:
            obtain[q] = math.floor(tbp[q] * cfg[S.C_CS_NATURAL] + 0.5)
    return obtain


@kernel_jit
def _cs_take(W, leaf, obtain, budget, nsel):
    """FifoCandidatesSelector on one leaf: select its containers into vict[nsel:];
    returns the new count and what is left of the budget."""
    li = W[51]
    js, jsf, ji, qs, qi = W[6], W[7], W[9], W[0], W[4]
    ss, ts, tsf, ai, gi, jbuf, vict = W[12], W[16], W[17], W[20], W[24], W[30], W[29]
    n = 0
    j = qi[leaf, S.QI_APP_HEAD]
    while j >= 0:
        n += 1
        j = ji[j, S.JI_APP_NEXT]
    apps = np.empty(n, dtype=np.int64)
    k0 = np.empty(n)
    k1 = np.empty(n)
    i = 0
    j = qi[leaf, S.QI_APP_HEAD]
    fair = qs[leaf, S.QS_POLICY] == 0
    while j >= 0:
        apps[i] = j
        k0[i] = _cs_magnitude(W, leaf, j) if fair else 0.0
        k1[i] = jsf[j, S.JSF_SUBMIT] if fair else 0.0
        i += 1
        j = ji[j, S.JI_APP_NEXT]
    # reverse policy order: descending (k0, k1, app), as three stable sorts
    order = np.argsort(-apps, kind="mergesort")
    order = order[np.argsort(-k1[order], kind="mergesort")]
    order = order[np.argsort(-k0[order], kind="mergesort")]
    for i in range(n):
        jbuf[apps[order[i]], 2] = i
    m = 0
    a = gi[S.GI_RUN_HEAD]
    while a >= 0:
        m += js[_attempt_job(W, a), S.JS_QUEUE] == leaf
        a = li[ai[a, S.AI_LIVE], S.LI_RUN_NEXT]
    cand = np.empty(m, dtype=np.int64)
    pos = np.empty(m, dtype=np.int64)
    prio = np.empty(m, dtype=np.int64)
    i = 0
    a = gi[S.GI_RUN_HEAD]
    while a >= 0:
        task = ai[a, S.AI_TASK]
        j = _attempt_job(W, a)
        if js[j, S.JS_QUEUE] == leaf:
            cand[i] = a
            pos[i] = jbuf[j, 2]
            prio[i] = ss[ts[task, S.TS_STAGE], S.SS_PRIO] if task >= 0 else 0  # an AM's is 0
            i += 1
        a = li[ai[a, S.AI_LIVE], S.LI_RUN_NEXT]
    # by app, then priority numerically largest first, then the newest container first
    order = np.argsort(-cand, kind="mergesort")
    order = order[np.argsort(-prio[order], kind="mergesort")]
    order = order[np.argsort(pos[order], kind="mergesort")]
    skipped = np.empty(m, dtype=np.int64)
    n_am = 0
    for i in range(m):
        if obtain <= 0.0:
            break
        a = cand[order[i]]
        task = ai[a, S.AI_TASK]
        if task < 0:
            skipped[n_am] = a  # an AM container: set aside (see the module docstring)
            n_am += 1
            continue
        size = tsf[task, S.TSF_REQ]
        if size <= budget:
            obtain -= size
            budget -= size
            vict[nsel] = a
            nsel += 1
    return _cs_take_ams(W, leaf, skipped[:n_am], obtain, budget, nsel)


@kernel_jit
def _cs_take_ams(W, leaf, skipped, obtain, budget, nsel):
    """preemptAMContainers: the leaf's set-aside AM containers, in the order set aside,
    while the leaf still has to obtain and their memory exceeds its max AM capacity
    (guarantee x maximum-am-resource-percent, a Java float, truncated); returns the new
    count and what is left of the budget."""
    jsf, ai, vict = W[7], W[20], W[29]
    left = 0.0
    for i in range(skipped.shape[0]):
        left += jsf[-1 - ai[skipped[i], S.AI_TASK], S.JSF_AM]
    pct = float(np.float32(W[1][leaf, S.QSF_CS_AM]))
    cap = math.floor(math.floor(W[1][leaf, S.QSF_CS_GUAR]) * pct)
    for i in range(skipped.shape[0]):
        if obtain <= 0.0 or left <= cap:
            break
        a = skipped[i]
        size = jsf[-1 - ai[a, S.AI_TASK], S.JSF_AM]
        if size <= budget:
            obtain -= size
            budget -= size
            left -= size
            vict[nsel] = a
            nsel += 1
    return nsel, budget


@kernel_jit
def _mark(W, n, a, k):
    """Keep attempt `a` as the `n`th marked container, marked in round `k`; returns n + 1."""
    warned = W[28]
    warned[2 * n] = a
    warned[2 * n + 1] = k
    W[51][W[20][a, S.AI_LIVE], S.LI_CHOSEN] = -2 - n  # its live row's
    return n + 1


@kernel_jit
def _cs_marks(W, nsel, k):
    """Mark, or kill after the wait, the `nsel` containers in vict selected by round `k`;
    returns how many were killed."""
    li = W[51]
    ai, gi, cfg, warned, vict = W[20], W[24], W[25], W[28], W[29]
    interval = cfg[S.C_CS_INTERVAL_MS]
    wait = cfg[S.C_CS_WAIT_MS]
    now = k * interval
    n = 0
    for i in range(gi[S.GI_WARNED_N]):
        a = warned[2 * i]
        m = warned[2 * i + 1]
        # kept by the previous round's cleanup (rounds skipped as idle included)
        if ai[a, S.AI_STATE] == S.RUNNING and m * interval + 2.0 * wait >= now - interval:
            n = _mark(W, n, a, m)
    killed = 0
    for i in range(nsel):
        a = vict[i]
        c = li[ai[a, S.AI_LIVE], S.LI_CHOSEN]
        if c <= -2:
            e = -2 - c
            if warned[2 * e + 1] * interval + wait <= now:
                li[ai[a, S.AI_LIVE], S.LI_CHOSEN] = 0
                warned[2 * e] = -1
                if ai[a, S.AI_TASK] < 0:
                    _am_preempted(W, a)  # its app's attempt fails: a new one starts
                else:
                    _end_attempt(W, a, S.KILLED)
                killed += 1
        else:
            n = _mark(W, n, a, k)
    keep = 0
    for i in range(n):
        a = warned[2 * i]
        m = warned[2 * i + 1]
        if a < 0:
            continue
        li[ai[a, S.AI_LIVE], S.LI_CHOSEN] = 0
        if m * interval + 2.0 * wait >= now:
            warned[2 * keep] = a
            warned[2 * keep + 1] = m
            keep += 1
    gi[S.GI_WARNED_N] = keep
    return killed


@kernel_jit
def _cs_monitor(W):
    """One round of the preemption monitor at the current time (a multiple of the
    interval); schedules the next round while marks are held. Returns the kills."""
    qs, cfg, gf, gi, cluster = W[0], W[25], W[23], W[24], W[26]
    interval_s = cfg[S.C_CS_INTERVAL]
    k = math.floor(gf[S.G_NOW] / interval_s + 0.5)
    nsel = 0
    nq = qs.shape[0]
    yields = False
    for q in range(nq):
        if qs[q, S.QS_LEAF] == 1 and _cs_dead_zone(W, q):
            yields = True
    if yields:
        budget = math.floor(cluster[0] * cfg[S.C_CS_ROUND])
        obtain = _cs_to_obtain(W, budget)
        for q in range(nq):
            if obtain[q] > 0.0:
                nsel, budget = _cs_take(W, q, obtain[q], budget, nsel)
    killed = _cs_marks(W, nsel, k)
    if gi[S.GI_WARNED_N] > 0 or killed > 0:  # held marks, or a state the kills changed
        gf[S.G_NEXT_CHECK] = min(gf[S.G_NEXT_CHECK], (k + 1.0) * interval_s)
    return killed


@kernel_jit
def _attempt_job(W, a):
    """The job of attempt `a` (an AM's attempt holds -1 - its job in place of a task)."""
    task = W[20][a, S.AI_TASK]
    return W[16][task, S.TS_JOB] if task >= 0 else -1 - task
