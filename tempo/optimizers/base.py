"""The `Optimizer` extension point: ask for a batch of configurations, tell their QS.

Every optimizer (PALD and the baselines) is driven the same way, with the same budget
of function evaluations, so their results compare fairly.
"""

from __future__ import annotations

import inspect
import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from tempo.errors import TempoError
from tempo.optimizers._params import Constraint, validate_params
from tempo.optimizers.problem import Evaluation, Problem
from tempo.optimizers.result import (
    OptimizationResult,
    history_frame,
    pareto_set,
    select_best,
)
from whatif.errors import ValidationError

logger = logging.getLogger(__name__)

_RADIUS_SLACK = 1e-9


class OptimizerError(TempoError):
    """An optimizer was driven out of order (ask before setup, tell without ask, ...)."""


@dataclass(frozen=True, eq=False)
class Batch:
    """What an implementation proposes: ``points (n, d)`` and one role label per point."""

    points: np.ndarray
    roles: tuple[str, ...]


class Optimizer(ABC):
    """Base class of every optimizer over a `Problem`.

    Call order::

        optimizer = PALD(batch_size=8)                   # stores hyperparameters only
        optimizer.setup(problem, budget=200, seed=0)     # validates, resets all state
        while not optimizer.done:
            X = optimizer.ask()                          # (n, d), 1 <= n <= remaining
            optimizer.tell(X, problem.evaluate(X))       # the same X and its QS
        result = optimizer.result()

    `run` does exactly this. `setup` may be called again to start over.

    Guarantees of every implementation (checked by ``tests/contracts``):

    - the first point asked is the configuration in force, ``problem.start``;
    - every point asked lies in [0, 1]^d and within ``problem.radius`` of
      ``problem.start`` (it is the image of ``problem.project``);
    - no more than ``budget`` points are asked in total;
    - the same hyperparameters, problem and seed give the same points;
    - the object pickles between calls (when the problem's callables do).

    Implementations define ``name``, ``_parameter_constraints`` and keyword-only
    constructor arguments stored verbatim (each is a ``@dataclass(kw_only=True, eq=False,
    repr=False)`` whose fields are its hyperparameters, so a subclass declares only the
    ones it adds), and implement `_initialize` (state from the
    problem, after validation), `_ask` and `_tell`; they may override `_converged`.
    State set after construction has a trailing underscore.
    """

    name: ClassVar[str]
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {}

    # ---- hyperparameters (sklearn style) ---------------------------------------
    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values() if p.name != "self"]

    def get_params(self) -> dict[str, Any]:
        """The constructor's keyword arguments, as stored."""
        return {name: getattr(self, name) for name in self._param_names()}

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"

    # ---- driver ----------------------------------------------------------------
    def setup(self, problem: Problem, *, budget: int, seed: int | np.random.Generator) -> None:
        """Validate the hyperparameters and the budget, and reset all state for ``problem``."""
        validate_params(type(self).__name__, self.get_params(), self._parameter_constraints)
        if not isinstance(problem, Problem):
            raise ValidationError(
                f"{type(self).__name__}.setup: expected a Problem, got {problem!r}"
            )
        if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
            raise ValidationError(
                f"{type(self).__name__}.setup: budget must be an int >= 1, got {budget!r}"
            )
        if not isinstance(seed, int | np.integer | np.random.Generator) or isinstance(seed, bool):
            raise ValidationError(
                f"{type(self).__name__}.setup: seed must be an int or a numpy Generator, got {seed!r}"
            )
        self.problem_ = problem
        self.budget_ = int(budget)
        self.rng_ = np.random.default_rng(seed)
        self.n_batches_ = 0
        self._pending: Batch | None = None
        self._X: list[np.ndarray] = []
        self._mean: list[np.ndarray] = []
        self._spread: list[np.ndarray] = []
        self._batch: list[int] = []
        self._start: list[int] = []
        self._role: list[str] = []
        self.start_index_ = 0
        self._initialize()

    @property
    def n_evaluated(self) -> int:
        """Points evaluated so far."""
        self._check_setup()
        return len(self._role)

    @property
    def remaining(self) -> int:
        """Evaluations left in the budget."""
        return self.budget_ - self.n_evaluated

    @property
    def done(self) -> bool:
        """True once the budget is spent or the implementation has converged."""
        self._check_setup()
        return self.remaining <= 0 or self._converged()

    def ask(self) -> np.ndarray:
        """Propose the next batch ``(n, d)``, ``1 <= n <= remaining``."""
        self._check_setup()
        if self._pending is not None:
            raise OptimizerError(f"{self.name}: ask() called twice without tell()")
        if self.done:
            raise OptimizerError(f"{self.name}: ask() after the run is done")
        batch = self._ask(self.remaining)
        points = np.asarray(batch.points, dtype=float)
        problem = self.problem_
        if (
            points.ndim != 2
            or points.shape[1] != problem.dim
            or not 1 <= len(points) <= self.remaining
            or len(batch.roles) != len(points)
        ):
            raise OptimizerError(f"{self.name}: proposed a batch of shape {points.shape}")
        outside = [
            i
            for i, row in enumerate(points)
            if (row < -_RADIUS_SLACK).any()
            or (row > 1 + _RADIUS_SLACK).any()
            or float(problem.distance(row, problem.start)) > problem.radius + _RADIUS_SLACK
        ]
        if outside:
            raise OptimizerError(
                f"{self.name}: proposed {points[outside[0]].tolist()} outside the box or the risk radius"
            )
        if self.n_batches_ == 0 and not np.array_equal(points[0], problem.start):
            raise OptimizerError(f"{self.name}: the first point asked must be problem.start")
        self._pending = Batch(points=points, roles=tuple(batch.roles))
        return points.copy()

    def tell(self, X: np.ndarray, evaluation: Evaluation) -> None:
        """Record the evaluation of the batch just asked and update the search state."""
        self._check_setup()
        if self._pending is None:
            raise OptimizerError(f"{self.name}: tell() without a pending ask()")
        X = np.asarray(X, dtype=float)
        if X.shape != self._pending.points.shape or not np.array_equal(X, self._pending.points):
            raise ValidationError(f"{self.name}.tell: X is not the batch returned by ask()")
        if not isinstance(evaluation, Evaluation):
            raise ValidationError(f"{self.name}.tell: expected an Evaluation, got {evaluation!r}")
        expected = (len(X), self.problem_.n_qs)
        if evaluation.mean.shape != expected:
            raise ValidationError(
                f"{self.name}.tell: evaluation.mean must have shape {expected}, got {evaluation.mean.shape}"
            )
        batch = self._pending
        self._pending = None
        self._X.append(X)
        self._mean.append(evaluation.mean)
        self._spread.append(evaluation.spread)
        self._batch.extend([self.n_batches_] * len(X))
        self._start.extend([self.start_index_] * len(X))
        self._role.extend(batch.roles)
        self.n_batches_ += 1
        self._tell(X, evaluation)

    def result(self) -> OptimizationResult:
        """The point a DBA would apply, the Pareto set and the full record so far."""
        self._check_setup()
        if not self._role:
            raise OptimizerError(f"{self.name}: result() before any evaluation")
        problem = self.problem_
        X, mean, spread = self.evaluated()
        history = history_frame(
            problem,
            X,
            mean,
            spread,
            np.asarray(self._batch),
            np.asarray(self._start),
            np.asarray(self._role),
        )
        index = select_best(problem, mean)
        return OptimizationResult(
            algorithm=self.name,
            x=X[index].copy(),
            mean=mean[index].copy(),
            spread=spread[index].copy(),
            feasible=bool(problem.feasible(mean[index : index + 1])[0]),
            index=index,
            pareto=pareto_set(problem, mean),
            history=history,
            evaluations=len(X),
            start_mean=mean[0].copy(),
        )

    def run(
        self, problem: Problem, *, budget: int, seed: int | np.random.Generator
    ) -> OptimizationResult:
        """Set up, alternate `ask`, ``problem.evaluate`` and `tell` until done; return `result`."""
        self.setup(problem, budget=budget, seed=seed)
        while not self.done:
            X = self.ask()
            self.tell(X, problem.evaluate(X))
            logger.debug("%s: %d/%d evaluations", self.name, self.n_evaluated, self.budget_)
        return self.result()

    def evaluated(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All evaluated points ``(n, d)``, QS means and spreads ``(n, k)``, in order."""
        self._check_setup()
        d, k = self.problem_.dim, self.problem_.n_qs
        if not self._X:
            return np.zeros((0, d)), np.zeros((0, k)), np.zeros((0, k))
        return np.vstack(self._X), np.vstack(self._mean), np.vstack(self._spread)

    def _check_setup(self) -> None:
        if not hasattr(self, "problem_"):
            raise OptimizerError(f"{type(self).__name__}: call setup() or run() first")

    # ---- implementation hooks --------------------------------------------------
    @abstractmethod
    def _initialize(self) -> None:
        """Create the search state from ``self.problem_`` and ``self.rng_``."""

    @abstractmethod
    def _ask(self, n_max: int) -> Batch:
        """Propose at most ``n_max`` projected points; the very first must be ``problem.start``."""

    @abstractmethod
    def _tell(self, X: np.ndarray, evaluation: Evaluation) -> None:
        """Update the search state with the evaluation of the batch just asked."""

    def _converged(self) -> bool:
        """True when the implementation has nothing useful left to propose."""
        return False


def sample_in_radius(problem: Problem, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` points uniform in the risk ball around ``problem.start``, then projected."""
    d = problem.dim
    direction = rng.standard_normal((n, d))
    direction /= np.maximum(np.linalg.norm(direction, axis=1, keepdims=True), 1e-300)
    length = problem.radius * np.sqrt(d) * rng.random(n) ** (1.0 / d)
    return problem.project(problem.start + direction * length[:, None])


def start_and_samples(problem: Problem, rng: np.random.Generator, n: int) -> np.ndarray:
    """The configuration in force, then ``n - 1`` points of `sample_in_radius`, shape (n, d):
    the first points of a search that begins where the cluster stands."""
    return np.vstack([problem.start[None, :], sample_in_radius(problem, rng, n - 1)])
