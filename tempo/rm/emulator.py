"""An emulated ResourceManager and JobHistory Server: a trace replayed in accelerated time.

`EmulatedRM` serves, on one loopback HTTP port, the REST endpoints tempo reads from
a real cluster, with the real JSON shapes, while the predictor's incremental
`whatif.predictor.Simulation` replays a trace under the allocation file it watches:

- trace time = ``start_s + speed * (wall seconds since start())``; the simulation
  is advanced lazily on every request and by a background thread;
- the allocation file is watched as the Fair Scheduler's AllocationFileLoaderService
  does, on **trace time**: it is polled every ``reload_interval_s`` trace seconds and
  reloaded once the same new content has been seen for ``quiet_period_s`` trace
  seconds (so an edit takes effect 5 to 15 trace seconds later with the defaults);
  a file that does not parse or validate keeps the old configuration, and the
  reason is logged (at start-up it is an error, as on a real RM);
- ``POST /ws/v1/emulator/refresh`` reloads at once, like
  ``yarn rmadmin -refreshQueues`` (`request_refresh`, and
  ``tempo emulate-rm refresh --rm URL``): HTTP 200 when the file is in force, 400
  with the reason when it is refused;
- ``GET /ws/v1/emulator/status`` tells the emulated clock (trace seconds and epoch
  ms), the SHA-256 of the allocation in force and every reload;
- `EmulatedRM.set_nodes` (``PUT /ws/v1/emulator/nodes`` with a cluster SPEC, empty for
  the emulated cluster again; `request_nodes`, ``tempo emulate-rm nodes``) changes the node
  list ``GET /ws/v1/cluster/nodes`` reports (nodes lost or added during a client's run);
  the replay keeps its cluster.

Given a ``capacity-scheduler.xml`` (`whatif.capacity.is_capacity_scheduler`) it runs the
Capacity Scheduler instead: the predictor's Capacity Scheduler mode schedules, the
scheduler endpoint answers with a ``capacityScheduler`` queue tree
(`tempo.rm.emulated_capacity`), and, as on a real RM, the file is read only at start-up
and on a refresh (``yarn rmadmin -refreshQueues``, the refresh endpoint), never polled; a
refresh with a file of the other scheduler's kind is refused. A ``PUT`` to
``/ws/v1/cluster/scheduler-conf`` applies the request's own changes to the configuration in
force, as an RM with a mutable configuration store does (`tempo.rm.emulated_sched_conf`;
the file is not read), answering 400 with the reason and changing nothing when Hadoop
would refuse the request.

Reported times are epoch milliseconds: trace time plus ``epoch_offset_s`` (0 for
traces already in epoch seconds, else `EPOCH_BASE_S`), so a client must take "now"
from `EmulatedRM.now_s` (or the status endpoint), not from its own wall clock.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import numpy as np
import pandas as pd
import requests

from tempo.errors import ReloadRefused, RMError
from tempo.rm import emulated_rest as rest
from tempo.rm.emulated_capacity import capacity_scheduler
from tempo.rm.emulated_sched_conf import (
    SchedConfError,
    apply_sched_conf,
    parse_sched_conf,
    queue_change_issues,
)
from tempo.rm.transport import request_cause
from tempo.rm.workload_shift import WorkloadShift, apply_shifts
from whatif import capacity
from whatif.allocation import (
    AllocationDocument,
    EffectiveAllocation,
    Resources,
    effective_allocation,
    validate,
    with_startup_queues,
)
from whatif.allocation.fairshare import fair_shares
from whatif.cluster import Cluster
from whatif.errors import ClusterSpecError, ValidationError, WhatifError
from whatif.predictor import NoiseModel, SchedulerSettings, Simulation
from whatif.predictor.capacity import CapacityAllocation, capacity_allocation
from whatif.trace import Trace
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: Epoch seconds that trace time 0 is reported as, for traces in relative time.
EPOCH_BASE_S = 1_700_000_000.0

#: Path of the immediate-reload admin endpoint (POST or PUT).
REFRESH_PATH = "/ws/v1/emulator/refresh"

#: Path of the emulator's own status (clock, allocation in force, reloads).
STATUS_PATH = "/ws/v1/emulator/status"

#: Path of the emulator's node-list endpoint (PUT or POST a cluster SPEC; empty: reset).
NODES_PATH = "/ws/v1/emulator/nodes"

#: The Capacity Scheduler's configuration mutation endpoint (``PUT``): applies the request.
SCHED_CONF_PATH = "/ws/v1/cluster/scheduler-conf"

#: The yarn-site defaults (Hadoop 3).
DEFAULT_SETTINGS = SchedulerSettings()

#: Wall seconds between the background thread's advances.
TICK_S = 0.02


@dataclass(frozen=True)
class ReloadEvent:
    """One attempt to (re)load the allocation file.

    ``trigger`` is ``start``, ``poll``, ``refresh`` or ``sched-conf`` (a mutation
    request, whose ``sha256`` is that of the resulting configuration); ``ok`` False means the file
    was refused and the previous configuration stayed in force (``reason`` says
    why); ``changed`` False means the file was the configuration already in force.
    """

    trace_s: float
    trigger: str
    ok: bool
    changed: bool
    sha256: str
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "traceTimeS": self.trace_s,
            "trigger": self.trigger,
            "ok": self.ok,
            "changed": self.changed,
            "sha256": self.sha256,
            "reason": self.reason,
        }


def _check_arguments(
    trace: Trace,
    positive: Mapping[str, float],
    hadoop_version: int,
    settings: SchedulerSettings,
) -> None:
    """`EmulatedRM`'s arguments: a Trace, `positive` numbers > 0, Hadoop 2 or 3 and the
    settings of that version; a ValidationError naming the first that is not."""
    if not isinstance(trace, Trace):
        raise ValidationError(
            f"EmulatedRM trace: expected a whatif Trace, got {type(trace).__name__}"
        )
    for name, value in positive.items():
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise ValidationError(f"EmulatedRM {name}: expected a number > 0, got {value!r}")
    if hadoop_version not in (2, 3):
        raise ValidationError(f"EmulatedRM hadoop_version: expected 2 or 3, got {hadoop_version!r}")
    if settings.hadoop_version != hadoop_version:
        raise ValidationError(
            f"EmulatedRM settings.hadoop_version: expected {hadoop_version} (hadoop_version), "
            f"got {settings.hadoop_version}"
        )


class EmulatedRM:
    """A ResourceManager + JobHistory Server replaying `trace` under the allocation file at `allocation_path`.

    Parameters
    ----------
    trace : Trace
        What to replay (its workload; the observed schedule is not used).
    allocation_path : path
        The allocation file the emulated RM loads at construction and then watches.
    cluster : Cluster or str
        The cluster (or its SPEC string).
    speed : float
        Trace seconds per wall second.
    settings : SchedulerSettings
        yarn-site knobs of the simulation; its ``hadoop_version`` must equal `hadoop_version`.
    hadoop_version : int
        Dialect of the allocation file (2 or 3) and of the responses.
    clock : callable
        Wall clock in seconds (monotonic); tests inject a fake one.
    start_s : float, optional
        Trace time at which the replay starts; default: the first submission.
    reload_interval_s, quiet_period_s : float
        Allocation-file polling interval and quiet period, in trace seconds.
    shifts : iterable of WorkloadShift
        Changes of the workload from some trace time on (for tests of the loop).
    engine : {"numba", "reference"}
        The predictor engine.
    epoch_offset_s : float, optional
        Added to trace times to report epoch times; default 0 for traces in epoch
        seconds, `EPOCH_BASE_S` for traces in relative time.
    host, port : str, int
        Where to listen; port 0 picks a free one.
    noise : NoiseModel, optional
        Task failures, stragglers and duration jitter of the "real" cluster, so that a
        tuner facing the emulated RM meets prediction error as on a real one.
    seed : int
        Seed of `noise` (use another than the tuner's predictions).

    Raises
    ------
    AllocationError, ValidationError
        The allocation file cannot be loaded (a real RM does not start either).
    """

    def __init__(
        self,
        trace: Trace,
        allocation_path: str | Path,
        cluster: Cluster | str,
        *,
        speed: float = 60.0,
        settings: SchedulerSettings = DEFAULT_SETTINGS,
        hadoop_version: int = 3,
        clock: Callable[[], float] = time.monotonic,
        start_s: float | None = None,
        reload_interval_s: float = 10.0,
        quiet_period_s: float = 5.0,
        shifts: Iterable[WorkloadShift] = (),
        engine: str = "numba",
        epoch_offset_s: float | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        noise: NoiseModel | None = None,
        seed: int = 0,
    ) -> None:
        _check_arguments(
            trace,
            {
                "speed": speed,
                "reload_interval_s": reload_interval_s,
                "quiet_period_s": quiet_period_s,
            },
            hadoop_version,
            settings,
        )
        self.cluster = Cluster.parse(cluster) if isinstance(cluster, str) else cluster
        self.allocation_path = Path(allocation_path)
        self.speed = float(speed)
        self.hadoop_version = hadoop_version
        self.reload_interval_s = float(reload_interval_s)
        self.quiet_period_s = float(quiet_period_s)
        self.clock = clock
        self.host, self.port = host, int(port)
        self.workload = apply_shifts(trace.workload, shifts)
        first = float(self.workload.jobs["submit_s"].min()) if self.workload.n_jobs else 0.0
        self.start_s = first if start_s is None else float(start_s)
        if epoch_offset_s is None:
            epoch_offset_s = 0.0 if self.start_s >= 1e9 else EPOCH_BASE_S
        self.epoch_offset_s = float(epoch_offset_s)
        self.cluster_ts = int(round((self.start_s + self.epoch_offset_s) * 1000.0))
        self._lock = threading.RLock()
        self._reloads: list[ReloadEvent] = []
        self.capacity_scheduler = capacity.is_capacity_scheduler(self.allocation_path)
        data = self._read_file()
        allocation = self._first_allocation(data)  # raises: an RM does not start on a bad file
        self._simulation = Simulation(
            self.workload,
            allocation,
            self.cluster,
            settings=settings,
            engine=engine,
            seed=seed,
            noise=noise,
        )
        # Advance and inspect once here, so that a cold numba cache compiles the kernel
        # (about a minute on a small machine) before serving, not during a request.
        self._simulation.advance_to(max(self.start_s, self._simulation.time_s))
        self._simulation.state()
        self._loaded_sha = hashlib.sha256(data).hexdigest()
        self._steady = self._steady_shares()
        self._record(ReloadEvent(self.start_s, "start", True, True, self._loaded_sha))
        self._pending: tuple[str, float] | None = None
        self._rejected_sha: str | None = None
        # The Capacity Scheduler never polls its file: only a refresh reloads it.
        self._next_poll_s = (
            math.inf if self.capacity_scheduler else self.start_s + self.reload_interval_s
        )
        self._ids = _HadoopIds(self.workload, self.cluster_ts)
        self._wall0: float | None = None
        self._server: ThreadingHTTPServer | None = None
        self._threads: list[threading.Thread] = []
        self._stopped = threading.Event()
        self._failure: BaseException | None = None
        self._last_snapshot: rest.Snapshot | None = None
        self._nodes: Cluster | None = None

    @classmethod
    def from_files(
        cls,
        trace_path: str | Path,
        allocation_path: str | Path,
        cluster: Cluster | str,
        **options: object,
    ) -> EmulatedRM:
        """An emulator of the trace at `trace_path` (any format `whatif.readers.read_trace` reads)."""
        from whatif.readers import read_trace

        return cls(read_trace(trace_path), allocation_path, cluster, **options)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> str:
        """Start serving (and the clock); return the base URL, e.g. ``http://127.0.0.1:PORT``."""
        if self._server is not None:
            raise RMError("EmulatedRM.start: already started")
        try:
            self._server = ThreadingHTTPServer((self.host, self.port), _handler(self))
        except OSError as error:
            raise ValidationError(
                f"port {self.port}: cannot listen on {self.host}:{self.port}: {error.strerror} "
                "(port 0 picks a free one)"
            ) from None
        self._server.daemon_threads = True
        with self._lock:
            self._wall0 = self.clock()
        serve = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="emulated-rm-http",
            daemon=True,
        )
        tick = threading.Thread(target=self._run_clock, name="emulated-rm-clock", daemon=True)
        self._threads = [serve, tick]
        for thread in self._threads:
            thread.start()
        logger.info(
            "emulated RM at %s: %d jobs from trace time %g at %gx, allocation file %s",
            self.url,
            self.workload.n_jobs,
            self.start_s,
            self.speed,
            self.allocation_path,
        )
        return self.url

    @property
    def url(self) -> str:
        if self._server is None:
            raise RMError("EmulatedRM.url: not started")
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)  # an AF_INET address
        return f"http://{host}:{port}"

    def stop(self) -> None:
        """Stop serving and the clock thread (idempotent)."""
        self._stopped.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        for thread in self._threads:
            thread.join(timeout=5.0)
        self._threads = []

    def wait(self) -> None:
        """Block until `stop` is called (from another thread) or KeyboardInterrupt."""
        while not self._stopped.wait(0.5):
            pass

    def __enter__(self) -> EmulatedRM:
        if self._server is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ clock
    def trace_time_s(self) -> float:
        """The emulated time now, in trace seconds (``start_s`` until `start`)."""
        if self._wall0 is None:
            return self.start_s
        return self.start_s + self.speed * max(self.clock() - self._wall0, 0.0)

    def now_s(self) -> float:
        """The emulated time now, in epoch seconds (what the REST times are based on)."""
        return self.trace_time_s() + self.epoch_offset_s

    @property
    def allocation_sha256(self) -> str:
        """SHA-256 of the allocation file bytes in force."""
        with self._lock:
            return self._loaded_sha

    @property
    def reloads(self) -> tuple[ReloadEvent, ...]:
        """Every load attempt so far, oldest first."""
        with self._lock:
            return tuple(self._reloads)

    def set_nodes(self, cluster: Cluster | str | None) -> None:
        """Report `cluster`'s nodes (or SPEC) as the RM's RUNNING NodeManagers from now on:
        nodes lost, decommissioned or added while a client such as ``tempo tune`` runs.

        ``GET /ws/v1/cluster/nodes`` lists them RUNNING and the nodes of the emulated cluster
        not among them (by host; unnamed nodes are ``node00000``...) LOST; None reports the
        emulated cluster again. Only the node list changes: the replay goes on scheduling on
        the cluster it started with (its simulation cannot take nodes away mid-run), and the
        cluster metrics and queue tree report that cluster.
        """
        nodes = Cluster.parse(cluster) if isinstance(cluster, str) else cluster
        with self._lock:
            self._nodes = nodes
        logger.info(
            "emulated RM: reporting %s as its nodes",
            "the emulated cluster" if nodes is None else nodes.spec(),
        )

    @property
    def simulation(self) -> Simulation:
        """The underlying simulation (advance it only through the emulator)."""
        return self._simulation

    def _run_clock(self) -> None:
        while not self._stopped.wait(TICK_S):
            try:
                self.sync()
            except Exception as error:  # kept and re-raised to every request
                logger.exception("emulated RM: the simulation failed")
                self._failure = error
                return

    def sync(self) -> float:
        """Advance the simulation to now, polling the allocation file on the way; return trace now."""
        if self._failure is not None:
            raise RMError(
                f"emulated RM: the simulation failed earlier: {self._failure}"
            ) from self._failure
        with self._lock:
            now = max(self.trace_time_s(), self._simulation.time_s)
            while True:
                due = self._next_poll_s
                if self._pending is not None:
                    due = min(due, self._pending[1] + self.quiet_period_s)
                if due > now:
                    break
                self._simulation.advance_to(max(due, self._simulation.time_s))
                if due >= self._next_poll_s:
                    self._next_poll_s += self.reload_interval_s
                self._poll(due)
            self._simulation.advance_to(now)
            return now

    # ------------------------------------------------------------------ reloading
    def _read_file(self) -> bytes:
        try:
            return self.allocation_path.read_bytes()
        except OSError as error:
            from whatif.errors import AllocationError

            raise AllocationError(
                f"{self.allocation_path}: cannot read allocation file: {error.strerror}"
            ) from error

    def _first_allocation(self, data: bytes) -> EffectiveAllocation:
        """The allocation the emulator starts with; in Capacity Scheduler mode its
        configuration is also the one in force (`_configuration`, else None)."""
        document = self._parse(data)
        self._configuration = (
            document if isinstance(document, capacity.ConfigurationDocument) else None
        )
        return self._allocation(document)

    def _parse(self, data: bytes) -> AllocationDocument | capacity.ConfigurationDocument:
        """The document in `data`, or `AllocationError`/`ValidationError` (`CapacityConfigError`
        for a capacity-scheduler.xml) saying why Hadoop would refuse it."""
        from whatif.errors import AllocationError

        if self.capacity_scheduler:
            return self._parse_capacity(data)
        document = AllocationDocument.from_bytes(data, source=str(self.allocation_path))
        errors = [
            i
            for i in validate(document, hadoop_version=self.hadoop_version)
            if i.severity == "error"
        ]
        if errors:
            listed = "; ".join(f"line {i.line}: {i.message}" for i in errors[:5])
            raise AllocationError(f"{self.allocation_path}: {listed}")
        return document

    def _parse_capacity(self, data: bytes) -> capacity.ConfigurationDocument:
        source = str(self.allocation_path)
        document = capacity.ConfigurationDocument.from_bytes(data, source=source)
        if not document.is_configuration:
            raise capacity.CapacityConfigError(
                f"{source}: not a capacity-scheduler.xml (the RM runs the Capacity Scheduler)"
            )
        errors = [i for i in capacity.validate(document) if i.severity == "error"]
        if errors:
            listed = "; ".join(f"line {i.line}: {i.message}" for i in errors[:5])
            raise capacity.CapacityConfigError(f"{source}: {listed}")
        return document

    def _allocation(
        self, document: AllocationDocument | capacity.ConfigurationDocument
    ) -> EffectiveAllocation:
        """What the simulation schedules with: the Capacity Scheduler mode's allocation of a
        capacity-scheduler.xml, else the allocation file's effective queues with those the
        RM creates at start (Hadoop 2's root.default: `with_startup_queues`)."""
        if isinstance(document, capacity.ConfigurationDocument):
            return capacity_allocation(document, self.cluster)
        effective = effective_allocation(document, hadoop_version=self.hadoop_version)
        return with_startup_queues(effective, self.hadoop_version)

    def _poll(self, trace_s: float) -> None:
        try:
            data = self.allocation_path.read_bytes()
        except OSError as error:
            logger.warning(
                "emulated RM: cannot read %s (%s); keeping the configuration in force",
                self.allocation_path,
                error.strerror,
            )
            return
        sha = hashlib.sha256(data).hexdigest()
        if sha == self._loaded_sha:
            self._pending = None
            return
        if sha == self._rejected_sha:
            return
        if self._pending is None or self._pending[0] != sha:
            self._pending = (sha, trace_s)
            return
        if trace_s - self._pending[1] >= self.quiet_period_s:
            self._load(data, sha, trace_s, "poll")

    def _load(self, data: bytes, sha: str, trace_s: float, trigger: str) -> ReloadEvent:
        self._pending = None
        try:
            self._put_in_force(self._parse(data))
        except WhatifError as error:
            self._rejected_sha = sha
            logger.warning(
                "emulated RM: allocation file refused at trace time %g, keeping the previous "
                "configuration: %s",
                trace_s,
                error,
            )
            return self._record(ReloadEvent(trace_s, trigger, False, False, sha, str(error)))
        self._loaded_sha, self._rejected_sha = sha, None
        self._steady = self._steady_shares()
        logger.info(
            "emulated RM: reloaded %s at trace time %g (%s)", self.allocation_path, trace_s, trigger
        )
        return self._record(ReloadEvent(trace_s, trigger, True, True, sha))

    def _put_in_force(self, document: AllocationDocument | capacity.ConfigurationDocument) -> None:
        """Schedule with `document` from now on, or raise (a `WhatifError`) leaving all unchanged.

        A capacity-scheduler.xml must also pass ``refreshQueues``' hierarchy check against
        the configuration in force (`tempo.rm.emulated_sched_conf.queue_change_issues`)."""
        if isinstance(document, capacity.ConfigurationDocument) and self._configuration is not None:
            issues = queue_change_issues(self._configuration, document)
            if issues:
                raise capacity.CapacityConfigError("; ".join(issues))
        self._simulation.reconfigure(self._allocation(document))
        if isinstance(document, capacity.ConfigurationDocument):
            self._configuration = document

    def mutate(self, body: bytes) -> ReloadEvent:
        """Apply a ``<sched-conf>`` update to the Capacity Scheduler configuration in force
        (``PUT /ws/v1/cluster/scheduler-conf``): exactly the request's changes, not the
        file's; a refused update (unreadable, refused by ``ConfigurationUpdateAssembler``,
        or leaving a configuration ``refreshQueues`` refuses) changes nothing and its
        reason is recorded (`tempo.rm.emulated_sched_conf`)."""
        with self._lock:
            now = self.sync()
            if self._configuration is None:
                reason = "Configuration change only supported by MutableConfScheduler."
                return self._record(ReloadEvent(now, "sched-conf", False, False, "", reason))
            try:
                new = apply_sched_conf(self._configuration, parse_sched_conf(body))
                errors = [i.message for i in capacity.validate(new) if i.severity == "error"]
                if errors:
                    raise SchedConfError("; ".join(errors[:5]))
                sha = hashlib.sha256(new.to_bytes()).hexdigest()
                if sha == self._loaded_sha:
                    return self._record(ReloadEvent(now, "sched-conf", True, False, sha))
                self._put_in_force(new)
            except (SchedConfError, WhatifError) as error:
                logger.warning("emulated RM: scheduler-conf change refused: %s", error)
                return self._record(ReloadEvent(now, "sched-conf", False, False, "", str(error)))
            self._loaded_sha = sha
            return self._record(ReloadEvent(now, "sched-conf", True, True, sha))

    def _record(self, event: ReloadEvent) -> ReloadEvent:
        self._reloads.append(event)
        return event

    def refresh(self) -> ReloadEvent:
        """Reload the allocation file now, as ``yarn rmadmin -refreshQueues`` does."""
        with self._lock:
            now = self.sync()
            try:
                data = self.allocation_path.read_bytes()
            except OSError as error:
                return self._record(
                    ReloadEvent(
                        now,
                        "refresh",
                        False,
                        False,
                        "",
                        f"{self.allocation_path}: cannot read: {error.strerror}",
                    )
                )
            sha = hashlib.sha256(data).hexdigest()
            if sha == self._loaded_sha:
                self._pending = None
                return self._record(ReloadEvent(now, "refresh", True, False, sha, "unchanged"))
            return self._load(data, sha, now, "refresh")

    def _steady_shares(self) -> dict[str, Resources]:
        if self.capacity_scheduler:  # the Capacity Scheduler has no fair shares
            return {}
        total = Resources(self.cluster.memory_mb, self.cluster.vcores)
        return fair_shares(self._simulation.allocation, total, hadoop_version=self.hadoop_version)

    # ------------------------------------------------------------------ state
    def snapshot(self) -> rest.Snapshot:
        """The emulated cluster now (after `sync`), with Hadoop ids attached."""
        with self._lock:
            now = self.sync()
            state = self._simulation.state()
            allocation, steady = self._simulation.allocation, dict(self._steady)
            reported = self._nodes
        jobs = state.jobs[state.jobs["submit_s"].to_numpy(dtype=float) <= now]
        jobs = jobs.merge(self._ids.jobs, on="job_id", how="left", suffixes=("", "_workload"))
        attempts = self._ids.attempts(state.attempts, jobs)
        tasks = self._ids.tasks[self._ids.tasks["job_id"].isin(jobs["job_id"])]
        snapshot = rest.Snapshot(
            trace_s=now,
            epoch_offset_s=self.epoch_offset_s,
            cluster_ts=self.cluster_ts,
            hadoop_version=self.hadoop_version,
            cluster=self.cluster,
            jobs=jobs.reset_index(drop=True),
            attempts=attempts,
            tasks=tasks.reset_index(drop=True),
            queues=state.queues,
            allocation=allocation,
            steady=steady,
            nodes=reported,
        )
        self._last_snapshot = snapshot
        return snapshot

    def history_snapshot(self, job_id: str) -> rest.Snapshot:
        """A snapshot in which the job `job_id` (Hadoop id) has finished, if it has.

        A finished job's tasks and attempts never change, so the last snapshot
        serves the JobHistory requests about it: reading a window (one request per
        task) then costs one simulation snapshot, not one per request.
        """
        cached = self._last_snapshot
        if cached is not None and job_id in cached.finished_jobs.index:
            return cached
        return self.snapshot()

    def status(self) -> dict[str, Any]:
        """The emulator's clock, allocation in force and reloads (``GET /ws/v1/emulator/status``)."""
        with self._lock:
            now = self.sync()
            return {
                "emulator": {
                    "traceTimeS": now,
                    "epochMs": int(round((now + self.epoch_offset_s) * 1000.0)),
                    "speed": self.speed,
                    "allocationFile": str(self.allocation_path),
                    "allocationSha256": self._loaded_sha,
                    "reloadIntervalS": self.reload_interval_s,
                    "quietPeriodS": self.quiet_period_s,
                    "jobsFinished": int(
                        np.isfinite(
                            self._simulation.schedule().jobs["finish_s"].to_numpy(dtype=float)
                        ).sum()
                    ),
                    "jobsTotal": self.workload.n_jobs,
                    "reloads": [event.to_dict() for event in self._reloads],
                }
            }


