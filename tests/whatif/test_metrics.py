"""QS metrics on small schedules whose values are worked out by hand below.

The shared schedule, on a cluster of 1000 MB and 10 vcores, window [0, 100):

====  =========  ======  ======  ======  ===================  ===================
job   queue      submit  launch  finish  in J?                response
====  =========  ======  ======  ======  ===================  ===================
j1    root.a.x   0       10      50      yes                  50
j2    root.a.x   20      20      80      yes                  60
j3    root.a.y   10      30      40      yes                  30
j4    root.b     50      60      -       no (still running)   -
j5    root.b     -10     -10     30      no (early)           -
j6    root.b     30      35      90      yes                  60
====  =========  ======  ======  ======  ===================  ===================

This is an observed schedule cut at the trace's end: j4 is still running, so
`_table` evaluates with ``unfinished="warn"`` (j4 left out, with a warning); a
predicted schedule like it is refused (see the unfinished-jobs tests).

Attempts (share = max(memory/1000, vcores/10)); resource-time clipped to [0, 100):

====  ===  ======  =====  ======  =====  ======================  =============
att   job  stage   start  finish  share  state                   resource-time
====  ===  ======  =====  ======  =====  ======================  =============
a1    j1   map     10     30      0.1    SUCCEEDED               2
a2    j1   reduce  30     50      0.2    SUCCEEDED               4
a3    j2   map     20     40      0.3    KILLED, preempted       6
a4    j2   map     40     80      0.1    SUCCEEDED               4
a5    j3   map     30     40      0.5    SUCCEEDED               5
a6    j4   map     60     120     0.2    SUCCEEDED               8 (60..100)
a7    j5   map     -10    30      0.1    SUCCEEDED               3 (0..30)
a8    j6   map     35     90      0.1    SUCCEEDED               5.5
a9    j4   am      55     -       0.1    RUNNING (AM)            4.5 (55..100)
====  ===  ======  =====  ======  =====  ======================  =============

Resource-time per queue: root.a.x 16 (10 without the preempted a3), root.a.y 5,
root.a 21, root.b 21, root 42.
"""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import benchmark_module

from whatif import Cluster, Schedule, UnfinishedJobsError, ValidationError, Workload
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.metrics import (
    METRICS,
    Metric,
    QueueTree,
    Window,
    evaluate,
    has_deadlines,
    job_deadlines,
    require_finished,
    unfinished_jobs,
)
from whatif.predictor import SchedulerSettings, predict
from whatif.readers import read_trace

CLUSTER = Cluster(memory_mb=1000, vcores=10)
WINDOW = Window(0, 100)
NAN = math.nan


