"""The Rumen reader's columnar fast path agrees with the precise path, field by field."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.whatif.readers.agree import assert_same_trace
from whatif import TraceFormatError
from whatif.readers import read_trace
from whatif.readers.rumen import RumenReader
from whatif.readers.rumen_columns import read_rumen_tables

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "rumen"


def _same(path: Path, **options) -> None:
    reader = RumenReader(**options)
    assert read_rumen_tables(path, reader.options()) is not None
    assert_same_trace(reader.read(path), reader.read_precise(path))


def test_bundled_rumen_trace_agrees():
    _same(DATA / "2jobs2min-rumen-jh.json")
    _same(DATA / "2jobs2min-rumen-jh.json", map_memory_mb=512.0, vcores=2.0)


def _attempt(rng, task_id: str, k: int, begin: int) -> dict:
    attempt = {"attemptID": f"attempt{task_id[4:]}_{k}"}
    if k % 5 != 4:
        attempt["startTime"] = begin
    if k % 7 != 6:
        attempt["finishTime"] = begin + int(rng.integers(0, 10**5))
    elif "startTime" not in attempt:
        attempt["finishTime"] = -1
        attempt["startTime"] = begin
    choice = int(rng.integers(0, 6))
    if choice < 4:
        attempt["result"] = ["SUCCESS", "FAILED", "KILLED", "ODD"][choice]
    if k % 3:
        attempt["hostName"] = f"/rack{k % 2}/host{k % 9}"
    if k % 4 == 0:
        attempt["shuffleFinished"] = begin + 5
        attempt["sortFinished"] = -1 if k % 8 else begin + 7
    attempt["counters"] = {"x": [1, 2, {"y": None}]}
    return attempt


def _generated(path: Path, n_tasks: int, seed: int = 5) -> None:
    """Jobs with every optional field present or absent, all task types, 0-4 attempts."""
    rng = np.random.default_rng(seed)
    written, k = 0, 0
    with open(path, "w") as out:
        while written < n_tasks:
            k += 1
            submit = int(rng.integers(10**12, 2 * 10**12))
            job = {"jobID": f"job_1_{k:05d}", "submitTime": submit}
            for key, value in [
                ("user", f"u{k % 4}"),
                ("jobName", f"name {k}"),
                ("queue", ["a", "root.b", "default", ""][k % 4]),
                ("launchTime", submit + 10),
                ("finishTime", submit + 10**6 if k % 6 else -1),
                ("outcome", ["SUCCESS", "FAILED", "KILLED", "WEIRD"][k % 4]),
                ("jobMapMB", [2048, -1, 0, 512.5][k % 4]),
                ("jobReduceMB", [4096, -1][k % 2]),
            ]:
                if (k + len(key)) % 5:
                    job[key] = value
            for list_key, types in [
                ("mapTasks", ["MAP"]),
                ("reduceTasks", ["REDUCE"]),
                ("otherTasks", ["SETUP", "CLEANUP"]),
            ]:
                if (k + len(list_key)) % 7 == 0:
                    continue
                tasks = []
                for t in range(int(rng.integers(0, 30))):
                    task_type = types[t % len(types)]
                    task_id = f"task_1_{k:05d}_{task_type[0].lower()}_{t:06d}"
                    begin = submit + int(rng.integers(0, 10**6))
                    task = {"taskID": task_id, "taskType": task_type}
                    if t % 3:
                        task["startTime"] = begin
                        task["finishTime"] = begin + 100 if t % 4 else -1
                    if t % 5:
                        task["taskStatus"] = ["SUCCESS", "FAILED", "KILLED", "X"][t % 4]
                    if t % 11:
                        task["attempts"] = [
                            _attempt(rng, task_id, a, begin) for a in range(int(rng.integers(0, 5)))
                        ]
                    tasks.append(task)
                job[list_key] = tasks
                written += len(tasks)
            job["jobProperties"] = {"mapreduce.job.queuename": "x", "n": k}
            out.write(json.dumps(job, indent=2 if k % 3 else None))
            out.write("\n" if k % 4 else " ")


def test_generated_100k_task_trace_agrees(tmp_path):
    path = tmp_path / "rumen.json"
    _generated(path, 100_000)
    _same(path)


def test_reader_options_agree_on_a_generated_trace(tmp_path):
    """The size options take the same path in both readers (10k tasks is enough for that)."""
    path = tmp_path / "rumen.json"
    _generated(path, 10_000)
    _same(path, map_memory_mb=300.0, reduce_memory_mb=700.0, vcores=3.0)


def _job(**changes) -> dict:
    job = {
        "jobID": "job_1_1",
        "submitTime": 1000,
        "mapTasks": [
            {
                "taskID": "task_1_1_m_000000",
                "taskType": "MAP",
                "attempts": [
                    {"attemptID": "attempt_1_1_m_000000_0", "startTime": 1, "finishTime": 5}
                ],
            }
        ],
    }
    job.update(changes)
    return job


@pytest.mark.parametrize(
    "job",
    [
        _job(queue=None),
        _job(submitTime="1000"),
        _job(reduceTasks=None),
        _job(jobMapMB="x"),
        _job(finishTime=float("nan")),
    ],
)
def test_what_the_fast_path_declines_goes_to_the_precise_path(tmp_path, job):
    """A null where absent means a default, a number as a string, NaN: read precisely."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps(job))
    assert read_rumen_tables(path, RumenReader().options()) is None
    try:
        precise = RumenReader().read_precise(path)
    except TraceFormatError as error:
        with pytest.raises(TraceFormatError) as again:
            read_trace(path, format="rumen")
        assert str(again.value) == str(error) and "r.json:1:" in str(error)
    else:
        pd.testing.assert_frame_equal(
            read_trace(path, format="rumen").workload.tasks, precise.workload.tasks
        )


def test_bad_input_still_names_line_and_field(tmp_path):
    bad = _job(jobID="job_1_2")
    bad["mapTasks"][0]["taskType"] = "SHUFFLE"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_job(), indent=2) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(
        TraceFormatError, match=r"r\.json:\d+: job 'job_1_2': mapTasks\[0\]: field 'taskType'"
    ):
        read_trace(path, format="rumen")
    path.write_text(json.dumps(_job(), indent=2) + '\n{"jobID": \n')
    with pytest.raises(TraceFormatError, match=r"r\.json:\d+:\d+: invalid JSON in record 2"):
        read_trace(path, format="rumen")


def test_a_job_larger_than_a_block_is_read_with_larger_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr("whatif.readers.rumen_columns.BLOCK_BYTES", 1 << 11)
    path = tmp_path / "r.json"
    _generated(path, 3000, seed=9)
    _same(path)


def test_preferred_locations_are_kept_by_both_paths(tmp_path):
    """A map's ``preferredLocations`` become ``/rack/host`` entries, fast == precise."""
    job = _job()
    job["mapTasks"][0]["preferredLocations"] = [
        {"layers": ["r1", "h1"]},
        {"layers": ["r2", "h2"]},
    ]
    path = tmp_path / "r.json"
    other = _job(jobID="job_1_2")
    other["mapTasks"][0]["taskID"] = "task_1_2_m_000000"
    other["mapTasks"][0]["attempts"][0]["attemptID"] = "attempt_1_2_m_000000_0"
    path.write_text(json.dumps(job) + "\n" + json.dumps(other))
    _same(path)
    tasks = RumenReader().read(path).workload.tasks
    assert tasks["split_locations"].tolist() == ["/r1/h1,/r2/h2", ""]
