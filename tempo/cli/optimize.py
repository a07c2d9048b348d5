"""`tempo optimize`: tune an allocation file or a capacity-scheduler.xml against QS templates
on a trace, offline."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np

from tempo.cli import exitcodes, is_quiet
from tempo.cli import options as opt
from tempo.cli.checks import warn_allocation, warn_capacity
from tempo.cli.preemption import preemption_options, scheduler_settings, site_reader_options
from tempo.cli.tables import echo_table
from tempo.gain import MinGain
from tempo.qs import format_value
from tempo.scheduler_file import (
    SchedulerDocument,
    SchedulerSpace,
    read_scheduler_document,
    scheduler_file,
)
from tempo.space import CapacitySpace, ConfigurationSpace, SpaceSpec, hadoop_version_for
from tempo.templates import check_trace_queues, load_templates, parse_duration
from whatif import Cluster
from whatif.allocation import AllocationDocument, diff_rows, effective_allocation
from whatif.errors import ValidationError
from whatif.predictor import NoiseModel, SchedulerSettings
from whatif.readers import read_trace

if TYPE_CHECKING:  # the optimizer (scipy) and the reports (matplotlib) are imported when
    # optimize runs: `tempo --help` and a usage error do not wait for them
    from tempo.optimize import CandidateFailure, IterationRecord, OptimizeOutcome
    from tempo.templates import QSTemplate
    from whatif.report import ReportFiles
    from whatif.workload import Workload

#: The search algorithms (`tempo.optimizers.OPTIMIZERS`' names, which a test keeps equal).
ALGORITHMS = ("mspd", "nsga2", "pald", "random", "scalar", "tpe")

#: Distinct failure reasons `tempo optimize` prints.
_SHOWN_FAILURES = 3


def _threshold(kind: str, threshold: float, unit: str) -> str:
    return (
        "-"
        if kind == "objective" or math.isinf(threshold)
        else f"<= {format_value(threshold, unit)}"
    )


def _render_iteration(record: IterationRecord, iterations: int) -> None:
    """One batch for people: which one, the budget spent, the best so far and the QS table."""
    name = (
        f"iteration {record.iteration} of {iterations}"
        if record.iteration <= iterations
        else ("final evaluation of the last step")
    )
    click.echo(
        f"{name}: {record.evaluations}/{record.budget} evaluations, best "
        f"{'feasible' if record.best_feasible else 'INFEASIBLE'} at distance "
        f"{record.best_distance:.3f}" + (f", {record.failed} failed" if record.failed else "")
    )
    rows = []
    r: Any  # a namedtuple of the QS table's columns
    for r in record.table.itertuples(index=False):
        rows.append(
            [
                r.queue,
                r.metric,
                r.kind,
                _threshold(r.kind, r.threshold, r.unit),
                format_value(r.start, r.unit),
                format_value(r.iterate, r.unit),
                format_value(r.best, r.unit),
            ]
        )
    echo_table(
        ["queue", "metric", "kind", "threshold", "in force", "this batch", "best so far"],
        rows,
        right=["threshold", "in force", "this batch", "best so far"],
    )


def _failure_counts(failures: Sequence[CandidateFailure]) -> list[tuple[str, int]]:
    return Counter(f.reason for f in failures).most_common()


def _render_failures(failures: Sequence[CandidateFailure]) -> None:
    """Failed candidates (e.g. jobs that never finish under them): how many, and why."""
    if not failures:
        return
    click.echo(f"{len(failures)} candidate(s) failed: scored as failed, never picked or averaged")
    reasons = _failure_counts(failures)
    for reason, count in reasons[:_SHOWN_FAILURES]:
        click.echo(f"  {count} x {reason}")
    if len(reasons) > _SHOWN_FAILURES:
        click.echo(f"  ... and {len(reasons) - _SHOWN_FAILURES} other reasons")


def _proposed_mean(outcome: OptimizeOutcome) -> np.ndarray:
    """The predicted QS of the configuration written: the tuned point's, or the one in force."""
    return outcome.result.mean if outcome.diff else outcome.result.start_mean


def _feasible(outcome: OptimizeOutcome) -> bool:
    """Whether every constraint is predicted met by the configuration written (NaN is not met)."""
    mean = _proposed_mean(outcome)
    return all(
        c.kind == "objective" or (not math.isnan(v) and v <= c.threshold)
        for c, v in zip(outcome.components, mean, strict=True)
    )


