"""Stochastic local descent with LOESS gradients: the machinery PALD, SCALAR and MSPD share.

A scheduler's response to its settings is piecewise constant: a weight change that
flips no allocation changes nothing, so small probes around a configuration often all
score the same. The descent therefore alternates two kinds of batch around the
iterate ``x``:

1. **probe**: perturbations of per-coordinate width ``w`` (Gaussian; a coordinate
   with a step, an integer or categorical setting, moves at least one step), all
   projected into the box and the risk radius. The normalized QS are fitted by LOESS
   over every point evaluated so far (`tempo.optimizers.loess`, kernel bandwidth
   ``bandwidth * w * sqrt(d)``, ``bandwidth`` about 2, more in many dimensions) and the subclass turns the fit into the gradient of
   its scalar proxy (`LocalDescent._direction`). A batch whose points all score the
   same as the iterate, or a zero gradient, means a plateau at this scale: ``w``
   doubles (up to the risk radius) and the probe is repeated.
2. **line**: points along the descent direction at geometrically spaced distances,
   from ``w`` to the far edge of the risk radius, projected. The best of them by the
   subclass's merit (`LocalDescent._merit`) becomes the iterate when it beats the
   current one; otherwise ``w`` halves (the gradient misled at that scale) and a new
   probe batch is fitted.

Every batch's best point is taken when it beats the iterate, whatever its role.

Where it starts (``screen``, on by default): the first batch is the configuration in
force plus points uniform in the risk radius, and the descent starts from the best of
them. A scheduler's response is not only flat in places but has several basins: an
expert file that over-provisions a tenant is often a local optimum (lowering that
tenant's minimum share a little makes things worse, lowering it a lot makes them much
better), and no local probe finds the other basin.

A start ends when ``w`` has doubled to the radius on a plateau, halved below ``tol``,
or ``patience`` line searches in a row found nothing better (a local optimum at every
scale probed). The next start is the best point evaluated that has not been a start,
when it beats the iterate; otherwise a new screening batch (without screening: a
queued or fresh point in the radius). The run goes on until the budget is spent: it
never ends with budget left while it could still look.

Departures from the paper, and why: the paper's fixed schedule ``alpha_t = a
t^(-1/2)``, width ``t^(-1/3)``, stalls on plateaus (every probe of the first batch
scores the same, the gradient is zero and the run ends), so the width adapts to the
response and the step length is searched along the direction; the paper descends
from the configuration in force alone, which stays in its basin, so the radius is
screened first. The paper's LOESS gradients, weight LP and closed-form rho (PALD) are
kept for the direction, and ``screen=False`` gives the paper's local descent.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from tempo.optimizers._params import Interval, Predicate
from tempo.optimizers.base import Batch, Optimizer, sample_in_radius, start_and_samples
from tempo.optimizers.loess import LocalFit, local_linear_fit
from tempo.optimizers.problem import Evaluation

logger = logging.getLogger(__name__)

#: Relative margin by which a point's merit must beat the iterate's to replace it.
_IMPROVEMENT = 1e-9

#: A fitted gradient (of normalized QS) shorter than this is a plateau: the LOESS fit of
#: points that all score the same returns round-off, not a direction.
_FLAT = 1e-8


@dataclass(kw_only=True, eq=False, repr=False)
class LocalDescent(Optimizer):
    """Base of the gradient-based optimizers; subclasses choose the direction and the merit.

    Parameters
    ----------
    batch_size : points per batch (screening points, probes, or points along the line).
    n_starts : starting points drawn in the radius up front (the first is the
        configuration in force, or the best screened point); more follow whenever a
        start ends with budget left.
    width : initial per-coordinate probe width (normalized units). 0.1 rather than
        0.05: the first probes of a piecewise-constant response then change some
        allocation more often (benchmarks/optimize.py, 10 seeds of six-tenant with
        ``patience`` 3: 81% of the oracle's gain where 0.05 and 2 reach 73%).
    bandwidth : LOESS kernel width, in units of the probe width; None: ``2 sqrt(max(1,
        d / 8))``, wider in more dimensions so that the kernel holds enough points
        for a d-dimensional linear fit (on the 24-setting six-tenant space it reaches
        81% of the oracle's gain where 2 reaches 75%).
    ridge : LOESS ridge term (relative to unit total kernel weight).
    tol : a start ends when the probe width falls below this (normalized units).
    patience : a start ends after this many line searches in a row that found nothing
        better (a local optimum at every scale probed). Each failure halves the width,
        so 3 looks at the iterate on three scales before a fresh start, which rarely
        catches up with a descent already under way when the budget is small. The
        price: from a start that is itself a local optimum a run screens again later
        (on a 2-setting trap with 80 predictions, 0.05 and 2 escape in 5 seeds of 5,
        these defaults in 3).
    screen : the first batch is the configuration in force and points uniform in the
        risk radius, and the descent starts from the best of them; a start that ends
        with no better point left untried screens a new batch. False: the paper's
        descent from the configuration in force alone.
    """

    _parameter_constraints = {
        "batch_size": Interval(int, 1),
        "n_starts": Interval(int, 1),
        "width": Interval(float, 0, 1, "right"),
        "bandwidth": Interval(float, 0, None, "neither", allow_none=True),
        "ridge": Interval(float, 0),
        "tol": Interval(float, 0),
        "patience": Interval(int, 1),
        "screen": Predicate(lambda v: isinstance(v, bool), "True or False"),
    }

    batch_size: int = 8
    n_starts: int = 1
    width: float = 0.1
    bandwidth: float | None = None
    ridge: float = 1e-6
    tol: float = 1e-3
    patience: int = 3
    screen: bool = True

    # ---- start points ------------------------------------------------------------
    def _initialize(self) -> None:
        problem = self.problem_
        self.start_points_ = start_and_samples(problem, self.rng_, self.n_starts)
        self._queued = list(range(1, len(self.start_points_)))
        self._starts_used: list[np.ndarray] = []
        self.start_index_ = -1
        self._begin_start(problem.start)
        if self.screen:
            self.phase_ = "screen"

    def _begin_start(self, point: np.ndarray, merit: np.ndarray | None = None) -> None:
        self.start_index_ += 1
        self.x_ = np.asarray(point, dtype=float).copy()
        self.merit_x_: np.ndarray | None = merit  # None: unknown until x_ is evaluated
        if merit is not None:
            self._starts_used.append(self.x_.copy())
        self.width_ = self.width
        self.t_ = 1
        self.phase_ = "probe"
        self.direction_: np.ndarray | None = None
        self._failed_lines = 0

    def _next_start(self) -> None:
        """Go on from the best point known not yet started from, else screen a new batch
        (or take a queued or fresh point in the radius)."""
        X, mean, _ = self.evaluated()
        merits = self._merits(mean)
        untried = [
            i
            for i in range(len(X))
            if not self._started_from(X[i]) and not np.array_equal(X[i], self.x_)
        ]
        if untried:
            i = min(untried, key=lambda j: tuple(merits[j]))
            # Without screening any untried point is a start; with it, only a better one.
            if not self.screen or self._better(merits[i], self.merit_x_):
                logger.info(
                    "%s: start %d ends; next from the best untried point",
                    self.name,
                    self.start_index_,
                )
                self._begin_start(X[i], merits[i])
                return
        if self._queued:
            point = self.start_points_[self._queued.pop(0)]
        elif self.screen:
            logger.info("%s: start %d ends; screening the radius", self.name, self.start_index_)
            self.start_index_ += 1
            self.phase_ = "screen"
            return
        else:
            point = sample_in_radius(self.problem_, self.rng_, 1)[0]
        logger.info("%s: start %d ends; next from %s", self.name, self.start_index_, point)
        self._begin_start(point)

    def _started_from(self, point: np.ndarray) -> bool:
        return any(np.array_equal(point, s) for s in self._starts_used)

    # ---- asking --------------------------------------------------------------------
    def _ask(self, n_max: int) -> Batch:
        m = max(1, min(self.batch_size, n_max))
        if self.phase_ == "screen":
            first = self.n_batches_ == 0
            sample = sample_in_radius(self.problem_, self.rng_, m - 1 if first else m)
            points = np.vstack([self.x_[None, :], sample]) if first else sample
            roles = (("iterate",) if first else ()) + ("screen",) * len(sample)
            return Batch(points=points, roles=roles)
        if self.merit_x_ is None:
            self._starts_used.append(self.x_.copy())
            probes = self._probes(m - 1)
            return Batch(
                points=np.vstack([self.x_[None, :], probes]),
                roles=("iterate",) + ("probe",) * len(probes),
            )
        if self.phase_ == "line" and self.direction_ is not None:
            line = self._line_points(m)
            probes = self._probes(m - len(line))
            points = np.vstack([line, probes]) if len(probes) else line
            return Batch(points=points, roles=("line",) * len(line) + ("probe",) * len(probes))
        return Batch(points=self._probes(m), roles=("probe",) * m)

    def _probes(self, n: int) -> np.ndarray:
        """``n`` projected perturbations of the iterate of per-coordinate width ``width_``."""
        problem = self.problem_
        if n <= 0:
            return np.zeros((0, problem.dim))
        noise = self.rng_.standard_normal((n, problem.dim)) * self.width_
        steps = problem.steps
        stepped = steps > 0
        if stepped.any():
            small = stepped[None, :] & (np.abs(noise) < steps[None, :])
            noise = np.where(small, np.sign(noise) * steps[None, :], noise)
        return problem.project(self.x_ + noise)

    def _line_points(self, n: int) -> np.ndarray:
        """Distinct projected points along the direction, distances ``width_`` to the radius' far edge."""
        problem = self.problem_
        assert self.direction_ is not None  # set by the step that asks for line points
        unit = -self.direction_ / np.linalg.norm(self.direction_)
        far = 2.0 * problem.radius * np.sqrt(problem.dim)
        near = min(self.width_ * np.sqrt(problem.dim), far)
        lengths = np.geomspace(near, far, num=max(n, 1)) if n > 1 else np.array([far])
        points = problem.project(self.x_[None, :] + lengths[:, None] * unit[None, :])
        keep: list[np.ndarray] = []
        for row in points:
            if np.array_equal(row, self.x_) or any(np.array_equal(row, k) for k in keep):
                continue
            keep.append(row)
        return np.array(keep).reshape(-1, problem.dim)

    # ---- telling -------------------------------------------------------------------
    def _tell(self, X: np.ndarray, evaluation: Evaluation) -> None:
        merits = self._merits(evaluation.mean)
        if self.phase_ == "screen":  # start from the best screened point
            best = int(self._argbest(merits))
            start = self.start_index_ - 1
            self.start_index_ = start
            self._begin_start(X[best], merits[best])
            return
        if self.merit_x_ is None:  # the batch began with the iterate itself
            self.merit_x_ = merits[0]
        was_line = self.phase_ == "line"
        flat = all(self._same(m, self.merit_x_) for m in merits)
        best = int(self._argbest(merits))
        moved = self._better(merits[best], self.merit_x_)
        if moved:
            logger.debug(
                "%s: start %d t=%d moves to %s", self.name, self.start_index_, self.t_, X[best]
            )
            self.x_ = X[best].copy()
            self.merit_x_ = merits[best]
            self.t_ += 1
            self._failed_lines = 0
        if flat:
            self._widen()
            return
        if was_line and not moved:
            self.width_ /= 2.0
            self._failed_lines += 1
            if self.width_ < self.tol or self._failed_lines >= self.patience:
                self._next_start()
                return
        self._fit_direction()

    def _widen(self) -> None:
        """A plateau at this scale: probe twice as wide, or end the start when flat at the radius."""
        self.direction_ = None
        self.phase_ = "probe"
        if self.width_ >= self.problem_.radius:
            logger.info("%s: flat up to the risk radius at start %d", self.name, self.start_index_)
            self._next_start()
            return
        self.width_ = min(2.0 * self.width_, self.problem_.radius)
        logger.debug("%s: plateau; probe width now %.3g", self.name, self.width_)

    def _fit_direction(self) -> None:
        """Fit the gradient at the iterate and search along it; widen when the fit is flat."""
        problem = self.problem_
        X, mean, _ = self.evaluated()
        g = problem.normalize(mean)
        bandwidth = self.bandwidth or 2.0 * np.sqrt(max(1.0, problem.dim / 8))
        tau = bandwidth * self.width_ * np.sqrt(problem.dim)
        try:
            fit = local_linear_fit(X, g, self.x_, bandwidth=tau, ridge=self.ridge)
            gradient = self._direction(fit)
            norm = float(np.linalg.norm(gradient))
        except ValueError:
            norm = 0.0
        self.gradient_norm_ = norm
        if np.isfinite(norm) and norm > _FLAT:
            self.direction_ = gradient
            self.phase_ = "line"
            return
        self._widen()

    def best_point(self) -> np.ndarray:
        """The best point evaluated so far by this optimizer's own merit (the iterate may
        have moved on to another start)."""
        X, mean, _ = self.evaluated()
        return np.array(X[self._argbest(self._merits(mean))])

    # ---- comparing points ------------------------------------------------------------
    def _merits(self, mean: np.ndarray) -> np.ndarray:
        """``(n, 2)`` lexicographic merit of each row (lower is better; NaN rows are worst)."""
        merits = np.asarray(self._merit(self.problem_.normalize(np.atleast_2d(mean))), dtype=float)
        failed = np.isnan(np.atleast_2d(mean)).any(axis=1) | np.isnan(merits).any(axis=1)
        merits[failed] = np.inf
        return merits

    def _merit(self, g: np.ndarray) -> np.ndarray:
        """``(n, 2)`` merit of normalized QS rows: (constraint violation, objective score)."""
        problem = self.problem_
        excess = np.where(problem.constrained, g - problem.normalized_thresholds, -np.inf)
        violation = np.maximum(excess.max(axis=1), 0.0) if problem.constrained.any() else 0.0
        mask = problem.optimize_mask if problem.optimize_mask.any() else ~problem.optimize_mask
        score = g[:, mask].sum(axis=1)
        return np.column_stack([np.broadcast_to(violation, score.shape), score])

    @staticmethod
    def _better(a: np.ndarray, b: np.ndarray | None) -> bool:
        """``a`` beats ``b`` lexicographically by more than a relative margin."""
        if b is None:
            return True
        for x, y in zip(a, b, strict=True):
            margin = _IMPROVEMENT * max(1.0, abs(y)) if np.isfinite(y) else 0.0
            if x < y - margin:
                return True
            if x > y + margin:
                return False
        return False

    @staticmethod
    def _same(a: np.ndarray, b: np.ndarray) -> bool:
        """``a`` and ``b`` are equal within the relative margin (neither beats the other)."""
        return not LocalDescent._better(a, b) and not LocalDescent._better(b, a)

    @classmethod
    def _argbest(cls, merits: np.ndarray) -> int:
        best = 0
        for i in range(1, len(merits)):
            if cls._better(merits[i], merits[best]):
                best = i
        return best

    @abstractmethod
    def _direction(self, fit: LocalFit) -> np.ndarray:
        """Gradient ``(d,)`` of the scalar proxy at the iterate, from the local fit of the
        normalized QS (``fit.value (k,)``, ``fit.jacobian (k, d)``)."""
