"""Java arithmetic and resource comparisons as the schedulers compute them: double
division, (int) casts, ResourceCalculator.compare and the min/max built on it.
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit


@kernel_jit
def jdiv(x, w):
    """Java double division: x/0 is +-inf, 0/0 is NaN."""
    if w != 0.0:
        return x / w
    if x > 0.0:
        return S.INF
    if x < 0.0:
        return -S.INF
    return np.nan


@kernel_jit
def signum(x):
    """(int) Math.signum(x), NaN -> 0."""
    if x > 0.0:
        return 1
    if x < 0.0:
        return -1
    return 0


@kernel_jit
def java_int(x):
    """(int) cast of a double."""
    if x != x:
        return 0
    if x > S.JAVA_INT_MAX:
        return 2147483647
    if x < -2147483648.0:
        return -2147483648
    return int(x)


@kernel_jit
def res_compare(policy, a0, a1, b0, b1, c0, c1):
    """ResourceCalculator.compare: memory (fair/fifo) or dominant share (drf)."""
    if policy != 2:
        return signum(a0 - b0)
    if a0 == b0 and a1 == b1:
        return 0
    la = jdiv(a0, c0)
    sa = jdiv(a1, c1)
    lb = jdiv(b0, c0)
    sb = jdiv(b1, c1)
    r = signum(max(la, sa) - max(lb, sb))
    if r != 0:
        return r
    return signum(min(la, sa) - min(lb, sb))


@kernel_jit
def _loose(x):
    """x widened by rounding slack: a bound on requests that `_fits` may still accept."""
    return x + abs(x) * 1e-9 + 1e-9


@kernel_jit
def _below(W, policy, u0, u1, s0, s1):
    cluster = W[26]
    return res_compare(policy, u0, u1, s0, s1, cluster[0], cluster[1]) < 0


@kernel_jit
def _rmin(W, policy, a0, a1, b0, b1):
    cluster = W[26]
    if res_compare(policy, a0, a1, b0, b1, cluster[0], cluster[1]) <= 0:
        return a0, a1
    return b0, b1


@kernel_jit
def _rmax(W, policy, a0, a1, b0, b1):
    cluster = W[26]
    if res_compare(policy, a0, a1, b0, b1, cluster[0], cluster[1]) >= 0:
        return a0, a1
    return b0, b1
