"""`tempo config`: validate, show, change and compare Fair Scheduler allocation files."""

from __future__ import annotations

import math

import click
import pandas as pd

from tempo.space import space_distance
from whatif.allocation import (
    AllocationDocument,
    SettingDiff,
    diff_allocations,
    validate,
    write_allocation,
)
from whatif.allocation.assign import apply_assignments
from whatif.allocation.effective import ResourceLimit, Resources
from whatif.allocation.summary import queue_table
from whatif.cluster import Cluster

_VERSION = click.option(
    "--hadoop-version",
    type=click.IntRange(1, 3),
    default=3,
    show_default=True,
    help="Hadoop major version whose rules apply (1 = MRv1).",
)
_FILE = click.Path(exists=True, dir_okay=False)


@click.group()
def config() -> None:
    """Validate, show, change and compare allocation files (fair-scheduler.xml)."""


@config.command("validate")
@click.argument("file", type=_FILE)
@_VERSION
def validate_command(file: str, hadoop_version: int) -> None:
    """Check FILE as Hadoop would; print each problem as FILE: line N: message."""
    issues = validate(file, hadoop_version=hadoop_version)
    for issue in issues:
        prefix = "" if issue.severity == "error" else "warning: "
        click.echo(
            f"{file}: line {issue.line}: {prefix}{issue.message}", err=issue.severity != "error"
        )
    if any(issue.severity == "error" for issue in issues):
        raise SystemExit(1)


def _format(value: object) -> str:
    if value is None or value is pd.NA:
        return "-"
    if isinstance(value, float):
        if math.isinf(value):
            return "never"
        return str(int(value)) if value == int(value) else f"{value:.4g}"
    return str(value)


@config.command("show")
@click.argument("file", type=_FILE)
@click.option("--cluster", "spec", help="Cluster SPEC; adds the steady fair shares.")
@_VERSION
def show_command(file: str, spec: str | None, hadoop_version: int) -> None:
    """Print FILE's effective queue tree: weights, min/max, limits, policy, timeouts."""
    cluster = None
    if spec:
        parsed = Cluster.parse(spec)
        cluster = Resources(parsed.memory_mb, parsed.vcores)
    table = queue_table(
        AllocationDocument.from_file(file), cluster=cluster, hadoop_version=hadoop_version
    )
    click.echo(table.astype(object).map(_format).to_string(index=False))


@config.command("set")
@click.argument("file", type=_FILE)
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="root.QUEUE.SETTING=VALUE",
    help="Change one setting (repeatable); VALUE 'default' removes the element.",
)
@click.option(
    "-o", "--output", required=True, type=click.Path(dir_okay=False), help="File to write."
)
def set_command(file: str, assignments: tuple[str, ...], output: str) -> None:
    """Write OUTPUT: FILE with only the given settings changed (byte-identical without --set)."""
    changed = apply_assignments(AllocationDocument.from_file(file), assignments)
    write_allocation(changed, output)
    click.echo(f"wrote {output} ({len(assignments)} setting(s) changed)")


def _value(value: object) -> str:
    if isinstance(value, ResourceLimit):
        if value.is_unlimited:
            return "unlimited"
        if value.percent is not None:
            return f"{value.percent[0]:g}%/{value.percent[1]:g}%"
        value = value.absolute
    if isinstance(value, Resources):
        return f"{value.memory_mb:g} MB, {value.vcores:g} vcores"
    return _format(value)


def render_diff(diffs: list[SettingDiff]) -> list[str]:
    """The lines `tempo config diff` prints: one per differing setting, old -> new."""
    if not diffs:
        return ["no differences"]
    return [f"{d.queue}  {d.setting}: {_value(d.old)} -> {_value(d.new)}" for d in diffs]


@config.command("diff")
@click.argument("a", type=_FILE)
@click.argument("b", type=_FILE)
@click.option("--cluster", "spec", help="Cluster SPEC; adds resource settings to the distance.")
@click.option("--space", "space_file", type=_FILE, help="Space file (TOML) for the distance.")
@_VERSION
def diff_command(
    a: str, b: str, spec: str | None, space_file: str | None, hadoop_version: int
) -> None:
    """Print the semantic differences between allocation files A and B, and their distance."""
    doc_a, doc_b = AllocationDocument.from_file(a), AllocationDocument.from_file(b)
    diffs = diff_allocations(doc_a, doc_b, hadoop_version=hadoop_version)
    for line in render_diff(diffs):
        click.echo(line)
    distance = space_distance(
        doc_a.effective(hadoop_version=hadoop_version),
        doc_b.effective(hadoop_version=hadoop_version),
        cluster=Cluster.parse(spec) if spec else None,
        space_file=space_file,
    )
    click.echo(distance.describe())
