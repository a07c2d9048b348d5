"""Wiring: build a `Tuner` from `TuneSettings` for a live RM or the emulated demo, and run it.

With RM addresses, the tuner observes the cluster through `tempo.rm.RMClient`
(windows on the RM's clock, `tempo.rm.RMClock`; without ``--cluster``, the RM's nodes
read anew at each window), steps with
`tempo.loop.pald_step.PALDStepper` and applies through
`tempo.loop.apply.apply_configuration` (atomic write, numbered backups, reload,
confirmation through the scheduler endpoint, restore on failure). Without, it runs
against the emulated RM on the bundled sample (`tempo.loop.demo`).

The RM says which scheduler it runs (`RMClient.scheduler_type`): a Capacity Scheduler is
tuned through its ``capacity-scheduler.xml`` (`tempo.scheduler_file.CAPACITY_FILE`, applied
as `tempo.loop.config_format.CAPACITY`), a Fair Scheduler through its allocation file; a
file of the other kind is refused before anything is written.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path

from tempo.errors import RMError, TempoError
from tempo.journal import SQLiteJournal, default_journal_path
from tempo.loop.apply import ConfigurationApplier
from tempo.loop.config_format import CAPACITY, ConfigFormat
from tempo.loop.deadlines import DeadlineObserver, read_deadlines
from tempo.loop.demo import connect_demo, demo_paths
from tempo.loop.lock import TuneLock
from tempo.loop.observe import Observer, RMObserver
from tempo.loop.pald_step import PALDStepper
from tempo.loop.reload import Reload
from tempo.loop.report import IterationReport, TuneRun, describe_nodes
from tempo.loop.rollback import recover
from tempo.loop.settings import Connection, Paths, TuneSettings, scheduler_settings
from tempo.loop.tuner import Tuner
from tempo.rm import HTTPTransport, JobHistoryClient, RMClient, RMClock, TransportOptions
from tempo.rm.capacity_state import SchedulerType
from tempo.scheduler_file import (
    CAPACITY_FILE,
    SchedulerDocument,
    SchedulerFile,
    read_scheduler_document,
    scheduler_file,
)
from tempo.templates import QSTemplate, check_queues, load_templates
from tempo.templates.loader import queues_with_parents
from whatif.allocation import AllocationDocument, EffectiveAllocation
from whatif.cluster import Cluster

logger = logging.getLogger(__name__)


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
    (`tempo.loop.lock.TuneLock`) for the whole run, and a second `tune` of either fails
    with `tempo.loop.lock.LockedError` naming the holder (a dry run locks only its journal).
    """
    paths = live_paths(settings) if settings.rm_urls else demo_paths(settings)
    with ExitStack() as stack:
        for guarded in (paths.journal,) if settings.dry_run else (paths.config, paths.journal):
            stack.enter_context(TuneLock(guarded))
        tuner, connection = build(settings, paths, stack)
        return _drive(tuner, connection, settings, paths, callback, on_start)


def live_paths(settings: TuneSettings) -> Paths:
    """The files of a live run; the options ``--rm`` requires are checked here."""
    if settings.config_path is None or settings.templates_path is None:
        raise TempoError(
            "with --rm, --config (the allocation file the RM reads) and --templates are required"
        )
    _history_url(settings)
    return Paths(
        config=Path(settings.config_path),
        source=None,
        templates=Path(settings.templates_path),
        space=settings.space_path,
        cluster=settings.cluster or "",  # "": the RM's own nodes (`build`)
        journal=Path(settings.journal_path or default_journal_path()),
    )


def _history_url(settings: TuneSettings) -> str:
    if settings.history_url is None:
        raise TempoError("with --rm, --history-server (the JobHistory Server URL) is required")
    return settings.history_url


