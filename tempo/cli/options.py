"""Click options and helpers shared by the commands: one definition, one meaning.

``--cluster`` parses its SPEC when the command line is read (a bad one is a usage
error naming the option); ``--force`` is the one overwrite flag (`refuse_overwrite`);
``--json`` output goes through `emit_json` (NaN as null, never a Python repr);
progress bars come from `progress_bar` (`tempo.cli.progress`: rich, hidden when
stderr is not a terminal or with ``--quiet``).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
import numpy as np

from tempo.cli import CommandError
from tempo.cli.progress import progress_bar as progress_bar  # the commands' one import
from whatif.cluster import Cluster
from whatif.errors import ClusterSpecError, OutputWriteError
from whatif.readers import READERS
from whatif.readers.cluster_files import cluster_spec_from

#: What an option function returns: a decorator adding the option to a command.
OptionDecorator = Callable[[Callable[..., Any]], Callable[..., Any]]


class FiniteFloat(click.FloatRange):
    """`click.FloatRange` that also refuses nan and inf: its bounds let them through, and
    they would fail later, far from the option that gave them."""

    name = "finite float"

    def _describe_range(self) -> str:
        """No range in the help of an unbounded one (click would show ``x<=None``)."""
        return "" if self.min is None and self.max is None else super()._describe_range()

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def _cluster_spec(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Check a cluster SPEC as the command line is read, or read the node file it names,
    and pass the command the SPEC (`whatif.readers.cluster_files.cluster_spec_from`)."""
    if value is None:
        return None
    try:
        return cluster_spec_from(value)
    except ClusterSpecError as error:
        raise click.BadParameter(str(error), ctx=ctx, param=param) from None


#: What every ``--cluster`` help adds: the forms a SPEC takes.
CLUSTER_FORMS = (
    "SPEC: nodes=100,memory-mb=8192,vcores=8 (groups of other sizes joined by +), "
    "memory-mb=819200,vcores=800 (one pool), map-slots=30,reduce-slots=10 (Hadoop 1), or a "
    "saved RM /ws/v1/cluster/nodes response or SLS nodes.json file."
)


def cluster_option(
    *,
    required: bool = False,
    help: str = "Cluster to simulate on.",
    **kwargs: Any,
) -> OptionDecorator:
    """``--cluster SPEC`` (checked when parsed; a node file read into a SPEC), passed to
    the command as ``cluster_spec``."""
    return click.option(
        "--cluster",
        "cluster_spec",
        required=required,
        metavar="SPEC",
        callback=_cluster_spec,
        help=f"{help} {CLUSTER_FORMS}",
        **kwargs,
    )


def path_option(*decls: str, help: str, required: bool = False, **path: Any) -> OptionDecorator:
    """An option naming a file or directory; `path` are ``click.Path``'s checks
    (``exists``, ``dir_okay``, ``path_type``...)."""
    return click.option(*decls, required=required, type=click.Path(**path), help=help)


def shown_option(*decls: str, type: Any, default: Any, help: str) -> OptionDecorator:
    """An option of `type` whose `default` the help shows."""
    return click.option(*decls, type=type, default=default, show_default=True, help=help)


def count_option(name: str, *, default: int, help: str, minimum: int = 1) -> OptionDecorator:
    """A whole number of at least `minimum` (a count, a seed), its `default` shown."""
    return shown_option(name, type=click.IntRange(min=minimum), default=default, help=help)


def choice_option(name: str, choices: Sequence[str], *, default: str, help: str) -> OptionDecorator:
    """One of `choices`, its `default` shown."""
    return shown_option(name, type=click.Choice(choices), default=default, help=help)


class _NativeKind(click.Choice[str]):
    """``parquet`` or ``csv``; ``native-parquet``/``native-csv`` (trace convert's first
    names) still read, so scripts that spelled them keep working."""

    def __init__(self) -> None:
        super().__init__(["parquet", "csv"])

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.startswith("native-"):
            value = value.removeprefix("native-")
        return super().convert(value, param, ctx)


