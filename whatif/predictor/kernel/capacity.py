"""The Capacity Scheduler mode (cfg C_CS): which child queue goes first, the limits a leaf
and its users and AMs are held to, and admission at submission.

The reference engine's ``reference/capacity.py`` is this module's pure-Python twin. The
rules follow Hadoop 3.x (``docs/capacity-scheduler.md``, "Predicting", sections 1-5),
under the DefaultResourceCalculator: every comparison is on memory (column 0); vcores
never limit (the packing gives nodes and queues unlimited vcores, 1 per container).

- Child order (``PriorityUtilizationQueueOrderingPolicy``, ``utilization``): children
  with pending runnable demand whose usage is below their maximum; a child with an
  absolute capacity > 0 before one with 0; then lower usedCapacity = used /
  max(guarantee, minimum allocation) (two zero-capacity children: used / cluster); then
  larger absolute capacity; then document order (`_cs_best_child`).
- Queue limit (``ParentQueue.getResourceLimitsOfChild``, ``canAssignToThisQueue``,
  ``RegularContainerAllocator.checkHeadroom``): the leaf's headroom is the least of
  maximum - used over the leaf and its ancestors (root's maximum: the cluster), rounded
  down to the minimum allocation; a request above it is ``QUEUE_LIMIT`` (`_cs_headroom`).
- User limit (``UsersManager.computeUserLimit``, ``LeafQueue.canAssignToUser``): an app
  is skipped while its user's usage in the leaf is strictly above the limit
  (`_cs_user_ok`).
- AM limit (``LeafQueue.activateApplications``): an AM is allocated only while the
  leaf's AM usage, and its user's, plus the AM stay within their limits, unless the
  leaf has no AM usage (`_cs_am_ok`). Checked when the AM container would be allocated
  (Hadoop checks it when it activates the app, and counts AM usage from then).
- ``maximum-applications`` (``LeafQueue.validateSubmitApplication``): an app submitted to
  a leaf holding that many apps (runnable or waiting), or whose user holds its per-user
  limit there, is rejected (`_cs_admit`).
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit


@kernel_jit
def _cs_before(u1, p1, a1, u2, p2, a2):
    """PriorityUtilizationQueueOrderingPolicy.compare for two children on the same side of
    zero capacity, used capacities `u`, priorities `p` (0 unless the parent respects them),
    capacities `a`: of different priorities, the higher goes first when both are under
    their guarantee (u < 1) or both at or over it; else the less used, then the larger."""
    if p1 != p2 and (u1 < 1.0) == (u2 < 1.0):
        return p1 > p2
    if u1 != u2:
        return u1 < u2
    return a1 > a2


@kernel_jit
def _cs_best_child(W, q, d, epoch):
    """The child of `q` to offer the node to (-1: none), by the `utilization` order, or
    `priority-utilization`'s where the children's priorities differ (`_cs_before`)."""
    qs, qsf, children, qf, qi, cluster, cfg = W[0], W[1], W[2], W[3], W[4], W[26], W[25]
    m = cfg[S.C_CS_MINALLOC]
    best = -1
    best_zero = False
    best_u = 0.0
    best_abs = 0.0
    best_p = 0.0
    for k in range(qs[q, S.QS_CH_LO], qs[q, S.QS_CH_HI]):
        c = children[k]
        if qi[c, S.QI_TRIED] == epoch or qf[c, S.QF_PRUN + d] <= 0.0:
            continue
        if qf[c, S.QF_USE] >= qsf[c, S.QSF_MAX]:
            continue  # canAssignToThisQueue: used >= limit
        a = qsf[c, S.QSF_CS_ABS]
        zero = a <= 0.0
        if zero:
            u = qf[c, S.QF_USE] / cluster[0]
        else:
            u = qf[c, S.QF_USE] / max(qsf[c, S.QSF_CS_GUAR], m)
        p = qsf[c, S.QSF_CS_PRIO]
        if (
            best < 0
            or (best_zero and not zero)
            or (zero == best_zero and _cs_before(u, p, a, best_u, best_p, best_abs))
        ):
            best = c
            best_zero = zero
            best_u = u
            best_abs = a
            best_p = p
    return best


@kernel_jit
def _cs_headroom(W, leaf):
    """The leaf's headroom (MB): least maximum - used from the leaf to the root, rounded
    down to the minimum allocation."""
    qs, qsf, qf, cfg = W[0], W[1], W[3], W[25]
    m = cfg[S.C_CS_MINALLOC]
    room = math.inf
    q = leaf
    while q >= 0:
        room = min(room, qsf[q, S.QSF_MAX] - qf[q, S.QF_USE])
        q = qs[q, S.QS_PARENT]
    return math.floor(room / m) * m


@kernel_jit
def _cs_user_used(W, leaf, u):
    """User `u`'s usage (MB) and AM usage (MB) in `leaf`: its runnable apps there."""
    js, jsf, jf, ji, qi = W[6], W[7], W[8], W[9], W[4]
    used = 0.0
    am = 0.0
    j = qi[leaf, S.QI_APP_HEAD]
    while j >= 0:
        if js[j, S.JS_USER] == u:
            used += jf[j, S.JF_USE]
            if ji[j, S.JI_AM_STATE] >= 2:
                am += jsf[j, S.JSF_AM]
        j = ji[j, S.JI_APP_NEXT]
    return used, am


