"""The statistical workload model: fit, generate, transform, report and persist."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from whatif import ValidationError, Workload
from whatif.workload_model import SCHEMA_VERSION, WorkloadModel

HOUR = 3600.0


def synthetic_workload(
    *,
    seed=0,
    hours=48,
    queue="root.etl",
    hourly_rate=None,
    map_mu=3.0,
    map_sigma=0.8,
    reduce_mu=4.0,
    reduce_sigma=0.5,
    deadline_after_s=None,
    recurring_period_s=None,
    prefix="j",
):
    """Jobs from known parameters: Poisson arrivals at `hourly_rate[hour of day]` jobs/h,
    1-19 maps with one reduce per four maps, lognormal durations per stage."""
    rng = np.random.default_rng(seed)
    rates = np.full(24, 20.0) if hourly_rate is None else np.asarray(hourly_rate, float)
    times = []
    for hour in range(hours):
        count = rng.poisson(rates[hour % 24])
        times.append(hour * HOUR + rng.random(count) * HOUR)
    times = np.sort(np.concatenate(times))
    keys = np.full(times.size, "", dtype=object)
    if recurring_period_s is not None:
        grid = np.arange(0.0, hours * HOUR, recurring_period_s) + 60.0
        times = np.concatenate([times, grid])
        keys = np.concatenate([keys, np.full(grid.size, "nightly")])
    n = times.size
    maps = rng.integers(1, 20, n)
    reduces = np.maximum(1, maps // 4)
    jobs = pd.DataFrame(
        {
            "job_id": [f"{prefix}{i:05d}" for i in range(n)],
            "queue": queue,
            "submit_s": times,
            "user": rng.choice(["ann", "bob"], n),
            "recurring_key": keys,
        }
    )
    if deadline_after_s is not None:
        jobs["deadline_s"] = times + deadline_after_s
    per_job = maps + reduces
    job_ids = np.repeat(jobs["job_id"].to_numpy(), per_job)
    is_map = np.concatenate(
        [np.r_[np.ones(m, bool), np.zeros(r, bool)] for m, r in zip(maps, reduces, strict=True)]
    )
    durations = np.where(
        is_map,
        np.exp(rng.normal(map_mu, map_sigma, is_map.size)),
        np.exp(rng.normal(reduce_mu, reduce_sigma, is_map.size)),
    )
    tasks = pd.DataFrame(
        {
            "job_id": job_ids,
            "task_id": [f"{prefix}t{i:07d}" for i in range(job_ids.size)],
            "stage": np.where(is_map, "map", "reduce"),
            "duration_s": durations,
            "memory_mb": np.where(is_map, 1024.0, rng.choice([2048.0, 4096.0], is_map.size)),
            "vcores": 1.0,
        }
    )
    return Workload(jobs=jobs, tasks=tasks)


def two_tenants(seed=0, hours=24):
    a = synthetic_workload(seed=seed, hours=hours, queue="root.etl", prefix="a")
    b = synthetic_workload(
        seed=seed + 1, hours=hours, queue="root.bi", prefix="b", map_mu=2.0, reduce_mu=2.5
    )
    return Workload(jobs=pd.concat([a.jobs, b.jobs]), tasks=pd.concat([a.tasks, b.tasks]))


def gof_row(model, queue, stage):
    report = model.goodness_of_fit_
    return report[(report["queue"] == queue) & (report["stage"] == stage)].iloc[0]


@pytest.fixture(scope="module")
def fitted():
    return WorkloadModel(profile="flat").fit(two_tenants())


def test_constructor_stores_keyword_parameters_verbatim():
    """The constructor only stores its arguments; nothing is learned before fit."""
    model = WorkloadModel(duration_family="bogus", min_jobs_for_profile=-3)
    assert model.get_params()["duration_family"] == "bogus"
    assert model.min_jobs_for_profile == -3
    assert not hasattr(model, "queues_")
    with pytest.raises(TypeError):
        WorkloadModel("auto")


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"duration_family": "gamma"}, r"duration_family: expected one of"),
        ({"profile": "hourly"}, r"profile: expected one of"),
        ({"min_jobs_for_profile": 2.5}, r"min_jobs_for_profile: expected an integer"),
        ({"ks_alpha": 1.5}, r"ks_alpha: expected a value in \[0.0, 1.0\]"),
        ({"min_recurrences": 1}, r"min_recurrences: expected a value in \[2"),
    ],
)
def test_fit_rejects_bad_hyperparameters_naming_them(params, match):
    """fit validates the hyperparameters and names the bad one."""
    with pytest.raises(ValidationError, match=match):
        WorkloadModel(**params).fit(synthetic_workload(hours=2))


def test_fit_needs_two_distinct_submission_times():
    """A one-job trace cannot give an arrival rate; the error says so."""
    w = synthetic_workload(hours=2)
    with pytest.raises(ValidationError, match=r"two or more distinct times"):
        WorkloadModel().fit(w.select_jobs(np.arange(w.n_jobs) == 0))


def test_unfitted_model_refuses_to_generate():
    """Generating or transforming before fit is a clear error."""
    with pytest.raises(ValidationError, match=r"not fitted"):
        WorkloadModel().generate(hours=1, seed=0)
    with pytest.raises(ValidationError, match=r"not fitted"):
        WorkloadModel().with_growth(1.3)


def test_fit_recovers_known_lognormal_and_arrival_rate(fitted):
    """Fitting data drawn from known parameters recovers mu, sigma and the rate."""
    maps, reduces = gof_row(fitted, "root.etl", "map"), gof_row(fitted, "root.etl", "reduce")
    assert maps["family"] == reduces["family"] == "lognormal"
    assert maps["mu"] == pytest.approx(3.0, abs=0.05)
    assert maps["sigma"] == pytest.approx(0.8, abs=0.05)
    assert reduces["mu"] == pytest.approx(4.0, abs=0.08)
    assert reduces["sigma"] == pytest.approx(0.5, abs=0.06)
    rates = fitted.summary().set_index("queue")["rate_per_h"]
    assert rates["root.etl"] == pytest.approx(20.0, rel=0.1)
    assert rates["root.bi"] == pytest.approx(20.0, rel=0.1)


def test_round_trip_fit_generate_refit_gives_close_parameters(fitted):
    """Fit, generate and refit: the refitted parameters are close to the first fit."""
    again = WorkloadModel(profile="flat").fit(fitted.generate(hours=24, seed=3))
    for queue in ("root.etl", "root.bi"):
        for stage in ("map", "reduce"):
            first, second = gof_row(fitted, queue, stage), gof_row(again, queue, stage)
            assert second["mu"] == pytest.approx(first["mu"], abs=0.1)
            assert second["sigma"] == pytest.approx(first["sigma"], abs=0.08)
    rates = fitted.summary().set_index("queue")["rate_per_h"]
    refit = again.summary().set_index("queue")["rate_per_h"]
    assert refit["root.etl"] == pytest.approx(rates["root.etl"], rel=0.15)
    assert refit["root.bi"] == pytest.approx(rates["root.bi"], rel=0.15)


def test_generated_shapes_keep_maps_and_reduces_correlated(fitted):
    """Jobs are sampled whole: every generated job has the trace's one reduce per four maps."""
    tasks = fitted.generate(hours=6, seed=1).tasks
    counts = pd.crosstab(tasks["job_id"], tasks["stage"])
    assert (counts["reduce"] == np.maximum(1, counts["map"] // 4)).all()


def test_generate_is_deterministic_for_a_seed(fitted):
    """The same seed gives identical tables; another seed gives different ones."""
    first = fitted.generate(hours=4, seed=11, start_s=1000.0)
    second = fitted.generate(hours=4, seed=11, start_s=1000.0)
    pd.testing.assert_frame_equal(first.jobs, second.jobs)
    pd.testing.assert_frame_equal(first.tasks, second.tasks)
    other = fitted.generate(hours=4, seed=12, start_s=1000.0)
    assert not np.array_equal(first.jobs["submit_s"], other.jobs["submit_s"])


def test_generated_workload_is_valid_and_inside_the_window(fitted):
    """Ids are unique, stages ordered, submissions in [start, start + hours)."""
    w = fitted.generate(hours=3, seed=5, start_s=7200.0)
    assert w.jobs["job_id"].is_unique and w.tasks["task_id"].is_unique
    assert w.jobs["submit_s"].between(7200.0, 7200.0 + 3 * HOUR, inclusive="left").all()
    assert list(w.jobs["job_id"]) == [f"job_{i:06d}" for i in range(w.n_jobs)]
    order = w.tasks.groupby("job_id", sort=False)["stage_index"].apply(
        lambda s: s.is_monotonic_increasing
    )
    assert order.all()
    assert set(w.tasks.loc[w.tasks["stage"] == "reduce", "memory_mb"]) <= {2048.0, 4096.0}
    assert set(w.queues) == {"root.etl", "root.bi"}
    assert set(w.jobs["user"]) <= {"ann", "bob"}


def test_profile_captures_daytime_bursts():
    """A trace busy from 09:00 to 17:00 gives a daytime-heavy hour-of-day profile."""
    rates = np.where((np.arange(24) >= 9) & (np.arange(24) < 17), 40.0, 2.0)
    model = WorkloadModel(min_jobs_for_profile=50).fit(
        synthetic_workload(hours=48, hourly_rate=rates)
    )
    arrivals = model.queues_["root.etl"].arrivals
    assert arrivals.profile == "hour-of-day"
    hourly = np.asarray(arrivals.hourly_rate_per_h)
    assert hourly[9:17].mean() == pytest.approx(40.0, rel=0.15)
    assert hourly[:9].mean() < 5.0
    submits = model.generate(hours=48, seed=2).jobs["submit_s"].to_numpy()
    daytime = ((submits // HOUR) % 24 >= 9) & ((submits // HOUR) % 24 < 17)
    assert daytime.mean() > 0.8


def test_too_few_jobs_fall_back_to_a_flat_profile():
    """A queue below min_jobs_for_profile gets one flat rate."""
    model = WorkloadModel(min_jobs_for_profile=10_000).fit(synthetic_workload(hours=6))
    arrivals = model.queues_["root.etl"].arrivals
    assert arrivals.profile == "flat"
    assert len(set(arrivals.hourly_rate_per_h)) == 1


def test_hour_of_week_needs_a_week_and_falls_back_to_hour_of_day():
    """With less than a week of trace, "hour-of-week" fits an hour-of-day profile."""
    model = WorkloadModel(profile="hour-of-week", min_jobs_for_profile=10).fit(
        synthetic_workload(hours=24)
    )
    assert model.queues_["root.etl"].arrivals.profile == "hour-of-day"


def test_hour_of_week_finds_a_quiet_weekend():
    """Two weeks with a tenth of the traffic on Saturday and Sunday give small weekend factors."""
    w = synthetic_workload(hours=14 * 24, hourly_rate=np.full(24, 4.0), seed=4)
    days = ((w.jobs["submit_s"] // 86400 + 3) % 7).to_numpy()
    keep = (days < 5) | (np.random.default_rng(0).random(w.n_jobs) < 0.1)
    model = WorkloadModel(profile="hour-of-week", min_jobs_for_profile=10).fit(w.select_jobs(keep))
    factors = np.asarray(model.queues_["root.etl"].arrivals.weekday_factor)
    assert factors[5:].max() < 0.25 * factors[:5].min()


def test_ks_report_small_for_lognormal_data(fitted):
    """Lognormal durations give small KS statistics and unremarkable p-values."""
    report = fitted.goodness_of_fit_
    assert list(report.columns) == [
        "queue",
        "stage",
        "quantity",
        "family",
        "n",
        "ks_stat",
        "p_value",
        "mu",
        "sigma",
    ]
    durations = report[report["quantity"] == "duration_s"]
    assert len(durations) == 4
    assert (durations["ks_stat"] < 0.03).all()
    assert (durations["p_value"] > 0.001).all()
    arrivals = report[report["quantity"] == "interarrival"]
    assert set(arrivals["queue"]) == {"root.etl", "root.bi"}
    assert (arrivals["ks_stat"] < 0.1).all()


def test_auto_switches_to_empirical_when_lognormal_fits_badly():
    """Bimodal durations fail the KS test: "auto" goes empirical, "lognormal" shows a big KS."""
    w = synthetic_workload(hours=12)
    bimodal = np.where(np.arange(w.n_tasks) % 2 == 0, 10.0, 1000.0) + np.arange(w.n_tasks) % 7
    w = Workload(jobs=w.jobs, tasks=w.tasks.assign(duration_s=bimodal))
    auto = WorkloadModel().fit(w)
    forced = WorkloadModel(duration_family="lognormal").fit(w)
    assert gof_row(auto, "root.etl", "map")["family"] == "empirical"
    assert gof_row(auto, "root.etl", "map")["ks_stat"] < 0.05
    assert gof_row(forced, "root.etl", "map")["family"] == "lognormal"
    assert gof_row(forced, "root.etl", "map")["ks_stat"] > 0.2
    generated = auto.generate(hours=6, seed=0).tasks["duration_s"]
    assert generated.between(10.0, 1006.0).all()


def test_growth_adds_map_tasks_and_lengthens_reduces(fitted):
    """Growth 1.3: same jobs, ~30% more maps of the same length, same reduces 30% longer."""
    base = fitted.generate(hours=12, seed=9)
    grown = fitted.with_growth(1.3).generate(hours=12, seed=9)
    pd.testing.assert_frame_equal(base.jobs, grown.jobs)
    b, g = base.tasks, grown.tasks
    b_maps, g_maps = b[b["stage"] == "map"], g[g["stage"] == "map"]
    assert len(g_maps) / len(b_maps) == pytest.approx(1.3, rel=0.03)
    assert g_maps["duration_s"].median() == pytest.approx(b_maps["duration_s"].median(), rel=0.1)
    b_red, g_red = b[b["stage"] == "reduce"], g[g["stage"] == "reduce"]
    np.testing.assert_allclose(g_red["duration_s"], 1.3 * b_red["duration_s"].to_numpy())


def test_growth_on_one_queue_leaves_the_others_unchanged(fitted):
    """A growth or arrival change limited to one queue does not touch another queue's draws."""
    base = fitted.generate(hours=6, seed=4)
    for changed in (
        fitted.with_growth(2.0, queues=["root.bi"]),
        fitted.with_arrival_scale(2.0, "root.bi"),
    ):
        out = changed.generate(hours=6, seed=4)
        etl_before = base.tasks[
            base.tasks["job_id"].isin(base.jobs.loc[base.jobs["queue"] == "root.etl", "job_id"])
        ]
        etl_after = out.tasks[
            out.tasks["job_id"].isin(out.jobs.loc[out.jobs["queue"] == "root.etl", "job_id"])
        ]
        assert etl_before["duration_s"].tolist() == etl_after["duration_s"].tolist()


def test_arrival_scale_multiplies_the_job_count(fitted):
    """Arrival scale 1.5 gives about 1.5 times the jobs, with the same job shapes."""
    base = fitted.generate(hours=24, seed=6)
    scaled = fitted.with_arrival_scale(1.5).generate(hours=24, seed=6)
    assert scaled.n_jobs / base.n_jobs == pytest.approx(1.5, rel=0.08)
    assert scaled.n_tasks / scaled.n_jobs == pytest.approx(base.n_tasks / base.n_jobs, rel=0.1)


def test_transformations_return_new_models_and_keep_the_original(fitted):
    """with_* and without_* leave the model they are called on unchanged; factors compose."""
    before = fitted.generate(hours=2, seed=1)
    grown = fitted.with_growth(1.3).with_growth(2.0, queues=["root.etl"])
    assert grown is not fitted
    assert grown.queues_["root.etl"].growth == pytest.approx(2.6)
    assert grown.queues_["root.bi"].growth == pytest.approx(1.3)
    assert fitted.queues_["root.etl"].growth == 1.0
    pd.testing.assert_frame_equal(before.tasks, fitted.generate(hours=2, seed=1).tasks)


def test_with_tenant_adds_a_queue_like_an_existing_one(fitted):
    """A new tenant copies another's behaviour under its own name and report rows."""
    model = fitted.with_tenant("root.new", like="root.bi", arrival_scale=2.0)
    assert list(model.queues_) == ["root.bi", "root.etl", "root.new"]
    assert model.queues_["root.new"].arrival_scale == 2.0
    assert set(model.goodness_of_fit_["queue"]) == {"root.bi", "root.etl", "root.new"}
    w = model.generate(hours=12, seed=0)
    counts = w.jobs["queue"].value_counts()
    assert counts["root.new"] / counts["root.bi"] == pytest.approx(2.0, rel=0.2)


def test_without_tenant_removes_the_queue(fitted):
    """Removing a tenant drops its jobs and its report rows."""
    model = fitted.without_tenant("root.bi")
    assert model.generate(hours=2, seed=0).queues == ["root.etl"]
    assert set(model.goodness_of_fit_["queue"]) == {"root.etl"}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda m: m.with_growth(0.0), r"factor: expected a positive number, got 0.0"),
        (
            lambda m: m.with_arrival_scale(1.2, queues=["root.nope"]),
            r"unknown queue\(s\) 'root.nope'",
        ),
        (lambda m: m.with_tenant("root.bi", like="root.etl"), r"'root.bi' is already in the model"),
        (lambda m: m.with_tenant("root.x", like="root.nope"), r"unknown queue\(s\) 'root.nope'"),
        (lambda m: m.without_tenant("root.nope"), r"unknown queue\(s\) 'root.nope'"),
        (lambda m: m.generate(hours=-1, seed=0), r"hours: expected a value in"),
        (lambda m: m.generate(hours=1, seed=-1), r"seed: expected a non-negative integer"),
    ],
)
def test_transformations_reject_bad_arguments(fitted, call, match):
    """Bad factors, unknown queues and bad generate arguments are named in the error."""
    with pytest.raises(ValidationError, match=match):
        call(fitted)


def test_recurring_jobs_keep_their_period_and_shape():
    """A key submitted every 6 hours is fitted as recurring and regenerated on its grid."""
    w = synthetic_workload(hours=48, recurring_period_s=6 * HOUR, deadline_after_s=1800.0)
    model = WorkloadModel(profile="flat").fit(w)
    (job,) = model.queues_["root.etl"].recurring
    assert job.key == "nightly"
    assert job.period_s == pytest.approx(6 * HOUR)
    assert job.phase_s == pytest.approx(60.0)
    assert job.relative_deadline_s == pytest.approx(1800.0)
    assert model.queues_["root.etl"].arrivals.n_jobs == w.n_jobs - 8
    out = model.generate(hours=24, seed=0)
    recurring = out.jobs[out.jobs["recurring_key"] == "nightly"]
    np.testing.assert_allclose(recurring["submit_s"], 60.0 + 6 * HOUR * np.arange(4))
    np.testing.assert_allclose(recurring["deadline_s"] - recurring["submit_s"], 1800.0)
    adhoc = out.jobs[out.jobs["recurring_key"] == ""]
    np.testing.assert_allclose(adhoc["deadline_s"] - adhoc["submit_s"], 1800.0)


def test_jobs_without_deadlines_generate_without_deadlines(fitted):
    """A trace without deadlines generates jobs without deadlines."""
    assert fitted.generate(hours=2, seed=0).jobs["deadline_s"].isna().all()


def test_json_round_trip_generates_the_same_workload(fitted, tmp_path):
    """A model written and read back is the same model: same report, same generated workload."""
    path = tmp_path / "model.json"
    model = fitted.with_growth(1.3, queues=["root.bi"]).with_tenant("root.new", like="root.etl")
    model.to_json(path)
    document = json.loads(path.read_text())
    assert document["format"] == "tempo-workload-model"
    assert document["version"] == SCHEMA_VERSION
    back = WorkloadModel.from_json(path)
    assert back.get_params() == model.get_params()
    pd.testing.assert_frame_equal(back.goodness_of_fit_, model.goodness_of_fit_, check_dtype=False)
    first, second = model.generate(hours=3, seed=8), back.generate(hours=3, seed=8)
    pd.testing.assert_frame_equal(first.jobs, second.jobs)
    pd.testing.assert_frame_equal(first.tasks, second.tasks)


def test_json_round_trip_keeps_empirical_recurring_and_deadlines(tmp_path):
    """Empirical distributions, recurring jobs and deadlines survive the JSON file."""
    w = synthetic_workload(hours=24, recurring_period_s=4 * HOUR, deadline_after_s=600.0)
    model = WorkloadModel(duration_family="empirical").fit(w)
    model.to_json(tmp_path / "m.json")
    back = WorkloadModel.from_json(tmp_path / "m.json")
    assert back.queues_ == model.queues_
    pd.testing.assert_frame_equal(
        model.generate(hours=5, seed=1).tasks, back.generate(hours=5, seed=1).tasks
    )


def _corrupt(document, where, value):
    node = document
    for key in where[:-1]:
        node = node[key]
    if value is KeyError:
        del node[where[-1]]
    else:
        node[where[-1]] = value


@pytest.mark.parametrize(
    ("where", "value", "match"),
    [
        (("version",), 99, r"version: expected schema version 1, got 99"),
        (("format",), "other", r"format: expected 'tempo-workload-model'"),
        (
            ("queues", 0, "arrivals", "hourly_rate_per_h"),
            [1.0, 2.0],
            r"queues\[0\]\.arrivals\.hourly_rate_per_h: expected a list of 24 numbers",
        ),
        (
            ("queues", 0, "stages", 1, "duration", "mu"),
            "big",
            r"queues\[0\]\.stages\[1\]\.duration\.mu: expected a number, got \"big\"",
        ),
        (
            ("queues", 1, "stages", 0, "duration", "family"),
            "gamma",
            r"queues\[1\]\.stages\[0\]\.duration\.family: expected one of",
        ),
        (("queues", 0, "growth"), -1, r"queues\[0\]\.growth: expected a positive number"),
        (
            ("queues", 0, "shapes", "counts", 0),
            [1],
            r"queues\[0\]\.shapes\.counts\[0\]: expected a list of 2 integers",
        ),
        (
            ("queues", 0, "users"),
            KeyError,
            r"queues\[0\]\.users: missing field \(expected in a tempo-workload-model version 1 "
            r"document, as tempo workload fit writes it\)$",
        ),
        (("goodness_of_fit", 0, "n"), KeyError, r"goodness_of_fit\[0\]\.n: missing field \(exp"),
        (("params", "profile"), "hourly", r"params\.profile: expected one of"),
        (("params", "colour"), "red", r"params\.colour: unknown parameter"),
    ],
)
def test_malformed_json_names_the_file_and_field(fitted, tmp_path, where, value, match):
    """Each malformed field is reported with the file name and the field's path."""
    path = tmp_path / "model.json"
    fitted.to_json(path)
    document = json.loads(path.read_text())
    _corrupt(document, where, value)
    path.write_text(json.dumps(document))
    with pytest.raises(ValidationError, match=match) as error:
        WorkloadModel.from_json(path)
    assert str(error.value).startswith(str(path))


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ([], "expected a JSON object (a tempo workload model), got []"),
        ({}, "expected a tempo workload model (a JSON object with format "
             "'tempo-workload-model'), got {}"),
    ],
)  # fmt: skip
def test_json_that_is_not_a_model_says_what_a_model_is(tmp_path, document, expected):
    """JSON that is no workload model at all (another tool's file): the file and what a
    model is, not an empty field name (``model.json: : expected ...``) nor a bare
    ``format: missing field``."""
    path = tmp_path / "model.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ValidationError) as error:
        WorkloadModel.from_json(path)
    assert str(error.value) == f"{path}: {expected}"


def test_file_that_is_not_json_is_reported_with_line_and_column(tmp_path):
    """A file that is not JSON gives the file, line and column."""
    path = tmp_path / "model.json"
    path.write_text('{"format": "tempo-workload-model",\n  "version": 1,,\n}')
    with pytest.raises(ValidationError, match=rf"{re.escape(str(path))}:2:16: not valid JSON"):
        WorkloadModel.from_json(path)
    with pytest.raises(ValidationError, match=r"cannot read workload model"):
        WorkloadModel.from_json(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"format": "tempo-workload-model", "x": "abc', r":1:41: not valid JSON: a string .*'\"'"),
        ('{"n": ' + "9" * 5000 + "}", r":1:7: not valid JSON: a number of 5000 digits"),
        ("[" * 100_000, r":1:100000: not valid JSON: arrays or objects nested 100000 deep here"),
    ],
)
def test_json_errors_say_what_was_expected_without_a_traceback(tmp_path, text, expected):
    """A cut-off string, an integer too long for Python, nesting deeper than its recursion
    limit: each a complete sentence at a place in the file, never a bare traceback."""
    path = tmp_path / "model.json"
    path.write_text(text)
    with pytest.raises(ValidationError, match=expected):
        WorkloadModel.from_json(path)


