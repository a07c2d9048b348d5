"""`tempo whatif`: predicted SLOs per cluster size and workload scenario, and the smallest cluster meeting them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from tempo.cli import exitcodes
from tempo.cli import options as opt
from tempo.cli.preemption import preemption_options, scheduler_settings
from tempo.cli.progress import ProgressBar
from tempo.cli.tables import terminal_width
from tempo.errors import TempoError
from tempo.templates import parse_duration
from whatif.cluster import MAX_NODES
from whatif.durations import DAY_S

if TYPE_CHECKING:  # the analysis, the forecast (scipy) and the report (matplotlib) are
    # imported when whatif runs: `tempo --help` and a usage error do not wait for them
    from tempo.whatif import WhatifRun
    from whatif.provisioning import Progress


def _scales(ctx: click.Context, param: click.Parameter, value: str) -> tuple[float, ...]:
    try:
        scales = tuple(float(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter(f"expected comma-separated numbers, got {value!r}") from None
    if not scales or any(not 0 < s <= MAX_NODES for s in scales):  # nan and inf too
        raise click.BadParameter(f"expected numbers in (0, {MAX_NODES}], got {value!r}")
    return scales


def _growth(ctx: click.Context, param: click.Parameter, value: str | None) -> float | str | None:
    if value is None or value == "auto":
        return value
    try:
        growth = float(value)
    except ValueError:
        raise click.BadParameter(f"expected a number > 0 or 'auto', got {value!r}") from None
    if not growth > 0 or growth == float("inf"):
        raise click.BadParameter(f"expected a number > 0 or 'auto', got {value!r}")
    return growth


def _horizon(
    growth: float | str | None, text: str | None, arrival_scale: float | None
) -> float | None:
    """Seconds to forecast ahead with --growth auto (90 days by default), else None;
    checked with the command line, before anything is read."""
    if growth == "auto" and arrival_scale is not None:
        raise click.BadParameter(
            "not with --growth auto: the forecast sets growth and arrivals",
            param_hint=["--arrival-scale"],
        )
    if growth != "auto":
        if text is not None:
            raise click.BadParameter(
                "expected only with --growth auto (the forecast's horizon)",
                param_hint=["--horizon"],
            )
        return None
    try:
        seconds = parse_duration(text or "90d")
    except TempoError as error:
        raise click.BadParameter(str(error), param_hint=["--horizon"]) from None
    if seconds < DAY_S:
        raise click.BadParameter(
            f"expected a duration of at least 1d (e.g. 90d), got {text!r}", param_hint=["--horizon"]
        )
    return seconds


@click.command()
@opt.trace_option
@opt.path_option(
    "--config",
    "config_path",
    required=True,
    help="fair-scheduler.xml or capacity-scheduler.xml in force.",
)
@opt.path_option(
    "--templates", "templates_path", required=True, help="A .qs file or a directory of them."
)
@opt.cluster_option(
    help="Cluster SPEC at scale 1 [default: the cluster the trace was recorded on, as its "
    "notes say (tempo trace inspect); the bundled samples say theirs]."
)
@click.option(
    "--cluster-scale",
    "scales",
    default="0.25,0.5,1,2,4",
    show_default=True,
    callback=_scales,
    help="Grid of cluster scales.",
)
@click.option(
    "--growth",
    callback=_growth,
    help="Data per job times this (e.g. 1.3), or 'auto': forecast each queue's arrivals and "
    "job sizes from the trace to --horizon.",
)
@click.option(
    "--horizon",
    "horizon_text",
    help="With --growth auto: how far ahead to forecast (e.g. 90d) [default: 90d].",
)
@opt.shown_option(
    "--level",
    default=0.9,
    type=opt.FiniteFloat(min=0, max=1, min_open=True, max_open=True),
    help="With --growth auto: the forecast's prediction-interval level.",
)
@click.option(
    "--arrival-scale",
    type=opt.FiniteFloat(min=0, min_open=True),
    help="Job arrival rate times this (e.g. 1.2).",
)
@opt.count_option("--replicates", default=1, help="Seeded runs per point (noisy when > 1).")
@opt.executor_option(help="serial, local, local:N or dask://host:port.")
@opt.window_option("Measure QS over the last L of the trace (e.g. 45min).")
@opt.count_option(
    "--seed",
    minimum=0,
    default=0,
    help="Seed of the replicates' noise and of the forecast and re-tuning draws.",
)
@opt.positive_option("--tolerance", default=0.02, help="Bisection stops when hi/lo <= 1 + this.")
@click.option(
    "--retune",
    is_flag=True,
    help="Also re-tune the configuration with PALD for every cluster size (slower).",
)
@click.option(
    "--check-accuracy", is_flag=True, help="Add the scale-up check (predicted vs direct at 2x, 4x)."
)
@preemption_options
@opt.no_progress_option
@opt.path_option("-o", "--output", required=True, help="Report directory.")
@opt.force_option("report.json and report.html already in the -o directory")
@opt.json_option
def whatif(
    trace_path: str,
    config_path: str,
    templates_path: str,
    cluster_spec: str | None,
    scales: tuple[float, ...],
    growth: float | str | None,
    horizon_text: str | None,
    level: float,
    arrival_scale: float | None,
    replicates: int,
    executor: str,
    window_text: str | None,
    seed: int,
    tolerance: float,
    check_accuracy: bool,
    retune: bool,
    site_path: Path | None,
    preemption: bool | None,
    no_progress: bool,
    output: str,
    force: bool,
    as_json: bool,
) -> None:
    """Predict SLOs per cluster size and workload scenario; write report.json and report.html.

    With --json, print report.json's document (its schema: whatif/report/schema.py).
    Exit status 1 when, in some workload scenario, the cluster at scale 1 misses an
    SLO (one with nothing to measure is missed too)."""
    from tempo.whatif import run_whatif

    horizon_s = _horizon(growth, horizon_text, arrival_scale)
    opt.refuse_report_overwrite(output, force=force, option="-o")
    settings = scheduler_settings(
        3, site_path, preemption, announce=not as_json, config_path=Path(config_path)
    )
    bar = None if no_progress else opt.progress_bar(None, "whatif", unit="eval")
    try:
        with opt.writing_output(output, option="-o", directory=True):
            run = run_whatif(
                trace_path,
                config_path,
                templates_path,
                output,
                cluster=cluster_spec,
                scales=scales,
                growth=None if isinstance(growth, str) else growth,  # "auto": the forecast's
                arrival_scale=arrival_scale,
                horizon_s=horizon_s,
                level=level,
                replicates=replicates,
                executor=executor,
                window_s=parse_duration(window_text) if window_text else None,
                seed=seed,
                rel_tol=tolerance,
                check=check_accuracy,
                retune=retune,
                settings=settings,
                progress=_progress(bar) if bar else None,
            )
    finally:
        if bar is not None:
            bar.total = bar.n  # the estimate was an estimate: end where the work ended
            bar.close()
    if as_json:
        click.echo(run.files.json.read_text(encoding="utf-8"), nl=False)
    else:
        _echo_text(run, cluster_given=cluster_spec is not None)
    missed = [
        s.scenario.label
        for s in run.analysis.scenarios
        if any(r.scale == 1.0 and not r.feasible for r in s.scales)
    ]
    if missed:
        if not as_json:
            click.echo(f"the cluster at scale 1 misses an SLO in: {'; '.join(missed)}", err=True)
        click.get_current_context().exit(exitcodes.NO)


def _echo_text(run: WhatifRun, *, cluster_given: bool) -> None:
    """The report as text on stdout, its tables split to the terminal's width (100 in a pipe)."""
    from whatif.report import render_forecast, render_text

    if not cluster_given:
        click.echo(
            f"cluster at scale 1: {run.analysis.cluster.describe()} (from the trace's notes)"
        )
    width = terminal_width()
    if run.forecast is not None:
        click.echo(render_forecast(run.forecast, width), nl=False)
    click.echo(
        render_text(run.analysis, retuned=run.retuned, check=run.check, width=width), nl=False
    )
    if run.forecast is not None:
        click.echo(_answer(run))
    click.echo(f"Report: {run.files.json} and {run.files.html}")


def _progress(bar: ProgressBar) -> Progress:
    """The analysis' progress callback, drawn on `bar` (whose total grows with the work)."""

    def progress(done: int, total: int, message: str) -> None:
        bar.total = max(total, done)
        bar.set_postfix_str(message[:60], refresh=False)
        bar.update(done - bar.n)

    return progress


def _answer(run: WhatifRun) -> str:
    """One line per forecast scenario: the smallest cluster meeting every SLO."""
    lines = ["Cluster needed (smallest meeting every SLO):"]
    for s in run.analysis.scenarios:
        smallest = s.smallest
        if smallest is None:
            size = f"none up to scale {s.bisection.lower:g}"
        else:
            bound = "at most " if s.bisection.status == "below_min" else ""
            size = f"{bound}scale {s.bisection.scale:.3g}: {smallest.cluster.describe()}"
            if s.bisection.status == "smallest_cluster":
                size += " (the smallest cluster)"
        lines.append(f"  {s.scenario.label}: {size}")
    return "\n".join(lines)
