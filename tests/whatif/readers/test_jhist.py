"""The .jhist reader: real Hadoop files, both schema generations, every attempt, bad input."""

import json
import math
from pathlib import Path

import pytest

from whatif import TraceFormatError
from whatif.readers import detect_format, read_trace

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "jhist"
TERAGEN = DATA / "teragen-succeeded.jhist"
SLEEP = DATA / "sleep-failed.jhist"
NS = "org.apache.hadoop.mapreduce.jobhistory."


def _event(kind: str, record: str, **fields) -> str:
    return json.dumps({"type": kind, "event": {NS + record: fields}})


def _jhist(events: list[str]) -> str:
    schema = json.dumps({"type": "record", "name": "Event", "fields": []})
    return "Avro-Json\n" + schema + "\n" + "\n\n".join(events) + "\n"


JOB = "job_1_0001"


def _synthetic() -> str:
    """A job with a queue change, a preempted map attempt, a reduce and a cleanup task."""
    return _jhist(
        [
            _event(
                "AM_STARTED",
                "AMStarted",
                applicationAttemptId="appattempt_1_0001_000001",
                startTime=1000,
                containerId="container_1_0001_01_000001",
                nodeManagerHost="h0",
            ),
            _event(
                "JOB_SUBMITTED",
                "JobSubmitted",
                jobid=JOB,
                jobName="etl",
                userName="ann",
                submitTime=500,
                jobQueueName="default",
                workflowId={"string": ""},
            ),
            _event("JOB_QUEUE_CHANGED", "JobQueueChange", jobid=JOB, jobQueueName="root.etl"),
            _event(
                "JOB_INITED", "JobInited", jobid=JOB, launchTime=1500, totalMaps=1, totalReduces=1
            ),
            _event(
                "NORMALIZED_RESOURCE", "NormalizedResourceEvent", memory=2048, taskType="REDUCE"
            ),
            _event(
                "TASK_STARTED",
                "TaskStarted",
                taskid="task_1_0001_m_000000",
                taskType="MAP",
                startTime=2000,
            ),
            _event(
                "MAP_ATTEMPT_STARTED",
                "TaskAttemptStarted",
                taskid="task_1_0001_m_000000",
                taskType="MAP",
                attemptId="attempt_1_0001_m_000000_0",
                startTime=2100,
                trackerName="h1",
            ),
            _event(
                "MAP_ATTEMPT_KILLED",
                "TaskAttemptUnsuccessfulCompletion",
                taskid="task_1_0001_m_000000",
                taskType="MAP",
                attemptId="attempt_1_0001_m_000000_0",
                finishTime=4000,
                hostname="h1",
                status="KILLED",
                error="Container preempted by scheduler",
            ),
            _event(
                "MAP_ATTEMPT_STARTED",
                "TaskAttemptStarted",
                taskid="task_1_0001_m_000000",
                taskType="MAP",
                attemptId="attempt_1_0001_m_000000_1",
                startTime=5000,
                trackerName="h2",
            ),
            _event(
                "MAP_ATTEMPT_FINISHED",
                "MapAttemptFinished",
                taskid="task_1_0001_m_000000",
                attemptId="attempt_1_0001_m_000000_1",
                taskType="MAP",
                taskStatus="SUCCEEDED",
                finishTime=9000,
                hostname="h2",
            ),
            _event(
                "TASK_FINISHED",
                "TaskFinished",
                taskid="task_1_0001_m_000000",
                taskType="MAP",
                finishTime=9000,
                status="SUCCEEDED",
                successfulAttemptId={"string": "attempt_1_0001_m_000000_1"},
            ),
            _event(
                "TASK_STARTED",
                "TaskStarted",
                taskid="task_1_0001_r_000000",
                taskType="REDUCE",
                startTime=3000,
            ),
            _event(
                "REDUCE_ATTEMPT_STARTED",
                "TaskAttemptStarted",
                taskid="task_1_0001_r_000000",
                taskType="REDUCE",
                attemptId="attempt_1_0001_r_000000_0",
                startTime=3500,
                trackerName="h3",
            ),
            _event(
                "REDUCE_ATTEMPT_FINISHED",
                "ReduceAttemptFinished",
                taskid="task_1_0001_r_000000",
                attemptId="attempt_1_0001_r_000000_0",
                taskType="REDUCE",
                taskStatus="SUCCEEDED",
                shuffleFinishTime=10000,
                sortFinishTime=10500,
                finishTime=12000,
                hostname="h3",
            ),
            _event(
                "TASK_FINISHED",
                "TaskFinished",
                taskid="task_1_0001_r_000000",
                taskType="REDUCE",
                finishTime=12000,
                status="SUCCEEDED",
            ),
            _event(
                "TASK_STARTED",
                "TaskStarted",
                taskid="task_1_0001_c_000000",
                taskType="JOB_CLEANUP",
                startTime=12100,
            ),
            _event(
                "CLEANUP_ATTEMPT_STARTED",
                "TaskAttemptStarted",
                taskid="task_1_0001_c_000000",
                taskType="JOB_CLEANUP",
                attemptId="attempt_1_0001_c_000000_0",
                startTime=12200,
            ),
            _event(
                "CLEANUP_ATTEMPT_FINISHED",
                "TaskAttemptFinished",
                taskid="task_1_0001_c_000000",
                attemptId="attempt_1_0001_c_000000_0",
                taskType="JOB_CLEANUP",
                taskStatus="SUCCEEDED",
                finishTime=12700,
            ),
            _event(
                "TASK_FINISHED",
                "TaskFinished",
                taskid="task_1_0001_c_000000",
                taskType="JOB_CLEANUP",
                finishTime=12700,
                status="SUCCEEDED",
            ),
            _event(
                "JOB_FINISHED",
                "JobFinished",
                jobid=JOB,
                finishTime=13000,
                finishedMaps=1,
                finishedReduces=1,
            ),
        ]
    )