class _HadoopIds:
    """Hadoop ids of the workload's jobs, tasks and attempts (see `tempo.rm.emulated_rest`)."""

    def __init__(self, workload: Workload, cluster_ts: int) -> None:
        jobs = workload.jobs
        number = np.arange(1, len(jobs) + 1)
        suffix = [f"{cluster_ts}_{n:04d}" for n in number]
        tasks = workload.tasks
        task_type = np.where(tasks["stage"].to_numpy(dtype=object) == "reduce", "REDUCE", "MAP")
        letter = np.where(task_type == "REDUCE", "r", "m")
        index = (
            pd.DataFrame({"job": tasks["job_id"].to_numpy(dtype=object), "letter": letter})
            .groupby(["job", "letter"], sort=False)
            .cumcount()
            .to_numpy()
        )
        job_suffix = dict(zip(jobs["job_id"], suffix, strict=True))
        self.jobs = pd.DataFrame(
            {
                "job_id": jobs["job_id"].to_numpy(dtype=object),
                "number": number,
                "app_id": [f"application_{s}" for s in suffix],
                "hadoop_job_id": [f"job_{s}" for s in suffix],
                "name": [
                    name if name else job_id
                    for name, job_id in zip(jobs["name"], jobs["job_id"], strict=True)
                ],
            }
        )
        hadoop_task = [
            f"task_{job_suffix[j]}_{c}_{k:06d}"
            for j, c, k in zip(tasks["job_id"], letter, index, strict=True)
        ]
        self.tasks = pd.DataFrame(
            {
                "job_id": tasks["job_id"].to_numpy(dtype=object),
                "task_id": tasks["task_id"].to_numpy(dtype=object),
                "hadoop_task_id": hadoop_task,
                "task_type": task_type,
            }
        )
        counts = pd.crosstab(self.tasks["job_id"], self.tasks["task_type"]).reindex(
            index=self.jobs["job_id"], columns=["MAP", "REDUCE"], fill_value=0
        )
        self.jobs["maps_total"] = counts["MAP"].to_numpy()
        self.jobs["reduces_total"] = counts["REDUCE"].to_numpy()
        self._task_index = self.tasks.set_index("task_id")

    def attempts(self, attempts: pd.DataFrame, jobs: pd.DataFrame) -> pd.DataFrame:
        """The schedule's `attempts` with Hadoop ids, container ids and the job's queue."""
        out = attempts.reset_index(drop=True).copy()
        is_am = out["is_am"].to_numpy(dtype=bool)
        info = self._task_index.reindex(out["task_id"].to_numpy(dtype=object))
        out["hadoop_task_id"] = np.where(
            is_am, "", info["hadoop_task_id"].fillna("").to_numpy(dtype=object)
        )
        out["task_type"] = np.where(
            is_am, "AM", info["task_type"].fillna("MAP").to_numpy(dtype=object)
        )
        order = out.sort_values(["start_s", "attempt_id"], kind="stable").index
        ranked = out.loc[order]
        attempt_number = ranked.groupby("task_id", sort=False).cumcount()
        container = (
            ranked[~ranked["is_am"].to_numpy(dtype=bool)].groupby("job_id", sort=False).cumcount()
            + 2
        )
        out["attempt_number"] = attempt_number.reindex(out.index).to_numpy()
        out["container_number"] = container.reindex(out.index).fillna(1).astype(int).to_numpy()
        suffix = dict(
            zip(
                self.jobs["job_id"],
                [s.removeprefix("job_") for s in self.jobs["hadoop_job_id"]],
                strict=True,
            )
        )
        out["hadoop_attempt_id"] = [
            "" if am else f"attempt_{t.removeprefix('task_')}_{n}"
            for am, t, n in zip(is_am, out["hadoop_task_id"], out["attempt_number"], strict=True)
        ]
        out["container_id"] = [
            f"container_{suffix[j]}_01_{c:06d}"
            for j, c in zip(out["job_id"], out["container_number"], strict=True)
        ]
        queue_of = dict(zip(jobs["job_id"], jobs["queue"], strict=True))
        out["queue"] = out["job_id"].map(queue_of)
        return out


