"""Forecasting each queue's arrival rate and job size (whatif.forecast)."""

import numpy as np
import pandas as pd
import pytest
from samples import map_workload

from whatif.durations import DAY_S
from whatif.errors import ValidationError
from whatif.forecast import forecast_workload, job_sizes, plan_for
from whatif.workload import Workload

GROWTH_PER_MONTH = 0.2  # +20% per 30 days, linear
HORIZON_S = 90 * DAY_S


def _trend(t_s: np.ndarray) -> np.ndarray:
    return 1 + GROWTH_PER_MONTH * t_s / (30 * DAY_S)


def history(
    days: float, *, rate_per_h: float = 6.0, seed: int = 0, size_growth: bool = True
) -> Workload:
    """Hourly Poisson arrivals of one queue with a known linear trend, a weekly season
    (weekends at 60%) and a daily cycle; each job one map task whose duration grows
    with the same trend when `size_growth`."""
    rng = np.random.default_rng(seed)
    hours = np.arange(int(days * 24))
    start = hours * 3600.0
    weekend = ((hours // 24) % 7) >= 5
    daily = 1 + 0.5 * np.sin(2 * np.pi * (hours % 24) / 24)
    counts = rng.poisson(rate_per_h * _trend(start) * np.where(weekend, 0.6, 1.0) * daily)
    submit = np.repeat(start, counts) + rng.uniform(0, 3600, counts.sum())
    submit.sort()
    n = len(submit)
    ids = [f"job_{i:06d}" for i in range(n)]
    scale = _trend(submit) if size_growth else np.ones(n)
    duration = 600.0 * scale * rng.lognormal(0, 0.3, n)
    jobs = pd.DataFrame({"job_id": ids, "queue": "root.etl", "submit_s": submit})
    return map_workload(jobs, 1, duration)


@pytest.fixture(scope="module")
def eight_weeks():
    workload = history(56)
    return workload, forecast_workload(workload, HORIZON_S, level=0.9)


def test_eight_weeks_use_the_weekly_seasonal_model(eight_weeks):
    _, forecast = eight_weeks
    assert forecast.plan.season == 7 and "weekly season" in forecast.plan.model
    assert forecast.queues[0].jobs_per_day.model.startswith("STL(weekly)+")
    assert forecast.notes == ()
    assert forecast.reference[1] - forecast.reference[0] == 7 * DAY_S


def test_forecast_recovers_the_growth_and_covers_the_truth(eight_weeks):
    """The median at 90 days is within 10% of the true weekday-averaged rate, the 90%
    interval covers it, and job sizes grow as the truth does."""
    workload, forecast = eight_weeks
    (queue,) = forecast.queues
    end = forecast.reference[1]
    at_horizon = end + HORIZON_S - DAY_S / 2  # the middle of the horizon's last day
    weekly_mean = (5 * 1.0 + 2 * 0.6) / 7
    truth_rate = 6.0 * 24 * weekly_mean * float(_trend(np.array([at_horizon]))[0])
    rate = queue.jobs_per_day
    assert rate.lower <= truth_rate <= rate.upper
    assert rate.median == pytest.approx(truth_rate, rel=0.10)
    # The growth factor from the reference week to the horizon, against the truth's.
    truth_factor = _trend(np.array([at_horizon]))[0] / _trend(np.array([end - 3.5 * DAY_S]))[0]
    growth, arrival_scale = queue.factors("median")
    assert arrival_scale == pytest.approx(truth_factor, rel=0.10)
    assert growth == pytest.approx(truth_factor, rel=0.10)
    size = queue.job_size_s
    truth_size = 600.0 * _trend(np.array([at_horizon]))[0]
    assert size.lower <= truth_size <= size.upper
    assert queue.factors("upper")[1] > arrival_scale


def test_a_flat_history_forecasts_no_growth():
    """Without a trend the forecast factor stays near 1 (the test can fail on a biased model)."""
    workload = history(28, size_growth=False, seed=3)
    flat = Workload(
        jobs=workload.jobs.assign(submit_s=workload.jobs["submit_s"]),
        tasks=workload.tasks,
    )
    # Thin the history to the trend's inverse: keep each job with probability 1/trend.
    keep = np.random.default_rng(4).uniform(size=flat.n_jobs) < 1 / _trend(
        flat.jobs["submit_s"].to_numpy()
    )
    forecast = forecast_workload(flat.select_jobs(keep), 30 * DAY_S, bootstrap=0)
    growth, arrival_scale = forecast.queues[0].factors("median")
    assert arrival_scale == pytest.approx(1.0, abs=0.15)
    assert growth == pytest.approx(1.0, abs=0.1)


def test_a_few_days_use_the_daily_season_with_a_note():
    forecast = forecast_workload(history(5), 30 * DAY_S, bootstrap=0)
    assert forecast.plan.season == 24
    assert any("weekly season is not modelled" in n for n in forecast.notes)
    assert forecast.reference[1] - forecast.reference[0] == DAY_S


def test_a_short_history_takes_the_trend_only_fallback_with_a_note():
    forecast = forecast_workload(history(1.5), 30 * DAY_S, bootstrap=0)
    assert forecast.plan.season is None and "trend only" in forecast.plan.model
    assert any("shorter than two days" in n and "trend only" in n for n in forecast.notes)
    rate = forecast.queues[0].jobs_per_day
    assert rate.lower <= rate.median <= rate.upper


def test_plan_follows_the_history_length():
    assert plan_for(14 * DAY_S).season == 7
    assert plan_for(13.9 * DAY_S).season == 24
    assert plan_for(1.9 * DAY_S).season is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"horizon_s": 3600.0}, "horizon: expected a duration of at least 1d"),
        ({"horizon_s": float("nan")}, "horizon"),
        ({"horizon_s": HORIZON_S, "level": 1.0}, "level: expected a number in (0, 1)"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs, message):
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        forecast_workload(history(2), **kwargs)


