"""Forecast each queue's job arrival rate and job size from a multi-week history.

Answers "how much work will each queue bring at the horizon" from the trace
itself, so the provisioning analysis can size the cluster for next quarter
(``tempo whatif --growth auto --horizon 90d``). Per queue two series are
binned from the submissions: jobs per period and the mean job size (task-seconds
per job, setup and cleanup left out, as data growth leaves them alone). The
model is chosen by the history's length (`plan_for`):

- two weeks or more: daily series, the weekly season removed by STL;
- two days to two weeks: hourly series, the daily season removed by STL; a note
  says the weekly season is not modelled;
- one day to two days: hourly series, no season (trend only); a note says so
  and that the trend is a guess;
- under a day: refused.

The (seasonally adjusted) series is then forecast by exponential smoothing
(statsmodels' ``ExponentialSmoothing``, additive errors): no trend, a local
linear trend, a damped one, or a fixed linear trend (smoothing 0: a straight
line through the history), whichever has the least AICc (`ETS_CANDIDATES`). A
flat history is so not extrapolated as growth, and a steady one is not lost to
a local fit that chases the last weeks' noise (statsmodels' optimizer finds
those on noisy counts).

The value at the horizon is the horizon's last day, seasonally adjusted: its job
count (the sum over its hours for an hourly model) and its mean job size. The
median and the prediction interval are quantiles of `SIMULATIONS` paths
simulated from the chosen model (``HoltWintersResults.simulate``); they do not
include the uncertainty of the fitted parameters (a fixed linear trend's slope,
notably), so read the upper bound as "if the trend holds". ``current`` is the observed mean over the reference window (the last
season: a week, or a day), the window the provisioning scenarios are fitted on,
so ``median / current`` is the factor that window is scaled by.
"""

from __future__ import annotations

import logging
import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from whatif.errors import ValidationError
from whatif.workload import Workload
from whatif.workload_model.queue import BOOKKEEPING_STAGES

logger = logging.getLogger(__name__)

HOUR_S = 3600.0
DAY_S = 86400.0
WEEK_S = 7 * DAY_S

#: Paths simulated per series for the median and the interval.
SIMULATIONS = 1000

#: The models tried on each (seasonally adjusted) series, by name: (trend, damped,
#: fixed smoothing parameters). The one of least AICc is used.
ETS_CANDIDATES: dict[str, tuple[str | None, bool, dict[str, float]]] = {
    "ETS(A,N,N)": (None, False, {}),
    "ETS(A,A,N)": ("add", False, {}),
    "ETS(A,Ad,N)": ("add", True, {}),
    "linear trend": ("add", False, {"smoothing_level": 0.0, "smoothing_trend": 0.0}),
}

#: A forecast factor is floored here: a queue forecast to vanish is kept, barely.
MIN_FACTOR = 0.01


@dataclass(frozen=True)
class ForecastPlan:
    """How a history of a given length is forecast: bin width, season (in bins), model name."""

    step_s: float
    season: int | None
    model: str
    note: str | None

    @property
    def reference_s(self) -> float:
        """The reference window: the last season (a week or a day)."""
        return self.step_s * self.season if self.season else DAY_S

    @property
    def season_label(self) -> str:
        return {7: "STL(weekly)", 24: "STL(daily)"}.get(self.season or 0, "")

    @property
    def per_day(self) -> int:
        return round(DAY_S / self.step_s)


