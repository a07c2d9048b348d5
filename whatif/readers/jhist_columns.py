"""The fast path of the jhist reader: events to typed columns, no Python object per task.

Arrow's JSON reader parses a file's event lines (after ``Avro-Json`` and the schema)
against an Arrow schema derived from the file's own Avro schema, so both schema
generations are read exactly: a field the schema declares as a union
(``["null", "string"]``) is read as its wrapper ``{"string": ...}``, a plain one as
is; counters and other fields are skipped by the parser. The few job-level events
go through the precise reader's own event handler; task and attempt events are
joined by id with Arrow and numpy, by the precise reader's rules.

Strict like the other fast paths (`whatif.readers.arrow_json`): an event whose type
and record disagree, a task or attempt with repeated start or end events, an attempt
whose end comes before its start or whose events name different tasks, a value of
another type, anything the precise reader would refuse... makes `read_jhist_tables`
return None, and the precise reader reads the files and names ``path:line``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from whatif.errors import TraceFormatError
from whatif.readers.arrow_json import (
    Declined,
    frame,
    iter_batches,
    mapped,
    pieces,
    texts,
    times,
)
from whatif.readers.hadoop_ids import TASK_LETTERS
from whatif.readers.jhist_tables import STAGES, FileHistory, JhistTables, PreciseReader, RowTables

logger = logging.getLogger(__name__)

#: Bytes Arrow parses at a time.
BLOCK_BYTES = 1 << 22
#: Tasks per piece `iter_jhist_blocks` yields (files are joined, never split).
PIECE_TASKS = 1 << 16
#: Files smaller than this go to the precise reader: the fast path's setup per file
#: (~4 ms) outweighs its gain below it (TeraGen-like files, 12k tasks: 0.35 MB files
#: fast 1.22 s / precise 0.53 s, 1 MB 0.60 / 0.54, 2 MB 0.42 / 0.52, 4 MB 0.39 / 0.52).
SMALL_FILE_BYTES = 2 << 20
MAGIC = b"Avro-Json"
_PACKAGE = "org.apache.hadoop.mapreduce.jobhistory"

#: The fields read of each record (`whatif.readers.jhist`).
_ATTEMPT_END = ("taskid", "taskType", "attemptId", "finishTime", "hostname")
FIELDS: dict[str, tuple[str, ...]] = {
    "JobSubmitted": ("jobid", "jobName", "userName", "jobQueueName", "submitTime"),
    "JobQueueChange": ("jobid", "jobQueueName"),
    "JobInited": ("jobid", "launchTime"),
    "JobInfoChange": ("jobid", "submitTime", "launchTime"),
    "JobFinished": ("jobid", "finishTime"),
    "JobUnsuccessfulCompletion": ("jobid", "finishTime", "jobStatus"),
    "AMStarted": ("applicationAttemptId", "startTime", "containerId", "nodeManagerHost"),
    "NormalizedResource": ("taskType", "memory"),
    "TaskStarted": ("taskid", "taskType", "startTime", "splitLocations"),
    "TaskFinished": ("taskid", "taskType", "finishTime", "status", "successfulAttemptId"),
    "TaskFailed": ("taskid", "taskType", "finishTime", "status"),
    "TaskAttemptStarted": ("taskid", "taskType", "attemptId", "startTime", "trackerName"),
    "MapAttemptFinished": (*_ATTEMPT_END, "taskStatus"),
    "ReduceAttemptFinished": (*_ATTEMPT_END, "taskStatus", "shuffleFinishTime", "sortFinishTime"),
    "TaskAttemptFinished": (*_ATTEMPT_END, "taskStatus"),
    "TaskAttemptUnsuccessfulCompletion": (*_ATTEMPT_END, "status", "error"),
}
_JOB_RECORDS = frozenset(list(FIELDS)[:8])
_ATTEMPT_ENDS = ("MapAttemptFinished", "ReduceAttemptFinished", "TaskAttemptFinished")
#: Event type -> its record (Hadoop's EventType); a type absent here carries nothing read.
RECORDS = {
    "JOB_SUBMITTED": "JobSubmitted",
    "JOB_QUEUE_CHANGED": "JobQueueChange",
    "JOB_INITED": "JobInited",
    "JOB_INFO_CHANGED": "JobInfoChange",
    "JOB_FINISHED": "JobFinished",
    "JOB_FAILED": "JobUnsuccessfulCompletion",
    "JOB_KILLED": "JobUnsuccessfulCompletion",
    "JOB_ERROR": "JobUnsuccessfulCompletion",
    "AM_STARTED": "AMStarted",
    "NORMALIZED_RESOURCE": "NormalizedResource",
    "TASK_STARTED": "TaskStarted",
    "TASK_FINISHED": "TaskFinished",
    "TASK_FAILED": "TaskFailed",
    **{f"{s}_ATTEMPT_STARTED": "TaskAttemptStarted" for s in ("MAP", "REDUCE", "SETUP", "CLEANUP")},
    "MAP_ATTEMPT_FINISHED": "MapAttemptFinished",
    "REDUCE_ATTEMPT_FINISHED": "ReduceAttemptFinished",
    "SETUP_ATTEMPT_FINISHED": "TaskAttemptFinished",
    "CLEANUP_ATTEMPT_FINISHED": "TaskAttemptFinished",
    **{
        f"{s}_ATTEMPT_{e}": "TaskAttemptUnsuccessfulCompletion"
        for s in ("MAP", "REDUCE", "SETUP", "CLEANUP")
        for e in ("FAILED", "KILLED")
    },
}
_STRING = pa.string()
_PRIMITIVES = {"string": _STRING, "long": pa.float64(), "int": pa.float64()}


def read_jhist_tables(reader: PreciseReader, files: list[Path]) -> JhistTables | None:
    """The jhist tables of `files` (read in order), or None when the precise reader must."""
    try:
        return _join(list(_parts(reader, files)))
    except Declined as error:
        logger.debug("%s: fast jhist path declined (%s); reading precisely", files[0], error)
        return None


def iter_jhist_blocks(
    reader: PreciseReader, files: list[Path], progress: Callable[[int], None] | None = None
) -> Iterator[JhistTables]:
    """The tables of `files`, whole files of about `PIECE_TASKS` tasks at a time;
    `progress` gets the bytes read so far; `Declined` as `read_jhist_tables`."""
    yield from pieces(_parts(reader, files, progress), lambda t: len(t.tasks), _join, PIECE_TASKS)


def _parts(
    reader: PreciseReader, files: list[Path], progress: Callable[[int], None] | None = None
) -> Iterator[JhistTables]:
    """Per file (large ones) or run of consecutive small files, their tables, in file order.

    A file below `SMALL_FILE_BYTES` costs the fast path more in per-file setup than it
    saves, so runs of them are read by the precise reader into one set of tables (its
    errors, naming ``path:line``, are the ones a precise read of all files would raise
    first, as files are read in order).
    """
    done, small = 0, None
    for file in files:
        size = file.stat().st_size
        if size < SMALL_FILE_BYTES:
            small = small if small is not None else RowTables()
            reader.read_file(file, small)
        else:
            if small is not None:
                yield JhistTables.of(small)
                small = None
            yield _file(reader, file)
        done += size
        if progress is not None:
            progress(done)
    if small is not None:
        yield JhistTables.of(small)


def _join(parts: list[JhistTables]) -> JhistTables:
    def cat(name: str) -> pd.DataFrame:
        frames = [getattr(p, name) for p in parts]
        result: pd.DataFrame = (
            frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
        )
        return result

    return JhistTables(
        cat("jobs"),
        cat("schedule_jobs"),
        cat("tasks"),
        cat("attempts"),
        sum(p.unstarted for p in parts),
    )


def _head(file: Path) -> tuple[int, dict[str, Any]]:
    """The byte offset of the first event line and the Avro schema of `file`."""
    try:
        with open(file, "rb") as handle:
            magic, schema = handle.readline(), handle.readline()
    except OSError as error:
        raise Declined(str(error)) from None
    if magic.strip() != MAGIC:
        raise Declined("no Avro-Json line")
    try:
        avro = json.loads(schema)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Declined("the schema line is not JSON") from None
    if not isinstance(avro, dict) or avro.get("name") != "Event":
        raise Declined("no Avro schema of 'Event'")
    return len(magic) + len(schema), avro


def arrow_schema(avro: dict[str, Any]) -> pa.Schema:
    """The Arrow schema of the event lines the Avro schema `avro` describes (fields read only).

    Declines a schema the fast path cannot read exactly: records or fields that are not
    objects, a field without a type, or a field read of another type than the reader's
    (times and memory numbers, the rest strings).
    """
    namespace = avro.get("namespace", _PACKAGE)
    fields = {f["name"]: f.get("type") for f in _list(avro.get("fields")) if _named(f)}
    union = fields.get("event")
    if not isinstance(union, list):
        raise Declined("the schema's event is not a union of records")
    records = []
    for record in union:
        if not _named(record) or record["name"] not in FIELDS:
            continue
        name = record["name"]
        declared = _list(record.get("fields"))
        if not all(isinstance(f, dict) and "type" in f for f in declared):
            raise Declined(f"a field of record {name} without a type")
        types = {f["name"]: f["type"] for f in declared if _named(f)}
        children = [(key, _arrow_type(key, types[key])) for key in FIELDS[name] if key in types]
        full = f"{record.get('namespace', namespace)}.{name}"
        records.append((full, pa.struct(children)))
    return pa.schema([("type", pa.string()), ("event", pa.struct(records))])


def _named(item: object) -> bool:
    """Whether `item` is an object whose name is a string."""
    return isinstance(item, dict) and isinstance(item.get("name"), str)


def _list(value: object) -> list[Any]:
    """`value` when it is a list; `Declined` otherwise (absent: empty)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise Declined("a schema's fields are not a list")
    return value