def _handler(rm: EmulatedRM) -> type[BaseHTTPRequestHandler]:
    """The request handler class bound to `rm`."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "tempo-emulated-rm"
        protocol_version = "HTTP/1.1"  # keep-alive: a window is hundreds of requests
        disable_nagle_algorithm = True  # headers and body go out at once, no delayed-ACK stall

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server API)
            logger.debug("emulated RM %s: " + format, self.address_string(), *args)

        def _send(self, status: int, body: object) -> None:
            self._write(status, json.dumps(body).encode(), "application/json")

        def _write(self, status: int, data: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, exception: str, message: str) -> None:
            self._send(status, _remote_exception(exception, message))

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            segments = [unquote(s) for s in parts.path.strip("/").split("/") if s]
            try:
                body = _route_get(rm, segments, query)
            except rest.QueryError as error:
                self._error(400, "BadRequestException", str(error))
                return
            except Exception as error:  # the RM answers 500 and keeps serving
                logger.exception("emulated RM: %s failed", parts.path)
                self._error(500, "WebApplicationException", str(error))
                return
            if body is None:
                self._error(404, "NotFoundException", f"{parts.path} not found")
            else:
                self._send(200, body)

        def do_POST(self) -> None:  # noqa: N802
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            answer = _post(rm, parts.path.rstrip("/"), body)
            if answer is None:
                self._error(404, "NotFoundException", f"{parts.path} not found")
            else:
                self._write(*answer)

        do_PUT = do_POST  # noqa: N815

    return Handler


def _remote_exception(exception: str, message: str) -> dict[str, Any]:
    """An error body as the RM's web services write one."""
    return {
        "RemoteException": {
            "exception": exception,
            "message": message,
            "javaClassName": f"org.apache.hadoop.yarn.webapp.{exception}",
        }
    }


