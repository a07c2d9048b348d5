"""Fitted one-dimensional distributions: task durations (lognormal or empirical) and
empirical tables of discrete values (resource requests, users, AM sizes).

A `DurationDistribution` is either a lognormal fitted by maximum likelihood (``mu`` and
``sigma`` of the log durations) or an empirical distribution (equally likely stored
values: the sample or its quantiles). `fit_duration` chooses between them and measures the fit
with a one-sample Kolmogorov-Smirnov test.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from whatif.durations import LAST_INSTANT_S
from whatif.errors import ValidationError

logger = logging.getLogger(__name__)

#: Relative rounding allowed between a point-mass lognormal's exp(mu) and its value.
_POINT_TOLERANCE = 1e-9

#: Longest duration a draw takes, in seconds: `whatif.durations.LAST_INSTANT_S`,
#: 9999-12-31 in epoch seconds (a task that ran longer would end past any date a trace
#: time shows). Lognormal draws are capped at it, in log space, so they are never infinite.
MAX_DURATION_S = LAST_INSTANT_S
#: ``log(MAX_DURATION_S)``, about 26.3: the largest lognormal ``mu`` a model file holds,
#: and the largest ``sigma`` (wider spreads put most draws at 0 or at the cap).
LOG_MAX_DURATION = math.log(MAX_DURATION_S)

#: Duration families a model can use.
DURATION_FAMILIES = ("lognormal", "empirical")


@dataclass(frozen=True)
class GoodnessOfFit:
    """One-sample KS test of a fitted distribution against the data it was fitted on.

    The p-value is the plain KS p-value; with parameters estimated from the same
    data it is optimistic (a Lilliefors-type correction would lower it), so read it
    as "lognormal is rejected" when small rather than "accepted" when large.
    """

    n: int
    ks_stat: float
    p_value: float


@dataclass(frozen=True)
class DurationDistribution:
    """Task durations of one stage of one queue, in seconds.

    Parameters
    ----------
    family : {"lognormal", "empirical"}
    mu, sigma : float
        Lognormal parameters (mean and standard deviation of ``log(duration_s)``);
        NaN for an empirical distribution.
    quantiles : tuple of float
        Empirical distribution: sorted durations, each drawn with equal
        probability (the sample itself, or its quantiles at evenly spaced
        probabilities 0, 1/(k-1), ..., 1 when the sample was larger than the
        stored maximum); empty for a lognormal.
    """

    family: str
    mu: float = float("nan")
    sigma: float = float("nan")
    quantiles: tuple[float, ...] = ()

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Draw `size` durations (seconds, float64)."""
        if self.family == "lognormal":
            logs = self.mu + self.sigma * rng.standard_normal(size)
            return np.exp(np.minimum(logs, LOG_MAX_DURATION))
        q = np.asarray(self.quantiles, dtype=float)
        return q[rng.integers(0, q.size, size)]

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """The (right-continuous) distribution function at `x` (seconds)."""
        x = np.asarray(x, dtype=float)
        if self.family == "lognormal":
            if self.sigma == 0.0:  # a point mass; tolerate exp(log(v)) != v rounding
                step: np.ndarray = (x >= np.exp(self.mu) * (1 - _POINT_TOLERANCE)).astype(float)
                return step
            from scipy import stats  # 0.5 s to import: loaded where a fit is tested

            result: np.ndarray = stats.lognorm.cdf(x, self.sigma, scale=np.exp(self.mu))
            return result
        q = np.asarray(self.quantiles, dtype=float)
        return np.searchsorted(q, x, side="right") / q.size

    def goodness_of_fit(self, samples: np.ndarray) -> GoodnessOfFit:
        """KS statistic and p-value of `samples` against this distribution.

        Against a discrete distribution (empirical, or a lognormal with sigma 0)
        the statistic is the exact largest gap between the two step functions,
        and the p-value uses the continuous null distribution (conservative).
        """
        from scipy import stats  # 0.5 s to import: loaded where a fit is tested

        samples = np.sort(np.asarray(samples, dtype=float))
        n = samples.size
        if n == 0:
            return GoodnessOfFit(0, float("nan"), float("nan"))
        if self.family == "lognormal" and self.sigma > 0:
            result = stats.kstest(samples, self.cdf)
            return GoodnessOfFit(n, float(result.statistic), float(result.pvalue))
        jumps = np.union1d(samples, self.quantiles or [np.exp(self.mu) * (1 + _POINT_TOLERANCE)])
        observed = np.searchsorted(samples, jumps, side="right") / n
        statistic = float(np.max(np.abs(observed - self.cdf(jumps))))
        return GoodnessOfFit(n, statistic, float(stats.kstwo.sf(statistic, n)))


