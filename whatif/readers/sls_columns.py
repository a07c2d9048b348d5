"""The fast path of the SLS reader: bytes to typed columns, no Python object per task.

Arrow's JSON reader parses the concatenated job objects block by block (a few MB at a
time, so memory stays bounded by the output columns) against a fixed schema (files of
`SCAN_MIN_BYTES` and more: the compiled scanner `whatif.readers.sls_scan`, same fields), and
every SLS rule of `whatif.readers.sls` (defaults, ``count``, durations, priorities,
task numbering, queue paths) is applied to whole numpy/Arrow arrays. Strings that
repeat (queues, users, stages) are dictionary-encoded and normalised once per
distinct value; task and attempt ids are built by Arrow string kernels.

The fast path is strict: anything it does not take exactly as the precise path
would (a number written as a string, NaN, a missing required field, ``job.count``
above 1, a top-level array, invalid JSON, ...) makes `read_sls_tables` return None,
and the caller reads the file with the precise path, which accepts what SLS accepts
and names ``path:line:col`` of what it does not.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from whatif.memory import release_free_memory
from whatif.readers.arrow_json import (
    Declined,
    file_head,
    iter_batches,
    numbers,
    pieces,
    present,
    queues,
    strings,
    texts,
    whole,
)
from whatif.workload import MAPREDUCE_STAGE_ORDER

logger = logging.getLogger(__name__)

#: Bytes Arrow parses at a time. Small blocks keep Arrow's buffers small (1 MB: ~40 MB
#: for a 1M-task file, 16 MB: ~250 MB) and parse as fast; a job object larger than a
#: block makes the reader start again with 8 times larger blocks (`whatif.readers.arrow_json`).
BLOCK_BYTES = 1 << 20
#: Tasks per piece `iter_sls_blocks` yields (blocks are joined: a Workload per 1 MB block
#: would cost more in per-table overhead than the parsing itself).
PIECE_TASKS = 1 << 16
#: Files at least this large (about 2M tasks) are read by the compiled scanner
#: (`whatif.readers.sls_scan`), in about a third of Arrow's CPU time. Smaller ones keep
#: Arrow's reader: the scanner loads numba's JIT (about 65 MB, which `tempo predict`'s
#: kernel loads only after reading) under the reading's peak, which at 1M tasks would
#: raise the whole process's peak from about 490 to 555 MB for 2 s of CPU.
SCAN_MIN_BYTES = 512 << 20
#: Most copies of one task definition (`whatif.readers.sls.MAX_COUNT`).
MAX_COUNT = 1_000_000

_F = pa.float64()
_TASK = pa.struct(
    [
        ("container.type", pa.string()),
        ("container.start.ms", _F),
        ("container.end.ms", _F),
        ("container.duration.ms", _F),
        ("duration.ms", _F),
        ("container.memory-mb", _F),
        ("container.memory", _F),
        ("container.vcores", _F),
        ("container.priority", _F),
        ("count", _F),
        ("container.host", pa.string()),
    ]
)
SCHEMA = pa.schema(
    [
        ("job.id", pa.string()),
        ("job.queue.name", pa.string()),
        ("job.user", pa.string()),
        ("job.start.ms", _F),
        ("job.end.ms", _F),
        ("job.count", _F),
        ("am.memory-mb", _F),
        ("am.memory", _F),
        ("am.vcores", _F),
        ("job.tasks", pa.list_(_TASK)),
    ]
)
#: Stage names in code order; code 0 is the default (a task without container.type).
STAGES = tuple(MAPREDUCE_STAGE_ORDER)
_MAP = STAGES.index("map")


@dataclass(frozen=True)
class SlsTables:
    """The four tables the SLS reader builds, and whether every task had start and end."""

    jobs: pd.DataFrame
    schedule_jobs: pd.DataFrame
    tasks: pd.DataFrame
    attempts: pd.DataFrame
    all_timed: bool


class Block(NamedTuple):
    """One parsed block: the jobs' fields and their task definitions' fields (each an Arrow
    array, or from `whatif.readers.sls_scan` a float64 array with NaN where absent), by
    their names in `SCHEMA`, and how many task definitions each job has."""

    jobs: dict[str, Any]  # pa.Array | np.ndarray (pyarrow has no type hints)
    tasks: dict[str, Any]
    lengths: np.ndarray


@dataclass(frozen=True)
class _Part:
    """One block's jobs and (expanded) tasks as arrays; task_job indexes the block's jobs."""

    job_id: pa.Array
    queue: pa.Array
    user: pa.Array
    start_ms: np.ndarray
    end_ms: np.ndarray
    am_memory: np.ndarray
    am_vcores: np.ndarray
    timed: np.ndarray
    task_job: np.ndarray
    stage: np.ndarray
    number: np.ndarray
    start: np.ndarray
    end: np.ndarray
    duration: np.ndarray
    memory: np.ndarray
    vcores: np.ndarray
    priority: np.ndarray
    host: pa.Array | None  # None when the observed schedule is not built


def read_sls_tables(
    path: Path, *, memory_mb: float, vcores: float, observed: bool = True
) -> SlsTables | None:
    """The SLS tables of `path`, or None when the precise path must read it (see module doc).

    Without `observed`, the observed schedule's tables are left empty (not built). A large
    file is read by the compiled scanner, or by Arrow's reader where the scanner declines."""
    scanned = _size(path) >= SCAN_MIN_BYTES
    for scanner in (True, False) if scanned else (False,):
        try:
            parts = list(
                _parts(path, memory_mb=memory_mb, vcores=vcores, observed=observed, scan=scanner)
            )
        except Declined as error:
            logger.debug("%s: fast SLS path declined (%s)", path, error)
            continue
        tables = _tables(parts, observed=observed)
        release_free_memory()  # the blocks' arrays, before the tables are validated (copies)
        return tables
    return None


