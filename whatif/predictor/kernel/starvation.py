"""Hadoop 3 starvation bookkeeping: the ring of apps by re-check time and the list of
apps with a min-share starvation amount (speed: the reference engine scans the apps).
"""

from __future__ import annotations

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.lists import _pack_add, _pack_remove


@kernel_jit
def _scanned(W, j, t):
    """Whether a Hadoop 3 check scans app `j`: runnable, with pending demand, past its
    re-check time, in a leaf with a starvation timeout."""
    qsf, js, jf, ji = W[1], W[6], W[8], W[9]
    leaf = js[j, S.JS_QUEUE]
    if ji[j, S.JI_STATE] != 2 or not (jf[j, S.JF_PEND] > 0.0 or jf[j, S.JF_PEND + 1] > 0.0):
        return False
    if qsf[leaf, S.QSF_FAIR_TO] == S.INF and qsf[leaf, S.QSF_MIN_TO] == S.INF:
        return False
    return t >= jf[j, S.JF_NCHECK]


@kernel_jit
def _next_recheck(W, t):
    """The earliest re-check time after `t` of an app a check would scan once it comes
    (INF if none); re-check times that have come leave the ring.

    Apps join the ring as their re-check time is set, `t` + the re-check delay, so the
    ring is in time order and each app is in it at most once."""
    jf, gi, jbuf = W[8], W[24], W[30]
    ring = jbuf[:, 1]
    cap = ring.shape[0]
    while gi[S.GI_RECHECK_N] > 0 and jf[ring[gi[S.GI_RECHECK_HEAD]], S.JF_NCHECK] <= t:
        gi[S.GI_RECHECK_HEAD] = (gi[S.GI_RECHECK_HEAD] + 1) % cap
        gi[S.GI_RECHECK_N] -= 1
    for k in range(gi[S.GI_RECHECK_N]):
        j = ring[(gi[S.GI_RECHECK_HEAD] + k) % cap]
        if _scanned(W, j, S.INF):
            return jf[j, S.JF_NCHECK]
    return S.INF


@kernel_jit
def _set_recheck(W, j, time):
    """App `j` is not checked again for starvation before `time` (> every earlier one)."""
    jf, gi, jbuf = W[8], W[24], W[30]
    jf[j, S.JF_NCHECK] = time
    ring = jbuf[:, 1]
    ring[(gi[S.GI_RECHECK_HEAD] + gi[S.GI_RECHECK_N]) % ring.shape[0]] = j
    gi[S.GI_RECHECK_N] += 1


@kernel_jit
def _set_min_starvation(W, j, a0, a1):
    """Set app `j`'s min-share starvation, keeping the list of apps where it is nonzero."""
    jf, ji, gi, jbuf = W[8], W[9], W[24], W[30]
    jf[j, S.JF_MSTARV] = a0
    jf[j, S.JF_MSTARV + 1] = a1
    listed = jbuf[:, 3]
    pos = ji[j, S.JI_MSTARV_POS]
    if W[25][S.C_RES] != 0.0 and (pos < 0) == (a0 != 0.0 or a1 != 0.0):
        gi[S.GI_CHANGED] = 1  # whether the app is starved, so may reserve, changed
    if a0 != 0.0 or a1 != 0.0:
        if pos < 0:
            _pack_add(listed, ji, S.JI_MSTARV_POS, gi, S.GI_MSTARV_N, j, 0)
    elif pos >= 0:
        _unlist_min_starvation(W, j)


@kernel_jit
def _unlist_min_starvation(W, j):
    _pack_remove(W[30][:, 3], W[9], S.JI_MSTARV_POS, W[24], S.GI_MSTARV_N, j, 0)


@kernel_jit
def _clear_min_starvation(W, leaf, t, stamp):
    """Zero the min-share starvation of the leaf's scanned apps not visited (`stamp`):
    Hadoop resets it for every app with demand that the hand-out did not reach."""
    js, ji, gi, jbuf = W[6], W[9], W[24], W[30]
    listed = jbuf[:, 3]
    i = 0
    while i < gi[S.GI_MSTARV_N]:
        j = listed[i]
        if js[j, S.JS_QUEUE] == leaf and ji[j, S.JI_TRIED] != stamp and _scanned(W, j, t):
            _set_min_starvation(W, j, 0.0, 0.0)  # moves the last listed app to i
        else:
            i += 1
