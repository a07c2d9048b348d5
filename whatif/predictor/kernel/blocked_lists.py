"""The blocked jobs the MapReduce AM's reduce preemption visits (`phases._preempt_reduces`;
speed only: the reference engine visits every blocked job).

A blocked job (`phases._red_blocked`) is awake, in the blocked-jobs list (GI_RC_HEAD),
or asleep, in its leaf's list (QI_RCS_HEAD). A job without an allocate cycle that a
visit found would not act falls asleep (`_rc_sleep`) with the request its headroom must
hold for it not to act (JF_RCS_NEED: its next map and, on Hadoop 3, its reduces asked
for; -inf while no headroom can make it act) and the time from which a timed rule may
act (JF_RCS_WAKE); its leaf keeps the largest of those requests and the earliest of
those times. Asleep, its requests and times stay as at the visit: any change of its
state wakes it (`_rc_wake`, from `phases._red_refresh`, `_add_pending` and
`_map_asked`). Room in a leaf's headroom for its largest request is room for each of
its jobs' (the check is monotone in the request, and the Fair Scheduler's headroom does
not depend on the job), so a visit wakes a leaf's jobs only once that fails or its
earliest time comes (`phases._rc_wake_leaves`).
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.lists import _keep_listed


@kernel_jit
def _rc_sleep(W, j, n0, n1, wake):
    """Awake blocked job `j` falls asleep, needing room for (`n0`, `n1`) until `wake`."""
    qi, jf, ji, gi = W[4], W[8], W[9], W[24]
    leaf = W[6][j, S.JS_QUEUE]
    _keep_listed(ji, S.JI_RC_NEXT, S.JI_RC_PREV, gi, S.GI_RC_HEAD, S.JI_IN_RC, j, False)
    _keep_listed(ji, S.JI_RCS_NEXT, S.JI_RCS_PREV, qi[leaf], S.QI_RCS_HEAD, S.JI_IN_RCS, j, True)
    jf[j, S.JF_RCS_NEED] = n0
    jf[j, S.JF_RCS_NEED + 1] = n1
    jf[j, S.JF_RCS_WAKE] = wake
    if qi[leaf, S.QI_IN_RCL] == 0:
        _keep_listed(qi, S.QI_RCL_NEXT, S.QI_RCL_PREV, gi, S.GI_RCL_HEAD, S.QI_IN_RCL, leaf, True)
        _rc_unbound(W, leaf)
    _rc_bound(W, leaf, j)


@kernel_jit
def _rc_unbound(W, leaf):
    """The leaf's bounds as for no asleep job: no request, no time."""
    qf = W[3]
    qf[leaf, S.QF_RCS_NEED] = -np.inf
    qf[leaf, S.QF_RCS_NEED + 1] = -np.inf
    qf[leaf, S.QF_RCS_WAKE] = np.inf


@kernel_jit
def _rc_bound(W, leaf, j):
    """Fold asleep job `j`'s request and time into its leaf's bounds."""
    qf, jf = W[3], W[8]
    qf[leaf, S.QF_RCS_NEED] = max(qf[leaf, S.QF_RCS_NEED], jf[j, S.JF_RCS_NEED])
    qf[leaf, S.QF_RCS_NEED + 1] = max(qf[leaf, S.QF_RCS_NEED + 1], jf[j, S.JF_RCS_NEED + 1])
    qf[leaf, S.QF_RCS_WAKE] = min(qf[leaf, S.QF_RCS_WAKE], jf[j, S.JF_RCS_WAKE])


@kernel_jit
def _rc_unsleep(W, j):
    """Asleep job `j` leaves its leaf's list (and its leaf the list of leaves with asleep
    jobs, if it was the last); its leaf's bounds stay (they only err on the waking side)."""
    qi, ji, gi = W[4], W[9], W[24]
    leaf = W[6][j, S.JS_QUEUE]
    _keep_listed(ji, S.JI_RCS_NEXT, S.JI_RCS_PREV, qi[leaf], S.QI_RCS_HEAD, S.JI_IN_RCS, j, False)
    if qi[leaf, S.QI_RCS_HEAD] < 0:
        _keep_listed(qi, S.QI_RCL_NEXT, S.QI_RCL_PREV, gi, S.GI_RCL_HEAD, S.QI_IN_RCL, leaf, False)


@kernel_jit
def _rc_wake(W, j):
    """Job `j`'s state changed: if it is asleep, it is awake again (the next reduce
    preemption visits it, and takes it off the list if it is no longer blocked)."""
    ji = W[9]
    if ji[j, S.JI_IN_RCS] == 0:
        return
    _rc_unsleep(W, j)
    _keep_listed(ji, S.JI_RC_NEXT, S.JI_RC_PREV, W[24], S.GI_RC_HEAD, S.JI_IN_RC, j, True)


@kernel_jit
def _rc_asleep(W):
    """Whether some blocked job is asleep."""
    return W[24][S.GI_RCL_HEAD] >= 0
