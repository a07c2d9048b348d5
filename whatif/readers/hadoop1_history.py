"""Hadoop 1 (JobTracker) job history files: the text format that begins ``Meta VERSION="1" .``.

The JobTracker writes one file per job into its history directory (next to the
job's ``*_conf.xml``). Each record is a type and ``KEY="value"`` pairs ending in
`` .``, one record a line unless a value holds a newline (an ``ERROR`` stack trace)::

    Meta VERSION="1" .
    Job JOBID="job_201311192236_3583" JOBNAME="Sleep job" USER="user1" SUBMIT_TIME="1386370578196" JOB_QUEUE="default" .
    Task TASKID="task_..._m_000002" TASK_TYPE="SETUP" START_TIME="..." SPLITS="" .
    MapAttempt TASK_TYPE="SETUP" TASKID="..." TASK_ATTEMPT_ID="attempt_..." START_TIME="..." TRACKER_NAME="tracker_host:..." .
    ReduceAttempt ... TASK_STATUS="SUCCESS" SHUFFLE_FINISHED="..." SORT_FINISHED="..." FINISH_TIME="..." HOSTNAME="/rack/host" .

Values escape ``"``, ``=``, ``.`` and ``\\`` with a backslash (Hadoop 1's
``JobHistory.charsToEscape``); they are unescaped as ``StringUtils.unEscapeString``
does, and a backslash before any other character is an error, as it is in Hadoop.
A record continues over lines until a line ends in ``.`` outside a quoted value.

What is read: the job (``Job``: submit, launch and finish times, status, name, user,
``JOB_QUEUE``, ``JOB_PRIORITY``: a job at another priority than NORMAL is a warning, as
the predictor runs every job at NORMAL), every task (``Task``: type MAP, REDUCE, SETUP
or CLEANUP) and every attempt (``MapAttempt``/``ReduceAttempt``: start, finish, status
SUCCESS, FAILED or KILLED, the TaskTracker, the host, and a reduce's ``SHUFFLE_FINISHED``
and ``SORT_FINISHED``). A map's ``SPLITS`` (its split locations, ``/rack/host`` comma-separated)
is kept in the task column ``split_locations`` for delay scheduling
(`whatif.predictor.locality`). The attempt's ``node`` is its TaskTracker (``TRACKER_NAME``
without the ``tracker_`` prefix), which is what holds the slots; its ``host`` and
``rack`` (from ``HOSTNAME``, ``/rack/host``) are kept as extra columns (the derived
``--cluster`` names the trackers by them, `whatif.readers.slots`). A job's queue is its
Fair Scheduler pool, chosen as Hadoop 1's contrib ``PoolManager.getPoolName`` does
(``conf.get("mapred.fairscheduler.pool", conf.get(poolNameProperty, "default")).trim()``):
``mapred.fairscheduler.pool`` from the job's ``*_conf.xml`` beside the history file,
else the job property the cluster's ``mapred.fairscheduler.poolnameproperty`` names
(option ``pool_name_property``, Hadoop's default ``user.name``), else ``default``.
Where no ``*_conf.xml`` sets it, the history record stands in for the two properties
it carries: ``user.name`` is ``USER``, ``mapred.job.queue.name`` is ``JOB_QUEUE``.
A blank value counts as unset (Hadoop would name a pool "" after trimming it).
A task-cleanup attempt (``TASK_TYPE="CLEANUP"`` under a task whose ``Task`` record is a
MAP or REDUCE: the attempt the JobTracker runs after a failed or killed one,
``JobInProgress.obtainTaskCleanupTask``, under that attempt's own id) is not read: it is
neither the task's work nor the failed attempt's times, and the predictor inserts its own
(``SchedulerSettings.task_cleanup_s``); the trace notes say how many were left out.
Slots have no size, so tasks take the options ``map_memory_mb``,
``reduce_memory_mb`` and ``vcores`` (stated in the trace notes).

A directory is read as every file in it that begins with ``Meta VERSION="1"``, in
name order (``*_conf.xml`` and other files are skipped).
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from lxml import etree

from whatif.errors import TraceFormatError, WhatifError
from whatif.readers.base import ContainerSizedReader, normalize_queue, not_utf8
from whatif.readers.columns import TableBuilder
from whatif.readers.hadoop_ids import job_of_task, task_of_attempt
from whatif.readers.jhist_tables import (
    ATTEMPT_TABLE,
    HISTORY_JOB_TABLE,
    LOCATED_TASK_TABLE,
    SCHEDULE_JOB_TABLE,
    HistoryAttempt,
    HistoryJob,
)
from whatif.schedule import Schedule
from whatif.trace import Trace
from whatif.workload import Workload

logger = logging.getLogger(__name__)

MAGIC = b'Meta VERSION="1" .'

#: The job property naming a job's pool unless it sets ``mapred.fairscheduler.pool``
#: (``mapred.fairscheduler.poolnameproperty``'s default in Hadoop 1's ``PoolManager``).
POOL_NAME_PROPERTY_DEFAULT = "user.name"
#: ``Pool.DEFAULT_POOL_NAME``: the pool of a job whose pool properties are unset.
DEFAULT_POOL = "default"

#: Hadoop 1 task types -> workload stage.
STAGES = {"MAP": "map", "REDUCE": "reduce", "SETUP": "setup", "CLEANUP": "cleanup"}
#: The stages whose failed or killed attempts Hadoop 1 runs a task-cleanup attempt for.
MR_STAGES = ("map", "reduce")
#: Attempt and task statuses -> schedule states.
STATES = {"SUCCESS": "SUCCEEDED", "FAILED": "FAILED", "KILLED": "KILLED"}
#: Record types of ``JobHistory.RecordTypes``.
RECORD_TYPES = ("Meta", "Jobtracker", "Job", "Task", "MapAttempt", "ReduceAttempt")
#: Characters a value escapes (``JobHistory.charsToEscape``) plus the escape itself.
ESCAPED = frozenset('"=.\\')

HADOOP1_ATTEMPT_TABLE = {**ATTEMPT_TABLE, "host": "string", "rack": "string"}

_PAIR = re.compile(r'\s*(\w+)="((?:[^"\\]|\\.)*)"', re.DOTALL)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_NAN = math.nan


@dataclass
class _Attempt(HistoryAttempt):
    job_id: str = field(kw_only=True)
    host: str = ""
    rack: str = ""


@dataclass
class _Job(HistoryJob):
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    attempts: dict[str, _Attempt] = field(default_factory=dict)
    #: task-cleanup attempts seen (TASK_TYPE CLEANUP under a map or reduce task): not read
    task_cleanups: set[str] = field(default_factory=set)
    #: JOB_PRIORITY, the last a Job record gives (a priority change logs one more)
    priority: str = "NORMAL"


def unescape(value: str, where: str) -> str:
    """A value as Hadoop 1 unescapes it: ``\\"``, ``\\=``, ``\\.``, ``\\\\``; others are errors."""

    def one(match: re.Match[str]) -> str:
        char = match.group(1)
        if char not in ESCAPED:
            escape = "\\" + char
            raise TraceFormatError(
                f"{where}: illegal escape {escape!r} (Hadoop 1 escapes only the characters "
                '" = . and the backslash)'
            )
        return char

    return _ESCAPE.sub(one, value) if "\\" in value else value


