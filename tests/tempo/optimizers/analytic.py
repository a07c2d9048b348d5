"""Analytic test problems whose Pareto sets are known (module-level so they pickle)."""

from __future__ import annotations

import numpy as np

from tempo.optimizers import Evaluation, Problem


class TwoCentres:
    """f1 = |x - a|^2, f2 = |x - b|^2: the Pareto set is the segment from a to b."""

    def __init__(self, a: np.ndarray, b: np.ndarray, *, noise: float = 0.0, seed: int = 0) -> None:
        self.a, self.b, self.noise = np.asarray(a, float), np.asarray(b, float), noise
        self.rng = np.random.default_rng(seed)

    def __call__(self, X: np.ndarray) -> Evaluation:
        X = np.atleast_2d(X)
        mean = np.c_[((X - self.a) ** 2).sum(1), ((X - self.b) ** 2).sum(1)]
        if self.noise:
            mean = mean + self.noise * self.rng.standard_normal(mean.shape)
        return Evaluation(mean, np.full(mean.shape, self.noise))


class Segment:
    """The paper's counterexample on a line: f(x) = (5, 5) + x ((0, 7) - (5, 5)), x in [0, 1]."""

    def __call__(self, X: np.ndarray) -> Evaluation:
        x = np.atleast_2d(X)[:, 0]
        mean = np.c_[5.0 - 5.0 * x, 5.0 + 2.0 * x]
        return Evaluation(mean, np.zeros_like(mean))


class FailingTwoCentres(TwoCentres):
    """Like TwoCentres, but every point with x0 > 0.7 fails (NaN QS)."""

    def __call__(self, X: np.ndarray) -> Evaluation:
        evaluation = super().__call__(X)
        mean = evaluation.mean.copy()
        mean[np.atleast_2d(X)[:, 0] > 0.7] = np.nan
        return Evaluation(mean, evaluation.spread)


def two_centres_problem(
    *, dim: int = 2, start: float = 0.9, radius: float = 1.0, noise: float = 0.0, seed: int = 0
) -> Problem:
    """Minimize f2 subject to f1 <= 0.5 with a = 0.2, b = 0.8 on every axis."""
    return Problem(
        dim=dim,
        evaluate=TwoCentres(np.full(dim, 0.2), np.full(dim, 0.8), noise=noise, seed=seed),
        thresholds=np.array([0.5, np.inf]),
        optimize_mask=np.array([False, True]),
        start=np.full(dim, start),
        radius=radius,
        names=("dist_a", "dist_b"),
    )
