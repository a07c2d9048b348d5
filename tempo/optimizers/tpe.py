"""optuna's TPE with constraints: the tool a practitioner would pick, as a baseline.

optuna is driven through its ask/tell interface on a single-objective study in
in-memory storage. The objective is the weighted sum of the normalized OPTIMIZE QS
(``Problem.normalize``, as SCALAR's); every QS with a threshold is reported as a
constraint ``g_i - r_i`` (<= 0 feasible) with ``Trial.set_constraint``, which
multivariate TPE uses to rank infeasible trials behind feasible ones (c-TPE). A
failed evaluation (a NaN row) is told as ``TrialState.FAIL``, which TPE ignores.

Search coordinates. optuna suggests ``u`` in [0, 1]^d (one float per dimension),
which is mapped onto the risk ball around the configuration in force and then
projected (box, integer and categorical domains)::

    z = 2u - 1,   x = start + radius * sqrt(d) * z * |z|_inf / |z|_2,   point = project(x)

The map sends the cube onto the ball (the point's normalized distance from the start
is ``radius * |z|_inf``), so uniform ``u`` spreads radially like uniform samples in the
ball and ``u = 0.5`` is the start. Sampling the whole box and projecting instead would
put nearly every point on the radius' surface: for d = 10 and radius 0.2 the ball is
about 2% of the box. optuna is told the value of the point evaluated under its own
``u``: TPE models ``u -> QS(project(map(u)))``, a deterministic function of what it
suggested. (Telling the projected point instead would mean inverting the projection,
which is many-to-one.) The first trial is the start, enqueued, so TPE knows the
baseline.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from tempo.optimizers._params import Interval
from tempo.optimizers.base import Batch, Optimizer
from tempo.optimizers.problem import Evaluation, Problem

logger = logging.getLogger(__name__)


def ball_point(problem: Problem, u: np.ndarray) -> np.ndarray:
    """Map ``u`` in [0, 1]^d onto the risk ball around ``problem.start`` (unprojected).

    The cube's centre maps to the start and its faces to the ball's surface; the
    point's normalized distance from the start is ``radius * max |2u - 1|``.
    """
    z = 2.0 * np.asarray(u, dtype=float) - 1.0
    length = float(np.linalg.norm(z))
    if length == 0.0:
        return problem.start.copy()
    step = z * (float(np.abs(z).max()) / length)
    return np.asarray(problem.start + problem.radius * np.sqrt(problem.dim) * step)


@dataclass(kw_only=True, eq=False, repr=False)
class TPE(Optimizer):
    """optuna's multivariate TPE sampler with constraints, ``batch_size`` trials per ask.

    ``n_startup_trials`` random trials (after the start) precede TPE's own proposals;
    the trials of one batch are sampled with optuna's constant liar, so they differ.

    Learned: ``study_`` (the optuna study).
    """

    name = "tpe"
    _parameter_constraints = {
        "batch_size": Interval(int, 1),
        "n_startup_trials": Interval(int, 0),
    }

    batch_size: int = 8
    n_startup_trials: int = 10

    def _initialize(self) -> None:
        # optuna takes a noticeable time to import: only when TPE actually runs.
        import optuna
        from optuna.distributions import BaseDistribution, FloatDistribution

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        problem = self.problem_
        self._names = [f"u{i}" for i in range(problem.dim)]
        self._distributions: dict[str, BaseDistribution] = {
            name: FloatDistribution(0.0, 1.0) for name in self._names
        }
        sampler = optuna.samplers.TPESampler(
            n_startup_trials=self.n_startup_trials,
            seed=int(self.rng_.integers(2**31 - 1)),
            multivariate=True,
            constant_liar=True,
        )
        self.study_ = optuna.create_study(
            storage=optuna.storages.InMemoryStorage(),
            sampler=sampler,
            direction="minimize",
        )
        self.study_.enqueue_trial(dict.fromkeys(self._names, 0.5))
        self._trials: list[Any] = []

    def _ask(self, n_max: int) -> Batch:
        problem = self.problem_
        n = min(self.batch_size, n_max)
        self._trials = [self.study_.ask(self._distributions) for _ in range(n)]
        raw = np.array(
            [
                ball_point(problem, np.array([t.params[name] for name in self._names]))
                for t in self._trials
            ]
        )
        points = problem.project(raw)
        if self.n_batches_ == 0:  # the enqueued u = 0.5: the configuration in force, exactly
            points[0] = problem.start
        return Batch(points=points, roles=("sample",) * n)

    def _tell(self, X: np.ndarray, evaluation: Evaluation) -> None:
        from optuna.trial import TrialState

        problem = self.problem_
        g = problem.normalize(evaluation.mean)
        failed = np.isnan(g).any(axis=1)
        objective = g[:, problem.optimize_mask].sum(axis=1)
        excess = g - problem.normalized_thresholds
        constrained = np.flatnonzero(problem.constrained)
        for trial, bad, value, row in zip(self._trials, failed, objective, excess, strict=True):
            if bad:
                self.study_.tell(trial, state=TrialState.FAIL)
                continue
            for i in constrained:
                trial.set_constraint(problem.names[i], float(row[i]))
            self.study_.tell(trial, float(value))
        self._trials = []