def _arrow_type(key: str, avro: object) -> pa.DataType:
    """The Arrow type of field `key` declared as `avro`: its primitive, or a union's wrapper."""
    expected = pa.float64() if key.endswith("Time") or key == "memory" else _STRING
    if isinstance(avro, dict) and avro.get("type") == "enum":
        avro = "string"
    if isinstance(avro, str) and _PRIMITIVES.get(avro) == expected:
        return expected
    if isinstance(avro, list):
        branches = [b for b in avro if b != "null"]
        if len(branches) == 1 and isinstance(branches[0], str):
            if _PRIMITIVES.get(branches[0]) == expected:
                return pa.struct([(branches[0], expected)])
    raise Declined(f"field {key!r} of Avro type {avro!r}")


def _children(array: pa.StructArray) -> dict[str, pa.Array]:
    """A struct's fields (null where the struct is null), union wrappers unwrapped."""
    out = {}
    for child, value in zip(array.type, array.flatten(), strict=True):
        out[child.name] = value.flatten()[0] if pa.types.is_struct(value.type) else value
    return out


_TASK_RECORDS = (
    "TaskStarted",
    "TaskFinished",
    "TaskFailed",
    "TaskAttemptStarted",
    *_ATTEMPT_ENDS,
    "TaskAttemptUnsuccessfulCompletion",
)


