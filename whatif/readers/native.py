"""tempo's native trace format: a directory of columnar tables plus ``trace.json``.

Layout of a native trace directory::

    trace.json              format version, kind (parquet|csv), source format, notes,
                            and each table's file, row count and column dtypes
    jobs.parquet|csv        the Workload's job table (``whatif.workload.JOB_COLUMNS``)
    tasks.parquet|csv       the Workload's task table (``whatif.workload.TASK_COLUMNS``)
    schedule_jobs.*         the observed Schedule's job table, when the trace has one
    attempts.*              the observed Schedule's attempts, when the trace has one

Parquet files are zstd-compressed; CSV files are plain UTF-8 with a header row,
floats written at full precision and NaN as an empty field. Both kinds round-trip
losslessly (column dtypes are recorded in ``trace.json``, so CSV reads them back
exactly). Writing is atomic: the directory is built beside the target under a
temporary name and renamed into place, so a failed write leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import shutil
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from whatif.errors import OutputWriteError, TraceFormatError, WhatifError
from whatif.readers.base import TraceReader, not_utf8
from whatif.readers.json_stream import json_problem
from whatif.schedule import Schedule
from whatif.trace import Trace
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: Value of ``trace.json``'s ``format`` key.
NATIVE_FORMAT_NAME = "tempo-native-trace"
#: Version of the layout written by `write_native`.
NATIVE_VERSION = 1
#: Table name -> where it comes from in a Trace.
TABLES = ("jobs", "tasks", "schedule_jobs", "attempts")

_KINDS = ("parquet", "csv")


def _dtype_name(dtype: object) -> str:
    """The dtype label stored in ``trace.json``: string, float64, int64 or bool."""
    if isinstance(dtype, pd.StringDtype) or str(dtype) in ("str", "string", "object"):
        return "string"
    name = str(dtype)
    if name.startswith(("float",)):
        return "float64"
    if name.startswith(("int", "uint", "Int")):
        return "int64"
    if name == "bool":
        return "bool"
    return "string"


def _tables(trace: Trace) -> dict[str, pd.DataFrame]:
    tables = {"jobs": trace.workload.jobs, "tasks": trace.workload.tasks}
    if trace.observed is not None:
        tables["schedule_jobs"] = trace.observed.jobs
        tables["attempts"] = trace.observed.attempts
    return tables


def write_native(
    trace: Trace,
    path: str | os.PathLike[str],
    *,
    kind: Literal["parquet", "csv"] = "parquet",
    overwrite: bool = False,
) -> Path:
    """Write `trace` as a native trace directory at `path` and return that path.

    Parameters
    ----------
    trace : Trace
        What to write; its workload, observed schedule (if any), format and notes.
    path : path-like
        The directory to create.
    kind : {"parquet", "csv"}
        File kind of the tables.
    overwrite : bool
        Replace an existing native trace at `path` (otherwise an existing path is an
        error). A path that exists but is not a native trace is never replaced.
    """
    return write_native_stream([trace], path, kind=kind, overwrite=overwrite)


def write_native_stream(
    traces: Iterable[Trace],
    path: str | os.PathLike[str],
    *,
    kind: Literal["parquet", "csv"] = "parquet",
    overwrite: bool = False,
) -> Path:
    """Write consecutive pieces of one trace (e.g. a reader's blocks) as one native trace.

    Each piece's tables are appended as they come (Parquet row groups, CSV rows), so
    memory holds one piece at a time. The observed schedule is kept only if every
    piece has one. Format and notes are the first piece's (plus later new notes).
    Reading the result validates the whole trace (ids unique across pieces).
    """
    target = Path(path)
    _check_target(target, kind, overwrite)
    made = [p for p in target.parents if not p.exists()]  # deepest first, removed on failure
    staging = target.parent / f".{target.name}.tmp-{uuid.uuid4().hex[:12]}"
    writers: dict[str, _TableWriter] = {}
    try:
        with _writing(target):
            target.parent.mkdir(parents=True, exist_ok=True)
            staging.mkdir()
        source_format, notes, observed, pieces = "", [], True, 0
        for trace in traces:
            if pieces == 0:
                source_format = trace.format
            notes += [n for n in trace.notes if n not in notes]
            observed &= trace.observed is not None
            pieces += 1
            with _writing(target):
                for name, frame in _tables(trace).items():
                    if name not in writers:
                        writers[name] = _TableWriter(staging / f"{name}.{kind}", kind, frame)
                    writers[name].append(frame)
        if pieces == 0:
            raise TraceFormatError(f"{target}: nothing to write (no trace pieces)")
        meta: dict[str, object] = {
            "format": NATIVE_FORMAT_NAME,
            "version": NATIVE_VERSION,
            "kind": kind,
            "source_format": source_format,
            "notes": notes,
        }
        with _writing(target):
            _finish(staging, writers, meta, observed=observed)
            _replace_dir(staging, target)
    except BaseException:
        for writer in writers.values():
            with contextlib.suppress(OSError):  # the error being raised says what failed
                writer.close()
        shutil.rmtree(staging, ignore_errors=True)
        for directory in made:  # the parents this write created, if still empty
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise
    logger.info("wrote native %s trace %s", kind, target)
    return target


def _check_target(target: Path, kind: str, overwrite: bool) -> None:
    """Refuse an unknown `kind`, and an existing `target` unless `overwrite` and it is a
    native trace."""
    if kind not in _KINDS:
        raise TraceFormatError(f"{target}: native kind must be 'parquet' or 'csv', got {kind!r}")
    if target.exists():
        if not overwrite:
            raise TraceFormatError(
                f"{target}: already exists; pass overwrite=True to replace it (tempo: --force)"
            )
        if not (target.is_dir() and (target / "trace.json").is_file()):
            raise TraceFormatError(f"{target}: exists and is not a native trace; not replacing it")


def _finish(
    staging: Path, writers: dict[str, _TableWriter], meta: dict[str, object], *, observed: bool
) -> None:
    """Close the tables (dropping the observed schedule's unless `observed`) and write
    ``trace.json`` (`meta` and the tables' files, rows and columns) into `staging`."""
    tables: dict[str, object] = {}
    for name, writer in writers.items():
        writer.close()
        if not observed and name in ("schedule_jobs", "attempts"):
            writer.file.unlink()
            continue
        tables[name] = {"file": writer.file.name, "rows": writer.rows, "columns": writer.columns}
    text = json.dumps({**meta, "tables": tables}, indent=2) + "\n"
    (staging / "trace.json").write_text(text, encoding="utf-8")


class NativeWriteError(TraceFormatError, OutputWriteError):
    """A native trace could not be written: `path` is the target as the caller gave it,
    not the temporary directory it is built in. Nothing of the write is left behind."""

    def __init__(self, path: Path, reason: str) -> None:
        OutputWriteError.__init__(self, f"{path}: cannot be written: {reason}", path, reason)


@contextlib.contextmanager
def _writing(target: Path) -> Iterator[None]:
    """Turn a file-system error while writing `target` (a full disk, a read-only or special
    directory) into a `NativeWriteError` naming `target`, as the caller gave it, not the
    temporary directory it is built in, and the OS's reason: pyarrow's ``Error writing
    bytes to file. Detail: [errno 28] ...`` is ``No space left on device``."""
    try:
        yield
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else error.strerror
        reason = reason or " ".join(str(error).split()) or type(error).__name__
        raise NativeWriteError(target, reason) from error


class _TableWriter:
    """Appends frames of one table to a Parquet (row groups) or CSV file, fsynced on close."""

    def __init__(self, file: Path, kind: str, first: pd.DataFrame) -> None:
        self.file, self.kind, self.rows = file, kind, 0
        self.columns = {str(c): _dtype_name(first[c].dtype) for c in first.columns}
        self._parquet: pq.ParquetWriter | None = None
        self._closed = False

    def append(self, frame: pd.DataFrame) -> None:
        if list(frame.columns) != list(self.columns):
            raise TraceFormatError(f"{self.file}: a piece has other columns than the first")
        if self.kind == "parquet":
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self._parquet is None:
                self._parquet = pq.ParquetWriter(self.file, table.schema, compression="zstd")
            self._parquet.write_table(table.cast(self._parquet.schema))
        else:
            frame.to_csv(self.file, index=False, mode="a", header=self.rows == 0)
        self.rows += len(frame)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._parquet is not None:
            self._parquet.close()
        if self.file.exists():
            with open(self.file, "rb") as handle:
                os.fsync(handle.fileno())


def _replace_dir(staging: Path, target: Path) -> None:
    """Rename `staging` to `target`, swapping out an existing `target` last."""
    if not target.exists():
        staging.rename(target)
        return
    old = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:12]}"
    target.rename(old)
    try:
        staging.rename(target)
    except BaseException:
        old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)


