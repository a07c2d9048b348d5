"""The bundled sample traces load, are small, their workloads are rebuilt exactly by their
script, and the samples' recorded runs are consistent schedules."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from whatif import Cluster
from whatif.readers import read_trace, summarize

ROOT = Path(__file__).resolve().parents[3]
TRACES = ROOT / "traces"
DATA = ROOT / ".." / "shared" / "data"
BUNDLED = [
    "two-tenant",
    "contended",
    "six-tenant",
    "hadoop/jhist",
    "hadoop/sls",
    "hadoop/rumen",
    "hadoop/rest",
]


def _make_traces():
    spec = importlib.util.spec_from_file_location(
        "make_traces", ROOT / "benchmarks" / "make_traces.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_trace_loads(name):
    """Every bundled trace reads as a native trace with full queue paths."""
    trace = read_trace(TRACES / name)
    assert trace.workload.n_jobs > 0
    assert all(q.startswith("root.") for q in trace.workload.queues)


def test_two_tenant_shape():
    """two-tenant has root.prod and root.engineer, a few hundred jobs and under 20k tasks."""
    s = summarize(read_trace(TRACES / "two-tenant"))
    assert s.queues == ("root.engineer", "root.prod")
    assert 200 <= s.jobs <= 600 and s.tasks <= 20_000
    assert s.last_submit_s - s.first_submit_s <= 3 * 3600


def test_contended_is_reproducible_and_both_halves_carry_the_same_load():
    """make_traces.contended rebuilds the bundled trace exactly; its two 90-minute halves
    (the benchmark's tuning and held-out windows) ask for work within 10% of each other."""
    rebuilt = _make_traces().contended(DATA)
    bundled = read_trace(TRACES / "contended")
    pd.testing.assert_frame_equal(rebuilt.workload.jobs, bundled.workload.jobs)
    pd.testing.assert_frame_equal(rebuilt.workload.tasks, bundled.workload.tasks)
    jobs, tasks = bundled.workload.jobs, bundled.workload.tasks
    assert sorted(bundled.workload.queues) == ["root.besteffort", "root.deadline"]
    half = jobs.set_index("job_id")["submit_s"].lt(5400)
    work = tasks.groupby("job_id")["duration_s"].sum()
    first, second = work[half.reindex(work.index)].sum(), work[~half.reindex(work.index)].sum()
    assert abs(first / second - 1) < 0.1


def test_six_tenant_has_the_table_1_tenants():
    """six-tenant has the six Table 1 queues."""
    trace = read_trace(TRACES / "six-tenant")
    assert sorted(trace.workload.queues) == [
        f"root.{t}" for t in ("app", "bi", "dev", "etl", "mv", "str")
    ]


def test_two_tenant_is_reproducible_from_its_script():
    """make_traces.two_tenant rebuilds the bundled two-tenant trace exactly."""
    rebuilt = _make_traces().two_tenant(DATA)
    bundled = read_trace(TRACES / "two-tenant")
    pd.testing.assert_frame_equal(rebuilt.workload.jobs, bundled.workload.jobs)
    pd.testing.assert_frame_equal(rebuilt.workload.tasks, bundled.workload.tasks)


def test_six_tenant_is_reproducible_from_its_script():
    """make_traces.six_tenant rebuilds the bundled six-tenant trace exactly."""
    rebuilt = _make_traces().six_tenant()
    bundled = read_trace(TRACES / "six-tenant")
    pd.testing.assert_frame_equal(rebuilt.workload.tasks, bundled.workload.tasks)


RECORDED = ["two-tenant", "six-tenant"]


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_run_finishes_every_workload_job_in_its_queue(name):
    """A sample's recorded run has each workload job once, in the workload's queue, finished after it was submitted."""
    trace = read_trace(TRACES / name)
    jobs = trace.observed.jobs.set_index("job_id")
    workload = trace.workload.jobs.set_index("job_id").reindex(jobs.index)
    assert len(jobs) == trace.workload.n_jobs and workload["queue"].notna().all()
    assert (jobs["queue"] == workload["queue"]).all()
    assert (jobs["submit_s"] == workload["submit_s"]).all()
    assert (jobs["state"] == "SUCCEEDED").all()
    assert (jobs["finish_s"] >= jobs["launch_s"]).all() and (
        jobs["launch_s"] >= jobs["submit_s"]
    ).all()


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_run_attempts_belong_to_their_tasks_and_jobs(name):
    """Every workload task succeeds exactly once, every attempt ends, inside its job's lifetime."""
    trace = read_trace(TRACES / name)
    attempts = trace.observed.attempts
    assert attempts["finish_s"].notna().all() and not attempts["is_am"].any()
    succeeded = attempts[attempts["state"] == "SUCCEEDED"]
    assert sorted(succeeded["task_id"]) == sorted(trace.workload.tasks["task_id"])
    tasks = trace.workload.tasks.set_index("task_id").reindex(attempts["task_id"])
    assert (tasks["job_id"].to_numpy() == attempts["job_id"].to_numpy()).all()
    jobs = trace.observed.jobs.set_index("job_id").reindex(attempts["job_id"])
    assert (attempts["start_s"].to_numpy() >= jobs["submit_s"].to_numpy()).all()
    assert (attempts["finish_s"].to_numpy() <= jobs["finish_s"].to_numpy()).all()


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_run_stays_within_the_sample_cluster(name):
    """At no instant do the recorded run's containers hold more memory or vcores than the sample's cluster."""
    cluster = Cluster.parse(_make_traces().SAMPLES[name]["cluster"])
    attempts = read_trace(TRACES / name).observed.attempts
    times = np.concatenate([attempts["finish_s"], attempts["start_s"]])
    # At equal times a container ends before the next one starts (finishes sort first).
    order = np.lexsort((np.repeat([0, 1], len(attempts)), times))
    for column, capacity in (("memory_mb", cluster.memory_mb), ("vcores", cluster.vcores)):
        held = np.concatenate([-attempts[column], attempts[column]])[order].cumsum()
        assert held.max() <= capacity + 1e-6
        assert held.max() >= 0.5 * capacity  # the run does contend for the cluster


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_run_differs_from_the_nominal_workload_like_a_real_run(name):
    """The recording has failed and preempted attempts and stragglers, and its notes say it is simulated."""
    trace = read_trace(TRACES / name)
    attempts = trace.observed.attempts
    assert (attempts["state"] == "FAILED").any() and attempts["preempted"].any()
    succeeded = attempts[attempts["state"] == "SUCCEEDED"].set_index("task_id")
    nominal = trace.workload.tasks.set_index("task_id")["duration_s"].reindex(succeeded.index)
    ratio = (succeeded["finish_s"] - succeeded["start_s"]) / nominal
    assert (ratio > 2.0).any() and (ratio < 0.9).any()
    assert any("simulated recording, not a real cluster run" in n for n in trace.notes)