def parse_record(text: str, where: str) -> tuple[str, dict[str, str]]:
    """One record's type and unescaped values; `where` (``path:line``) prefixes errors."""
    body = text.rstrip()
    if not body.endswith("."):
        raise TraceFormatError(f"{where}: record does not end in ' .' (got {body[-20:]!r})")
    kind, _, rest = body[:-1].partition(" ")
    if kind not in RECORD_TYPES:
        raise TraceFormatError(
            f"{where}: unknown record type {kind[:40]!r}; expected one of {', '.join(RECORD_TYPES)}"
        )
    values: dict[str, str] = {}
    position, end = 0, len(rest.rstrip())
    while position < end:
        match = _PAIR.match(rest, position)
        if match is None:
            found = rest[position:].strip()[:40]
            raise TraceFormatError(f'{where}: {kind}: expected KEY="value", got {found!r}')
        key = match.group(1)
        values[key] = unescape(match.group(2), f"{where}: {kind} {key}")
        position = match.end()
    return kind, values


def iter_records(path: Path) -> Iterator[tuple[int, str, dict[str, str]]]:
    """(first line, type, values) of every record in a history file; checks the Meta line."""
    try:
        handle = open(path, encoding="utf-8", errors="strict", newline="")
    except OSError as error:
        raise TraceFormatError(f"{path}: cannot read ({error.strerror or error})") from error
    with handle:
        buffer: list[str] = []
        start, first = 0, True
        try:
            for number, raw in enumerate(handle, start=1):
                line = raw.strip()
                if not line and not buffer:
                    continue
                if not buffer:
                    start = number
                buffer.append(line)
                if not line.endswith("."):
                    continue
                text = "\n".join(buffer)
                if _ESCAPE.sub("", text).count('"') % 2:
                    continue  # the "." ends a line inside a quoted value
                buffer = []
                kind, values = parse_record(text, f"{path}:{start}")
                if first and (kind != "Meta" or values.get("VERSION") != "1"):
                    raise TraceFormatError(
                        f'{path}:{start}: expected the first record to be Meta VERSION="1" '
                        "(a Hadoop 1 job history file)"
                    )
                first = False
                yield start, kind, values
        except UnicodeDecodeError as error:
            raise not_utf8(path, error.reason) from None
        if buffer:
            text = "\n".join(buffer)
            why = (
                "a quoted value is never closed"
                if _ESCAPE.sub("", text).count('"') % 2
                else "the file ends first"
            )
            raise TraceFormatError(f"{path}:{start}: record does not end in ' .' ({why})")


