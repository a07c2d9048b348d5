"""Clients of a live YARN ResourceManager and MapReduce JobHistory Server (read only).

`RMClient` reads the cluster metrics, the Fair Scheduler's queue tree and the
finished applications of a time window; `JobHistoryClient` reads MapReduce jobs,
their tasks and attempts; `RMClient.window` puts both together as a `whatif.Trace`.
Both sit on an `HTTPTransport` (HA failover, retries, TLS, SPNEGO) and turn every
failure into one `tempo.RMError` line naming the URL and the cause.

Responses about applications, jobs, tasks and attempts are parsed by the pure
parsers of `whatif.readers.rest` (shared with the REST-dump trace reader), and the
window's tables are assembled into a trace exactly as that reader assembles dumps.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

import pandas as pd

from tempo.errors import RMError
from tempo.rm.capacity_state import (
    CapacitySchedulerState,
    SchedulerType,
    parse_capacity_scheduler,
    scheduler_type,
)
from tempo.rm.metrics import ClusterMetrics, parse_cluster_metrics
from tempo.rm.redact import redact
from tempo.rm.scheduler import SchedulerState, parse_scheduler
from tempo.rm.transport import HTTPTransport
from whatif.cluster import Cluster
from whatif.errors import WhatifError
from whatif.readers import normalize_queue
from whatif.readers.cluster_files import cluster_from_rm_nodes
from whatif.readers.hadoop_ids import attempt_number
from whatif.readers.rest import jhs_attempts, jhs_jobs, jhs_tasks, rm_apps
from whatif.readers.rest_dump import RestDumpReader
from whatif.trace import Trace

logger = logging.getLogger(__name__)

T = TypeVar("T")

METRICS_PATH = "/ws/v1/cluster/metrics"
NODES_PATH = "/ws/v1/cluster/nodes"
SCHEDULER_PATH = "/ws/v1/cluster/scheduler"
APPS_PATH = "/ws/v1/cluster/apps"
JOBS_PATH = "/ws/v1/history/mapreduce/jobs"

#: Application states that mean "finished" (the RM's ``states`` filter).
FINISHED_STATES = "FINISHED,FAILED,KILLED"


def fetch(
    transport: HTTPTransport,
    path: str,
    parse: Callable[[object, str], T],
    params: Mapping[str, object] | None = None,
) -> T:
    """GET `path` and ``parse(body, url)``; any error is an `RMError` naming the redacted URL."""
    body = transport.get_json(path, params)
    url = redact(transport.url(path, params))
    try:
        return parse(body, url)
    except RMError as error:
        raise RMError(f"{url}: {error}") from error
    except WhatifError as error:  # the shared parsers name the source themselves
        raise RMError(str(error)) from error


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000.0))


def in_queues(table: pd.DataFrame, queues: Iterable[str] | None) -> pd.DataFrame:
    """Rows whose ``queue`` is one of `queues` or below one (full paths; ``etl`` = ``root.etl``)."""
    if queues is None:
        return table
    wanted = [normalize_queue(q) for q in queues]
    names = table["queue"].astype(str)
    mask = pd.Series(False, index=table.index)
    for queue in wanted:
        mask |= (names == queue) | names.str.startswith(queue + ".")
    return table[mask.to_numpy()].reset_index(drop=True)


class JobHistoryClient:
    """Reads the MapReduce JobHistory Server (default port 19888) through an `HTTPTransport`."""

    def __init__(self, transport: HTTPTransport) -> None:
        self.transport = transport

    def jobs(self, begin_s: float, end_s: float) -> pd.DataFrame:
        """Jobs that finished in ``[begin_s, end_s)`` (epoch seconds); `whatif.readers.rest.JOB_COLUMNS`."""
        params = {"finishedTimeBegin": _ms(begin_s), "finishedTimeEnd": _ms(end_s)}
        return fetch(
            self.transport, JOBS_PATH, lambda body, url: jhs_jobs(body, source=url), params
        )

    def tasks(self, job_id: str) -> pd.DataFrame:
        """The tasks of one job; `whatif.readers.rest.TASK_COLUMNS`."""
        return fetch(
            self.transport,
            f"{JOBS_PATH}/{quote(job_id, safe='')}/tasks",
            lambda body, url: jhs_tasks(body, source=url),
        )

    def attempts(self, job_id: str, task_id: str) -> pd.DataFrame:
        """Every attempt of one task, killed and failed ones included; `ATTEMPT_COLUMNS`."""
        path = f"{JOBS_PATH}/{quote(job_id, safe='')}/tasks/{quote(task_id, safe='')}/attempts"
        return fetch(self.transport, path, lambda body, url: jhs_attempts(body, source=url))


class RMClient:
    """Reads a ResourceManager's state through an `HTTPTransport`.

    Parameters
    ----------
    transport : HTTPTransport
        Connection to the RM(s) (default port 8088).
    history : JobHistoryClient, optional
        The JobHistory Server, needed by `window` for tasks and attempts.
    """

    def __init__(self, transport: HTTPTransport, history: JobHistoryClient | None = None) -> None:
        self.transport = transport
        self.history = history

    def cluster_metrics(self) -> ClusterMetrics:
        """The cluster's size and load now (``/ws/v1/cluster/metrics``)."""
        return fetch(self.transport, METRICS_PATH, lambda body, _: parse_cluster_metrics(body))

    def cluster(self) -> Cluster:
        """The cluster as the scheduler sees it now: its RUNNING nodes, each its whole size
        (``GET /ws/v1/cluster/nodes``, `whatif.readers.cluster_files.cluster_from_rm_nodes`)."""
        return fetch(
            self.transport, NODES_PATH, lambda body, url: cluster_from_rm_nodes(body, source=url)
        )

    def scheduler(self) -> SchedulerState:
        """The Fair Scheduler queue tree in force (``/ws/v1/cluster/scheduler``).

        Raises `RMError` when the RM runs another scheduler.
        """
        return fetch(self.transport, SCHEDULER_PATH, lambda body, _: parse_scheduler(body))

    def scheduler_type(self) -> SchedulerType:
        """Which scheduler the RM runs: ``fair``, ``capacity`` or ``fifo``."""
        return fetch(self.transport, SCHEDULER_PATH, lambda body, _: scheduler_type(body))

    def capacity_scheduler(self) -> CapacitySchedulerState:
        """The Capacity Scheduler queue tree in force; `RMError` on another scheduler."""
        return fetch(self.transport, SCHEDULER_PATH, lambda body, _: parse_capacity_scheduler(body))

    def finished_apps(
        self, begin_s: float, end_s: float, *, queues: Iterable[str] | None = None
    ) -> pd.DataFrame:
        """Applications that finished (FINISHED, FAILED or KILLED) in ``[begin_s, end_s)``.

        Columns are `whatif.readers.rest.APP_COLUMNS`. The queue filter is applied
        here, not by the RM, whose ``queue`` parameter matches only unfinished apps;
        a queue also selects the queues below it.
        """
        params = {
            "states": FINISHED_STATES,
            "finishedTimeBegin": _ms(begin_s),
            "finishedTimeEnd": _ms(end_s),
        }
        apps = fetch(self.transport, APPS_PATH, lambda body, url: rm_apps(body, source=url), params)
        return in_queues(apps, queues)

    def window(
        self,
        begin_s: float,
        end_s: float,
        *,
        queues: Iterable[str] | None = None,
        attempts: bool = True,
        map_memory_mb: float = 1024.0,
        reduce_memory_mb: float = 1024.0,
        vcores: float = 1.0,
    ) -> Trace:
        """The workload and observed schedule of the jobs that finished in ``[begin_s, end_s)``.

        Finished applications come from the RM; MapReduce jobs, their tasks and
        (with `attempts`, one request per task) every attempt from the JobHistory
        Server. Without `attempts`, the attempts of retried tasks (see `retried`) are
        read all the same: a task's ``elapsedTime`` spans every attempt and the wait
        between them, which is not its run time. Applications the JobHistory Server
        does not know (Spark, ...) are replayed as the containers their memorySeconds
        paid for (`whatif.readers.rest_dump`). Container sizes are not in these
        responses: the ``*_memory_mb`` and ``vcores`` options are used, as by the
        REST-dump reader.
        """
        if self.history is None:
            raise RMError("window() needs the JobHistory Server: RMClient(..., history=...)")
        queues = None if queues is None else list(queues)
        apps = self.finished_apps(begin_s, end_s, queues=queues)
        jobs = in_queues(self.history.jobs(begin_s, end_s), queues)
        tasks = [self.history.tasks(job_id) for job_id in jobs["job_id"]]
        task_table = _concat(tasks, jhs_tasks({"tasks": None}))
        wanted = task_table if attempts else task_table[retried(task_table)]
        attempt_frames = [
            self.history.attempts(j, t)
            for j, t in zip(wanted["job_id"], wanted["task_id"], strict=True)
        ]
        tables = {
            "apps": apps,
            "jobs": jobs,
            "tasks": task_table,
            "attempts": _concat(attempt_frames, jhs_attempts({"taskAttempts": None})),
        }
        source = redact(self.transport.active_url)
        logger.info(
            "window %s: %d app(s), %d MapReduce job(s), %d task(s), %d attempt(s)",
            source,
            len(apps),
            len(jobs),
            len(task_table),
            len(tables["attempts"]),
        )
        reader = RestDumpReader(
            map_memory_mb=map_memory_mb, reduce_memory_mb=reduce_memory_mb, vcores=vcores
        )
        label = f"window {begin_s:g}-{end_s:g}"
        try:
            trace = reader.assemble(tables, source=Path(label))
        except WhatifError as error:
            raise RMError(f"{source}: {error}") from error
        return replace(trace, source=None, format="rm", notes=(f"{source} {label}", *trace.notes))


def retried(tasks: pd.DataFrame) -> pd.Series:
    """Tasks (`whatif.readers.rest.TASK_COLUMNS`) whose ``elapsedTime`` is not their run time:
    the successful attempt is not the first (killed, failed or speculative attempts before
    it), or none succeeded."""
    numbers = tasks["successful_attempt"].fillna("").map(lambda a: attempt_number(str(a)))
    return numbers.ne(0).astype(bool)


def _concat(frames: list[pd.DataFrame], empty: pd.DataFrame) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else empty
