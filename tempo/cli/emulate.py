"""`tempo emulate-rm`: serve an emulated ResourceManager replaying a trace, and ask it to reload."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from tempo.cli import options as opt

if TYPE_CHECKING:  # the RM package (requests) is imported when a command runs
    from tempo.rm.workload_shift import WorkloadShift


def _shift(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> tuple[WorkloadShift, ...]:
    from tempo.rm.workload_shift import WorkloadShift

    try:
        return tuple(WorkloadShift.parse(v) for v in values)
    except ValueError as error:
        raise click.BadParameter(str(error)) from error


@click.group(invoke_without_command=True)
@opt.path_option(
    "--trace", "trace_path", exists=True, help="Trace to replay (any format tempo reads)."
)
@opt.path_option(
    "--config",
    "config_path",
    exists=True,
    dir_okay=False,
    help="Allocation file the emulated RM loads and watches, or a capacity-scheduler.xml "
    "(it then runs the Capacity Scheduler, reloading the file only on refresh).",
)
@opt.cluster_option()
@opt.positive_option("--speed", default=60.0, help="Trace seconds per wall second.")
@opt.shown_option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    help="Port on 127.0.0.1 (0: any free port).",
)
@click.option(
    "--start",
    "start_s",
    type=opt.FiniteFloat(),
    default=None,
    help="Trace time to start at [default: first submission].",
)
@opt.engine_option(help="Predictor engine.")
@click.option(
    "--shift",
    "shifts",
    multiple=True,
    callback=_shift,
    metavar="from=T[,queue=Q][,duration=F][,arrival=F]",
    help="Change the workload from trace time T on (repeatable).",
)
@click.pass_context
def emulate_rm(
    ctx: click.Context,
    trace_path: str | None,
    config_path: str | None,
    cluster_spec: str | None,
    speed: float,
    port: int,
    start_s: float | None,
    engine: str,
    shifts: tuple[WorkloadShift, ...],
) -> None:
    """Replay a trace behind the RM and JobHistory REST APIs until Ctrl-C; print the URL."""
    if ctx.invoked_subcommand is not None:
        return
    missing = [
        f"--{n}"
        for n, v in (("trace", trace_path), ("config", config_path), ("cluster", cluster_spec))
        if not v
    ]
    if missing:
        raise click.UsageError(f"missing {', '.join(missing)}")
    assert trace_path and config_path and cluster_spec  # checked just above
    from tempo.rm.emulator import EmulatedRM

    rm = EmulatedRM.from_files(
        trace_path,
        config_path,
        cluster_spec,
        speed=speed,
        port=port,
        start_s=start_s,
        engine=engine,
        shifts=shifts,
    )
    url = rm.start()
    click.echo(f"emulated ResourceManager and JobHistory Server at {url} (Ctrl-C stops)")
    click.echo(f"reload now: tempo emulate-rm refresh --rm {url}")
    try:
        rm.wait()
    except KeyboardInterrupt:
        click.echo("stopping")
    finally:
        rm.stop()


@emulate_rm.command()
@click.option(
    "--rm", "url", required=True, callback=opt.http_urls, help="Base URL of the emulated RM."
)
@click.option(
    "--timeout",
    "timeout_s",
    type=opt.FiniteFloat(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds to wait for the answer.",
)
def refresh(url: str, timeout_s: float) -> None:
    """Reload the allocation file now (the emulated `yarn rmadmin -refreshQueues`).

    Exit status 1 if the RM refuses the file (it names why), 3 if it cannot be reached."""
    from tempo.rm.emulator import request_refresh

    event = request_refresh(url, timeout_s=timeout_s)
    click.echo("reloaded" if event.changed else "unchanged: the file is already in force")


@emulate_rm.command()
@click.option(
    "--rm", "url", required=True, callback=opt.http_urls, help="Base URL of the emulated RM."
)
@opt.cluster_option(help="The nodes to report [default: the emulated cluster again].")
def nodes(url: str, cluster_spec: str | None) -> None:
    """Report --cluster's nodes as the emulated RM's RUNNING nodes from now on (its other
    nodes LOST), as when NodeManagers are lost or added during a run; without --cluster,
    its emulated cluster again. The replay keeps scheduling on the cluster it started with.

    Exit status 3 if the RM cannot be reached."""
    from tempo.rm.emulator import request_nodes

    request_nodes(url, cluster_spec)
    click.echo(f"nodes: {cluster_spec}" if cluster_spec else "nodes: the emulated cluster")
