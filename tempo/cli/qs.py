"""`tempo qs`: the QS value of every metric per queue as observed in a trace, and template constraints' status."""

from __future__ import annotations

import json

import click

from tempo.cli.options import scheduler_settings, simulation_options
from tempo.qs import qs_report
from tempo.templates import check_queues, load_templates, parse_duration
from whatif import Cluster
from whatif.allocation import AllocationDocument
from whatif.errors import WhatifError
from whatif.metrics import Window
from whatif.predictor import predict
from whatif.readers import read_trace


@click.command()
@click.option(
    "--trace", "trace_path", required=True, type=click.Path(), help="Trace file or directory."
)
@click.option(
    "--format", "trace_format", default=None, help="Trace format (detected when omitted)."
)
@click.option(
    "--templates", "templates_path", type=click.Path(), help="A .qs file or a directory of them."
)
@click.option("--cluster", "cluster_spec", help="Cluster SPEC; enables the resource metrics.")
@click.option(
    "--window",
    "window_text",
    help="Length of the window ending at the trace's last event (e.g. 45min); the whole trace when omitted.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(),
    help="Allocation file to predict the schedule under (needs --cluster).",
)
@simulation_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def qs(
    trace_path,
    trace_format,
    templates_path,
    cluster_spec,
    window_text,
    config_path,
    hadoop_version,
    preemption,
    as_json,
):
    """Show every QS metric per queue as observed in a trace and, with --config, as predicted
    under that allocation file; and whether each template constraint is met."""
    if config_path and not cluster_spec:
        raise click.UsageError("--config needs --cluster SPEC to simulate on")
    trace = read_trace(trace_path, format=trace_format)
    if trace.observed is None and not config_path:
        raise WhatifError(
            f"{trace_path}: the trace records no observed schedule; "
            "pass --config and --cluster to see predicted values"
        )
    cluster = Cluster.parse(cluster_spec) if cluster_spec else None
    templates = load_templates(templates_path) if templates_path else []
    predicted = None
    if config_path:
        allocation = AllocationDocument.from_file(config_path).effective(
            hadoop_version=hadoop_version
        )
        check_queues(templates, [q.name for q in allocation.queues()])
        predicted = predict(
            trace.workload,
            allocation,
            cluster,
            settings=scheduler_settings(hadoop_version, preemption),
        )
    window = Window.covering(trace.observed if trace.observed is not None else predicted)
    if window_text:
        window = window.last(parse_duration(window_text))
    report = qs_report(
        trace.observed,
        templates,
        window=window,
        cluster=cluster,
        workload=trace.workload,
        predicted=predicted,
    )
    click.echo(json.dumps(report.to_dict(), indent=2) if as_json else report.to_text())
