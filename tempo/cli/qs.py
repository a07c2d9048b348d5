"""`tempo qs`: the QS value of every metric per queue as observed in a trace, and template constraints' status."""

from __future__ import annotations

import json

import click

from tempo.qs import qs_report
from tempo.templates import load_templates, parse_duration
from whatif import Cluster
from whatif.errors import WhatifError
from whatif.metrics import Window
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
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def qs(trace_path, trace_format, templates_path, cluster_spec, window_text, as_json):
    """Show every QS metric per queue as observed in a trace, and whether each template constraint is met."""
    trace = read_trace(trace_path, format=trace_format)
    if trace.observed is None:
        raise WhatifError(f"{trace_path}: the trace records no observed schedule to measure")
    window = Window.covering(trace.observed)
    if window_text:
        window = window.last(parse_duration(window_text))
    report = qs_report(
        trace.observed,
        load_templates(templates_path) if templates_path else (),
        window=window,
        cluster=Cluster.parse(cluster_spec) if cluster_spec else None,
        workload=trace.workload,
    )
    click.echo(json.dumps(report.to_dict(), indent=2) if as_json else report.to_text())