def test_to_json_leaves_no_partial_file_on_failure(fitted, tmp_path):
    """A write that fails leaves neither the target nor a temp file behind."""
    target = tmp_path / "gone" / "model.json"
    with pytest.raises(OSError):
        fitted.to_json(target)
    assert not (tmp_path / "gone").exists()
    fitted.to_json(tmp_path / "model.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]


def test_zero_durations_are_tested_and_kept_by_the_empirical_fit():
    """Many zero durations fail the lognormal KS test, so "auto" keeps them empirically."""
    w = synthetic_workload(hours=6)
    durations = w.tasks["duration_s"].to_numpy().copy()
    durations[::3] = 0.0
    w = Workload(jobs=w.jobs, tasks=w.tasks.assign(duration_s=durations))
    model = WorkloadModel().fit(w)
    assert gof_row(model, "root.etl", "map")["family"] == "empirical"
    generated = model.generate(hours=6, seed=0).tasks["duration_s"]
    assert (generated == 0.0).mean() == pytest.approx(1 / 3, abs=0.05)


def test_constant_durations_fit_a_point_mass_exactly():
    """Identical durations give a zero-width lognormal with a zero KS statistic."""
    w = synthetic_workload(hours=3)
    w = Workload(jobs=w.jobs, tasks=w.tasks.assign(duration_s=5.0))
    model = WorkloadModel(duration_family="lognormal").fit(w)
    row = gof_row(model, "root.etl", "map")
    assert (row["sigma"], row["ks_stat"]) == (0.0, 0.0)
    assert np.allclose(model.generate(hours=1, seed=0).tasks["duration_s"], 5.0)


def test_jobs_without_tasks_are_generated_without_tasks():
    """A queue whose jobs have no tasks generates jobs and no tasks."""
    w = synthetic_workload(hours=6)
    bare = pd.DataFrame(
        {"job_id": ["x1", "x2", "x3"], "queue": "root.empty", "submit_s": [10.0, 5000.0, 9000.0]}
    )
    w = Workload(jobs=pd.concat([w.jobs, bare]), tasks=w.tasks)
    out = WorkloadModel().fit(w).generate(hours=24, seed=0)
    empty_jobs = out.jobs.loc[out.jobs["queue"] == "root.empty", "job_id"]
    assert len(empty_jobs) > 0
    assert not out.tasks["job_id"].isin(empty_jobs).any()


def test_fit_trace_and_generate_trace_go_through_native_files(tmp_path):
    """fit_trace reads a trace file and writes the model; generate_trace writes a readable trace."""
    from whatif import Trace
    from whatif.readers import read_trace, write_native
    from whatif.workload_model import fit_trace, generate_trace

    write_native(Trace(workload=two_tenants(hours=6)), tmp_path / "in")
    model = fit_trace(tmp_path / "in", tmp_path / "m.json", profile="flat")
    assert set(model.queues_) == {"root.etl", "root.bi"}
    written = generate_trace(
        tmp_path / "m.json", tmp_path / "out", hours=2, seed=4, growth=1.3, arrival_scale=1.2
    )
    back = read_trace(tmp_path / "out")
    pd.testing.assert_frame_equal(back.workload.jobs, written.jobs)
    expected = model.with_growth(1.3).with_arrival_scale(1.2).generate(hours=2, seed=4)
    pd.testing.assert_frame_equal(back.workload.tasks, expected.tasks)
    assert back.format == "synthetic"


def test_fitting_twice_gives_the_same_model_and_it_pickles(fitted):
    """Refitting the same data gives the same state, and a pickled model generates the same."""
    import pickle

    w = two_tenants()
    again = WorkloadModel(profile="flat").fit(w).fit(w)
    assert again.queues_ == fitted.queues_
    pd.testing.assert_frame_equal(again.goodness_of_fit_, fitted.goodness_of_fit_)
    copy = pickle.loads(pickle.dumps(fitted))
    pd.testing.assert_frame_equal(
        copy.generate(hours=2, seed=3).tasks, fitted.generate(hours=2, seed=3).tasks
    )


def test_growth_on_other_engines_grows_the_first_stage():
    """For non-MapReduce stages, the lowest stage_index is the input stage that growth widens."""
    jobs = pd.DataFrame({"job_id": ["a", "b", "c"], "queue": "q", "submit_s": [0.0, 900.0, 1800.0]})
    tasks = pd.DataFrame(
        {
            "job_id": ["a", "a", "a", "b", "b", "b", "c", "c", "c"],
            "task_id": [f"t{i}" for i in range(9)],
            "stage": ["scan", "scan", "agg"] * 3,
            "stage_index": [0, 0, 1] * 3,
            "duration_s": [4.0, 5.0, 7.0] * 3,
            "memory_mb": 512.0,
            "vcores": 1.0,
        }
    )
    model = WorkloadModel().fit(Workload(jobs=jobs, tasks=tasks))
    base = model.generate(hours=10, seed=0).tasks
    grown = model.with_growth(2.0).generate(hours=10, seed=0).tasks
    assert (grown["stage"] == "scan").sum() == 2 * (base["stage"] == "scan").sum()
    np.testing.assert_allclose(grown.loc[grown["stage"] == "agg", "duration_s"], 14.0)
    assert list(grown.drop_duplicates("stage")["stage_index"]) == [0, 1]


def test_bursty_or_short_lived_keys_are_not_replayed_as_schedules():
    """A key re-run in a burst, or seen in only part of the window, is not a recurring job."""
    from whatif.workload_model.recurring import fit_recurring

    def jobs(times, key="k"):
        return pd.DataFrame(
            {
                "job_id": [f"j{i}" for i in range(len(times))],
                "submit_s": np.asarray(times, dtype=float),
                "recurring_key": key,
                "user": "u",
                "name": "n",
                "deadline_s": np.nan,
            }
        )

    def fit(times, window=None):
        table = jobs(times)
        counts = pd.DataFrame({"map": 1}, index=table["job_id"])
        return fit_recurring(table, counts, min_recurrences=3, window=window)

    assert len(fit([0, 3600, 7200, 10800])) == 1  # hourly: recurring
    assert fit([0, 40, 3600]) == ()  # two in one slot: a burst
    assert fit([0, 300, 600], window=(0, 7200)) == ()  # 24 slots over the window, 3 seen
    assert len(fit([0, 3600, 7200], window=(0, 7200))) == 1


def test_generated_sample_trace_has_the_traces_job_counts():
    """Fitted on the two-tenant sample, generation over its span gives its job counts (Poisson noise aside)."""
    from pathlib import Path

    from whatif.readers import read_trace

    workload = read_trace(Path(__file__).resolve().parents[2] / "traces" / "two-tenant").workload
    first, last = workload.span_s
    model = WorkloadModel().fit(workload)
    seen = workload.jobs.groupby("queue").size()
    for seed in range(3):
        made = model.generate(hours=(last - first) / 3600, seed=seed, start_s=first)
        counts = made.jobs.groupby("queue").size().reindex(seen.index, fill_value=0)
        assert (np.abs(counts - seen) <= 4 * np.sqrt(seen)).all(), (seed, counts.to_dict())


def _model_file(fitted, tmp_path, change):
    """`fitted` written to a model file, with `change(document)` applied."""
    path = tmp_path / "model.json"
    fitted.to_json(path)
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.generate(hours=1e9, seed=0),
        lambda m: m.with_arrival_scale(1e300).generate(hours=1, seed=0),
        lambda m: m.with_growth(1000).with_arrival_scale(1e4).generate(hours=24, seed=0),
    ],
)
def test_generate_refuses_a_request_over_the_size_limit_before_drawing(fitted, call):
    """hours x arrival rates (x tasks per job after growth) over MAX_GENERATED_ROWS is
    refused from the model alone, saying the estimate and the limit (it ran out of memory,
    or NumPy's "lam value too large")."""
    from whatif.workload_model.limits import GenerateSizeError

    with pytest.raises(GenerateSizeError, match=r"would generate about .* over the limit of 20,"):
        call(fitted)