def _schedule() -> Schedule:
    jobs = pd.DataFrame(
        {
            "job_id": ["j1", "j2", "j3", "j4", "j5", "j6"],
            "queue": ["root.a.x", "root.a.x", "root.a.y", "root.b", "b", "root.b"],
            "submit_s": [0, 20, 10, 50, -10, 30],
            "launch_s": [10, 20, 30, 60, -10, 35],
            "finish_s": [50, 80, 40, NAN, 30, 90],
            "state": ["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "RUNNING", "SUCCEEDED", "SUCCEEDED"],
        }
    )
    rows = [
        # attempt, job, stage, start, finish, memory, vcores, state, preempted, is_am
        ("a1", "j1", "map", 10, 30, 100, 1, "SUCCEEDED", False, False),
        ("a2", "j1", "reduce", 30, 50, 200, 1, "SUCCEEDED", False, False),
        ("a3", "j2", "map", 20, 40, 100, 3, "KILLED", True, False),
        ("a4", "j2", "map", 40, 80, 100, 1, "SUCCEEDED", False, False),
        ("a5", "j3", "map", 30, 40, 500, 1, "SUCCEEDED", False, False),
        ("a6", "j4", "map", 60, 120, 100, 2, "SUCCEEDED", False, False),
        ("a7", "j5", "map", -10, 30, 100, 1, "SUCCEEDED", False, False),
        ("a8", "j6", "map", 35, 90, 100, 1, "SUCCEEDED", False, False),
        ("a9", "j4", "am", 55, NAN, 100, 1, "RUNNING", False, True),
    ]
    attempts = pd.DataFrame(
        rows,
        columns=[
            "attempt_id",
            "job_id",
            "stage",
            "start_s",
            "finish_s",
            "memory_mb",
            "vcores",
            "state",
            "preempted",
            "is_am",
        ],
    )
    attempts["task_id"] = attempts["attempt_id"]
    return Schedule(jobs=jobs, attempts=attempts)


def _no_tasks() -> pd.DataFrame:
    """An empty task table: a workload here carries only its jobs (deadlines, recurring keys)."""
    return pd.DataFrame(
        {"job_id": [], "task_id": [], "stage": [], "duration_s": [], "memory_mb": [], "vcores": []}
    )


def _workload(deadlines=None, keys=None) -> Workload:
    """Jobs j1..j6 plus j7 (recurring 'etl', at 200) and j8 (recurring 'adhoc', at 35)."""
    schedule = _schedule()
    jobs = schedule.jobs[["job_id", "queue", "submit_s"]].copy()
    jobs = pd.concat(
        [
            jobs,
            pd.DataFrame(
                {"job_id": ["j7", "j8"], "queue": ["root.a.x", "root.a.y"], "submit_s": [200, 35]}
            ),
        ],
        ignore_index=True,
    )
    order = ["j1", "j2", "j3", "j4", "j5", "j6", "j7", "j8"]
    jobs = jobs.set_index("job_id").loc[order].reset_index()
    default_deadlines = {"j1": 40, "j2": 100, "j4": 70, "j6": 50}
    default_keys = {"j1": "etl", "j2": "etl", "j7": "etl", "j3": "adhoc", "j8": "adhoc"}
    deadlines = default_deadlines if deadlines is None else deadlines
    keys = default_keys if keys is None else keys
    jobs["deadline_s"] = [deadlines.get(j, NAN) for j in order]
    jobs["recurring_key"] = [keys.get(j, "") for j in order]
    return Workload(jobs=jobs, tasks=_no_tasks())


def _table(*metrics, window=WINDOW, **kwargs):
    kwargs.setdefault("cluster", CLUSTER)
    kwargs.setdefault("unfinished", "warn")
    return evaluate(_schedule(), list(metrics), window=window, **kwargs)


def test_queue_rows_are_root_parents_and_leaves_depth_first():
    """The table has a row for root, each parent and each leaf; a bare name joins root."""
    table = _table("QS_THR")
    assert table.index.tolist() == ["root", "root.a", "root.a.x", "root.a.y", "root.b"]
    assert table.index.name == "queue"


def test_average_response_counts_jobs_submitted_in_window():
    """QS_AJR: a.x (50+60)/2, a.y 30, a (50+60+30)/3, b 60 (j5 early, j4 unfinished), root 200/4."""
    ajr = _table("QS_AJR")["QS_AJR"]
    assert ajr.to_dict() == pytest.approx(
        {"root": 50.0, "root.a": 140 / 3, "root.a.x": 55.0, "root.a.y": 30.0, "root.b": 60.0}
    )


def test_throughput_is_minus_the_number_of_jobs():
    """QS_THR: minus the jobs of J finished in the window, subtree included."""
    thr = _table("QS_THR")["QS_THR"]
    assert thr.to_dict() == {"root": -4, "root.a": -3, "root.a.x": -2, "root.a.y": -1, "root.b": -1}


def test_percentile_interpolates_linearly():
    """QS_PCT: root responses [30, 50, 60, 60]: p50 at position 1.5 = 55, p95 at 2.85 = 60; a.x p95 = 50 + 0.95*10."""
    table = _table(Metric.of("QS_PCT", p=0.5), "QS_PCT")
    assert table.loc["root", "QS_PCT(p=0.5)"] == pytest.approx(55.0)
    assert table.loc["root", "QS_PCT"] == pytest.approx(60.0)
    assert table.loc["root.a.x", "QS_PCT"] == pytest.approx(59.5)
    assert table.loc["root.a.y", "QS_PCT"] == pytest.approx(30.0)


def test_percentile_matches_numpy_on_random_groups():
    """QS_PCT agrees with np.quantile for each queue on a random schedule."""
    rng = np.random.default_rng(7)
    n = 200
    submit = rng.uniform(0, 500, n)
    finish = submit + rng.exponential(50, n)
    queues = rng.choice(["root.p.a", "root.p.b", "root.q"], n)
    jobs = pd.DataFrame(
        {
            "job_id": [f"j{i}" for i in range(n)],
            "queue": queues,
            "submit_s": submit,
            "finish_s": finish,
        }
    )
    attempts = pd.DataFrame(
        {"job_id": [], "task_id": [], "attempt_id": [], "stage": [], "start_s": []}
    )
    window = Window(0, 600)
    table = evaluate(Schedule(jobs, attempts), [Metric.of("QS_PCT", p=0.9)], window=window)
    for queue, prefix in (("root.p", "root.p."), ("root.q", "root.q"), ("root", "root")):
        # Every job is submitted in the window and counts, even those finishing after 600.
        mask = np.char.startswith(queues.astype(str), prefix)
        expected = np.quantile(finish[mask] - submit[mask], 0.9)
        assert table.loc[queue, "QS_PCT(p=0.9)"] == pytest.approx(expected)


def test_utilization_clips_attempts_to_the_window_and_negates():
    """QS_UTIL: -(resource-time)/L: a.x -0.16, a.y -0.05, a -0.21, b -0.21, root -0.42."""
    util = _table("QS_UTIL")["QS_UTIL"]
    assert util.to_dict() == pytest.approx(
        {"root": -0.42, "root.a": -0.21, "root.a.x": -0.16, "root.a.y": -0.05, "root.b": -0.21}
    )


def test_utilization_without_preempted_attempts_drops_them():
    """QS_UTIL_NOPREEMPT: a3 (6 share-seconds) is left out: a.x -0.10, root -0.36."""
    util = _table("QS_UTIL_NOPREEMPT")["QS_UTIL_NOPREEMPT"]
    assert util["root.a.x"] == pytest.approx(-0.10)
    assert util["root"] == pytest.approx(-0.36)
    assert util["root.b"] == pytest.approx(-0.21)


def test_utilization_of_one_stage():
    """QS_UTIL(stage=map): a.x counts a1, a3, a4 (12), b counts a6, a7, a8 (16.5)."""
    util = _table(Metric.of("QS_UTIL", stage="map"))["QS_UTIL(stage=map)"]
    assert util["root.a.x"] == pytest.approx(-0.12)
    assert util["root.b"] == pytest.approx(-0.165)


def test_utilization_on_a_slot_cluster_counts_slots():
    """On map-slots=8,reduce-slots=2 each attempt holds 1/10 of the cluster, or 1/2 of the reduce pool."""
    slots = Cluster.parse("map-slots=8,reduce-slots=2")
    table = _table("QS_UTIL", Metric.of("QS_UTIL", stage="reduce"), cluster=slots)
    # a.x attempt-seconds: a1 20 + a2 20 + a3 20 + a4 40 = 100 -> 100 * 0.1 / 100.
    assert table.loc["root.a.x", "QS_UTIL"] == pytest.approx(-0.1)
    # Only a2 is a reduce: 20 s * 1/2 / 100.
    assert table.loc["root.a.x", "QS_UTIL(stage=reduce)"] == pytest.approx(-0.1)


def test_fairness_is_the_distance_from_the_desired_share():
    """QS_FAIR(share=25%): |0.25 - 0.16| for a.x, |0.25 - 0.42| for root."""
    fair = _table(Metric.of("QS_FAIR", share=0.25))["QS_FAIR(share=0.25)"]
    assert fair["root.a.x"] == pytest.approx(0.09)
    assert fair["root.b"] == pytest.approx(0.04)
    assert fair["root"] == pytest.approx(0.17)


def test_preemption_waste_is_killed_resource_time_over_all():
    """QS_WASTE: a.x 6/16, a 6/21, b 0, root 6/42."""
    waste = _table("QS_WASTE")["QS_WASTE"]
    assert waste.to_dict() == pytest.approx(
        {"root": 6 / 42, "root.a": 6 / 21, "root.a.x": 6 / 16, "root.a.y": 0.0, "root.b": 0.0}
    )


def test_slowdown_divides_response_by_critical_path():
    """QS_SLOWDOWN: paths j1 20+20, j2 40 (killed a3 ignored), j3 10, j6 55."""
    slow = _table("QS_SLOWDOWN")["QS_SLOWDOWN"]
    assert slow["root.a.x"] == pytest.approx((50 / 40 + 60 / 40) / 2)
    assert slow["root.a.y"] == pytest.approx(3.0)
    assert slow["root"] == pytest.approx((1.25 + 1.5 + 3.0 + 60 / 55) / 4)


def _one_job_schedules(rows, jobs):
    """A Schedule from (job, attempt, stage, start, finish, state, is_am) rows; one queue per job."""
    attempts = pd.DataFrame(
        rows, columns=["job_id", "attempt_id", "stage", "start_s", "finish_s", "state", "is_am"]
    )
    attempts["task_id"] = attempts["attempt_id"]
    frame = pd.DataFrame(jobs, columns=["job_id", "submit_s", "finish_s"])
    return Schedule(jobs=frame.assign(queue="root." + frame["job_id"]), attempts=attempts)


def test_slowdown_counts_an_early_reduce_only_after_the_maps():
    """Slowstart: maps m1 2..22, m2 22..40; reduces r1 5..50, r2 30..58 (r3 killed, AM left out).

    The longest map is 20 s; the maps end at 40, after which r1 runs 10 s and r2
    18 s: path 20 + 18 = 38 and slowdown 60 / 38. (Adding whole attempts, 20 + 45 =
    65 s, would exceed the 60 s response.) Job k's stage b (0..10) finishes before
    stage a (5..30), so b comes first: path 10 + 20 = 30, slowdown 40 / 30.
    """
    schedule = _one_job_schedules(
        [
            ("j", "am", "am", 0, 60, "SUCCEEDED", True),
            ("j", "m1", "map", 2, 22, "SUCCEEDED", False),
            ("j", "m2", "map", 22, 40, "SUCCEEDED", False),
            ("j", "r1", "reduce", 5, 50, "SUCCEEDED", False),
            ("j", "r2", "reduce", 30, 58, "SUCCEEDED", False),
            ("j", "r3", "reduce", 41, 60, "KILLED", False),
            ("k", "a1", "a", 5, 30, "SUCCEEDED", False),
            ("k", "b1", "b", 0, 10, "SUCCEEDED", False),
        ],
        [("j", 0, 60), ("k", 0, 40)],
    )
    slow = evaluate(schedule, ["QS_SLOWDOWN"], window=WINDOW)["QS_SLOWDOWN"]
    assert slow["root.j"] == pytest.approx(60 / 38)
    assert slow["root.k"] == pytest.approx(40 / 30)


def _naive_slowdown(schedule: Schedule) -> dict[str, float]:
    """Per job, obvious loops: stages by last finish, each adds its longest part after the last."""
    out = {}
    attempts = schedule.attempts.to_dict("records")
    order = list(dict.fromkeys(a["stage"] for a in attempts))
    for job in schedule.jobs.to_dict("records"):
        t_s, t_f = job["submit_s"], job["finish_s"]
        spans = {}
        for a in attempts:
            start, finish = max(a["start_s"], t_s), min(a["finish_s"], t_f)
            if a["job_id"] == job["job_id"] and a["state"] == "SUCCEEDED" and not a["is_am"]:
                if finish > start:
                    spans.setdefault(a["stage"], []).append((start, finish))
        stages = sorted(spans, key=lambda s: (max(f for _, f in spans[s]), order.index(s)))
        path, previous = 0.0, -math.inf
        for stage in stages:
            path += max(max(0.0, f - max(a, previous)) for a, f in spans[stage])
            previous = max(f for _, f in spans[stage])
        out["root." + job["job_id"]] = (t_f - t_s) / path if path > 0 else NAN
    return out


_TIME = st.integers(0, 30)
_ATTEMPT = st.tuples(
    st.integers(0, 2),
    st.sampled_from(["map", "reduce", "setup", "x"]),
    _TIME,
    _TIME,
    st.sampled_from(["SUCCEEDED", "SUCCEEDED", "FAILED", "KILLED"]),
    st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(
    jobs=st.lists(st.tuples(_TIME, _TIME), min_size=3, max_size=3),
    rows=st.lists(_ATTEMPT, max_size=14),
)
def test_slowdown_is_at_least_one_for_any_schedule(jobs, rows):
    """On random schedules (overlapping stages, ties, attempts outside the job) each job's
    slowdown equals the per-job loop and is >= 1."""
    schedule = _one_job_schedules(
        [
            (f"j{j}", f"a{i}", stage, a, a + b, state, am)
            for i, (j, stage, a, b, state, am) in enumerate(rows)
        ],
        [(f"j{j}", submit, submit + length) for j, (submit, length) in enumerate(jobs)],
    )
    slow = evaluate(schedule, ["QS_SLOWDOWN"], window=Window(0, 100))["QS_SLOWDOWN"]
    expected = _naive_slowdown(schedule)
    assert slow[list(expected)].to_dict() == pytest.approx(expected, nan_ok=True)
    assert (slow.dropna() >= 1 - 1e-12).all()


SAMPLES = {
    "two-tenant": "nodes=24,memory-mb=8192,vcores=8",
    "six-tenant": "nodes=100,memory-mb=8192,vcores=8",
}


@pytest.mark.parametrize("name", SAMPLES)
def test_slowdown_is_at_least_one_on_the_bundled_samples(name):
    """Every job of each bundled sample, observed and predicted under its expert file, has
    slowdown >= 1, and the samples' queues show some queueing (slowdown > 1 at root)."""
    root = Path(__file__).resolve().parents[2]
    trace = read_trace(root / "traces" / name)
    allocation = effective_allocation(
        AllocationDocument.from_file(root / "configs" / f"{name}-expert.xml")
    )
    predicted = predict(
        trace.workload,
        allocation,
        Cluster.parse(SAMPLES[name]),
        settings=SchedulerSettings(preemption=True),
    )
    for schedule in (trace.observed, predicted):
        jobs = schedule.jobs.assign(queue="root.q" + pd.Series(range(schedule.n_jobs)).astype(str))
        per_job = Schedule(jobs=jobs, attempts=schedule.attempts)
        window = Window.covering(schedule)
        slow = evaluate(per_job, ["QS_SLOWDOWN"], window=window)["QS_SLOWDOWN"]
        assert slow.notna().sum() == schedule.n_jobs + 1
        assert (slow >= 1 - 1e-9).all()
        assert evaluate(schedule, ["QS_SLOWDOWN"], window=window).loc["root"].item() > 1.0


@pytest.mark.parametrize("length_s", [864_000.0, 7_200.0, 10.0, 86_400_000.0])
def test_the_last_window_of_any_length_still_holds_the_last_event(length_s):
    """`Window.last(L)` ends where the covering window ends, so its last event is inside
    whatever L is; a rounded end_s - L + L fell an ulp short for L = 10 days on the
    two-tenant sample's last finish, and `tempo qs --window 10d` counted 413 of its 414 jobs."""
    last = 8788.862000000001
    window = Window.covering_times(np.array([49.0, last])).last(length_s)
    assert window.start_s + window.length_s > last
    assert window.length_s == pytest.approx(length_s, rel=1e-15)


def test_deadline_misses_from_the_job_column():
    """QS_DL(deadline=column): j1 50 > 40 late, j2 80 <= 100, j6 90 > 50 late; j3 has none."""
    table = _table(Metric.of("QS_DL", deadline="column"), workload=_workload())
    dl = table["QS_DL(deadline=column)"]
    assert dl["root.a.x"] == pytest.approx(0.5)
    assert math.isnan(dl["root.a.y"])
    assert dl["root.b"] == pytest.approx(1.0)
    assert dl["root"] == pytest.approx(2 / 3)


def test_deadline_slack_forgives_a_fraction_of_the_runtime():
    """slack 25%: j1 may finish by 40 + 0.25*(50-10) = 50 (met); j6 by 50 + 0.25*55 = 63.75 (late)."""
    metric = Metric.of("QS_DL", slack=0.25, deadline="column")
    dl = _table(metric, workload=_workload())[metric.label]
    assert dl["root.a.x"] == pytest.approx(0.0)
    assert dl["root.b"] == pytest.approx(1.0)
    assert dl["root"] == pytest.approx(1 / 3)


def test_deadline_from_the_next_run_of_a_recurring_job():
    """deadline=next: j1 is due when j2 is submitted (20; late), j2 when j7 is (200; met), j3 when j8 is (35; late)."""
    metric = Metric.of("QS_DL", deadline="next")
    dl = _table(metric, workload=_workload())[metric.label]
    assert dl["root.a.x"] == pytest.approx(0.5)
    assert dl["root.a.y"] == pytest.approx(1.0)
    assert math.isnan(dl["root.b"])
    assert dl["root"] == pytest.approx(2 / 3)


def test_deadline_auto_prefers_the_column_then_the_next_run():
    """deadline=auto: j1 40, j2 100, j3 35 (next run), j6 50: three of four late."""
    dl = _table("QS_DL", workload=_workload())["QS_DL"]
    assert dl["root"] == pytest.approx(3 / 4)
    assert dl["root.a.y"] == pytest.approx(1.0)


def test_deadline_at_a_time_of_day():
    """deadline=00:01 is 60 s after midnight: j2 (80) and j6 (90) are late, j1 and j3 are not."""
    metric = Metric.of("QS_DL", deadline="00:01")
    dl = _table(metric)[metric.label]
    assert dl.to_dict() == pytest.approx(
        {"root": 0.5, "root.a": 1 / 3, "root.a.x": 0.5, "root.a.y": 0.0, "root.b": 1.0}
    )


def test_time_of_day_deadline_is_the_next_occurrence_after_submission():
    """A job submitted at 10:00 with deadline 09:00 is due at 09:00 the next day."""
    schedule = _schedule()
    submit = schedule.jobs["submit_s"].to_numpy()
    due = job_deadlines(schedule, None, "09:00")
    assert np.all((due >= submit) & (due - submit < 86400))
    assert np.all(np.mod(due, 86400) == 9 * 3600)


def _deadline_schedule(responses, submit_step=100.0):
    """One job per response time in root.b, submitted every `submit_step` s, one attempt each."""
    n = len(responses)
    submit = np.arange(n) * submit_step
    finish = submit + np.asarray(responses, dtype=float)
    ids = [f"j{i}" for i in range(n)]
    jobs = pd.DataFrame(
        {"job_id": ids, "queue": "root.b", "submit_s": submit, "launch_s": submit,
         "finish_s": finish, "state": "SUCCEEDED"}
    )  # fmt: skip
    attempts = pd.DataFrame(
        {"job_id": ids, "task_id": ids, "attempt_id": ids, "stage": "map", "start_s": submit,
         "finish_s": finish, "memory_mb": 100.0, "vcores": 1.0}
    )  # fmt: skip
    return Schedule(jobs=jobs, attempts=attempts)


def test_deadline_an_hour_after_submission():
    """deadline=+1h: responses 600, 3599, 3600, 3601 and 7200 s; the last two finish after
    submission + 1 h, so QS_DL = 2/5 and QS_ATTAIN = -3/5, with no workload needed."""
    schedule = _deadline_schedule([600, 3599, 3600, 3601, 7200])
    dl, attain = (
        Metric.of("QS_DL", slack=0.0, deadline="+1h"),
        Metric.of("QS_ATTAIN", deadline="+1h"),
    )
    table = evaluate(schedule, [dl, attain], window=Window(0, 10_000))
    assert table.loc["root.b", "QS_DL(deadline=+1h)"] == pytest.approx(2 / 5)
    assert table.loc["root.b", "QS_ATTAIN(deadline=+1h)"] == pytest.approx(-3 / 5)
    due = job_deadlines(schedule, None, "+1h")
    assert due.tolist() == [3600.0, 3700.0, 3800.0, 3900.0, 4000.0]


def test_deadline_after_submission_forms_are_one_metric():
    """+60min, +3600 and +1h are the same deadline; +30m is thirty minutes; +1d a day."""
    assert Metric.of("QS_DL", deadline="+60min") == Metric.of("QS_DL", deadline="+3600")
    assert Metric.of("QS_DL", deadline="+60min").label == "QS_DL(deadline=+1h)"
    assert Metric.of("QS_DL", deadline="+30m").label == "QS_DL(deadline=+30min)"
    schedule = _deadline_schedule([0, 0])
    assert job_deadlines(schedule, None, "+1d").tolist() == [86400.0, 86500.0]


@pytest.mark.parametrize("source", ["+0h", "+", "+soon", "+5%", "+-1h", "1h"])
def test_bad_deadline_after_submission_is_rejected(source):
    """A relative deadline needs a positive duration after '+'; the error says so."""
    with pytest.raises(ValidationError, match=r"QS_DL\(deadline\): expected .*\+1h"):
        Metric.of("QS_DL", deadline=source)


def test_a_job_finishing_after_the_window_counts_with_its_true_response():
    """Window [0, 1000): j0 (submitted 0, response 500) and j1 (submitted 100, response 3000,
    finishing at 3100, after the window) both count: AJR (500 + 3000) / 2 = 1750, P100 3000;
    QS_THR counts only j0, the one finished inside."""
    schedule = _deadline_schedule([500, 3000])
    table = evaluate(
        schedule, ["QS_AJR", "QS_THR", Metric.of("QS_PCT", p=1.0)], window=Window(0, 1000)
    )
    assert table.loc["root.b", "QS_AJR"] == pytest.approx(1750.0)
    assert table.loc["root.b", "QS_PCT(p=1)"] == pytest.approx(3000.0)
    assert table.loc["root.b", "QS_THR"] == -1


def _cut_off() -> Schedule:
    """`_deadline_schedule` of three jobs (responses 500, 600, 700) where j1 never finishes."""
    schedule = _deadline_schedule([500, 600, 700])
    jobs = schedule.jobs.copy()
    jobs.loc[jobs["job_id"] == "j1", ["finish_s", "state"]] = [NAN, "RUNNING"]
    attempts = schedule.attempts.copy()
    attempts.loc[attempts["job_id"] == "j1", ["finish_s", "state"]] = [NAN, "RUNNING"]
    return Schedule(jobs=jobs, attempts=attempts)


def test_a_job_that_never_finishes_makes_the_evaluation_fail():
    """A predicted job with no finish is never left out of QS_AJR (which would read 600 instead
    of failing): evaluate raises, naming how many, which and where."""
    with pytest.raises(
        UnfinishedJobsError,
        match=r"^1 job submitted in \[0, 1000\) s \(root\.b: 1; e\.g\. j1\) never finished",
    ) as caught:
        evaluate(_cut_off(), ["QS_AJR"], window=Window(0, 1000))
    assert (caught.value.count, caught.value.job_ids, caught.value.queues) == (
        1,
        ("j1",),
        (("root.b", 1),),
    )


def test_every_metric_refuses_a_cut_off_schedule():
    """Resource metrics too: the schedule itself is invalid, whatever is asked of it."""
    for metric in ("QS_UTIL", "QS_THR", Metric.of("QS_DL", deadline="+1h")):
        with pytest.raises(UnfinishedJobsError):
            evaluate(_cut_off(), [metric], window=Window(0, 1000), cluster=CLUSTER)


def test_only_jobs_submitted_in_the_window_are_checked():
    """j1 (submitted at 100) is outside [150, 1000) and [0, 100): no error there."""
    for window in (Window(150, 850), Window(0, 100)):
        assert not evaluate(_cut_off(), ["QS_AJR"], window=window).empty
    assert unfinished_jobs(_cut_off(), Window(150, 850)).empty
    assert unfinished_jobs(_cut_off())["job_id"].tolist() == ["j1"]


def test_an_observed_job_still_running_is_left_out_with_a_warning(caplog):
    """unfinished="warn" (observed traces only): j1 is left out of AJR (500 + 700) / 2 and
    counted as a miss by QS_ATTAIN; the warning names how many and where."""
    metrics = ["QS_AJR", Metric.of("QS_ATTAIN", deadline="+10min")]
    table = evaluate(_cut_off(), metrics, window=Window(0, 1000), unfinished="warn")
    assert table.loc["root.b", "QS_AJR"] == pytest.approx(600.0)
    assert table.loc["root.b", "QS_ATTAIN(deadline=+10min)"] == pytest.approx(-1 / 3)
    assert "1 job submitted in [0, 1000) s (root.b: 1; e.g. j1) was still running" in caplog.text


def test_require_finished_names_the_schedule():
    """The check the predictor's callers use: `what` opens the message."""
    require_finished(_deadline_schedule([1.0]))
    with pytest.raises(
        UnfinishedJobsError, match=r"^predicted schedule: 1 job \(root\.b: 1; e\.g\. j1\)"
    ):
        require_finished(_cut_off(), what="predicted schedule")


def test_unfinished_mode_is_checked():
    """unfinished is "error" or "warn"."""
    with pytest.raises(
        ValidationError, match="evaluate unfinished: expected one of 'error', 'warn'"
    ):
        evaluate(_cut_off(), ["QS_AJR"], window=Window(0, 1000), unfinished="ignore")


def test_attainment_counts_unfinished_due_jobs_as_misses():
    """QS_ATTAIN(slack=25%): due j1 (met), j6 (late), j4 (70, still running at 100): root -1/3."""
    metric = Metric.of("QS_ATTAIN", slack=0.25, deadline="column")
    attain = _table(metric, workload=_workload())[metric.label]
    assert attain["root"] == pytest.approx(-1 / 3)
    assert attain["root.a.x"] == pytest.approx(-1.0)
    assert attain["root.b"] == pytest.approx(0.0)


def test_window_cutting_jobs_and_tasks():
    """Window [0, 60): J = {j1, j2, j3, j6}, each followed to its finish (j2 at 80, j6 at 90,
    after the window): AJR (50+60+30+60)/4; only j1 and j3 finish inside it (THR -2);
    resource-time a.x 2+4+6+2, b 3+2.5+0.5, root 25."""
    table = _table("QS_AJR", "QS_THR", "QS_UTIL", window=Window(0, 60))
    assert table.loc["root", "QS_AJR"] == pytest.approx(50.0)
    assert table.loc["root.b", "QS_AJR"] == pytest.approx(60.0)
    assert table.loc["root", "QS_THR"] == -2
    assert table.loc["root.a.x", "QS_UTIL"] == pytest.approx(-14 / 60)
    assert table.loc["root.b", "QS_UTIL"] == pytest.approx(-6 / 60)
    assert table.loc["root", "QS_UTIL"] == pytest.approx(-25 / 60)


def test_metric_window_parameter_uses_the_end_of_the_window():
    """QS_THR(window=60) over [0, 100) looks at [40, 100): no job is both submitted and finished there."""
    table = _table("QS_THR", Metric.of("QS_THR", window=60))
    assert table.loc["root", "QS_THR(window=60)"] == 0
    assert table.loc["root", "QS_THR"] == -4


def test_named_empty_queues_appear():
    """A queue named in `queues` with no jobs gets a row: zero throughput and use, no response time."""
    table = _table("QS_THR", "QS_AJR", "QS_UTIL", queues=["root.c", "d.e"])
    assert {"root.c", "root.d", "root.d.e"} <= set(table.index)
    assert table.loc["root.c", "QS_THR"] == 0
    assert table.loc["root.c", "QS_UTIL"] == 0
    assert math.isnan(table.loc["root.c", "QS_AJR"])


def test_columns_keep_the_requested_order_and_labels():
    """Columns are the metrics' labels, in order, duplicates merged."""
    table = _table(
        "QS_THR",
        Metric.of("QS_PCT", p=0.99),
        "qs_thr",
        Metric.of("QS_DL", slack=0.25),
        workload=_workload(),
    )
    assert table.columns.tolist() == ["QS_THR", "QS_PCT(p=0.99)", "QS_DL(slack=0.25)"]


def test_metric_is_canonical():
    """Default parameters are dropped and names upper-cased, so equal metrics compare equal."""
    assert Metric("qs_dl", {"slack": 0.0, "deadline": "auto"}) == Metric("QS_DL")
    assert Metric.of("QS_DL", slack=0.25).label == "QS_DL(slack=0.25)"
    assert Metric.of("QS_DL", slack=0.25).param("deadline") == "auto"
    assert hash(Metric.of("QS_PCT", p=0.5)) == hash(Metric("QS_PCT", {"p": 0.5}))


def test_registry_names():
    """Every metric the templates may name is registered, with a value unit."""
    assert set(METRICS) == {
        "QS_AJR",
        "QS_DL",
        "QS_UTIL",
        "QS_UTIL_NOPREEMPT",
        "QS_THR",
        "QS_FAIR",
        "QS_PCT",
        "QS_SLOWDOWN",
        "QS_WASTE",
        "QS_ATTAIN",
    }
    assert {spec.unit for spec in METRICS.values()} <= {"s", "fraction", "jobs", "ratio"}


def test_unknown_metric_is_rejected():
    """An unknown metric name lists the known ones."""
    with pytest.raises(ValidationError, match="expected one of QS_AJR.*got 'QS_NOPE'"):
        _table("QS_NOPE")


def test_zero_length_window_is_rejected():
    """A window must have a positive length."""
    with pytest.raises(
        ValidationError, match="window length_s: expected a finite number > 0, got 0"
    ):
        Window(0, 0)


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        pytest.param("QS_AJR", {"slack": 0.1}, "QS_AJR: unknown parameter 'slack'", id="unknown"),
        pytest.param(
            "QS_DL",
            {"slack": -0.1},
            r"QS_DL\(slack\): expected a value in \[0, inf\], got -0.1",
            id="negative-slack",
        ),
        pytest.param(
            "QS_PCT", {"p": 95}, r"QS_PCT\(p\): expected a value in \[0, 1\], got 95", id="p-range"
        ),
        pytest.param(
            "QS_DL",
            {"deadline": "25:00"},
            "QS_DL\\(deadline\\): expected one of auto, column, next",
            id="deadline-source",
        ),
    ],
)
def test_bad_parameter_is_rejected_with_its_name_and_range(name, params, match):
    """A parameter the metric does not take is named; slack is a fraction >= 0; p is a
    fraction in [0, 1]; a deadline source is auto, column, next or HH:MM."""
    with pytest.raises(ValidationError, match=match):
        Metric.of(name, **params)


