"""`tune`: wire the control loop to a live cluster, or to the emulated RM on the bundled sample.

With RM addresses, the loop observes the cluster through `tempo.rm.RMClient`, steps
with `tempo.loop.pald_step.PALDStepper` and applies through `tempo.loop.apply.apply_configuration`
(atomic write, numbered backups, reload, confirmation through the scheduler
endpoint, restore on failure). Without, `tune` starts `tempo.rm.emulator.EmulatedRM`
in this process, replaying the bundled contended sample (a deadline and a
best-effort tenant on 40 containers) under a COPY of its expert configuration (the
shipped file is never touched), and runs a few iterations against it: the quickest
way to see the loop work. The emulated cluster's "real" schedule is the predictor's
with task failures, stragglers and jitter (`DEMO_NOISE`) on another seed than the
tuner's, so the loop meets prediction error as it would on a real cluster.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tempo.errors import TempoError
from tempo.gain import MinGain
from tempo.journal import SQLiteJournal, default_journal_path
from tempo.lock import TuneLock
from tempo.loop import IterationReport, Tolerance, Tuner
from tempo.loop.apply import ConfigurationApplier
from tempo.loop.pald_step import PALDStepper
from tempo.rm import HTTPTransport, JobHistoryClient, RMClient, RMClock, TransportOptions
from tempo.templates import QSTemplate, check_queues, load_templates
from whatif.allocation import AllocationDocument
from whatif.cluster import Cluster
from whatif.predictor import TYPICAL_NOISE, SchedulerSettings, predict
from whatif.readers import read_trace
from whatif.trace import Trace

logger = logging.getLogger(__name__)

#: The repository root, where the bundled sample data lives (an editable install).
REPO = Path(__file__).resolve().parents[1]

#: The sample `tune` runs on without ``--rm``: contended, with an expert file that
#: over-provisions the deadline tenant (benchmarks/scenarios.py, ``slo-yarn``).
DEMO_TRACE = REPO / "traces" / "contended"
DEMO_CONFIG = REPO / "configs" / "contended-expert.xml"
DEMO_TEMPLATES = REPO / "templates" / "contended"
DEMO_CLUSTER = "nodes=5,memory-mb=8192,vcores=8"
#: What makes the emulated cluster's runs differ from predictions.
DEMO_NOISE = TYPICAL_NOISE


@dataclass(frozen=True)
class TuneSettings:
    """What `tempo tune` was asked to do (its options); see the README section.

    With no ``rm_urls`` the emulated RM replays the bundled sample; ``speed`` is its
    trace seconds per wall second, and unset paths default to the sample's.
    ``preemption`` is ``yarn.scheduler.fair.preemption`` of the cluster the predictions
    model; None: on for the emulated RM (its yarn-site enables it), Hadoop's default
    (off) for a live one. ``scheduler`` carries the other knobs of the cluster's
    ``yarn-site.xml`` (``--site``: utilization threshold, waitTimeBeforeKill, minimum
    allocation, ...) to the predictions and the emulated RM; ``preemption``, when set,
    overrides its own. ``min_gain`` is the minimum meaningful gain of a step, relative
    and absolute (None: ``min_improvement`` relative alone).
    """

    rm_urls: tuple[str, ...] = ()
    history_url: str | None = None
    config_path: Path | None = None
    templates_path: Path | None = None
    cluster: str | None = None
    space_path: Path | None = None
    radius: float = 0.1
    window_s: float = 2700.0
    interval_s: float = 2700.0
    max_iterations: int | None = None
    dry_run: bool = False
    journal_path: Path | None = None
    reload_command: str | None = None
    reload_wait_s: float = 15.0
    confirm_timeout_s: float = 60.0
    ca_bundle: Path | None = None
    kerberos: bool = False
    deadlines_path: Path | None = None
    tolerance: Tolerance = Tolerance()
    min_improvement: float = 0.01
    min_gain: MinGain | None = None
    scheduler: SchedulerSettings | None = None
    replicates: int = 1
    preemption: bool | None = None
    engine: str = "numba"
    seed: int = 0
    speed: float = 600.0
    work_dir: Path | None = None


@dataclass(frozen=True, eq=False)
class TuneRun:
    """What a `tune` run did: where, from what state, and every iteration's report."""

    config_path: Path
    journal_path: Path
    emulated: bool
    resumed: str
    reports: tuple[IterationReport, ...] = field(default=())
    interrupted: bool = False

    @property
    def rm_error(self) -> str | None:
        """Why the cluster could not be read in the last iteration, if that stopped it."""
        return self.reports[-1].rm_error if self.reports else None

    @property
    def write_error(self) -> str | None:
        """``FILE: reason`` when the last iteration could not write the allocation file."""
        return self.reports[-1].write_error if self.reports else None