def test_generate_refuses_more_hours_than_the_limit_even_without_jobs(fitted):
    """A queue with no arrivals still walks every clock hour: hours are bounded too."""
    silent = fitted.with_arrival_scale(1e-300)
    with pytest.raises(ValidationError, match=r"hours: expected at most 1,000,000 hours"):
        silent.generate(hours=2e6, seed=0)
    with pytest.raises(ValidationError, match=r"hours: expected a value in \[0, "):
        silent.generate(hours=float("nan"), seed=0)


def test_generate_refuses_an_end_past_the_last_date_before_drawing(fitted, tmp_path, monkeypatch):
    """start + hours past 9999-12-31 23:59:59 (LAST_START_S) is refused before any draw,
    by WorkloadModel.generate and generate_trace (nothing written): it wrote submissions in
    year 10000, which no date shows (`tempo trace inspect` was a ValueError traceback). An
    end at that last second is taken, and its submissions show as dates."""
    from whatif.durations import format_instant
    from whatif.workload_model import generate_trace
    from whatif.workload_model.limits import GenerateSizeError
    from whatif.workload_model.model import LAST_START_S

    start = LAST_START_S - 10 * HOUR
    expected = (
        r"^start_s \+ hours: expected an end at most 253402300799 s \(9999-12-31 23:59:59 UTC, "
        r"the last second a date shows\), got 253402304399 s \(253402264799\.0 s \+ 11 h\); "
        r"lower start_s or hours$"
    )
    fitted.to_json(tmp_path / "model.json")
    out = tmp_path / "out"
    with monkeypatch.context() as patched:
        patched.setattr("whatif.workload_model.model.generate_queue", None)  # no draw
        with pytest.raises(GenerateSizeError, match=expected) as error:
            fitted.generate(hours=11, seed=0, start_s=start)
        with pytest.raises(GenerateSizeError, match=expected):
            generate_trace(tmp_path / "model.json", out, hours=11, start_s=start)
    assert error.value.fields == ("start_s", "hours") and not out.exists()
    last = generate_trace(tmp_path / "model.json", out, hours=10, start_s=start)
    assert start <= last.jobs["submit_s"].min() and last.jobs["submit_s"].max() < LAST_START_S
    assert format_instant(last.jobs["submit_s"].max()).startswith("9999-12-31 23:")