def read_native(
    path: str | os.PathLike[str],
    *,
    window_s: float | None = None,
    since_s: float | None = None,
    observed: bool = True,
) -> Trace:
    """Read a native trace directory written by `write_native`; without `observed`, its
    observed schedule's tables are not read.

    Parquet tables are memory-mapped. With `window_s`, only the jobs submitted in the
    last `window_s` seconds of the trace (by submission time, as
    `whatif.trace.last_window` picks them) are read, with their tasks and attempts: the
    filter is applied while Parquet is read, so the rest of the trace never becomes
    rows in memory. With `since_s`, every job is read but only the tasks of the jobs
    submitted at or after `since_s` and the attempts of those jobs or that finished at or
    after it (or never): all that QS metrics over a window starting at `since_s` look at
    (``tempo qs --window``), filtered the same way. The first attempts of each stage are
    kept too, so that stages first appear in the same order as in the whole schedule
    (`whatif.metrics.jobs.critical_path` breaks ties in that order).
    """
    root = Path(path)
    meta_file, meta, kind, tables_meta = _metadata(root)
    frames: dict[str, pd.DataFrame] = {}
    job_ids: pa.Array | None = None
    firsts = {}
    if since_s is not None and "attempts" in tables_meta:
        firsts = _first_starts(root, tables_meta["attempts"], kind)
    names = [n for n in tables_meta if observed or n not in ("schedule_jobs", "attempts")]
    for name in sorted(names, key=lambda n: n != "jobs"):  # jobs first: they pick the window
        keep = None if job_ids is None else _row_filter(name, job_ids, since_s, firsts)
        frame = _read_table(root, name, tables_meta[name], kind, keep)
        if name == "jobs" and window_s is not None:
            frame = _last_window(frame, window_s, root)
            job_ids = pa.array(frame["job_id"].array, type=pa.large_string(), from_pandas=True)
        elif name == "jobs" and since_s is not None:
            submit = pd.to_numeric(frame["submit_s"], errors="coerce").to_numpy(dtype=float)
            recent = frame["job_id"][submit >= since_s]
            job_ids = pa.array(recent.array, type=pa.large_string(), from_pandas=True)
        frames[name] = frame
    notes = meta.get("notes", [])
    try:
        workload = Workload(jobs=frames["jobs"], tasks=frames["tasks"])
        schedule = None
        if "schedule_jobs" in frames and "attempts" in frames:
            schedule = Schedule(jobs=frames["schedule_jobs"], attempts=frames["attempts"])
    except WhatifError as error:
        raise TraceFormatError(f"{root}: {error}") from error
    return Trace(
        workload=workload,
        observed=schedule,
        source=root,
        format=str(meta.get("source_format") or "native"),
        notes=tuple(str(n) for n in notes),
    )


