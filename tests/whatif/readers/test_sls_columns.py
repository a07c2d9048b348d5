"""The SLS reader's columnar fast path agrees with the precise path, field by field."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.whatif.readers.agree import assert_same_trace
from whatif import TraceFormatError
from whatif.readers import read_trace
from whatif.readers.sls import SlsReader
from whatif.readers.sls_columns import read_sls_tables

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "sls"


def _same(path: Path, **options) -> None:
    reader = SlsReader(**options)
    assert read_sls_tables(path, memory_mb=reader.memory_mb, vcores=reader.vcores) is not None
    precise = reader.read_precise(path)
    assert_same_trace(reader.read(path), precise)
    # Without the observed schedule (tempo predict): the same workload, none built.
    alone = reader.read_workload(path)
    assert alone.observed is None and alone.notes == precise.notes
    pd.testing.assert_frame_equal(alone.workload.jobs, precise.workload.jobs)
    pd.testing.assert_frame_equal(alone.workload.tasks, precise.workload.tasks)


def test_bundled_sls_trace_agrees():
    _same(DATA / "inputsls.json")


def _generated(path: Path, n_tasks: int, *, timed: bool, seed: int = 3) -> None:
    """Jobs exercising every field the fast path reads: defaults, counts, stages, hosts."""
    rng = np.random.default_rng(seed)
    written = 0
    with open(path, "w") as out:
        k = 0
        while written < n_tasks:
            k += 1
            start = int(rng.integers(0, 10**9))
            tasks = []
            for t in range(int(rng.integers(1, 40))):
                stage = ["map", "reduce", "setup", "cleanup", None][int(rng.integers(0, 5))]
                task = {"container.host": f"/r{t % 3}/n{t % 7}"} if t % 4 else {}
                if stage is not None:
                    task["container.type"] = stage
                begin = start + int(rng.integers(0, 10**6))
                if timed or t % 5:
                    task["container.start.ms"] = begin
                    task["container.end.ms"] = begin + int(rng.integers(0, 10**5))
                else:
                    task["container.duration.ms" if t % 2 else "duration.ms"] = 1234.5
                if t % 3 == 0:
                    task["container.memory-mb"] = int(rng.integers(256, 8192))
                elif t % 3 == 1:
                    task["container.memory"] = 2048
                if t % 6 == 0:
                    task["container.vcores"] = 2
                if t % 7 == 0:
                    task["container.priority"] = int(rng.integers(-5, 30)) + 0.5
                if t % 11 == 0:
                    task["count"] = int(rng.integers(0, 4))
                tasks.append(task)
                written += task.get("count", 1)
            job = {"job.start.ms": start, "job.tasks": tasks, "other": {"x": [1, 2]}}
            if k % 9:
                job["job.id"] = f"job_{k:07d}"
            if k % 4:
                job["job.queue.name"] = ["a", "root.b", "default", "", "root"][k % 5]
            if k % 5:
                job["job.user"] = f"u{k % 13}"
            if k % 2:
                job["job.end.ms"] = start + 10**6
            if k % 7 == 0:
                job["am.memory-mb"] = 512
            if k % 8 == 0:
                job["am.vcores"] = 2
            if k % 10 == 0:
                job["job.count"] = 1
            out.write(json.dumps(job, indent=2 if k % 3 == 0 else None))
            out.write("" if k % 17 == 0 else "\n")


@pytest.mark.parametrize("timed", [True, False])
def test_generated_100k_task_trace_agrees(tmp_path, timed):
    """A 100k-task trace with every optional field present or absent, some objects indented."""
    path = tmp_path / "jobs.json"
    _generated(path, 100_000 if timed else 20_000, timed=timed)
    _same(path)
    if not timed:  # the size options on the smaller trace only
        _same(path, memory_mb=512.0, vcores=2.0)


@pytest.mark.parametrize(
    "text",
    [
        '{"job.id": "j", "job.start.ms": "5", "job.tasks": [{"container.duration.ms": 5}]}',
        '[{"job.id": "j", "job.start.ms": 5, "job.tasks": [{"container.duration.ms": 5}]}]',
        '{"job.id": 7, "job.start.ms": 5, "job.tasks": [{"container.duration.ms": 5}]}',
        '{"job.id": "j", "job.count": 2, "job.start.ms": 5, "job.tasks": [{"duration.ms": 5}]}',
    ],
)
def test_what_the_fast_path_declines_the_precise_path_reads(tmp_path, text):
    """Numbers as strings, arrays, numeric ids and job copies: read as SLS reads them."""
    path = tmp_path / "t.json"
    path.write_text(text)
    assert read_sls_tables(path, memory_mb=1024.0, vcores=1.0) is None
    trace = read_trace(path, format="sls")
    assert trace.workload.n_tasks >= 1


def test_bad_input_still_names_line_and_field(tmp_path):
    """The fast path fails, the precise path names where: line 2, the job, the field."""
    good = json.dumps({"job.id": "a", "job.start.ms": 0, "job.tasks": [{"duration.ms": 1}]})
    bad = json.dumps({"job.id": "b", "job.start.ms": 0, "job.tasks": [{"container.type": "x"}]})
    path = tmp_path / "t.json"
    path.write_text(good + "\n" + bad + "\n")
    with pytest.raises(TraceFormatError, match=r"t\.json:2: job 'b': job\.tasks\[0\]"):
        read_trace(path, format="sls")


def test_a_job_larger_than_a_block_is_read_with_larger_blocks(tmp_path, monkeypatch):
    """Blocks grow when one job object does not fit; jobs already yielded are not repeated."""
    monkeypatch.setattr("whatif.readers.sls_columns.BLOCK_BYTES", 1 << 10)
    small = {"job.id": "a", "job.start.ms": 0, "job.tasks": [{"duration.ms": 1}] * 3}
    large = {"job.id": "b", "job.start.ms": 5, "job.tasks": [{"duration.ms": 2}] * 400}
    path = tmp_path / "t.json"
    text = "\n".join(
        json.dumps(dict(j, **{"job.id": f"{j['job.id']}{k}"}), indent=1)
        for k, j in enumerate([small] * 20 + [large, small])
    )
    path.write_text(text)
    _same(path)
    tables = read_sls_tables(path, memory_mb=1024.0, vcores=1.0)
    assert len(tables.jobs) == 22 and len(tables.tasks) == 21 * 3 + 400