class _Rows:
    """The task-level events of one file as columns (one row per event, file order)."""

    def __init__(
        self, kind: pa.Array, which: np.ndarray, fields: dict[str, dict[str, pa.Array]]
    ) -> None:
        self.rows = np.flatnonzero(np.isin(which, _TASK_RECORDS))
        self.which = which[self.rows]
        self.fields = fields
        self.taken = pa.array(self.rows)
        self.killed = pc.ends_with(kind.take(self.taken), "KILLED").to_numpy(zero_copy_only=False)

    def is_(self, *records: str) -> np.ndarray:
        return np.isin(self.which, records)

    def column(
        self, key: str, records: tuple[str, ...] = _TASK_RECORDS, empty: pa.DataType = _STRING
    ) -> pa.Array:
        """`key` of the rows carrying one of `records` (null on the other rows)."""
        arrays = [
            self.fields[r][key] for r in records if r in self.fields and key in self.fields[r]
        ]
        if not arrays:
            return pa.nulls(len(self.rows), empty)
        joined = arrays[0] if len(arrays) == 1 else pc.coalesce(*arrays)
        return joined.take(self.taken)


def _codes(ids: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Each row's index among the distinct ids, numbered in order of first appearance."""
    encoded = pc.dictionary_encode(texts(ids, None))
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), encoded.dictionary