def connect_live(settings: TuneSettings, stack: ExitStack) -> Connection:
    """A client of the live RM and JobHistory Server, keeping time by the RM's clock."""
    options = TransportOptions(ca_bundle=settings.ca_bundle, kerberos=settings.kerberos)
    client = RMClient(
        HTTPTransport(list(settings.rm_urls), options),
        history=JobHistoryClient(HTTPTransport(_history_url(settings), options)),
    )
    stack.callback(client.transport.close)
    rm_clock = RMClock(client.transport)  # windows and waits in the RM's time, not this machine's
    reload = (
        Reload.run(settings.reload_command)
        if settings.reload_command
        else Reload.wait(settings.reload_wait_s)
    )
    return Connection(
        client=client,
        reload=reload,
        clock=rm_clock,
        wait=rm_clock.sleep,
        sleep=time.sleep,
        monotonic=time.monotonic,
        speed=1.0,
        confirm_timeout_s=settings.confirm_timeout_s,
    )


def live_cluster(connection: Connection) -> Cluster:
    """The cluster the predictions start on when ``--cluster`` is not given: the RM's RUNNING
    nodes at the start of the run, each its own size (`tempo.rm.RMClient.cluster`). The
    tuner reads them again at each window (`Tuner.nodes`), so nodes lost or added during
    the run are predicted as they are."""
    cluster = connection.client.cluster()
    logger.info("cluster from the RM: --cluster %s", cluster.spec())
    return cluster


def template_queues(
    templates: Sequence[QSTemplate],
    document: SchedulerDocument,
    allocation: EffectiveAllocation,
    connection: Connection,
) -> list[str]:
    """The queues `templates` may name: the file's and, for an allocation file, those the
    Fair Scheduler creates on the fly (a user's queue under ``root.users``): for the jobs
    the emulated RM replays, else the ones the live RM holds now (a queue created later
    cannot be named before it exists; asked only when a template names a queue the file
    lacks, and none when the RM cannot be reached). The Capacity Scheduler creates none."""
    names = [q.name for q in allocation.queues()]
    known = queues_with_parents(names)
    if isinstance(document, AllocationDocument) and any(t.queue not in known for t in templates):
        if connection.job_queues:
            names += connection.job_queues
        else:
            try:
                names += list(connection.client.scheduler().queues)
            except RMError as error:
                logger.warning("the RM's queues could not be read: %s", error)
    return names


def build(settings: TuneSettings, paths: Paths, stack: ExitStack) -> tuple[Tuner, Connection]:
    """The `Tuner` `settings` describe and its connection; `stack` closes what they open."""
    emulated = paths.source is not None
    scheduler = scheduler_settings(settings, emulated)
    templates = load_templates(paths.templates)
    document = read_scheduler_document(paths.config)
    kind = scheduler_file(document)
    if emulated:
        cluster = Cluster.parse(paths.cluster)
        connection = connect_demo(settings, paths, cluster, templates, scheduler, stack)
    else:
        connection = connect_live(settings, stack)
        cluster = Cluster.parse(paths.cluster) if paths.cluster else live_cluster(connection)
    fmt = scheduler_format(connection.client, document, paths.config)  # the RM's kind first
    known = template_queues(templates, document, kind.allocation(document, cluster), connection)
    check_queues(templates, known)
    stepper = PALDStepper(
        templates,
        cluster,
        space_path=paths.space,
        radius=settings.radius,
        replicates=settings.replicates,
        settings=scheduler,
        engine=settings.engine,
        seed=settings.seed,
        known_queues=tuple(known),
    )
    applier = ConfigurationApplier(
        paths.config,
        reload=connection.reload,
        confirm=connection.client,
        timeout_s=connection.confirm_timeout_s,
        sleep=connection.sleep,
        clock=connection.monotonic,
        fmt=fmt,
    )
    journal = SQLiteJournal(paths.journal)
    stack.callback(journal.close)
    tuner = Tuner(
        observer=_observer(settings, connection, templates),
        stepper=stepper,
        applier=applier,
        journal=journal,
        templates=templates,
        allocation_path=paths.config,
        cluster=cluster,
        nodes=None if emulated or paths.cluster else connection.client.cluster,
        window_s=settings.window_s,
        predictor=stepper,
        tolerance=settings.tolerance,
        min_improvement=settings.min_improvement,
        min_gain=settings.min_gain,
        dry_run=settings.dry_run,
        recover=functools.partial(
            recover, reload=connection.reload, sleep=connection.sleep, fmt=fmt
        ),
        clock=connection.clock,
        scheduler=kind,
    )
    return tuner, connection