def plan_for(history_s: float) -> ForecastPlan:
    """The model for `history_s` seconds of history (see the module docstring)."""
    if not (math.isfinite(history_s) and history_s >= DAY_S):
        raise ValidationError(
            f"history: expected at least 1d of submissions to forecast from, "
            f"got {max(history_s, 0.0) / HOUR_S:.1f}h"
        )
    if history_s >= 2 * WEEK_S:
        return ForecastPlan(DAY_S, 7, "daily counts, weekly season by STL", None)
    days = history_s / DAY_S
    if history_s >= 2 * DAY_S:
        return ForecastPlan(
            HOUR_S,
            24,
            "hourly counts, daily season by STL",
            f"history of {days:.1f} days is shorter than two weeks: the weekly season is "
            "not modelled, only the daily one",
        )
    return ForecastPlan(
        HOUR_S,
        None,
        "hourly counts, no season (trend only)",
        f"history of {days:.1f} days is shorter than two days: no season is modelled "
        "(trend only), so the daily cycle may pass for a trend; the forecast is a guess",
    )


@dataclass(frozen=True)
class SeriesForecast:
    """One quantity now and at the horizon: ``current`` (reference window), median and interval.

    ``model`` names the model that forecast it, e.g. ``STL(weekly)+ETS(A,A,N)``.
    """

    current: float
    median: float
    lower: float
    upper: float
    model: str

    def factor(self, value: float) -> float:
        """`value` relative to ``current``, floored at `MIN_FACTOR` (1 when current is 0)."""
        if self.current <= 0:
            return 1.0
        return max(value / self.current, MIN_FACTOR)


@dataclass(frozen=True)
class QueueForecast:
    """A queue's forecast: jobs per day and mean job size (task-seconds per job)."""

    queue: str
    jobs_per_day: SeriesForecast
    job_size_s: SeriesForecast
    notes: tuple[str, ...] = ()

    def factors(self, bound: str) -> tuple[float, float]:
        """(growth, arrival scale) that take the reference window to `bound` ("median" or "upper")."""
        if bound not in ("median", "upper"):
            raise ValidationError(f"bound: expected 'median' or 'upper', got {bound!r}")
        size, rate = self.job_size_s, self.jobs_per_day
        return size.factor(getattr(size, bound)), rate.factor(getattr(rate, bound))


@dataclass(frozen=True)
class WorkloadForecast:
    """Every queue's forecast at ``horizon_s`` after the history's last complete bin."""

    horizon_s: float
    level: float
    history_s: float
    plan: ForecastPlan
    reference: tuple[float, float]
    queues: tuple[QueueForecast, ...]

    @property
    def notes(self) -> tuple[str, ...]:
        general = (self.plan.note,) if self.plan.note else ()
        return general + tuple(n for q in self.queues for n in q.notes)


