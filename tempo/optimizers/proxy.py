"""PALD's proxy model (paper section 6.3): the weights ``c``, the penalty ``rho`` and the step.

PALD minimizes the proxy (SP2) ``s(x) = c' [f(x) - rho * max(f(x), r)]``. Each piece
is a plain function of arrays so tests can check it by hand:

- `choose_weights`: the paper's linear program for ``c`` when constraints are violated,
  ``maximize z s.t. J_V J' c >= z u, c >= 0, z <= eps``, with ``c`` on the simplex
  and normalized to unit l2 norm afterwards;
- `optimal_rho`: the closed form ``rho*`` of section 6.3.1, clipped to a safe range;
- `proxy_gradient` and `proxy_objective`.

All QS are in normalized units (`Problem.normalize`); ``gram = J J'`` is ``(k, k)``.

The LP is solved with ``scipy.optimize.linprog`` (HiGHS): it is a dense LP with at
most ``k + 1`` variables, scipy is already a dependency, and HiGHS is deterministic.
Written in cvxpy (``Maximize(z)`` s.t. ``G @ c >= z * u``, ``sum(c) == 1``, ``c >= 0``)
the program reads a little closer to the paper, but measured on this project's
2-core machine (cvxpy 1.7, the same HiGHS, random PSD ``G`` with k = 3, 9, 15) it
solved to the same ``z`` in 10-15 ms per call against 2-3 ms here: the compile step
is paid on every PALD iteration, and cvxpy would be a new dependency. `_solve_lp`'s
docstring states the program in the paper's form instead.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

logger = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class WeightChoice:
    """Solution of the weight LP: unit-l2 ``c (k,)``, the rate ``z`` and the rows kept."""

    c: np.ndarray
    z: float
    active: np.ndarray


def _solve_lp(gram_rows: np.ndarray, u: np.ndarray, epsilon: float) -> tuple[np.ndarray, float]:
    """maximize z s.t. gram_rows @ c >= z u, sum(c) = 1, c >= 0, z <= epsilon."""
    m, k = gram_rows.shape
    objective = np.zeros(k + 1)
    objective[-1] = -1.0
    a_ub = np.hstack([-gram_rows, u[:, None]])  # z u_i - (G c)_i <= 0
    a_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * k + [(None, None if np.isinf(epsilon) else epsilon)]
    result = linprog(
        objective,
        A_ub=a_ub,
        b_ub=np.zeros(m),
        A_eq=a_eq,
        b_eq=[1.0],
        bounds=bounds,
        method="highs",
    )
    if result.status != 0:  # bounded and feasible by construction; keep going if HiGHS balks
        logger.warning("weight LP not solved (%s); using equal weights", result.message)
        return np.full(k, 1.0 / k), 0.0
    return np.clip(result.x[:k], 0.0, None), float(result.x[-1])


def choose_weights(
    gram: np.ndarray,
    violation: np.ndarray,
    *,
    epsilon: float = np.inf,
    min_shared_rate: float = 0.0,
) -> WeightChoice:
    """Weights ``c`` that improve the most violated constraints first (max-min fairness).

    Parameters
    ----------
    gram : ``(k, k)`` ``J J'`` of the normalized QS.
    violation : ``(k,)`` normalized violation ``g_i - r_i`` (>= 0 means violated, as
        in the paper's ``f_i >= r_i``; ``-inf`` for a QS without threshold).
    epsilon : the paper's cap on ``z``.
    min_shared_rate : in [0, 1). The least violated row is dropped while the shared
        rate ``z`` is at most this fraction of the rate the most violated constraint
        would get alone (``max_j G_top,j``). 0 drops only when ``z <= 0``, i.e. when no
        direction improves every violated constraint.

    Each violated row ``i`` must improve at a rate of at least ``z u_i`` with
    ``u_i = violation_i / max(violation)``, so the most violated constraint improves
    fastest. When no direction improves every violated constraint well enough (see
    ``min_shared_rate``), the least violated row is dropped and the LP solved again:
    constraints that cannot all be met are balanced by pushing down the worst first
    (max-min over normalized violations), never by failing. ``c``
    lies on the simplex inside the LP (this keeps it bounded) and is returned with unit
    l2 norm. Without violated constraints, returns zeros and ``z = +inf``.
    """
    gram = np.asarray(gram, dtype=float)
    violation = np.asarray(violation, dtype=float)
    k = violation.size
    violated = np.flatnonzero(violation >= 0)
    if violated.size == 0:
        return WeightChoice(c=np.zeros(k), z=np.inf, active=violated)
    order = violated[np.argsort(-violation[violated], kind="stable")]
    alone = max(float(gram[order[0]].max()), 0.0)
    while True:
        top_violation = violation[order[0]]
        u = violation[order] / top_violation if top_violation > 0 else np.ones(order.size)
        c, z = _solve_lp(gram[order], u, epsilon)
        if (z > 0 and z > min_shared_rate * alone) or order.size == 1:
            break
        order = order[:-1]
    norm = np.linalg.norm(c)
    c = c / norm if norm > 0 else np.full(k, 1.0 / np.sqrt(k))
    return WeightChoice(c=c, z=z, active=np.sort(order))


def optimal_rho(
    gram: np.ndarray,
    c: np.ndarray,
    violated: np.ndarray,
    *,
    bounds: tuple[float, float] = (-9.0, 0.9),
) -> float:
    """The paper's closed form ``rho*`` (section 6.3.1), clipped to ``bounds``.

    For every violated ``i`` with a non-zero gradient, with ``G = J J'``:
    ``num_i = sum_j c_j G_ij``, ``pos_i = sum_{G_ij >= 0} c_j G_ij`` and
    ``neg_i = sum_{G_ij < 0} c_j G_ij``. The two candidates are
    ``rho+ = min_i num_i / pos_i`` (in ``[0, bounds[1]]``) and
    ``rho- = max_i num_i / neg_i`` (in ``[bounds[0], 0]``; ``-inf`` before clipping when
    no ``G_ij`` is negative). The one that maximizes the (RHO) objective
    ``min_i num_i - rho sum_{j violated} c_j G_ij`` wins (ties go to the smaller
    ``|rho|``). When no constraint is violated, or condition (9) ``num_i >= 0`` fails,
    the bounds do not apply and ``rho = 0`` (the step follows ``c`` alone).
    """
    low, high = bounds
    gram = np.asarray(gram, dtype=float)
    c = np.asarray(c, dtype=float)
    violated = np.asarray(violated, dtype=bool)
    rows_idx = violated & (np.diag(gram) > 0)
    if not rows_idx.any():
        return 0.0
    rows = gram[rows_idx]
    num = rows @ c
    if (num < 0).any():
        return 0.0
    pos = np.where(rows >= 0, rows, 0.0) @ c
    neg = np.where(rows < 0, rows, 0.0) @ c
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_pos = np.min(np.where(pos > 0, num / pos, np.inf))
        rho_neg = np.max(np.where(neg < 0, num / neg, -np.inf))
    candidates = [float(np.clip(rho_neg, low, 0.0)), float(np.clip(rho_pos, 0.0, high))]
    on_violated = rows @ (c * violated)

    def rho_objective(rho: float) -> float:
        return float(np.min(num - rho * on_violated))

    scores = [rho_objective(rho) for rho in candidates]
    if np.isclose(scores[0], scores[1]):
        return min(candidates, key=abs)
    return candidates[int(np.argmax(scores))]


def proxy_gradient(
    jacobian: np.ndarray, c: np.ndarray, rho: float, violated: np.ndarray
) -> np.ndarray:
    """``grad s = sum_j c_j (1 - rho [f_j >= r_j]) grad f_j``, a ``(d,)`` vector."""
    coefficients = np.asarray(c, dtype=float) * (1.0 - rho * np.asarray(violated, dtype=float))
    return np.asarray(jacobian, dtype=float).T @ coefficients


def proxy_objective(f: np.ndarray, r: np.ndarray, c: np.ndarray, rho: float) -> np.ndarray:
    """``s = c' [f - rho max(f, r)]`` per row of ``f (n, k)`` (or one ``(k,)`` vector).

    For a QS without threshold (``r = +inf``) the ``max`` term is constant and dropped.
    """
    f = np.asarray(f, dtype=float)
    r = np.asarray(r, dtype=float)
    penalty = np.where(np.isfinite(r), np.maximum(f, np.where(np.isfinite(r), r, 0.0)), 0.0)
    return np.asarray((f - rho * penalty) @ np.asarray(c, dtype=float))
