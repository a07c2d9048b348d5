"""The Workload and Schedule data model: normalization and validation."""

import numpy as np
import pandas as pd
import pytest

from whatif import Schedule, ValidationError, Workload
from whatif.workload import sort_rows


def _jobs(**extra):
    base = {"job_id": ["j2", "j1"], "queue": ["root.a", "root.b"], "submit_s": [5.0, 1.0]}
    base.update(extra)
    return pd.DataFrame(base)


def _tasks(**extra):
    base = {
        "job_id": ["j1", "j1", "j2"],
        "task_id": ["t_r", "t_m", "t2"],
        "stage": ["reduce", "map", "map"],
        "duration_s": [3.0, 2.0, 1.0],
        "memory_mb": [1024, 1024, 2048],
        "vcores": [1, 1, 1],
    }
    base.update(extra)
    return pd.DataFrame(base)


def test_workload_sorts_jobs_by_submit_and_tasks_by_stage():
    """Jobs come out in submission order and each job's tasks in stage order."""
    w = Workload(jobs=_jobs(), tasks=_tasks())
    assert w.jobs["job_id"].tolist() == ["j1", "j2"]
    assert w.tasks["task_id"].tolist() == ["t_m", "t_r", "t2"]
    assert w.tasks["stage_index"].tolist() == [1, 2, 1]
    assert w.tasks["priority"].tolist() == [20, 10, 20]
    assert np.isnan(w.jobs["deadline_s"]).all()
    assert w.queues == ["root.b", "root.a"]


@pytest.mark.parametrize(
    ("tasks", "match"),
    [
        (_tasks(job_id=["j1", "j1", "nope"]), r"tasks\.job_id: unknown job 'nope'"),
        (
            _tasks(duration_s=[3.0, -1.0, 1.0]),
            r"tasks\.duration_s: expected >= 0.0, got -1.0 in record 't_m'",
        ),
        (
            _tasks(duration_s=[3.0, np.nan, 1.0]),
            r"tasks\.duration_s: missing value in record 't_m'",
        ),
        (_tasks(task_id=["t", "t", "t2"]), r"tasks: duplicate id t"),
        (_tasks(stage_index=[1, 2, 1]), r"job 'j1' orders its stages out of sequence"),
        (_tasks(stage=["shuffle", "map", "map"]), r"stage 'shuffle' is not a MapReduce stage"),
        (_tasks(memory_mb=["lots", 1, 1]), r"tasks\.memory_mb: expected a number, got 'lots'"),
    ],
)
def test_workload_rejects_bad_records_naming_them(tasks, match):
    """Bad task records are rejected with the field and the record named."""
    with pytest.raises(ValidationError, match=match):
        Workload(jobs=_jobs(), tasks=tasks)


def test_workload_rejects_duplicate_jobs_and_missing_columns():
    """Duplicate job ids and missing required columns are clear errors."""
    with pytest.raises(ValidationError, match="jobs: duplicate id j1"):
        Workload(jobs=_jobs(job_id=["j1", "j1"]), tasks=_tasks().iloc[:0])
    with pytest.raises(ValidationError, match="jobs: missing column.*submit_s"):
        Workload(jobs=_jobs().drop(columns="submit_s"), tasks=_tasks())


def test_select_jobs_keeps_their_tasks():
    """A job subset carries exactly its own tasks."""
    w = Workload(jobs=_jobs(), tasks=_tasks())
    sub = w.select_jobs(w.jobs["queue"] == "root.a")
    assert sub.jobs["job_id"].tolist() == ["j2"] and sub.tasks["task_id"].tolist() == ["t2"]


def test_schedule_validates_states_and_times():
    """Schedules reject unknown states and attempts that end before they start."""
    jobs = pd.DataFrame(
        {"job_id": ["j1"], "queue": ["root.a"], "submit_s": [0.0], "finish_s": [9.0]}
    )
    attempts = pd.DataFrame(
        {
            "job_id": ["j1", "j1"],
            "task_id": ["t", "t"],
            "attempt_id": ["a0", "a1"],
            "stage": ["map", "map"],
            "start_s": [1.0, 4.0],
            "finish_s": [3.0, 9.0],
            "state": ["KILLED", "SUCCEEDED"],
            "preempted": [True, None],
        }
    )
    s = Schedule(jobs=jobs, attempts=attempts)
    assert s.attempts["preempted"].tolist() == [True, False]
    assert "killed=1" in repr(s)
    with pytest.raises(ValidationError, match=r"state: expected one of .* got 'LOST'"):
        Schedule(jobs=jobs, attempts=attempts.assign(state=["LOST", "SUCCEEDED"]))
    with pytest.raises(ValidationError, match="finishes before it starts in record 'a0'"):
        Schedule(jobs=jobs, attempts=attempts.assign(finish_s=[0.5, 9.0]))


def test_empty_tables_of_any_dtype_are_accepted():
    """A schedule with no attempts yet (an empty, untyped table) is valid."""
    jobs = pd.DataFrame({"job_id": ["j1"], "queue": ["root.a"], "submit_s": [0.0]})
    empty = pd.DataFrame(columns=["job_id", "task_id", "attempt_id", "stage", "start_s"])
    assert Schedule(jobs=jobs, attempts=empty).n_attempts == 0


def test_workload_leaves_the_callers_tables_unchanged():
    """Filling in stage order and priorities does not write into the tables passed in."""
    tasks = _tasks(stage_index=[-1, -1, -1], priority=[-1, -1, -1])
    before = tasks.copy()
    Workload(jobs=_jobs(), tasks=tasks)
    pd.testing.assert_frame_equal(tasks, before)


def test_sort_rows_breaks_ties_by_later_keys_and_puts_nan_last():
    """Rows sort stably by each key in turn; NaN keys go last, as with sort_values."""
    frame = pd.DataFrame(
        {"t": [2.0, 1.0, np.nan, 1.0], "id": pd.array(["b", "z", "a", "c"], dtype="string")}
    )
    assert sort_rows(frame, ["t", "id"])["id"].tolist() == ["c", "z", "b", "a"]
    assert sort_rows(frame, ["t", "id"]).index.tolist() == [0, 1, 2, 3]


def test_sort_rows_does_not_copy_a_table_already_in_order():
    """A table in order comes back with its columns shared, not copied."""
    frame = pd.DataFrame({"t": [1.0, 1.0, 2.0], "id": ["a", "b", "a"]}, index=[5, 6, 7])
    out = sort_rows(frame, ["t", "id"])
    assert out.index.tolist() == [0, 1, 2]
    assert np.shares_memory(out["t"].to_numpy(), frame["t"].to_numpy())


def test_schedule_orders_attempts_by_start_then_attempt_id():
    """Attempts starting together are ordered by attempt id."""
    jobs = pd.DataFrame({"job_id": ["j1"], "queue": ["root.a"], "submit_s": [0.0]})
    attempts = pd.DataFrame(
        {
            "job_id": ["j1"] * 3,
            "task_id": ["t2", "t1", "t0"],
            "attempt_id": ["t2_0", "t1_0", "t0_0"],
            "stage": ["map"] * 3,
            "start_s": [1.0, 1.0, 0.0],
        }
    )
    s = Schedule(jobs=jobs, attempts=attempts)
    assert s.attempts["attempt_id"].tolist() == ["t0_0", "t1_0", "t2_0"]