@kernel_jit
def _unmark_users(W, leaf):
    """Clear the user marks (jbuf[:, 0]) of the users of the leaf's runnable apps."""
    js, ji, qi, jbuf = W[6], W[9], W[4], W[30]
    j = qi[leaf, S.QI_APP_HEAD]
    while j >= 0:
        jbuf[js[j, S.JS_USER], 0] = 0
        j = ji[j, S.JI_APP_NEXT]


@kernel_jit
def _cs_users(W, leaf, active_only):
    """How many users the leaf's runnable apps have (`active_only`: users with an app
    asking for something), those users' usage (MB), and the sum of their weights (Java
    float, as UsersManager sums them). Marks users in jbuf[:, 0]."""
    js, jsf, jf, ji, qi, jbuf = W[6], W[7], W[8], W[9], W[4], W[30]
    _unmark_users(W, leaf)
    n = 0
    weights = np.float32(0.0)
    j = qi[leaf, S.QI_APP_HEAD]
    while j >= 0:
        u = js[j, S.JS_USER]
        asking = jf[j, S.JF_PEND] > 0.0 or jf[j, S.JF_PEND + 1] > 0.0
        if jbuf[u, 0] == 0 and (asking or not active_only):
            jbuf[u, 0] = 1
            n += 1
            weights += np.float32(jsf[j, S.JSF_CS_UW])
        j = ji[j, S.JI_APP_NEXT]
    used = 0.0
    j = qi[leaf, S.QI_APP_HEAD]
    while j >= 0:
        if jbuf[js[j, S.JS_USER], 0] == 1:
            used += jf[j, S.JF_USE]
        j = ji[j, S.JI_APP_NEXT]
    return n, used, weights


@kernel_jit
def _cs_user_limit(W, leaf):
    """UsersManager.computeUserLimit (3.x): max(ceil((active users' used + m) / their summed
    weights), ceil(floor(C * minimum-user-limit-percent) / 100)), capped at guarantee *
    user-limit-factor (factor -1 or no guarantee: the maximum), rounded up to m; C is the
    guarantee while the leaf uses less, else its usage + m. The division is Java's long /
    float (``divideAndCeil``, 0 for a zero sum); a user's own limit is this times its
    weight (`_cs_weighted`)."""
    qsf, qf, cfg = W[1], W[3], W[25]
    m = cfg[S.C_CS_MINALLOC]
    guar = qsf[leaf, S.QSF_CS_GUAR]
    cap_q = max(guar, m)
    consumed = qf[leaf, S.QF_USE]
    current = cap_q if consumed < cap_q else consumed + m
    _, active_used, weights = _cs_users(W, leaf, True)
    per_user = 0.0
    if weights != 0.0:
        per_user = math.ceil(np.float32(active_used + m) / weights)
    limit = max(per_user, math.ceil(math.floor(current * qsf[leaf, S.QSF_CS_MULP]) / 100.0))
    factor = qsf[leaf, S.QSF_CS_ULF]
    if factor == -1.0 or guar <= 0.0:
        limit = min(limit, qsf[leaf, S.QSF_MAX])
    else:
        limit = min(limit, cap_q * factor)
    return math.ceil(limit / m) * m


@kernel_jit
def _cs_weighted(W, limit, j):
    """App `j`'s user's own limit (getComputedResourceLimitForActiveUsers): the leaf's user
    limit times the user's weight, rounded down to m (``multiplyAndNormalizeDown``)."""
    m = W[25][S.C_CS_MINALLOC]
    return math.floor(math.floor(limit * W[7][j, S.JSF_CS_UW]) / m) * m


@kernel_jit
def _cs_user_room(W, j, leaf):
    """The user's part of LeafQueue.getHeadroom, the headroom the RM reports to app `j`'s
    MapReduce AM: its user's limit - the user's usage in the leaf, rounded down to m."""
    m = W[25][S.C_CS_MINALLOC]
    used, _ = _cs_user_used(W, leaf, W[6][j, S.JS_USER])
    return math.floor((_cs_weighted(W, _cs_user_limit(W, leaf), j) - used) / m) * m


@kernel_jit
def _cs_user_ok(W, j, leaf):
    """LeafQueue.canAssignToUser: the app's user is not above its user limit."""
    used, _ = _cs_user_used(W, leaf, W[6][j, S.JS_USER])
    return used <= _cs_weighted(W, _cs_user_limit(W, leaf), j)