def _once(codes: np.ndarray, mask: np.ndarray, n: int, what: str) -> np.ndarray:
    """The row of each id's single `mask` event (-1: none); more than one declines."""
    rows = np.flatnonzero(mask)
    if (np.bincount(codes[rows], minlength=n) > 1).any():
        raise Declined(f"repeated {what} events")
    out = np.full(n, -1, dtype=np.int64)
    out[codes[rows]] = rows
    return out


def _at(values: np.ndarray, rows: np.ndarray, fill: Any) -> np.ndarray:
    """`values[rows]`, `fill` where rows is -1.

    `fill` is a scalar of the values' kind, None for an object array (numpy's stubs take
    no None in `np.where`, hence Any).
    """
    result: np.ndarray = np.where(
        rows >= 0, values[np.maximum(rows, 0)] if len(values) else fill, fill
    )
    return result


def _file(reader: PreciseReader, file: Path) -> JhistTables:
    """One file's tables by the precise reader's rules; `Declined` when it cannot."""
    offset, avro = _head(file)
    schema = arrow_schema(avro)
    batches = list(
        iter_batches(file, schema, block_bytes=BLOCK_BYTES, offset=offset, one_per_line=True)
    )
    if not batches:
        raise Declined("no events")
    table = pa.Table.from_batches(batches, schema).combine_chunks()
    kind = texts(table.column("type").chunk(0), None)
    event = table.column("event").chunk(0)
    if event.null_count:
        raise Declined("an event without a record")
    records = {
        child.name.rsplit(".", 1)[-1]: value
        for child, value in zip(event.type, event.flatten(), strict=True)
    }
    which = np.full(len(kind), "", dtype=object)  # the record each row carries
    held = np.zeros(len(kind), dtype=np.int64)
    for name, value in records.items():
        valid = np.asarray(value.is_valid())
        held += valid
        which[valid] = name
    expected = mapped(kind, RECORDS, "").to_numpy(zero_copy_only=False).astype(object)
    if (held > 1).any() or (which != expected).any():
        raise Declined("an event whose type and record disagree")
    tables = RowTables()
    jobs = _jobs(reader, file, kind, which, records)
    try:
        reader.emit(file, FileHistory(jobs=jobs), tables)
    except TraceFormatError as error:
        raise Declined(str(error)) from None
    fields = {name: _children(value) for name, value in records.items()}
    tasks, attempts, unstarted = _tasks(reader, _Rows(kind, which, fields), jobs)
    am = tables.attempts.frame()
    return JhistTables(
        tables.jobs.frame(),
        tables.schedule_jobs.frame(),
        tasks,
        pd.concat([am, attempts], ignore_index=True) if len(am) else attempts,
        unstarted,
    )


def _jobs(
    reader: PreciseReader, file: Path, kind: pa.Array, which: np.ndarray, records: dict[str, Any]
) -> dict[str, Any]:
    """The few job-level events, through the precise reader's own event handler."""
    rows = np.flatnonzero(np.isin(which, list(_JOB_RECORDS)))
    taken = pa.array(rows)
    kinds = kind.take(taken).to_pylist()
    values = {name: records[name].take(taken).to_pylist() for name in _JOB_RECORDS & set(records)}
    history: FileHistory[Any, Any, Any] = FileHistory()
    for k, row in enumerate(rows):
        name = which[row]
        data = {"type": kinds[k], "event": {name: values[name][k]}}
        try:
            reader.handle_event(file, int(row), data, history)
        except TraceFormatError as error:
            raise Declined(str(error)) from None
    if not history.jobs:
        raise Declined("no JOB_SUBMITTED event")
    return history.jobs


@dataclass(frozen=True)
class _TaskEvents:
    """Per task (numbered in order of first appearance), what its own events say."""

    code: np.ndarray  # per event row, its task's number
    ids: pa.Array
    stage: pa.Array
    start: np.ndarray
    finish: np.ndarray
    state: np.ndarray
    successful: np.ndarray  # the successfulAttemptId of its end event, else ""
    splits: np.ndarray  # a map's split locations, "" for the other stages