def test_deadline_metric_without_a_workload_is_rejected():
    """QS_DL from job deadlines needs the workload."""
    with pytest.raises(
        ValidationError, match="deadline=auto: no deadlines available; give the workload"
    ):
        _table("QS_DL")


def test_deadline_metric_on_a_workload_without_deadlines_is_rejected():
    """A workload with no deadline_s and no recurring job has no deadlines to check."""
    workload = _workload(deadlines={}, keys={})
    with pytest.raises(ValidationError, match="deadline=column: no deadlines available; no job"):
        _table(Metric.of("QS_DL", deadline="column"), workload=workload)


def test_resource_metric_without_a_cluster_is_rejected():
    """QS_UTIL needs the cluster size."""
    with pytest.raises(ValidationError, match="need the cluster"):
        _table("QS_UTIL", cluster=None)


def test_fairness_requires_a_share():
    """QS_FAIR has no default desired share."""
    with pytest.raises(ValidationError, match="QS_FAIR: parameter 'share' is required"):
        Metric("QS_FAIR")


def test_no_metrics_is_rejected():
    """evaluate needs at least one metric."""
    with pytest.raises(ValidationError, match="at least one metric"):
        _table()


def test_window_covering_a_schedule_holds_every_event():
    """Window.covering spans the first submission to just after the last finish."""
    window = Window.covering(_schedule())
    assert window.start_s == -10
    assert window.end_s > 120 and window.end_s - 120 < 1e-9