def _json_document(
    outcome: OptimizeOutcome,
    *,
    config: str,
    output: Path,
    space: SchedulerSpace,
    hadoop_version: int,
    settings: SchedulerSettings,
    radius: float,
    iterations: int,
    min_gain: MinGain,
) -> dict[str, Any]:
    """The ``--json`` document (schema ``tempo.optimize/1``, docs/cli.md, "CLI conventions")."""
    mean = _proposed_mean(outcome)
    return {
        "schema": "tempo.optimize/1",
        "config": str(config),
        "output": str(output),
        "preemption": settings.preemption,
        "hadoop_version": hadoop_version,
        "tuned_settings": list(space.names),
        "notes": list(space.notes),
        "iterations": [
            {
                "iteration": r.iteration,
                "final": r.iteration > iterations,
                "evaluations": r.evaluations,
                "budget": r.budget,
                "failed": r.failed,
                "best_feasible": r.best_feasible,
                "best_distance": r.best_distance,
            }
            for r in outcome.iterations
        ],
        "qs": [
            {
                "queue": c.queue,
                "metric": c.metric.label,
                "kind": c.kind,
                "unit": c.metric.unit,
                "threshold": None if math.isinf(c.threshold) else c.threshold,
                "in_force": float(before),
                "proposed": float(after),
            }
            for c, before, after in zip(
                outcome.components, outcome.result.start_mean, mean, strict=True
            )
        ],
        "changes": diff_rows(outcome.diff),
        "clipped_start": diff_rows(outcome.clipped),
        "distance": outcome.distance,
        "radius": radius,
        "min_gain": {
            "relative": min_gain.relative,
            "seconds": min_gain.seconds,
            "fraction": min_gain.fraction,
        },
        "held_back": outcome.held_back or None,
        "feasible": _feasible(outcome),
        "failures": [{"reason": r, "count": n} for r, n in _failure_counts(outcome.failures)],
    }


def _noise(ctx: click.Context, param: click.Parameter, spec: str) -> NoiseModel | None:
    """--noise as a model, checked as the command line is read (an error names the key
    the user wrote, as `NoiseModel.parse` does); None for no noise (the replicates then agree)."""
    try:
        noise = NoiseModel.parse(spec)
    except ValidationError as error:
        message = str(error).removeprefix("noise: ").removeprefix("noise ")
        raise click.BadParameter(message, ctx=ctx, param=param) from None
    return noise if noise != NoiseModel() else None