def test_size_estimate_follows_what_is_generated(fitted):
    """The estimate is the expected count: close to the jobs and tasks drawn."""
    from whatif.workload_model.limits import queue_size

    model = fitted.with_growth(1.5)
    out = model.generate(hours=30, seed=1)
    jobs = tasks = 0.0
    for queue in model.queues_.values():
        more_jobs, more_tasks = queue_size(queue, 0.0, 30 * HOUR)
        jobs, tasks = jobs + more_jobs, tasks + more_tasks
    assert out.n_jobs == pytest.approx(jobs, rel=0.1)
    assert out.n_tasks == pytest.approx(tasks, rel=0.1)


def test_growth_is_bounded_and_factors_stay_finite(fitted):
    """A total growth over MAX_GROWTH, or a scale that overflows, is refused by name."""
    with pytest.raises(ValidationError, match=r"growth: expected a total data growth of at most"):
        fitted.with_growth(1e300)
    with pytest.raises(ValidationError, match=r"arrival_scale: .* is not a finite number"):
        fitted.with_arrival_scale(1e300).with_arrival_scale(1e300)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (
            lambda d: d["queues"][0]["stages"][0]["duration"].update(
                family="lognormal", mu=1e308, sigma=0.5
            ),
            r"queues\[0\]\.stages\[0\]\.duration\.mu: expected a number <= 26\.26 \(log sec",
        ),
        (
            lambda d: d["queues"][1]["stages"][1]["duration"].update(
                family="lognormal", mu=1.0, sigma=1e300
            ),
            r"queues\[1\]\.stages\[1\]\.duration\.sigma: expected a number in \[0, 26\.26\]",
        ),
        (
            lambda d: d["queues"][0]["stages"][0].update(
                duration={"family": "empirical", "quantiles": [1.0, 1e300]}
            ),
            r"queues\[0\]\.stages\[0\]\.duration\.quantiles\[1\]: expected a number in \[0.0, 2",
        ),
        (lambda d: d["queues"][0].update(growth=1e300), r"queues\[0\]\.growth: expected a pos"),
        (
            lambda d: d["queues"][0]["shapes"]["counts"][0].__setitem__(0, 10**400),
            r"queues\[0\]\.shapes\.counts\[0\]\[0\]: expected an integer <= 20,000,000",
        ),
        (lambda d: d.update(queues=[]), r"queues: expected at least one queue"),
    ],
)
def test_model_file_refuses_parameters_that_cannot_generate(fitted, tmp_path, change, match):
    """Parameters whose draws cannot be finite (or generate nothing) are refused by field."""
    path = _model_file(fitted, tmp_path, change)
    with pytest.raises(ValidationError, match=match) as error:
        WorkloadModel.from_json(path)
    assert str(error.value).startswith(str(path))