class PausedClock:
    """A wall clock that moves only when slept on: the emulated cluster stands still while tempo computes.

    Given to `EmulatedRM` as its clock and to the loop as its sleep, it makes each
    iteration observe exactly the next window, however long the What-if Model takes.
    """

    def __init__(self) -> None:
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s

    def sleep(self, seconds: float) -> None:
        self.now_s += max(0.0, float(seconds))


class DeadlineObserver:
    """Adds per-job deadlines to each observed window (the RM does not know them).

    ``deadlines`` maps a job name to its deadline in seconds after submission; jobs
    with another name keep what the window had.
    """

    def __init__(self, observer: object, deadlines: Mapping[str, float]) -> None:
        self.observer = observer
        self.deadlines = deadlines

    def window(self, begin_s: float, end_s: float) -> Trace:
        trace = self.observer.window(begin_s, end_s)
        jobs = trace.workload.jobs
        relative = jobs["name"].astype(object).map(self.deadlines).astype(float)
        known = relative.notna().to_numpy()
        if not known.any():
            return trace
        deadline = np.where(known, jobs["submit_s"].to_numpy(float) + relative, jobs["deadline_s"])
        workload = dataclasses.replace(trace.workload, jobs=jobs.assign(deadline_s=deadline))
        return dataclasses.replace(trace, workload=workload)


class RMObserver:
    """An `RMClient` window of the templates' queues (tasks without attempts unless needed)."""

    def __init__(self, client: RMClient, *, queues: Sequence[str], attempts: bool) -> None:
        self.client, self.queues, self.attempts = client, list(queues), attempts

    def window(self, begin_s: float, end_s: float) -> Trace:
        return self.client.window(begin_s, end_s, queues=self.queues, attempts=self.attempts)


def expert_deadlines(
    trace: Trace, config: Path, cluster: Cluster, templates: Sequence[QSTemplate], *, engine: str
) -> dict[str, float]:
    """Deadlines as in the paper's experiment 8.2.1: each job's response time under `config`.

    Only for queues whose templates name a deadline metric that reads the trace's
    deadlines (``deadline=auto`` or ``column``); keyed by job name.
    """
    queues = {
        t.queue
        for t in templates
        if any(
            m.name in ("QS_DL", "QS_ATTAIN") and str(m.param("deadline")) in ("auto", "column")
            for m in t.metrics
        )
    }
    if not queues:  # every deadline is stated in the templates (deadline=+1h, 18:00...)
        return {}
    allocation = AllocationDocument.from_file(config).effective()
    schedule = predict(trace.workload, allocation, cluster, engine=engine)
    jobs = schedule.jobs.merge(trace.workload.jobs[["job_id", "name"]], on="job_id")
    jobs = jobs[jobs["queue"].astype(str).isin(queues)]
    return dict(
        zip(
            jobs["name"].astype(str),
            (jobs["finish_s"] - jobs["submit_s"]).astype(float),
            strict=True,
        )
    )


def read_deadlines(path: str | Path) -> dict[str, float]:
    """Job name to deadline in seconds after submission, from a CSV file with a header
    ``name,deadline_s`` (the RM knows no deadlines; QS_DL of a live cluster needs them)."""
    import csv
    import io

    from whatif._validation import read_utf8
    from whatif.errors import ValidationError

    source = Path(path)
    try:
        rows = list(
            csv.reader(io.StringIO(read_utf8(source, what="the deadlines file"), newline=""))
        )
    except ValidationError as error:
        raise TempoError(str(error)) from error
    except csv.Error as error:
        raise TempoError(f"{source}: not a CSV file: {error}") from error
    if not rows or [c.strip() for c in rows[0]] != ["name", "deadline_s"]:
        raise TempoError(f"{source}:1: expected the header 'name,deadline_s'")
    deadlines: dict[str, float] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip():
            continue
        try:
            name, text = (c.strip() for c in row)
            value = float(text)
        except ValueError:
            raise TempoError(
                f"{source}:{number}: expected a job name and seconds after submission, got {row!r}"
            ) from None
        if not (math.isfinite(value) and value >= 0):
            raise TempoError(f"{source}:{number}: deadline_s: expected seconds >= 0, got {text!r}")
        deadlines[name] = value
    return deadlines


