"""The compiled SLS scanner gives the batches Arrow's reader gives, and declines the rest."""

import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tests.whatif.readers.test_sls_columns import DATA, _generated, _same
from whatif import TraceFormatError
from whatif.readers import read_trace
from whatif.readers.arrow_json import Declined, iter_batches
from whatif.readers.sls_columns import BLOCK_BYTES, SCHEMA, read_sls_tables
from whatif.readers.sls_scan import scan_blocks, segments


def _arrow(path: Path) -> pa.Table:
    return pa.Table.from_batches(list(iter_batches(path, SCHEMA, block_bytes=BLOCK_BYTES)))


def _column(values) -> pa.Array:
    """A scanned column as Arrow's reader gives it: numbers' NaN (absent) as null."""
    if isinstance(values, np.ndarray):
        return pa.array(values, type=pa.float64(), from_pandas=True)
    return values


def _batch(block) -> pa.RecordBatch:
    """A scanned block (jobs' fields, tasks' fields, tasks a job) as a batch of `SCHEMA`."""
    jobs, tasks, lengths = block
    task_type = SCHEMA.field("job.tasks").type.value_type
    flat = pa.StructArray.from_arrays(
        [_column(tasks[f.name]) for f in task_type], fields=list(task_type)
    )
    offsets = pa.array(np.r_[0, np.cumsum(lengths)].astype(np.int32))
    columns = {name: _column(values) for name, values in jobs.items()}
    columns["job.tasks"] = pa.ListArray.from_arrays(offsets, flat)
    return pa.RecordBatch.from_arrays([columns[n] for n in SCHEMA.names], schema=SCHEMA)


def _scanned(path: Path, **options) -> pa.Table:
    blocks = scan_blocks(path, **options)
    return pa.Table.from_batches([_batch(b) for b in blocks], schema=SCHEMA)


def _assert_same_columns(path: Path, **options) -> None:
    """Every field of every job and task as Arrow's reader parses it."""
    assert _scanned(path, **options).combine_chunks().equals(_arrow(path).combine_chunks())


@pytest.fixture
def scanning(monkeypatch):
    """The SLS fast path reads every file with the scanner (not only large ones)."""
    monkeypatch.setattr("whatif.readers.sls_columns.SCAN_MIN_BYTES", 0)


def test_bundled_trace_scans_as_arrow_parses_it():
    _assert_same_columns(DATA / "inputsls.json")


@pytest.mark.parametrize("block_bytes", [1 << 10, 1 << 14, 1 << 24])
@pytest.mark.parametrize("threads", [1, 2])
def test_generated_trace_scans_as_arrow_parses_it(tmp_path, block_bytes, threads):
    """Pieces cut between objects (indented or not, some without a newline between them)."""
    path = tmp_path / "jobs.json"
    _generated(path, 20_000, timed=False)
    _assert_same_columns(path, block_bytes=block_bytes, threads=threads)


@pytest.mark.parametrize("timed", [True, False])
def test_generated_100k_task_trace_agrees_when_scanned(tmp_path, scanning, timed):
    """The reader's tables through the scanner agree with the precise path's, field by field."""
    path = tmp_path / "jobs.json"
    _generated(path, 100_000 if timed else 20_000, timed=timed)
    _same(path)


def test_bundled_trace_agrees_when_scanned(scanning):
    _same(DATA / "inputsls.json")


def test_pieces_tile_the_file_at_object_starts(tmp_path):
    path = tmp_path / "jobs.json"
    _generated(path, 5_000, timed=True)
    data = path.read_bytes()
    pieces = segments(path, len(data), 4096)
    assert len(pieces) > 10 and pieces[0][0] == 0 and pieces[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:], strict=False))
    assert all(data[start : start + 1] == b"{" for start, _ in pieces)


def test_numbers_convert_exactly(tmp_path):
    """Integers and decimals within Clinger's fast path: the float Python's parser gives."""
    rng = random.Random(5)
    texts = ["0", "-0", "7", "-12", "123456789012345", "0.1", "2.5e3", "1E-5", "-3.25E+2"]
    texts += [f"{rng.randint(0, 10**9)}.{rng.randint(0, 10**5):05d}" for _ in range(200)]
    texts += [f"{rng.randint(1, 999)}e{rng.randint(-20, 20)}" for _ in range(200)]
    tasks = ", ".join(f'{{"duration.ms": 1, "container.priority": {t}}}' for t in texts)
    path = tmp_path / "t.json"
    path.write_text(f'{{"job.id": "j", "job.start.ms": 0, "job.tasks": [{tasks}]}}')
    flat = _scanned(path).column("job.tasks").combine_chunks().flatten()
    assert flat.field("container.priority").to_pylist() == [float(t) for t in texts]