def _recurring(n_seen):
    """A recurring job of the two-stage queues of `fitted`, seen `n_seen` times."""
    return [
        {
            "key": "nightly",
            "period_s": 86400.0,
            "phase_s": 0.0,
            "jitter_s": 0.0,
            "task_counts": [2, 1],
            "user": "ann",
            "name": "etl",
            "relative_deadline_s": None,
            "n_seen": n_seen,
        }
    ]


_INT32 = r"expected an integer <= 2,147,483,647 \(a"
_INT64 = r"expected an integer <= 9,223,372,036,854,775,807, got "


@pytest.mark.parametrize(
    ("where", "value", "match"),
    [
        (("queues", 0, "stages", 0, "priority"), 10**30, rf"stages\[0\]\.priority: {_INT32} co"),
        (("queues", 0, "stages", 0, "priority"), 2**31, rf"stages\[0\]\.priority: {_INT32} co"),
        (("queues", 0, "stages", 1, "priority"), -1, r"stages\[1\]\.priority: expected an in"),
        (("queues", 0, "stages", 0, "priority"), 1e30, r"priority: expected an integer, got 1e"),
        (("queues", 1, "stages", 1, "stage_index"), 10**30, rf"\.stage_index: {_INT32} Java"),
        (("queues", 1, "stages", 1, "stage_index"), 1.0, r"stage_index: expected an integer, g"),
        (("queues", 0, "recurring"), _recurring(-3), r"recurring\[0\]\.n_seen: expected an i"),
        (("queues", 0, "recurring"), _recurring(10**30), rf"recurring\[0\]\.n_seen: {_INT64}"),
        (("queues", 0, "recurring"), _recurring(2.5), r"n_seen: expected an integer, got 2.5"),
        (("queues", 1, "arrivals", "n_jobs"), 10**400, rf"arrivals\.n_jobs: {_INT64}"),
        (("goodness_of_fit", 0, "n"), 2**63, rf"goodness_of_fit\[0\]\.n: {_INT64}"),
        (("goodness_of_fit", 0, "n"), "12", r"goodness_of_fit\[0\]\.n: expected an integer"),
        (("version",), 1.0, r"version: expected schema version 1, got 1.0"),
        (("version",), True, r"version: expected schema version 1, got true"),
    ],
    ids=lambda v: None if isinstance(v, tuple | str) else type(v).__name__,
)
def test_model_file_bounds_every_integer_field(fitted, tmp_path, where, value, match):
    """An integer field out of its bounds (a priority or stage index past int32, a negative
    or huge count, a float) is refused by field when the file is read: a priority of 1e30
    (as an integer) was an OverflowError traceback when generating, 2^31 wrapped in the
    predictor's int32, a negative one was replaced by MapReduce's, and n_jobs 1e400 was an
    OverflowError in the summary."""
    path = _model_file(fitted, tmp_path, lambda d: _corrupt(d, where, value))
    with pytest.raises(ValidationError, match=match) as error:
        WorkloadModel.from_json(path)
    assert str(error.value).startswith(f"{path}: ")


