"""Scheduler Load Simulator (SLS) traces: job files and ``nodes.json`` topologies.

An SLS job file is a sequence of *concatenated* JSON objects (not an array), one
per job, read by SLS with Jackson's ``MappingIterator``::

    {"am.type": "mapreduce", "job.start.ms": 0, "job.end.ms": 95375,
     "job.queue.name": "sls_queue_1", "job.id": "job_1", "job.user": "default",
     "job.count": 1,
     "job.tasks": [{"container.host": "/default-rack/node1", "container.start.ms": 6664,
                    "container.end.ms": 23707, "container.priority": 20,
                    "container.type": "map", "count": 1,
                    "container.memory-mb": 1024, "container.vcores": 1}, ...]}

Fields follow SLS (``SLSConfiguration``, ``AMDefinitionSLS``): a task's duration is
``container.end.ms - container.start.ms``, else ``container.duration.ms``, else the
legacy ``duration.ms``; ``count`` repeats a task definition and ``job.count`` a job
(copies get ids ``<job.id>-<k>``); container sizes default to SLS's 1024 MB and 1
vcore (options ``memory_mb``, ``vcores``), the AM to ``am.memory-mb``/``am.vcores``
or 1024 MB/1 vcore. Times are milliseconds from the start of the simulation and
become seconds. When every task has a start and end, the trace also carries an
observed schedule (one attempt per task, plus the job start/end).

`read_sls_nodes` turns a ``nodes.json`` (concatenated ``{"rack": ..., "nodes":
[{"node": ...}]}`` objects) into a `Cluster`; an entry without a ``node`` name
(upstream's test file has one, ``{}``) is skipped with a warning.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from whatif.cluster import Cluster, Node
from whatif.errors import TraceFormatError, WhatifError
from whatif.readers.base import TraceReader, normalize_queue
from whatif.readers.columns import TableBuilder
from whatif.readers.json_stream import JsonRecord, iter_json_objects
from whatif.readers.sls_columns import SlsTables, read_sls_tables
from whatif.schedule import ATTEMPT_COLUMNS, SCHEDULE_JOB_COLUMNS, Schedule
from whatif.trace import Trace
from whatif.workload import (
    JOB_COLUMNS,
    MAPREDUCE_STAGE_ORDER,
    TASK_COLUMNS,
    Workload,
    column_types,
)

logger = logging.getLogger(__name__)

#: SLS's default container and AM sizes (SLSConfiguration).
SLS_CONTAINER_MEMORY_MB = 1024.0
SLS_CONTAINER_VCORES = 1.0

#: Most copies one ``count`` or ``job.count`` may ask for (a typo of 1e15 is not a trace).
MAX_COUNT = 1_000_000

# The reader's tables are the data model's (`whatif.workload`, `whatif.schedule`) but the
# columns SLS does not record (the stage index is set from the stage later).
JOB_TABLE = column_types(JOB_COLUMNS, without=("name", "deadline_s", "recurring_key", "am_start_s"))
SCHEDULE_JOB_TABLE = column_types(SCHEDULE_JOB_COLUMNS, without=("state",))
TASK_TABLE = column_types(
    TASK_COLUMNS, without=("stage_index", "shuffle_finish_s", "sort_finish_s")
)
ATTEMPT_TABLE = column_types(ATTEMPT_COLUMNS, without=("state", "preempted", "is_am"))


class _Record:
    """One SLS object with accessors whose errors name the file, line and record."""

    def __init__(self, path: Path, record: JsonRecord, what: str) -> None:
        if not isinstance(record.value, dict):
            raise TraceFormatError(
                f"{path}:{record.line}: record {record.index}: expected a JSON object, "
                f"got {type(record.value).__name__}"
            )
        self.path, self.record, self.what = path, record, what
        self.data: dict[str, Any] = record.value

    def fail(self, message: str) -> TraceFormatError:
        return TraceFormatError(f"{self.path}:{self.record.line}: {self.what}: {message}")

    def number(self, data: dict[str, Any], key: str, default: float | None = None) -> float:
        if key not in data or data[key] is None:
            if default is None:
                raise self.fail(f"missing field {key!r}")
            return default
        value = data[key]
        if isinstance(value, str):
            try:
                value = float(value)  # Jackson/SLS accept numbers written as strings
            except ValueError:
                raise self.fail(f"field {key!r}: expected a number, got {value!r}") from None
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise self.fail(f"field {key!r}: expected a number, got {value!r}")
        return float(value)

    def whole(self, data: dict[str, Any], key: str, default: float, maximum: int) -> int:
        """A whole number in ``[0, maximum]`` (``job.count``), or an error naming the field."""
        value = self.number(data, key, default)
        if not 0 <= value <= maximum or value != int(value):
            raise self.fail(
                f"field {key!r}: expected a whole number in [0, {maximum}], got {value!r}"
            )
        return int(value)

    def text(self, data: dict[str, Any], key: str, default: str) -> str:
        value = data.get(key, default)
        if value is None:
            return default
        if isinstance(value, (dict, list)):
            raise self.fail(f"field {key!r}: expected a string, got {value!r}")
        return str(value)


class SlsReader(TraceReader):
    """SLS job traces (concatenated JSON job objects)."""

    name = "sls"
    description = "Hadoop Scheduler Load Simulator (SLS) job trace JSON"

    def __init__(
        self, *, memory_mb: float = SLS_CONTAINER_MEMORY_MB, vcores: float = SLS_CONTAINER_VCORES
    ) -> None:
        self.memory_mb = memory_mb
        self.vcores = vcores

    @classmethod
    def sniff(cls, path: Path, head: bytes) -> bool:
        return (
            path.is_file()
            and head.lstrip()[:1] in (b"{", b"[")
            and (b'"job.tasks"' in head or b'"job.id"' in head or b'"job.start.ms"' in head)
        )

    def read(self, path: Path) -> Trace:
        """Arrow's columnar fast path (`whatif.readers.sls_columns`), else the precise one."""
        self._check_options(path)
        tables = read_sls_tables(path, memory_mb=self.memory_mb, vcores=self.vcores)
        return self.trace(path, tables if tables is not None else self._precise_tables(path))

    def read_workload(self, path: Path) -> Trace:
        """`read` without the observed schedule, which the fast path then does not build."""
        self._check_options(path)
        tables = read_sls_tables(path, memory_mb=self.memory_mb, vcores=self.vcores, observed=False)
        if tables is None:
            tables = self._precise_tables(path)
        return self.trace(path, tables, observed=False)

    def read_precise(self, path: Path) -> Trace:
        """`read` by the precise path alone (the one that locates errors); for tests."""
        self._check_options(path)
        return self.trace(path, self._precise_tables(path))

    def _check_options(self, path: Path) -> None:
        for option in ("memory_mb", "vcores"):
            value = getattr(self, option)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise TraceFormatError(
                    f"{path}: option {option} expects a number >= 0, got {value!r}"
                )

    def _precise_tables(self, path: Path) -> SlsTables:
        """The tables, one Python object per job and task; errors name ``path:line``."""
        jobs = TableBuilder(JOB_TABLE)
        schedule_jobs = TableBuilder(SCHEDULE_JOB_TABLE)
        tasks = TableBuilder(TASK_TABLE)
        attempts = TableBuilder(ATTEMPT_TABLE)
        all_timed = True
        n_jobs = 0
        for record in _records(path):
            job = _Record(path, record, f"job record {record.index}")
            all_timed &= self._job(job, record.index, jobs, schedule_jobs, tasks, attempts)
            n_jobs += 1
        if n_jobs == 0:
            raise TraceFormatError(f"{path}: no SLS job objects")
        return SlsTables(
            jobs.frame(), schedule_jobs.frame(), tasks.frame(), attempts.frame(), all_timed
        )

    def trace(self, path: Path, tables: SlsTables, *, observed: bool = True) -> Trace:
        """The trace of `tables` read from `path` (also each piece `whatif.readers.stream` reads);
        without `observed`, no observed schedule."""
        try:
            workload = Workload(jobs=tables.jobs, tasks=tables.tasks)
            schedule = (
                Schedule(jobs=tables.schedule_jobs, attempts=tables.attempts)
                if observed and tables.all_timed
                else None
            )
        except WhatifError as error:
            raise TraceFormatError(f"{path}: {error}") from error
        notes = (
            () if tables.all_timed else ("some tasks have only a duration: no observed schedule",)
        )
        return Trace(
            workload=workload, observed=schedule, source=path, format=self.name, notes=notes
        )

    def _task_definition(
        self, job: _Record, raw: Any, position: int
    ) -> tuple[str, float, float, float, float, float, int, float, bool]:
        """One task definition of `job.tasks` (stage, start and end ms, duration ms, memory,
        vcores, priority, count, whether it gives its own start and end), checked as SLS
        reads it."""
        own_times = True
        if not isinstance(raw, dict):
            raise job.fail(f"job.tasks[{position}]: expected an object, got {raw!r}")
        where = f"job.tasks[{position}]"
        stage = job.text(raw, "container.type", "map")
        if stage not in MAPREDUCE_STAGE_ORDER:
            raise job.fail(f"{where}: container.type expected map or reduce, got {stage!r}")
        start = job.number(raw, "container.start.ms", math.nan)
        end = job.number(raw, "container.end.ms", math.nan)
        if not (math.isnan(start) or math.isnan(end)):
            duration = end - start
        else:
            duration = job.number(
                raw, "container.duration.ms", job.number(raw, "duration.ms", math.nan)
            )
            if math.isnan(duration):
                raise job.fail(
                    f"{where}: needs container.start.ms and container.end.ms, or container.duration.ms"
                )
            own_times = False
        if duration < 0 and own_times:
            raise job.fail(f"{where}: container.end.ms is before container.start.ms")
        if duration < 0:
            field = "container.duration.ms" if "container.duration.ms" in raw else "duration.ms"
            raise job.fail(f"{where}: {field} expects a number >= 0, got {duration:g}")
        memory = job.number(
            raw,
            "container.memory-mb",
            job.number(raw, "container.memory", float(self.memory_mb)),
        )
        vcores = job.number(raw, "container.vcores", float(self.vcores))
        priority = int(job.number(raw, "container.priority", 20.0 if stage == "map" else 10.0))
        if not -(2**31) <= priority < 2**31:  # a Java int, as SLS reads it
            raise job.fail(
                f"{where}: container.priority expects an integer in [-2^31, 2^31), got {priority}"
            )
        count = job.number(raw, "count", 1.0)
        if not 0 <= count <= MAX_COUNT or count != int(count):
            raise job.fail(
                f"{where}: count expects a whole number in [0, {MAX_COUNT}], got {count!r}"
            )
        return stage, start, end, duration, memory, vcores, priority, count, own_times

    def _job(
        self,
        job: _Record,
        index: int,
        jobs: TableBuilder,
        schedule_jobs: TableBuilder,
        tasks: TableBuilder,
        attempts: TableBuilder,
    ) -> bool:
        data = job.data
        job_id = job.text(data, "job.id", f"job_{index}")
        job.what = f"job {job_id!r}"
        queue = normalize_queue(job.text(data, "job.queue.name", "default"))
        user = job.text(data, "job.user", "default")
        start_s = job.number(data, "job.start.ms") / 1000.0
        end_ms = job.number(data, "job.end.ms", math.nan)
        copies = max(1, job.whole(data, "job.count", 1.0, MAX_COUNT))
        am_memory = job.number(
            data, "am.memory-mb", job.number(data, "am.memory", SLS_CONTAINER_MEMORY_MB)
        )
        am_vcores = job.number(data, "am.vcores", SLS_CONTAINER_VCORES)
        raw_tasks = data.get("job.tasks")
        if not isinstance(raw_tasks, list) or not raw_tasks:
            raise job.fail("expected a non-empty list 'job.tasks'")
        rows: list[tuple[Any, ...]] = []
        timed = True
        counters: dict[str, int] = {}
        for position, raw in enumerate(raw_tasks):
            stage, start, end, duration, memory, vcores, priority, count, own_times = (
                self._task_definition(job, raw, position)
            )
            timed = timed and own_times
            host = job.text(raw, "container.host", "")
            for _ in range(int(count)):
                number = counters.get(stage, 0)
                counters[stage] = number + 1
                rows.append(
                    (
                        stage,
                        number,
                        duration / 1000.0,
                        memory,
                        vcores,
                        priority,
                        start / 1000.0,
                        end / 1000.0,
                        host,
                    )
                )
        for copy in range(copies):
            jid = job_id if copies == 1 else f"{job_id}-{copy}"
            jobs.append((jid, queue, start_s, user, am_memory, am_vcores))
            launch = min((r[6] for r in rows), default=math.nan) if timed else math.nan
            schedule_jobs.append((jid, queue, start_s, launch, end_ms / 1000.0, user))
            _task_rows(jid, rows, timed, tasks, attempts)
        return timed


