"""The fast path of the Rumen reader: bytes to typed columns, no Python object per task.

Arrow's JSON reader parses the concatenated (pretty-printed) ``LoggedJob`` objects
block by block against a schema of only the fields `whatif.readers.rumen` reads, so
the job configuration, CDFs and counters are skipped by the parser. Every rule of
the precise reader (defaults, ``-1`` times, memory per stage, the attempt a task's
duration comes from) is applied to whole arrays.

Strict like the SLS fast path (`whatif.readers.arrow_json`): a value of another type,
a non-finite number, a missing required field, an unknown ``taskType``, an attempt
without times, or a JSON ``null`` where the precise reader tells null from absent
makes `read_rumen_tables` return None, and the precise reader reads the file and
names ``path:line`` of what it refuses.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from whatif.readers.arrow_json import (
    Declined,
    constant,
    file_head,
    first_and_last,
    frame,
    iter_batches,
    mapped,
    pieces,
    queues,
    texts,
    times,
)

logger = logging.getLogger(__name__)

#: Bytes Arrow parses at a time (a job larger than this one makes it retry larger); 2 MB:
#: 4 MB blocks cost ~150 MB more peak memory at 200k tasks and were not faster.
BLOCK_BYTES = 1 << 21
#: Tasks per piece `iter_rumen_blocks` yields.
PIECE_TASKS = 1 << 16

_F = pa.float64()
_S = pa.string()
_ATTEMPT = pa.struct(
    [
        ("attemptID", _S),
        ("startTime", _F),
        ("finishTime", _F),
        ("result", _S),
        ("hostName", _S),
        ("shuffleFinished", _F),
        ("sortFinished", _F),
    ]
)
_TASK = pa.struct(
    [
        ("taskID", _S),
        ("taskType", _S),
        ("startTime", _F),
        ("finishTime", _F),
        ("taskStatus", _S),
        ("attempts", pa.list_(_ATTEMPT)),
        ("preferredLocations", pa.list_(pa.struct([("layers", pa.list_(_S))]))),
    ]
)
_LISTS = ("mapTasks", "reduceTasks", "otherTasks")
SCHEMA = pa.schema(
    [
        ("jobID", _S),
        ("user", _S),
        ("jobName", _S),
        ("queue", _S),
        ("submitTime", _F),
        ("launchTime", _F),
        ("finishTime", _F),
        ("outcome", _S),
        ("jobMapMB", _F),
        ("jobReduceMB", _F),
        *((name, pa.list_(_TASK)) for name in _LISTS),
    ]
)
#: Fields whose JSON null the precise reader refuses or reads unlike an absent field
#: (Arrow reads both as null): the fast path declines a file that has one.
NULLS = re.compile(
    rb'"(?:jobID|queue|user|jobName|outcome|mapTasks|reduceTasks|otherTasks|taskID|taskType'
    rb'|taskStatus|attempts|attemptID|result|layers)"\s*:\s*null'
)
#: Rumen task types, task/attempt outcomes and job outcomes (`whatif.readers.rumen`).
STAGES = {"MAP": "map", "REDUCE": "reduce", "SETUP": "setup", "CLEANUP": "cleanup"}
STATES = {"SUCCESS": "SUCCEEDED", "FAILED": "FAILED", "KILLED": "KILLED"}


@dataclass(frozen=True)
class Options:
    """The reader's container sizes (`whatif.readers.rumen.RumenReader`)."""

    map_memory_mb: float
    reduce_memory_mb: float
    vcores: float


@dataclass(frozen=True)
class RumenTables:
    """The four tables the Rumen reader builds."""

    jobs: pd.DataFrame
    schedule_jobs: pd.DataFrame
    tasks: pd.DataFrame
    attempts: pd.DataFrame


@dataclass(frozen=True)
class _Part:
    """One block's four tables as Arrow tables."""

    jobs: pa.Table
    schedule_jobs: pa.Table
    tasks: pa.Table
    attempts: pa.Table


def read_rumen_tables(path: Path, options: Options) -> RumenTables | None:
    """The Rumen tables of `path`, or None when the precise reader must read it."""
    try:
        parts = list(_parts(path, options))
    except Declined as error:
        logger.debug("%s: fast Rumen path declined (%s); reading precisely", path, error)
        return None
    return _tables(parts)


def iter_rumen_blocks(
    path: Path, options: Options, progress: Callable[[int], None] | None = None
) -> Iterator[RumenTables]:
    """The Rumen tables of `path` about `PIECE_TASKS` tasks at a time; `Declined` when
    the fast path does not take the file (pieces already yielded stay valid)."""
    yield from pieces(
        _parts(path, options, progress), lambda p: p.tasks.num_rows, _tables, PIECE_TASKS
    )


