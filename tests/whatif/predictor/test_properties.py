"""Invariants of every predicted schedule, on random workloads, trees and settings."""

import math

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st
from predictor_cases import build_workload, containers, flat_tree, replayed, scenarios

from whatif.predictor import NoiseModel, SchedulerSettings, predict, write_jobruntime_csv
from whatif.predictor.nodes import node_layout
from whatif.queues import normalize_queue

# Derandomized: CI replays the same examples every run.
FAST = replayed(25)


def usage_at(attempts, t):
    live = attempts[(attempts["start_s"] <= t) & (attempts["finish_s"] > t)]
    return live["memory_mb"].sum(), live["vcores"].sum()


@FAST
@given(scenarios())
def test_never_over_cluster_capacity_or_a_queue_max(scenario):
    """At every container start, cluster usage and every queue's usage stay within limits."""
    workload, allocation, cluster, sched, noise = scenario
    if cluster.slots:
        return
    s = predict(workload, allocation, cluster, settings=sched, noise=noise)
    a = s.attempts.merge(s.jobs[["job_id", "queue"]], on="job_id")
    a["finish_s"] = a["finish_s"].fillna(np.inf)
    limits = {
        q.name: q.max_resources.resolve(type(q.min_resources)(cluster.memory_mb, cluster.vcores))
        for q in allocation.queues()
    }
    starts = np.unique(a["start_s"].to_numpy())
    alive = (a["start_s"].to_numpy()[None, :] <= starts[:, None]) & (
        a["finish_s"].to_numpy()[None, :] > starts[:, None]
    )
    req = a[["memory_mb", "vcores"]].to_numpy()
    assert (alive @ req <= np.array([cluster.memory_mb, cluster.vcores])).all()
    queue = a["queue"].astype(str).to_numpy()
    for name, limit in limits.items():
        inside = (queue == name) | np.char.startswith(queue.astype(str), name + ".")
        assert (alive[:, inside] @ req[inside] <= np.array([limit.memory_mb, limit.vcores])).all()


@FAST
@given(scenarios())
def test_every_task_succeeds_once_and_killed_ones_rerun(scenario):
    """Each task of a finished job has exactly one successful attempt, after its killed ones."""
    workload, allocation, cluster, sched, noise = scenario
    s = predict(workload, allocation, cluster, settings=sched, noise=noise)
    done_jobs = set(s.jobs.loc[s.jobs["state"] == "SUCCEEDED", "job_id"])
    tasks = workload.tasks[workload.tasks["job_id"].isin(done_jobs)]
    a = s.attempts[~s.attempts["is_am"]]
    ok = a[a["state"] == "SUCCEEDED"].groupby("task_id")["start_s"].agg(["size", "max"])
    assert ok["size"].eq(1).all()
    # a job can stay unfinished (e.g. its AMs hold the vcores its tasks need): only a
    # finished job's tasks must all have succeeded
    assert set(tasks["task_id"]) <= set(ok.index)
    lost = a[a["state"].isin(["KILLED", "FAILED"]) & a["job_id"].isin(done_jobs)]
    for row in lost.itertuples():
        assert ok.loc[row.task_id, "max"] >= row.finish_s
    finish = s.jobs.set_index("job_id")["finish_s"]
    last = a.groupby("job_id")["finish_s"].max()
    # a job ends when its last task's end is reported: at once, or with heartbeats at that
    # task's node's next heartbeat (at most one interval later; an end on the node's grid
    # is reported one interval later, which the subtraction may round up by an ulp)
    interval = node_layout(cluster, sched).interval_s
    late = finish[list(done_jobs)] - last[list(done_jobs)]
    bound = interval * (1 + 1e-12) if interval < math.inf else 0.0
    assert (late >= 0).all() and (late <= bound).all()


@FAST
@given(
    st.lists(
        st.tuples(st.integers(0, 30), st.integers(1, 8), st.integers(1, 20)), min_size=1, max_size=6
    ),
    st.integers(1, 6),
)
def test_work_conserving_when_nothing_limits_a_queue(jobs, size):
    """With one unlimited queue, a task that waits past its job's submission finds the cluster full."""
    spec = [(f"j{i}", "a", sub, [("map", dur, 1024)] * n) for i, (sub, n, dur) in enumerate(jobs)]
    workload = build_workload(spec)
    s = predict(workload, flat_tree(a={}), containers(size))
    a = s.attempts.merge(s.jobs[["job_id", "submit_s"]], on="job_id")
    for row in a[a["start_s"] > a["submit_s"]].itertuples():
        for t in np.unique(a["start_s"]):
            if row.submit_s <= t < row.start_s:
                mem, _ = usage_at(a, t)
                assert mem + 1024 > size * 1024


@FAST
@given(scenarios(), st.integers(0, 5))
def test_same_input_and_seed_give_byte_identical_schedules(scenario, seed):
    """Determinism: two runs with the same input and seed serialize to the same bytes."""
    workload, allocation, cluster, sched, _ = scenario
    noise = NoiseModel(failure_probability=0.2, jitter_cv=0.3)
    one = predict(workload, allocation, cluster, settings=sched, seed=seed, noise=noise)
    two = predict(workload, allocation, cluster, settings=sched, seed=seed, noise=noise)
    assert one.attempts.to_csv().encode() == two.attempts.to_csv().encode()
    assert one.jobs.to_csv().encode() == two.jobs.to_csv().encode()


def test_noise_changes_with_the_seed_and_failures_retry():
    """Different seeds give different jittered schedules; failed attempts are retried."""
    workload = build_workload([("j", "a", 0, [("map", 10, 1024)] * 20)])
    noise = NoiseModel(failure_probability=0.3, jitter_cv=0.5, straggler_probability=0.2)
    one = predict(workload, flat_tree(a={}), containers(4), seed=1, noise=noise)
    two = predict(workload, flat_tree(a={}), containers(4), seed=2, noise=noise)
    assert not one.attempts["finish_s"].equals(two.attempts["finish_s"])
    assert (one.attempts["state"] == "FAILED").any()
    assert (one.attempts["state"] == "SUCCEEDED").sum() == 20


def test_jobruntime_csv_has_sls_columns(tmp_path):
    """jobruntime.csv has SLS's columns with millisecond times."""
    workload = build_workload([("j", "a", 2, [("map", 10, 1024)])])
    s = predict(workload, flat_tree(a={}), containers(1))
    path = write_jobruntime_csv(s, workload, tmp_path / "jobruntime.csv")
    table = pd.read_csv(path)
    assert list(table.columns) == [
        "JobID",
        "real_start_time",
        "real_end_time",
        "simulate_start_time",
        "simulate_end_time",
    ]
    assert table.iloc[0][
        ["real_start_time", "simulate_start_time", "simulate_end_time"]
    ].tolist() == [2000, 2000, 12000]


def test_packed_queue_names_prefix_root():
    """Bare leaf names live under root (the packer names queues by `normalize_queue`)."""
    assert normalize_queue("etl") == "root.etl" and normalize_queue("root.a.b") == "root.a.b"


def test_default_settings_are_hadoop3_without_preemption():
    """Defaults match yarn-default.xml."""
    s = SchedulerSettings()
    assert (s.preemption, s.utilization_threshold, s.wait_time_before_kill_s, s.hadoop_version) == (
        False,
        0.8,
        15.0,
        3,
    )
    assert s.starvation_recheck_delay_s == 29.0
