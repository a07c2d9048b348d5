"""The Rumen reader: the SLS sample trace and malformed input."""

import json
from pathlib import Path

import pytest

from whatif import TraceFormatError
from whatif.readers import detect_format, read_trace

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "rumen"
SAMPLE = DATA / "2jobs2min-rumen-jh.json"


def test_rumen_sample_counts_queue_memory_and_times():
    """The sample has 2 TeraGen jobs of 96 maps each, one attempt per task, 200 MB maps."""
    trace = read_trace(SAMPLE)
    assert detect_format(SAMPLE) == "rumen"
    jobs = trace.workload.jobs
    assert jobs["job_id"].tolist() == ["job_1369942127770_1205", "job_1369942127770_1206"]
    assert set(jobs["queue"]) == {"root.sls_queue_1"} and set(jobs["user"]) == {"jenkins"}
    assert jobs["submit_s"].iloc[0] == pytest.approx(1371222054.499)
    tasks = trace.workload.tasks
    assert tasks.groupby("job_id").size().tolist() == [96, 96]
    assert set(tasks["stage"]) == {"map"} and set(tasks["memory_mb"]) == {200.0}
    first = tasks.set_index("task_id").loc["task_1369942127770_1205_m_000000"]
    assert first["duration_s"] == pytest.approx(1371222078.206 - 1371222061.163)
    assert trace.observed.n_attempts == 192 and set(trace.observed.attempts["state"]) == {
        "SUCCEEDED"
    }
    assert trace.observed.jobs["finish_s"].iloc[0] == pytest.approx(1371222153.874)


def _job(**changes):
    job = {
        "jobID": "job_1_0001",
        "user": "u",
        "queue": "etl",
        "submitTime": 1000,
        "finishTime": 9000,
        "outcome": "SUCCESS",
        "reduceTasks": [
            {
                "taskID": "task_1_0001_r_000000",
                "taskType": "REDUCE",
                "taskStatus": "SUCCESS",
                "attempts": [
                    {
                        "attemptID": "attempt_1_0001_r_000000_0",
                        "startTime": 2000,
                        "finishTime": 3000,
                        "result": "KILLED",
                    },
                    {
                        "attemptID": "attempt_1_0001_r_000000_1",
                        "startTime": 3000,
                        "finishTime": 7000,
                        "result": "SUCCESS",
                        "shuffleFinished": 5000,
                        "sortFinished": 6000,
                    },
                ],
            }
        ],
    }
    job.update(changes)
    return job


def test_rumen_killed_attempts_and_reduce_phases(tmp_path):
    """Killed attempts are kept; the successful reduce gives duration and shuffle/sort times."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_job()))
    trace = read_trace(path)
    task = trace.workload.tasks.iloc[0]
    assert trace.workload.jobs["queue"].tolist() == ["root.etl"]
    assert (task["duration_s"], task["shuffle_finish_s"], task["sort_finish_s"]) == (4.0, 5.0, 6.0)
    assert trace.observed.attempts["state"].tolist() == ["KILLED", "SUCCEEDED"]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (json.dumps(_job())[:-30], r"r\.json:1:\d+: invalid JSON in record 1"),
        (json.dumps(_job(submitTime=None)), r"job 'job_1_0001': missing field 'submitTime'"),
        (json.dumps(_job(submitTime="x")), r"field 'submitTime': expected a time in ms, got 'x'"),
        (
            json.dumps(_job(reduceTasks=[{"taskID": "t", "taskType": "SHUFFLE"}])),
            r"reduceTasks\[0\]: field 'taskType'",
        ),
        (json.dumps(_job(mapTasks={"a": 1})), r"field 'mapTasks': expected a list"),
    ],
)
def test_malformed_rumen_names_file_and_record(tmp_path, text, match):
    """Truncated JSON, missing fields and wrong types name the file, line and job."""
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(TraceFormatError, match=match):
        read_trace(path, format="rumen")
