"""Hadoop 2/3 MapReduce JobHistory files (``.jhist``, Avro-JSON text encoding).

A ``.jhist`` file is written by the MapReduce ApplicationMaster: line 1 is
``Avro-Json``, line 2 the Avro schema, then one event per line
``{"type": "...", "event": {"org.apache.hadoop.mapreduce.jobhistory.Record": {...}}}``.
Two schema generations exist: older files write optional fields as plain values,
newer ones as Avro unions (``{"string": "OFF_SWITCH"}``); both are accepted.

What is read:

- the job (JOB_SUBMITTED, JOB_QUEUE_CHANGED, JOB_INITED, JOB_INFO_CHANGED,
  JOB_FINISHED / JOB_FAILED / JOB_KILLED / JOB_ERROR) and each AM_STARTED;
- every task (TASK_STARTED, TASK_FINISHED, TASK_FAILED), including job setup and
  cleanup tasks, and every attempt (``*_ATTEMPT_STARTED``, ``*_ATTEMPT_FINISHED``,
  ``*_ATTEMPT_FAILED``, ``*_ATTEMPT_KILLED``), killed and failed ones included;
- a reduce attempt's ``shuffleFinishTime``/``sortFinishTime``;
- NORMALIZED_RESOURCE container sizes when present.

A task's ``duration_s`` is its successful attempt's run time (else its last
attempt's, else the task's own start to finish). Container sizes are not
otherwise recorded in ``.jhist`` files, so the reader uses the Hadoop defaults
(options ``map_memory_mb``, ``reduce_memory_mb``, ``am_memory_mb``, ``vcores``)
and says so in the trace notes. ApplicationMaster containers appear in the
observed schedule as attempts with ``is_am`` true and stage ``am``. A killed
attempt whose diagnostics mention preemption is marked ``preempted``.

A directory is read as every ``*.jhist`` file in it, in name order.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whatif.errors import TraceFormatError, WhatifError
from whatif.readers.base import ContainerSizedReader, normalize_queue, not_utf8
from whatif.readers.hadoop_ids import job_of_app_attempt, job_of_task
from whatif.readers.jhist_columns import read_jhist_tables
from whatif.readers.jhist_tables import (
    STAGES,
    FileHistory,
    HistoryAttempt,
    HistoryJob,
    JhistTables,
    RowTables,
    history_time,
)
from whatif.readers.json_stream import json_problem
from whatif.schedule import Schedule
from whatif.trace import Trace
from whatif.workload import Workload

logger = logging.getLogger(__name__)

MAGIC = "Avro-Json"

_AVRO_TYPES = frozenset(
    {"string", "long", "int", "boolean", "double", "float", "bytes", "null", "array", "map"}
)

_NAN = math.nan


def _plain(value: object) -> object:
    """Unwrap an Avro union value ``{"string": "x"}`` to ``"x"``."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        if key in _AVRO_TYPES or "." in key:
            return inner
    return value


@dataclass
class _Attempt(HistoryAttempt):
    error: str = ""


@dataclass
class _Task:
    stage: str
    start_s: float = _NAN
    finish_s: float = _NAN
    state: str = "RUNNING"
    successful: str = ""
    splits: str = ""
    attempts: list[str] = field(default_factory=list)


@dataclass
class _Job(HistoryJob):
    am_starts: list[tuple[float, str, str, str]] = field(default_factory=list)
    memory_mb: dict[str, float] = field(default_factory=dict)


#: One file's jobs, tasks and attempts as the precise path gathers them.
_History = FileHistory[_Job, _Task, _Attempt]