@kernel_jit
def _cs_am_ok(W, j, leaf):
    """The AM limits of LeafQueue.activateApplications for app `j`'s AM: the leaf's
    (percent of the larger of its guarantee and its current limit) and its user's
    (guarantee * percent * min(max(minimum-user-limit-percent / 100, 1 / users) * the
    user's weight, 1) * user-limit-factor), rounded up to m; waived while the leaf has no
    AM usage."""
    qsf, qf, cfg, jsf = W[1], W[3], W[25], W[7]
    used_am = qf[leaf, S.QF_AM]
    if used_am <= 0.0:
        return True
    m = cfg[S.C_CS_MINALLOC]
    am = jsf[j, S.JSF_AM]
    pct = qsf[leaf, S.QSF_CS_AM]
    guar = qsf[leaf, S.QSF_CS_GUAR]
    current = qf[leaf, S.QF_USE] + _cs_headroom(W, leaf)
    queue_limit = math.ceil(max(guar, current) * pct / m) * m
    if used_am + am > queue_limit:
        return False
    users, _, _ = _cs_users(W, leaf, False)
    factor = qsf[leaf, S.QSF_CS_ULF]
    share = max(qsf[leaf, S.QSF_CS_MULP] / 100.0, 1.0 / max(users, 1))
    share = min(share * jsf[j, S.JSF_CS_UW], 1.0)  # times the user's weight
    user_limit = guar * pct if factor == -1.0 else guar * pct * share * factor
    user_limit = min(math.ceil(user_limit / m) * m, queue_limit)
    _, user_am = _cs_user_used(W, leaf, W[6][j, S.JS_USER])
    return user_am + am <= user_limit


@kernel_jit
def _cs_admit(W, j):
    """LeafQueue.validateSubmitApplication: False when the leaf already holds
    maximum-applications apps (runnable or waiting), or the user its per-user limit."""
    js, qsf, qi, ji, gi = W[6], W[1], W[4], W[9], W[24]
    leaf = js[j, S.JS_QUEUE]
    u = js[j, S.JS_USER]
    apps = qi[leaf, S.QI_RUNNABLE]
    mine = 0
    k = qi[leaf, S.QI_APP_HEAD]
    while k >= 0:
        mine += js[k, S.JS_USER] == u
        k = ji[k, S.JI_APP_NEXT]
    k = gi[S.GI_WAIT_HEAD]
    while k >= 0:
        if js[k, S.JS_QUEUE] == leaf:
            apps += 1
            mine += js[k, S.JS_USER] == u
        k = ji[k, S.JI_WAIT_NEXT]
    limit = qsf[leaf, S.QSF_CS_APPS]
    user_limit = qsf[leaf, S.QSF_CS_UAPPS]
    if limit >= 0.0 and apps >= limit:
        return False
    return not (user_limit >= 0.0 and mine >= user_limit)


@kernel_jit
def _cs_magnitude(W, leaf, j):
    """FairOrderingPolicy.getMagnitude of app `j`: its used memory, divided, in a leaf with
    size-based weight, by log2(1 + its demand: used + pending memory)."""
    jf = W[8]
    used = jf[j, S.JF_USE]
    if W[1][leaf, S.QSF_CS_SIZEW] == 0.0:
        return used
    weight = math.log1p(used + jf[j, S.JF_PEND]) / math.log(2.0)
    if weight > 0.0:
        return used / weight
    return 0.0 if used == 0.0 else S.INF  # Java's x / 0.0 (0 / 0 is NaN: a tie, as 0 is)


@kernel_jit
def _cs_next_app(W, leaf, d, after_key0, after_key1, after_j, fair):
    """The leaf's next runnable app asking in `d` after (key0, key1, j) in policy order
    (-1: none) and its key. fifo: (0, 0, app), apps in submission order (Hadoop: priority,
    all 0 here, then application id); fair (FairOrderingPolicy): (used MB, or its
    size-based magnitude, `_cs_magnitude`; submit time; app)."""
    jf, ji, jsf, qi = W[8], W[9], W[7], W[4]
    best = -1
    b0 = 0.0
    b1 = 0.0
    j = qi[leaf, S.QI_APP_HEAD]
    while j >= 0:
        if jf[j, S.JF_PEND + d] > 0.0:
            k0 = _cs_magnitude(W, leaf, j) if fair else 0.0
            k1 = jsf[j, S.JSF_SUBMIT] if fair else 0.0
            later = k0 > after_key0 or (
                k0 == after_key0 and (k1 > after_key1 or (k1 == after_key1 and j > after_j))
            )
            if later and (
                best < 0 or k0 < b0 or (k0 == b0 and (k1 < b1 or (k1 == b1 and j < best)))
            ):
                best = j
                b0 = k0
                b1 = k1
        j = ji[j, S.JI_APP_NEXT]
    return best, b0, b1