def is_history_file(path: Path) -> bool:
    """Whether `path` begins with ``Meta VERSION="1" .`` (cheap; never raises)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


class Hadoop1HistoryReader(ContainerSizedReader):
    """Hadoop 1 JobTracker job history files (``Meta VERSION="1"``), a file or a directory."""

    name = "hadoop1"
    description = 'Hadoop 1 JobTracker job history (text, Meta VERSION="1")'
    non_size_options: ClassVar[tuple[str, ...]] = ("pool_name_property",)

    def __init__(
        self,
        *,
        map_memory_mb: float = 1024.0,
        reduce_memory_mb: float = 1024.0,
        vcores: float = 1.0,
        pool_name_property: str = POOL_NAME_PROPERTY_DEFAULT,
    ) -> None:
        super().__init__(
            map_memory_mb=map_memory_mb, reduce_memory_mb=reduce_memory_mb, vcores=vcores
        )
        self.pool_name_property = pool_name_property

    def check_sizes(self, path: Path) -> None:
        super().check_sizes(path)
        if not isinstance(self.pool_name_property, str) or not self.pool_name_property.strip():
            raise TraceFormatError(
                f"{path}: option pool_name_property expects a job property name "
                f"(mapred.fairscheduler.poolnameproperty), got {self.pool_name_property!r}"
            )

    @classmethod
    def sniff(cls, path: Path, head: bytes) -> bool:
        if head.startswith(MAGIC):
            return True
        if not path.is_dir():
            return False
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        return any(is_history_file(p) for p in files[:64])

    def read(self, path: Path) -> Trace:
        self.check_sizes(path)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and is_history_file(p))
            if not files:
                raise TraceFormatError(
                    f'{path}: directory holds no Hadoop 1 history file (Meta VERSION="1")'
                )
        else:
            files = [path]
        jobs: dict[str, _Job] = {}
        for file in files:
            for job in self._read_file(file):
                if job.job_id in jobs:
                    raise TraceFormatError(
                        f"{file}:{job.line}: job {job.job_id} is also in another file of {path}"
                    )
                jobs[job.job_id] = job
        return self._trace(path, jobs)

    # ------------------------------------------------------------------ parsing
    def _read_file(self, file: Path) -> list[_Job]:
        jobs: dict[str, _Job] = {}
        for line, kind, values in iter_records(file):
            where = f"{file}:{line}: {kind}"
            if kind in ("Meta", "Jobtracker"):
                continue
            if kind == "Job":
                job_id: str | None  # (a TASKID may name none)
                job_id = _required(values, "JOBID", where)
                job = jobs.setdefault(job_id, _Job(job_id, line))
                _job_record(job, values, where)
                continue
            task_id = _required(values, "TASKID", where)
            job_id = job_of_task(task_id)
            if job_id is None:
                raise TraceFormatError(
                    f"{where} TASKID: expected task_<id>_<job>_m|r_<n>, got {task_id!r}"
                )
            job = jobs.setdefault(job_id, _Job(job_id, line))
            task_type = _required(values, "TASK_TYPE", where)
            if task_type not in STAGES:
                raise TraceFormatError(
                    f"{where} TASK_TYPE: expected one of {', '.join(STAGES)}, got {task_type!r}"
                )
            if kind == "Task":
                task = job.tasks.setdefault(task_id, {"stage": STAGES[task_type]})
                for key in ("START_TIME", "FINISH_TIME"):
                    if key in values:
                        task[key] = _time(values, key, where)
                if "TASK_STATUS" in values:
                    task["state"] = STATES.get(values["TASK_STATUS"], "RUNNING")
                if values.get("SPLITS"):
                    task["SPLITS"] = values["SPLITS"]
                continue
            attempt_id = _required(values, "TASK_ATTEMPT_ID", where)
            if task_of_attempt(attempt_id) != task_id:
                raise TraceFormatError(
                    f"{where} TASK_ATTEMPT_ID: {attempt_id!r} is not an attempt of {task_id}"
                )
            if task_type == "CLEANUP" and job.tasks.get(task_id, {}).get("stage") in MR_STAGES:
                job.task_cleanups.add(attempt_id)  # the predictor runs its own (module doc)
                continue
            job.tasks.setdefault(task_id, {"stage": STAGES[task_type]})
            attempt = job.attempts.setdefault(
                attempt_id, _Attempt(task_id, STAGES[task_type], job_id=job_id)
            )
            _attempt_record(attempt, values, where)
        for job in jobs.values():
            if math.isnan(job.submit_s):
                raise TraceFormatError(
                    f"{file}:{job.line}: Job {job.job_id}: no SUBMIT_TIME in any Job record"
                )
            job.queue = _pool(file, job, self.pool_name_property.strip())
        return list(jobs.values())

    # ----------------------------------------------------------------- building
    def _trace(self, path: Path, jobs: dict[str, _Job]) -> Trace:
        job_rows = TableBuilder(HISTORY_JOB_TABLE)
        schedule_jobs = TableBuilder(SCHEDULE_JOB_TABLE)
        tasks = TableBuilder(LOCATED_TASK_TABLE)
        attempts = TableBuilder(HADOOP1_ATTEMPT_TABLE)
        unstarted = 0
        task_cleanups = sum(len(job.task_cleanups) for job in jobs.values())
        for job in jobs.values():
            queue = normalize_queue(job.queue)
            job_rows.append((job.job_id, queue, job.submit_s, job.user, job.name))
            schedule_jobs.append(
                (job.job_id, queue, job.submit_s, job.launch_s, job.finish_s, job.user, job.state)
            )
            chosen, placed = self._attempt_rows(job, attempts)
            unstarted += placed
            self._task_rows(job, chosen, tasks)
        notes = [
            f"Hadoop 1 slots record no size: map {self.map_memory_mb:g} MB, reduce "
            f"{self.reduce_memory_mb:g} MB, {self.vcores:g} vcore(s) assumed; attempt node = "
            "TaskTracker",
        ]
        if task_cleanups:
            notes.append(
                f"{task_cleanups} task-cleanup attempt(s) (TASK_TYPE CLEANUP under a map or "
                "reduce task) not read: the predictor runs its own (task_cleanup_s)"
            )
        if unstarted:
            notes.append(
                f"{unstarted} attempt(s) finished without a recorded start; start = finish"
            )
        prioritized = _prioritized(jobs.values())
        if prioritized:
            notes.append(prioritized)
            logger.warning("%s: %s", path, prioritized)
        try:
            workload = Workload(jobs=job_rows.frame(), tasks=tasks.frame())
            observed = Schedule(jobs=schedule_jobs.frame(), attempts=attempts.frame())
        except WhatifError as error:
            raise TraceFormatError(f"{path}: {error}") from error
        return Trace(
            workload=workload, observed=observed, source=path, format=self.name, notes=tuple(notes)
        )

    def _memory(self, stage: str) -> float:
        """A slot's assumed memory for a task of `stage` (maps' for setup and cleanup)."""
        return float({"reduce": self.reduce_memory_mb}.get(stage, self.map_memory_mb))

    def _attempt_rows(self, job: _Job, attempts: TableBuilder) -> tuple[dict[str, _Attempt], int]:
        """`job`'s attempts as rows of `attempts`; each task's attempt to replay (its
        success, else its last finished one), and how many had no recorded start (their
        finish stands in for it)."""
        chosen: dict[str, _Attempt] = {}
        unstarted = 0
        for attempt_id, a in job.attempts.items():
            if math.isnan(a.start_s):
                a.start_s = a.finish_s
                unstarted += 1
            if math.isnan(a.start_s):
                continue  # neither start nor finish: nothing ran that can be placed
            attempts.append(
                (
                    a.job_id,
                    a.task_id,
                    attempt_id,
                    a.stage,
                    a.start_s,
                    a.finish_s,
                    self._memory(a.stage),
                    float(self.vcores),
                    a.state,
                    False,
                    False,
                    a.node,
                    a.host,
                    a.rack,
                )
            )
            best = chosen.get(a.task_id)
            if best is None or (best.state != "SUCCEEDED" and not math.isnan(a.finish_s)):
                chosen[a.task_id] = a
        return chosen, unstarted

    def _task_rows(self, job: _Job, chosen: dict[str, _Attempt], tasks: TableBuilder) -> None:
        """`job`'s tasks as rows of `tasks`, timed by their chosen attempt (else the Task
        record's own times)."""
        for task_id, task in job.tasks.items():
            stage = task["stage"]
            best = chosen.get(task_id)
            if best is not None and not math.isnan(best.finish_s):
                start, finish, shuffle, sort = (
                    best.start_s,
                    best.finish_s,
                    best.shuffle_s,
                    best.sort_s,
                )
            else:
                start = task.get("START_TIME", _NAN)
                finish = task.get("FINISH_TIME", _NAN)
                shuffle = sort = _NAN
            duration = finish - start if not (math.isnan(start) or math.isnan(finish)) else 0.0
            tasks.append(
                (
                    job.job_id,
                    task_id,
                    stage,
                    max(duration, 0.0),
                    self._memory(stage),
                    float(self.vcores),
                    start,
                    finish,
                    task.get("state", "RUNNING"),
                    shuffle,
                    sort,
                    task.get("SPLITS", "") if stage == "map" else "",
                )
            )


