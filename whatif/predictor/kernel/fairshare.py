"""Fair shares: ComputeFairShares for queues, top-down, and for a leaf's apps.

The reference engine's ``reference/fairshare.py`` is this module's pure-Python twin; it
follows the same steps.

Fair shares: ComputeFairShares per dimension, top-down (`compute_shares`, a
twin of ``whatif.allocation.fairshare.compute_shares``); apps within a leaf share its fair
share with their weights (fifo: the earliest app gets all of it).
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit


@kernel_jit
def _planned(ratio, w, lo, hi, n, uniform):
    """The whole-number shares' total at `ratio`, capped at the Java int maximum. With
    every (w, lo, hi) alike it is n times one share: the same number, as sums of whole
    numbers are exact below 2**53, far above the cap."""
    if uniform:
        return min(n * math.floor(min(max(w[0] * ratio, lo[0]), hi[0])), S.JAVA_INT_MAX)
    total = 0.0
    for i in range(n):
        total += math.floor(min(max(w[i] * ratio, lo[i]), hi[i]))
    return min(total, S.JAVA_INT_MAX)


@kernel_jit
def compute_shares(weights, mins, maxs, total, active, use_active, out):
    """Twin of ``whatif.allocation.fairshare.compute_shares`` writing into `out`.

    weights, mins, maxs, out : float64 (n,); active : bool/int (n,) used when
    `use_active`; total : float64. Whole-number shares as ComputeFairShares gives.
    """
    n = weights.shape[0]
    w = np.empty(n)
    lo = np.empty(n)
    hi = np.empty(n)
    free_idx = np.empty(n, dtype=np.int64)
    m = 0
    taken = 0.0
    for i in range(n):
        out[i] = 0.0
        fixed = maxs[i] <= 0.0 or (use_active and not active[i])
        if not fixed and weights[i] <= 0.0:
            out[i] = max(mins[i], 0.0)
            fixed = True
        if fixed:
            taken += out[i]
        else:
            w[m] = weights[i]
            lo[m] = mins[i]
            hi[m] = maxs[i]
            free_idx[m] = i
            m += 1
    if m == 0:
        return
    cap_sum = 0.0
    for i in range(m):
        cap_sum += min(hi[i], 9.223372036854775807e18)
    remaining = min(cap_sum, max(total - taken, 0.0))
    uniform = True
    for i in range(1, m):
        if w[i] != w[0] or lo[i] != lo[0] or hi[i] != hi[0]:
            uniform = False
            break
    right = _share_ratio(w, lo, hi, m, uniform, remaining)
    for i in range(m):
        out[free_idx[i]] = math.floor(min(max(w[i] * right, lo[i]), hi[i]))


@kernel_jit
def _share_ratio(w, lo, hi, m, uniform, remaining):
    """ComputeFairShares' weight-to-resource ratio for m schedulables sharing `remaining`."""
    r_max = 1.0
    while _planned(r_max, w, lo, hi, m, uniform) < remaining:
        r_max *= 2.0
    left = 0.0
    right = r_max
    for _ in range(S.BISECTION_ROUNDS):
        mid = (left + right) / 2.0
        planned = _planned(mid, w, lo, hi, m, uniform)
        if planned == remaining:
            right = mid
            break
        if planned < remaining:
            left = mid
        else:
            right = mid
    return right


@kernel_jit
def _alike_share(total, n):
    """`compute_shares` for n apps of weight 1, no min and no max sharing `total`: each
    one's share, in O(1). The cap sum is n * 2**63 there, exactly (whole multiples)."""
    one = np.ones(1)
    zero = np.zeros(1)
    unbounded = np.full(1, S.INF)
    remaining = min(n * 9.223372036854775807e18, max(total, 0.0))
    right = _share_ratio(one, zero, unbounded, n, True, remaining)
    return math.floor(min(max(right, 0.0), S.INF))