def _records(path: Path) -> Iterator[JsonRecord]:
    """Job objects of a file of concatenated objects (or of one JSON array)."""
    for record in iter_json_objects(path):
        if isinstance(record.value, list):
            for position, value in enumerate(record.value, start=1):
                yield JsonRecord(value=value, line=record.line, index=position)
        else:
            yield record


def read_sls_nodes(path: str | os.PathLike[str], *, memory_mb: float, vcores: float) -> Cluster:
    """The cluster described by an SLS ``nodes.json``, every node `memory_mb` x `vcores`.

    Node names are ``/<rack>/<node>`` as SLS builds them. A node entry without a
    ``node`` name is skipped with a warning (upstream's own test file has one).
    """
    source = Path(path)
    nodes: list[Node] = []
    seen: set[str] = set()
    for record in _records(source):
        rack = _Record(source, record, f"rack record {record.index}")
        rack_name = rack.text(rack.data, "rack", "")
        entries = rack.data.get("nodes")
        if not rack_name or not isinstance(entries, list):
            raise rack.fail("expected fields 'rack' (a name) and 'nodes' (a list)")
        for position, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise rack.fail(f"nodes[{position}]: expected an object, got {entry!r}")
            name = entry.get("node")
            if name is None or str(name) == "":
                logger.warning(
                    "%s:%d: rack %r nodes[%d] has no 'node' name; skipped",
                    source,
                    record.line,
                    rack_name,
                    position,
                )
                continue
            full = f"/{rack_name}/{name}"
            if full in seen:
                raise rack.fail(f"nodes[{position}]: duplicate node {full!r}")
            seen.add(full)
            node_memory = rack.number(entry, "memory-mb", float(memory_mb))
            node_vcores = rack.number(entry, "vcores", float(vcores))
            nodes.append(Node(full, node_memory, node_vcores))
    if not nodes:
        raise TraceFormatError(f"{source}: no named nodes")
    try:
        return Cluster(
            memory_mb=sum(n.memory_mb for n in nodes),
            vcores=sum(n.vcores for n in nodes),
            nodes=tuple(nodes),
        )
    except WhatifError as error:
        raise TraceFormatError(f"{source}: {error}") from error


def _task_rows(
    jid: str,
    rows: list[tuple[Any, ...]],
    timed: bool,
    tasks: TableBuilder,
    attempts: TableBuilder,
) -> None:
    """One copy of a job's tasks as rows of `tasks`, and, when the job is timed, each as
    one observed attempt."""
    for stage, number, duration, memory, vcores, priority, start, end, host in rows:
        task_id = f"{jid}_{stage[0]}_{number:06d}"
        state = "SUCCEEDED" if timed else ""
        tasks.append(
            (
                jid,
                task_id,
                stage,
                duration,
                memory,
                vcores,
                priority,
                start if timed else math.nan,
                end if timed else math.nan,
                state,
            )
        )
        if timed:
            attempts.append((jid, task_id, f"{task_id}_0", stage, start, end, memory, vcores, host))
