"""convert_streaming (SLS to native in pieces) and read_window (the last window only)."""

import json
import logging
from pathlib import Path

import pandas as pd
import pytest

from tests.whatif.readers.agree import assert_same_trace
from whatif import TraceFormatError
from whatif.readers import read_trace, write_native
from whatif.readers.stream import convert_streaming, read_window
from whatif.trace import last_window

TWO_TENANT = Path(__file__).resolve().parents[3] / "traces" / "two-tenant"


def _jobs(n: int) -> str:
    return "\n".join(
        json.dumps(
            {
                "job.id": f"j{k}",
                "job.queue.name": f"q{k % 3}",
                "job.start.ms": 1000 * k,
                "job.end.ms": 1000 * k + 900,
                "job.tasks": [
                    {"container.start.ms": 1000 * k + t, "container.end.ms": 1000 * k + 800}
                    for t in range(1 + k % 5)
                ],
            }
        )
        for k in range(n)
    )


def test_pieces_make_the_same_trace_as_a_whole_read(tmp_path, monkeypatch):
    monkeypatch.setattr("whatif.readers.sls_columns.BLOCK_BYTES", 1 << 12)
    monkeypatch.setattr("whatif.readers.sls_columns.PIECE_TASKS", 50)
    source = tmp_path / "jobs.json"
    source.write_text(_jobs(400))
    seen: list[tuple[int, int]] = []
    out = convert_streaming(source, tmp_path / "native", progress=lambda d, t: seen.append((d, t)))
    whole, streamed = read_trace(source), read_trace(out)
    pd.testing.assert_frame_equal(streamed.workload.jobs, whole.workload.jobs)
    pd.testing.assert_frame_equal(streamed.workload.tasks, whole.workload.tasks)
    pd.testing.assert_frame_equal(streamed.observed.attempts, whole.observed.attempts)
    meta = json.loads((out / "trace.json").read_text())
    assert meta["source_format"] == "sls" and meta["tables"]["tasks"]["rows"] == 1200
    assert len(seen) > 3 and seen[-1][0] == seen[-1][1] == source.stat().st_size


def test_untimed_pieces_drop_the_observed_schedule(tmp_path):
    source = tmp_path / "jobs.json"
    text = (
        _jobs(10)
        + "\n"
        + json.dumps({"job.id": "u", "job.start.ms": 5, "job.tasks": [{"duration.ms": 7}]})
    )
    source.write_text(text)
    out = convert_streaming(source, tmp_path / "native")
    trace = read_trace(out)
    assert trace.observed is None and not (out / "attempts.parquet").exists()
    assert trace.workload.n_tasks == read_trace(source).workload.n_tasks


def test_input_only_the_precise_path_reads_is_converted_whole(tmp_path, caplog):
    """The one warning says the file was converted whole in memory (after it was)."""
    source = tmp_path / "jobs.json"
    source.write_text('{"job.id": "j", "job.start.ms": "5", "job.tasks": [{"duration.ms": 5}]}')
    with caplog.at_level(logging.WARNING):
        out = convert_streaming(source, tmp_path / "native")
    assert read_trace(out).workload.jobs["submit_s"].tolist() == [0.005]
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "converted whole in memory" in warnings[0], warnings


def test_truncated_sls_file_gets_one_error_and_no_fallback_warning(tmp_path, caplog):
    """A truncated file: the fast path's decline is internal (debug), the user sees only
    the precise reader's error naming path:line:col; nothing is written."""
    source = tmp_path / "jobs.json"
    source.write_text(_jobs(3)[:-40])
    with (
        caplog.at_level(logging.WARNING),
        pytest.raises(TraceFormatError, match=r"jobs\.json:3:\d+: invalid JSON in record 3"),
    ):
        convert_streaming(source, tmp_path / "native")
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.json"]


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_read_window_of_a_native_trace_is_last_window(tmp_path, kind):
    """Filtering while reading Parquet (or CSV) gives what last_window gives after a full read."""
    native = write_native(read_trace(TWO_TENANT), tmp_path / "t", kind=kind)
    for length in (1.0, 1800.0, 1e9):
        windowed, full = (
            read_window(native, window_s=length),
            last_window(read_trace(native), length),
        )
        pd.testing.assert_frame_equal(windowed.workload.jobs, full.workload.jobs)
        pd.testing.assert_frame_equal(windowed.workload.tasks, full.workload.tasks)
        pd.testing.assert_frame_equal(windowed.observed.jobs, full.observed.jobs)
        pd.testing.assert_frame_equal(windowed.observed.attempts, full.observed.attempts)
    assert 0 < read_window(native, window_s=1800.0).workload.n_jobs < full.workload.n_jobs


def test_read_window_of_another_format_and_a_bad_length(tmp_path):
    source = tmp_path / "jobs.json"
    source.write_text(_jobs(10))
    assert read_window(source, window_s=2.5).workload.jobs["job_id"].tolist() == ["j7", "j8", "j9"]
    with pytest.raises(TraceFormatError, match="window: expected a length > 0"):
        read_window(source, window_s=0.0)


HADOOP = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop"


def test_rumen_pieces_make_the_same_trace_as_a_whole_read(tmp_path, monkeypatch):
    """Rumen streams in pieces of PIECE_TASKS tasks (here jobs of 96: one job a piece)."""
    monkeypatch.setattr("whatif.readers.rumen_columns.BLOCK_BYTES", 1 << 16)
    monkeypatch.setattr("whatif.readers.rumen_columns.PIECE_TASKS", 50)
    source = tmp_path / "rumen.json"
    text = (HADOOP / "rumen" / "2jobs2min-rumen-jh.json").read_text()
    source.write_text(text + text.replace("1369942127770", "1369942127771"))
    seen: list[tuple[int, int]] = []
    out = convert_streaming(source, tmp_path / "native", progress=lambda d, t: seen.append((d, t)))
    meta = json.loads((out / "trace.json").read_text())
    assert meta["source_format"] == "rumen" and meta["tables"]["tasks"]["rows"] == 4 * 96
    assert seen[-1][0] == seen[-1][1] == source.stat().st_size
    assert_same_trace(read_trace(out), read_trace(source))


def test_jhist_directory_streams_file_by_file(tmp_path, monkeypatch):
    monkeypatch.setattr("whatif.readers.jhist_columns.PIECE_TASKS", 1)
    source = tmp_path / "history"
    source.mkdir()
    for file in (HADOOP / "jhist").glob("*.jhist"):
        (source / file.name).write_bytes(file.read_bytes())
    seen: list[tuple[int, int]] = []
    out = convert_streaming(source, tmp_path / "native", progress=lambda d, t: seen.append((d, t)))
    assert len(seen) == 2 and seen[-1][0] == seen[-1][1]
    assert json.loads((out / "trace.json").read_text())["source_format"] == "jhist"
    streamed, whole = read_trace(out), read_trace(source)
    assert_same_trace(streamed, whole)


def test_rumen_only_the_precise_reader_reads_is_converted_whole(tmp_path):
    """A null queue: the fast path declines after nothing is written; the precise reader
    converts it, and bad input still gets its error naming the line."""
    job = {"jobID": "job_1_1", "submitTime": 5, "queue": None, "mapTasks": []}
    source = tmp_path / "r.json"
    source.write_text(json.dumps(job))
    with pytest.raises(TraceFormatError, match=r"r\.json:1: job 'job_1_1': missing field 'queue'"):
        convert_streaming(source, tmp_path / "native", format="rumen")
    assert not (tmp_path / "native").exists()