class _Event:
    """One event's record, with accessors that raise errors naming the line."""

    __slots__ = ("kind", "path", "line", "record")

    def __init__(self, kind: str, path: Path, line: int, record: dict[str, Any]) -> None:
        self.kind, self.path, self.line, self.record = kind, path, line, record

    def fail(self, what: str) -> TraceFormatError:
        return TraceFormatError(f"{self.path}:{self.line}: {self.kind} event {what}")

    def text(self, key: str, default: str | None = None) -> str:
        value = _plain(self.record.get(key, default))
        if value is None:
            if default is not None:
                return default
            raise self.fail(f"lacks field {key!r}")
        if not isinstance(value, str):
            raise self.fail(f"field {key!r}: expected a string, got {value!r}")
        return value

    def time(self, key: str, *, required: bool = True) -> float:
        """A millisecond timestamp as float seconds (NaN when absent/-1 and optional; a
        required one must be there and not negative: Hadoop writes -1 only for times it
        does not have, and a job or task has its start and finish)."""
        value = _plain(self.record.get(key))
        return history_time(value, key, required=required, fail=self.fail, absent="lacks field")

    def number(self, key: str) -> float:
        value = _plain(self.record.get(key))
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"field {key!r}: expected a number, got {value!r}")
        return float(value)