def _required(values: dict[str, str], key: str, where: str) -> str:
    value = values.get(key)
    if not value:
        raise TraceFormatError(f"{where}: missing {key}")
    return value


def _time(values: dict[str, str], key: str, where: str) -> float:
    """A ms timestamp as seconds; ``0`` and ``-1`` (Hadoop's "not set") are NaN."""
    text = values[key]
    try:
        ms = int(text)
    except ValueError:
        raise TraceFormatError(f"{where} {key}: expected a time in ms, got {text[:40]!r}") from None
    return _NAN if ms <= 0 else ms / 1000.0


#: History keys of a job's times -> `_Job` attributes.
_JOB_TIMES = (("SUBMIT_TIME", "submit_s"), ("LAUNCH_TIME", "launch_s"), ("FINISH_TIME", "finish_s"))
#: History keys of an attempt's times -> `_Attempt` attributes.
_ATTEMPT_TIMES = (
    ("START_TIME", "start_s"),
    ("FINISH_TIME", "finish_s"),
    ("SHUFFLE_FINISHED", "shuffle_s"),
    ("SORT_FINISHED", "sort_s"),
)


def _record_times(
    target: _Job | _Attempt,
    values: dict[str, str],
    where: str,
    times: tuple[tuple[str, str], ...],
) -> None:
    """Set each attribute of `times` (history key -> attribute) the record carries a time for."""
    for key, attribute in times:
        if key in values:
            setattr(target, attribute, _time(values, key, where))


