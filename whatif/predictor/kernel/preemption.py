"""Preemption, Hadoop 3: starvation at update() times and the containers taken for it.

The reference engine's ``reference/preemption.py`` is this module's pure-Python twin; it
follows the same steps.

Preemption, Hadoop 3 (at update() times, multiples of the update interval, the first one
after any event or timer; only while max(memory, vcores) utilization > threshold; no
timers are updated otherwise): per leaf with a finite timeout, apps with pending demand
and past their re-check time, in the leaf policy order: fair-share starvation
(fairDemand = min(floor(appFairShare * threshold), demand), starved while usage <
fairDemand by the policy's calculator, acting once starved for the timeout, ``now - last
>= timeout`` as FSAppAttempt.fairShareStarvation and FSLeafQueue.minShareStarvation test
it; the scan stops at the first app that is not acting), then the leaf's min-share
starvation (min(minShare, demand) - usage after the timeout, less the fair-share
starvation) handed out in the same order as Hadoop does. Each starved app (in the order
found): for each request in priority order, floor(starvation / request) containers
(capped by the count pending); for each, victims are scanned over running non-AM
containers newest first: a container is taken if its queue allows preemption and its app
stays at or above its fair share without it (after containers already marked and already
taken for this container); the scan stops as soon as free + taken resources fit the
request (a scan that never fits takes nothing). Taken containers are killed
``wait_time_before_kill_s`` later; the app is not re-checked for
``starvation_recheck_delay_s``. AM containers are never victims. Each victim's resources
are claimed for the starved app on the victim's node (`claims.py`).
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.apptree import _any_view, _key_before, _keyed, _preorder_next, _retree
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.claims import _claim_add
from whatif.predictor.kernel.events import _grid_after, _grid_at_or_after, heap_push
from whatif.predictor.kernel.fairshare import _app_fair, _app_shares
from whatif.predictor.kernel.ordering import _cmp_apps
from whatif.predictor.kernel.queues import _demand, _up
from whatif.predictor.kernel.requests import _head_task, _stage_priority
from whatif.predictor.kernel.resources import _below, java_int, jdiv, res_compare
from whatif.predictor.kernel.starvation import (
    _clear_min_starvation,
    _next_recheck,
    _set_min_starvation,
    _set_recheck,
)
from whatif.predictor.kernel.victims import (
    _free_remove,
    _held_changed,
    _victim_candidates,
    _victims_for,
)


@kernel_jit
def _gate(W):
    """max(memory, vcores) utilization above the threshold."""
    gf, cfg, cluster = W[23], W[25], W[26]
    c0 = cluster[0] if cluster[0] > 0 else 1.0
    c1 = cluster[1] if cluster[1] > 0 else 1.0
    u0 = 1.0 - gf[S.G_FREE] / c0
    u1 = 1.0 - gf[S.G_FREE + 1] / c1 if cluster[1] > 0 else 0.0
    return max(u0, u1) > cfg[S.C_UTIL]


@kernel_jit
def _order_next(W, leaf, t, stamp):
    """The leaf's next app in policy order among those with pending demand past their
    re-check time and not yet returned in this scan (`stamp`); -1 if none. Marks it.

    A preorder walk of the any-view tree that leaves it as it is: a subtree is entered
    only if its winner is to be passed over, and skipped once its winner ranks after the
    best app found (the winner is the best app below it)."""
    qs, qi, jf, ji, tree, tnode = W[0], W[4], W[8], W[9], W[31], W[34]
    view = _any_view(W)
    p = qi[leaf, S.QI_TREE_P]
    base = qi[leaf, S.QI_TREE_OFF] + view * 2 * p
    policy = qs[leaf, S.QS_POLICY]
    keyed = _keyed(W, policy)
    root = qi[leaf, S.QI_TREE_ROOT]
    best = -1
    best_row = -1
    passed = -1  # the app passed over last: below it, its path needs no second look
    node = root
    while True:
        w = tree[np.uint64(base + node)]  # unsigned: no negative-index wraparound
        down = False
        if w == passed:
            # it still ranks before `best`: anything found since lies in its subtree
            down = node < p
        elif w >= 0 and (
            best < 0
            or (
                _key_before(tnode, base + node, best_row)
                if keyed
                else _cmp_apps(W, policy, 0, w, best, False) < 0
            )
        ):
            if ji[w, S.JI_TRIED] == stamp or t < jf[w, S.JF_NCHECK]:
                down = node < p
                passed = w
            else:
                best = w
                best_row = base + node
        node = _preorder_next(node, root, down)
        if node < 0:
            break
    if best >= 0:
        ji[best, S.JI_TRIED] = stamp
    return best


@kernel_jit
def _nth_in_order(W, leaf, t, stamp, i, k_ord, more):
    """The leaf's `i`-th app in policy order in this check (-1: none), read from its tree
    (`_order_next`, into jbuf[:, 2]) only when `i` is past the `k_ord` apps read so far;
    returns (app, k_ord, more), `more` false once the tree has no more."""
    ordered = W[30][:, 2]
    if i >= k_ord:
        if more:
            j = _order_next(W, leaf, t, stamp)
            more = j >= 0
            if more:  # no -1 stored: after a leaf's every app it would fall past the rows
                ordered[k_ord] = j
        if not more:
            return -1, k_ord, more
        k_ord += 1
    return ordered[i], k_ord, more


@kernel_jit
def _list_starved(W, j, stamp, n):
    """List app `j` among the check's `n` starved apps (jbuf[:, 0]) unless it is there;
    returns the new count."""
    ji, jbuf = W[9], W[30]
    if ji[j, S.JI_STARVED] != stamp:
        ji[j, S.JI_STARVED] = stamp
        jbuf[n, 0] = j
        n += 1
    return n


@kernel_jit
def _preempt_v3(W):
    """FSLeafQueue.updateStarvedApps + FSPreemptionThread, at an update() time.

    The apps a leaf scans (`_scanned`) are read in policy order from the leaf's tree, only
    as far as the scans go; the re-check times ahead come from a ring in time order and
    the min-share amounts to reset from the list of nonzero ones, so a check does not
    visit every app."""
    qs, qsf, qf, jf, gf, gi, cfg = W[0], W[1], W[3], W[8], W[23], W[24], W[25]
    cluster, jbuf = W[26], W[30]
    gf[S.G_NEXT_CHECK] = S.INF
    if not _gate(W):
        return
    t = gf[S.G_NOW]
    nxt_check = _next_recheck(W, t)
    gi[S.GI_EPOCH] += 1
    starved_stamp = gi[S.GI_EPOCH]
    n_starved = 0
    ordered = jbuf[:, 2]
    for leaf in range(qs.shape[0]):
        if qs[leaf, S.QS_LEAF] == 0:
            continue
        timeout = qsf[leaf, S.QSF_FAIR_TO]
        min_timeout = qsf[leaf, S.QSF_MIN_TO]
        if timeout == S.INF and min_timeout == S.INF:
            continue
        _app_shares(W, leaf)
        policy = qs[leaf, S.QS_POLICY]
        gi[S.GI_EPOCH] += 1
        stamp = gi[S.GI_EPOCH]
        k_ord = 0  # apps read in order so far (in `ordered`)
        more = True  # whether the tree may hold more
        _retree(W)
        threshold = qsf[leaf, S.QSF_THRESH]
        f0 = 0.0
        f1 = 0.0
        i = 0
        while True:
            j, k_ord, more = _nth_in_order(W, leaf, t, stamp, i, k_ord, more)
            if j < 0:
                break
            fd0 = min(
                math.floor(_app_fair(W, j, 0) * threshold), jf[j, S.JF_USE] + jf[j, S.JF_PEND]
            )
            fd1 = min(
                math.floor(_app_fair(W, j, 1) * threshold),
                jf[j, S.JF_USE + 1] + jf[j, S.JF_PEND + 1],
            )
            is_starved = _below(W, policy, jf[j, S.JF_USE], jf[j, S.JF_USE + 1], fd0, fd1)
            if not is_starved:
                jf[j, S.JF_LFAIR] = -S.INF
            elif jf[j, S.JF_LFAIR] == -S.INF:
                jf[j, S.JF_LFAIR] = t
            if not is_starved or t - jf[j, S.JF_LFAIR] < timeout:
                jf[j, S.JF_FSTARV] = 0.0
                jf[j, S.JF_FSTARV + 1] = 0.0
                if is_starved:
                    e = jf[j, S.JF_LFAIR] + timeout
                    if e > t and e < nxt_check:
                        nxt_check = e
                break
            jf[j, S.JF_FSTARV] = max(fd0 - jf[j, S.JF_USE], 0.0)
            jf[j, S.JF_FSTARV + 1] = max(fd1 - jf[j, S.JF_USE + 1], 0.0)
            n_starved = _list_starved(W, j, starved_stamp, n_starved)
            f0 += jf[j, S.JF_FSTARV]
            f1 += jf[j, S.JF_FSTARV + 1]
            i += 1
        d0, d1 = _demand(W, leaf)
        st0 = max(min(qsf[leaf, S.QSF_MIN], d0) - qf[leaf, S.QF_USE], 0.0)
        st1 = max(min(qsf[leaf, S.QSF_MIN + 1], d1) - qf[leaf, S.QF_USE + 1], 0.0)
        p0 = 0.0
        p1 = 0.0
        if st0 == 0.0 and st1 == 0.0:
            qf[leaf, S.QF_LMIN] = -S.INF
        else:
            if qf[leaf, S.QF_LMIN] == -S.INF:
                qf[leaf, S.QF_LMIN] = t
            if t - qf[leaf, S.QF_LMIN] >= min_timeout:
                p0 = max(st0 - f0, 0.0)
                p1 = max(st1 - f1, 0.0)
            else:
                e = qf[leaf, S.QF_LMIN] + min_timeout
                if e > t and e < nxt_check:
                    nxt_check = e
        i = 0
        while p0 != 0.0 or p1 != 0.0:
            j, k_ord, more = _nth_in_order(W, leaf, t, stamp, i, k_ord, more)
            if j < 0:
                break
            a0 = max(jf[j, S.JF_PEND] - jf[j, S.JF_FSTARV], 0.0)
            a1 = max(jf[j, S.JF_PEND + 1] - jf[j, S.JF_FSTARV + 1], 0.0)
            if res_compare(policy, a0, a1, p0, p1, cluster[0], cluster[1]) > 0:
                a0 = max(a0 - p0, 0.0)
                a1 = max(a1 - p1, 0.0)
                p0 = 0.0
                p1 = 0.0
            else:
                p0 = max(p0 - a0, 0.0)
                p1 = max(p1 - a1, 0.0)
            _set_min_starvation(W, j, a0, a1)
            n_starved = _list_starved(W, j, starved_stamp, n_starved)
            i += 1
        # every other scanned app gets none: those read in order, then those never read
        for r in range(i, k_ord):
            _set_min_starvation(W, ordered[r], 0.0, 0.0)
        _clear_min_starvation(W, leaf, t, stamp)
    if n_starved > 0:
        # marking victims only lowers the bound, so one computed now stays an upper bound
        heads, bound0 = _victim_candidates(W)
        for i in range(n_starved):
            j = jbuf[i, 0]
            _preempt_for(W, heads, j, bound0)
            _set_recheck(W, j, t + cfg[S.C_RECHECK])
            if jf[j, S.JF_NCHECK] > t and jf[j, S.JF_NCHECK] < nxt_check:
                nxt_check = jf[j, S.JF_NCHECK]
    # checks fall on the update grid: the first one a timer expires by, and the next one
    # after a check that found starved apps (those are skipped then, so others may starve)
    if nxt_check < S.INF:
        nxt_check = _grid_at_or_after(nxt_check, cfg[S.C_UPDATE])
    if n_starved > 0:
        nxt_check = min(nxt_check, _grid_after(t, cfg[S.C_UPDATE]))
    gf[S.G_NEXT_CHECK] = nxt_check


@kernel_jit
def _requests(W, j, out_cap, out_n):
    """The app's outstanding requests in priority order; returns how many."""
    js, jsf, ji, si, tsf = W[6], W[7], W[9], W[14], W[17]
    if ji[j, S.JI_AM_STATE] == 1:
        out_cap[0, 0] = jsf[j, S.JSF_AM]
        out_cap[0, 1] = jsf[j, S.JSF_AM + 1]
        out_n[0] = 1
        return 1
    n = 0
    lo = js[j, S.JS_ST_LO]
    hi = js[j, S.JS_ST_HI]
    used = np.zeros(hi - lo, dtype=np.bool_)
    while True:
        best = -1
        for s in range(lo, hi):
            if (
                used[s - lo]
                or si[s, S.SI_RELEASED] == 0
                or si[s, S.SI_HELD] == 1
                or si[s, S.SI_PENDING] <= 0
                or si[s, S.SI_ASKED] == 0
            ):
                continue
            if best < 0 or _stage_priority(W, s) < _stage_priority(W, best):
                best = s
        if best < 0:
            return n
        used[best - lo] = True
        task = _head_task(W, best)
        out_cap[n, 0] = tsf[task, S.TSF_REQ]
        out_cap[n, 1] = tsf[task, S.TSF_REQ + 1]
        out_n[n] = si[best, S.SI_PENDING] if si[best, S.SI_ASKED] < 0 else si[best, S.SI_ASKED]
        n += 1


