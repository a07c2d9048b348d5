"""`tempo workload`: fit a statistical workload model to a trace, generate traces from it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from tempo.cli import options as opt
from whatif.errors import ValidationError
from whatif.workload_model import fit_trace, generate_trace
from whatif.workload_model.limits import MAX_GROWTH, GenerateSizeError
from whatif.workload_model.model import check_start


@click.group()
def workload() -> None:
    """Fit a statistical workload model and generate synthetic traces from it."""


@workload.command("fit")
@click.argument("trace", type=click.Path(exists=True))
@click.option(
    "-o", "--output", required=True, type=click.Path(), help="Model file to write (JSON)."
)
@opt.format_option("--format", "trace_format", help="Trace format (detected by default).")
@opt.choice_option(
    "--durations",
    ["auto", "lognormal", "empirical"],
    default="auto",
    help="Task-duration family; auto goes empirical where the KS test rejects lognormal.",
)
@opt.choice_option(
    "--profile",
    ["hour-of-day", "hour-of-week", "flat"],
    default="hour-of-day",
    help="How the arrival rate follows the clock.",
)
@opt.count_option(
    "--min-jobs-for-profile",
    minimum=0,
    default=100,
    help="Queues with fewer ad-hoc jobs get a flat arrival rate.",
)
@opt.force_option("an existing -o model file")
@opt.json_option
def fit(
    trace: str,
    output: str,
    trace_format: str | None,
    durations: str,
    profile: str,
    min_jobs_for_profile: int,
    force: bool,
    as_json: bool,
) -> None:
    """Fit a model to TRACE, write it to OUTPUT and print the goodness-of-fit report."""
    opt.refuse_overwrite([output], force=force, option="-o")
    with opt.writing_output(output, option="-o"):
        model = fit_trace(
            trace,
            output,
            format=trace_format,
            duration_family=durations,
            profile=profile,
            min_jobs_for_profile=min_jobs_for_profile,
        )
    report = model.goodness_of_fit_
    if as_json:
        opt.emit_json(
            {
                "schema": "tempo.workload.fit/1",
                "output": output,
                "goodness_of_fit": report.to_dict(orient="records"),
            }
        )
        return
    click.echo(model.summary().to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    click.echo()
    click.echo(report.to_string(index=False, float_format=lambda v: f"{v:.4g}", na_rep="-"))
    click.echo(f"\nwrote {output}")


#: The option of each `generate_trace` argument a `GenerateSizeError` names.
_OPTIONS = {"start_s": "--start", "hours": "--hours", "arrival_scale": "--arrival-scale"}


@contextmanager
def _size_usage(given: dict[str, float]) -> Iterator[None]:
    """A request too large to generate, or ending past the last date (`GenerateSizeError`,
    raised before any draw), as a usage error naming the options to lower (``--hours``,
    ``--arrival-scale``, ``--start``) with their `given` values (by argument name)."""
    try:
        yield
    except GenerateSizeError as error:
        options = [_OPTIONS[field] for field in error.fields]
        named = " and ".join(f"'{option}'" for option in options)
        values = ", ".join(f"{_OPTIONS[f]} {_number(given[f])}" for f in error.fields)
        raise click.UsageError(
            f"Invalid value for {named} ({values}): {error.detail}; lower {' or '.join(options)}"
        ) from None


def _number(value: float) -> str:
    """`value` short (``1e+09``) where that is exact, else in full (a --start in seconds)."""
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


def _start(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """--start checked as the command line is read (`check_start`): a usage error naming it."""
    try:
        check_start(value)
    except ValidationError as error:
        raise click.BadParameter(str(error).removeprefix("start_s: "), ctx, param) from None
    return value


@workload.command("generate")
@click.argument("model", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "-o", "--output", required=True, type=click.Path(), help="Native trace directory to write."
)
@click.option(
    "--hours",
    type=opt.FiniteFloat(min=0, min_open=True),
    required=True,
    help="Length of the workload to generate, in hours.",
)
@opt.count_option(
    "--seed", minimum=0, default=0, help="Seed of the draws: the same seed, the same trace."
)
@click.option(
    "--start",
    "start_s",
    type=float,  # `_start` checks it, saying what it takes (nan and inf too)
    default=0.0,
    show_default=True,
    callback=_start,
    help="First second: 0 for trace-relative times, else epoch seconds (>= 0).",
)
@opt.positive_option(
    "--growth",
    default=1.0,
    maximum=MAX_GROWTH,
    help=f"Data growth factor (1.3 = input +30%), at most {MAX_GROWTH:g}.",
)
@opt.positive_option("--arrival-scale", default=1.0, help="Multiply ad-hoc job arrival rates.")
@opt.native_kind_option("--kind")
@opt.force_option("an existing native trace at -o")
@click.option("--overwrite", "overwrite", is_flag=True, hidden=True, help="Old name of --force.")
@opt.no_progress_option
@opt.json_option
def generate(
    model: str,
    output: str,
    hours: float,
    seed: int,
    start_s: float,
    growth: float,
    arrival_scale: float,
    kind: str,
    force: bool,
    overwrite: bool,
    no_progress: bool,
    as_json: bool,
) -> None:
    """Generate HOURS of synthetic workload from MODEL into a native trace."""
    overwrite = force or overwrite
    opt.refuse_overwrite([output], force=overwrite, option="-o", directory=True)
    with opt.progress_bar(None, "generate", unit="steps", hidden=no_progress) as bar:

        def progress(done: int, total: int, what: str) -> None:
            bar.total = total
            bar.set_postfix_str(what, refresh=False)
            bar.update(done - bar.n)

        given = {"start_s": start_s, "hours": hours, "arrival_scale": arrival_scale}
        with opt.writing_output(output, option="-o", directory=True), _size_usage(given):
            result = generate_trace(
                model,
                output,
                hours=hours,
                seed=seed,
                start_s=start_s,
                growth=growth,
                arrival_scale=arrival_scale,
                kind=kind,
                overwrite=overwrite,
                progress=progress,
            )
    if as_json:
        opt.emit_json(
            {
                "schema": "tempo.workload.generate/1",
                "output": output,
                "jobs": result.n_jobs,
                "tasks": result.n_tasks,
                "queues": list(result.queues),
            }
        )
        return
    click.echo(
        f"wrote {output}: {result.n_jobs} jobs, {result.n_tasks} tasks, queues {', '.join(result.queues)}"
    )
