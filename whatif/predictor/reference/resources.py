"""Java arithmetic and resource comparisons (twin of ``kernel/resources.py``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from whatif.predictor.reference.state import INF

if TYPE_CHECKING:
    import numpy as np


def div(x: float, w: float) -> float:
    """Java double division: x / 0 is inf for x > 0 and NaN for 0 / 0."""
    if w != 0.0:
        return x / w
    if x > 0.0:
        return INF
    if x < 0.0:
        return -INF
    return math.nan


def java_int(x: float) -> int:
    """(int) cast of a double: NaN is 0, out-of-range values saturate."""
    if x != x:
        return 0
    return int(max(min(x, 2147483647.0), -2147483648.0))


def signum(x: float) -> int:
    """(int) Math.signum(x): NaN is 0."""
    return 1 if x > 0.0 else (-1 if x < 0.0 else 0)


def res_compare(policy: int, a: np.ndarray, b: np.ndarray, cluster: np.ndarray) -> int:
    """The policy's ResourceCalculator.compare: memory for fair/fifo, dominant share for drf."""
    if policy != 2:
        return signum(a[0] - b[0])
    if a[0] == b[0] and a[1] == b[1]:
        return 0
    la, sa = div(a[0], cluster[0]), div(a[1], cluster[1])
    lb, sb = div(b[0], cluster[0]), div(b[1], cluster[1])
    r = signum(max(la, sa) - max(lb, sb))
    if r != 0:
        return r
    return signum(min(la, sa) - min(lb, sb))
