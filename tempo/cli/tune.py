"""`tempo tune`: the closed tuning loop against a live ResourceManager, or the emulated one."""

from __future__ import annotations

import contextlib
import math
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tempo.cli import exitcodes, is_quiet
from tempo.cli import options as opt
from tempo.cli.preemption import preemption_options, scheduler_settings
from tempo.gain import MinGain
from whatif.allocation import diff_rows
from whatif.durations import format_instant

if TYPE_CHECKING:  # the loop, the reports and the kernel are imported when tune runs, so
    # that a usage error comes at once, not after seconds of imports
    from tempo.loop import IterationReport
    from tempo.loop.report import TuneRun
    from tempo.loop.settings import TuneSettings

_DECISIONS = {
    "accepted": "ACCEPTED",
    "rolled_back": "ROLLED BACK",
    "rejected": "REJECTED",
    "dry_run": "DRY RUN",
}


def _number(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.4g}"


def render(report: IterationReport) -> str:
    """One iteration for people: the window, the QS table, the decision and why."""
    lines = [
        f"iteration {report.id}: window {format_instant(report.begin_s)} .. {format_instant(report.end_s)} UTC, "
        f"{report.jobs} job(s)"
    ]
    if report.cluster_change:
        lines.append(
            f"  the RM's nodes changed: {report.cluster_change}; predicting on them from "
            "this window"
        )
    labels = list(report.observed)
    if labels:
        columns = [("observed", report.observed)]
        if report.baseline is not None:
            columns.insert(0, ("before step", report.baseline))
        if report.reference is not None:  # the baseline carried over to this window's load
            columns.insert(1, ("on this load", report.reference))
        if report.predicted_current is not None:
            columns.append(("predicted now", report.predicted_current))
        if report.predicted is not None:
            columns.append(("predicted step", report.predicted))
        width = max(len(label) for label in labels) + 2
        lines.append("  " + "QS".ljust(width) + "".join(f"{n:>16}" for n, _ in columns))
        for label in labels:
            cells = "".join(f"{_number(values.get(label)):>16}" for _, values in columns)
            lines.append("  " + label.ljust(width) + cells)
    lines.append(f"  decision: {_DECISIONS[report.decision]}")
    lines.append(f"  reason:   {report.reason}")
    if report.diff and report.decision in ("accepted", "dry_run", "rolled_back"):
        lines.append("  changes:")
        lines.extend(f"    {d.describe()}" for d in report.diff)
    return "\n".join(lines)


#: Where the emulated demo keeps its copy of the configuration and its journal, in the
#: current directory, so that a following `tempo history` (and the next demo run) finds them.
DEMO_WORK_DIR = Path("tempo-demo")

#: The demo's yarn-site.xml: the emulated cluster preempts, as the sample's recording did.
DEMO_SITE = Path(__file__).resolve().parents[2] / "configs" / "sample-yarn-site.xml"


def _started(run: TuneRun, trace: Path | None = None) -> None:
    if is_quiet():
        return
    sample = f"replaying {trace}" if trace is not None else "bundled contended sample"
    where = f"the emulated RM ({sample})" if run.emulated else "the cluster"
    click.echo(f"tuning {run.config_path} on {where}; journal {run.journal_path}")
    if run.cluster_from_rm:
        click.echo(f"predicting on the RM's nodes: {run.cluster_from_rm} (-v: the --cluster SPEC)")
    click.echo(f"{run.resumed}\n")


def _report_dict(report: IterationReport) -> dict[str, Any]:
    return {
        "id": report.id,
        "begin_s": report.begin_s,
        "end_s": report.end_s,
        "jobs": report.jobs,
        "decision": report.decision,
        "reason": report.reason,
        "observed": dict(report.observed),
        "baseline": None if report.baseline is None else dict(report.baseline),
        "reference": None if report.reference is None else dict(report.reference),
        "predicted_current": (
            None if report.predicted_current is None else dict(report.predicted_current)
        ),
        "predicted": None if report.predicted is None else dict(report.predicted),
        "changes": diff_rows(report.diff),
        "distance": report.distance,
        "rm_error": report.rm_error,
        "write_error": report.write_error,
        "cluster": report.cluster,
        "cluster_change": report.cluster_change or None,
    }


