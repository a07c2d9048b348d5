"""What an optimization run returns, and how the point a DBA would apply is picked.

Every optimizer ends the same way: from all evaluated points, take the feasible ones
(every constrained QS mean within its threshold); if there are none, the ones with the
smallest largest normalized violation (max-min fairness). Among those, keep the
Pareto set on the OPTIMIZE objectives and pick the one with the smallest sum of
normalized, priority-weighted OPTIMIZE QS (ties: the earliest evaluated).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tempo.optimizers.problem import Problem


def pareto_mask(values: np.ndarray) -> np.ndarray:
    """``(n,)`` bool: rows of ``values (n, m)`` not dominated by another row (minimization).

    Row ``a`` dominates ``b`` when ``a <= b`` everywhere and ``a < b`` somewhere;
    duplicate rows are all kept.
    """
    values = np.asarray(values, dtype=float)
    if values.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    le = (values[:, None, :] <= values[None, :, :]).all(axis=2)
    lt = (values[:, None, :] < values[None, :, :]).any(axis=2)
    dominated = (le & lt).any(axis=0)
    return np.asarray(~dominated)


def _objective_block(problem: Problem, mean: np.ndarray) -> np.ndarray:
    """Normalized OPTIMIZE QS (all QS when the DBA named no objective)."""
    g = problem.normalize(mean)
    mask = (
        problem.optimize_mask
        if problem.optimize_mask.any()
        else np.ones_like(problem.optimize_mask)
    )
    return np.asarray(g[:, mask])


def candidate_mask(problem: Problem, mean: np.ndarray) -> np.ndarray:
    """Rows a DBA would consider: feasible ones, else those with the least worst violation."""
    mean = np.atleast_2d(mean)
    violation = problem.violation(mean)
    feasible = violation <= 0
    if feasible.any():
        return feasible
    finite = np.isfinite(violation)
    if not finite.any():
        return np.zeros(len(mean), dtype=bool)
    return np.asarray(finite & np.isclose(violation, violation[finite].min(), rtol=0, atol=1e-12))


def select_best(problem: Problem, mean: np.ndarray) -> int:
    """Index of the row of ``mean (n, k)`` a DBA would apply (see the module docstring)."""
    mean = np.atleast_2d(mean)
    candidates = np.flatnonzero(candidate_mask(problem, mean))
    if candidates.size == 0:
        return 0
    objectives = _objective_block(problem, mean[candidates])
    front = candidates[pareto_mask(objectives)]
    scores = _objective_block(problem, mean[front]).sum(axis=1)
    return int(front[np.argmin(scores)])


def pareto_set(problem: Problem, mean: np.ndarray) -> np.ndarray:
    """Indices of the non-dominated rows (all QS) among the DBA's candidate rows."""
    mean = np.atleast_2d(mean)
    candidates = np.flatnonzero(candidate_mask(problem, mean))
    return np.asarray(candidates[pareto_mask(problem.normalize(mean[candidates]))])


@dataclass(frozen=True, eq=False)
class OptimizationResult:
    """The outcome of one run.

    Attributes
    ----------
    algorithm : registry name of the optimizer.
    x : ``(d,)`` the configuration picked (module docstring), normalized.
    mean, spread : ``(k,)`` its evaluated QS.
    feasible : whether it meets every constraint.
    index : its row in `history`.
    pareto : history rows of the Pareto set (all QS) among the candidates.
    history : one row per evaluated point, in evaluation order, with columns ``batch``
        (ask number), ``start`` (starting point), ``role`` (``iterate``, ``probe`` or
        ``sample``), ``x0..x{d-1}``, ``mean:<qs>``, ``spread:<qs>``, ``feasible``,
        ``violation`` (largest normalized violation, +inf if the evaluation failed) and
        ``distance`` (normalized distance from the configuration in force).
    evaluations : number of points evaluated.
    start_mean : ``(k,)`` QS of the configuration in force (the first point evaluated).
    """

    algorithm: str
    x: np.ndarray
    mean: np.ndarray
    spread: np.ndarray
    feasible: bool
    index: int
    pareto: np.ndarray
    history: pd.DataFrame
    evaluations: int
    start_mean: np.ndarray

    @property
    def distance(self) -> float:
        """Normalized distance of `x` from the configuration in force."""
        return float(self.history["distance"].iloc[self.index])

    @property
    def dominates_start(self) -> bool:
        """True when the picked point is no worse on every QS and better on one."""
        return bool(np.all(self.mean <= self.start_mean) and np.any(self.mean < self.start_mean))


def history_frame(
    problem: Problem,
    X: np.ndarray,
    mean: np.ndarray,
    spread: np.ndarray,
    batch: np.ndarray,
    start: np.ndarray,
    role: np.ndarray,
) -> pd.DataFrame:
    """Build the `OptimizationResult.history` table from the recorded arrays."""
    violation = problem.violation(mean) if len(mean) else np.zeros(0)
    columns: dict[str, object] = {
        "batch": np.asarray(batch, dtype=np.int64),
        "start": np.asarray(start, dtype=np.int64),
        "role": pd.array(role, dtype="string"),
    }
    for j in range(problem.dim):
        columns[f"x{j}"] = X[:, j]
    for i, name in enumerate(problem.names):
        columns[f"mean:{name}"] = mean[:, i]
    for i, name in enumerate(problem.names):
        columns[f"spread:{name}"] = spread[:, i]
    columns["feasible"] = violation <= 0
    columns["violation"] = violation
    columns["distance"] = np.array([float(problem.distance(row, problem.start)) for row in X])
    return pd.DataFrame(columns)