def read_native_times(path: str | os.PathLike[str]) -> np.ndarray | None:
    """Every time of a native trace's observed schedule (its jobs' ``submit_s``, ``launch_s``,
    ``finish_s`` and its attempts' ``start_s``, ``finish_s``), read without the other
    columns; None when the trace records no observed schedule.

    What ``whatif.metrics.Window.covering`` takes of the schedule, so that a window can be
    placed before the rows it needs are read.
    """
    root = Path(path)
    _, _, kind, tables_meta = _metadata(root)
    wanted = {
        "schedule_jobs": ["submit_s", "launch_s", "finish_s"],
        "attempts": ["start_s", "finish_s"],
    }
    if not all(name in tables_meta for name in wanted):
        return None
    times = []
    for name, columns in wanted.items():
        frame = _read_table(root, name, tables_meta[name], kind, columns=columns)
        times.append(frame.to_numpy(dtype=float).ravel())
    return np.concatenate(times)


def _metadata(root: Path) -> tuple[Path, dict[str, Any], str, dict[str, Any]]:
    """``trace.json`` checked: its path, content, kind and table list."""
    meta_file = root / "trace.json"
    if not meta_file.is_file():
        raise TraceFormatError(f"{root}: not a native trace directory (no trace.json)")
    try:
        text = meta_file.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise not_utf8(meta_file, error.reason) from None
    except OSError as error:
        raise TraceFormatError(f"{meta_file}: cannot read ({error.strerror or error})") from None
    try:
        meta = json.loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError, a huge int
        line, col, problem = json_problem(text, whole=True)
        raise TraceFormatError(f"{meta_file}:{line}:{col}: invalid JSON: {problem}") from None
    if not isinstance(meta, dict) or meta.get("format") != NATIVE_FORMAT_NAME:
        raise TraceFormatError(f"{meta_file}: expected 'format': {NATIVE_FORMAT_NAME!r}")
    if meta.get("version") != NATIVE_VERSION:
        raise TraceFormatError(
            f"{meta_file}: unsupported native version {meta.get('version')!r} (expected {NATIVE_VERSION})"
        )
    kind = meta.get("kind")
    tables_meta = meta.get("tables")
    if kind not in _KINDS or not isinstance(tables_meta, dict):
        raise TraceFormatError(f"{meta_file}: expected 'kind' parquet|csv and a 'tables' object")
    for required in ("jobs", "tasks"):
        if required not in tables_meta:
            raise TraceFormatError(f"{meta_file}: table {required!r} is not listed")
    return meta_file, meta, kind, tables_meta


