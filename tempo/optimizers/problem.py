"""The optimization problem every optimizer solves: noisy vector QS over the box [0, 1]^d.

A `Problem` is the minimal protocol between the optimizers and the rest of tempo.
The optimizers never see queues, templates or the What-if Model; they see

- ``dim``: the number of normalized configuration parameters;
- ``evaluate(X)``: a batch of ``n`` configurations ``(n, d)`` in, an `Evaluation`
  (QS means and spreads, ``(n, k)``, lower is better) out; the real one sends the
  batch through an executor;
- ``thresholds`` ``r`` (``(k,)``): ``E[f_i(x)] <= r_i`` is a constraint (``+inf``
  for a pure objective);
- ``optimize_mask`` (``(k,)``): which QS the DBA asked to OPTIMIZE (the others are
  constraints only);
- ``start`` and ``radius``: the configuration in force and the risk radius (normalized
  distance) no proposal may leave;
- ``weights`` (priorities) and ``scales`` (units) used to compare QS of different kinds;
- ``projector`` and ``distance``: the configuration space's projection and metric;
- ``steps``: per coordinate, the smallest normalized change that changes the
  configuration (an integer or categorical setting's step; 0 where continuous).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from whatif.errors import ValidationError

Projector = Callable[..., np.ndarray]
"""``project(x, *, center, radius) -> x`` for one ``(d,)`` vector (the space's signature)."""
Distance = Callable[[np.ndarray, np.ndarray], float | np.ndarray]


def normalized_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclidean distance divided by sqrt(d), so the box diagonal has length 1.

    ``a`` and ``b`` are ``(d,)`` or ``(n, d)`` and broadcast; the result has the
    leading shape (a float for two vectors).
    """
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    return np.asarray(np.linalg.norm(diff, axis=-1) / np.sqrt(diff.shape[-1]))


def box_projector(x: np.ndarray, *, center: np.ndarray, radius: float) -> np.ndarray:
    """Clip to [0, 1]^d, then shrink the step from ``center`` into the risk ``radius``.

    ``x`` is ``(d,)`` or ``(n, d)``; ``center`` is ``(d,)`` inside the box; ``radius``
    is a normalized distance. Shrinking towards a point of the box keeps the result in
    the box (convexity), so one pass suffices. The configuration space's ``project``
    (integer domains, "off" encodings) replaces this default in production.
    """
    clipped = np.clip(np.asarray(x, dtype=float), 0.0, 1.0)
    center = np.asarray(center, dtype=float)
    dist = np.atleast_1d(normalized_distance(clipped, center))
    factor = np.where(dist > radius, radius / np.where(dist > 0, dist, 1.0), 1.0)
    if clipped.ndim == 1:
        factor = factor[0]
    else:
        factor = factor[:, None]
    return np.asarray(center + (clipped - center) * factor)


@dataclass(frozen=True, eq=False)
class Evaluation:
    """QS predicted for a batch: ``mean`` and ``spread`` (e.g. std over replicates), ``(n, k)``.

    A row of NaN means marks a failed evaluation: it is recorded, counted against
    the budget, treated as infeasible and never used for a gradient.
    """

    mean: np.ndarray
    spread: np.ndarray

    def __post_init__(self) -> None:
        mean = np.atleast_2d(np.asarray(self.mean, dtype=float))
        spread = np.atleast_2d(np.asarray(self.spread, dtype=float))
        if mean.ndim != 2:
            raise ValidationError(
                f"Evaluation.mean: expected an (n, k) array, got shape {mean.shape}"
            )
        if spread.shape != mean.shape:
            raise ValidationError(
                f"Evaluation.spread: expected shape {mean.shape} like mean, got {spread.shape}"
            )
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "spread", spread)

    def __len__(self) -> int:
        return int(self.mean.shape[0])


@dataclass(frozen=True, eq=False, init=False)
class Problem:
    """A noisy, constrained vector minimization over [0, 1]^dim (paper section 6.1, SP1).

    Parameters
    ----------
    dim : number of normalized configuration parameters ``d``.
    evaluate : ``X (n, d) -> Evaluation`` with ``(n, k)`` means and spreads.
    thresholds : ``r (k,)``; ``+inf`` where the QS has no constraint.
    optimize_mask : ``(k,)`` bool, True for the QS named by an OPTIMIZE clause. When
        None, every QS without a finite threshold is an objective.
    start : ``(d,)`` the configuration in force, centre of the risk radius; the first
        starting point of every optimizer.
    radius : risk radius, a normalized distance (1 allows the whole box).
    weights : ``(k,)`` positive priorities multiplying each QS (default ones).
    scales : ``(k,)`` positive units dividing each QS so that QS of different kinds
        compare (default ``|r|`` where finite and non-zero, else 1; pass e.g. the
        absolute QS under the configuration in force).
    projector : ``project(x, *, center, radius) -> x`` for one ``(d,)`` vector: onto valid
        configurations inside the radius (``ConfigurationSpace.project`` fits).
    distance : ``(a, b) -> normalized distance``.
    names : one label per QS, used as history column names.
    steps : ``(dim,)`` smallest normalized change that changes each coordinate's
        setting (0: continuous; default all 0). Local searches probe at least one step.
    """

    dim: int
    evaluate: Callable[[np.ndarray], Evaluation]
    thresholds: np.ndarray
    start: np.ndarray
    radius: float
    optimize_mask: np.ndarray
    weights: np.ndarray
    scales: np.ndarray
    projector: Projector
    distance: Distance
    names: tuple[str, ...]
    steps: np.ndarray

    # A hand-written __init__ (not the dataclass's) so that the attributes are typed as
    # the resolved arrays while the constructor still takes None for "the default".
    def __init__(
        self,
        dim: int,
        evaluate: Callable[[np.ndarray], Evaluation],
        thresholds: np.ndarray,
        start: np.ndarray,
        radius: float = 1.0,
        optimize_mask: np.ndarray | None = None,
        weights: np.ndarray | None = None,
        scales: np.ndarray | None = None,
        projector: Projector = box_projector,
        distance: Distance = normalized_distance,
        names: tuple[str, ...] | None = None,
        steps: np.ndarray | None = None,
    ) -> None:
        if not isinstance(dim, int | np.integer) or dim < 1:
            raise ValidationError(f"Problem.dim: expected an integer >= 1, got {dim!r}")
        r = np.asarray(thresholds, dtype=float).reshape(-1)
        k = r.size
        if k == 0 or np.isnan(r).any() or (r == -np.inf).any():
            raise ValidationError(
                f"Problem.thresholds: expected k >= 1 numbers or +inf, got {thresholds!r}"
            )
        start_ = np.asarray(start, dtype=float).reshape(-1)
        if start_.shape != (dim,) or not ((start_ >= 0) & (start_ <= 1)).all():
            raise ValidationError(f"Problem.start: expected {dim} values in [0, 1], got {start!r}")
        if not np.isfinite(radius) or radius <= 0:
            raise ValidationError(f"Problem.radius: expected a number > 0, got {radius!r}")
        mask = np.asarray(
            ~np.isfinite(r) if optimize_mask is None else optimize_mask, dtype=bool
        ).reshape(-1)
        if mask.shape != (k,):
            raise ValidationError(
                f"Problem.optimize_mask: expected {k} booleans, got {optimize_mask!r}"
            )
        if not (mask | np.isfinite(r)).all():
            raise ValidationError(
                "Problem.optimize_mask: a QS with no threshold must be an objective; "
                f"got mask {mask.tolist()} for thresholds {r.tolist()}"
            )
        weights_ = _positive(np.ones(k) if weights is None else weights, k, "Problem.weights")
        default_scales = np.where(np.isfinite(r) & (r != 0), np.abs(r), 1.0)
        scales_ = _positive(default_scales if scales is None else scales, k, "Problem.scales")
        labels = tuple(f"f{i}" for i in range(k)) if names is None else tuple(names)
        if len(labels) != k or len(set(labels)) != k:
            raise ValidationError(f"Problem.names: expected {k} distinct labels, got {labels!r}")
        steps_ = np.asarray(np.zeros(dim) if steps is None else steps, dtype=float).reshape(-1)
        if steps_.shape != (dim,) or not (np.isfinite(steps_) & (steps_ >= 0)).all():
            raise ValidationError(
                f"Problem.steps: expected {dim} finite numbers >= 0, got {steps!r}"
            )
        for attr, value in (
            ("dim", dim),
            ("evaluate", evaluate),
            ("radius", radius),
            ("projector", projector),
            ("distance", distance),
            ("steps", steps_),
            ("thresholds", r),
            ("start", start_),
            ("optimize_mask", mask),
            ("weights", weights_),
            ("scales", scales_),
            ("names", labels),
        ):
            object.__setattr__(self, attr, value)

    @property
    def n_qs(self) -> int:
        """Number of QS components ``k``."""
        return self.thresholds.size

    @property
    def constrained(self) -> np.ndarray:
        """``(k,)`` bool: the QS with a finite threshold."""
        return np.asarray(np.isfinite(self.thresholds))

    def normalize(self, mean: np.ndarray) -> np.ndarray:
        """QS in comparable units: ``weights * mean / scales`` (broadcast over rows)."""
        return np.asarray(np.asarray(mean, dtype=float) * (self.weights / self.scales))

    @property
    def normalized_thresholds(self) -> np.ndarray:
        """Thresholds in the units of `normalize` (``+inf`` stays ``+inf``)."""
        return np.asarray(self.thresholds * (self.weights / self.scales))

    def violation(self, mean: np.ndarray) -> np.ndarray:
        """Largest normalized constraint violation per row (<= 0 when feasible; +inf if failed)."""
        g = self.normalize(np.atleast_2d(mean))
        excess = np.where(self.constrained, g - self.normalized_thresholds, -np.inf)
        worst = excess.max(axis=1) if self.constrained.any() else np.zeros(len(g))
        return np.where(np.isnan(g).any(axis=1), np.inf, worst)

    def feasible(self, mean: np.ndarray) -> np.ndarray:
        """``(n,)`` bool: every constrained QS mean is within its threshold (and none failed)."""
        return self.violation(mean) <= 0

    def project(self, x: np.ndarray) -> np.ndarray:
        """Project ``x`` (``(d,)`` or ``(n, d)``) into the box and the risk radius around `start`."""
        x = np.asarray(x, dtype=float)
        if x.ndim == 1:
            return np.asarray(self.projector(x, center=self.start, radius=self.radius), dtype=float)
        return np.stack([self.project(row) for row in x]) if len(x) else x.reshape(0, self.dim)


def _positive(values: object, k: int, field_name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float).reshape(-1)
    if array.shape != (k,) or not (np.isfinite(array) & (array > 0)).all():
        raise ValidationError(f"{field_name}: expected {k} finite numbers > 0, got {values!r}")
    return array
