"""MSPD: optimize one QS with the others as constraints (the paper's second baseline).

A stochastic primal-dual method on the Lagrangian
``L(x, lambda) = f_p(x) + sum_{j != p} lambda_j (f_j(x) - r_j)`` in normalized units:
the primal step is PALD's LOESS local descent on ``grad_x L``; the dual step is
``lambda_j <- max(0, lambda_j + dual_step * (f_j - r_j))`` after every fit. The
primary QS ``p`` is the ``objective``-th QS (default: the first OPTIMIZE QS). Every
other QS is a constraint: its threshold, or, for an objective without one, its value
at the configuration in force (it must not get worse). MSPD satisfies the
constraints but, unlike PALD, improves only one objective.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tempo.optimizers._params import Interval
from tempo.optimizers.descent import LocalDescent
from tempo.optimizers.loess import LocalFit
from whatif.errors import ValidationError


@dataclass(kw_only=True, eq=False, repr=False)
class MSPD(LocalDescent):
    """Primal-dual single-objective local descent.

    Parameters are those of `LocalDescent`, plus ``objective`` (index of the primary QS,
    default the first OPTIMIZE QS) and ``dual_step`` (multiplier step size).
    Learned: ``multipliers_ (k,)`` and ``limits_ (k,)`` (normalized constraint levels).
    """

    name = "mspd"
    _parameter_constraints = {
        **LocalDescent._parameter_constraints,
        "objective": Interval(int, 0, allow_none=True),
        "dual_step": Interval(float, 0, None, "neither"),
    }

    objective: int | None = None
    dual_step: float = 1.0

    def _initialize(self) -> None:
        problem = self.problem_
        if self.objective is None:
            mask = problem.optimize_mask
            self.primary_ = int(np.argmax(mask)) if mask.any() else 0
        elif self.objective >= problem.n_qs:
            raise ValidationError(
                f"MSPD: parameter 'objective' must be < {problem.n_qs} (the number of QS), "
                f"got {self.objective!r}"
            )
        else:
            self.primary_ = int(self.objective)
        self.multipliers_ = np.zeros(problem.n_qs)
        self.limits_: np.ndarray | None = None
        super()._initialize()

    def _limits(self, at_start: np.ndarray) -> np.ndarray:
        """Normalized constraint levels, fixed the first time QS at the start are known."""
        if self.limits_ is None:
            problem = self.problem_
            self.limits_ = np.where(problem.constrained, problem.normalized_thresholds, at_start)
        return self.limits_

    def _merit(self, g: np.ndarray) -> np.ndarray:
        """(largest excess over the limits of the other QS, primary QS): feasible first."""
        limits = self._limits(g[0])  # the first batch told begins with the start
        others = np.arange(self.problem_.n_qs) != self.primary_
        excess = np.where(others[None, :], g - limits[None, :], -np.inf)
        violation = np.maximum(excess.max(axis=1), 0.0) if others.any() else np.zeros(len(g))
        return np.column_stack([violation, g[:, self.primary_]])

    def _direction(self, fit: LocalFit) -> np.ndarray:
        problem = self.problem_
        self._limits(fit.value)
        others = np.arange(problem.n_qs) != self.primary_
        excess = np.where(others, fit.value - self.limits_, 0.0)
        self.multipliers_ = np.maximum(0.0, self.multipliers_ + self.dual_step * excess)
        coefficients = self.multipliers_.copy()
        coefficients[self.primary_] = 1.0
        return fit.jacobian.T @ coefficients
