"""Hadoop 3 starvation bookkeeping: the ring of apps by re-check time and the list of
apps with a min-share starvation amount (speed: the reference engine scans the apps).
"""

from __future__ import annotations

from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.lists import _pack_add, _pack_remove
from whatif.predictor.kernel.state import (
    C_RES,
    GI_CHANGED,
    GI_MSTARV_N,
    GI_RECHECK_HEAD,
    GI_RECHECK_N,
    INF,
    JF_MSTARV,
    JF_NCHECK,
    JF_PEND,
    JI_MSTARV_POS,
    JI_STATE,
    JI_TRIED,
    JS_QUEUE,
    QSF_FAIR_TO,
    QSF_MIN_TO,
)


@kernel_jit
def _scanned(W, j, t):
    """Whether a Hadoop 3 check scans app `j`: runnable, with pending demand, past its
    re-check time, in a leaf with a starvation timeout."""
    qsf, js, jf, ji = W[1], W[6], W[8], W[9]
    leaf = js[j, JS_QUEUE]
    if ji[j, JI_STATE] != 2 or not (jf[j, JF_PEND] > 0.0 or jf[j, JF_PEND + 1] > 0.0):
        return False
    if qsf[leaf, QSF_FAIR_TO] == INF and qsf[leaf, QSF_MIN_TO] == INF:
        return False
    return t >= jf[j, JF_NCHECK]


@kernel_jit
def _next_recheck(W, t):
    """The earliest re-check time after `t` of an app a check would scan once it comes
    (INF if none); re-check times that have come leave the ring.

    Apps join the ring as their re-check time is set, `t` + the re-check delay, so the
    ring is in time order and each app is in it at most once."""
    jf, gi, jbuf = W[8], W[24], W[30]
    ring = jbuf[:, 1]
    cap = ring.shape[0]
    while gi[GI_RECHECK_N] > 0 and jf[ring[gi[GI_RECHECK_HEAD]], JF_NCHECK] <= t:
        gi[GI_RECHECK_HEAD] = (gi[GI_RECHECK_HEAD] + 1) % cap
        gi[GI_RECHECK_N] -= 1
    for k in range(gi[GI_RECHECK_N]):
        j = ring[(gi[GI_RECHECK_HEAD] + k) % cap]
        if _scanned(W, j, INF):
            return jf[j, JF_NCHECK]
    return INF


@kernel_jit
def _set_recheck(W, j, time):
    """App `j` is not checked again for starvation before `time` (> every earlier one)."""
    jf, gi, jbuf = W[8], W[24], W[30]
    jf[j, JF_NCHECK] = time
    ring = jbuf[:, 1]
    ring[(gi[GI_RECHECK_HEAD] + gi[GI_RECHECK_N]) % ring.shape[0]] = j
    gi[GI_RECHECK_N] += 1


@kernel_jit
def _set_min_starvation(W, j, a0, a1):
    """Set app `j`'s min-share starvation, keeping the list of apps where it is nonzero."""
    jf, ji, gi, jbuf = W[8], W[9], W[24], W[30]
    jf[j, JF_MSTARV] = a0
    jf[j, JF_MSTARV + 1] = a1
    listed = jbuf[:, 3]
    pos = ji[j, JI_MSTARV_POS]
    if W[25][C_RES] != 0.0 and (pos < 0) == (a0 != 0.0 or a1 != 0.0):
        gi[GI_CHANGED] = 1  # whether the app is starved, so may reserve, changed
    if a0 != 0.0 or a1 != 0.0:
        if pos < 0:
            _pack_add(listed, ji, JI_MSTARV_POS, gi, GI_MSTARV_N, j, 0)
    elif pos >= 0:
        _unlist_min_starvation(W, j)


@kernel_jit
def _unlist_min_starvation(W, j):
    _pack_remove(W[30][:, 3], W[9], JI_MSTARV_POS, W[24], GI_MSTARV_N, j, 0)


@kernel_jit
def _clear_min_starvation(W, leaf, t, stamp):
    """Zero the min-share starvation of the leaf's scanned apps not visited (`stamp`):
    Hadoop resets it for every app with demand that the hand-out did not reach."""
    js, ji, gi, jbuf = W[6], W[9], W[24], W[30]
    listed = jbuf[:, 3]
    i = 0
    while i < gi[GI_MSTARV_N]:
        j = listed[i]
        if js[j, JS_QUEUE] == leaf and ji[j, JI_TRIED] != stamp and _scanned(W, j, t):
            _set_min_starvation(W, j, 0.0, 0.0)  # moves the last listed app to i
        else:
            i += 1
