"""Forecast each queue's job arrival rate and typical job size from a multi-week history.

Answers "how much work will each queue bring at the horizon" from the trace
itself, so the provisioning analysis can size the cluster for next quarter
(``tempo whatif --growth auto --horizon 90d``). Per queue two series are
binned from the submissions: jobs per period and the typical job size, exp of
the 10%-trimmed mean of log task-seconds per job (setup and cleanup left out,
as data growth leaves them alone). Job sizes are heavy-tailed (SWIM's span five
orders of magnitude): a day's plain mean swings with its one largest job by
more than months of trend, while the trimmed log mean moves with the scale of
all jobs, which is what data growth (`WorkloadModel.with_growth`) changes. It
is forecast on its own scale, as the counts are, so a linear trend stays linear
(on the log scale it would compound: +70% instead of +46% in a test's 90 days). The
model is chosen by the history's length (`plan_for`):

- two weeks or more: daily series, the weekly season removed by STL;
- two days to two weeks: hourly series, the daily season removed by STL; a note
  says the weekly season is not modelled;
- one day to two days: hourly series, no season (trend only); a note says so
  and that the trend is a guess;
- under a day: refused.

The (seasonally adjusted) series is forecast by exponential smoothing, the
`whatif.ets.CANDIDATES` model of least AICc (no trend, a local linear trend, a
damped one, or a fixed straight line). The value at the horizon is the
horizon's last day, seasonally adjusted: its job count (the sum over its hours
for an hourly model) and its typical job size. The median and the prediction
interval are quantiles of `SIMULATIONS` simulated paths, bagged
(`whatif.ets.bagged_paths`: `BOOTSTRAP` block-bootstrapped series, the model
chosen and fitted again on each), so they include the uncertainty of the
model's choice and of its fitted parameters, not only of the noise;
``bootstrap=0`` simulates every path from the one fit instead. ``current`` is
the value over the reference window (the last season: a week, or a day), the
window the provisioning scenarios are made from, so ``median / current`` is the
factor that window is scaled by; for job sizes it is the same statistic as the
horizon's day, the mean of the window's bins' typical sizes. Bounds are never
below 0.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from whatif import ets
from whatif.durations import DAY_S, HOUR_S, WEEK_S
from whatif.errors import ValidationError
from whatif.executors import Executor, SerialExecutor
from whatif.workload import Workload
from whatif.workload_model.queue import BOOKKEEPING_STAGES

logger = logging.getLogger(__name__)


#: Paths simulated per series for the median and the interval.
SIMULATIONS = 1000

#: Bootstrapped series per series forecast (each gives SIMULATIONS // BOOTSTRAP paths).
BOOTSTRAP = 100

#: The share of a bin's jobs trimmed from each end of its log job sizes.
TRIM = 0.1

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
    """A queue's forecast: jobs per day and typical job size (task-seconds: exp of the trimmed
    mean of log task-seconds of a bin's jobs, `log_size`)."""

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
    workload: Workload,
    horizon_s: float,
    *,
    level: float = 0.9,
    seed: int = 0,
    bootstrap: int = BOOTSTRAP,
    executor: Executor | None = None,
) -> WorkloadForecast:
    """Forecast every queue of `workload` `horizon_s` seconds ahead with a `level` interval.

    The history is the workload's submission span, binned from its first
    submission; a trailing incomplete bin is left out. Raises `ValidationError`
    for a horizon under a day, a level outside (0, 1) or a history under a day.
    `bootstrap` series are bagged per series (0: paths from the one fit). The
    series (two per queue) are forecast on `executor` (in this process when None):
    each draws from its own seeded generator, so the result does not depend on it.
    """
    if not (isinstance(horizon_s, int | float) and math.isfinite(horizon_s) and horizon_s >= DAY_S):
        raise ValidationError(f"horizon: expected a duration of at least 1d, got {horizon_s!r}")
    if not (isinstance(level, int | float) and 0 < level < 1):
        raise ValidationError(f"level: expected a number in (0, 1), got {level!r}")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or not 0 <= bootstrap:
        raise ValidationError(f"bootstrap: expected an integer >= 0, got {bootstrap!r}")
    first, last = workload.span_s
    plan = plan_for(last - first)
    n_bins = int((last - first) // plan.step_s)
    end = first + n_bins * plan.step_s
    steps = math.ceil(horizon_s / plan.step_s)
    reference = (end - plan.reference_s, end)
    sizes = job_sizes(workload)
    jobs = workload.jobs
    series, notes = [], []
    for i, queue in enumerate(workload.queues):
        mine = (jobs["queue"] == queue).to_numpy()
        submit = jobs["submit_s"].to_numpy(dtype=float)[mine]
        setup = _Setup(plan, first, n_bins, steps, reference, level, seed + i, bootstrap)
        rate, size, queue_notes = _queue_series(queue, submit, sizes[mine], setup)
        series += [rate, size]
        notes.append(queue_notes)
    forecasts = (executor or SerialExecutor()).map(_forecast_series, series)
    queues = [
        QueueForecast(queue, forecasts[2 * i], forecasts[2 * i + 1], notes[i])
        for i, queue in enumerate(workload.queues)
    ]
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


@dataclass(frozen=True)
class _Setup:
    """What every series of one `forecast_workload` call shares."""

    plan: ForecastPlan
    first: float
    n_bins: int
    steps: int
    reference: tuple[float, float]
    level: float
    seed: int
    bootstrap: int


def log_size(size: np.ndarray) -> np.ndarray:
    """Log task-seconds, a job under one task-second counted as one."""
    out: np.ndarray = np.log(np.maximum(size, 1.0))
    return out


@dataclass(frozen=True)
class _Series:
    """One series to forecast (`_forecast_series`): per-bin `values`, the value over the
    reference window (`current`), whether the horizon's day is the sum of its bins
    (`total`: counts) or their mean (job sizes)."""

    values: np.ndarray
    setup: _Setup
    current: float
    total: bool


def _queue_series(
    queue: str, submit: np.ndarray, size: np.ndarray, setup: _Setup
) -> tuple[_Series, _Series, tuple[str, ...]]:
    """A queue's two series, jobs per bin and typical job size per bin, and its notes."""
    plan, n_bins = setup.plan, setup.n_bins
    edges = setup.first + plan.step_s * np.arange(n_bins + 1)
    counts, _ = np.histogram(submit, bins=edges)
    inside = (submit >= edges[0]) & (submit < edges[-1])
    bins = np.minimum(((submit[inside] - edges[0]) // plan.step_s).astype(int), n_bins - 1)
    from scipy.stats import trim_mean

    by_bin = pd.Series(log_size(size[inside])).groupby(bins).agg(lambda x: trim_mean(x, TRIM))
    log_sizes = pd.Series(np.nan, index=range(n_bins))
    log_sizes[by_bin.index] = by_bin.to_numpy()
    notes = []
    empty = int((counts == 0).sum())
    if empty == n_bins:
        log_sizes[:] = 0.0
    elif empty:
        log_sizes = log_sizes.interpolate(limit_direction="both")
        unit = "days" if plan.step_s == DAY_S else "hours"
        notes.append(
            f"{queue}: {empty} of {n_bins} {unit} had no job; their job size is interpolated"
        )
    in_window = (submit >= setup.reference[0]) & (submit < setup.reference[1])
    window_days = (setup.reference[1] - setup.reference[0]) / DAY_S
    rate = _Series(counts.astype(float), setup, float(in_window.sum()) / window_days, True)
    # now is the statistic the forecast's day is: the mean of the window's bins' typical
    # sizes (one typical size over all the window's jobs differed by 2-3x at a few jobs
    # an hour, and read as growth where there is none)
    sizes = np.exp(log_sizes.to_numpy(dtype=float))
    window_bins = round(plan.reference_s / plan.step_s)
    now = float(sizes[-window_bins:].mean()) if in_window.any() else 0.0
    job_size = _Series(sizes, setup, now, False)
    return rate, job_size, tuple(notes)


def _forecast_series(task: _Series) -> SeriesForecast:
    """The horizon's last day as quantiles: the sum of its bins when `total`, else their mean."""
    from statsmodels.tsa.seasonal import STL
    from threadpoolctl import threadpool_limits

    values, setup, current, total = task.values, task.setup, task.current, task.total
    plan, steps = setup.plan, setup.steps
    per_day = plan.per_day

    def day_value(rows: np.ndarray) -> np.ndarray:
        out: np.ndarray = rows.sum(axis=0) if total else rows.mean(axis=0)
        return out

    if np.ptp(values) == 0:  # nothing varies: nothing to fit, the value stays
        value = float(day_value(np.full((min(per_day, steps), 1), values[0]))[0])
        return SeriesForecast(current, value, value, value, "constant")
    series = pd.Series(values)
    if plan.season:
        stl = STL(series, period=plan.season).fit()
        series = series - stl.seasonal
    with threadpool_limits(limits=1, user_api="blas"):  # as in `ets.bagged_paths`: 3x faster
        name, fitted = ets.choose(series)
    label = f"{plan.season_label}+{name}" if plan.season else name
    rng = np.random.default_rng(setup.seed)
    if setup.bootstrap:
        smooth = np.asarray(stl.trend if plan.season else fitted.fittedvalues, dtype=float)
        paths, chosen = ets.bagged_paths(
            smooth,
            series.to_numpy(dtype=float) - smooth,
            steps,
            block=plan.season or per_day,
            replicates=setup.bootstrap,
            per_replicate=max(1, SIMULATIONS // setup.bootstrap),
            rng=rng,
        )
        label += f", bagged ({100 * chosen[name] / setup.bootstrap:.0f}% alike)"
    else:
        paths = ets.simulate(fitted, steps, SIMULATIONS, rng)
    day = day_value(paths[-min(per_day, steps) :])
    tail = (1 - setup.level) / 2
    # jobs and task-seconds are never negative: an additive model's paths can be
    lower, median, upper = np.maximum(np.quantile(day, [tail, 0.5, 1 - tail]), 0.0)
    return SeriesForecast(current, float(median), float(lower), float(upper), label)
