"""`tempo optimize`: tune an allocation file against QS templates on a trace, offline."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import click

from tempo.errors import TempoError
from tempo.optimize import CandidateFailure, IterationRecord, last_window
from tempo.optimize import optimize as run_optimize
from tempo.optimizers import OPTIMIZERS
from tempo.space import ConfigurationSpace, SpaceSpec, hadoop_version_for
from tempo.templates import load_templates, parse_duration
from whatif import Cluster
from whatif.allocation import AllocationDocument, write_allocation
from whatif.predictor import SchedulerSettings
from whatif.readers import read_trace


def _render_iteration(record: IterationRecord) -> None:
    table = record.table.rename(columns={"iterate": "this batch", "best": "best so far"})
    click.echo(
        f"iteration {record.iteration}: {record.evaluations}/{record.budget} evaluations, "
        f"best {'feasible' if record.best_feasible else 'INFEASIBLE'} at distance "
        f"{record.best_distance:.3f}" + (f", {record.failed} failed" if record.failed else "")
    )
    click.echo(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))


#: Distinct failure reasons `tempo optimize` prints.
_SHOWN_FAILURES = 3


def _render_failures(failures: Sequence[CandidateFailure]) -> None:
    """Failed candidates (e.g. jobs that never finish under them): how many, and why."""
    if not failures:
        return
    click.echo(
        f"{len(failures)} candidate(s) failed: scored as failed (NaN), never picked or averaged"
    )
    reasons = Counter(f.reason for f in failures)
    for reason, count in reasons.most_common(_SHOWN_FAILURES):
        click.echo(f"  {count} x {reason}")
    if len(reasons) > _SHOWN_FAILURES:
        click.echo(f"  ... and {len(reasons) - _SHOWN_FAILURES} other reasons")


@click.command()
@click.option("--trace", "trace_path", required=True, type=click.Path(exists=True))
@click.option(
    "--config", "config_path", required=True, type=click.Path(exists=True, dir_okay=False)
)
@click.option("--templates", "templates_path", required=True, type=click.Path(exists=True))
@click.option(
    "--cluster",
    "cluster_spec",
    required=True,
    help="Cluster SPEC, e.g. nodes=100,memory-mb=8192,vcores=8.",
)
@click.option(
    "--radius", type=click.FloatRange(0, 1, min_open=True), default=0.2, show_default=True
)
@click.option("--iterations", type=click.IntRange(1), default=10, show_default=True)
@click.option("--batch-size", type=click.IntRange(1), default=8, show_default=True)
@click.option(
    "--algorithm", type=click.Choice(sorted(OPTIMIZERS)), default="pald", show_default=True
)
@click.option(
    "--space", "space_path", type=click.Path(exists=True, dir_okay=False), help="TOML space file."
)
@click.option(
    "--tune", "overrides", multiple=True, help="QUEUE.SETTING[.COMPONENT]=LOW:HIGH|default|fixed."
)
@click.option("--replicates", type=click.IntRange(1), default=1, show_default=True)
@click.option(
    "--executor",
    default="local",
    show_default=True,
    help="local, local:N, serial or dask://host:port.",
)
@click.option(
    "--window",
    "window_text",
    help="Replay only the jobs submitted in the trace's last L (e.g. 45min).",
)
@click.option(
    "--preemption/--no-preemption",
    default=False,
    show_default=True,
    help="yarn.scheduler.fair.preemption.",
)
@click.option(
    "--engine",
    type=click.Choice(["numba", "reference"]),
    default="numba",
    show_default=True,
    help="Predictor engine (reference: plain Python, no compilation).",
)
@click.option(
    "--hadoop-version",
    type=click.IntRange(1, 3),
    default=None,
    help="Hadoop major version whose settings are tuned [default: 1 for a slot cluster, "
    "or a file of <pool> elements without one; else 3].",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Allow -o to be the --config file itself.")
def optimize(
    trace_path, config_path, templates_path, cluster_spec, radius, iterations, batch_size,
    algorithm, space_path, overrides, replicates, executor, window_text, preemption,
    engine, hadoop_version, seed, output, force,
):  # fmt: skip
    """Search configurations near --config for one that meets the templates better; write it to -o."""
    if Path(output).resolve() == Path(config_path).resolve() and not force:
        raise TempoError(f"{output}: refusing to overwrite the --config file (add --force)")
    workload = read_trace(trace_path).workload
    if window_text:
        workload = last_window(workload, parse_duration(window_text))
    document = AllocationDocument.from_file(config_path)
    cluster = Cluster.parse(cluster_spec)
    hadoop_version = hadoop_version_for(hadoop_version, cluster=cluster, document=document)
    current = document.effective(hadoop_version=hadoop_version)
    spec = SpaceSpec.from_file(space_path) if space_path else SpaceSpec()
    space: ConfigurationSpace = spec.with_overrides(overrides).build(
        current, cluster, hadoop_version=hadoop_version
    )
    click.echo(f"tuning {len(space)} {space.dialect.title} settings")
    for note in space.notes:
        click.echo(f"note: {note}")
    outcome = run_optimize(
        document, workload, load_templates(templates_path), cluster, space=space,
        algorithm=algorithm, radius=radius, iterations=iterations, batch_size=batch_size,
        replicates=replicates, executor=executor, engine=engine, hadoop_version=hadoop_version, seed=seed,
        settings=SchedulerSettings(preemption=preemption, hadoop_version=hadoop_version),
        callback=_render_iteration,
    )  # fmt: skip
    click.echo(f"\nchanges from {config_path}:")
    for d in outcome.diff:
        click.echo(f"  {d.queue}  {d.setting}: {d.old} -> {d.new}")
    if not outcome.diff:
        click.echo("  none (nothing predicted better within the radius)")
    click.echo(f"distance moved: {outcome.distance:.4f} (radius {radius:g})")
    _render_failures(outcome.failures)
    write_allocation(outcome.document, output, hadoop_version=hadoop_version)
    click.echo(f"wrote {output}")
