"""Job arrivals: a Poisson process whose rate follows the clock.

The rate is piecewise constant over clock hours: ``rate(t) = hourly[hour_of_day(t)]
* weekday[day_of_week(t)]`` jobs per hour. Clock time is read from the submission
time in seconds as UTC since the Unix epoch, so for trace-relative times the trace
start counts as Thursday 1970-01-01 00:00 UTC (``start_s`` of `generate` uses the
same clock, so a model fitted on relative times generates with ``start_s=0``
aligned the same way).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from whatif.durations import HOUR_S, WEEK_S
from whatif.workload_model.distributions import GoodnessOfFit

logger = logging.getLogger(__name__)

#: Arrival profiles: the rate varies by hour of day, by hour of day and day of week
#: (separable: an hour-of-day rate times a day-of-week factor), or not at all.
PROFILES = ("hour-of-day", "hour-of-week", "flat")

#: Day of week of the Unix epoch (Monday = 0): 1970-01-01 was a Thursday.
EPOCH_WEEKDAY = 3


def hour_of_day(hour: np.ndarray) -> np.ndarray:
    """Hour of day (0-23) of absolute clock-hour numbers ``floor(t / 3600)``."""
    result: np.ndarray = np.mod(hour, 24).astype(np.int64)
    return result


def day_of_week(hour: np.ndarray) -> np.ndarray:
    """Day of week (Monday = 0) of absolute clock-hour numbers."""
    result: np.ndarray = np.mod(np.floor_divide(hour, 24) + EPOCH_WEEKDAY, 7).astype(np.int64)
    return result


@dataclass(frozen=True)
class ArrivalProcess:
    """A clock-modulated Poisson process of job submissions for one queue.

    Parameters
    ----------
    profile : str
        The profile actually fitted ("flat" when the queue had too few jobs).
    hourly_rate_per_h : tuple of 24 floats
        Jobs per hour in each hour of the day (UTC).
    weekday_factor : tuple of 7 floats
        Multiplier per day of week, Monday first; all 1.0 unless profile is
        "hour-of-week".
    n_jobs : int
        Jobs the process was fitted on.
    window_s : float
        Length of the observation window it was fitted over.
    """

    profile: str
    hourly_rate_per_h: tuple[float, ...]
    weekday_factor: tuple[float, ...] = (1.0,) * 7
    n_jobs: int = 0
    window_s: float = 0.0

    @property
    def mean_rate_per_h(self) -> float:
        """Jobs per hour over the fitted window."""
        return self.n_jobs / (self.window_s / HOUR_S) if self.window_s > 0 else 0.0

    def rate_per_h(self, hour: np.ndarray) -> np.ndarray:
        """Rate (jobs per hour) during absolute clock hours `hour`."""
        hourly = np.asarray(self.hourly_rate_per_h, dtype=float)
        weekday = np.asarray(self.weekday_factor, dtype=float)
        result: np.ndarray = hourly[hour_of_day(hour)] * weekday[day_of_week(hour)]
        return result

    def sample(
        self, rng: np.random.Generator, start_s: float, end_s: float, *, scale: float = 1.0
    ) -> np.ndarray:
        """Sorted submission times in [start_s, end_s), with the rate times `scale`."""
        hours, lo, hi = _hour_segments(start_s, end_s)
        expected = self.rate_per_h(hours) * scale * (hi - lo) / HOUR_S
        counts = rng.poisson(expected)
        offsets = rng.random(int(counts.sum())) * np.repeat(hi - lo, counts)
        times = np.repeat(lo, counts) + offsets
        return np.sort(np.minimum(times, np.nextafter(end_s, -np.inf)))

    def expected(self, start_s: float, end_s: float, *, scale: float = 1.0) -> float:
        """Expected submissions in [start_s, end_s) with the rate times `scale`, without an
        entry per clock hour: whole weeks (the rate's period) at the weekly total, then
        the hours left. Overflow gives infinity (callers silence NumPy's warning)."""
        span = max(end_s - start_s, 0.0)
        weeks = float(np.floor(span / WEEK_S))
        weekly = float(np.sum(self.rate_per_h(np.arange(168, dtype=np.int64))))
        hours, lo, hi = _hour_segments(start_s + weeks * WEEK_S, end_s)
        rest = float(np.sum(self.rate_per_h(hours) * (hi - lo) / HOUR_S))
        return ((weeks * weekly if weeks else 0.0) + rest) * scale

    def cumulative(self, times: np.ndarray, origin_s: float) -> np.ndarray:
        """Expected number of arrivals between `origin_s` and each of `times`."""
        times = np.asarray(times, dtype=float)
        if times.size == 0:
            return times
        hours, lo, hi = _hour_segments(origin_s, float(times.max()) + 1.0)
        per_hour = self.rate_per_h(hours) / HOUR_S
        before = np.r_[0.0, np.cumsum(per_hour * (hi - lo))]
        index = np.searchsorted(hours, np.floor(times / HOUR_S).astype(np.int64))
        result: np.ndarray = before[index] + per_hour[index] * (times - lo[index])
        return result

    def goodness_of_fit(self, times: np.ndarray, origin_s: float) -> GoodnessOfFit:
        """KS test of the rescaled inter-arrival times against Exp(1).

        By the time-rescaling theorem, gaps in expected-arrival units of a Poisson
        process with this rate are exponential with mean 1.
        """
        times = np.sort(np.asarray(times, dtype=float))
        if times.size < 2:
            return GoodnessOfFit(int(times.size), float("nan"), float("nan"))
        gaps = np.diff(self.cumulative(times, origin_s))
        from scipy import stats  # 0.5 s to import: loaded by the fits that test themselves

        result = stats.kstest(gaps, "expon")
        return GoodnessOfFit(int(gaps.size), float(result.statistic), float(result.pvalue))


def _hour_segments(start_s: float, end_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Clock hours overlapping [start_s, end_s) and each overlap's bounds."""
    if end_s <= start_s:
        empty = np.zeros(0)
        return empty.astype(np.int64), empty, empty
    first = int(np.floor(start_s / HOUR_S))
    last = int(np.ceil(end_s / HOUR_S))
    hours = np.arange(first, max(last, first + 1), dtype=np.int64)
    lo = np.maximum(hours * HOUR_S, start_s)
    hi = np.minimum((hours + 1) * HOUR_S, end_s)
    keep = hi > lo
    return hours[keep], lo[keep], hi[keep]


def fit_arrivals(
    times: np.ndarray, *, window: tuple[float, float], profile: str, min_jobs: int
) -> ArrivalProcess:
    """Fit the rate profile to submission `times` observed over `window` (seconds).

    Rates are maximum-likelihood estimates of a piecewise-constant Poisson rate:
    jobs counted in each hour of the day over the hours of observation of that
    hour. Hours of the day observed for less than one hour in total take the
    queue's mean rate, and the profile is rescaled so that it expects exactly the
    observed number of jobs over the window. "hour-of-week" multiplies by a
    day-of-week factor, estimated the same way; it needs a window of a week or
    more and otherwise falls back to "hour-of-day". Queues with fewer than
    `min_jobs` jobs get a flat rate.
    """
    times = np.asarray(times, dtype=float)
    start, end = window
    span_h = (end - start) / HOUR_S
    n = int(times.size)
    mean = n / span_h
    effective = profile
    if profile != "flat" and n < min_jobs:
        logger.info("%d jobs < min_jobs_for_profile=%d: flat arrival rate", n, min_jobs)
        effective = "flat"
    if effective == "hour-of-week" and end - start < WEEK_S:
        logger.info("window shorter than a week: hour-of-day profile instead of hour-of-week")
        effective = "hour-of-day"
    flat = ArrivalProcess("flat", (mean,) * 24, n_jobs=n, window_s=end - start)
    if effective == "flat":
        return flat
    hours, lo, hi = _hour_segments(start, end)
    exposure_h = (hi - lo) / HOUR_S
    job_hours = np.floor(times / HOUR_S).astype(np.int64)
    seen = np.bincount(hour_of_day(hours), exposure_h, minlength=24)
    counts = np.bincount(hour_of_day(job_hours), minlength=24)
    hourly = np.where(seen >= 1.0, counts / np.maximum(seen, 1e-12), mean)
    weekday = np.ones(7)
    if effective == "hour-of-week":
        expected = hourly[hour_of_day(hours)] * exposure_h
        days = day_of_week(hours)
        seen_days = np.bincount(days, exposure_h, minlength=7)
        expected_days = np.bincount(days, expected, minlength=7)
        day_counts = np.bincount(day_of_week(job_hours), minlength=7)
        ok = (seen_days >= 24.0) & (expected_days > 0)
        weekday = np.where(ok, day_counts / np.where(ok, expected_days, 1.0), 1.0)
    fitted = ArrivalProcess(
        effective, tuple(map(float, hourly)), tuple(map(float, weekday)), n, end - start
    )
    expected_total = float(np.sum(fitted.rate_per_h(hours) * exposure_h))
    if expected_total <= 0:
        return flat
    return ArrivalProcess(
        effective,
        tuple(float(v) for v in hourly * (n / expected_total)),
        tuple(map(float, weekday)),
        n,
        end - start,
    )