def _parts(
    path: Path, options: Options, progress: Callable[[int], None] | None = None
) -> Iterator[_Part]:
    if file_head(path).lstrip()[:1] != b"{":
        raise Declined("not concatenated job objects")
    n = 0
    for batch in iter_batches(
        path, SCHEMA, block_bytes=BLOCK_BYTES, progress=progress, forbidden=NULLS
    ):
        n += batch.num_rows
        yield _part(batch, options)
    if n == 0:
        raise Declined("no job objects")


def _locations(locations: pa.Array, is_map: np.ndarray) -> pa.Array:
    """Each map's ``preferredLocations`` as ``/rack/host`` entries, comma-separated ("" for
    other tasks), as the precise reader writes them; declines a location without layers."""
    places = locations.flatten()
    layers = places.field("layers")
    if places.null_count or layers.null_count or (_lengths(layers) == 0).any():
        raise Declined("a preferred location without layers")
    entries = pc.binary_join_element_wise("/", pc.binary_join(layers, "/"), "")
    offsets = np.concatenate([[0], np.cumsum(_lengths(locations))]).astype(np.int32)
    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), entries), ",")
    return pc.if_else(pa.array(is_map), pc.fill_null(joined, ""), "")


def _lengths(lists: pa.Array) -> np.ndarray:
    result: np.ndarray = pc.fill_null(pc.list_value_length(lists), 0).to_numpy().astype(np.int64)
    return result


def _part(batch: pa.RecordBatch, options: Options) -> _Part:
    """The tables of one parsed block of jobs, by the precise reader's rules."""
    col = dict(zip(batch.schema.names, batch.columns, strict=True))
    job_id = texts(col["jobID"], None)
    jobs, schedule_jobs = _job_tables(col, job_id)
    map_mb = _positive(col["jobMapMB"], options.map_memory_mb)
    reduce_mb = _positive(col["jobReduceMB"], options.reduce_memory_mb)
    task, task_job = _flat_tasks(col, batch.num_rows)
    field = {name: task.field(name) for name in _TASK.names}
    stage = mapped(texts(field["taskType"], None), STAGES, None)
    is_map = pc.equal(stage, "map").to_numpy(zero_copy_only=False)
    is_reduce = pc.equal(stage, "reduce").to_numpy(zero_copy_only=False)
    memory = np.where(
        is_map,
        map_mb[task_job],
        np.where(is_reduce, reduce_mb[task_job], float(options.map_memory_mb)),
    )
    task_id = texts(field["taskID"], None)
    n_tasks = len(task)
    owner, a, a_start, a_finish, a_state = _attempt_columns(field["attempts"], n_tasks)
    done = ~np.isnan(a_finish)
    succeeded = pc.equal(a_state, "SUCCEEDED").to_numpy(zero_copy_only=False)
    # The attempt a task's times come from: its first finished successful one, else its
    # last finished one, else none (the task's own times).
    first_ok, _ = first_and_last(owner, done & succeeded, n_tasks)
    _, last_done = first_and_last(owner, done, n_tasks)
    chosen = np.where(first_ok >= 0, first_ok, last_done)
    has = chosen >= 0
    pick = np.where(has, chosen, 0)
    nan = np.full(n_tasks, np.nan)

    def chosen_or(values: np.ndarray, otherwise: np.ndarray) -> np.ndarray:
        return np.where(has, values[pick], otherwise) if len(values) else otherwise

    start = chosen_or(a_start, times(field["startTime"]))
    end = chosen_or(a_finish, times(field["finishTime"]))
    timed = ~(np.isnan(start) | np.isnan(end))
    duration = np.maximum(np.where(timed, end - start, 0.0), 0.0)
    vcores = np.full(n_tasks, float(options.vcores))
    task_job_id = job_id.take(pa.array(task_job))
    tasks = pa.table(
        {
            "job_id": task_job_id,
            "task_id": task_id,
            "stage": stage,
            "duration_s": duration,
            "memory_mb": memory,
            "vcores": vcores,
            "observed_start_s": start,
            "observed_finish_s": end,
            "observed_state": mapped(texts(field["taskStatus"], "SUCCESS"), STATES, "RUNNING"),
            "shuffle_finish_s": chosen_or(times(a["shuffleFinished"]), nan),
            "sort_finish_s": chosen_or(times(a["sortFinished"]), nan),
            "split_locations": _locations(field["preferredLocations"], is_map),
        }
    )
    attempt_rows = _attempt_table(tasks, owner, a, a_start, a_finish, a_state)
    return _Part(jobs, schedule_jobs, tasks, attempt_rows)