@dataclass(frozen=True)
class _AttemptEvents:
    """Per attempt (numbered in order of first appearance), what its events say."""

    owner: np.ndarray  # its task's number
    ids: pa.Array
    start: np.ndarray  # its finish where it has no start event
    finish: np.ndarray
    state: np.ndarray
    preempted: np.ndarray
    node: np.ndarray
    shuffle: np.ndarray
    sort: np.ndarray
    unstarted: int  # attempts with no start event


def _tasks(
    reader: PreciseReader, ev: _Rows, jobs: dict[str, Any]
) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """The task and attempt tables of one file's task-level events."""
    task = _task_events(ev)
    att = _attempt_events(ev, task.code)
    job_id, memory = _task_jobs(reader, jobs, task.ids, task.stage)
    # The attempt a task's times come from (the precise reader's rule, in attempt order).
    order = np.lexsort((np.arange(len(att.ids)), att.owner))
    pick, start, finish = _times(task, att, order)
    timed = ~(np.isnan(start) | np.isnan(finish))
    vcores = np.full(len(task.ids), float(reader.vcores))
    tasks = frame(
        pa.table(
            {
                "job_id": job_id,
                "task_id": task.ids,
                "stage": task.stage,
                "duration_s": np.maximum(np.where(timed, finish - start, 0.0), 0.0),
                "memory_mb": memory,
                "vcores": vcores,
                "observed_start_s": start,
                "observed_finish_s": finish,
                "observed_state": pa.array(task.state, pa.string()),
                "shuffle_finish_s": _at(att.shuffle, pick, np.nan),
                "sort_finish_s": _at(att.sort, pick, np.nan),
                "split_locations": pa.array(task.splits, pa.string()),
            }
        )
    )
    owner = att.owner[order]
    taken = pa.array(owner)
    attempts = frame(
        pa.table(
            {
                "job_id": job_id.take(taken),
                "task_id": task.ids.take(taken),
                "attempt_id": att.ids.take(pa.array(order)),
                "stage": task.stage.take(taken),
                "start_s": att.start[order],
                "finish_s": att.finish[order],
                "memory_mb": memory[owner],
                "vcores": vcores[owner],
                "state": pa.array(att.state[order], pa.string()),
                "preempted": att.preempted[order],
                "is_am": np.zeros(len(order), dtype=bool),
                "node": pa.array(att.node[order], pa.string()),
            }
        )
    )
    return tasks, attempts, att.unstarted


def _task_events(ev: _Rows) -> _TaskEvents:
    """The tasks' own events: at most one start and one end event each."""
    m = len(ev.rows)
    code, task_ids = _codes(ev.column("taskid"))
    n_tasks = len(task_ids)
    row_stage = mapped(texts(ev.column("taskType"), None), STAGES, None)
    first = np.full(n_tasks, m, dtype=np.int64)
    np.minimum.at(first, code, np.arange(m))
    stage = row_stage.take(pa.array(first))  # the task's first event sets its stage
    start_row = _once(code, ev.is_("TaskStarted"), n_tasks, "task start")
    end_row = _once(code, ev.is_("TaskFinished", "TaskFailed"), n_tasks, "task end")
    t_start = _by_task(ev, "startTime", ("TaskStarted",), start_row)
    splits = pc.fill_null(ev.column("splitLocations", ("TaskStarted",)), "")
    t_splits = _at(splits.to_numpy(zero_copy_only=False), start_row, "")
    is_map = pc.fill_null(pc.equal(stage, "map"), False).to_numpy(zero_copy_only=False)
    t_finish = _by_task(ev, "finishTime", ("TaskFinished", "TaskFailed"), end_row)
    status = pc.coalesce(
        ev.column("status", ("TaskFinished", "TaskFailed")),
        pa.array(np.where(ev.is_("TaskFinished"), "SUCCEEDED", "FAILED")),
    ).to_numpy(zero_copy_only=False)
    successful = pc.fill_null(ev.column("successfulAttemptId", ("TaskFinished",)), "")
    return _TaskEvents(
        code=code,
        ids=task_ids,
        stage=stage,
        start=t_start,
        finish=t_finish,
        state=_at(status, end_row, "RUNNING"),
        successful=_at(successful.to_numpy(zero_copy_only=False), end_row, ""),
        splits=np.where(is_map, t_splits, ""),
    )