def test_queue_tree_expands_records_to_their_ancestors():
    """A record of root.a.x counts for root.a.x, root.a and root."""
    tree = QueueTree.from_paths(["root.a.x", "b"])
    items, groups = tree.expand(tree.codes(["root.a.x", "b"]))
    pairs = {(int(i), tree.names[g]) for i, g in zip(items, groups, strict=True)}
    assert pairs == {(0, "root.a.x"), (0, "root.a"), (0, "root"), (1, "root.b"), (1, "root")}


def _naive(jobs, attempts, deadlines, queue, t0, t1, cluster):
    """Obvious per-queue loops for AJR, THR, UTIL, WASTE and DL(slack=10%), for comparison."""
    inside = [j for j in jobs if j["queue"] == queue or j["queue"].startswith(queue + ".")]
    ids = {j["job_id"] for j in inside}
    done = [j for j in inside if t0 <= j["submit_s"] < t1]
    ajr = sum(j["finish_s"] - j["submit_s"] for j in done) / len(done) if done else NAN
    thr = sum(1 for j in done if j["finish_s"] < t1)
    used = killed = 0.0
    for a in attempts:
        if a["job_id"] in ids:
            share = max(a["memory_mb"] / cluster.memory_mb, a["vcores"] / cluster.vcores)
            seconds = max(0.0, min(a["finish_s"], t1) - max(a["start_s"], t0))
            used += share * seconds
            killed += share * seconds if a["state"] == "KILLED" else 0.0
    due = [j for j in done if not math.isnan(deadlines[j["job_id"]])]
    late = [
        j
        for j in due
        if j["finish_s"] > deadlines[j["job_id"]] + 0.1 * (j["finish_s"] - j["launch_s"])
    ]
    return {
        "QS_AJR": ajr,
        "QS_THR": -thr,
        "QS_UTIL": -used / (t1 - t0),
        "QS_WASTE": killed / used if used else NAN,
        "QS_DL(slack=0.1)": len(late) / len(due) if due else NAN,
    }