@pytest.mark.parametrize(
    ("where", "value", "match"),
    [
        (("goodness_of_fit", 0, "p_value"), "0.5", r"\]\.p_value: expected a number, got \"0"),
        (("goodness_of_fit", 0, "ks_stat"), 1.5, r"ks_stat: expected a number in \[0.0, 1.0\]"),
        (("goodness_of_fit", 0, "p_value"), -0.1, r"p_value: expected a number in \[0.0, 1.0"),
        (("goodness_of_fit", 0, "mu"), [1.0], r"goodness_of_fit\[0\]\.mu: expected a number"),
        (("goodness_of_fit", 0, "queue"), 3, r"goodness_of_fit\[0\]\.queue: expected a string"),
        (("goodness_of_fit", 0, "family"), None, r"\.family: expected a string, got null"),
    ],
)
def test_model_file_checks_the_fit_report(fitted, tmp_path, where, value, match):
    """The goodness-of-fit rows are checked by field when the file is read (their numbers
    were read unchecked: a string p-value was a TypeError when the report was printed)."""
    path = _model_file(fitted, tmp_path, lambda d: _corrupt(d, where, value))
    with pytest.raises(ValidationError, match=match) as error:
        WorkloadModel.from_json(path)
    assert str(error.value).startswith(f"{path}: ")