def _attempt_events(ev: _Rows, code: np.ndarray) -> _AttemptEvents:
    """The attempts' events (`code`: each row's task): one start and one end at most."""
    m = len(ev.rows)
    attempt_records = _TASK_RECORDS[3:]
    on_attempt = ev.is_(*attempt_records)
    a_rows = np.flatnonzero(on_attempt)
    a_code_of, attempt_ids = _codes(ev.column("attemptId", attempt_records).filter(on_attempt))
    n_att = len(attempt_ids)
    a_code = np.full(m, -1, dtype=np.int64)
    a_code[a_rows] = a_code_of
    a_first = np.full(n_att, m, dtype=np.int64)
    np.minimum.at(a_first, a_code_of, a_rows)
    owner = code[a_first]
    if (owner[a_code_of] != code[a_rows]).any():
        raise Declined("an attempt whose events name different tasks")
    a_start_row = _once(a_code, ev.is_("TaskAttemptStarted"), n_att, "attempt start")
    a_end_row = _once(a_code, on_attempt & ~ev.is_("TaskAttemptStarted"), n_att, "attempt end")
    if ((a_start_row >= 0) & (a_end_row >= 0) & (a_end_row < a_start_row)).any():
        raise Declined("an attempt whose end comes before its start")
    a_start = _by_task(ev, "startTime", ("TaskAttemptStarted",), a_start_row)
    a_finish = _by_task(ev, "finishTime", attempt_records[1:], a_end_row)
    tracker = pc.fill_null(ev.column("trackerName", ("TaskAttemptStarted",)), "")
    node = _at(tracker.to_numpy(zero_copy_only=False), a_start_row, "")
    host = ev.column("hostname", attempt_records[1:]).to_numpy(zero_copy_only=False)
    ended_host = _at(host, a_end_row, None)
    a_state = _at(_attempt_states(ev), a_end_row, "RUNNING")
    error = pc.fill_null(ev.column("error", ("TaskAttemptUnsuccessfulCompletion",)), "")
    a_error = pa.array(_at(error.to_numpy(zero_copy_only=False), a_end_row, ""), pa.string())
    preempted = (a_state == "KILLED") & pc.match_substring(
        a_error, "preempt", ignore_case=True
    ).to_numpy(zero_copy_only=False)
    shuffle = _at(_optional(ev, "shuffleFinishTime"), a_end_row, np.nan)
    sort = _at(_optional(ev, "sortFinishTime"), a_end_row, np.nan)
    missing = np.isnan(a_start)
    a_start = np.where(missing, a_finish, a_start)
    if np.isnan(a_start).any():
        raise Declined("an attempt with neither start nor finish")
    return _AttemptEvents(
        owner=owner,
        ids=attempt_ids,
        start=a_start,
        finish=a_finish,
        state=a_state,
        preempted=preempted,
        node=np.where(pd.isna(ended_host), node, ended_host),
        shuffle=shuffle,
        sort=sort,
        unstarted=int(missing.sum()),
    )


def _attempt_states(ev: _Rows) -> np.ndarray:
    """Each row's attempt state: its end event's status, else what the event type says."""
    done_status = ev.column("taskStatus", _ATTEMPT_ENDS)
    failed_status = ev.column("status", ("TaskAttemptUnsuccessfulCompletion",))
    default = np.where(ev.is_(*_ATTEMPT_ENDS), "SUCCEEDED", np.where(ev.killed, "KILLED", "FAILED"))
    states: np.ndarray = pc.coalesce(done_status, failed_status, pa.array(default)).to_numpy(
        zero_copy_only=False
    )
    return states


