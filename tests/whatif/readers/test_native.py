"""The native trace format: lossless round trip, atomic writes, clear errors."""

import errno
import os
import re
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from whatif import Schedule, Trace, TraceFormatError, Workload
from whatif.readers import detect_format, read_trace, read_workload_trace, write_native


def _trace() -> Trace:
    jobs = pd.DataFrame(
        {
            "job_id": ["j1", "j2"],
            "queue": ["root.a", "root.b.c"],
            "submit_s": [0.1, 1 / 3],
            "deadline_s": [np.nan, 1e9 + 0.123456789],
            "recurring_key": ["", "daily,report"],
            "name": ['quote " and, comma', "x\ny"],
        }
    )
    tasks = pd.DataFrame(
        {
            "job_id": ["j1", "j1", "j2"],
            "task_id": ["t1", "t2", "t3"],
            "stage": ["map", "reduce", "map"],
            "duration_s": [1.0, 2 / 7, 3e-9],
            "memory_mb": [1024.0, 2048.0, 1536.5],
            "vcores": [1, 2, 1],
            "shuffle_finish_s": [np.nan, 5.25, np.nan],
        }
    )
    sched_jobs = pd.DataFrame(
        {
            "job_id": ["j1", "j2"],
            "queue": ["root.a", "root.b.c"],
            "submit_s": [0.1, 1 / 3],
            "finish_s": [9.0, np.nan],
            "state": ["SUCCEEDED", "RUNNING"],
        }
    )
    attempts = pd.DataFrame(
        {
            "job_id": ["j1", "j1", "j1"],
            "task_id": ["t1", "t1", "t2"],
            "attempt_id": ["a0", "a1", "a2"],
            "stage": ["map", "map", "reduce"],
            "start_s": [1.0, 2.0, 3.0],
            "finish_s": [1.5, 4.0, np.nan],
            "state": ["KILLED", "SUCCEEDED", "RUNNING"],
            "preempted": [True, False, False],
            "node": ["n1", "", "n2"],
        }
    )
    return Trace(
        workload=Workload(jobs=jobs, tasks=tasks),
        observed=Schedule(jobs=sched_jobs, attempts=attempts),
        format="jhist",
        notes=("made for a test",),
    )


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_native_round_trip_is_lossless(tmp_path, kind):
    """Writing then reading a native trace gives back identical tables, format and notes."""
    original = _trace()
    path = write_native(original, tmp_path / "t", kind=kind)
    assert sorted(p.name for p in path.iterdir()) == sorted(
        ["trace.json"] + [f"{n}.{kind}" for n in ("jobs", "tasks", "schedule_jobs", "attempts")]
    )
    back = read_trace(path)
    pd.testing.assert_frame_equal(back.workload.jobs, original.workload.jobs)
    pd.testing.assert_frame_equal(back.workload.tasks, original.workload.tasks)
    pd.testing.assert_frame_equal(back.observed.jobs, original.observed.jobs)
    pd.testing.assert_frame_equal(back.observed.attempts, original.observed.attempts)
    assert back.format == "jhist" and back.notes == ("made for a test",)
    assert detect_format(path) == "native"
    alone = read_workload_trace(path)  # its schedule's tables not read
    assert alone.observed is None and alone.notes == back.notes
    pd.testing.assert_frame_equal(alone.workload.tasks, original.workload.tasks)


def test_native_without_schedule_writes_two_tables(tmp_path):
    """A trace without an observed schedule has only jobs and tasks tables."""
    trace = Trace(workload=_trace().workload)
    path = write_native(trace, tmp_path / "t")
    assert {p.name for p in path.iterdir()} == {"trace.json", "jobs.parquet", "tasks.parquet"}
    assert read_trace(path).observed is None


def test_failed_write_leaves_nothing_behind(tmp_path):
    """A write that fails half-way leaves no directory, temporary, final or the parents it
    made, and its error names the target, not the temporary directory."""
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    target = tmp_path / "new" / "deeper" / "t"
    with (
        mock.patch("whatif.readers.native._TableWriter.append", side_effect=full),
        pytest.raises(TraceFormatError) as caught,
    ):
        write_native(_trace(), target)
    assert str(caught.value) == f"{target}: cannot be written: No space left on device"
    assert list(tmp_path.iterdir()) == []


def test_unwritable_target_is_named_as_given(tmp_path, monkeypatch):
    """A directory where nothing can be created (as /proc, even for root) fails naming the
    target the caller gave, not the temporary directory beside it; nothing is left."""
    real = Path.mkdir

    def mkdir(self, *args, **kwargs):
        if self.name.startswith(".nope.tmp-"):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    target = tmp_path / "nope"
    with pytest.raises(TraceFormatError) as caught:
        write_native(_trace(), target)
    assert str(caught.value) == f"{target}: cannot be written: No such file or directory"
    assert list(tmp_path.iterdir()) == []