def test_model_file_reads_an_unfitted_statistic_as_missing(fitted, tmp_path):
    """A statistic not fitted (null, as `to_json` writes NaN) reads back as NaN."""
    path = _model_file(fitted, tmp_path, lambda d: _corrupt(d, ("goodness_of_fit", 0, "mu"), None))
    assert WorkloadModel.from_json(path).goodness_of_fit_["mu"].isna().iloc[0]


def test_model_file_integer_bounds_are_inclusive(fitted, tmp_path):
    """The largest priority and stage index a Java int holds, and a count of 0, are read."""

    def largest(document):
        last = document["queues"][0]["stages"][-1]
        last.update(stage_index=2**31 - 1, priority=2**31 - 1)
        document["queues"][0]["recurring"] = _recurring(0)

    model = WorkloadModel.from_json(_model_file(fitted, tmp_path, largest))
    stage = model.queues_[next(iter(model.queues_))].stages[-1]
    assert (stage.stage_index, stage.priority) == (2**31 - 1, 2**31 - 1)
    assert model.generate(hours=1, seed=0).tasks["priority"].max() == 2**31 - 1


def test_lognormal_draws_are_capped_and_never_infinite():
    """Draws are capped at MAX_DURATION_S in log space: no inf, no overflow warning."""
    import warnings

    from whatif.workload_model.distributions import MAX_DURATION_S, DurationDistribution
    from whatif.workload_model.model import LAST_START_S

    assert MAX_DURATION_S == LAST_START_S
    wide = DurationDistribution("lognormal", mu=26.0, sigma=26.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        draws = wide.sample(np.random.default_rng(0), 1000)
    assert np.isfinite(draws).all() and draws.max() == pytest.approx(MAX_DURATION_S)


def test_an_infinite_duration_is_refused_naming_the_column():
    """An infinite duration (a task that never ends; in a fit, a NaN sigma no model file
    holds) is refused when the workload is built, whichever reader made it."""
    w = synthetic_workload(hours=2)
    tasks = w.tasks.copy()
    tasks.loc[tasks.index[3], "duration_s"] = np.inf
    with pytest.raises(
        ValidationError, match=r"tasks\.duration_s: expected a finite number, got inf"
    ):
        Workload(jobs=w.jobs, tasks=tasks)


def test_hour_of_week_on_a_short_workload_warns_of_the_fallback(caplog):
    """The documented fallback to hour-of-day is said, as a warning (-q hides it)."""
    with caplog.at_level("WARNING"):
        model = WorkloadModel(profile="hour-of-week").fit(synthetic_workload(hours=30))
    assert "hour-of-week needs a week" in caplog.text and "hour-of-day" in caplog.text
    assert {q.arrivals.profile for q in model.queues_.values()} == {"hour-of-day"}