class JhistReader(ContainerSizedReader):
    """MapReduce JobHistory ``.jhist`` files (a file, or a directory of them)."""

    name = "jhist"
    description = "Hadoop 2/3 MapReduce JobHistory .jhist (Avro-JSON), file or directory"

    def __init__(
        self,
        *,
        map_memory_mb: float = 1024.0,
        reduce_memory_mb: float = 1024.0,
        am_memory_mb: float = 1536.0,
        vcores: float = 1.0,
    ) -> None:
        super().__init__(
            map_memory_mb=map_memory_mb, reduce_memory_mb=reduce_memory_mb, vcores=vcores
        )
        self.am_memory_mb = am_memory_mb

    @classmethod
    def sniff(cls, path: Path, head: bytes) -> bool:
        if path.is_dir():
            return any(path.glob("*.jhist"))
        return head.startswith(MAGIC.encode())

    def read(self, path: Path) -> Trace:
        """Arrow's columnar fast path (`whatif.readers.jhist_columns`), else the precise one."""
        self.check_sizes(path)
        files = self.files(path)
        tables = read_jhist_tables(self, files)
        return self.trace(path, tables if tables is not None else self._precise_tables(files))

    def read_precise(self, path: Path) -> Trace:
        """`read` by the precise path alone (the one that locates errors); for tests."""
        self.check_sizes(path)
        return self.trace(path, self._precise_tables(self.files(path)))

    @staticmethod
    def files(path: Path) -> list[Path]:
        """The .jhist files `path` names (itself, or a directory's in name order)."""
        files = sorted(path.glob("*.jhist")) if path.is_dir() else [path]
        if not files:
            raise TraceFormatError(f"{path}: directory holds no .jhist files")
        return files

    def _precise_tables(self, files: list[Path]) -> JhistTables:
        """The tables, one Python object per task and attempt; errors name ``path:line``."""
        tables = RowTables()
        for file in files:
            self.read_file(file, tables)
        return JhistTables.of(tables)

    def trace(self, path: Path, tables: JhistTables) -> Trace:
        """The validated trace of `tables` read from `path`, with the reader's notes."""
        notes = [
            f"container sizes not recorded in .jhist unless NORMALIZED_RESOURCE: map "
            f"{self.map_memory_mb:g} MB, reduce {self.reduce_memory_mb:g} MB, AM "
            f"{self.am_memory_mb:g} MB, {self.vcores:g} vcore(s) assumed"
        ]
        if tables.unstarted:
            notes.append(
                f"{tables.unstarted} attempt(s) finished without a recorded start; start = finish"
            )
        try:
            workload = Workload(jobs=tables.jobs, tasks=tables.tasks)
            observed = Schedule(jobs=tables.schedule_jobs, attempts=tables.attempts)
        except WhatifError as error:
            raise TraceFormatError(f"{path}: {error}") from error
        return Trace(
            workload=workload, observed=observed, source=path, format=self.name, notes=tuple(notes)
        )

    def read_file(self, file: Path, tables: RowTables) -> None:
        """Append one file's jobs, tasks and attempts to `tables`, by the precise path."""
        try:
            handle = open(file, encoding="utf-8")
        except OSError as error:
            raise TraceFormatError(f"{file}: cannot read ({error.strerror or error})") from error
        history = _History()
        with handle:
            try:
                for number, line in enumerate(handle, start=1):
                    if number == 1:
                        if line.strip() != MAGIC:
                            raise TraceFormatError(
                                f"{file}:1: expected the line 'Avro-Json', got {line.strip()[:40]!r}"
                            )
                        continue
                    if not line.strip():
                        continue
                    try:
                        data = json.loads(line)
                    except (ValueError, RecursionError):  # JSONDecodeError, a huge int
                        _, col, problem = json_problem(line, end="line", whole=True)
                        raise TraceFormatError(
                            f"{file}:{number}:{col}: invalid JSON: {problem}"
                        ) from None
                    if number == 2:
                        if not isinstance(data, dict) or data.get("name") != "Event":
                            raise TraceFormatError(f"{file}:2: expected the Avro schema of 'Event'")
                        continue
                    self.handle_event(file, number, data, history)
            except UnicodeDecodeError as error:
                raise not_utf8(file, error.reason) from None
        if not history.jobs:
            raise TraceFormatError(f"{file}: no JOB_SUBMITTED event (not a complete .jhist file?)")
        self.emit(file, history, tables)

    def handle_event(self, file: Path, number: int, data: object, history: _History) -> None:
        if not isinstance(data, dict) or not isinstance(data.get("event"), dict):
            raise TraceFormatError(
                f"{file}:{number}: expected an event object with 'type' and 'event'"
            )
        kind = data.get("type")
        wrapped = data["event"]
        if not isinstance(kind, str) or len(wrapped) != 1:
            raise TraceFormatError(
                f"{file}:{number}: expected an event object with 'type' and 'event'"
            )
        ((record_name, record),) = wrapped.items()
        if not isinstance(record, dict):
            raise TraceFormatError(f"{file}:{number}: {kind} event is not an object")
        record_name = record_name.rsplit(".", 1)[-1]
        event = _Event(kind, file, number, record)

        if not self._job_event(event, record_name, history.jobs):
            self._task_event(event, record_name, history)
        # Other events (JOB_PRIORITY_CHANGED, JOB_STATUS_CHANGED, TASK_UPDATED, ...) carry
        # nothing the workload or schedule needs.

    @staticmethod
    def _job_event(event: _Event, record_name: str, jobs: dict[str, _Job]) -> bool:
        """Apply a job-level event (submission, queue change, init, finish, AM start);
        False if `event` is not one."""
        kind = event.kind

        def job(key: str = "jobid") -> _Job:
            job_id = event.text(key)
            if job_id not in jobs or math.isnan(jobs[job_id].submit_s):
                raise event.fail(f"names job {job_id!r} before its JOB_SUBMITTED")
            return jobs[job_id]

        if kind == "JOB_SUBMITTED":
            job_id: str | None  # (an AM_STARTED's attempt id may name none)
            job_id = event.text("jobid")
            target = jobs.setdefault(job_id, _Job(job_id=job_id, line=event.line))
            if not math.isnan(target.submit_s):
                raise event.fail(f"repeats job {job_id!r}")
            target.name = event.text("jobName", "")
            target.user = event.text("userName", "unknown")
            target.queue = event.text("jobQueueName", "")
            target.submit_s = event.time("submitTime")
        elif kind == "JOB_QUEUE_CHANGED":
            job().queue = event.text("jobQueueName")
        elif kind == "JOB_INITED":
            job().launch_s = event.time("launchTime")
        elif kind == "JOB_INFO_CHANGED":
            target = job()
            target.submit_s = event.time("submitTime")
            target.launch_s = event.time("launchTime")
        elif kind == "JOB_FINISHED":
            target = job()
            target.finish_s, target.state = event.time("finishTime"), "SUCCEEDED"
        elif record_name == "JobUnsuccessfulCompletion":
            target = job()
            target.finish_s = event.time("finishTime")
            status = event.text("jobStatus", kind.removeprefix("JOB_"))
            target.state = "KILLED" if status == "KILLED" else "FAILED"
        elif kind == "AM_STARTED":
            attempt_id = event.text("applicationAttemptId")
            job_id = job_of_app_attempt(attempt_id)
            if job_id is None:
                raise event.fail(f"field 'applicationAttemptId': not an attempt id: {attempt_id!r}")
            # AM_STARTED is written before JOB_SUBMITTED: create the job lazily.
            target = jobs.setdefault(job_id, _Job(job_id=job_id, line=event.line))
            target.am_starts.append(
                (
                    event.time("startTime"),
                    attempt_id,
                    event.text("containerId", attempt_id),
                    event.text("nodeManagerHost", ""),
                )
            )
        else:
            return False
        return True

    def _task_event(self, event: _Event, record_name: str, history: _History) -> None:
        """Apply a task-level event (container sizes, task and attempt starts and ends)."""
        kind = event.kind
        tasks = history.tasks
        if kind == "NORMALIZED_RESOURCE":
            stage = STAGES.get(event.text("taskType"))
            if stage is not None:
                for target in history.jobs.values():
                    target.memory_mb[stage] = event.number("memory")
        elif kind == "TASK_STARTED":
            task_id = event.text("taskid")
            task_type = event.text("taskType")
            if task_type not in STAGES:
                raise event.fail(
                    f"field 'taskType': expected one of {', '.join(STAGES)}, got {task_type!r}"
                )
            task = tasks.setdefault(task_id, _Task(stage=STAGES[task_type]))
            task.start_s = event.time("startTime")
            task.splits = event.text("splitLocations", "")
        elif kind in ("TASK_FINISHED", "TASK_FAILED"):
            task = self._task(event, tasks)
            task.finish_s = event.time("finishTime")
            task.state = event.text("status", "SUCCEEDED" if kind == "TASK_FINISHED" else "FAILED")
            if kind == "TASK_FINISHED":
                task.successful = event.text("successfulAttemptId", "")
        elif record_name == "TaskAttemptStarted":
            attempt = self._attempt(event, history)
            attempt.start_s = event.time("startTime")
            attempt.node = event.text("trackerName", "")
        elif record_name in ("MapAttemptFinished", "ReduceAttemptFinished", "TaskAttemptFinished"):
            attempt = self._attempt(event, history)
            attempt.finish_s = event.time("finishTime")
            attempt.state = event.text("taskStatus", "SUCCEEDED")
            attempt.node = event.text("hostname", attempt.node)
            if record_name == "ReduceAttemptFinished":
                attempt.shuffle_s = event.time("shuffleFinishTime", required=False)
                attempt.sort_s = event.time("sortFinishTime", required=False)
        elif record_name == "TaskAttemptUnsuccessfulCompletion":
            attempt = self._attempt(event, history)
            attempt.finish_s = event.time("finishTime")
            attempt.state = event.text("status", "KILLED" if kind.endswith("KILLED") else "FAILED")
            attempt.node = event.text("hostname", attempt.node)
            attempt.error = event.text("error", "")

    @staticmethod
    def _task(event: _Event, tasks: dict[str, _Task]) -> _Task:
        task_id = event.text("taskid")
        task = tasks.get(task_id)
        if task is None:
            task_type = event.text("taskType")
            if task_type not in STAGES:
                raise event.fail(
                    f"field 'taskType': expected one of {', '.join(STAGES)}, got {task_type!r}"
                )
            task = tasks[task_id] = _Task(stage=STAGES[task_type])
        return task

    def _attempt(self, event: _Event, history: _History) -> _Attempt:
        attempt_id = event.text("attemptId")
        attempt = history.attempts.get(attempt_id)
        if attempt is None:
            task = self._task(event, history.tasks)
            task_id = event.text("taskid")
            attempt = history.attempts[attempt_id] = _Attempt(task_id=task_id, stage=task.stage)
            task.attempts.append(attempt_id)
        return attempt

    def memory_for(self, job: _Job, stage: str) -> float:
        """A task's container memory: the job's NORMALIZED_RESOURCE, else the option."""
        if stage in job.memory_mb:
            return job.memory_mb[stage]
        return self.reduce_memory_mb if stage == "reduce" else self.map_memory_mb

    def emit(self, file: Path, history: _History, tables: RowTables) -> None:
        """Append the rows of what `history` holds: its jobs, then its tasks and attempts."""
        for job in history.jobs.values():
            self._job_rows(file, job, tables)
        for task_id, task in history.tasks.items():
            self._task_rows(file, task_id, task, history, tables)

    def _job_rows(self, file: Path, job: _Job, tables: RowTables) -> None:
        """A job's rows: the job, its observed schedule row and each AM attempt (an AM
        that started again failed at the next start)."""
        if math.isnan(job.submit_s):
            raise TraceFormatError(
                f"{file}: job {job.job_id!r} has AM_STARTED but no JOB_SUBMITTED"
            )
        queue = normalize_queue(job.queue)
        am_start = min((s[0] for s in job.am_starts), default=_NAN)
        tables.jobs.append(
            (
                job.job_id,
                queue,
                job.submit_s,
                job.user,
                job.name,
                self.am_memory_mb,
                self.vcores,
                am_start,
            )
        )
        launch = am_start if not math.isnan(am_start) else job.launch_s
        tables.schedule_jobs.append(
            (job.job_id, queue, job.submit_s, launch, job.finish_s, job.user, job.state)
        )
        starts = sorted(job.am_starts)
        for i, (start, app_attempt, container, host) in enumerate(starts):
            last = i == len(starts) - 1
            finish = job.finish_s if last else starts[i + 1][0]
            state = (job.state if job.state != "RUNNING" else "RUNNING") if last else "FAILED"
            tables.attempts.append(
                (
                    job.job_id,
                    app_attempt,
                    container,
                    "am",
                    start,
                    finish,
                    self.am_memory_mb,
                    self.vcores,
                    state,
                    False,
                    True,
                    host,
                )
            )

    def _task_rows(
        self, file: Path, task_id: str, task: _Task, history: _History, tables: RowTables
    ) -> None:
        """A task's row, timed by its chosen attempt (else its own times), and its
        attempts' rows."""
        job_id = job_of_task(task_id)
        owner = history.jobs.get(job_id) if job_id is not None else None
        if owner is None or job_id is None:
            raise TraceFormatError(f"{file}: task {task_id!r} belongs to no JOB_SUBMITTED job")
        memory = self.memory_for(owner, task.stage)
        chosen = self._attempt_rows(file, job_id, task_id, task, memory, history.attempts, tables)
        if chosen is not None and not math.isnan(chosen.finish_s):
            start, finish = chosen.start_s, chosen.finish_s
            shuffle, sort = chosen.shuffle_s, chosen.sort_s
        else:
            start, finish, shuffle, sort = task.start_s, task.finish_s, _NAN, _NAN
        duration = finish - start if not (math.isnan(start) or math.isnan(finish)) else 0.0
        tables.tasks.append(
            (
                job_id,
                task_id,
                task.stage,
                max(duration, 0.0),
                memory,
                self.vcores,
                start,
                finish,
                task.state,
                shuffle,
                sort,
                task.splits if task.stage == "map" else "",
            )
        )

    def _attempt_rows(
        self,
        file: Path,
        job_id: str,
        task_id: str,
        task: _Task,
        memory: float,
        attempts: dict[str, _Attempt],
        tables: RowTables,
    ) -> _Attempt | None:
        """A task's attempts as rows; the one to replay: the task's successful attempt,
        else the first that succeeded, else the latest started."""
        chosen: _Attempt | None = None
        for attempt_id in task.attempts:
            attempt = attempts[attempt_id]
            if math.isnan(attempt.start_s):
                attempt.start_s = attempt.finish_s
                tables.unstarted += 1
                if math.isnan(attempt.start_s):
                    raise TraceFormatError(
                        f"{file}: attempt {attempt_id!r} has neither start nor finish"
                    )
            if attempt_id == task.successful or (
                attempt.state == "SUCCEEDED" and (chosen is None or chosen.state != "SUCCEEDED")
            ):
                chosen = attempt
            elif chosen is None or (
                chosen.state != "SUCCEEDED" and attempt.start_s >= chosen.start_s
            ):
                chosen = attempt
            preempted = attempt.state == "KILLED" and "preempt" in attempt.error.lower()
            tables.attempts.append(
                (
                    job_id,
                    task_id,
                    attempt_id,
                    task.stage,
                    attempt.start_s,
                    attempt.finish_s,
                    memory,
                    self.vcores,
                    attempt.state,
                    preempted,
                    False,
                    attempt.node,
                )
            )
        return chosen


__all__ = ["JhistReader", "STAGES"]
