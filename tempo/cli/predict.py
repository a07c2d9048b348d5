"""`tempo predict`: replay a trace under an allocation file; compare with what was observed."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click
import pandas as pd

from tempo.cli import options as opt
from tempo.cli.checks import warn_allocation, warn_capacity
from tempo.cli.preemption import scheduler_settings, site_reader_options
from tempo.cli.tables import echo_table
from tempo.templates import parse_duration
from whatif import Cluster, Trace
from whatif.accuracy import prediction_errors
from whatif.allocation import AllocationDocument, EffectiveAllocation, effective_allocation
from whatif.capacity import ConfigurationDocument, is_capacity_scheduler
from whatif.durations import format_instant
from whatif.metrics import require_finished, unfinished_jobs
from whatif.predictor import predict_taking, write_jobruntime_csv
from whatif.predictor.capacity import read_capacity_allocation
from whatif.readers import write_native
from whatif.readers.stream import read_window
from whatif.schedule import Schedule
from whatif.workload import Workload


@click.command()
@opt.trace_options
@opt.window_option(
    "Predict only the jobs submitted in the last L before the trace's last submission "
    "(e.g. 1d), on a cluster the earlier jobs do not occupy; from a native Parquet trace "
    "only those rows are read (tempo qs --window instead predicts the whole trace and "
    "measures the window ending at its last event).",
)
@opt.path_option("--config", "config_path", required=True, help="Allocation file.")
@opt.cluster_option(required=True, help="Cluster SPEC to simulate on.")
@opt.simulation_options
@opt.choice_option(
    "--engine",
    ["auto", "numba", "reference"],
    default="auto",
    help="auto: the compiled kernel, or the reference engine (the same schedule) for a "
    "workload of up to 20,000 tasks while the kernel is not compiled yet.",
)
@opt.shown_option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    help="Seed of the predictor's random draws; predict draws none (no noise), so every "
    "seed gives the same schedule.",
)
@click.option(
    "--compare-observed",
    is_flag=True,
    help="Report per-queue RAE, RSE and mean absolute error of job finish times (paper 8.1).",
)
@opt.path_option("-o", "--output", help="Write the predicted schedule as a native trace.")
@opt.path_option("--jobruntime", help="Write an SLS-comparable jobruntime.csv.")
@opt.force_option("an existing -o trace or --jobruntime file")
@opt.json_option
def predict(
    trace_path: str,
    trace_format: str | None,
    window_text: str | None,
    config_path: str,
    cluster_spec: str,
    hadoop_version: int | None,
    site_path: Path | None,
    preemption: bool | None,
    engine: str,
    seed: int,
    compare_observed: bool,
    output: str | None,
    jobruntime: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Predict the schedule of a trace's jobs under an allocation file.

    A predicted job that never finishes is an error (exit status 1), after -o and
    --jobruntime are written for inspection: no mean response time leaves it out."""
    opt.refuse_overwrite([output], force=force, option="-o", directory=True)
    opt.refuse_overwrite([jobruntime], force=force, option="--jobruntime")
    workloads, observed, kept = _read(
        trace_path,
        trace_format,
        window_text,
        site_path,
        compare_observed,
        bool(output or jobruntime),
    )
    hadoop_version = opt.simulated_version(hadoop_version, Cluster.parse(cluster_spec))
    allocation = config_allocation(config_path, Cluster.parse(cluster_spec), hadoop_version)
    settings = scheduler_settings(
        hadoop_version, site_path, preemption, announce=not as_json, config_path=Path(config_path)
    )
    from whatif.predictor.compiled import choose_engine  # numba: imported to predict

    engine = choose_engine(engine, sum(workload.n_tasks for workload in workloads))
    schedule = predict_taking(
        workloads,
        allocation,
        Cluster.parse(cluster_spec),
        settings=settings,
        engine=engine,
        seed=seed,
    )
    note = f"predicted by tempo predict under {config_path} on {cluster_spec}"
    if kept is not None:
        _write(kept, schedule, output, jobruntime, note=note, force=force)
    if len(unfinished_jobs(schedule)):
        # Written for inspection; nothing is summarized over jobs that never finished.
        for path in (output, jobruntime):
            if path:
                click.echo(f"wrote {path}", err=True)
        require_finished(schedule, what=f"predicted schedule under {config_path}")
    errors = None
    if compare_observed:
        assert observed is not None  # checked above
        errors = prediction_errors(schedule, observed)
    _report(schedule, errors, settings.preemption, (output, jobruntime), as_json=as_json)