def _job_record(job: _Job, values: dict[str, str], where: str) -> None:
    _record_times(job, values, where, _JOB_TIMES)
    if "JOB_STATUS" in values:
        job.state = STATES.get(values["JOB_STATUS"], "RUNNING")
    for key, attribute in (
        ("USER", "user"),
        ("JOBNAME", "name"),
        ("JOB_QUEUE", "queue"),
        ("JOB_PRIORITY", "priority"),
    ):
        if values.get(key):
            setattr(job, attribute, values[key])


def _attempt_record(attempt: _Attempt, values: dict[str, str], where: str) -> None:
    _record_times(attempt, values, where, _ATTEMPT_TIMES)
    if "TASK_STATUS" in values:
        status = values["TASK_STATUS"]
        if status not in STATES:
            raise TraceFormatError(
                f"{where} TASK_STATUS: expected SUCCESS, FAILED or KILLED, got {status!r}"
            )
        attempt.state = STATES[status]
    if values.get("TRACKER_NAME"):
        attempt.node = values["TRACKER_NAME"].removeprefix("tracker_")
    if values.get("HOSTNAME"):
        attempt.rack, _, attempt.host = values["HOSTNAME"].rstrip("/").rpartition("/")


def _prioritized(jobs: Iterable[_Job]) -> str | None:
    """What the predictor leaves out of jobs run at another priority than NORMAL (Hadoop 1's
    FairScheduler.getJobWeight multiplies the weight by VERY_HIGH 4, HIGH 2, LOW 0.5,
    VERY_LOW 0.25; FifoJobComparator takes priority before start time); None: none."""
    counts = Counter(job.priority for job in jobs if job.priority != "NORMAL")
    if not counts:
        return None
    listed = ", ".join(f"{priority} {n}" for priority, n in sorted(counts.items()))
    return (
        f"{sum(counts.values())} job(s) ran at a priority other than NORMAL (JOB_PRIORITY: "
        f"{listed}): Hadoop 1's Fair Scheduler weighs a job by it (VERY_HIGH 4, HIGH 2, LOW "
        "0.5, VERY_LOW 0.25) and takes it first in fifo pools and for maxRunningJobs; tempo "
        "does not model job priorities and predicts every job at NORMAL"
    )