def forecast_workload(
    workload: Workload, horizon_s: float, *, level: float = 0.9, seed: int = 0
) -> WorkloadForecast:
    """Forecast every queue of `workload` `horizon_s` seconds ahead with a `level` interval.

    The history is the workload's submission span, binned from its first
    submission; a trailing incomplete bin is left out. Raises `ValidationError`
    for a horizon under a day, a level outside (0, 1) or a history under a day.
    """
    if not (isinstance(horizon_s, int | float) and math.isfinite(horizon_s) and horizon_s >= DAY_S):
        raise ValidationError(f"horizon: expected a duration of at least 1d, got {horizon_s!r}")
    if not (isinstance(level, int | float) and 0 < level < 1):
        raise ValidationError(f"level: expected a number in (0, 1), got {level!r}")
    first, last = workload.span_s
    plan = plan_for(last - first)
    n_bins = int((last - first) // plan.step_s)
    end = first + n_bins * plan.step_s
    steps = math.ceil(horizon_s / plan.step_s)
    reference = (end - plan.reference_s, end)
    sizes = job_sizes(workload)
    jobs = workload.jobs
    queues = []
    for i, queue in enumerate(workload.queues):
        mine = (jobs["queue"] == queue).to_numpy()
        submit = jobs["submit_s"].to_numpy(dtype=float)[mine]
        size = sizes[mine]
        queues.append(
            _forecast_queue(
                queue, submit, size, plan, first, n_bins, steps, reference, level, seed + i
            )
        )
    result = WorkloadForecast(
        float(horizon_s), float(level), last - first, plan, reference, tuple(queues)
    )
    for note in result.notes:
        logger.info("forecast: %s", note)
    return result


def job_sizes(workload: Workload) -> np.ndarray:
    """Task-seconds per job (setup and cleanup left out), in the order of ``workload.jobs``."""
    tasks = workload.tasks
    work = tasks[~tasks["stage"].isin(BOOKKEEPING_STAGES)]
    totals = work.groupby("job_id", sort=False)["duration_s"].sum()
    return workload.jobs["job_id"].map(totals).fillna(0.0).to_numpy(dtype=float)


def _forecast_queue(
    queue: str,
    submit: np.ndarray,
    size: np.ndarray,
    plan: ForecastPlan,
    first: float,
    n_bins: int,
    steps: int,
    reference: tuple[float, float],
    level: float,
    seed: int,
) -> QueueForecast:
    edges = first + plan.step_s * np.arange(n_bins + 1)
    counts, _ = np.histogram(submit, bins=edges)
    work, _ = np.histogram(submit, bins=edges, weights=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_size = pd.Series(np.where(counts > 0, work / np.maximum(counts, 1), np.nan))
    notes = []
    empty = int((counts == 0).sum())
    if empty == n_bins:
        mean_size = pd.Series(np.zeros(n_bins))
    elif empty:
        mean_size = mean_size.interpolate(limit_direction="both")
        unit = "days" if plan.step_s == DAY_S else "hours"
        notes.append(
            f"{queue}: {empty} of {n_bins} {unit} had no job; their job size is interpolated"
        )
    in_window = (submit >= reference[0]) & (submit < reference[1])
    window_days = (reference[1] - reference[0]) / DAY_S
    current_rate = float(in_window.sum()) / window_days
    current_size = float(size[in_window].mean()) if in_window.any() else 0.0
    rate = _forecast_series(
        counts.astype(float), plan, steps, level, seed, current_rate, total=True
    )
    job_size = _forecast_series(
        mean_size.to_numpy(dtype=float), plan, steps, level, seed, current_size, total=False
    )
    return QueueForecast(queue, rate, job_size, tuple(notes))


def _forecast_series(
    values: np.ndarray,
    plan: ForecastPlan,
    steps: int,
    level: float,
    seed: int,
    current: float,
    *,
    total: bool,
) -> SeriesForecast:
    """The horizon's last day (sum of its bins when `total`, else their mean), as quantiles."""
    from statsmodels.tools.sm_exceptions import ConvergenceWarning
    from statsmodels.tsa.holtwinters import ExponentialSmoothing
    from statsmodels.tsa.seasonal import STL

    per_day = plan.per_day
    if np.ptp(values) == 0:  # nothing varies: nothing to fit, the value stays
        value = float(values[0]) * (per_day if total else 1)
        return SeriesForecast(current, value, value, value, "constant")
    series = pd.Series(values)
    if plan.season:
        series = series - STL(series, period=plan.season).fit().seasonal
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        candidates = {
            name: ExponentialSmoothing(
                series, trend=trend, damped_trend=damped, initialization_method="estimated"
            ).fit(**fixed)
            for name, (trend, damped, fixed) in ETS_CANDIDATES.items()
        }
        name, fitted = min(candidates.items(), key=lambda item: item[1].aicc)
        paths = fitted.simulate(
            steps, anchor="end", repetitions=SIMULATIONS, rng=np.random.default_rng(seed)
        ).to_numpy()
    last_day = paths.reshape(steps, -1)[-min(per_day, steps) :]
    day = last_day.sum(axis=0) if total else last_day.mean(axis=0)
    tail = (1 - level) / 2
    lower, median, upper = np.quantile(day, [tail, 0.5, 1 - tail])
    model = f"{plan.season_label}+{name}" if plan.season else name
    return SeriesForecast(current, float(median), float(lower), float(upper), model)