def test_existing_target_needs_overwrite(tmp_path):
    """An existing trace is replaced only with overwrite=True (the error says so, and names
    the CLI's --force), and other paths never."""
    path = write_native(_trace(), tmp_path / "t")
    with pytest.raises(TraceFormatError) as caught:
        write_native(_trace(), path)
    assert str(caught.value) == (
        f"{path}: already exists; pass overwrite=True to replace it (tempo: --force)"
    )
    write_native(Trace(workload=_trace().workload), path, overwrite=True)
    assert read_trace(path).observed is None
    assert [p.name for p in tmp_path.iterdir()] == ["t"]
    (tmp_path / "other").mkdir()
    with pytest.raises(TraceFormatError, match="not a native trace"):
        write_native(_trace(), tmp_path / "other", overwrite=True)


def test_truncated_table_is_reported(tmp_path):
    """A CSV table shorter than trace.json says is an error naming the file."""
    path = write_native(_trace(), tmp_path / "t", kind="csv")
    lines = (path / "tasks.csv").read_text().splitlines()
    (path / "tasks.csv").write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(TraceFormatError, match=r"tasks\.csv: has 2 rows, trace\.json says 3"):
        read_trace(path)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("inf,20", r"tasks\.csv:2: column 'stage_index': expected a whole number, got 'inf'"),
        ("1,abc", r"tasks\.csv:2: column 'priority': expected a whole number, got 'abc'"),
    ],
)
def test_a_value_that_does_not_fit_its_column_is_one_error_without_warnings(
    tmp_path, written, message
):
    """A cell its column's dtype cannot hold ("inf" in an int64 column) is an error naming
    the file, line, column and value (pandas' own message names none of them), with no
    numpy cast warning before it (the fuzzer saw "invalid value encountered in cast")."""
    path = write_native(_trace(), tmp_path / "t", kind="csv")
    text = (path / "tasks.csv").read_text()
    (path / "tasks.csv").write_text(
        text.replace("map,1.0,1024.0,1.0,1,20", f"map,1.0,1024.0,1.0,{written}")
    )
    with pytest.raises(TraceFormatError, match=message):
        read_trace(path)


def test_a_nan_or_a_word_in_a_number_column_names_its_line(tmp_path):
    """'nan' or 'abc' as a task's duration_s: the line, column and value, not pandas'
    "cannot safely convert passed user dtype of float64"."""
    path = write_native(_trace(), tmp_path / "t", kind="csv")
    lines = (path / "tasks.csv").read_text().splitlines()
    header = lines[0].split(",")
    at = header.index("duration_s")
    for bad in ("nan", "abc"):
        row = lines[1].split(",")
        row[at] = bad
        (path / "tasks.csv").write_text("\n".join([lines[0], ",".join(row), *lines[2:]]) + "\n")
        with pytest.raises(TraceFormatError) as caught:
            read_trace(path)
        assert str(caught.value).endswith(
            f"tasks.csv:2: column 'duration_s': expected a number (empty when missing), got '{bad}'"
        )


def test_bad_trace_json_is_reported(tmp_path):
    """A trace.json of another format or version is rejected naming the file."""
    path = write_native(_trace(), tmp_path / "t")
    (path / "trace.json").write_text('{"format": "something-else"}')
    with pytest.raises(TraceFormatError, match=r"trace\.json: expected 'format'"):
        read_trace(path, format="native")


@pytest.mark.parametrize(
    ("cut", "problem"),
    [
        (
            lambda t: t[: t.index('"kind"') + 3],
            "a string starting here has no closing '\"': the file ends first (truncated?)",
        ),
        (lambda t: t + "x", "expected nothing after the JSON value (one document)"),
        (lambda t: "", "the file is empty; expected a JSON value"),
    ],
    ids=["truncated", "extra data", "empty"],
)
def test_invalid_trace_json_names_its_line_and_column(tmp_path, cut, problem):
    """A damaged trace.json reads 'trace.json:LINE:COL: invalid JSON: <what>' (it gave the
    stdlib's 'line L column C (char N)' in parentheses, cut off for a string)."""
    path = write_native(_trace(), tmp_path / "t")
    meta = path / "trace.json"
    meta.write_text(cut(meta.read_text()))
    with pytest.raises(TraceFormatError) as caught:
        read_trace(path, format="native")
    assert re.fullmatch(
        rf"{re.escape(str(meta))}:\d+:\d+: invalid JSON: {re.escape(problem)}", str(caught.value)
    ), str(caught.value)


def test_missing_path_and_unknown_format_are_one_line_errors(tmp_path):
    """A missing path or an unknown format name raise TraceFormatError naming the path."""
    with pytest.raises(TraceFormatError, match="no such file"):
        read_trace(tmp_path / "nope")
    (tmp_path / "x.txt").write_text("hello\n")
    with pytest.raises(TraceFormatError, match=r"x\.txt: not a trace"):
        read_trace(tmp_path / "x.txt")
    with pytest.raises(TraceFormatError, match="unknown trace format 'bogus'"):
        read_trace(tmp_path / "x.txt", format="bogus")
