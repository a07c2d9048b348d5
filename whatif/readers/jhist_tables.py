"""The jhist reader's tables, shared by its precise path (`whatif.readers.jhist`) and its
fast path (`whatif.readers.jhist_columns`), and what the fast path asks of the precise one.

Both paths import this module and the fast path never imports the precise reader
(which calls it), so the two read one way. The Hadoop history readers (rumen,
Hadoop 1) build the same schedule, task and attempt tables; jhist and rumen read a
record's millisecond timestamps with `history_time`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import pandas as pd

from whatif.errors import TraceFormatError
from whatif.readers.columns import TableBuilder
from whatif.schedule import ATTEMPT_COLUMNS, SCHEDULE_JOB_COLUMNS
from whatif.workload import JOB_COLUMNS, TASK_COLUMNS, column_types

#: jhist task type -> workload stage.
STAGES = {
    "MAP": "map",
    "REDUCE": "reduce",
    "JOB_SETUP": "setup",
    "JOB_CLEANUP": "cleanup",
    "TASK_CLEANUP": "cleanup",
}

# The readers' tables are the data model's (`whatif.workload`, `whatif.schedule`) but the
# columns a history does not record (deadlines, recurring keys) or that are set from the
# stage later (stage index, priority).
#: jhist's jobs table, with the application master's container.
JOB_TABLE = column_types(JOB_COLUMNS, without=("deadline_s", "recurring_key"))
#: The jobs table of the history readers that record no application master (rumen, Hadoop 1).
HISTORY_JOB_TABLE = {name: dtype for name, dtype in JOB_TABLE.items() if not name.startswith("am_")}
SCHEDULE_JOB_TABLE = column_types(SCHEDULE_JOB_COLUMNS)
TASK_TABLE = column_types(TASK_COLUMNS, without=("stage_index", "priority"))
#: The tasks table of a trace that records maps' split locations (jhist
#: ``splitLocations``, Rumen ``preferredLocations``, Hadoop 1 ``SPLITS``): comma-separated
#: ``/rack/host`` or ``host`` entries, "" for none (`whatif.predictor.locality`).
LOCATED_TASK_TABLE = {**TASK_TABLE, "split_locations": "string"}
ATTEMPT_TABLE = column_types(ATTEMPT_COLUMNS)


def history_time(
    value: object,
    key: str,
    *,
    required: bool,
    fail: Callable[[str], TraceFormatError],
    absent: str,
) -> float:
    """A history record's millisecond timestamp `value` (field `key`) as float seconds.

    Hadoop writes -1 for a time it does not have: absent (None) or negative is NaN, or
    with `required` an error. `fail` turns a message into the reader's error naming the
    record; `absent` is how that reader words a missing field (``"lacks field"``).
    """
    if value is None:
        if required:
            raise fail(f"{absent} {key!r}")
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(f"field {key!r}: expected a time in ms, got {value!r}")
    if value < 0:
        if required:
            raise fail(f"field {key!r}: expected a time in ms >= 0, got {value!r}")
        return math.nan
    return value / 1000.0


Job = TypeVar("Job")
Task = TypeVar("Task")
Attempt = TypeVar("Attempt")


@dataclass
class FileHistory(Generic[Job, Task, Attempt]):
    """What the events of one file have said so far: its jobs, tasks and attempts, by id
    (the fast path hands the precise reader its jobs alone)."""

    jobs: dict[str, Job] = field(default_factory=dict)
    tasks: dict[str, Task] = field(default_factory=dict)
    attempts: dict[str, Attempt] = field(default_factory=dict)


@dataclass
class HistoryJob:
    """A job as the events of a history (jhist, Hadoop 1) have described it so far;
    `line` is where it is first named."""

    job_id: str
    line: int
    name: str = ""
    user: str = "unknown"
    queue: str = ""
    submit_s: float = math.nan
    launch_s: float = math.nan
    finish_s: float = math.nan
    state: str = "RUNNING"


@dataclass
class HistoryAttempt:
    """A task attempt as the events of a history (jhist, Hadoop 1) have described it so far."""

    task_id: str
    stage: str
    start_s: float = math.nan
    finish_s: float = math.nan
    state: str = "RUNNING"
    node: str = ""
    shuffle_s: float = math.nan
    sort_s: float = math.nan


class RowTables:
    """The reader's four tables, built a row at a time, and the attempts without a start."""

    def __init__(self) -> None:
        self.jobs = TableBuilder(JOB_TABLE)
        self.schedule_jobs = TableBuilder(SCHEDULE_JOB_TABLE)
        self.tasks = TableBuilder(LOCATED_TASK_TABLE)
        self.attempts = TableBuilder(ATTEMPT_TABLE)
        self.unstarted = 0


@dataclass(frozen=True)
class JhistTables:
    """The four tables the jhist reader builds, and the attempts without a recorded start."""

    jobs: pd.DataFrame
    schedule_jobs: pd.DataFrame
    tasks: pd.DataFrame
    attempts: pd.DataFrame
    unstarted: int

    @classmethod
    def of(cls, rows: RowTables) -> JhistTables:
        """The tables the precise reader built a row at a time."""
        return cls(
            rows.jobs.frame(),
            rows.schedule_jobs.frame(),
            rows.tasks.frame(),
            rows.attempts.frame(),
            rows.unstarted,
        )


class PreciseReader(Protocol):
    """What the fast path uses of `whatif.readers.jhist.JhistReader`: its event rules for
    the few job-level events, its row-at-a-time reading of small files, and its sizes."""

    vcores: float

    def read_file(self, file: Path, tables: RowTables) -> None: ...

    def handle_event(
        self, file: Path, number: int, data: object, history: FileHistory[Any, Any, Any]
    ) -> None: ...

    def emit(self, file: Path, history: FileHistory[Any, Any, Any], tables: RowTables) -> None: ...

    def memory_for(self, job: Any, stage: str) -> float: ...


__all__ = [
    "ATTEMPT_TABLE",
    "FileHistory",
    "HISTORY_JOB_TABLE",
    "JOB_TABLE",
    "SCHEDULE_JOB_TABLE",
    "STAGES",
    "TASK_TABLE",
    "JhistTables",
    "PreciseReader",
    "RowTables",
]
