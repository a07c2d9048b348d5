"""The ramping jobs the MapReduce AM's reduce ramp-up visits (`phases._ramp_reduces`).

Every job whose reduces its AM ramps up is in the ramping-jobs list, in the order it
began to ramp (JI_RAMP_SEQ); the awake ones are also in a second list, in the same
order. A job falls asleep when its ramp-up changed nothing (`phases._ramp_mark`, or the
walk found it would change nothing again, `phases._ramp_idle`), or while its reduces
are withheld (`_ramp_rest`); it wakes when one of its attempts starts or ends, a stage
of its is released, or its ramped stage changes. Asleep, its maps, reduces and stage
are as at its mark, so it would again change nothing while the bound on its headroom is
no larger than the headroom it kept and, if it has reduces asked for, its headroom no
smaller than the floor it kept (the ramp-up grows with the headroom): its leaf keeps
the least of the former (QF_RAMP_H) and the largest of the latter (QF_RAMP_LO), and the
walk passes over the asleep jobs only while every leaf's headroom lies between them.
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.allocate_cycle import _am_call, _cycles
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.lists import _keep_listed


@kernel_jit
def _ramp_stage(W, j):
    """Job `j`'s released reduce stage the AM ramps up (-1: none)."""
    js, si = W[6], W[14]
    for s in range(js[j, S.JS_ST_LO], js[j, S.JS_ST_HI]):
        if si[s, S.SI_ASKED] >= 0 and si[s, S.SI_RELEASED] == 1:
            return s
    return -1


@kernel_jit
def _ramp_list(W, j, listed):
    """Keep job `j` in the ramping-jobs list exactly while `listed`; a job that joins it
    takes the next place, and is awake."""
    ji, gi = W[9], W[24]
    if listed and ji[j, S.JI_IN_RAMP] == 0:
        ji[j, S.JI_RAMP_SEQ] = gi[S.GI_RAMP_SEQ]
        gi[S.GI_RAMP_SEQ] += 1
    _keep_listed(ji, S.JI_RAMP_NEXT, S.JI_RAMP_PREV, gi, S.GI_RAMP_HEAD, S.JI_IN_RAMP, j, listed)
    if listed:
        _ramp_wake(W, j)
    else:
        _keep_listed(ji, S.JI_RA_NEXT, S.JI_RA_PREV, gi, S.GI_RA_HEAD, S.JI_IN_RA, j, False)


@kernel_jit
def _ramp_wake(W, j):
    """Job `j`'s ramp-up inputs may have changed: if it ramps and is asleep, it joins the
    awake jobs at its place."""
    ji, gi = W[9], W[24]
    if ji[j, S.JI_IN_RAMP] == 0 or ji[j, S.JI_IN_RA] == 1:
        return
    _ramp_catch_up(W, j, W[23][S.G_RAMP_LAST])
    seq = ji[j, S.JI_RAMP_SEQ]
    p = gi[S.GI_RA_TAIL]
    while p >= 0 and ji[p, S.JI_RAMP_SEQ] > seq:
        p = ji[p, S.JI_RA_PREV]
    n = gi[S.GI_RA_HEAD] if p < 0 else ji[p, S.JI_RA_NEXT]
    ji[j, S.JI_RA_PREV] = p
    ji[j, S.JI_RA_NEXT] = n
    if p >= 0:
        ji[p, S.JI_RA_NEXT] = j
    else:
        gi[S.GI_RA_HEAD] = j
    if n >= 0:
        ji[n, S.JI_RA_PREV] = j
    else:
        gi[S.GI_RA_TAIL] = j
    ji[j, S.JI_IN_RA] = 1


@kernel_jit
def _ramp_catch_up(W, j, w):
    """Asleep job `j`'s AM's next ramp-up call as the walks it slept through, the last at
    `w`, would have left it: each walk at which the call was due moved it to the AM's
    next call (`phases._ramp_job_at`), so it is the first call after `w` once due by `w`."""
    jf = W[8]
    if not _cycles(W, j) or jf[j, S.JF_RAMP_NEXT] > w:
        return
    s = _ramp_stage(W, j)
    if s >= 0 and W[14][s, S.SI_HELD] == 1:
        return  # walks pass a withheld job's calls by (`phases._ramp_job_at`)
    jf[j, S.JF_RAMP_NEXT] = _am_call(W, j, w, False)


@kernel_jit
def _ramp_keep_h(W, j):
    """Asleep job `j`'s kept headroom bounds its leaf's (QF_RAMP_H) from below, and its
    kept floor its leaf's (QF_RAMP_LO) from above (a NaN one makes it NaN: no bound,
    `phases._ramp_asleep_idle`)."""
    qf, jf = W[3], W[8]
    leaf = W[6][j, S.JS_QUEUE]
    for d in range(2):
        h = jf[j, S.JF_RAMP_H + d]
        if h < qf[leaf, S.QF_RAMP_H + d] or h != h:  # a NaN bound stays NaN
            qf[leaf, S.QF_RAMP_H + d] = h
        lo = jf[j, S.JF_RAMP_LO + d]
        if lo > qf[leaf, S.QF_RAMP_LO + d] or lo != lo:
            qf[leaf, S.QF_RAMP_LO + d] = lo


@kernel_jit
def _ramp_sleep(W, j):
    """Job `j` (ramping, marked: its ramp-up changed nothing) falls asleep."""
    _keep_listed(W[9], S.JI_RA_NEXT, S.JI_RA_PREV, W[24], S.GI_RA_HEAD, S.JI_IN_RA, j, False)
    _ramp_keep_h(W, j)


@kernel_jit
def _ramp_rest(W, j):
    """Job `j`'s reduces are withheld (`phases._hold`): its ramp-up does nothing, and its
    AM's calls do not move, until they are re-issued, which takes it off the ramping
    list (or it is woken as any job is). It falls asleep with no headroom to bound (no
    headroom wakes it) and no mark (`phases._ramp_idle` never passes it over)."""
    W[9][j, S.JI_RAMP_SIG] = -1
    W[8][j, S.JF_RAMP_H : S.JF_RAMP_H + 2] = np.inf
    W[8][j, S.JF_RAMP_LO : S.JF_RAMP_LO + 2] = -np.inf
    _keep_listed(W[9], S.JI_RA_NEXT, S.JI_RA_PREV, W[24], S.GI_RA_HEAD, S.JI_IN_RA, j, False)


@kernel_jit
def _ramp_reset_h(W):
    """Forget every leaf's bounds (a walk over every ramping job keeps them again)."""
    W[3][:, S.QF_RAMP_H : S.QF_RAMP_H + 2] = np.inf
    W[3][:, S.QF_RAMP_LO : S.QF_RAMP_LO + 2] = -np.inf