def _size(path: Path) -> int:
    """The size of `path` in bytes (0 when it cannot be read: the reader then says why)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def iter_sls_blocks(
    path: Path, *, memory_mb: float, vcores: float, progress: Callable[[int], None] | None = None
) -> Iterator[SlsTables]:
    """The SLS tables of `path` about `PIECE_TASKS` tasks (a few MB of the file) at a time.

    `progress` is called with the bytes of the file read so far. Raises `Declined`
    when the fast path does not take the file; blocks already yielded stay valid.
    """
    parts = _parts(path, memory_mb=memory_mb, vcores=vcores, progress=progress)
    yield from pieces(parts, lambda part: len(part.task_job), _tables, PIECE_TASKS)


def _parts(
    path: Path,
    *,
    memory_mb: float,
    vcores: float,
    progress: Callable[[int], None] | None = None,
    observed: bool = True,
    scan: bool = False,
) -> Iterator[_Part]:
    """Parse `path` block by block into `_Part`s (without `observed`, no hosts), by the
    compiled scanner (`scan`) or Arrow's reader; `Declined` when the fast path cannot."""
    if file_head(path).lstrip()[:1] != b"{":
        raise Declined("not concatenated objects (a top-level array, or not JSON)")
    blocks: Iterator[Block]
    if scan:
        from whatif.readers.sls_scan import scan_blocks  # numba, only for large files

        blocks = (Block(*b) for b in scan_blocks(path, hosts=observed, progress=progress))
    else:
        batches = iter_batches(path, SCHEMA, block_bytes=BLOCK_BYTES, progress=progress)
        blocks = (arrow_block(batch) for batch in batches)
    first = 1  # record number of the next job
    for block in blocks:
        yield _part(block, first, float(memory_mb), float(vcores), observed)
        first += len(block.lengths)
    if first == 1:
        raise Declined("no job objects")


def arrow_block(batch: pa.RecordBatch) -> Block:
    """The `Block` of a record batch of `SCHEMA` (Arrow's reader)."""
    col = dict(zip(batch.schema.names, batch.columns, strict=True))
    flat, lengths = _flat_tasks(col.pop("job.tasks"))
    return Block(col, {name: flat.field(name) for name in _TASK.names}, lengths)