def test_teragen_new_schema_counts_and_times():
    """The newer-schema TeraGen file gives 1 job, 2 maps, 2 attempts, 1 AM with exact times."""
    trace = read_trace(TERAGEN)
    jobs, tasks, attempts = trace.workload.jobs, trace.workload.tasks, trace.observed.attempts
    assert jobs["job_id"].tolist() == ["job_1416424547277_0002"]
    assert jobs["queue"].tolist() == ["root.default"] and jobs["user"].tolist() == ["root"]
    assert jobs["submit_s"].iloc[0] == pytest.approx(1416424775.281)
    assert jobs["am_start_s"].iloc[0] == pytest.approx(1416424776.369)
    assert tasks["stage"].tolist() == ["map", "map"]
    assert tasks["duration_s"].tolist() == pytest.approx([2.981, 2.975], abs=1e-6)
    assert len(attempts) == 3 and attempts["is_am"].sum() == 1
    assert set(attempts["state"]) == {"SUCCEEDED"}
    sched = trace.observed.jobs.iloc[0]
    assert sched["state"] == "SUCCEEDED" and sched["finish_s"] == pytest.approx(1416424785.433)


def test_sleep_old_schema_failed_attempt():
    """The older-schema Sleep file gives one FAILED map attempt, a FAILED task and job."""
    trace = read_trace(SLEEP)
    task = trace.workload.tasks.iloc[0]
    assert task["observed_state"] == "FAILED"
    assert task["duration_s"] == pytest.approx(1393307723.803 - 1393307696.163)
    attempts = trace.observed.attempts
    failed = attempts[~attempts["is_am"]]
    assert failed["state"].tolist() == ["FAILED"] and not failed["preempted"].any()
    assert trace.observed.jobs["state"].tolist() == ["FAILED"]


def test_directory_of_jhist_files_reads_all():
    """A directory is read as all its .jhist files together."""
    trace = read_trace(DATA)
    assert detect_format(DATA) == "jhist"
    assert trace.workload.n_jobs == 2 and trace.workload.n_tasks == 3
    assert trace.observed.n_attempts == 5


def test_synthetic_job_queue_change_preemption_reduce_and_cleanup(tmp_path):
    """Queue changes, killed/preempted attempts, reduce phases and cleanup tasks are all kept."""
    path = tmp_path / "job.jhist"
    path.write_text(_synthetic())
    trace = read_trace(path)
    assert trace.workload.jobs["queue"].tolist() == ["root.etl"]
    tasks = trace.workload.tasks.set_index("task_id")
    assert tasks.loc["task_1_0001_m_000000", "duration_s"] == pytest.approx(4.0)
    assert tasks.loc["task_1_0001_m_000000", "observed_start_s"] == pytest.approx(5.0)
    reduce = tasks.loc["task_1_0001_r_000000"]
    assert (reduce["shuffle_finish_s"], reduce["sort_finish_s"]) == pytest.approx((10.0, 10.5))
    assert reduce["memory_mb"] == 2048 and tasks.loc["task_1_0001_m_000000", "memory_mb"] == 1024
    assert tasks.loc["task_1_0001_c_000000", "stage"] == "cleanup"
    assert trace.workload.tasks["stage"].tolist() == ["map", "reduce", "cleanup"]
    attempts = trace.observed.attempts.set_index("attempt_id")
    killed = attempts.loc["attempt_1_0001_m_000000_0"]
    assert killed["state"] == "KILLED" and killed["preempted"]
    assert len(attempts) == 5  # AM + 2 map attempts + reduce + cleanup
    job = trace.observed.jobs.iloc[0]
    assert (job["submit_s"], job["launch_s"], job["finish_s"]) == pytest.approx((0.5, 1.0, 13.0))