def test_evaluate_matches_per_queue_loops_on_a_random_schedule():
    """The vectorized table equals obvious loops over each queue on 300 random jobs."""
    rng = np.random.default_rng(11)
    n, m = 300, 900
    queues = rng.choice(["root.p.a", "root.p.b", "root.q", "root.p.a.deep"], n)
    submit = rng.uniform(0, 1000, n)
    launch = submit + rng.uniform(0, 30, n)
    finish = launch + rng.exponential(100, n)
    owner = rng.integers(0, n, m)
    start = launch[owner] + rng.uniform(0, 50, m)
    jobs, attempts = benchmark_module("metrics_evaluate").frames(
        {"queue": queues, "submit_s": submit, "launch_s": launch, "finish_s": finish},
        owner,
        {
            "stage": rng.choice(["map", "reduce"], m),
            "start_s": start,
            "finish_s": start + rng.exponential(40, m),
            "memory_mb": rng.choice([512.0, 1024.0, 4096.0], m),
            "vcores": rng.choice([1.0, 2.0], m),
            "state": rng.choice(["SUCCEEDED", "KILLED"], m, p=[0.8, 0.2]),
        },
    )
    deadline = np.where(rng.random(n) < 0.5, submit + rng.uniform(50, 200, n), np.nan)
    workload = Workload(
        jobs=jobs[["job_id", "queue", "submit_s"]].assign(deadline_s=deadline),
        tasks=_no_tasks(),
    )
    cluster = Cluster(memory_mb=65536, vcores=64)
    window = Window(200, 600)
    metrics = ["QS_AJR", "QS_THR", "QS_UTIL", "QS_WASTE", Metric.of("QS_DL", slack=0.1)]
    table = evaluate(
        Schedule(jobs, attempts), metrics, window=window, cluster=cluster, workload=workload
    )
    records, attempt_records = jobs.to_dict("records"), attempts.to_dict("records")
    deadlines = dict(zip(jobs["job_id"], deadline, strict=True))
    for queue in table.index:
        expected = _naive(
            records, attempt_records, deadlines, queue, window.start_s, window.end_s, cluster
        )
        assert table.loc[queue].to_dict() == pytest.approx(expected, nan_ok=True), queue


def test_has_deadlines_sees_the_column_or_a_recurring_pair():
    """A workload has deadlines if a job has deadline_s or two jobs share a recurring key."""
    assert has_deadlines(_workload())
    assert has_deadlines(_workload(deadlines={}, keys={"j1": "etl", "j2": "etl"}))
    assert not has_deadlines(_workload(deadlines={}, keys={"j1": "etl"}))
    assert not has_deadlines(None)