def _part(block: Block, first: int, memory_mb: float, vcores: float, observed: bool) -> _Part:
    """The jobs and tasks of one parsed block; `first` is its first job's record number;
    the tasks' hosts only when the observed schedule is built (`observed`)."""
    col, task, lengths = block
    n = len(lengths)
    ids = col["job.id"]
    if ids.null_count:
        default_ids = pa.array([f"job_{first + k}" for k in range(n)], pa.string())
        ids = pc.if_else(ids.is_null(), default_ids, ids)
    copies = whole(numbers(col["job.count"], 1.0), MAX_COUNT, "job.count")
    if (copies > 1).any():
        raise Declined("job.count above 1")
    start_ms = numbers(col["job.start.ms"], None)
    end_ms = numbers(col["job.end.ms"], np.nan)
    am_memory = numbers(col["am.memory-mb"], numbers(col["am.memory"], 1024.0))
    am_vcores = numbers(col["am.vcores"], 1.0)
    stage = _stage_codes(task["container.type"])
    has_start, has_end = present(task["container.start.ms"]), present(task["container.end.ms"])
    t_start = numbers(task["container.start.ms"], np.nan)
    t_end = numbers(task["container.end.ms"], np.nan)
    fallback = numbers(task["container.duration.ms"], numbers(task["duration.ms"], np.nan))
    timed_task = has_start & has_end
    duration = np.where(timed_task, t_end - t_start, fallback)
    if np.isnan(duration).any() or (duration < 0).any():
        raise Declined("a task without a duration, or ending before it starts")
    memory = numbers(task["container.memory-mb"], numbers(task["container.memory"], memory_mb))
    cores = numbers(task["container.vcores"], vcores)
    default_priority = np.where(stage == _MAP, 20.0, 10.0)
    priority = np.trunc(numbers(task["container.priority"], default_priority))
    if ((priority < -(2.0**31)) | (priority >= 2.0**31)).any():
        raise Declined("a priority outside a Java int")
    count = whole(numbers(task["count"], 1.0), MAX_COUNT, "count")
    task_job = np.repeat(np.arange(n, dtype=np.int64), lengths)
    # A job is timed when every one of its task definitions has a start and an end.
    untimed_per_job = np.bincount(task_job, weights=~timed_task, minlength=n)
    timed = untimed_per_job == 0
    rows = np.repeat(np.arange(len(stage), dtype=np.int64), count)
    task_job = task_job[rows]
    stage = stage[rows]
    return _Part(
        job_id=ids,
        queue=queues(col["job.queue.name"]),
        user=texts(col["job.user"], "default"),
        start_ms=start_ms,
        end_ms=end_ms,
        am_memory=am_memory,
        am_vcores=am_vcores,
        timed=timed,
        task_job=task_job,
        stage=stage,
        number=_numbers_within(task_job, stage, n),
        start=t_start[rows] / 1000.0,
        end=t_end[rows] / 1000.0,
        duration=duration[rows] / 1000.0,
        memory=memory[rows],
        vcores=cores[rows],
        priority=priority[rows].astype(np.int64),
        host=texts(task["container.host"], "").take(pa.array(rows)) if observed else None,
    )


def _flat_tasks(lists: pa.Array) -> tuple[pa.StructArray, np.ndarray]:
    """Every job's task definitions in one array, and how many each job has; a job without
    any, or a null task, declines (the precise reader says where)."""
    if lists.null_count:
        raise Declined("a job without job.tasks")
    lengths = pc.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    if (lengths == 0).any():
        raise Declined("a job with an empty job.tasks")
    flat = pc.list_flatten(lists)
    if flat.null_count:
        raise Declined("a null task")
    return flat, lengths


def _stage_codes(column: pa.Array) -> np.ndarray:
    """Index in `STAGES` of each task's container.type (null: map); another name declines."""
    encoded = pc.dictionary_encode(pc.fill_null(column, "map"))
    names = encoded.dictionary.to_pylist()
    if any(name not in MAPREDUCE_STAGE_ORDER for name in names):
        raise Declined("a container.type that is not a MapReduce stage")
    lookup = np.array([STAGES.index(name) for name in names], dtype=np.int8)
    result: np.ndarray = lookup[encoded.indices.to_numpy(zero_copy_only=False)]
    return result


def _numbers_within(task_job: np.ndarray, stage: np.ndarray, n_jobs: int) -> np.ndarray:
    """Each task's 0-based number among its job's tasks of the same stage, in file order."""
    number = np.zeros(len(task_job), dtype=np.int64)
    for code in np.unique(stage):
        mask = stage == code
        running = np.cumsum(mask)  # tasks of this stage up to and including each row
        before_job = np.zeros(n_jobs + 1, dtype=np.int64)
        # Count of this stage's tasks in jobs before each job: from the job start rows.
        per_job = np.bincount(task_job[mask], minlength=n_jobs)
        before_job[1:] = np.cumsum(per_job)
        number[mask] = running[mask] - 1 - before_job[task_job[mask]]
    return number