def _post(rm: EmulatedRM, path: str, body: bytes) -> tuple[int, bytes, str] | None:
    """Status, body and content type of a POST or PUT to `path` (None: no such resource):
    the refresh and nodes endpoints (JSON), or, on a Capacity Scheduler RM, scheduler-conf
    (text)."""
    if path == REFRESH_PATH:
        event = rm.refresh()
        body = json.dumps({"refresh": event.to_dict()}).encode()
        return 200 if event.ok else 400, body, "application/json"
    if path == NODES_PATH:
        return _put_nodes(rm, body)
    if path == SCHED_CONF_PATH and rm.capacity_scheduler:
        event = rm.mutate(body)
        return 200 if event.ok else 400, _sched_conf_answer(event).encode(), "text/plain"
    return None


def _put_nodes(rm: EmulatedRM, body: bytes) -> tuple[int, bytes, str]:
    """``PUT /ws/v1/emulator/nodes``: report the SPEC in `body` as the RM's nodes (200 with
    the SPEC in force, null for the emulated cluster), or 400 naming what is wrong."""
    spec = body.decode("utf-8", errors="replace").strip()
    try:
        rm.set_nodes(spec or None)
    except ClusterSpecError as error:
        answer = _remote_exception("BadRequestException", f"cluster SPEC: {error}")
        return 400, json.dumps(answer).encode(), "application/json"
    return 200, json.dumps({"nodes": spec or None}).encode(), "application/json"


