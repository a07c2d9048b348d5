"""Format detection over every shared fixture file, queue normalisation, and the reader ABC."""

from pathlib import Path

import pandas as pd
import pytest

from whatif import TraceFormatError
from whatif.readers import (
    READERS,
    TraceReader,
    detect_format,
    normalize_queue,
    read_trace,
    read_workload_trace,
)

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"

#: Every file under ../shared/data that is a trace, with its format.
TRACE_FILES = {
    "hadoop/jhist/teragen-succeeded.jhist": "jhist",
    "hadoop/jhist/sleep-failed.jhist": "jhist",
    "hadoop/sls/inputsls.json": "sls",
    "hadoop/rumen/2jobs2min-rumen-jh.json": "rumen",
    "hadoop/rest/rm-apps.json": "rest",
    "hadoop/rest/jhs-jobs.json": "rest",
    "hadoop/rest/jhs-tasks.json": "rest",
    "hadoop/rest/jhs-task-attempts.json": "rest",
    "swim/FB-2009_samples_24_times_1hr_0.tsv": "swim",
    "swim/FB-2010_samples_24_times_1hr_0.tsv": "swim",
}


def test_every_shared_file_is_detected_correctly():
    """Trace files are detected as their format; every other shared file is 'not a trace'."""
    for path in sorted(p for p in DATA.rglob("*") if p.is_file()):
        name = path.relative_to(DATA).as_posix()
        if name in TRACE_FILES:
            assert detect_format(path) == TRACE_FILES[name], name
        else:
            with pytest.raises(TraceFormatError, match="not a trace"):
                detect_format(path)


@pytest.mark.parametrize("name", sorted(n for n in TRACE_FILES if not n.startswith("swim/FB-2010")))
def test_every_shared_trace_reads(name):
    """Every shared trace file reads with its detected format."""
    assert read_trace(DATA / name).workload.n_jobs > 0


@pytest.mark.parametrize("name", sorted(n for n in TRACE_FILES if not n.startswith("swim/FB-2010")))
def test_every_shared_trace_reads_without_its_observed_schedule(name):
    """`read_workload_trace` gives the same workload and notes, and no observed schedule."""
    whole, alone = read_trace(DATA / name), read_workload_trace(DATA / name)
    assert alone.observed is None and alone.notes == whole.notes
    pd.testing.assert_frame_equal(alone.workload.jobs, whole.workload.jobs)
    pd.testing.assert_frame_equal(alone.workload.tasks, whole.workload.tasks)


@pytest.mark.parametrize(
    ("recorded", "full"),
    [
        ("default", "root.default"),
        ("", "root.default"),
        (None, "root.default"),
        ("etl", "root.etl"),
        ("root.a.b", "root.a.b"),
        ("a.b", "root.a.b"),
        ("root", "root"),
        (" sls_queue_1 ", "root.sls_queue_1"),
    ],
)
def test_normalize_queue_follows_specified_placement(recorded, full):
    """Recorded queue names become full Fair Scheduler paths."""
    assert normalize_queue(recorded) == full


def test_readers_implement_the_abc_with_keyword_options():
    """Every registered reader is a TraceReader named as registered, with keyword-only options."""
    for name, reader in READERS.items():
        assert issubclass(reader, TraceReader) and reader.name == name and reader.description
        assert reader.create(Path("x")) is not None
        assert all(isinstance(o, str) for o in reader.option_names())