def fit_lognormal(samples: np.ndarray) -> DurationDistribution:
    """Maximum-likelihood lognormal of the positive `samples` (zeros are left out)."""
    positive = samples[samples > 0]
    if positive.size < samples.size:
        logger.info(
            "lognormal fit leaves out %d zero durations of %d",
            samples.size - positive.size,
            samples.size,
        )
    logs = np.log(positive)
    sigma = 0.0 if logs.min() == logs.max() else float(logs.std())
    return DurationDistribution("lognormal", mu=float(logs.mean()), sigma=sigma)


def fit_empirical(samples: np.ndarray, *, max_points: int) -> DurationDistribution:
    """The empirical quantile function of `samples`, kept to at most `max_points` knots."""
    ordered = np.sort(np.asarray(samples, dtype=float))
    if ordered.size > max_points:
        ordered = np.quantile(ordered, np.linspace(0.0, 1.0, max_points))
    return DurationDistribution("empirical", quantiles=tuple(float(v) for v in ordered))


def fit_duration(
    samples: np.ndarray, *, family: str, ks_alpha: float, max_points: int
) -> tuple[DurationDistribution, GoodnessOfFit]:
    """Fit durations with `family` ("auto" picks per sample) and report the KS fit.

    "auto" keeps the lognormal unless its KS p-value is below `ks_alpha`, in which
    case the empirical distribution is used. The lognormal is fitted to the
    positive durations but tested on all of them, so many zero durations show as
    a bad fit. A sample with no positive duration is always empirical.
    """
    samples = np.asarray(samples, dtype=float)
    if family != "empirical" and np.any(samples > 0):
        lognormal = fit_lognormal(samples)
        fit = lognormal.goodness_of_fit(samples)
        if family == "lognormal" or not fit.p_value < ks_alpha:
            return lognormal, fit
    empirical = fit_empirical(samples, max_points=max_points)
    return empirical, empirical.goodness_of_fit(samples)


@dataclass(frozen=True)
class EmpiricalTable:
    """A discrete joint distribution: distinct rows of `columns` and their weights.

    Used for values that repeat exactly, so that they are sampled jointly:
    (memory_mb, vcores) requests, (am_memory_mb, am_vcores), users. Missing values
    (NaN) are kept as a value of their own.
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]
    weights: tuple[float, ...]

    @classmethod
    def fit(cls, frame: pd.DataFrame, columns: tuple[str, ...]) -> EmpiricalTable:
        """Count the distinct rows of `frame[columns]`, most frequent first."""
        if frame.empty:
            return cls(columns, (), ())
        counts = frame[list(columns)].value_counts(dropna=False, sort=False).reset_index()
        counts = counts.sort_values(
            ["count", *columns], ascending=[False] + [True] * len(columns), kind="stable"
        )
        rows = tuple(
            tuple(_plain(v) for v in row)
            for row in counts[list(columns)].itertuples(index=False, name=None)
        )
        return cls(columns, rows, tuple(float(c) for c in counts["count"]))

    def sample(self, rng: np.random.Generator, size: int) -> dict[str, np.ndarray]:
        """Draw `size` rows; returns one array per column."""
        if not self.rows:
            raise ValidationError(f"cannot sample from an empty table of {', '.join(self.columns)}")
        weights = np.asarray(self.weights, dtype=float)
        picks = rng.choice(len(self.rows), size=size, p=weights / weights.sum())
        out = {}
        for j, name in enumerate(self.columns):
            column = [row[j] for row in self.rows]
            if all(isinstance(v, str) for v in column):
                out[name] = np.asarray(column, dtype=object)[picks]
            else:
                out[name] = np.asarray([np.nan if v is None else v for v in column], dtype=float)[
                    picks
                ]
        return out


def _plain(value: Any) -> str | float | None:
    """A JSON-friendly scalar: str, float, or None for a missing value (`value`: a pandas cell)."""
    if isinstance(value, str):
        return value
    if value is None or pd.isna(value):
        return None
    return float(value)