def test_a_history_under_a_day_is_refused():
    with pytest.raises(ValidationError, match=r"history: expected at least 1d .* got 1[01]\.\dh"):
        forecast_workload(history(0.5), HORIZON_S)


def test_job_sizes_leave_out_setup_and_cleanup():
    jobs = pd.DataFrame({"job_id": ["a", "b"], "queue": "root.q", "submit_s": [0.0, 1.0]})
    tasks = pd.DataFrame(
        {
            "job_id": ["a", "a", "a", "b"],
            "task_id": ["a_s", "a_m", "a_r", "b_m"],
            "stage": ["setup", "map", "reduce", "map"],
            "duration_s": [100.0, 10.0, 20.0, 5.0],
            "memory_mb": 1.0,
            "vcores": 1.0,
        }
    )
    assert job_sizes(Workload(jobs=jobs, tasks=tasks)).tolist() == [30.0, 5.0]


def _truth_factor(forecast) -> float:
    end = forecast.reference[1]
    at_horizon = end + HORIZON_S - DAY_S / 2
    return float(_trend(np.array([at_horizon]))[0] / _trend(np.array([end - 3.5 * DAY_S]))[0])


def test_bagged_intervals_cover_the_truth_on_several_histories():
    """Coverage on generated histories with a known trend (5 seeds, 3 weeks of hourly
    arrivals): the bagged 90% interval of the growth and arrival factors covers the
    true factor in at least 4 of 5 per series, and is wider than the one-fit interval,
    which leaves out the parameters' uncertainty."""
    covered = {"rate": 0, "size": 0}
    wider = 0
    for seed in range(5):
        workload = history(56, seed=10 + seed)
        bagged = forecast_workload(workload, HORIZON_S, seed=seed, bootstrap=40)
        (queue,) = bagged.queues
        truth = _truth_factor(bagged)
        (g_lo, a_lo), (g_hi, a_hi) = (
            (
                queue.job_size_s.factor(queue.job_size_s.lower),
                queue.jobs_per_day.factor(queue.jobs_per_day.lower),
            ),
            queue.factors("upper"),
        )
        covered["rate"] += a_lo <= truth <= a_hi
        covered["size"] += g_lo <= truth <= g_hi
        (one_fit,) = forecast_workload(workload, HORIZON_S, seed=seed, bootstrap=0).queues
        width = lambda s: s.upper - s.lower  # noqa: E731
        wider += width(queue.jobs_per_day) > width(one_fit.jobs_per_day)
    assert covered["rate"] >= 4 and covered["size"] >= 4, covered
    assert wider >= 4


