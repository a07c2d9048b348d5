"""Policy comparators of queues and apps (fair, drf, fifo) and their sort keys.

The reference engine's ``reference/ordering.py`` is this module's pure-Python twin; it
follows the same steps.

Comparators (first difference decides; then start time, then name rank; queues
have start time 0):
- fair (dimension d: memory, or the slot pool): Hadoop 3 only: demand 0 after
  demand > 0; needy = usage < min(minShare, demand): needy first, both needy ->
  lower usage / max(min(minShare, demand), 1); then usage / weight (Hadoop 3: with a
  zero weight, equal weights compare usage and otherwise the larger weight first;
  Hadoop 1/2: Java division, so x/0 is inf and 0/0 is NaN, and NaN differences tie).
- drf: shares usage_i / cluster_i / weight sorted descending; needy when
  usage / minShare on the dominant resource is < 1; needy first; both needy
  compare usage/minShare, else the cluster shares, element by element.
- fifo (apps only): start time, then name.
Queue demand is usage + pending of all its apps (runnable or not), capped at
maxShare at every level; app demand is usage + pending; app min share is 0 and app
weight 1 (or log2(1 + demand MB) with sizebasedweight).
"""

from __future__ import annotations

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.fairshare import _app_weight
from whatif.predictor.kernel.queues import _demand
from whatif.predictor.kernel.resources import jdiv, signum


@kernel_jit
def _compare_fair(v3, d, ua, da, ma, wa, ub, db, mb, wb):
    if v3:
        if da[d] == 0.0 and db[d] > 0.0:
            return 1
        if db[d] == 0.0 and da[d] > 0.0:
            return -1
    min_a = min(ma[d], da[d])
    min_b = min(mb[d], db[d])
    needy_a = ua[d] < min_a
    needy_b = ub[d] < min_b
    if needy_a and not needy_b:
        return -1
    if needy_b and not needy_a:
        return 1
    if needy_a and needy_b:
        return signum(ua[d] / max(min_a, 1.0) - ub[d] / max(min_b, 1.0))
    if not v3 or (wa > 0.0 and wb > 0.0):
        return signum(jdiv(ua[d], wa) - jdiv(ub[d], wb))
    if wa == wb:
        return signum(ua[d] - ub[d])
    return signum(-wa + wb)


@kernel_jit
def _compare_drf(c, ua, ma, wa, ub, mb, wb):
    sa0 = jdiv(jdiv(ua[0], c[0]), wa)
    sa1 = jdiv(jdiv(ua[1], c[1]), wa)
    sb0 = jdiv(jdiv(ub[0], c[0]), wb)
    sb1 = jdiv(jdiv(ub[1], c[1]), wb)
    oa0, oa1 = (0, 1) if sa0 > sa1 else (1, 0)
    ob0, ob1 = (0, 1) if sb0 > sb1 else (1, 0)
    na0 = jdiv(ua[0], ma[0])
    na1 = jdiv(ua[1], ma[1])
    nb0 = jdiv(ub[0], mb[0])
    nb1 = jdiv(ub[1], mb[1])
    na = (na0, na1)
    nb = (nb0, nb1)
    sa = (sa0, sa1)
    sb = (sb0, sb1)
    needy_a = na[oa0] < 1.0
    needy_b = nb[ob0] < 1.0
    if needy_a and not needy_b:
        return -1
    if needy_b and not needy_a:
        return 1
    if needy_a:
        r = signum(na[oa0] - nb[ob0])
        if r != 0:
            return r
        return signum(na[oa1] - nb[ob1])
    r = signum(sa[oa0] - sb[ob0])
    if r != 0:
        return r
    return signum(sa[oa1] - sb[ob1])


@kernel_jit
def _compare(W, policy, d, ua, da, ma, wa, sta, ra, ub, db, mb, wb, stb, rb):
    cfg, cluster = W[25], W[26]
    if policy == 2:
        res = _compare_drf(cluster, ua, ma, wa, ub, mb, wb)
    elif policy == 1:
        res = 0
    else:
        res = _compare_fair(cfg[S.C_VERSION] == 3.0, d, ua, da, ma, wa, ub, db, mb, wb)
    if res == 0:
        res = signum(sta - stb)
    if res == 0:
        res = -1 if ra < rb else (1 if ra > rb else 0)
    return res


