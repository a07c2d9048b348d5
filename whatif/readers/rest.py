"""YARN REST responses as tables: pure functions from parsed JSON to DataFrames.

These parsers are shared by the `RestReader` (dumps saved to files) and by any
live client of the ResourceManager or JobHistory Server: each takes the parsed
JSON body of one response and returns one table, raising `TraceFormatError`
that names the source and the record (``apps.app[1]``) on bad input.

=====================================================  ===================  ==============
Response                                               Parser               Rows
=====================================================  ===================  ==============
RM ``GET /ws/v1/cluster/apps`` (``{"apps": {"app": []}}``,  `rm_apps`       one per app
or one app ``{"app": {...}}``)
JHS ``GET /ws/v1/history/mapreduce/jobs`` (or ``/jobs/{id}``)  `jhs_jobs`   one per job
JHS ``.../jobs/{id}/tasks`` (or ``/tasks/{id}``)        `jhs_tasks`          one per task
JHS ``.../tasks/{id}/attempts`` (or ``/attempts/{id}``)  `jhs_attempts`      one per attempt
=====================================================  ===================  ==============

Times in the responses are epoch milliseconds (0 = not yet); tables hold float
seconds with NaN for "not yet". States are mapped onto the schedule's states
(``JOB_STATES``/``ATTEMPT_STATES``); the raw value is kept in ``raw_state``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from whatif.errors import TraceFormatError
from whatif.readers.base import normalize_queue
from whatif.readers.hadoop_ids import job_of_application, job_of_task, task_of_attempt

logger = logging.getLogger(__name__)

#: Top-level key of each response kind -> (kind, inner list key).
RESPONSE_KEYS: dict[str, tuple[str, str | None]] = {
    "apps": ("apps", "app"),
    "app": ("apps", None),
    "jobs": ("jobs", "job"),
    "job": ("jobs", None),
    "tasks": ("tasks", "task"),
    "task": ("tasks", None),
    "taskAttempts": ("attempts", "taskAttempt"),
    "taskAttempt": ("attempts", None),
}

_STAGES = {"MAP": "map", "REDUCE": "reduce"}

APP_COLUMNS = {
    "job_id": "string",
    "app_id": "string",
    "queue": "string",
    "user": "string",
    "name": "string",
    "application_type": "string",
    "submit_s": "float64",
    "launch_s": "float64",
    "finish_s": "float64",
    "state": "string",
    "raw_state": "string",
    "final_status": "string",
    "memory_mb_s": "float64",
    "vcore_s": "float64",
    "allocated_mb": "float64",
    "allocated_vcores": "float64",
    "running_containers": "float64",
}

JOB_COLUMNS = {
    "job_id": "string",
    "queue": "string",
    "user": "string",
    "name": "string",
    "submit_s": "float64",
    "launch_s": "float64",
    "finish_s": "float64",
    "state": "string",
    "raw_state": "string",
    "maps_total": "float64",
    "reduces_total": "float64",
}

TASK_COLUMNS = {
    "job_id": "string",
    "task_id": "string",
    "stage": "string",
    "start_s": "float64",
    "finish_s": "float64",
    "elapsed_s": "float64",
    "state": "string",
    "successful_attempt": "string",
}

ATTEMPT_COLUMNS = {
    "job_id": "string",
    "task_id": "string",
    "attempt_id": "string",
    "stage": "string",
    "start_s": "float64",
    "finish_s": "float64",
    "state": "string",
    "raw_state": "string",
    "node": "string",
    "container_id": "string",
    "shuffle_finish_s": "float64",
    "sort_finish_s": "float64",
    "diagnostics": "string",
}

#: Response kind -> its table's columns and dtypes.
COLUMNS: dict[str, dict[str, str]] = {
    "apps": APP_COLUMNS,
    "jobs": JOB_COLUMNS,
    "tasks": TASK_COLUMNS,
    "attempts": ATTEMPT_COLUMNS,
}


def response_kind(payload: object) -> str | None:
    """``apps``, ``jobs``, ``tasks`` or ``attempts`` for a REST body, None for anything else."""
    if isinstance(payload, dict) and len(payload) == 1:
        key = next(iter(payload))
        if key in RESPONSE_KEYS:
            return RESPONSE_KEYS[key][0]
    return None


def _items(payload: object, source: str, kind: str) -> tuple[str, list[Any]]:
    """The list of records in a response body, and the field path naming them."""
    if not isinstance(payload, dict) or response_kind(payload) != kind:
        raise TraceFormatError(
            f"{source}: expected a REST {kind} response, got keys {_keys(payload)}"
        )
    ((key, body),) = payload.items()
    inner = RESPONSE_KEYS[key][1]
    if inner is None:
        return key, [body]
    if body is None or body == "" or (isinstance(body, dict) and not body):
        return f"{key}.{inner}", []  # the RM writes "apps": null for no apps
    if not isinstance(body, dict) or inner not in body:
        raise TraceFormatError(f"{source}: {key}: expected an object with a {inner!r} list")
    records = body[inner]
    if isinstance(records, dict):
        records = [records]
    if not isinstance(records, list):
        raise TraceFormatError(
            f"{source}: {key}.{inner}: expected a list, got {type(records).__name__}"
        )
    return f"{key}.{inner}", records


def _keys(payload: object) -> str:
    return ", ".join(map(repr, payload)) if isinstance(payload, dict) else type(payload).__name__


class _Fields:
    """Typed access to one record; errors name the source and the record."""

    def __init__(self, source: str, where: str, record: object) -> None:
        if not isinstance(record, dict):
            raise TraceFormatError(f"{source}: {where}: expected an object, got {record!r}")
        self.source, self.where, self.record = source, where, record

    def fail(self, message: str) -> TraceFormatError:
        return TraceFormatError(f"{self.source}: {self.where}: {message}")

    def text(self, key: str, default: str | None = None) -> str:
        value = self.record.get(key, default)
        if value is None:
            raise self.fail(f"missing field {key!r}")
        if isinstance(value, (dict, list)):
            raise self.fail(f"field {key!r}: expected a string, got {value!r}")
        return str(value)

    def number(self, key: str, default: float | None = None) -> float:
        value = self.record.get(key)
        if value is None:
            if default is None:
                raise self.fail(f"missing field {key!r}")
            return default
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise self.fail(f"field {key!r}: expected a number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"field {key!r}: expected a number, got {value!r}")
        return float(value)

    def time(self, key: str, *, required: bool = False) -> float:
        """An epoch-ms field as seconds; absent, 0 or negative is NaN unless required."""
        if key not in self.record and not required:
            return math.nan
        value = self.number(key)
        if value <= 0:
            if required:
                raise self.fail(f"field {key!r}: expected a time in ms, got {self.record[key]!r}")
            return math.nan
        return value / 1000.0


def _frame(rows: list[dict[str, Any]], columns: dict[str, str]) -> pd.DataFrame:
    data = {}
    for name, dtype in columns.items():
        values = [row[name] for row in rows]
        data[name] = (
            pd.array(values, dtype="string") if dtype == "string" else np.array(values, dtype=dtype)
        )
    return pd.DataFrame(data)


def _parse(
    payload: object,
    source: str,
    kind: str,
    row: Callable[[_Fields], dict[str, Any]],
) -> pd.DataFrame:
    path, records = _items(payload, source, kind)
    rows = [row(_Fields(source, f"{path}[{i}]", record)) for i, record in enumerate(records)]
    return _frame(rows, COLUMNS[kind])


def _app_state(state: str, final_status: str) -> str:
    if state == "FINISHED":
        return final_status if final_status in ("SUCCEEDED", "FAILED", "KILLED") else "SUCCEEDED"
    if state in ("FAILED", "KILLED", "RUNNING"):
        return state
    return "PENDING"


def rm_apps(payload: object, *, source: str = "<rm apps>") -> pd.DataFrame:
    """Rows of an RM ``/ws/v1/cluster/apps`` response (columns `APP_COLUMNS`).

    ``job_id`` is the MapReduce job id (``job_X_Y``) for MAPREDUCE applications, so
    apps join JobHistory records; other applications keep their application id.
    ``submit_s`` is the RM's ``startedTime`` (when the RM accepted the app),
    ``launch_s`` the ``launchTime`` when the RM reports it.
    """

    def row(f: _Fields) -> dict[str, Any]:
        app_id = f.text("id")
        app_type = f.text("applicationType", "")
        job_id = (job_of_application(app_id) if app_type.upper() == "MAPREDUCE" else None) or app_id
        raw_state = f.text("state", "")
        final = f.text("finalStatus", "UNDEFINED")
        return {
            "job_id": job_id,
            "app_id": app_id,
            "queue": normalize_queue(f.text("queue", "default")),
            "user": f.text("user", "unknown"),
            "name": f.text("name", ""),
            "application_type": app_type,
            "submit_s": f.time("startedTime", required=True),
            "launch_s": f.time("launchTime"),
            "finish_s": f.time("finishedTime"),
            "state": _app_state(raw_state, final),
            "raw_state": raw_state,
            "final_status": final,
            "memory_mb_s": f.number("memorySeconds", math.nan),
            "vcore_s": f.number("vcoreSeconds", math.nan),
            "allocated_mb": f.number("allocatedMB", math.nan),
            "allocated_vcores": f.number("allocatedVCores", math.nan),
            "running_containers": f.number("runningContainers", math.nan),
        }

    return _parse(payload, source, "apps", row)


_JOB_STATES = {
    "SUCCEEDED": "SUCCEEDED",
    "FAILED": "FAILED",
    "ERROR": "FAILED",
    "KILLED": "KILLED",
    "RUNNING": "RUNNING",
    "KILL_WAIT": "RUNNING",
}


def jhs_jobs(payload: object, *, source: str = "<jhs jobs>") -> pd.DataFrame:
    """Rows of a JobHistory ``/jobs`` (or ``/jobs/{id}``) response (columns `JOB_COLUMNS`)."""

    def row(f: _Fields) -> dict[str, Any]:
        raw_state = f.text("state", "")
        return {
            "job_id": f.text("id"),
            "queue": normalize_queue(f.text("queue", "default")),
            "user": f.text("user", "unknown"),
            "name": f.text("name", ""),
            "submit_s": f.time("submitTime", required=True),
            "launch_s": f.time("startTime"),
            "finish_s": f.time("finishTime"),
            "state": _JOB_STATES.get(raw_state, "PENDING"),
            "raw_state": raw_state,
            "maps_total": f.number("mapsTotal", math.nan),
            "reduces_total": f.number("reducesTotal", math.nan),
        }

    return _parse(payload, source, "jobs", row)


def _stage(f: _Fields) -> str:
    task_type = f.text("type")
    if task_type not in _STAGES:
        raise f.fail(f"field 'type': expected MAP or REDUCE, got {task_type!r}")
    return _STAGES[task_type]


def _attempt_state(raw: str) -> str:
    if raw == "SUCCEEDED":
        return "SUCCEEDED"
    if raw.startswith("FAIL"):
        return "FAILED"
    if raw.startswith("KILL"):
        return "KILLED"
    return "RUNNING"


def jhs_tasks(payload: object, *, source: str = "<jhs tasks>") -> pd.DataFrame:
    """Rows of a JobHistory ``/jobs/{id}/tasks`` response (columns `TASK_COLUMNS`)."""

    def row(f: _Fields) -> dict[str, Any]:
        task_id = f.text("id")
        job_id = job_of_task(task_id)
        if job_id is None:
            raise f.fail(
                f"field 'id': expected a task id like task_<cluster>_<job>_m_<n>, got {task_id!r}"
            )
        return {
            "job_id": job_id,
            "task_id": task_id,
            "stage": _stage(f),
            "start_s": f.time("startTime"),
            "finish_s": f.time("finishTime"),
            "elapsed_s": f.number("elapsedTime", math.nan) / 1000.0,
            "state": _attempt_state(f.text("state", "")),
            "successful_attempt": f.text("successfulAttempt", ""),
        }

    return _parse(payload, source, "tasks", row)


def jhs_attempts(payload: object, *, source: str = "<jhs attempts>") -> pd.DataFrame:
    """Rows of a JobHistory ``/tasks/{id}/attempts`` response (columns `ATTEMPT_COLUMNS`).

    A reduce attempt's ``mergeFinishTime`` is its sort finish.
    """

    def row(f: _Fields) -> dict[str, Any]:
        attempt_id = f.text("id")
        task_id = task_of_attempt(attempt_id)
        job_id = job_of_task(task_id) if task_id else None
        if task_id is None or job_id is None:
            raise f.fail(
                f"field 'id': expected an attempt id like attempt_<cluster>_<job>_m_<n>_<k>, got {attempt_id!r}"
            )
        raw_state = f.text("state", "")
        return {
            "job_id": job_id,
            "task_id": task_id,
            "attempt_id": attempt_id,
            "stage": _stage(f),
            "start_s": f.time("startTime", required=True),
            "finish_s": f.time("finishTime"),
            "state": _attempt_state(raw_state),
            "raw_state": raw_state,
            "node": f.text("nodeHttpAddress", "").rsplit(":", 1)[0],
            "container_id": f.text("assignedContainerId", ""),
            "shuffle_finish_s": f.time("shuffleFinishTime"),
            "sort_finish_s": f.time("mergeFinishTime"),
            "diagnostics": f.text("diagnostics", ""),
        }

    return _parse(payload, source, "attempts", row)


#: Response kind -> parser.
PARSERS: dict[str, Callable[..., pd.DataFrame]] = {
    "apps": rm_apps,
    "jobs": jhs_jobs,
    "tasks": jhs_tasks,
    "attempts": jhs_attempts,
}