#: Which rows of a table to keep: a boolean mask of an Arrow batch or table.
RowFilter = Callable[[pa.RecordBatch | pa.Table], pa.Array]


def _first_starts(root: Path, spec: object, kind: str) -> dict[str, float]:
    """Each stage's earliest attempt start, from the attempts' two columns alone."""
    frame = _read_table(root, "attempts", spec, kind, columns=["stage", "start_s"])
    firsts = frame.groupby("stage", sort=False)["start_s"].min()
    return {str(stage): float(start) for stage, start in firsts.items()}


def _row_filter(
    name: str, job_ids: pa.Array, since_s: float | None, firsts: dict[str, float]
) -> RowFilter | None:
    """The rows of table `name` to read: those of `job_ids`' jobs; with `since_s` every job
    row, and also the attempts finished at or after `since_s` or not at all, and those that
    start a stage (`firsts`: each stage's earliest start)."""
    if since_s is not None and name in ("jobs", "schedule_jobs"):
        return None

    def of_jobs(batch: pa.RecordBatch | pa.Table) -> pa.Array:
        return pc.is_in(batch.column("job_id"), value_set=job_ids)

    if since_s is None or name != "attempts":
        return of_jobs

    def recent(batch: pa.RecordBatch | pa.Table) -> pa.Array:
        finish = batch.column("finish_s")
        late = pc.fill_null(
            pc.or_kleene(pc.greater_equal(finish, since_s), pc.is_nan(finish)), True
        )
        keep = pc.or_(of_jobs(batch), late)
        stage, start = batch.column("stage"), batch.column("start_s")
        for name, first in firsts.items():
            opens = pc.and_(pc.equal(stage, name), pc.equal(start, first))
            keep = pc.or_(keep, pc.fill_null(opens, False))
        return keep

    return recent


def _read_rows_of(file: Path, keep: RowFilter) -> pd.DataFrame:
    """The rows of a Parquet table that `keep` selects, filtered batch by batch
    (memory: one batch plus the rows kept)."""
    parquet = pq.ParquetFile(file, memory_map=True)
    kept = [batch.filter(keep(batch)) for batch in parquet.iter_batches(batch_size=1 << 16)]
    table = pa.Table.from_batches(kept, schema=parquet.schema_arrow)
    result: pd.DataFrame = table.to_pandas()
    return result


def _last_window(jobs: pd.DataFrame, window_s: float, root: Path) -> pd.DataFrame:
    if not window_s > 0:
        raise TraceFormatError(f"{root}: window: expected a length > 0 seconds, got {window_s!r}")
    submit = pd.to_numeric(jobs["submit_s"], errors="coerce").to_numpy(dtype=float)
    if len(submit) == 0:
        return jobs
    result: pd.DataFrame = jobs[submit >= np.nanmax(submit) - window_s]
    return result


