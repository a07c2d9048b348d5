"""`tempo trace`: inspect and convert job traces."""

from __future__ import annotations

import math
from typing import Literal

import click

from tempo.cli import options as opt
from whatif.durations import format_instant
from whatif.readers import TraceSummary, inspect_trace
from whatif.readers.stream import convert_streaming


@click.group()
def trace() -> None:
    """Inspect and convert job traces."""


@trace.command()
@click.argument("path", type=click.Path(path_type=str))
@opt.format_option("--format", "format_", help="Trace format (detected when omitted).")
@opt.json_option
def inspect(path: str, format_: str | None, as_json: bool) -> None:
    """Summarize the trace at PATH: jobs, tasks, attempts, queues, span, durations."""
    summary = inspect_trace(path, format=format_)
    if as_json:
        opt.emit_json({"schema": "tempo.trace.inspect/1", **summary.to_dict()})
    else:
        click.echo(_render(summary))


@trace.command()
@click.argument("source", type=click.Path(path_type=str))
@click.argument("target", type=click.Path(path_type=str))
@opt.format_option(
    "--from",
    "--format",
    "format_",
    help="Input format (detected when omitted; --format as on the other commands).",
)
@opt.native_kind_option("--to")
@opt.force_option("an existing native trace at TARGET")
@opt.no_progress_option
@opt.json_option
def convert(
    source: str,
    target: str,
    format_: str | None,
    kind: Literal["parquet", "csv"],
    force: bool,
    no_progress: bool,
    as_json: bool,
) -> None:
    """Convert the trace at SOURCE into a native trace directory TARGET.

    SLS, Rumen and jhist traces are converted piece by piece in bounded memory (a
    progress bar on a terminal, hidden with -q or --no-progress); other formats are
    read whole first."""
    opt.refuse_overwrite([target], force=force, option="TARGET", directory=True)
    bar = opt.progress_bar(None, "convert", unit="MB", hidden=no_progress)

    def moved(done: int, total: int) -> None:  # SLS, Rumen and jhist stream in pieces
        bar.total = max(1, total >> 20)
        bar.update((done >> 20) - bar.n)

    try:
        with opt.writing_output(target, option="TARGET", directory=True):
            written = convert_streaming(
                source, target, format=format_, kind=kind, overwrite=force, progress=moved
            )
    finally:
        bar.close()
    if as_json:
        opt.emit_json({"schema": "tempo.trace.convert/1", "source": source, "output": str(written)})
    else:
        click.echo(f"wrote {written}")


def _render(s: TraceSummary) -> str:
    lines = [
        f"{s.source} ({s.format})",
        f"jobs {s.jobs:,}  tasks {s.tasks:,}  attempts {s.attempts:,}  AM containers {s.am_containers:,}",
        f"killed attempts {s.killed_attempts:,} (preempted {s.preempted_attempts:,})  "
        f"failed attempts {s.failed_attempts:,}",
        f"submits {format_instant(s.first_submit_s, zone=True)} .. {format_instant(s.last_submit_s, zone=True)}"
        + (
            f" (span {s.last_submit_s - s.first_submit_s:,.0f} s)"
            if math.isfinite(s.first_submit_s)
            else ""
        )
        + f"; last finish {format_instant(s.last_finish_s, zone=True)}",
        "",
        f"{'queue':<24} {'jobs':>8} {'tasks':>10} {'memory GB-h':>12} {'vcore-h':>10}",
    ]
    for q in s.per_queue:
        lines.append(
            f"{q.queue:<24} {q.jobs:>8,} {q.tasks:>10,} {q.memory_mb_s / 1024 / 3600:>12,.1f} "
            f"{q.vcore_s / 3600:>10,.1f}"
        )
    durations = [d for d in s.durations if d.tasks > 0]  # (no row of nan for no task)
    lines += [
        "",
        f"{'task durations (s)':<24} {'tasks':>10} {'mean':>9} {'p50':>9} {'p90':>9} {'p99':>9} {'max':>9}"
        if durations
        else "task durations (s): no task records",
    ]
    for d in durations:
        lines.append(
            f"{d.stage:<24} {d.tasks:>10,} {d.mean_s:>9.1f} {d.p50_s:>9.1f} {d.p90_s:>9.1f} "
            f"{d.p99_s:>9.1f} {d.max_s:>9.1f}"
        )
    if s.slots is not None:
        lines += [
            "",
            f"cluster seen: {s.slots['trackers']} TaskTracker(s), at most "
            f"{s.slots['map_slots_per_tracker']} map and {s.slots['reduce_slots_per_tracker']} "
            "reduce attempt(s) at once on one"
            + (
                " (named by rack and host: delay scheduling applies)"
                if s.slots.get("named_by_host")
                else ""
            ),
            f"  --cluster {s.slots['cluster']}",
        ]
    if s.nodes is not None:
        lines += [
            "",
            f"cluster seen: {s.nodes['nodes']} NodeManager(s), at most "
            f"{s.nodes['peak_memory_mb_per_node']:g} MB and {s.nodes['peak_vcores_per_node']:g} "
            "vcore(s) allocated at once on one (containers at their normalized size)",
            f"  --cluster {s.nodes['cluster']}",
            "  (a lower bound: the cluster as the RM lists it is --cluster FILE, FILE a saved "
            "/ws/v1/cluster/nodes)",
        ]
    lines += [f"note: {n}" for n in s.notes]
    return "\n".join(lines)