@click.command()
@opt.path_option(
    "--trace",
    "trace_path",
    required=True,
    exists=True,
    help="Trace file or directory whose workload is replayed.",
)
@opt.path_option(
    "--config",
    "config_path",
    required=True,
    exists=True,
    dir_okay=False,
    help="Allocation file or capacity-scheduler.xml in force: where the search starts.",
)
@opt.path_option(
    "--templates",
    "templates_path",
    required=True,
    exists=True,
    help="A .qs file or a directory of them.",
)
@opt.cluster_option(required=True)
@opt.radius_option(0.2, "Risk radius: how far (normalized distance) from --config to search.")
@opt.count_option("--iterations", default=10, help="Batches of candidates to predict.")
@opt.count_option("--batch-size", default=8, help="Candidates predicted per iteration.")
@opt.choice_option(
    "--algorithm",
    ALGORITHMS,
    default="pald",
    help="Search algorithm (docs/optimizers.md).",
)
@opt.path_option("--space", "space_path", exists=True, dir_okay=False, help="TOML space file.")
@click.option(
    "--tune", "overrides", multiple=True, help="QUEUE.SETTING[.COMPONENT]=LOW:HIGH|default|fixed."
)
@opt.count_option(
    "--replicates",
    default=1,
    help="Predictor runs per candidate, averaged (useful with --noise).",
)
@click.option(
    "--noise",
    default="none",
    callback=_noise,
    show_default=True,
    help="What makes the replicates differ, as on a real cluster: 'typical' (2% failed "
    "attempts, 3% stragglers x3, 20% jitter) or failures=P,stragglers=P,"
    "straggler-factor=X,jitter=CV.",
)
@opt.executor_option()
@opt.window_option("Replay only the jobs submitted in the trace's last L (e.g. 45min).")
@preemption_options
@opt.engine_option()
@opt.hadoop_version_option(
    "Hadoop major version whose settings are tuned [default: 1 for a slot cluster "
    "(map-slots=...), else 3]."
)
@opt.shown_option(
    "--min-gain",
    type=opt.FiniteFloat(min=0),
    default=MinGain().relative,
    help="Smallest predicted relative improvement worth a change (0.01 = 1%).",
)
@opt.min_gain_abs_option(f"{MinGain().seconds:g}s and {MinGain().fraction * 100:g}%")
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the search."
)
@opt.path_option(
    "-o",
    "--output",
    "output",
    required=True,
    dir_okay=False,
    help="File to write: the configuration picked (--config as it is if no change is worth it).",
)
@opt.report_option(
    "QS in force and written per queue, the allocation-file diff, the search's trajectory"
)
@opt.force_option("an existing -o file (also the --config file itself) or --report files")
@opt.no_progress_option
@opt.json_option
def optimize(
    trace_path: str,
    config_path: str,
    templates_path: str,
    cluster_spec: str,
    radius: float,
    iterations: int,
    batch_size: int,
    algorithm: str,
    space_path: str | None,
    overrides: tuple[str, ...],
    replicates: int,
    noise: NoiseModel | None,
    executor: str,
    window_text: str | None,
    site_path: Path | None,
    preemption: bool | None,
    engine: str,
    hadoop_version: int | None,
    min_gain: float,
    min_gain_abs: dict[str, float],
    seed: int,
    output: str,
    report_dir: str | None,
    force: bool,
    no_progress: bool,
    as_json: bool,
) -> None:
    """Search configurations near --config for one that meets the templates better; write it to -o.

    No change is proposed (-o gets the --config file as it is) unless some objective
    or violated constraint is predicted better by --min-gain and --min-gain-abs.
    Exit status 1 when the configuration written is predicted to miss a constraint."""
    from tempo.optimize import optimize as run_optimize

    opt.refuse_overwrite([output], force=force, option="-o")
    opt.refuse_report_overwrite(report_dir, force=force)
    templates = load_templates(templates_path)
    workload = _read_workload(trace_path, site_path, templates, window_text)
    cluster = Cluster.parse(cluster_spec)
    document, hadoop_version = _read_config(
        config_path, cluster, hadoop_version, space_path, overrides
    )
    settings = scheduler_settings(
        hadoop_version, site_path, preemption, announce=not as_json, config_path=Path(config_path)
    )
    space = _space(space_path, overrides, document, cluster, hadoop_version, settings)
    gain = MinGain(relative=min_gain, **min_gain_abs)
    if not as_json and not is_quiet():
        _announce_space(space)
    with _iterations_bar(iterations, as_json=as_json, hidden=no_progress) as on_iteration:
        outcome = run_optimize(
            document, workload, templates, cluster, space=space,
            algorithm=algorithm, radius=radius, iterations=iterations, batch_size=batch_size,
            replicates=replicates, noise=noise, executor=executor, engine=engine,
            hadoop_version=hadoop_version, seed=seed, settings=settings,
            callback=on_iteration, min_gain=gain,
        )  # fmt: skip
    with opt.writing_output(output, option="-o"):
        written = scheduler_file(document, hadoop_version).write(outcome.document, output)
    report = None
    if report_dir:
        report = _write_report(
            outcome, config_path, written, report_dir,
            trace=trace_path, templates=templates_path, cluster=cluster.spec(),
            algorithm=algorithm, radius=radius, iterations=iterations, seed=seed,
        )  # fmt: skip
    if as_json:
        opt.emit_json(
            _json_document(
                outcome,
                config=config_path,
                output=written,
                space=space,
                hadoop_version=hadoop_version,
                settings=settings,
                radius=radius,
                iterations=iterations,
                min_gain=gain,
            )
        )
    else:
        _render_outcome(outcome, config_path, radius, output)
        if report is not None:
            click.echo(f"Report: {report.json} and {report.html}")
    if not _feasible(outcome):
        if not as_json and not is_quiet():
            click.echo("exit status 1: a constraint is predicted not met", err=True)
        click.get_current_context().exit(exitcodes.NO)


def _read_workload(
    trace_path: str, site_path: Path | None, templates: list[QSTemplate], window_text: str | None
) -> Workload:
    """The trace's workload (its queues checked against the templates'), or its last
    `window_text` of it."""
    from tempo.optimize import last_window

    trace = read_trace(trace_path, format=None, **site_reader_options(trace_path, None, site_path))
    check_trace_queues(templates, trace.workload, trace_path)
    if not window_text:
        return trace.workload
    return last_window(trace.workload, parse_duration(window_text))


def _read_config(
    config_path: str,
    cluster: Cluster,
    hadoop_version: int | None,
    space_path: str | None,
    overrides: tuple[str, ...],
) -> tuple[SchedulerDocument, int]:
    """The --config file (its warnings printed) and the Hadoop version it is tuned for: an
    allocation file's, or 3 for a capacity-scheduler.xml (`_capacity_version`)."""
    document = read_scheduler_document(config_path)
    if isinstance(document, AllocationDocument):
        version = hadoop_version_for(hadoop_version, cluster=cluster, document=document)
        warn_allocation(config_path, document, cluster, hadoop_version=version)
        return document, version
    warn_capacity(config_path, document, cluster)
    return document, _capacity_version(hadoop_version, space_path, overrides)