def _scheduler(settings: TuneSettings, emulated: bool) -> SchedulerSettings:
    """The scheduler knobs predictions (and the emulated RM) use: ``settings.scheduler``
    with ``settings.preemption`` over its own, else preemption alone (see `TuneSettings`)."""
    if settings.scheduler is not None:
        if settings.preemption is None:
            return settings.scheduler
        return dataclasses.replace(settings.scheduler, preemption=settings.preemption)
    return SchedulerSettings(
        preemption=emulated if settings.preemption is None else settings.preemption
    )


def _needs_attempts(templates: Sequence[QSTemplate]) -> bool:
    return any(m.name in ("QS_WASTE", "QS_UTIL_NOPREEMPT") for t in templates for m in t.metrics)


def tune(
    settings: TuneSettings,
    *,
    callback: Callable[[IterationReport], None] | None = None,
    on_start: Callable[[TuneRun], None] | None = None,
) -> TuneRun:
    """Run the tuning loop as `settings` say; see the module docstring.

    `on_start` receives the run before the first iteration (paths, resume state);
    `callback` each iteration's report as it is made. Ctrl-C ends the run between
    or inside iterations; the journal and `tempo.loop.rollback.recover` make either safe.

    One tuner at a time: the allocation file and the journal are locked
    (`tempo.lock.TuneLock`) for the whole run, and a second `tune` of either fails
    with `tempo.lock.LockedError` naming the holder (a dry run locks only its journal).
    With RM addresses, windows follow the RM's clock (`tempo.rm.RMClock`).
    """
    emulated = not settings.rm_urls
    source: Path | None = None
    if emulated:
        work = Path(settings.work_dir or tempfile.mkdtemp(prefix="tempo-tune-"))
        work.mkdir(parents=True, exist_ok=True)
        source = Path(settings.config_path or DEMO_CONFIG)
        config = work / "fair-scheduler.xml"
        if not config.exists():
            shutil.copyfile(source, config)
        templates_path = Path(settings.templates_path or DEMO_TEMPLATES)
        space_path = settings.space_path
        cluster_spec = settings.cluster or DEMO_CLUSTER
        journal_path = Path(settings.journal_path or work / "tempo-journal.sqlite")
        for needed in (DEMO_TRACE, source, templates_path):
            if not needed.exists():
                raise TempoError(
                    f"{needed}: the bundled sample is missing (tempo tune without --rm needs the "
                    "repository checkout: pip install -e .)"
                )
    else:
        if settings.config_path is None or settings.templates_path is None or not settings.cluster:
            raise TempoError(
                "with --rm, --config (the allocation file the RM reads), --templates and "
                "--cluster are required"
            )
        if settings.history_url is None:
            raise TempoError("with --rm, --history-server (the JobHistory Server URL) is required")
        config = Path(settings.config_path)
        templates_path = Path(settings.templates_path)
        space_path = settings.space_path
        cluster_spec = settings.cluster
        journal_path = Path(settings.journal_path or default_journal_path())
    with ExitStack() as locks:
        for guarded in (journal_path,) if settings.dry_run else (config, journal_path):
            locks.enter_context(TuneLock(guarded))
        return _run(
            settings,
            config=config,
            source=source,
            templates_path=templates_path,
            space_path=space_path,
            cluster_spec=cluster_spec,
            journal_path=journal_path,
            callback=callback,
            on_start=on_start,
        )