def native_kind_option(first: str) -> OptionDecorator:
    """The kind of native trace a command writes, ``--kind`` or ``--to`` (`first` is the
    name the help shows first), passed as ``kind``: the same option on every command."""
    second = "--to" if first == "--kind" else "--kind"
    return shown_option(
        first,
        second,
        "kind",
        type=_NativeKind(),
        default="parquet",
        help="Native trace kind to write: Parquet or CSV files.",
    )


def window_option(help: str) -> OptionDecorator:
    """``--window L``: a duration checked when parsed, passed as its text ``window_text``."""
    return click.option("--window", "window_text", callback=duration_text, help=help)


def radius_option(default: float, help: str) -> OptionDecorator:
    """``--radius``: the risk radius, a normalized distance in (0, 1], its `default` shown."""
    return shown_option(
        "--radius", type=FiniteFloat(0, 1, min_open=True), default=default, help=help
    )


def http_urls(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Check an ``--rm`` or ``--history-server`` URL (one, or a tuple when repeatable) as
    the command line is read: a mistyped one is a usage error, not a failed cluster."""
    from urllib.parse import urlsplit

    from tempo.rm.redact import redact

    for url in value if isinstance(value, tuple) else (value,):
        parts = urlsplit(url) if url is not None else None
        if parts is not None and (parts.scheme not in ("http", "https") or not parts.netloc):
            raise click.BadParameter(
                f"expected an http:// or https:// address such as http://rm:8088, "
                f"got {redact(url)!r}",
                ctx=ctx,
                param=param,
            )
        try:
            _ = parts.port if parts is not None else None  # ValueError past 65535
        except ValueError:
            raise click.BadParameter(
                f"expected a port from 0 to 65535 in {redact(url)!r}", ctx=ctx, param=param
            ) from None
    return value


def trace_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--trace PATH`` (required), passed as ``trace_path``."""
    return click.option(
        "--trace", "trace_path", required=True, type=click.Path(), help="Trace file or directory."
    )(command)


def trace_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--trace PATH`` (required) and ``--format NAME`` (detected when omitted), passed as
    ``trace_path`` and ``trace_format``: how a command that reads a trace names it."""
    command = format_option(
        "--format", "trace_format", help="Trace format (detected when omitted)."
    )(command)
    return trace_option(command)


def format_option(*decls: str, help: str) -> OptionDecorator:
    """A trace format option: one of the readers' names, checked as the command line is read."""
    return click.option(*decls, type=click.Choice(sorted(READERS)), default=None, help=help)


def force_option(
    what: str = "an existing output",
) -> OptionDecorator:
    """``--force``: the one flag that lets a command overwrite `what`."""
    return click.option("--force", is_flag=True, help=f"Overwrite {what}.")


def report_option(contents: str) -> OptionDecorator:
    """``--report DIR``: also write report.json and report.html (the what-if report's
    kind) holding `contents`, into DIR."""
    return click.option(
        "--report",
        "report_dir",
        type=click.Path(file_okay=False),
        help=f"Also write report.json and report.html into this directory: {contents}.",
    )


def refuse_report_overwrite(
    report_dir: str | Path | None, *, force: bool, option: str = "--report"
) -> None:
    """Stop (exit 2) if the report directory (`option`'s) cannot be a directory or be
    written, or already holds a report and --force is not given."""
    if report_dir:
        directory = Path(report_dir)
        refuse_unwritable(directory, option=option, directory=True)
        for file in (directory / "report.json", directory / "report.html"):
            if file.is_dir():  # said first: --force would not change it
                raise CommandError(f"{file}: cannot be written ({option}): it is a directory")
            refuse_existing(file, force=force, option=option)


def no_progress_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--no-progress``: no progress bar (-q hides it too, with the warnings), passed as
    ``no_progress``; give it to `progress_bar` as ``hidden``."""
    return click.option("--no-progress", is_flag=True, help="No progress bar on stderr.")(command)


def json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--json``: print the result as one JSON document (schemas: docs/cli.md, "CLI conventions")."""
    return click.option(
        "--json", "as_json", is_flag=True, help="Print one JSON document (documented schema)."
    )(command)


def refuse_overwrite(
    paths: Iterable[str | Path | None], *, force: bool, option: str, directory: bool = False
) -> None:
    """Stop (exit 2) before any work if any of `paths` cannot be written
    (`refuse_unwritable`: a directory where a file goes, too, which --force would not
    change), or exists and ``--force`` was not given (never overwrite silently)."""
    for path in paths:
        if path is None:
            continue
        refuse_unwritable(path, option=option, directory=directory)
        refuse_existing(path, force=force, option=option)


def refuse_existing(path: str | Path, *, force: bool, option: str) -> None:
    """Stop (exit 2) if `path` exists and ``--force`` was not given."""
    if not force and Path(path).exists():
        raise CommandError(f"{path}: already exists ({option}); add --force to overwrite it")


def refuse_unwritable(path: str | Path, *, option: str, directory: bool = False) -> None:
    """Stop (exit 2) if `path` cannot be written: a file output whose directory is missing
    or which is a directory, or whose nearest existing ancestor is not a writable directory
    (a `directory` output, a native trace or a report, is created with its parents)."""
    if not str(path).strip():  # Path("") is "." (this directory): never meant
        raise CommandError(f"{option}: expected a path, got {str(path)!r}")
    target = Path(path)  # as given: the message names the paths the user wrote
    existing = target.parent
    while not existing.exists():
        existing = existing.parent
    problem = None
    if target.exists() and target.is_dir() != directory:
        problem = "it is a file" if directory else "it is a directory"
    elif not directory and existing != target.parent:
        problem = f"no directory {target.parent}"
    elif not existing.is_dir():
        problem = f"{existing} is a file"
    elif not os.access(existing, os.W_OK | os.X_OK):
        problem = f"{existing} is not writable"
    if problem:
        raise _unwritable(path, option, directory, problem)


def _unwritable(
    path: str | Path, option: str, directory: bool, problem: str, *, late: bool = False
) -> CommandError:
    """``PATH: cannot be written (OPTION expects ...): PROBLEM``, exit 2; `late` (the
    write itself failed) adds that the previous output is left as it was."""
    expected = (
        "a writable directory, created if missing"
        if directory
        else "a file in an existing, writable directory"
    )
    return CommandError(
        f"{path}: cannot be written ({option} expects {expected}): {problem}"
        + ("; the previous output, if any, is left as it was" if late else "")
    )


@contextmanager
def writing_output(path: str | Path, *, option: str, directory: bool = False) -> Iterator[None]:
    """Name `option` when writing its `path` fails late, after `refuse_unwritable` passed
    (a full disk, a directory made read-only meanwhile): exit 2 with the file and the
    reason as `refuse_unwritable` words them. The writers leave nothing half-written
    (`whatif.atomic.write_atomic`, `whatif.report.write_pages`, a native trace's
    `whatif.readers.native.write_native_stream`: each an `OutputWriteError`); other
    errors pass."""
    try:
        yield
    except OutputWriteError as error:
        raise _unwritable(error.path, option, directory, error.reason, late=True) from error
    except OSError as error:
        failed = Path(error.filename) if isinstance(error.filename, str) else Path()
        if not (failed == Path(path) or Path(path) in failed.parents):
            raise
        reason = error.strerror or str(error)
        raise _unwritable(failed, option, directory, reason, late=True) from error


def jsonable(value: Any) -> Any:
    """`value` with NaN and infinities as None, numpy scalars as Python numbers, tuples as lists."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def emit_json(document: Any) -> None:
    """Print `document` as indented JSON on stdout (`jsonable` first)."""
    click.echo(json.dumps(jsonable(document), indent=2, allow_nan=False))


def parse_min_gain_abs(
    ctx: click.Context | None, param: click.Parameter | None, values: tuple[str, ...]
) -> dict[str, float]:
    """``--min-gain-abs 2s`` (seconds) or ``--min-gain-abs 1%`` (percentage points), as
    `tempo.gain.MinGain` keywords (``seconds``, ``fraction``)."""
    from tempo.errors import TempoError
    from tempo.templates import parse_duration

    floors: dict[str, float] = {}
    for text in values:
        try:
            if text.strip().endswith("%"):
                floors["fraction"] = float(text.strip()[:-1]) / 100.0
            else:
                floors["seconds"] = parse_duration(text)
        except (ValueError, TempoError) as error:
            raise click.BadParameter(
                f"expected a duration (2s, 1min) or percentage points (1%), got {text!r}: {error}"
            ) from None
        if any(v < 0 or not math.isfinite(v) for v in floors.values()):
            raise click.BadParameter(f"expected a value >= 0, got {text!r}")
    return floors


def duration_seconds(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """A duration option (``45min``, ``2h``, ``600``) as seconds > 0; a bad one is a usage
    error naming the option."""
    from tempo.errors import TempoError
    from tempo.templates import parse_duration

    if value is None:
        return None
    try:
        seconds = parse_duration(value)
    except TempoError as error:
        raise click.BadParameter(str(error), ctx=ctx, param=param) from None
    if seconds <= 0:
        raise click.BadParameter(f"expected a duration > 0, got {value!r}", ctx=ctx, param=param)
    return seconds


def duration_text(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """`duration_seconds`' check when the command line is read; the text kept for the command."""
    duration_seconds(ctx, param, value)
    return value


def min_gain_abs_option(default: str) -> OptionDecorator:
    """``--min-gain-abs 2s|1%`` (repeatable): the absolute floors of the minimum gain."""
    return click.option(
        "--min-gain-abs",
        "min_gain_abs",
        multiple=True,
        callback=parse_min_gain_abs,
        metavar="2s|1%",
        help="Smallest absolute improvement: a duration for times, percentage points for "
        f"rates [default: {default}].",
    )


def engine_option(
    help: str = "Predictor engine (reference: plain Python, no compilation).",
) -> OptionDecorator:
    """``--engine numba|reference`` (default numba): which predictor engine replays."""
    return click.option(
        "--engine",
        type=click.Choice(["numba", "reference"]),
        default="numba",
        show_default=True,
        help=help,
    )


def _executor_spec(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Check an ``--executor`` spec as the command line is read (`whatif.executors.
    make_executor`'s forms), so that ``local:0`` is a usage error naming the option,
    not a worker-pool error after the inputs are read; the text kept for the command."""
    kind, colon, workers = value.partition(":")
    if value in ("local", "serial") or value.startswith(("dask://", "tcp://")):
        return value
    if kind == "local" and colon and workers.strip().isdigit() and int(workers) >= 1:
        return value
    raise click.BadParameter(
        "expected local, local:N with N >= 1 worker processes, serial or "
        f"dask://host:port, got {value!r}",
        ctx=ctx,
        param=param,
    )


def executor_option(
    help: str = "local, local:N, serial or dask://host:port.",
) -> OptionDecorator:
    """``--executor`` (default local, checked when parsed): where evaluations run
    (`whatif.executors`)."""
    return click.option(
        "--executor", default="local", show_default=True, callback=_executor_spec, help=help
    )


def positive_option(
    name: str, *, default: float, help: str, maximum: float | None = None
) -> OptionDecorator:
    """A float option that must be > 0 (a speed, factor or tolerance) and at most `maximum`
    when given, its `default` shown."""
    return click.option(
        name,
        type=FiniteFloat(min=0, min_open=True, max=maximum),
        default=default,
        show_default=True,
        help=help,
    )


def hadoop_version_option(help: str, *, default: int | None = None) -> OptionDecorator:
    """``--hadoop-version`` 1 to 3: `default`, shown in the help, or None for a command
    that decides from its input (its `help` says how)."""
    return click.option(
        "--hadoop-version",
        type=click.IntRange(1, 3),
        default=default,
        show_default=None if default is None else True,
        help=help,
    )


def simulation_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--hadoop-version``, ``--site`` and ``--preemption/--no-preemption`` to a command."""
    from tempo.cli.preemption import preemption_options

    command = preemption_options(command)
    return hadoop_version_option(
        "Hadoop major version whose parsing and preemption rules apply [default: 1 on a slot "
        "cluster (map-slots=...), else 3, as tempo optimize decides]."
    )(command)


def template_components(path: str | os.PathLike[str] | None) -> tuple[Any, ...]:
    """The QS vector entries (`tempo.optimize.QSComponent`) of the templates at `path`:
    which QS are objectives or constraints and their thresholds; () without templates."""
    from tempo.optimize import qs_components
    from tempo.templates import load_templates

    return qs_components(load_templates(Path(path))) if path is not None else ()


def simulated_version(requested: int | None, cluster: Cluster | None) -> int:
    """`simulation_options`' ``--hadoop-version``: as given, else 1 on a slot cluster and 3
    otherwise (`tempo.space.hadoop_version_for`'s rule for a cluster)."""
    slots = cluster is not None and bool(cluster.slots)
    if requested is not None and requested != 1 and slots:
        raise click.BadParameter(
            f"a slot cluster (map-slots/reduce-slots) is Hadoop 1's; Hadoop {requested} "
            "schedules memory-mb and vcores",
            param_hint=["--cluster"],
        )
    if requested is not None:
        return requested
    return 1 if slots else 3


def refuse_capacity_options(hadoop_version: int | None, space_path: str | None, doing: str) -> None:
    """Usage errors for options a capacity-scheduler.xml cannot take: a --hadoop-version
    other than 3 (tempo `doing` it by Hadoop 3.x's rules; Hadoop 1 has no such file) and
    a --space file (its settings are allocation-file ones)."""
    if hadoop_version not in (None, 3):
        raise click.BadParameter(
            f"a capacity-scheduler.xml is {doing} by Hadoop 3.x's rules, got {hadoop_version}"
            + (" (Hadoop 1 has no such Capacity Scheduler)" if hadoop_version == 1 else ""),
            param_hint=["--hadoop-version"],
        )
    if space_path:
        raise click.UsageError(
            "--space: names allocation-file settings, for Fair Scheduler files; a "
            f"capacity-scheduler.xml is {doing} over the default Capacity Scheduler space "
            "(docs/capacity-scheduler.md)"
        )


def report_new_warnings(output: str, before: Iterable[Any], after: Iterable[Any]) -> None:
    """Print on stderr the warnings of `after` (OUTPUT's issues) that `before` (FILE's) does
    not have: what ``config set`` made Hadoop take, but not as asked."""
    known = {issue.message for issue in before}
    new = [i for i in after if i.severity != "error" and i.message not in known]
    report_issues(output, new, as_json=False)


def report_issues(file: str, issues: Iterable[Any], as_json: bool, **fields: object) -> None:
    """Print a file's validation issues (``FILE: line N: message``, warnings on stderr) or
    the ``tempo.config.validate/1`` document with `fields` added; exit 1 on an error."""
    from tempo.cli import exitcodes

    issues = list(issues)
    invalid = any(issue.severity == "error" for issue in issues)
    if as_json:
        emit_json(
            {
                "schema": "tempo.config.validate/1",
                "file": file,
                **fields,
                "valid": not invalid,
                "issues": [
                    {"line": i.line, "severity": i.severity, "message": i.message} for i in issues
                ],
            }
        )
    else:
        for issue in issues:
            prefix = "" if issue.severity == "error" else "warning: "
            click.echo(
                f"{file}: line {issue.line}: {prefix}{issue.message}",
                err=issue.severity != "error",
            )
    if invalid:
        click.get_current_context().exit(exitcodes.NO)