def _capacity_version(
    hadoop_version: int | None, space_path: str | None, overrides: tuple[str, ...]
) -> int:
    """Hadoop 3 for a capacity-scheduler.xml (its rules are 3.x's); --hadoop-version 1 or 2,
    --space and --tune (allocation-file settings) are usage errors."""
    opt.refuse_capacity_options(hadoop_version, space_path, "tuned")
    if overrides:
        raise click.UsageError(
            "--tune: names allocation-file settings; a capacity-scheduler.xml is tuned over "
            "the default Capacity Scheduler space (docs/capacity-scheduler.md)"
        )
    return 3


def _announce_space(space: SchedulerSpace) -> None:
    """What is tuned and any note about the space, on stderr: diagnostics, so that stdout
    carries only the result and -q hides them."""
    click.echo(f"tuning {len(space)} {_title(space)} settings", err=True)
    for note in space.notes:
        click.echo(f"note: {note}", err=True)


def _title(space: SchedulerSpace) -> str:
    return "Capacity Scheduler" if isinstance(space, CapacitySpace) else space.dialect.title


def _space(
    space_path: str | None,
    overrides: tuple[str, ...],
    document: SchedulerDocument,
    cluster: Cluster,
    hadoop_version: int,
    settings: SchedulerSettings,
) -> SchedulerSpace:
    """The tuned settings: the --space file's (or the defaults) with the --tune overrides;
    for a capacity-scheduler.xml, the default Capacity Scheduler space."""
    if not isinstance(document, AllocationDocument):
        return CapacitySpace.default(document, preemption=settings.preemption)
    current = effective_allocation(document, hadoop_version=hadoop_version)
    spec = SpaceSpec.from_file(space_path) if space_path else SpaceSpec()
    return ConfigurationSpace.from_spec(
        spec.with_overrides(overrides),
        current,
        cluster,
        hadoop_version=hadoop_version,
        preemption=settings.preemption,
    )


@contextmanager
def _iterations_bar(
    iterations: int, *, as_json: bool, hidden: bool
) -> Iterator[Callable[[IterationRecord], None]]:
    """A progress bar over the batches (and the final evaluation; none when `hidden`), and
    the callback that advances it and prints each batch (not with --json); the bar closes
    on exit."""
    bar = opt.progress_bar(iterations + 1, "optimize", unit="batch", hidden=hidden)

    def on_iteration(record: IterationRecord) -> None:
        bar.update(1)
        if not as_json:
            bar.clear()
            _render_iteration(record, iterations)

    try:
        yield on_iteration
    finally:
        bar.close()


def _write_report(
    outcome: OptimizeOutcome, config_path: str, written: Path, report_dir: str, **inputs: object
) -> ReportFiles:
    """report.json and report.html of the run (`tempo.reports.optimize_report`)."""
    from tempo.reports import optimize_report, write_tuning_report

    document = optimize_report(
        outcome,
        before_text=Path(config_path).read_text(encoding="utf-8", errors="replace"),
        after_text=Path(written).read_text(encoding="utf-8", errors="replace"),
        config=str(config_path),
        output=str(written),
        inputs={"config": config_path, "output": written, **inputs},
    )
    with opt.writing_output(report_dir, option="--report", directory=True):
        return write_tuning_report(document, report_dir)


def _render_clipped(outcome: OptimizeOutcome) -> None:
    """Where the file in force is outside the tuned ranges: what the search's start moved,
    and every QS of the answer against the file in force (losses too)."""
    click.echo(
        "note: the file in force is outside the tuned ranges; the search started from it "
        "moved into them, and the answer stays inside them:"
    )
    for d in outcome.clipped:
        click.echo(f"  {d.describe()}")
    for c, before, after in zip(
        outcome.components, outcome.result.start_mean, _proposed_mean(outcome), strict=True
    ):
        unit = c.metric.unit
        click.echo(
            f"predicted: {c.label} {format_value(float(before), unit)} in force -> "
            f"{format_value(float(after), unit)}"
        )


def _render_outcome(outcome: OptimizeOutcome, config_path: str, radius: float, output: str) -> None:
    click.echo(f"\nchanges from {config_path}:")
    for d in outcome.diff:
        click.echo(f"  {d.describe()}")
    if not outcome.diff:
        click.echo(
            f"  none ({outcome.held_back})"
            if outcome.held_back
            else "  none (nothing predicted better within the radius)"
        )
    else:
        start = " from the start moved into the tuned ranges" if outcome.clipped else ""
        click.echo(f"distance moved: {outcome.distance:.4f}{start} (radius {radius:g})")
        for g in outcome.gains:
            click.echo(
                f"predicted gain: {g.label} {format_value(g.before, g.unit)} -> "
                f"{format_value(g.after, g.unit)}"
            )
    if outcome.clipped:
        _render_clipped(outcome)
    _render_failures(outcome.failures)
    click.echo(f"wrote {output}")