def _attempt_table(
    tasks: pa.Table,
    owner: np.ndarray,
    a: dict[str, pa.Array],
    a_start: np.ndarray,
    a_finish: np.ndarray,
    a_state: pa.Array,
) -> pa.Table:
    """The observed attempts, each with its task's job, id, stage and size (`owner`: its
    task's row in `tasks`); Rumen records no preemption."""
    taken = pa.array(owner)
    no = np.zeros(len(owner), dtype=bool)
    return pa.table(
        {
            "job_id": tasks["job_id"].take(taken),
            "task_id": tasks["task_id"].take(taken),
            "attempt_id": texts(a["attemptID"], None),
            "stage": tasks["stage"].take(taken),
            "start_s": a_start,
            "finish_s": a_finish,
            "memory_mb": tasks["memory_mb"].take(taken),
            "vcores": tasks["vcores"].take(taken),
            "state": a_state,
            "preempted": no,
            "is_am": no,
            "node": texts(a["hostName"], ""),
        }
    )


def _job_tables(col: dict[str, pa.Array], job_id: pa.Array) -> tuple[pa.Table, pa.Table]:
    """The block's jobs and their observed schedule rows (a job without an outcome is
    RUNNING until it finished, then FAILED)."""
    n = len(job_id)
    queue = queues(col["queue"])
    user = texts(col["user"], "unknown")
    submit = times(col["submitTime"], required=True)
    finish = times(col["finishTime"])
    outcome = mapped(texts(col["outcome"], "SUCCESS"), STATES, "")
    unfinished = constant("RUNNING", n)
    failed = constant("FAILED", n)
    state = pc.if_else(
        pc.equal(outcome, ""), pc.if_else(pa.array(np.isnan(finish)), unfinished, failed), outcome
    )
    jobs = pa.table(
        {
            "job_id": job_id,
            "queue": queue,
            "submit_s": submit,
            "user": user,
            "name": texts(col["jobName"], ""),
        }
    )
    schedule_jobs = pa.table(
        {
            "job_id": job_id,
            "queue": queue,
            "submit_s": submit,
            "launch_s": times(col["launchTime"]),
            "finish_s": finish,
            "user": user,
            "state": state,
        }
    )
    return jobs, schedule_jobs


def _flat_tasks(col: dict[str, pa.Array], n: int) -> tuple[pa.StructArray, np.ndarray]:
    """Every task of the block in the precise reader's order (per job, its map, reduce, then
    other tasks) and its job's row; a task that is not an object declines."""
    owners = np.concatenate(
        [np.repeat(np.arange(n, dtype=np.int64), _lengths(col[k])) for k in _LISTS]
    )
    order = np.argsort(owners, kind="stable")
    task = pa.concat_arrays([pc.list_flatten(col[k]) for k in _LISTS]).take(pa.array(order))
    if task.null_count:
        raise Declined("a task that is not an object")
    return task, owners[order]


def _attempt_columns(
    attempts: pa.Array, n_tasks: int
) -> tuple[np.ndarray, dict[str, pa.Array], np.ndarray, np.ndarray, pa.Array]:
    """Every attempt's task row, fields, start (its finish where it has none), finish and
    state (a finished attempt without a result succeeded); one without times declines."""
    owner = np.repeat(np.arange(n_tasks, dtype=np.int64), _lengths(attempts))
    attempt = pc.list_flatten(attempts)
    if attempt.null_count:
        raise Declined("an attempt that is not an object")
    a = {name: attempt.field(name) for name in _ATTEMPT.names}
    a_start, a_finish = times(a["startTime"]), times(a["finishTime"])
    a_start = np.where(np.isnan(a_start), a_finish, a_start)
    if np.isnan(a_start).any():
        raise Declined("an attempt without times")
    result = a["result"]
    a_state = mapped(pc.fill_null(result, ""), STATES, "RUNNING")
    implied = np.asarray(result.is_null()) & ~np.isnan(a_finish)  # finished: SUCCESS
    a_state = pc.if_else(pa.array(implied), constant("SUCCEEDED", len(attempt)), a_state)
    return owner, a, a_start, a_finish, a_state


def _positive(column: pa.Array, default: float) -> np.ndarray:
    """Per job a memory size: the recorded one when positive, else `default`."""
    values = column.to_numpy(zero_copy_only=False).astype(np.float64)
    values = np.where(np.asarray(column.is_valid()), values, np.nan)
    return np.where(values > 0, values, float(default))


def _tables(parts: list[_Part]) -> RumenTables:
    def cat(name: str) -> pd.DataFrame:
        return frame(pa.concat_tables([getattr(p, name) for p in parts]))

    return RumenTables(cat("jobs"), cat("schedule_jobs"), cat("tasks"), cat("attempts"))
