"""`tempo qs`: the QS value of every metric per queue as observed in a trace, and template constraints' status."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from tempo.cli import CommandError, exitcodes
from tempo.cli import options as opt
from tempo.cli.checks import warn_unmeasured
from tempo.cli.predict import config_allocation
from tempo.cli.preemption import scheduler_settings, site_reader_options
from tempo.qs import qs_report, read_qs_trace, warn_window_longer
from tempo.templates import (
    QSTemplate,
    check_predicted_queues,
    check_trace_queues,
    load_templates,
    parse_duration,
)
from whatif import Cluster, Schedule, Workload
from whatif.metrics import Window, metric_spec
from whatif.predictor import SchedulerSettings, predict


def _predicted(
    workload: Workload,
    config_path: str,
    cluster: Cluster,
    settings: SchedulerSettings,
    templates: list[QSTemplate],
) -> Schedule:
    """The schedule predicted under `config_path` (an allocation file, its warnings shown, or
    a capacity-scheduler.xml; the templates' queues checked against it), on the engine
    `choose_engine` picks for one prediction."""
    from whatif.predictor.compiled import choose_engine  # numba: imported to predict

    allocation = config_allocation(config_path, cluster, settings.hadoop_version)
    check_predicted_queues(templates, allocation, workload, where=config_path)
    engine = choose_engine("auto", workload.n_tasks)
    return predict(workload, allocation, cluster, settings=settings, engine=engine)


def _check_prediction_options(
    config_path: str | None,
    cluster_spec: str | None,
    hadoop_version: int | None,
    preemption: bool | None,
) -> None:
    """The options of the prediction come with --config, and --config with --cluster."""
    if config_path and not cluster_spec:
        raise click.UsageError("--config needs --cluster SPEC to simulate on")
    if not config_path and (preemption is not None or hadoop_version is not None):
        given = (
            "--hadoop-version"
            if hadoop_version is not None
            else ("--preemption" if preemption else "--no-preemption")
        )
        raise click.UsageError(f"{given} sets how the prediction runs: it needs --config")


def _needs_cluster(templates: Sequence[QSTemplate]) -> str | None:
    """``file:line: METRIC`` of the first template metric that needs the cluster, if any."""
    for template in templates:
        named = [(c.metric, c.location) for c in template.constraints]
        if template.optimize is not None:
            named.insert(0, (template.optimize, template.location))
        for metric, location in named:
            if metric_spec(metric.name).needs_cluster:
                where = location or template.location
                return f"{where.path}:{where.line}: {metric.name}" if where else metric.name
    return None


@click.command()
@opt.trace_options
@opt.path_option("--templates", "templates_path", help="A .qs file or a directory of them.")
@opt.cluster_option(help="Cluster SPEC; enables the resource metrics.")
@opt.window_option(
    "Length of the window ending at the trace's last event (e.g. 45min) whose QS are "
    "measured; the whole trace when omitted. With --config the whole trace is predicted, "
    "so earlier jobs contend in the window (tempo predict --window predicts only the jobs "
    "submitted in it)."
)
@opt.path_option(
    "--config",
    "config_path",
    help="Allocation file or capacity-scheduler.xml to predict the schedule under (needs "
    "--cluster).",
)
@opt.simulation_options
@opt.json_option
def qs(
    trace_path: str,
    trace_format: str | None,
    templates_path: str | None,
    cluster_spec: str | None,
    window_text: str | None,
    config_path: str | None,
    hadoop_version: int | None,
    site_path: Path | None,
    preemption: bool | None,
    as_json: bool,
) -> None:
    """Show every QS metric per queue as observed in a trace and, with --config, as predicted
    under that allocation file; and whether each template constraint is met.

    Exit status 1 when a template constraint is not met (the predicted value with
    --config, else the observed one); a constraint with nothing to measure is not met."""
    _check_prediction_options(config_path, cluster_spec, hadoop_version, preemption)
    templates = load_templates(templates_path) if templates_path else []
    if templates and not cluster_spec:
        where = _needs_cluster(templates)
        if where:
            raise click.UsageError(f"{where} needs --cluster SPEC (it measures cluster shares)")
    window_s = parse_duration(window_text) if window_text else None
    # With --config the whole trace is simulated: its earlier jobs contend in the window.
    trace, window = read_qs_trace(
        trace_path,
        format=trace_format,
        window_s=None if config_path else window_s,
        **site_reader_options(trace_path, trace_format, site_path),
    )
    check_trace_queues(templates, trace.workload, trace_path)
    if trace.observed is None and not config_path:
        raise CommandError(
            f"{trace_path}: the trace records no observed schedule; "
            "pass --config and --cluster to see predicted values"
        )
    cluster = Cluster.parse(cluster_spec) if cluster_spec else None
    predicted = None
    if config_path:
        assert cluster is not None  # --config needs --cluster, checked above
        settings = scheduler_settings(
            opt.simulated_version(hadoop_version, cluster),
            site_path,
            preemption,
            announce=not as_json,
            config_path=Path(config_path),
        )
        predicted = _predicted(trace.workload, config_path, cluster, settings, templates)
    if window is None:
        covered = trace.observed if trace.observed is not None else predicted
        assert covered is not None  # no observed schedule needs --config, checked above
        window = Window.covering(covered)
        if window_s is not None:
            window = window.last(window_s)
    if window_s is not None:
        warn_window_longer(window, trace.workload, f"--window {window_text}")
    report = qs_report(
        trace.observed,
        templates,
        window=window,
        cluster=cluster,
        workload=trace.workload,
        predicted=predicted,
    )
    if as_json:
        opt.emit_json({"schema": "tempo.qs/1", **report.to_dict()})
    else:
        click.echo(report.to_text())
    side = "predicted" if predicted is not None else "observed"
    warn_unmeasured(templates, report.constraints, side)
    side = f"{side}_met"
    if any(met is False for met in report.constraints[side]):
        click.get_current_context().exit(exitcodes.NO)