def _pool(history: Path, job: _Job, pool_name_property: str) -> str:
    """The job's Fair Scheduler pool by Hadoop 1's rule (module docstring): the explicit
    ``mapred.fairscheduler.pool``, else `pool_name_property`'s value, else ``default``;
    from the job's ``*_conf.xml`` beside `history`, the history record standing in for
    ``user.name`` (``USER``) and ``mapred.job.queue.name`` (``JOB_QUEUE``)."""
    conf = _job_conf(history, job.job_id)
    record = {"user.name": job.user, "mapred.job.queue.name": job.queue}
    for value in (
        conf.get("mapred.fairscheduler.pool", ""),
        conf.get(pool_name_property, ""),
        record.get(pool_name_property, ""),
    ):
        if value.strip():
            return value.strip()
    return DEFAULT_POOL


def _job_conf(history: Path, job_id: str) -> dict[str, str]:
    """The properties of the job's ``*<job_id>_conf.xml`` beside `history` (none without
    one); a property set twice keeps its last value, as Hadoop's ``Configuration`` does."""
    properties: dict[str, str] = {}
    for conf in sorted(history.parent.glob(f"*{job_id}_conf.xml")):
        try:
            parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
            root = etree.parse(str(conf), parser).getroot()
        except (OSError, etree.XMLSyntaxError) as error:
            raise TraceFormatError(f"{conf}: cannot read the job configuration ({error})") from None
        for prop in root.iter("property"):
            name = (prop.findtext("name") or "").strip()
            value = prop.findtext("value")
            if name and value is not None:
                properties[name] = value
    return properties