@kernel_jit
def _preempt_for(W, heads, j, bound0):
    """identifyContainersToPreempt for one starved app; victims are killed after the wait."""
    lf, li = W[52], W[51]
    qs, js, jf, ts, tsf, ai, hk = W[0], W[6], W[8], W[16], W[17], W[20], W[21]
    hi, gf, gi, cfg, vict = W[22], W[23], W[24], W[25], W[29]
    leaf = js[j, S.JS_QUEUE]
    policy = qs[leaf, S.QS_POLICY]
    p0 = jf[j, S.JF_FSTARV] + jf[j, S.JF_MSTARV]
    p1 = jf[j, S.JF_FSTARV + 1] + jf[j, S.JF_MSTARV + 1]
    nst = js[j, S.JS_ST_HI] - js[j, S.JS_ST_LO] + 1
    caps = np.empty((nst, 2))
    counts = np.empty(nst, dtype=np.int64)
    nreq = _requests(W, j, caps, counts)
    gi[S.GI_EPOCH] += 1
    # ai is int32: stamps wrap, harmlessly, as every chosen container is marked by the end
    chosen = (gi[S.GI_EPOCH] & 0x3FFFFFFF) + 1
    nv = 0
    for r in range(nreq):
        if p0 == 0.0 and p1 == 0.0:
            break
        c0 = caps[r, 0]
        c1 = caps[r, 1]
        if policy == 2:
            ratio = max(jdiv(p0, c0), jdiv(p1, c1))
        else:
            ratio = jdiv(p0, c0)
        if ratio == ratio and abs(ratio) != S.INF:
            fit = java_int(math.floor(ratio))
        else:
            fit = java_int(ratio)
        if fit == 0:
            continue  # getStarvedResourceRequests: a capability too large for pending
        n = min(fit, counts[r])
        p0 = p0 - c0 * n
        p1 = p1 - c1 * n
        if c0 > bound0:
            # even every candidate together with free resources cannot fit it
            continue
        resume = -1
        for _ in range(n):
            before = nv
            nv, resume = _victims_for(W, heads, c0, c1, chosen, nv, resume)
            if nv == before:
                # nothing changed, so every further scan for this request fails too
                break
            # trackContainerForPreemption as each container's victims are found: the next
            # scan's fair-share test sees them (an app gives up only what keeps its share)
            for k in range(before, nv):
                a = vict[k]
                task = ai[a, S.AI_TASK]
                vj = ts[task, S.TS_JOB]
                r0 = tsf[task, S.TSF_REQ]
                r1 = tsf[task, S.TSF_REQ + 1]
                jf[vj, S.JF_TBP] += r0
                jf[vj, S.JF_TBP + 1] += r1
                _held_changed(W, vj)
                _up(W, S.QF_TBP, js[vj, S.JS_QUEUE], r0, r1)
    for i in range(nv):
        a = vict[i]
        task = ai[a, S.AI_TASK]
        vj = ts[task, S.TS_JOB]
        r0 = tsf[task, S.TSF_REQ]
        r1 = tsf[task, S.TSF_REQ + 1]
        lf[ai[a, S.AI_LIVE], S.LF_MARK] = gf[S.G_NOW] + cfg[S.C_WAIT_KILL]
        _free_remove(W, a, vj)
        heap_push(hk, hi, gi, lf[ai[a, S.AI_LIVE], S.LF_MARK], S.KILL, a, task, vj)
        _claim_add(W, max(li[ai[a, S.AI_LIVE], S.LI_NODE], 0), j, r0, r1)