def _run(
    settings: TuneSettings,
    *,
    config: Path,
    source: Path | None,
    templates_path: Path,
    space_path: Path | None,
    cluster_spec: str,
    journal_path: Path,
    callback: Callable[[IterationReport], None] | None,
    on_start: Callable[[TuneRun], None] | None,
) -> TuneRun:
    """`tune` once its paths are resolved and locked."""
    from tempo.loop.reload import Reload
    from tempo.loop.rollback import recover

    emulated = source is not None
    cluster = Cluster.parse(cluster_spec)
    scheduler = _scheduler(settings, emulated)
    templates = load_templates(templates_path)
    document = AllocationDocument.from_file(config)
    check_queues(templates, [q.name for q in document.effective().queues()])

    rm = None
    if emulated:
        from tempo.rm.emulator import EmulatedRM

        trace = read_trace(DEMO_TRACE)
        deadlines = expert_deadlines(trace, source, cluster, templates, engine=settings.engine)
        paused = PausedClock()
        rm = EmulatedRM(
            trace,
            config,
            cluster,
            speed=settings.speed,
            settings=scheduler,
            engine=settings.engine,
            clock=paused,
            noise=DEMO_NOISE,
            seed=settings.seed + 1,
        )
        url = rm.start()
        urls, history_url, options = (url,), url, TransportOptions()
        # The RM polls its file every 10 trace seconds and waits 5 more for quiet.
        reload, sleep = Reload.wait(20.0 / settings.speed), paused.sleep
        clock, speed = rm.now_s, settings.speed
    else:
        deadlines = {}
        urls, history_url = settings.rm_urls, settings.history_url
        options = TransportOptions(ca_bundle=settings.ca_bundle, kerberos=settings.kerberos)
        reload = (
            Reload.run(settings.reload_command)
            if settings.reload_command
            else Reload.wait(settings.reload_wait_s)
        )
        clock, speed, sleep = None, 1.0, time.sleep
    client = RMClient(
        HTTPTransport(list(urls), options),
        history=JobHistoryClient(HTTPTransport(history_url, options)),
    )
    wait = sleep
    if not emulated:  # windows and waits in the RM's time, not this machine's
        rm_clock = RMClock(client.transport)
        clock, wait = rm_clock, rm_clock.sleep
    observer: object = RMObserver(
        client, queues=[t.queue for t in templates], attempts=_needs_attempts(templates)
    )
    if settings.deadlines_path is not None:
        deadlines = {**deadlines, **read_deadlines(settings.deadlines_path)}
    if deadlines:
        observer = DeadlineObserver(observer, deadlines)
    stepper = PALDStepper(
        templates,
        cluster,
        space_path=space_path,
        radius=settings.radius,
        replicates=settings.replicates,
        settings=scheduler,
        engine=settings.engine,
        seed=settings.seed,
    )
    timeout_s = settings.confirm_timeout_s if not emulated else 60.0 / settings.speed
    applier = ConfigurationApplier(
        config,
        reload=reload,
        confirm=client,
        timeout_s=timeout_s,
        sleep=sleep,
        clock=paused if emulated else time.monotonic,
    )
    journal = SQLiteJournal(journal_path)
    loop_kwargs = {} if clock is None else {"clock": clock}
    loop = Tuner(
        observer=observer,
        stepper=stepper,
        applier=applier,
        journal=journal,
        templates=templates,
        allocation_path=config,
        cluster=cluster,
        window_s=settings.window_s,
        predictor=stepper,
        tolerance=settings.tolerance,
        min_improvement=settings.min_improvement,
        min_gain=settings.min_gain,
        dry_run=settings.dry_run,
        recover=lambda j, p: recover(j, p, reload=reload, sleep=sleep),
        **loop_kwargs,
    )
    reports: list[IterationReport] = []
    interrupted = False
    try:
        resumed = loop.resume()
        run = TuneRun(config, journal_path, emulated, resumed)
        if on_start is not None:
            on_start(run)
        if emulated:  # let the replay run one window before the first observation
            sleep(max(0.0, rm.start_s + settings.window_s - rm.trace_time_s()) / speed)

        def collect(report: IterationReport) -> None:
            reports.append(report)
            if callback is not None:
                callback(report)

        try:
            loop.run(
                max_iterations=settings.max_iterations,
                interval_s=settings.interval_s,
                speed=speed,
                sleep=wait,
                callback=collect,
            )
        except KeyboardInterrupt:
            interrupted = True
            logger.warning("interrupted: the journal says what is in force (tempo history)")
    finally:
        journal.close()
        client.transport.close()
        if rm is not None:
            rm.stop()
    return dataclasses.replace(run, reports=tuple(reports), interrupted=interrupted)