class _Columns:
    """The blocks' arrays, each field concatenated when first taken, its pieces then dropped
    (so that the blocks and the whole columns are not all held at once)."""

    def __init__(self, parts: list[_Part]) -> None:
        offsets = np.cumsum([0] + [len(p.start_ms) for p in parts])
        for part, offset in zip(parts, offsets, strict=False):
            part.task_job[:] += offset  # the blocks' own arrays, made for this concatenation
        self.pending = {
            f.name: [getattr(p, f.name) for p in parts] for f in dataclasses.fields(_Part)
        }
        parts.clear()

    def take(self, name: str) -> Any:
        pieces = self.pending.pop(name)
        if isinstance(pieces[0], pa.Array):
            return pa.concat_arrays(pieces)
        return np.concatenate(pieces)


def _tables(parts: list[_Part], *, observed: bool = True) -> SlsTables:
    """Concatenate the blocks' arrays (`parts` is emptied) into the reader's four DataFrames;
    without `observed` the observed schedule's two are left empty."""
    columns = _Columns(parts)
    job_id, timed = columns.take("job_id"), columns.take("timed")
    task_job = columns.take("task_job")
    task_job_id = job_id.take(pa.array(task_job))
    submit_s = columns.take("start_ms") / 1000.0
    jobs = pd.DataFrame(
        {
            "job_id": strings(job_id),
            "queue": strings(columns.take("queue")),
            "submit_s": submit_s,
            "user": strings(columns.take("user")),
            "am_memory_mb": columns.take("am_memory"),
            "am_vcores": columns.take("am_vcores"),
        }
    )
    all_timed = bool(timed.all())
    task_timed = timed[task_job]
    tasks, task_id = _task_table(columns, task_job_id, task_timed)
    if not (observed and all_timed):
        return SlsTables(jobs, pd.DataFrame(), tasks, pd.DataFrame(), all_timed)
    # Launch: a timed job's first task start (NaN for a job none of whose tasks remain).
    start = tasks["observed_start_s"].to_numpy()
    launch = np.full(len(submit_s), np.inf)
    np.fmin.at(launch, task_job, start)
    launch[~timed | np.isinf(launch)] = np.nan
    schedule_jobs = pd.DataFrame(
        {
            "job_id": jobs["job_id"],
            "queue": jobs["queue"],
            "submit_s": submit_s,
            "launch_s": launch,
            "finish_s": columns.take("end_ms") / 1000.0,
            "user": jobs["user"],
        }
    )
    attempts = pd.DataFrame(
        {
            "job_id": tasks["job_id"],
            "task_id": tasks["task_id"],
            "attempt_id": strings(pc.binary_join_element_wise(task_id, "0", "_")),
            "stage": tasks["stage"],
            "start_s": start,
            "finish_s": tasks["observed_finish_s"].to_numpy(),
            "memory_mb": tasks["memory_mb"],
            "vcores": tasks["vcores"],
            "node": strings(columns.take("host")),
        }
    )
    return SlsTables(jobs, schedule_jobs, tasks, attempts, all_timed)


def _task_table(
    columns: _Columns, task_job_id: pa.Array, task_timed: np.ndarray
) -> tuple[pd.DataFrame, pa.Array]:
    """The tasks' table, ids built by Arrow string kernels, observed times where timed; and
    its task ids as Arrow strings."""
    codes = pa.array(columns.take("stage").astype(np.int64))
    stage_names = pa.array(STAGES, pa.string()).take(codes)
    letters = pa.array([s[0] for s in STAGES], pa.string()).take(codes)
    numbers = pc.utf8_lpad(pa.array(columns.take("number")).cast(pa.string()), 6, padding="0")
    task_id = pc.binary_join_element_wise(task_job_id, letters, numbers, "_")
    del codes, letters, numbers
    states = pa.array(["", "SUCCEEDED"], pa.string()).take(pa.array(task_timed.astype(np.int64)))
    start, end = columns.take("start"), columns.take("end")
    start[~task_timed] = np.nan
    end[~task_timed] = np.nan
    tasks = pd.DataFrame(
        {
            "job_id": strings(task_job_id),
            "task_id": strings(task_id),
            "stage": strings(stage_names),
            "duration_s": columns.take("duration"),
            "memory_mb": columns.take("memory"),
            "vcores": columns.take("vcores"),
            "priority": columns.take("priority"),
            "observed_start_s": start,
            "observed_finish_s": end,
            "observed_state": strings(states),
        },
        copy=False,  # new arrays: not copied again into one block
    )
    return tasks, task_id