@kernel_jit
def _compute_shares(W):
    """Instantaneous fair shares of every queue, top-down (document order); none under
    the Capacity Scheduler (``capacity.py``), which has no fair shares."""
    qs, qsf, children, qf, qi, gi, cluster = W[0], W[1], W[2], W[3], W[4], W[24], W[26]
    gi[S.GI_DIRTY] = 0
    if W[25][S.C_CS] != 0.0:
        return
    nq = qs.shape[0]
    old0 = qf[:, S.QF_FAIR].copy()
    old1 = qf[:, S.QF_FAIR + 1].copy()
    qf[0, S.QF_FAIR] = cluster[0]
    qf[0, S.QF_FAIR + 1] = cluster[1]
    for q in range(nq):
        lo = qs[q, S.QS_CH_LO]
        hi = qs[q, S.QS_CH_HI]
        n = hi - lo
        if n == 0:
            continue
        w = np.empty(n)
        mn = np.empty(n)
        mx = np.empty(n)
        act = np.empty(n, dtype=np.bool_)
        out = np.empty(n)
        for d in range(2):
            for k in range(n):
                c = children[lo + k]
                w[k] = qsf[c, S.QSF_WEIGHT]
                mn[k] = qsf[c, S.QSF_MIN + d]
                mx[k] = qsf[c, S.QSF_MAX + d]
                act[k] = qi[c, S.QI_RUNNABLE] > 0
            compute_shares(w, mn, mx, qf[q, S.QF_FAIR + d], act, True, out)
            for k in range(n):
                qf[children[lo + k], S.QF_FAIR + d] = out[k]
    for q in range(nq):
        if qf[q, S.QF_FAIR] != old0[q] or qf[q, S.QF_FAIR + 1] != old1[q]:
            qi[q, S.QI_DIRTY] = 1


@kernel_jit
def _app_weight(W, j):
    jf, cfg = W[8], W[25]
    if cfg[S.C_SIZEBASED] != 0.0:
        return math.log1p(jf[j, S.JF_USE] + jf[j, S.JF_PEND]) / math.log(2.0)
    return 1.0


@kernel_jit
def _alike_apps(W, leaf):
    """Whether the leaf's apps all get the same fair share (weight 1, no min or max)."""
    return W[0][leaf, S.QS_POLICY] != 1 and W[25][S.C_SIZEBASED] == 0.0


@kernel_jit
def _app_fair(W, j, d):
    """App `j`'s fair share in dimension `d`, as `_app_shares` last set it."""
    leaf = W[6][j, S.JS_QUEUE]
    if _alike_apps(W, leaf):
        return W[3][leaf, S.QF_APP_FAIR + d]
    return W[8][j, S.JF_FAIR + d]


@kernel_jit
def _app_shares(W, leaf):
    """Fair shares of a leaf's runnable apps (fifo: the earliest app gets it all); read
    them with `_app_fair` (alike apps' share is kept once, for the leaf)."""
    qs, qf, qi, jf, ji, cfg = W[0], W[3], W[4], W[8], W[9], W[25]
    if qi[leaf, S.QI_DIRTY] == 0 and cfg[S.C_SIZEBASED] == 0.0:
        return
    qi[leaf, S.QI_DIRTY] = 0
    if _alike_apps(W, leaf):
        for d in range(2):
            qf[leaf, S.QF_APP_FAIR + d] = _alike_share(
                qf[leaf, S.QF_FAIR + d], qi[leaf, S.QI_RUNNABLE]
            )
        qf[leaf, S.QF_APP_FAIR_MIN] = qf[leaf, S.QF_APP_FAIR]
        return
    n = 0
    j = qi[leaf, S.QI_APP_HEAD]
    while j >= 0:
        n += 1
        j = ji[j, S.JI_APP_NEXT]
    if n == 0:
        return
    if qs[leaf, S.QS_POLICY] == 1:
        first = qi[leaf, S.QI_APP_HEAD]
        j = first
        while j >= 0:
            if j < first:
                first = j
            j = ji[j, S.JI_APP_NEXT]
        j = qi[leaf, S.QI_APP_HEAD]
        while j >= 0:
            for d in range(2):
                jf[j, S.JF_FAIR + d] = qf[leaf, S.QF_FAIR + d] if j == first else 0.0
            j = ji[j, S.JI_APP_NEXT]
        qf[leaf, S.QF_APP_FAIR_MIN] = (
            qf[leaf, S.QF_FAIR] if n == 1 else min(qf[leaf, S.QF_FAIR], 0.0)
        )
        return
    w = np.empty(n)
    mn = np.zeros(n)
    mx = np.full(n, S.INF)
    act = np.ones(n, dtype=np.bool_)
    out = np.empty(n)
    ids = np.empty(n, dtype=np.int64)
    k = 0
    j = qi[leaf, S.QI_APP_HEAD]
    while j >= 0:
        ids[k] = j
        w[k] = _app_weight(W, j)
        k += 1
        j = ji[j, S.JI_APP_NEXT]
    for d in range(2):
        compute_shares(w, mn, mx, qf[leaf, S.QF_FAIR + d], act, False, out)
        for k in range(n):
            jf[ids[k], S.JF_FAIR + d] = out[k]
        if d == 0:
            qf[leaf, S.QF_APP_FAIR_MIN] = out.min()
