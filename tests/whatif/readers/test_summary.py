"""summarize: counts, queues, span, per-queue resource-time and duration quantiles."""

import math

import numpy as np
import pandas as pd
import pytest

from whatif import Schedule, Trace, Workload
from whatif.readers import inspect_trace, summarize


def _trace():
    jobs = pd.DataFrame(
        {
            "job_id": ["a", "b", "c"],
            "queue": ["root.x", "root.y", "root.x"],
            "submit_s": [10.0, 20.0, 40.0],
        }
    )
    tasks = pd.DataFrame(
        {
            "job_id": ["a", "a", "b", "c"],
            "task_id": ["t1", "t2", "t3", "t4"],
            "stage": ["map", "reduce", "map", "map"],
            "duration_s": [10.0, 20.0, 30.0, 40.0],
            "memory_mb": [1024, 2048, 1024, 512],
            "vcores": [1, 2, 1, 1],
        }
    )
    attempts = pd.DataFrame(
        {
            "job_id": ["a", "a", "a", "a"],
            "task_id": ["am", "t1", "t1", "t2"],
            "attempt_id": ["c0", "x0", "x1", "x2"],
            "stage": ["am", "map", "map", "reduce"],
            "start_s": [10.0, 11.0, 12.0, 13.0],
            "finish_s": [90.0, 12.0, 22.0, 33.0],
            "state": ["SUCCEEDED", "KILLED", "SUCCEEDED", "FAILED"],
            "preempted": [False, True, False, False],
            "is_am": [True, False, False, False],
        }
    )
    sched_jobs = jobs.assign(finish_s=[90.0, np.nan, np.nan])
    return Trace(
        Workload(jobs=jobs, tasks=tasks), Schedule(jobs=sched_jobs, attempts=attempts), format="t"
    )


def test_summary_counts_and_per_queue_resource_time():
    """Counts exclude AM containers from attempts; resource-time sums duration x size per queue."""
    s = summarize(_trace())
    assert (s.jobs, s.tasks, s.attempts, s.am_containers) == (3, 4, 3, 1)
    assert (s.killed_attempts, s.failed_attempts, s.preempted_attempts) == (1, 1, 1)
    assert s.queues == ("root.x", "root.y")
    x, y = s.per_queue
    assert (x.jobs, x.tasks, x.memory_mb_s, x.vcore_s) == (
        2,
        3,
        10 * 1024 + 20 * 2048 + 40 * 512,
        10 + 40 + 40,
    )
    assert (y.jobs, y.tasks, y.memory_mb_s) == (1, 1, 30 * 1024)
    assert (s.first_submit_s, s.last_submit_s, s.last_finish_s) == (10.0, 40.0, 90.0)


def test_summary_duration_quantiles_per_stage():
    """Duration quantiles are given for all tasks and per stage."""
    s = summarize(_trace())
    by_stage = {d.stage: d for d in s.durations}
    assert by_stage["all"].tasks == 4 and by_stage["all"].p50_s == pytest.approx(25.0)
    assert by_stage["map"].max_s == 40.0 and by_stage["reduce"].mean_s == 20.0


def test_summary_json_has_counts_and_queue_names():
    """to_dict has jobs/tasks/attempts counts, the queue list, and no NaN."""
    trace = Trace(Workload(jobs=_trace().workload.jobs, tasks=_trace().workload.tasks.iloc[:0]))
    d = summarize(trace).to_dict()
    assert (d["jobs"], d["tasks"], d["attempts"]) == (3, 0, 0)
    assert d["queues"] == ["root.x", "root.y"]
    assert d["last_finish_s"] is None and d["durations"][0]["p50_s"] is None
    assert not any(isinstance(v, float) and math.isnan(v) for v in d.values())


def test_inspect_trace_reads_and_summarizes(tmp_path):
    """inspect_trace reads a path and summarizes it."""
    from whatif.readers import write_native

    path = write_native(_trace(), tmp_path / "t")
    assert inspect_trace(path).attempts == 3
