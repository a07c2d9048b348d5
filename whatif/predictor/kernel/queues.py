"""Queue accounting up the tree: usage and pending demand, runnable app counts, demand
capped at maxResources, and whether a request fits (free resources and every
maxResources from the leaf to the root, or up to a given queue), and maxAMShare.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit


@kernel_jit
def _up(W, col, leaf, x0, x1):
    qf = W[3]
    qs = W[0]
    q = leaf
    while q >= 0:
        u = np.uint64(q)  # unsigned rows: no negative-index wraparound
        qf[u, col] += x0
        qf[u, col + 1] += x1
        q = qs[u, S.QS_PARENT]


@kernel_jit
def _count_runnable(W, leaf, delta):
    qs, qi, gi = W[0], W[4], W[24]
    q = leaf
    while q >= 0:
        before = qi[q, S.QI_RUNNABLE]
        qi[q, S.QI_RUNNABLE] = before + delta
        if (before == 0) != (before + delta == 0):
            gi[S.GI_DIRTY] = 1
        q = qs[q, S.QS_PARENT]
    qi[leaf, S.QI_DIRTY] = 1


@kernel_jit
def _demand(W, q):
    """Queue demand (usage + pending of all apps, capped at maxShare at every level)."""
    qs, qsf, children, qf, dem = W[0], W[1], W[2], W[3], W[5]
    if qs[q, S.QS_LEAF] == 1:
        return (
            min(qf[q, S.QF_USE] + qf[q, S.QF_PALL], qsf[q, S.QSF_MAX]),
            min(qf[q, S.QF_USE + 1] + qf[q, S.QF_PALL + 1], qsf[q, S.QSF_MAX + 1]),
        )
    for i in range(q + qs[q, S.QS_SIZE] - 1, q - 1, -1):
        if qs[i, S.QS_LEAF] == 1:
            r0 = qf[i, S.QF_USE] + qf[i, S.QF_PALL]
            r1 = qf[i, S.QF_USE + 1] + qf[i, S.QF_PALL + 1]
        else:
            r0 = 0.0
            r1 = 0.0
            for k in range(qs[i, S.QS_CH_LO], qs[i, S.QS_CH_HI]):
                c = children[k]
                r0 += dem[c, 0]
                r1 += dem[c, 1]
        dem[i, 0] = min(r0, qsf[i, S.QSF_MAX])
        dem[i, 1] = min(r1, qsf[i, S.QSF_MAX + 1])
    return dem[q, 0], dem[q, 1]


@kernel_jit
def _avail(W, d):
    """Free resources in dimension `d` of the node heartbeating, or of the cluster."""
    n = W[24][S.GI_CUR_NODE]
    if n >= 0:
        return W[40][n, S.NF_FREE + d]
    return W[23][S.G_FREE + d]


@kernel_jit
def _fits(W, leaf, r0, r1):
    """Whether a request fits: free resources (`_avail`) and every maxResources from the
    leaf to the root (the scheduler's check: FSQueue.assignContainerPreCheck)."""
    return _fits_to(W, leaf, -1, r0, r1)


@kernel_jit
def _fits_to(W, leaf, top, r0, r1):
    """`_fits` with the maxResources of the queues from `leaf` up to `top`, not included
    (-1: the root's too; the leaf's parent: the leaf's alone)."""
    if _avail(W, 0) < r0 or _avail(W, 1) < r1:
        return False
    return _within_max(W, leaf, top, r0, r1)


@kernel_jit
def _fits_max(W, leaf, r0, r1):
    """FSQueue.fitsInMaxShare: usage plus the request within maxResources up the tree
    (free resources aside: a reservation's check)."""
    return _within_max(W, leaf, -1, r0, r1)


@kernel_jit
def _within_max(W, leaf, top, r0, r1):
    """Usage plus the request within the maxResources of the queues from `leaf` up to
    `top`, not included."""
    qs, qsf, qf = W[0], W[1], W[3]
    q = leaf
    while q != top:
        u = np.uint64(q)  # unsigned rows: no negative-index wraparound
        if (
            qf[u, S.QF_USE] + r0 > qsf[u, S.QSF_MAX]
            or qf[u, S.QF_USE + 1] + r1 > qsf[u, S.QSF_MAX + 1]
        ):
            return False
        q = qs[u, S.QS_PARENT]
    return True


@kernel_jit
def _am_fits(W, leaf, r0, r1):
    """maxAMShare (FSLeafQueue.canRunAppAM): the leaf's AM usage plus the request within
    its fair share times the share, a zero fair share component replaced by
    min(free, maxShare); Hadoop 3 rounds that up (multiplyAndRoundUp) and compares both
    resources, Hadoop 2 rounds down and, but under drf, compares memory alone."""
    qs, qsf, qf, gf = W[0], W[1], W[3], W[23]
    share = qsf[leaf, S.QSF_AMSHARE]
    if abs(share + 1.0) < 1e-4:
        return True
    v3 = W[25][S.C_VERSION] == 3.0
    dims = 2 if v3 or qs[leaf, S.QS_POLICY] == 2 else 1  # 2: drf (pack.POLICY_CODES)
    for d in range(dims):
        cap = qf[leaf, S.QF_FAIR + d]
        if cap == 0.0:
            cap = min(gf[S.G_FREE + d], qsf[leaf, S.QSF_MAX + d])
        cap = math.ceil(cap * share) if v3 else math.floor(cap * share)
        r = r0 if d == 0 else r1
        if qf[leaf, S.QF_AM + d] + r > cap:
            return False
    return True