def _kerberos(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    """--kerberos needs the kerberos extra: said with the command line (exit 2), not when
    the RM is first asked (which would be exit 3, a failed cluster)."""
    if value:
        from tempo.errors import RMError
        from tempo.rm.transport import spnego_auth

        try:
            spnego_auth()
        except RMError as error:
            raise click.BadParameter(str(error)) from None
    return value


@click.command()
@click.option(
    "--rm",
    "rm_urls",
    multiple=True,
    callback=opt.http_urls,
    help="ResourceManager URL (repeat for HA).",
)
@click.option(
    "--history-server",
    "history_url",
    callback=opt.http_urls,
    help="MapReduce JobHistory Server URL (required with --rm).",
)
@opt.path_option(
    "--config",
    "config_path",
    dir_okay=False,
    path_type=Path,
    help="The allocation file or capacity-scheduler.xml the RM reads (tempo rewrites it; "
    "the RM's scheduler must read that kind of file).",
)
@opt.path_option(
    "--trace",
    "trace_path",
    exists=True,
    path_type=Path,
    help="Without --rm: the trace the emulated RM replays [default: the contended sample].",
)
@opt.path_option(
    "--templates",
    "templates_path",
    exists=True,
    path_type=Path,
    help="QS template file or directory.",
)
@opt.cluster_option(
    help="Cluster the predictions run on [default: with --rm, the RM's RUNNING nodes "
    "(/ws/v1/cluster/nodes), read again at each window; without, the demo's]."
)
@opt.path_option(
    "--space",
    "space_path",
    exists=True,
    dir_okay=False,
    path_type=Path,
    help="Space file: the settings tempo may change and their bounds.",
)
@opt.path_option(
    "--deadlines",
    "deadlines_path",
    exists=True,
    dir_okay=False,
    path_type=Path,
    help="CSV 'name,deadline_s': each recurring job's deadline in seconds after submission.",
)
@opt.radius_option(0.1, "Risk radius (normalized distance per step).")
@click.option(
    "--window",
    "window_s",
    callback=opt.duration_seconds,
    default="45min",
    show_default=True,
    help="Length of the observed window.",
)
@click.option(
    "--interval",
    "interval_s",
    callback=opt.duration_seconds,
    default="45min",
    show_default=True,
    help="Time between iterations.",
)
@click.option("--once", is_flag=True, help="Run one iteration and exit.")
@click.option(
    "--max-iterations",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after N iterations [default: forever; 3 with the emulated RM].",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show what would change and journal the step as dry_run; write no allocation file.",
)
@opt.path_option(
    "--journal",
    "journal_path",
    dir_okay=False,
    path_type=Path,
    help="Journal file [default: $TEMPO_JOURNAL, else ./tempo-journal.sqlite; with the emulated RM, in its work directory].",
)
@click.option(
    "--reload-command",
    help='Command that makes the RM reload the file, e.g. "yarn rmadmin -refreshQueues" [default: wait 15 s for its own reload].',
)
@opt.path_option(
    "--ca-bundle", exists=True, dir_okay=False, path_type=Path, help="PEM file of the cluster's CA."
)
@click.option(
    "--kerberos",
    is_flag=True,
    callback=_kerberos,
    help="Authenticate with SPNEGO (kinit first; needs the kerberos extra).",
)
@opt.shown_option(
    "--tolerance",
    type=opt.FiniteFloat(min=0),
    default=0.05,
    help="Relative noise allowed before an observed QS counts as worse.",
)
@click.option(
    "--min-gain",
    type=opt.FiniteFloat(min=0),
    default=None,
    help="Smallest predicted relative improvement worth a change, as in tempo optimize "
    f"[default: {MinGain().relative:g}; 0 (any gain) with the emulated RM].",
)
@opt.min_gain_abs_option(
    f"{MinGain().seconds:g}s and {MinGain().fraction * 100:g}%; 0 with the emulated RM"
)
@preemption_options
@click.option(
    "--engine",
    type=click.Choice(["numba", "reference"]),
    default=None,
    help="Predictor engine [default: numba; with the emulated RM numba once its kernel is "
    "compiled, else reference].",
)
@opt.path_option(
    "--work-dir",
    file_okay=False,
    path_type=Path,
    help="Emulated RM only: where the copy of the configuration and the journal go "
    f"[default: ./{DEMO_WORK_DIR}, where tempo history finds the journal].",
)
@opt.report_option(
    "at the end, the run's journal as tempo history --report writes it (QS per window, "
    "each step's decision and allocation-file diff)"
)
@opt.force_option("report.json and report.html already in the --report directory")
@opt.no_progress_option
@opt.json_option
def tune(
    rm_urls: tuple[str, ...],
    history_url: str | None,
    config_path: Path | None,
    trace_path: Path | None,
    templates_path: Path | None,
    cluster_spec: str | None,
    space_path: Path | None,
    deadlines_path: Path | None,
    radius: float,
    window_s: float,
    interval_s: float,
    once: bool,
    max_iterations: int | None,
    dry_run: bool,
    journal_path: Path | None,
    reload_command: str | None,
    ca_bundle: Path | None,
    kerberos: bool,
    tolerance: float,
    min_gain: float | None,
    min_gain_abs: dict[str, float],
    site_path: Path | None,
    preemption: bool | None,
    engine: str | None,
    work_dir: Path | None,
    report_dir: str | None,
    force: bool,
    no_progress: bool,
    as_json: bool,
) -> None:
    """Tune the Fair or the Capacity Scheduler in a closed loop: observe, roll back or step, apply.

    Without --rm, runs a few iterations against an emulated RM replaying the
    bundled contended sample, or --trace (a copy of its configuration, or of --config, is
    tuned; a capacity-scheduler.xml makes it run the Capacity Scheduler). Exits with
    status 3 when the last iteration could not read the cluster (RM or JobHistory
    Server down or unreachable), so a cron job running --once can tell, with status 2
    when it could not write the allocation file (a full disk, a read-only directory),
    and with status 1 when its last iteration rolled a step back (the step made an
    observed QS worse; earlier rollbacks are in the journal, tempo history).

    A progress bar on stderr counts the windows (hidden with -q, --no-progress or when
    stderr is not a terminal). Preemption follows the one rule of every command: --preemption/--no-preemption,
    else --site's yarn.scheduler.fair.preemption, else Hadoop's default (off); the
    emulated RM's yarn-site is configs/sample-yarn-site.xml (on).
    """
    opt.refuse_report_overwrite(report_dir, force=force)
    emulated = _emulated(
        rm_urls,
        trace_path,
        {
            "--history-server": history_url is not None,
            "--ca-bundle": ca_bundle is not None,
            "--kerberos": kerberos,
            "--reload-command": reload_command is not None,
        },
    )
    if not emulated and history_url is None:
        raise click.UsageError("--rm needs --history-server URL: the finished jobs are read there")
    if emulated and site_path is None:
        site_path = DEMO_SITE
    if emulated and config_path is not None:
        _refuse_invalid_source(config_path)
    scheduler = scheduler_settings(
        3, site_path, preemption, announce=not as_json, config_path=config_path
    )
    gain = _min_gain(min_gain, min_gain_abs, emulated=emulated)
    from tempo.loop import Tolerance
    from tempo.loop.settings import TuneSettings

    settings = TuneSettings(
        rm_urls=rm_urls,
        history_url=history_url,
        config_path=config_path,
        templates_path=templates_path,
        cluster=cluster_spec,
        space_path=space_path,
        deadlines_path=deadlines_path,
        radius=radius,
        window_s=window_s,
        interval_s=interval_s,
        max_iterations=1 if once else max_iterations or (3 if emulated else None),
        dry_run=dry_run,
        journal_path=journal_path,
        reload_command=reload_command,
        ca_bundle=ca_bundle,
        kerberos=kerberos,
        tolerance=Tolerance(relative=tolerance),
        min_improvement=gain.relative,
        min_gain=gain,
        preemption=scheduler.preemption,
        scheduler=scheduler,
        engine=engine or (_demo_engine() if emulated else "numba"),
        work_dir=DEMO_WORK_DIR if emulated and work_dir is None else work_dir,
        trace_path=trace_path,
    )
    run = _run_with_bar(settings, as_json=as_json, hidden=no_progress)
    _summarize(run, scheduler.preemption, gain, as_json=as_json)
    if report_dir:
        from tempo.reports import journal_report, write_tuning_report

        components = opt.template_components(run.templates_path)
        with opt.writing_output(report_dir, option="--report", directory=True):
            files = write_tuning_report(journal_report(run.journal_path, components), report_dir)
        click.echo(f"Report: {files.json} and {files.html}", err=as_json)
    _exit(run)


def _emulated(rm_urls: tuple[str, ...], trace_path: Path | None, live: dict[str, bool]) -> bool:
    """Whether tune runs against the emulated RM (no --rm); an option of the other mode
    is a usage error, so a script whose --rm came out empty does not run the demo."""
    if rm_urls:
        if trace_path is not None:
            raise click.UsageError("--trace is for the emulated RM (without --rm)")
        return False
    given = [name for name, on in live.items() if on]
    if given:
        raise click.UsageError(
            f"{', '.join(given)}: for a live RM, with --rm (without --rm, tune runs the "
            "emulated demo)"
        )
    return True


def _refuse_invalid_source(config_path: Path) -> None:
    """Refuse a --config Hadoop would refuse before the emulated run copies it into its
    work directory: the errors cite --config's lines (the copy's would name the copy,
    and leave it behind for the next run to resume from)."""
    from tempo.scheduler_file import read_scheduler_document, scheduler_file

    document = read_scheduler_document(config_path)
    scheduler_file(document).check(document, str(config_path))


def _demo_engine() -> str:
    """The emulated demo's predictor: the numba kernel once it is compiled (the demo then
    takes about 30 s), else the reference engine, whose schedules are the same (about
    150 s, but no compile of a few minutes before the first window)."""
    from whatif.predictor.compiled import kernel_cache_is_warm

    return "numba" if kernel_cache_is_warm() else "reference"


def _run_with_bar(settings: TuneSettings, *, as_json: bool, hidden: bool) -> TuneRun:
    """Run the loop with a progress bar over the windows (none when `hidden`:
    --no-progress), printing each iteration's report (not with --json)."""
    with opt.progress_bar(settings.max_iterations, "tune", unit="windows", hidden=hidden) as bar:

        def started(run: TuneRun) -> None:
            bar.clear()
            if not as_json:
                _started(run, settings.trace_path)
            bar.set_postfix_str("observing the first window", refresh=False)
            bar.update(0)

        def iterated(report: IterationReport) -> None:
            bar.clear()
            if not as_json:
                click.echo(render(report) + "\n")
            bar.set_postfix_str(
                f"{_DECISIONS[report.decision].lower()}; next window ends "
                f"{format_instant(report.end_s + settings.interval_s)} UTC",
                refresh=False,
            )
            bar.update(1)

        from tempo.loop.wiring import tune as run_tune

        with _sigterm_as_interrupt():
            return run_tune(settings, on_start=started, callback=iterated)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (systemd stop, kill) ends the run as Ctrl-C does: the apply in progress is
    journalled, the locks released, and what is in force said (`tempo.loop.wiring`)."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread (a test runner's): leave SIGTERM as it is
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _summarize(run: TuneRun, preemption: bool, gain: MinGain, *, as_json: bool) -> None:
    """The run as the ``tempo.tune/1`` JSON document, or the decisions counted and where the
    journal is."""
    hint = "tempo history" + (
        "" if _history_finds(run.journal_path) else f" --journal {run.journal_path}"
    )
    if as_json:
        opt.emit_json(
            {
                "schema": "tempo.tune/1",
                "config": str(run.config_path),
                "journal": str(run.journal_path),
                "emulated": run.emulated,
                "preemption": preemption,
                "min_gain": {
                    "relative": gain.relative,
                    "seconds": gain.seconds,
                    "fraction": gain.fraction,
                },
                "resumed": run.resumed,
                "interrupted": run.interrupted,
                "iterations": [_report_dict(r) for r in run.reports],
            }
        )
    else:
        counts = {d: sum(r.decision == d for r in run.reports) for d in _DECISIONS}
        summary = ", ".join(f"{n} {d}" for d, n in counts.items() if n)
        click.echo(
            f"{len(run.reports)} iteration(s): {summary or 'none'}"
            + (" (interrupted)" if run.interrupted else "")
        )
        click.echo(f"journal: {run.journal_path}; see it with: {hint}")


def _exit(run: TuneRun) -> None:
    """Exit 3 when the cluster could not be read, 2 when the step could not be written, 1
    when the last iteration rolled a step back; else return (0)."""
    if run.rm_error is not None:
        click.echo(
            f"error: the cluster could not be read, nothing was changed: {run.rm_error}; check "
            "that the ResourceManager (--rm) and the JobHistory Server (--history-server) are "
            "running and reachable from this host",
            err=True,
        )
        raise SystemExit(exitcodes.REMOTE)
    if run.write_error is not None:
        click.echo(
            f"error: {run.write_error}: the step could not be written, the file in force is "
            "unchanged; free space on that file system or make its directory writable",
            err=True,
        )
        raise SystemExit(exitcodes.USAGE)
    if run.reports and run.reports[-1].decision == "rolled_back":
        click.get_current_context().exit(exitcodes.NO)


def _min_gain(relative: float | None, floors: dict[str, float], *, emulated: bool) -> MinGain:
    """The step's minimum gain: the options given, else `MinGain`'s defaults (any gain with
    the emulated RM, whose demo shows every step)."""
    default = MinGain(0.0, 0.0, 0.0) if emulated else MinGain()
    return MinGain(
        relative=default.relative if relative is None else relative,
        seconds=floors.get("seconds", default.seconds),
        fraction=floors.get("fraction", default.fraction),
    )


def _history_finds(journal: Path) -> bool:
    """Whether `tempo history` without --journal reads `journal` (see tempo.cli.history)."""
    from tempo.cli.history import default_history_journal

    try:
        return default_history_journal().resolve() == Path(journal).resolve()
    except OSError:
        return False
