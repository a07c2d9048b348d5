"""Queue accounting up the tree: usage and pending demand, runnable app counts, demand
capped at maxResources, and whether a request fits (free resources and every
maxResources from the leaf to the root, or up to a given queue), and maxAMShare.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.state import (
    G_FREE,
    GI_CUR_NODE,
    GI_DIRTY,
    NF_FREE,
    QF_AM,
    QF_FAIR,
    QF_PALL,
    QF_USE,
    QI_DIRTY,
    QI_RUNNABLE,
    QS_CH_HI,
    QS_CH_LO,
    QS_LEAF,
    QS_PARENT,
    QS_SIZE,
    QSF_AMSHARE,
    QSF_MAX,
)


@kernel_jit
def _up(W, col, leaf, x0, x1):
    qf = W[3]
    qs = W[0]
    q = leaf
    while q >= 0:
        u = np.uint64(q)  # unsigned rows: no negative-index wraparound
        qf[u, col] += x0
        qf[u, col + 1] += x1
        q = qs[u, QS_PARENT]


@kernel_jit
def _count_runnable(W, leaf, delta):
    qs, qi, gi = W[0], W[4], W[24]
    q = leaf
    while q >= 0:
        before = qi[q, QI_RUNNABLE]
        qi[q, QI_RUNNABLE] = before + delta
        if (before == 0) != (before + delta == 0):
            gi[GI_DIRTY] = 1
        q = qs[q, QS_PARENT]
    qi[leaf, QI_DIRTY] = 1


@kernel_jit
def _demand(W, q):
    """Queue demand (usage + pending of all apps, capped at maxShare at every level)."""
    qs, qsf, children, qf, dem = W[0], W[1], W[2], W[3], W[5]
    if qs[q, QS_LEAF] == 1:
        return (
            min(qf[q, QF_USE] + qf[q, QF_PALL], qsf[q, QSF_MAX]),
            min(qf[q, QF_USE + 1] + qf[q, QF_PALL + 1], qsf[q, QSF_MAX + 1]),
        )
    for i in range(q + qs[q, QS_SIZE] - 1, q - 1, -1):
        if qs[i, QS_LEAF] == 1:
            r0 = qf[i, QF_USE] + qf[i, QF_PALL]
            r1 = qf[i, QF_USE + 1] + qf[i, QF_PALL + 1]
        else:
            r0 = 0.0
            r1 = 0.0
            for k in range(qs[i, QS_CH_LO], qs[i, QS_CH_HI]):
                c = children[k]
                r0 += dem[c, 0]
                r1 += dem[c, 1]
        dem[i, 0] = min(r0, qsf[i, QSF_MAX])
        dem[i, 1] = min(r1, qsf[i, QSF_MAX + 1])
    return dem[q, 0], dem[q, 1]


@kernel_jit
def _avail(W, d):
    """Free resources in dimension `d` of the node heartbeating, or of the cluster."""
    n = W[24][GI_CUR_NODE]
    if n >= 0:
        return W[40][n, NF_FREE + d]
    return W[23][G_FREE + d]


@kernel_jit
def _fits(W, leaf, r0, r1):
    """Whether a request fits: free resources (`_avail`) and every maxResources from the
    leaf to the root (the scheduler's check: FSQueue.assignContainerPreCheck)."""
    return _fits_to(W, leaf, -1, r0, r1)


@kernel_jit
def _fits_to(W, leaf, top, r0, r1):
    """`_fits` with the maxResources of the queues from `leaf` up to `top`, not included
    (-1: the root's too; the leaf's parent: the leaf's alone)."""
    qs, qsf, qf = W[0], W[1], W[3]
    if _avail(W, 0) < r0 or _avail(W, 1) < r1:
        return False
    q = leaf
    while q != top:
        u = np.uint64(q)  # unsigned rows: no negative-index wraparound
        if qf[u, QF_USE] + r0 > qsf[u, QSF_MAX] or qf[u, QF_USE + 1] + r1 > qsf[u, QSF_MAX + 1]:
            return False
        q = qs[u, QS_PARENT]
    return True


@kernel_jit
def _am_fits(W, leaf, r0, r1):
    """maxAMShare: the leaf's AM usage plus the request within floor(fair share * share),
    a zero fair share component replaced by min(free, maxShare)."""
    qsf, qf, gf = W[1], W[3], W[23]
    share = qsf[leaf, QSF_AMSHARE]
    if abs(share + 1.0) < 1e-4:
        return True
    for d in range(2):
        cap = qf[leaf, QF_FAIR + d]
        if cap == 0.0:
            cap = min(gf[G_FREE + d], qsf[leaf, QSF_MAX + d])
        cap = math.floor(cap * share)
        r = r0 if d == 0 else r1
        if qf[leaf, QF_AM + d] + r > cap:
            return False
    return True