def test_heavy_tailed_sizes_still_show_their_growth():
    """Sizes spread over orders of magnitude (lognormal sigma 2, as SWIM's): a day's plain
    mean swings with its largest job, the typical size (trimmed log mean) follows the trend."""
    workload = history(56, seed=5)
    rng = np.random.default_rng(6)
    tasks = workload.tasks.assign(
        duration_s=workload.tasks["duration_s"] * rng.lognormal(0, 2.0, len(workload.tasks))
    )
    heavy = Workload(jobs=workload.jobs, tasks=tasks)
    (queue,) = forecast_workload(heavy, HORIZON_S, bootstrap=0).queues
    growth, _ = queue.factors("median")
    truth = _truth_factor(forecast_workload(heavy, 2 * DAY_S, bootstrap=0))
    assert growth == pytest.approx(truth, rel=0.15)
    assert queue.factors("upper")[0] > growth


def test_the_series_forecast_on_a_process_pool_as_in_this_process():
    """Each series draws from its own seeded generator: forecast on two worker processes,
    every queue's median, interval and model are the same, to the bit, as in this process
    (tempo whatif --growth auto forecasts on --executor)."""
    from whatif.executors import ProcessPoolExecutor

    one, two = history(21, seed=1), history(21, seed=2, rate_per_h=3.0)
    jobs = pd.concat([one.jobs, two.jobs.assign(queue="root.bi", job_id="b" + two.jobs["job_id"])])
    tasks = pd.concat([one.tasks, two.tasks.assign(job_id="b" + two.tasks["job_id"])])
    workload = Workload(jobs=jobs, tasks=tasks.assign(task_id=tasks["job_id"] + "_m"))
    serial = forecast_workload(workload, 30 * DAY_S, seed=3, bootstrap=4)
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = forecast_workload(workload, 30 * DAY_S, seed=3, bootstrap=4, executor=pool)
    assert sorted(q.queue for q in serial.queues) == ["root.bi", "root.etl"]
    assert pooled == serial


def test_a_trendless_heavy_tailed_history_forecasts_no_growth_and_no_negative_size():
    """Nine days (an hourly model) of three jobs an hour whose sizes are heavy-tailed and do
    not grow: the job size now and at the horizon are the same statistic (the mean of the
    bins' typical sizes), so the median factor stays near 1; with one typical size over
    all the window's jobs as now it read 1.5-1.8x. No bound is negative."""
    rng = np.random.default_rng(3)
    hours = np.arange(9 * 24)
    counts = rng.poisson(3.0, len(hours))
    submit = np.sort(np.repeat(hours * 3600.0, counts) + rng.uniform(0, 3600, counts.sum()))
    jobs = pd.DataFrame(
        {
            "job_id": [f"j{i:05d}" for i in range(len(submit))],
            "queue": "root.bi",
            "submit_s": submit,
        }
    )
    workload = map_workload(jobs, 1, 100.0 * rng.lognormal(0, 1.5, len(submit)))
    size = forecast_workload(workload, 30 * DAY_S, level=0.9).queues[0].job_size_s
    assert 0.7 <= size.median / size.current <= 1.4
    assert size.lower >= 0.0