@kernel_jit
def _queue_key(W, q, use_tbp):
    qs, qsf, qf, cfg = W[0], W[1], W[3], W[25]
    u0 = qf[q, S.QF_USE]
    u1 = qf[q, S.QF_USE + 1]
    if use_tbp:
        u0 -= qf[q, S.QF_TBP]
        u1 -= qf[q, S.QF_TBP + 1]
    m0 = qsf[q, S.QSF_MIN]
    m1 = qsf[q, S.QSF_MIN + 1]
    d0 = 0.0
    d1 = 0.0
    if cfg[S.C_VERSION] == 3.0 or m0 > 0.0 or m1 > 0.0:
        d0, d1 = _demand(W, q)
    return (u0, u1), (d0, d1), (m0, m1), qsf[q, S.QSF_WEIGHT], 0.0, qs[q, S.QS_RANK]


@kernel_jit
def _app_key(W, j, use_tbp):
    js, jsf, jf = W[6], W[7], W[8]
    u0 = jf[j, S.JF_USE]
    u1 = jf[j, S.JF_USE + 1]
    if use_tbp:
        u0 -= jf[j, S.JF_TBP]
        u1 -= jf[j, S.JF_TBP + 1]
    d0 = jf[j, S.JF_USE] + jf[j, S.JF_PEND]
    d1 = jf[j, S.JF_USE + 1] + jf[j, S.JF_PEND + 1]
    return (u0, u1), (d0, d1), (0.0, 0.0), _app_weight(W, j), jsf[j, S.JSF_SUBMIT], js[j, S.JS_RANK]


@kernel_jit
def _cmp_queues(W, policy, d, a, b, use_tbp):
    ua, da, ma, wa, sa, ra = _queue_key(W, a, use_tbp)
    ub, db, mb, wb, sb, rb = _queue_key(W, b, use_tbp)
    return _compare(W, policy, d, ua, da, ma, wa, sa, ra, ub, db, mb, wb, sb, rb)


@kernel_jit
def _cmp_apps(W, policy, d, a, b, use_tbp):
    if policy == 0 and W[25][S.C_SIZEBASED] == 0.0:
        return _cmp_apps_fair(W, d, a, b, use_tbp)
    ua, da, ma, wa, sa, ra = _app_key(W, a, use_tbp)
    ub, db, mb, wb, sb, rb = _app_key(W, b, use_tbp)
    return _compare(W, policy, d, ua, da, ma, wa, sa, ra, ub, db, mb, wb, sb, rb)


@kernel_jit
def _cmp_apps_fair(W, d, a, b, use_tbp):
    """`_compare` for two apps under `fair` with unit weights, in dimension `d` only.

    Apps have no min share, so min(minShare, demand) is min(0, demand) and a needy app
    has negative usage; with weight 1 the usage ratio is the usage itself, and two needy
    apps compare usage / max(min, 1) = usage too."""
    js, jsf, jf, cfg = W[6], W[7], W[8], W[25]
    ua = jf[a, S.JF_USE + d]
    ub = jf[b, S.JF_USE + d]
    da = ua + jf[a, S.JF_PEND + d]
    db = ub + jf[b, S.JF_PEND + d]
    if use_tbp:
        ua -= jf[a, S.JF_TBP + d]
        ub -= jf[b, S.JF_TBP + d]
    if cfg[S.C_VERSION] == 3.0:
        if da == 0.0 and db > 0.0:
            return 1
        if db == 0.0 and da > 0.0:
            return -1
    needy_a = ua < min(0.0, da)
    needy_b = ub < min(0.0, db)
    if needy_a and not needy_b:
        return -1
    if needy_b and not needy_a:
        return 1
    res = signum(ua - ub)
    if res == 0:
        res = signum(jsf[a, S.JSF_SUBMIT] - jsf[b, S.JSF_SUBMIT])
    if res == 0:
        ra = js[a, S.JS_RANK]
        rb = js[b, S.JS_RANK]
        res = -1 if ra < rb else (1 if ra > rb else 0)
    return res