def _report(
    schedule: Schedule,
    errors: pd.DataFrame | None,
    preemption: bool,
    written: tuple[str | None, str | None],
    *,
    as_json: bool,
) -> None:
    """Print the prediction: jobs and attempts, each queue's figures, the errors against the
    observed schedule when compared, and the files written (or all that as JSON)."""
    per_queue = _per_queue(schedule)
    killed = schedule.count_attempts("KILLED")
    if as_json:
        payload = {
            "schema": "tempo.predict/1",
            "jobs": schedule.n_jobs,
            "attempts": schedule.n_attempts,
            "killed_attempts": killed,
            "preemption": preemption,
            "queues": _records(per_queue.reset_index()),
            "errors": _records(errors) if errors is not None else None,
        }
        opt.emit_json(payload)
        return
    click.echo(
        f"predicted {schedule.n_jobs:,} jobs, {schedule.n_attempts:,} attempts ({killed:,} killed)"
    )
    echo_table(
        ["queue", "jobs", "mean_response_s", "last_finish"],
        [
            [
                q,
                f"{r.jobs:,}",
                f"{r.mean_response_s:,.1f}",
                format_instant(r.last_finish_s, zone=True),
            ]
            for q, r in per_queue.iterrows()
        ],
        right=["jobs", "mean_response_s", "last_finish"],
    )
    if errors is not None:
        click.echo("\nerrors of predicted job finish times against the observed ones (paper 8.1)")
        columns = list(errors.columns)
        echo_table(
            columns,
            [[_cell(v) for v in row] for row in errors.itertuples(index=False)],
            right=columns[1:],
        )
    for path in written:
        if path:
            click.echo(f"wrote {path}")


def _read(
    trace_path: str,
    trace_format: str | None,
    window_text: str | None,
    site_path: Path | None,
    compare_observed: bool,
    write: bool,
) -> tuple[list[Workload], Schedule | None, Trace | None]:
    """The trace's workload alone in a list (for `predict_taking`), the observed schedule
    when `compare_observed` or `write` (-o, --jobruntime) needs it, and the trace when
    `write` does.

    Without --compare-observed or --jobruntime the reader does not build the observed
    schedule (SLS, native) or drops it; and unless -o or --jobruntime writes the workload,
    the predictor alone holds it, so that its tables are freed once packed.
    """
    window_s = parse_duration(window_text) if window_text else None
    options = site_reader_options(trace_path, trace_format, site_path)
    trace = read_window(
        trace_path,
        format=trace_format,
        window_s=window_s,
        observed=compare_observed or write,
        **options,
    )
    if compare_observed and trace.observed is None:
        raise click.UsageError(
            f"--compare-observed: {trace_path} records no observed schedule to compare with"
        )
    return [trace.workload], trace.observed, trace if write else None


def _write(
    trace: Trace,
    schedule: Schedule,
    output: str | None,
    jobruntime: str | None,
    *,
    note: str,
    force: bool,
) -> None:
    """The predicted schedule as a native trace (-o) and as SLS's jobruntime.csv."""
    if output:
        with opt.writing_output(output, option="-o", directory=True):
            predicted = Trace(trace.workload, schedule, notes=(note,))
            write_native(predicted, output, overwrite=force)
    if jobruntime:
        with opt.writing_output(jobruntime, option="--jobruntime"):
            write_jobruntime_csv(schedule, trace.observed or trace.workload, jobruntime)


def _per_queue(schedule: Schedule) -> pd.DataFrame:
    """Per queue: the number of jobs, their mean response time and the last finish."""
    jobs = schedule.jobs.assign(response_s=schedule.jobs["finish_s"] - schedule.jobs["submit_s"])
    return jobs.groupby("queue", sort=False).agg(
        jobs=("job_id", "size"),
        mean_response_s=("response_s", "mean"),
        last_finish_s=("finish_s", "max"),
    )


def _cell(value: object) -> str:
    """A table cell: numbers to three decimals, counts as they are."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:,.3f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {str(k): (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        for row in frame.to_dict("records")
    ]


def config_allocation(
    config_path: str, cluster: Cluster, hadoop_version: int
) -> EffectiveAllocation:
    """The queues to predict under: a capacity-scheduler.xml (the Capacity Scheduler mode)
    or an allocation file (the Fair Scheduler's), its warnings printed."""
    if is_capacity_scheduler(config_path):
        if cluster.slots:
            raise click.BadParameter(
                "a capacity-scheduler.xml is predicted by Hadoop 3.x's rules, on memory-mb "
                "and vcores (map-slots/reduce-slots are Hadoop 1's)",
                param_hint=["--cluster"],
            )
        opt.refuse_capacity_options(hadoop_version, None, "predicted")
        warn_capacity(config_path, ConfigurationDocument.from_file(config_path), cluster)
        return read_capacity_allocation(config_path, cluster)
    document = AllocationDocument.from_file(config_path)
    warn_allocation(config_path, document, cluster, hadoop_version=hadoop_version)
    return effective_allocation(document, hadoop_version=hadoop_version)
