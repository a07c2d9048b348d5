"""Rumen job traces (``hadoop rumen`` TraceBuilder output, also SLS's ``-inputrumen``).

A Rumen trace is a sequence of concatenated JSON ``LoggedJob`` objects::

    {"jobID": "job_..._1205", "user": "jenkins", "jobName": "TeraGen", "queue": "q",
     "submitTime": ms, "launchTime": ms, "finishTime": ms, "outcome": "SUCCESS",
     "jobMapMB": 200, "jobReduceMB": 200,
     "mapTasks": [{"taskID": ..., "taskType": "MAP", "startTime": ms, "finishTime": ms,
                   "taskStatus": "SUCCESS",
                   "attempts": [{"attemptID": ..., "startTime": ms, "finishTime": ms,
                                 "result": "SUCCESS", "hostName": "/rack/host",
                                 "shuffleFinished": -1, "sortFinished": -1}, ...]}],
     "reduceTasks": [...], "otherTasks": [...]}

Every attempt goes to the observed schedule (results SUCCESS/FAILED/KILLED become
SUCCEEDED/FAILED/KILLED); a task's ``duration_s`` is its successful attempt's
run time (else its last attempt's, else the task's). Container memory is
``jobMapMB``/``jobReduceMB`` when positive, else the options ``map_memory_mb``,
``reduce_memory_mb``; ``-1`` times mean "not recorded". A map's ``preferredLocations``
(its split's hosts, ``{"layers": [rack, host]}`` each) are kept in the task column
``split_locations`` as ``/rack/host`` entries (`whatif.predictor.locality`).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

from whatif.errors import TraceFormatError, WhatifError
from whatif.readers.base import ContainerSizedReader, normalize_queue
from whatif.readers.columns import TableBuilder
from whatif.readers.jhist_tables import (
    ATTEMPT_TABLE,
    HISTORY_JOB_TABLE,
    LOCATED_TASK_TABLE,
    SCHEDULE_JOB_TABLE,
    history_time,
)
from whatif.readers.json_stream import JsonRecord, iter_json_objects
from whatif.readers.rumen_columns import STAGES, STATES, Options, RumenTables, read_rumen_tables
from whatif.schedule import Schedule
from whatif.trace import Trace
from whatif.workload import Workload

logger = logging.getLogger(__name__)


_JOB_STATES = STATES

_NAN = math.nan


class _Job:
    """One LoggedJob with accessors whose errors name the file, line and field path."""

    def __init__(self, path: Path, record: JsonRecord) -> None:
        if not isinstance(record.value, dict):
            raise TraceFormatError(
                f"{path}:{record.line}: record {record.index}: expected a JSON object, "
                f"got {type(record.value).__name__}"
            )
        self.path, self.line, self.data = path, record.line, record.value
        self.what = f"job record {record.index}"

    def fail(self, message: str) -> TraceFormatError:
        return TraceFormatError(f"{self.path}:{self.line}: {self.what}: {message}")

    def time(self, data: dict[str, Any], key: str, where: str, *, required: bool = False) -> float:
        """A ms timestamp as seconds; -1 or absent is NaN unless required."""
        return history_time(
            data.get(key),
            key,
            required=required,
            fail=lambda message: self.fail(where + message),
            absent="missing field",
        )

    def text(self, data: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
        value = data.get(key, default)
        if value is None:
            raise self.fail(f"{where}missing field {key!r}")
        if not isinstance(value, str):
            raise self.fail(f"{where}field {key!r}: expected a string, got {value!r}")
        return value


class RumenReader(ContainerSizedReader):
    """Rumen JSON job traces (concatenated LoggedJob objects)."""

    name = "rumen"
    description = "Hadoop Rumen job trace JSON (LoggedJob objects)"

    @classmethod
    def sniff(cls, path: Path, head: bytes) -> bool:
        return (
            path.is_file()
            and head.lstrip()[:1] == b"{"
            and b'"jobID"' in head
            and (b'"mapTasks"' in head or b'"submitTime"' in head)
        )

    def read(self, path: Path) -> Trace:
        """Arrow's columnar fast path (`whatif.readers.rumen_columns`), else the precise one."""
        self.check_sizes(path)
        tables = read_rumen_tables(path, self.options())
        return self.trace(path, tables if tables is not None else self._precise_tables(path))

    def read_precise(self, path: Path) -> Trace:
        """`read` by the precise path alone (the one that locates errors); for tests."""
        self.check_sizes(path)
        return self.trace(path, self._precise_tables(path))

    def options(self) -> Options:
        """The container sizes, for the fast path."""
        return Options(self.map_memory_mb, self.reduce_memory_mb, self.vcores)

    def _precise_tables(self, path: Path) -> RumenTables:
        """The tables, one Python object per job and task; errors name ``path:line``."""
        jobs = TableBuilder(HISTORY_JOB_TABLE)
        schedule_jobs = TableBuilder(SCHEDULE_JOB_TABLE)
        tasks = TableBuilder(LOCATED_TASK_TABLE)
        attempts = TableBuilder(ATTEMPT_TABLE)
        n_jobs = 0
        for record in iter_json_objects(path):
            self._job(_Job(path, record), jobs, schedule_jobs, tasks, attempts)
            n_jobs += 1
        if n_jobs == 0:
            raise TraceFormatError(f"{path}: no Rumen job objects")
        return RumenTables(jobs.frame(), schedule_jobs.frame(), tasks.frame(), attempts.frame())

    def trace(self, path: Path, tables: RumenTables) -> Trace:
        """The validated trace of `tables` read from `path`."""
        try:
            workload = Workload(jobs=tables.jobs, tasks=tables.tasks)
            observed = Schedule(jobs=tables.schedule_jobs, attempts=tables.attempts)
        except WhatifError as error:
            raise TraceFormatError(f"{path}: {error}") from error
        return Trace(workload=workload, observed=observed, source=path, format=self.name)

    def _job(
        self,
        job: _Job,
        jobs: TableBuilder,
        schedule_jobs: TableBuilder,
        tasks: TableBuilder,
        attempts: TableBuilder,
    ) -> None:
        data = job.data
        job_id = job.text(data, "jobID", "")
        job.what = f"job {job_id!r}"
        queue = normalize_queue(job.text(data, "queue", "", "default"))
        user = job.text(data, "user", "", "unknown")
        submit = job.time(data, "submitTime", "", required=True)
        launch = job.time(data, "launchTime", "")
        finish = job.time(data, "finishTime", "")
        outcome = job.text(data, "outcome", "", "SUCCESS")
        state = _JOB_STATES.get(outcome, "RUNNING" if math.isnan(finish) else "FAILED")
        jobs.append((job_id, queue, submit, user, job.text(data, "jobName", "", "")))
        schedule_jobs.append((job_id, queue, submit, launch, finish, user, state))
        memory = {
            "map": _positive(data.get("jobMapMB"), self.map_memory_mb),
            "reduce": _positive(data.get("jobReduceMB"), self.reduce_memory_mb),
        }
        for list_key in ("mapTasks", "reduceTasks", "otherTasks"):
            task_list = data.get(list_key, [])
            if not isinstance(task_list, list):
                raise job.fail(
                    f"field {list_key!r}: expected a list, got {type(task_list).__name__}"
                )
            for position, task in enumerate(task_list):
                where = f"{list_key}[{position}]: "
                if not isinstance(task, dict):
                    raise job.fail(f"{where}expected an object, got {task!r}")
                self._task(job, job_id, task, where, memory, tasks, attempts)

    def _attempt_rows(
        self,
        job: _Job,
        row: tuple[str, str, str, float],
        raw_attempts: list[Any],
        where: str,
        attempts: TableBuilder,
    ) -> tuple[float, float, float, float] | None:
        """A task's attempts as rows of `attempts` (`row`: its job, id, stage and memory),
        and the (start, finish, shuffle, sort) of the one to replay: the first to succeed,
        else the last that finished (None: none finished)."""
        job_id, task_id, stage, mem = row
        chosen: tuple[float, float, float, float] | None = None
        chosen_ok = False
        for k, attempt in enumerate(raw_attempts):
            at = f"{where}attempts[{k}]: "
            if not isinstance(attempt, dict):
                raise job.fail(f"{at}expected an object, got {attempt!r}")
            attempt_id = job.text(attempt, "attemptID", at)
            start = job.time(attempt, "startTime", at)
            finish = job.time(attempt, "finishTime", at)
            if math.isnan(start):
                start = finish
            if math.isnan(start):
                raise job.fail(f"{at}has neither startTime nor finishTime")
            result = job.text(attempt, "result", at, "SUCCESS" if not math.isnan(finish) else "")
            state = STATES.get(result, "RUNNING")
            host = attempt.get("hostName") or ""
            attempts.append(
                (
                    job_id,
                    task_id,
                    attempt_id,
                    stage,
                    start,
                    finish,
                    mem,
                    float(self.vcores),
                    state,
                    False,
                    False,
                    str(host),
                )
            )
            if not chosen_ok and not math.isnan(finish):
                chosen = (
                    start,
                    finish,
                    job.time(attempt, "shuffleFinished", at),
                    job.time(attempt, "sortFinished", at),
                )
                chosen_ok = state == "SUCCEEDED"
        return chosen

    def _task(
        self,
        job: _Job,
        job_id: str,
        task: dict[str, Any],
        where: str,
        memory: dict[str, float],
        tasks: TableBuilder,
        attempts: TableBuilder,
    ) -> None:
        task_id = job.text(task, "taskID", where)
        task_type = job.text(task, "taskType", where)
        if task_type not in STAGES:
            raise job.fail(
                f"{where}field 'taskType': expected one of {', '.join(STAGES)}, got {task_type!r}"
            )
        stage = STAGES[task_type]
        mem = memory.get(stage, self.map_memory_mb)
        task_start = job.time(task, "startTime", where)
        task_finish = job.time(task, "finishTime", where)
        task_state = STATES.get(job.text(task, "taskStatus", where, "SUCCESS"), "RUNNING")
        raw_attempts = task.get("attempts", [])
        if not isinstance(raw_attempts, list):
            raise job.fail(f"{where}field 'attempts': expected a list")
        row = (job_id, task_id, stage, mem)
        chosen = self._attempt_rows(job, row, raw_attempts, where, attempts)
        if chosen is not None:
            start, finish, shuffle, sort = chosen
        else:
            start, finish, shuffle, sort = task_start, task_finish, _NAN, _NAN
        duration = finish - start if not (math.isnan(start) or math.isnan(finish)) else 0.0
        tasks.append(
            (
                job_id,
                task_id,
                stage,
                max(duration, 0.0),
                mem,
                float(self.vcores),
                start,
                finish,
                task_state,
                shuffle,
                sort,
                _locations(job, task, where) if stage == "map" else "",
            )
        )


def _locations(job: _Job, task: dict[str, Any], where: str) -> str:
    """A map's ``preferredLocations`` (``{"layers": [rack, host]}`` each) as ``/rack/host``
    entries, comma-separated (`whatif.predictor.locality`)."""
    raw = task.get("preferredLocations") or []
    if not isinstance(raw, list):
        raise job.fail(f"{where}field 'preferredLocations': expected a list")
    entries = []
    for k, location in enumerate(raw):
        layers = location.get("layers") if isinstance(location, dict) else None
        if (
            not isinstance(layers, list)
            or not layers
            or not all(isinstance(x, str) for x in layers)
        ):
            raise job.fail(
                f'{where}preferredLocations[{k}]: expected {{"layers": [rack, host]}}, '
                f"got {location!r}"
            )
        entries.append("/" + "/".join(layers))
    return ",".join(entries)


def _positive(value: object, default: float) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return float(default)