def _task_jobs(
    reader: PreciseReader, jobs: dict[str, Any], task_ids: pa.Array, stage: pa.Array
) -> tuple[pa.Array, np.ndarray]:
    """Each task's job id and container memory (NORMALIZED_RESOURCE, else defaults)."""
    n_tasks = len(task_ids)
    job_ids = list(jobs)
    pattern = r"^task_([^_]*_[^_]*(?:_[^_]*)*)_[" + "".join(TASK_LETTERS) + r"]_[^_]*$"
    if not pc.all(pc.match_substring_regex(task_ids, pattern)).as_py() and n_tasks:
        raise Declined("a task id that is not one")
    task_job_id = pc.replace_substring_regex(task_ids, pattern, r"job_\1")
    job_index = pc.index_in(task_job_id, pa.array(job_ids, pa.string()))
    if job_index.null_count:
        raise Declined("a task of no JOB_SUBMITTED job")
    job_of = job_index.to_numpy(zero_copy_only=False).astype(np.int64)
    stages = list(dict.fromkeys(STAGES.values()))
    sizes = np.array([[reader.memory_for(jobs[j], s) for s in stages] for j in job_ids])
    stage_code = pc.index_in(stage, pa.array(stages)).to_numpy(zero_copy_only=False)
    memory: np.ndarray = sizes[job_of, stage_code] if n_tasks else np.zeros(0)
    return task_job_id, memory.astype(np.float64)


def _times(
    task: _TaskEvents, att: _AttemptEvents, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per task, the attempt its times come from (-1: the task's own events), its start
    and its finish; `order` puts the attempts in task order."""
    chosen = _chosen(
        att.owner[order],
        att.ids.take(pa.array(order)),
        att.state[order],
        att.start[order],
        task.successful,
        len(task.ids),
    )
    chosen = _at(order, chosen, -1)  # (no attempt at all: order is empty)
    use = (chosen >= 0) & ~np.isnan(_at(att.finish, chosen, np.nan))
    pick = np.where(use, chosen, -1)
    start = np.where(use, _at(att.start, pick, np.nan), task.start)
    finish = np.where(use, _at(att.finish, pick, np.nan), task.finish)
    return pick, start, finish


def _ms(values: pa.Array) -> np.ndarray:
    """Required millisecond times as seconds; a negative one declines (the precise reader
    names it)."""
    out = values.to_numpy(zero_copy_only=False).astype(np.float64)
    if not np.isfinite(out).all():
        raise Declined("a time is not finite")
    if (out < 0).any():
        raise Declined("a required time is negative")
    result: np.ndarray = out / 1000.0
    return result


def _by_task(ev: _Rows, key: str, records: tuple[str, ...], rows: np.ndarray) -> np.ndarray:
    """Per id, the required time `key` of its event at `rows` (NaN where -1)."""
    values = ev.column(key, records, pa.float64())
    if values.type != pa.float64():
        raise Declined(f"{key!r} is not a number")
    at = np.maximum(rows, 0)
    has = rows >= 0
    if len(values) == 0:
        return np.full(len(rows), np.nan)
    picked = values.take(pa.array(at)).filter(pa.array(has))
    if picked.null_count:
        raise Declined(f"an event without {key!r}")
    out = np.full(len(rows), np.nan)
    out[has] = _ms(picked)
    return out


def _optional(ev: _Rows, key: str) -> np.ndarray:
    values = ev.column(key, ("ReduceAttemptFinished",), pa.float64())
    if values.type != pa.float64():
        raise Declined(f"{key!r} is not a number")
    return times(values)


def _chosen(
    owner: np.ndarray,
    attempt_ids: pa.Array,
    state: np.ndarray,
    start: np.ndarray,
    successful: np.ndarray,
    n_tasks: int,
) -> np.ndarray:
    """Per task, the position in the (task-ordered) attempts of the one its times come from.

    Tasks with one attempt take it; the others follow the precise reader's loop.
    """
    counts = np.bincount(owner, minlength=n_tasks)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    chosen = np.where(counts > 0, first, -1)
    several = np.flatnonzero(counts > 1)
    if len(several):
        ids = attempt_ids.to_numpy(zero_copy_only=False)
        for task in several:
            best = -1
            for k in range(first[task], first[task] + counts[task]):
                if ids[k] == successful[task] or (
                    state[k] == "SUCCEEDED" and (best < 0 or state[best] != "SUCCEEDED")
                ):
                    best = k
                elif best < 0 or (state[best] != "SUCCEEDED" and start[k] >= start[best]):
                    best = k
            chosen[task] = best
    return chosen


__all__ = ["JhistTables", "arrow_schema", "iter_jhist_blocks", "read_jhist_tables"]