def _read_table(
    root: Path,
    name: str,
    spec: object,
    kind: str,
    keep: RowFilter | None = None,
    *,
    columns: list[str] | None = None,
) -> pd.DataFrame:
    """Table `name` (its rows `keep` selects, or all), or only its `columns` (all rows)."""
    if not isinstance(spec, dict) or not isinstance(spec.get("columns"), dict):
        raise TraceFormatError(f"{root / 'trace.json'}: table {name!r} lacks its column list")
    file = root / str(spec.get("file", f"{name}.{kind}"))
    listed: dict[str, str] = spec["columns"]
    if not file.is_file():
        raise TraceFormatError(f"{file}: missing (listed in trace.json)")
    if columns is not None and (absent := [c for c in columns if c not in listed]):
        raise TraceFormatError(f"{file}: missing column(s) {', '.join(absent)}")
    keep = keep if "job_id" in listed else None
    try:
        if kind == "parquet" and keep is not None:
            frame = _read_rows_of(file, keep)
        elif kind == "parquet":
            frame = pq.read_table(file, columns=columns, memory_map=True).to_pandas()
        else:
            frame = _read_csv(file, listed)
            if keep is not None:
                mask = keep(pa.Table.from_pandas(frame, preserve_index=False))
                frame = frame[mask.to_numpy(zero_copy_only=False)].reset_index(drop=True)
    except (OSError, ValueError, TypeError, KeyError, OverflowError, pa.ArrowException) as error:
        detail = " ".join(str(error).split())  # one line, whatever the library wrote
        raise TraceFormatError(f"{file}: cannot read {kind} table ({detail})") from error
    wanted = list(listed) if columns is None else columns
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise TraceFormatError(f"{file}: missing column(s) {', '.join(missing)}")
    if "rows" in spec and spec["rows"] != len(frame) and keep is None:
        raise TraceFormatError(
            f"{file}: has {len(frame)} rows, trace.json says {spec['rows']} (truncated?)"
        )
    return frame[wanted]


def _read_csv(file: Path, columns: dict[str, str]) -> pd.DataFrame:
    """Read a CSV table with the dtypes recorded in trace.json (lossless)."""
    dtypes = {"string": "string", "float64": "float64", "int64": "int64", "bool": "bool"}
    na_values = {c: [""] for c, d in columns.items() if d == "float64"}
    # A value that does not fit its column's dtype (say "inf" in an int64 column) is the
    # ValueError the caller reports; numpy's cast warning before it would only be noise.
    with np.errstate(invalid="ignore", over="ignore"):
        try:
            return pd.read_csv(
                file,
                dtype={c: dtypes.get(d, "string") for c, d in columns.items()},
                keep_default_na=False,
                na_values=na_values,
            )
        except ValueError as error:
            found = _bad_csv_value(file, columns)
            if found is None:
                raise
            raise TraceFormatError(f"{file}:{found}") from error


def _bad_csv_value(file: Path, columns: dict[str, str]) -> str | None:
    """``LINE: column NAME: expected ..., got 'TEXT'`` for the first cell of a typed column
    that its dtype cannot hold (pandas' own error names neither), else None."""
    text = pd.read_csv(file, dtype="string", keep_default_na=False)
    expected = {"float64": "a number (empty when missing)", "int64": "a whole number",
                "bool": "True or False"}  # fmt: skip
    for column, dtype in columns.items():
        if dtype not in expected or column not in text.columns:
            continue
        for row, value in enumerate(text[column].tolist()):
            if not _fits(str(value), dtype):
                return f"{row + 2}: column {column!r}: expected {expected[dtype]}, got {value!r}"
    return None


def _fits(value: str, dtype: str) -> bool:
    """Whether CSV cell `value` reads as `dtype` the way `_read_csv` reads it."""
    if dtype == "bool":
        return value in ("True", "False", "true", "false", "TRUE", "FALSE")
    if dtype == "float64" and value == "":
        return True
    try:
        number = float(value)
    except ValueError:
        return False
    if dtype == "int64":
        return number == int(number) if np.isfinite(number) else False
    return not math.isnan(number)


class NativeReader(TraceReader):
    """A native trace directory (see `whatif.readers.native`)."""

    name = "native"
    description = "tempo native trace directory (trace.json + parquet/csv tables)"

    def __init__(self) -> None:
        pass

    @classmethod
    def sniff(cls, path: Path, head: bytes) -> bool:
        if path.is_dir():
            return (path / "trace.json").is_file()
        return path.name == "trace.json" and NATIVE_FORMAT_NAME.encode() in head

    def read(self, path: Path) -> Trace:
        return read_native(path.parent if path.name == "trace.json" else path)

    def read_workload(self, path: Path) -> Trace:
        return read_native(path.parent if path.name == "trace.json" else path, observed=False)
