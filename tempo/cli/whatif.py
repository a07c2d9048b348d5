"""`tempo whatif`: predicted SLOs per cluster size and workload scenario, and the smallest cluster meeting them."""

from __future__ import annotations

import click

from tempo.templates import parse_duration
from tempo.whatif import DEFAULT_CLUSTER, run_whatif
from whatif.report import render_text


def _scales(ctx, param, value: str) -> tuple[float, ...]:
    try:
        scales = tuple(float(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter(f"expected comma-separated numbers, got {value!r}") from None
    if not scales or any(not s > 0 for s in scales):
        raise click.BadParameter(f"expected numbers > 0, got {value!r}")
    return scales


@click.command()
@click.option(
    "--trace", "trace_path", required=True, type=click.Path(), help="Trace file or directory."
)
@click.option(
    "--config", "config_path", required=True, type=click.Path(), help="fair-scheduler.xml in force."
)
@click.option(
    "--templates",
    "templates_path",
    required=True,
    type=click.Path(),
    help="A .qs file or a directory of them.",
)
@click.option(
    "--cluster",
    "cluster_spec",
    default=DEFAULT_CLUSTER,
    show_default=True,
    help="Cluster SPEC at scale 1.",
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
    type=click.FloatRange(min=0, min_open=True),
    help="Data per job times this (e.g. 1.3).",
)
@click.option(
    "--arrival-scale",
    type=click.FloatRange(min=0, min_open=True),
    help="Job arrival rate times this (e.g. 1.2).",
)
@click.option(
    "--replicates",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Seeded runs per point (noisy when > 1).",
)
@click.option(
    "--executor",
    default="local",
    show_default=True,
    help="serial, local, local:N or dask://host:port.",
)
@click.option(
    "--window", "window_text", help="Measure QS over the last L of the trace (e.g. 45min)."
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0))
@click.option(
    "--tolerance",
    default=0.02,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Bisection stops when hi/lo <= 1 + this.",
)
@click.option(
    "--retune",
    is_flag=True,
    help="Also re-tune the configuration with PALD for every cluster size (slower).",
)
@click.option(
    "--check-accuracy", is_flag=True, help="Add the scale-up check (predicted vs direct at 2x, 4x)."
)
@click.option("--no-progress", is_flag=True, help="No progress bar on stderr.")
@click.option("-o", "--output", required=True, type=click.Path(), help="Report directory.")
def whatif(
    trace_path,
    config_path,
    templates_path,
    cluster_spec,
    scales,
    growth,
    arrival_scale,
    replicates,
    executor,
    window_text,
    seed,
    tolerance,
    check_accuracy,
    retune,
    no_progress,
    output,
):
    """Predict SLOs per cluster size and workload scenario; write report.json and report.html."""
    bar = None
    if not no_progress:
        from tqdm import tqdm

        bar = tqdm(
            total=1, unit="eval", desc="whatif", leave=False, file=click.get_text_stream("stderr")
        )

    def progress(done: int, total: int, message: str) -> None:
        bar.total = total
        bar.set_postfix_str(message[:60])
        bar.update(done - bar.n)

    try:
        run = run_whatif(
            trace_path,
            config_path,
            templates_path,
            output,
            cluster=cluster_spec,
            scales=scales,
            growth=growth,
            arrival_scale=arrival_scale,
            replicates=replicates,
            executor=executor,
            window_s=parse_duration(window_text) if window_text else None,
            seed=seed,
            rel_tol=tolerance,
            check=check_accuracy,
            retune=retune,
            progress=progress if bar else None,
        )
    finally:
        if bar is not None:
            bar.close()
    click.echo(render_text(run.analysis, retuned=run.retuned, check=run.check), nl=False)
    click.echo(f"Report: {run.files.json} and {run.files.html}")
