"""PALD, Pareto local descent (paper section 6): tempo's optimizer.

At each iterate PALD fits the Jacobian ``J`` of the normalized QS by LOESS and steps
on the proxy (SP2) ``s(x) = c' [f(x) - rho max(f(x), r)]``:

- while some constraint is violated (``f_i >= r_i``), ``c`` comes from the paper's
  linear program (`tempo.optimizers.proxy.choose_weights`): the most violated
  constraint improves first, and constraints that cannot all be met are balanced
  (max-min over normalized violations) rather than reported as a failure;
- once every constraint holds, ``c`` is equal on the OPTIMIZE objectives (unit l2
  norm), so the step improves the best-effort QS;
- ``rho`` is the closed form ``rho*`` of section 6.3.1 (`optimal_rho`), clipped to
  ``rho_bounds``;
- the step follows ``grad s = sum_j c_j (1 - rho [f_j >= r_j]) grad f_j``
  (`tempo.optimizers.descent` does the sampling, the fit, the step and the projection).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import cast

import numpy as np

from tempo.optimizers._params import Interval, Predicate
from tempo.optimizers.descent import LocalDescent
from tempo.optimizers.loess import LocalFit
from tempo.optimizers.proxy import choose_weights, optimal_rho, proxy_gradient

logger = logging.getLogger(__name__)


def _is_rho_range(value: object) -> bool:
    low, high = cast(tuple[float, float], value)
    return bool(np.isfinite(low) and low <= 0 <= high < 1)


@dataclass(kw_only=True, eq=False, repr=False)
class PALD(LocalDescent):
    """Pareto local descent with LOESS gradients, the weight LP and the closed-form rho.

    Parameters are those of `LocalDescent`, plus
    ``epsilon``: the LP's cap on the improvement rate ``z`` (``inf``: no cap),
    ``min_shared_rate``: when improving every violated constraint together is slower
    than this fraction of what the worst alone would get, improve the worst first
    (`choose_weights`), and
    ``rho_bounds``: the safe range ``(low <= 0 <= high < 1)`` ``rho*`` is clipped to.

    Diagnostics after each step: ``weights_`` (``c``), ``rho_`` and ``active_`` (the
    constraints the LP improves).
    """

    name = "pald"
    _parameter_constraints = {
        **LocalDescent._parameter_constraints,
        "epsilon": Interval(float, 0, None, "neither"),
        "min_shared_rate": Interval(float, 0, 1, "left"),
        "rho_bounds": Predicate(_is_rho_range, "a pair (low, high) with low <= 0 <= high < 1"),
    }

    epsilon: float = np.inf
    min_shared_rate: float = 0.25
    rho_bounds: tuple[float, float] = (-9.0, 0.9)

    def _direction(self, fit: LocalFit) -> np.ndarray:
        problem = self.problem_
        excess = np.where(problem.constrained, fit.value - problem.normalized_thresholds, -np.inf)
        gram = fit.jacobian @ fit.jacobian.T
        if (excess >= 0).any():
            choice = choose_weights(
                gram, excess, epsilon=self.epsilon, min_shared_rate=self.min_shared_rate
            )
            c = choice.c
            active = np.zeros(problem.n_qs, dtype=bool)
            active[choice.active] = True
            rho = optimal_rho(gram, c, active, bounds=(self.rho_bounds[0], self.rho_bounds[1]))
        else:
            objectives = (
                problem.optimize_mask if problem.optimize_mask.any() else ~problem.optimize_mask
            )
            c = objectives / np.linalg.norm(objectives.astype(float))
            active = np.zeros(problem.n_qs, dtype=bool)
            rho = 0.0
        self.weights_, self.rho_, self.active_ = c, rho, active
        logger.debug("pald: violated=%s c=%s rho=%.3g", np.flatnonzero(excess >= 0), c, rho)
        return proxy_gradient(fit.jacobian, c, rho, active)