def test_a_speculative_attempts_kill_is_not_a_preemption(tmp_path):
    """MRv2's speculator kills the slower attempt of a task once another succeeds, with the
    diagnostic 'Speculation: ... succeeded first!': a KILLED attempt, never a preempted one
    (issue 21); only diagnostics that say preemption mark one preempted."""
    path = tmp_path / "job.jhist"
    path.write_text(
        _synthetic().replace(
            "Container preempted by scheduler",
            "Speculation: attempt_1_0001_m_000000_1 succeeded first!",
        )
    )
    attempts = read_trace(path).observed.attempts.set_index("attempt_id")
    killed = attempts.loc["attempt_1_0001_m_000000_0"]
    assert killed["state"] == "KILLED" and not killed["preempted"]
    assert not attempts["preempted"].any()


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (
            lambda t: t.replace("Avro-Json", "Avro-Jsn"),
            r"job\.jhist:1: expected the line 'Avro-Json'",
        ),
        (
            lambda t: t[: t.index('"JOB_INITED"') + 40] + "\n",
            r"job\.jhist:9:50: invalid JSON: a string has no closing '\"' before the end of the "
            r"line$",
        ),
        (
            lambda t: t[: t.index('"JOB_INITED"') + 40],
            r"job\.jhist:9:34: invalid JSON: a string starting here has no closing '\"': the line "
            r"ends first \(truncated\?\)$",
        ),
        (
            lambda t: t.replace('"launchTime": 1500', '"launchTime": 1' + "0" * 5000),
            r"job\.jhist:9:\d+: invalid JSON: a number of 5001 digits; expected at most 4300",
        ),
        (
            lambda t: t.replace('"submitTime": 500, ', ""),
            r"job\.jhist:5: JOB_SUBMITTED event lacks field 'submitTime'",
        ),
        (
            lambda t: t.replace('"launchTime": 1500', '"launchTime": "soon"'),
            r"job\.jhist:9: JOB_INITED event field 'launchTime': expected a time in ms, got 'soon'",
        ),
        (
            lambda t: t.replace('"launchTime": 1500', '"launchTime": -1'),
            r"job\.jhist:9: JOB_INITED event field 'launchTime': expected a time in ms >= 0, got -1",
        ),
        (
            lambda t: t.replace(
                '"taskType": "JOB_CLEANUP", "startTime"', '"taskType": "SHUFFLE", "startTime"'
            ),
            r"job\.jhist:\d+: TASK_STARTED event field 'taskType': expected one of",
        ),
        (
            lambda t: "\n".join(line for line in t.split("\n") if "JOB_SUBMITTED" not in line),
            r"JOB_QUEUE_CHANGED event names job 'job_1_0001' before its JOB_SUBMITTED",
        ),
    ],
)
def test_malformed_jhist_names_file_and_line(tmp_path, mutate, match):
    """Bad magic, truncated JSON, missing fields and wrong types name the file and line."""
    path = tmp_path / "job.jhist"
    path.write_text(mutate(_synthetic()))
    with pytest.raises(TraceFormatError, match=match):
        read_trace(path, format="jhist")


def test_unfinished_attempt_is_running(tmp_path):
    """An attempt with a start but no finish stays RUNNING with no finish time."""
    text = _synthetic()
    lines = [line for line in text.split("\n") if "REDUCE_ATTEMPT_FINISHED" not in line]
    path = tmp_path / "job.jhist"
    path.write_text("\n".join(lines))
    attempts = read_trace(path).observed.attempts.set_index("attempt_id")
    assert attempts.loc["attempt_1_0001_r_000000_0", "state"] == "RUNNING"
    assert math.isnan(attempts.loc["attempt_1_0001_r_000000_0", "finish_s"])