def _sched_conf_answer(event: ReloadEvent) -> str:
    """The body of ``PUT /ws/v1/cluster/scheduler-conf``, as ``RMWebServices.
    updateSchedulerConfiguration`` answers: its success text, or the exception's message."""
    if event.ok:
        return "Configuration change successfully applied."
    return event.reason


def _route_get(rm: EmulatedRM, segments: list[str], query: Mapping[str, list[str]]) -> object:
    """The body for GET /`segments`, or None when there is no such resource."""
    if segments[:3] == ["ws", "v1", "emulator"] and segments[3:] == ["status"]:
        return rm.status()
    if segments[:3] == ["ws", "v1", "cluster"]:
        rest_of = segments[3:]
        snap = rm.snapshot()
        if rest_of in ([], ["info"]):
            return rest.cluster_info(snap, rm.start_s)
        if rest_of == ["metrics"]:
            return rest.metrics(snap)
        if rest_of == ["nodes"]:
            return rest.nodes(snap)
        if rest_of == ["scheduler"]:
            if isinstance(snap.allocation, CapacityAllocation):
                return capacity_scheduler(snap, snap.allocation)
            return rest.scheduler(snap)
        if rest_of == ["apps"]:
            return rest.apps(snap, query)
        if len(rest_of) == 2 and rest_of[0] == "apps":
            found = [a for a in rest.app_records(snap) if a["id"] == rest_of[1]]
            return {"app": found[0]} if found else None
        if len(rest_of) == 3 and rest_of[0] == "apps" and rest_of[2] == "appattempts":
            return rest.app_attempts(snap, rest_of[1])
        return None
    if segments[:5] == ["ws", "v1", "history", "mapreduce", "jobs"]:
        rest_of = segments[5:]
        if not rest_of:
            return rest.jhs_jobs(rm.snapshot(), query)
        snap = rm.history_snapshot(rest_of[0])
        if len(rest_of) == 1:
            return rest.jhs_job(snap, rest_of[0])
        if len(rest_of) == 2 and rest_of[1] == "tasks":
            return rest.jhs_tasks(snap, rest_of[0], query)
        if len(rest_of) == 4 and rest_of[1] == "tasks" and rest_of[3] == "attempts":
            return rest.jhs_attempts(snap, rest_of[0], rest_of[2])
    return None


