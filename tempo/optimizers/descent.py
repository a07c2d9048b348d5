"""Stochastic local descent with LOESS gradients: the machinery PALD, SCALAR and MSPD share.

Per iteration ``t`` at the iterate ``x`` (one batch per iteration):

1. ask ``x`` itself and ``batch_size - 1`` Gaussian perturbations of per-coordinate
   width ``width * t^(-1/3)``, all projected into the box and the risk radius;
2. fit value and Jacobian of the normalized QS at ``x`` by LOESS over every point
   evaluated from the current starting point (`tempo.optimizers.loess`), kernel
   bandwidth ``bandwidth * width_t * sqrt(d)``;
3. ask the subclass for the gradient of its scalar proxy (`LocalDescent._direction`);
4. step ``x <- project(x - alpha_t sqrt(d) grad / |grad|)`` with
   ``alpha_t = step_size * t^(-step_decay)`` (a normalized distance);
5. stop this starting point when the step moved less than ``tol`` (converged, e.g.
   pinned at the risk radius), when the gradient vanishes, or when its share of the
   budget is spent; then go on from the next starting point.

Starting points: the configuration in force, then ``n_starts - 1`` points drawn
uniformly inside the risk radius; the remaining budget is shared equally among the
starting points not yet run.
"""

from __future__ import annotations

import logging
from abc import abstractmethod

import numpy as np

from tempo.optimizers._params import Interval
from tempo.optimizers.base import Batch, Optimizer, sample_in_radius
from tempo.optimizers.loess import LocalFit, local_linear_fit
from tempo.optimizers.problem import Evaluation

logger = logging.getLogger(__name__)


class LocalDescent(Optimizer):
    """Base of the gradient-based optimizers; subclasses only choose the descent direction.

    Parameters
    ----------
    batch_size : points per iteration (the iterate and its perturbations).
    n_starts : starting points (the first is the configuration in force).
    step_size, step_decay : step length ``step_size * t^(-step_decay)``, normalized distance.
    width : initial per-coordinate perturbation width, shrinking like ``t^(-1/3)``.
    bandwidth : LOESS kernel width, in units of the perturbation radius.
    ridge : LOESS ridge term (relative to unit total kernel weight).
    tol : a step shorter than this (normalized distance) ends a starting point.
    """

    _parameter_constraints = {
        "batch_size": Interval(int, 1),
        "n_starts": Interval(int, 1),
        "step_size": Interval(float, 0, None, "neither"),
        "step_decay": Interval(float, 0, 1),
        "width": Interval(float, 0, 1, "right"),
        "bandwidth": Interval(float, 0, None, "neither"),
        "ridge": Interval(float, 0),
        "tol": Interval(float, 0),
    }

    def __init__(
        self,
        *,
        batch_size: int = 8,
        n_starts: int = 1,
        step_size: float = 0.1,
        step_decay: float = 0.5,
        width: float = 0.05,
        bandwidth: float = 2.0,
        ridge: float = 1e-6,
        tol: float = 1e-4,
    ) -> None:
        self.batch_size = batch_size
        self.n_starts = n_starts
        self.step_size = step_size
        self.step_decay = step_decay
        self.width = width
        self.bandwidth = bandwidth
        self.ridge = ridge
        self.tol = tol

    def _initialize(self) -> None:
        problem = self.problem_
        others = sample_in_radius(problem, self.rng_, self.n_starts - 1)
        self.start_points_ = np.vstack([problem.start[None, :], others])
        self.finished_ = False
        self._begin_start(0)

    def _begin_start(self, index: int) -> None:
        if index >= self.n_starts:
            self.finished_ = True
            return
        self.start_index_ = index
        self.x_ = self.start_points_[index].copy()
        self.t_ = 1
        self._start_row = self.n_evaluated
        self._start_left = max(1, self.remaining // (self.n_starts - index))
        if self.remaining < 1:
            self.finished_ = True

    def _converged(self) -> bool:
        return self.finished_

    def _width(self) -> float:
        return self.width * self.t_ ** (-1.0 / 3.0)

    def _ask(self, n_max: int) -> Batch:
        problem = self.problem_
        m = max(1, min(self.batch_size, n_max, self._start_left))
        noise = self.rng_.standard_normal((m - 1, problem.dim)) * self._width()
        probes = problem.project(self.x_ + noise)
        points = np.vstack([self.x_[None, :], probes])
        return Batch(points=points, roles=("iterate",) + ("probe",) * (m - 1))

    def _tell(self, X: np.ndarray, evaluation: Evaluation) -> None:
        problem = self.problem_
        self._start_left -= len(X)
        all_X, all_mean, _ = self.evaluated()
        local_X = all_X[self._start_row :]
        local_g = problem.normalize(all_mean[self._start_row :])
        tau = self.bandwidth * self._width() * np.sqrt(problem.dim)
        try:
            fit = local_linear_fit(local_X, local_g, self.x_, bandwidth=tau, ridge=self.ridge)
        except ValueError:
            logger.info(
                "%s: start %d has no usable evaluation; next start", self.name, self.start_index_
            )
            self._begin_start(self.start_index_ + 1)
            return
        gradient = self._direction(fit)
        norm = float(np.linalg.norm(gradient))
        self.gradient_norm_ = norm
        if not np.isfinite(norm) or norm == 0.0:
            logger.info(
                "%s: zero gradient at start %d, t=%d", self.name, self.start_index_, self.t_
            )
            self._begin_start(self.start_index_ + 1)
            return
        alpha = self.step_size * self.t_ ** (-self.step_decay)
        x_new = problem.project(self.x_ - alpha * np.sqrt(problem.dim) * gradient / norm)
        moved = float(problem.distance(x_new, self.x_))
        logger.debug(
            "%s: start %d t=%d value=%s step=%.3g",
            self.name,
            self.start_index_,
            self.t_,
            fit.value,
            moved,
        )
        self.x_ = x_new
        self.t_ += 1
        if moved < self.tol or self._start_left <= 0:
            self._begin_start(self.start_index_ + 1)

    @abstractmethod
    def _direction(self, fit: LocalFit) -> np.ndarray:
        """Gradient ``(d,)`` of the scalar proxy at the iterate, from the local fit of the
        normalized QS (``fit.value (k,)``, ``fit.jacobian (k, d)``)."""