@pytest.mark.parametrize(
    "text",
    [
        '{"job.id": "j\\u0041", "job.start.ms": 5, "job.tasks": [{"duration.ms": 5}]}',
        '{"job.id": "jé", "job.start.ms": 5, "job.tasks": [{"duration.ms": 5}]}',
        '{"job.id": "j", "job.start.ms": 5e400, "job.tasks": [{"duration.ms": 5}]}',
        '{"job.id": "j", "job.start.ms": 12345678901234567, "job.tasks": [{"duration.ms": 5}]}',
        '{"job.id": "j", "job.start.ms": 1.5e30, "job.tasks": [{"duration.ms": 5}]}',
        '{"job.id": "j", "job.start.ms": 5, "job.start.ms": 6, "job.tasks": [{"duration.ms": 5}]}',
        '{"job.id": "j", "job.start.ms": 5, "job.tasks": [{"duration.ms": 5, "count": true}]}',
        '{"job.id": "j", "job.start.ms": 05, "job.tasks": [{"duration.ms": 5}]}',
        '{"job.id": "j", "job.start.ms": 5, "job.tasks": [{"duration.ms": 5}]',
        '{"job.id": "j", "job.start.ms": 5, "job.tasks": [{"duration.ms": 5}]}\n{"job.id"',
        '{"job.id": "j", "job.start.ms": 5, "job.tasks": [{"duration.ms": 5},]}',
        '{"job.id": "j", "job.start.ms": 5, "job.tasks": []}',
        '{"job.id": "j", "job.start.ms": 5}',
        '{"job.id": "j", "job.start.ms": 5, "job.tasks": [{"duration.ms": 5}]} [1]',
        '{"job.id": "j", "x": [[[' + "[" * 300 + "]" * 303 + ', "job.tasks": [{"duration.ms": 5}]}',
    ],
)
def test_what_the_scanner_declines(tmp_path, text):
    """Escapes, non-ASCII, numbers it cannot convert exactly, repeats, wrong types, invalid
    or truncated JSON: declined, and the reader then reads as before (Arrow, else precise)."""
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(Declined):
        _scanned(path)


def test_a_declined_scan_falls_back_to_arrow(tmp_path, scanning):
    """Arrow reads what the scanner declines (an escaped id): the same tables as precisely."""
    path = tmp_path / "t.json"
    jobs = [
        {"job.id": f"j\u00e9{k}", "job.start.ms": k, "job.tasks": [{"duration.ms": 5 + k}]}
        for k in range(3)
    ]
    path.write_text("\n".join(json.dumps(j) for j in jobs))
    assert read_sls_tables(path, memory_mb=1024.0, vcores=1.0) is not None
    _same(path)


def test_skipped_fields_may_hold_anything_valid(tmp_path):
    """Fields the reader does not use: nested values, escapes, literals, all validated."""
    path = tmp_path / "t.json"
    job = {
        "job.id": "j",
        "job.start.ms": 1,
        "extra": {"a": [1, -2.5e-3, True, False, None, 'x\\"y\u00e9'], "b": {}},
        "job.tasks": [{"duration.ms": 5, "more": [[], {"k": "v"}]}],
    }
    path.write_text(json.dumps(job, ensure_ascii=True) + "\n" + json.dumps(job, indent=3))
    _assert_same_columns(path)
    assert np.isnan(_scanned(path).column("job.count").to_numpy(zero_copy_only=False)).all()


def test_a_cold_cache_is_announced(monkeypatch, caplog):
    """The first scan after an install compiles for about a minute: said once, as a warning."""
    monkeypatch.setattr("whatif.readers.sls_scan.cache_is_warm", lambda: False)
    _scanned(DATA / "inputsls.json")
    assert "compiling the SLS scanner" in caplog.text


def test_bad_input_scanned_still_names_line_and_field(tmp_path, scanning):
    """The scanner and Arrow's reader decline, the precise path names where: line 2."""
    good = json.dumps({"job.id": "a", "job.start.ms": 0, "job.tasks": [{"duration.ms": 1}]})
    bad = json.dumps({"job.id": "b", "job.start.ms": 0, "job.tasks": [{"container.type": "x"}]})
    path = tmp_path / "t.json"
    path.write_text(good + "\n" + bad + "\n" + good.replace('"a"', '"c"') + "\n{")
    with pytest.raises(TraceFormatError, match=r"t\.json:2: job 'b': job\.tasks\[0\]"):
        read_trace(path, format="sls")