def request_refresh(url: str, *, timeout_s: float = 10.0) -> ReloadEvent:
    """Ask the emulated RM at `url` to reload its allocation file now (``POST`` `REFRESH_PATH`).

    Returns the reload; raises `RMError` when the RM cannot be reached, `ReloadRefused` (one)
    when it refuses the file.
    """
    target = url.rstrip("/") + REFRESH_PATH
    try:
        response = requests.post(target, timeout=timeout_s)
    except requests.RequestException as error:
        raise RMError(f"{target}: refresh failed: {request_cause(error)}") from error
    try:
        body = response.json()
    except ValueError:
        body = None
    info = body.get("refresh") if isinstance(body, dict) else None
    if not isinstance(info, dict):
        raise RMError(
            f"{target}: refresh failed: HTTP {response.status_code}, not the emulated RM's "
            f"answer (--rm: the base URL `tempo emulate-rm` printed, e.g. http://127.0.0.1:8088): "
            f"{' '.join(response.text.split())[:200] or '(empty body)'}"
        )
    event = ReloadEvent(
        trace_s=float(info.get("traceTimeS", math.nan)),
        trigger=str(info.get("trigger", "refresh")),
        ok=bool(info.get("ok")),
        changed=bool(info.get("changed")),
        sha256=str(info.get("sha256", "")),
        reason=str(info.get("reason", "")),
    )
    if not event.ok:
        raise ReloadRefused(
            f"{target}: the emulated RM refused the allocation file: {event.reason}"
        )
    return event


def request_nodes(url: str, spec: str | None, *, timeout_s: float = 10.0) -> None:
    """Make the emulated RM at `url` report `spec`'s nodes (None: its emulated cluster
    again), ``PUT`` `NODES_PATH`. Raises `RMError` when it cannot be reached or refuses."""
    target = url.rstrip("/") + NODES_PATH
    try:
        response = requests.put(target, data=(spec or "").encode(), timeout=timeout_s)
    except requests.RequestException as error:
        raise RMError(f"{target}: setting the nodes failed: {error}") from error
    if response.status_code != 200:
        raise RMError(f"{target}: HTTP {response.status_code}: {response.text:.300}")