def scheduler_format(
    client: RMClient, document: SchedulerDocument, config: Path
) -> ConfigFormat | None:
    """How the file is applied: `CAPACITY` when the RM runs the Capacity Scheduler, None
    (an allocation file) for the Fair Scheduler. A `TempoError` when `config` is not the
    kind of file the RM's scheduler reads (or the RM runs the FIFO scheduler); when the RM
    cannot be asked, the file's kind is trusted, with a warning."""
    kind: SchedulerFile = scheduler_file(document)
    expected: SchedulerType = "capacity" if kind is CAPACITY_FILE else "fair"
    try:
        running: SchedulerType = client.scheduler_type()
    except RMError as error:
        logger.warning(
            "cannot ask the RM which scheduler it runs (%s); tuning %s as the %s scheduler's file",
            error,
            config,
            expected,
        )
        running = expected
    if running != expected:
        raise TempoError(
            f"the ResourceManager runs the {running} scheduler, but {config} is "
            f"{'an' if kind.name[0] in 'aeiou' else 'a'} {kind.name}"
            + (" (tempo tunes the Fair and the Capacity Scheduler)" if running == "fifo" else "")
        )
    logger.info("the RM runs the %s scheduler: tuning %s", running, config)
    return CAPACITY if running == "capacity" else None


def _observer(
    settings: TuneSettings, connection: Connection, templates: Sequence[QSTemplate]
) -> Observer:
    """The templates' queues of each window, with the known deadlines added."""
    observer: Observer = RMObserver(
        connection.client,
        queues=[t.queue for t in templates],
        attempts=_needs_attempts(templates),
    )
    deadlines = dict(connection.deadlines)
    if settings.deadlines_path is not None:
        deadlines = {**deadlines, **read_deadlines(settings.deadlines_path)}
    return DeadlineObserver(observer, deadlines) if deadlines else observer


def _needs_attempts(templates: Sequence[QSTemplate]) -> bool:
    return any(m.name in ("QS_WASTE", "QS_UTIL_NOPREEMPT") for t in templates for m in t.metrics)


def _drive(
    tuner: Tuner,
    connection: Connection,
    settings: TuneSettings,
    paths: Paths,
    callback: Callable[[IterationReport], None] | None,
    on_start: Callable[[TuneRun], None] | None,
) -> TuneRun:
    """Resume, then run the tuner; the run's reports, also when Ctrl-C ended it."""
    reports: list[IterationReport] = []
    interrupted = False
    run = TuneRun(
        paths.config,
        paths.journal,
        paths.source is not None,
        tuner.resume(),
        cluster_from_rm=""
        if paths.cluster or tuner.cluster is None
        else describe_nodes(tuner.cluster),
        templates_path=paths.templates,
    )
    if on_start is not None:
        on_start(run)
    connection.warm_up()

    def collect(report: IterationReport) -> None:
        reports.append(report)
        if callback is not None:
            callback(report)

    try:
        tuner.run(
            max_iterations=settings.max_iterations,
            interval_s=settings.interval_s,
            speed=connection.speed,
            sleep=connection.wait,
            callback=collect,
        )
    except KeyboardInterrupt:
        interrupted = True
        logger.warning("interrupted: %s", _interrupted_state(tuner))
    return dataclasses.replace(run, reports=tuple(reports), interrupted=interrupted)


def _interrupted_state(tuner: Tuner) -> str:
    """What is in force once Ctrl-C (or SIGTERM) stopped the run, as the journal and the file
    on disk say, and what the next run does about it."""
    state = tuner.journal.in_force()
    if state is None:
        return "nothing was applied; the operator's file is in force"
    said = f"{state.path}: {state.description}"
    if state.state == "unconfirmed":
        return (
            f"{said} ({state.apply.sha256[:12]}); the next tempo tune restores the previous "
            f"file from {state.apply.backup_path} and reloads the RM (tempo history shows "
            "this apply)"
        )
    return f"{said} (tempo history)"
