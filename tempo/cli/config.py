"""`tempo config`: validate, show, change and compare Fair Scheduler allocation files."""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable
from typing import Any

import click
import pandas as pd

from tempo.cli import config_capacity
from tempo.cli import options as opt
from tempo.cli.tables import echo_table
from tempo.space import common_queues, space_distance
from whatif.allocation import (
    AllocationDocument,
    SettingDiff,
    diff_allocations,
    diff_rows,
    effective_allocation,
    validate,
    write_allocation,
)
from whatif.allocation.assign import apply_assignments
from whatif.allocation.effective import Resources
from whatif.allocation.java_values import java_float_json
from whatif.allocation.model import file_hadoop_version
from whatif.allocation.summary import queue_table
from whatif.allocation.validate import listed_errors
from whatif.capacity import is_capacity_scheduler
from whatif.cluster import Cluster
from whatif.errors import WhatifError

_VERSION = opt.hadoop_version_option(
    "Hadoop major version whose rules apply (1 = MRv1) [default: 1 if A or B has <pool> "
    "elements, else 3]."
)
_FILE = click.Path(exists=True, dir_okay=False)
#: --hadoop-version for commands on one file: when omitted, the file's dialect decides.
_FILE_VERSION = opt.hadoop_version_option(
    "Hadoop major version whose rules apply (1 = MRv1) [default: 1 if FILE has <pool> "
    "elements, else 3]."
)


def file_version(file: str, hadoop_version: int | None) -> int:
    """`hadoop_version` when given, else FILE's dialect (as ``config set``), said on stderr.

    A file that does not parse gets 3 silently: its parse error is the news.
    """
    if hadoop_version is not None:
        return hadoop_version
    from tempo.cli import is_quiet

    try:
        version = file_hadoop_version(AllocationDocument.from_file(file))
    except WhatifError:
        return 3
    if not is_quiet():
        reason = "it has <pool> elements" if version == 1 else "it has no <pool> elements"
        click.echo(
            f"hadoop version: {version} ({file}: {reason}; --hadoop-version overrides)", err=True
        )
    return version


@click.group()
def config() -> None:
    """Validate, show, change and compare allocation files (fair-scheduler.xml or
    capacity-scheduler.xml), and convert one to the other."""


config.add_command(config_capacity.convert_command)


def _resources(spec: str | None) -> Resources | None:
    if not spec:
        return None
    parsed = Cluster.parse(spec)
    return Resources(parsed.memory_mb, parsed.vcores)


_FileCommand = Callable[[str, str | None, int, bool], None]


def _check_cluster_kind(spec: str | None, hadoop_version: int) -> None:
    """Hadoop 1 shares slots and YARN resources: a --cluster of the other kind is a usage
    error (a slot cluster read as YARN would be 40 MB for 40 slots)."""
    if spec is None or bool(Cluster.parse(spec).slots) == (hadoop_version == 1):
        return
    expected = (
        "map-slots=N,reduce-slots=M"
        if hadoop_version == 1
        else "memory-mb and vcores (map-slots/reduce-slots are Hadoop 1's)"
    )
    raise click.BadParameter(
        f"the file is read as Hadoop {hadoop_version}: expected {expected}, got {spec!r}",
        param_hint=["--cluster"],
    )


def _file_command(
    name: str, cluster_help: str, capacity: Callable[[str, Resources | None, bool], None]
) -> Callable[[_FileCommand], click.Command]:
    """``tempo config NAME FILE [--cluster SPEC] [--hadoop-version N] [--json]``: a
    capacity-scheduler.xml FILE goes to `capacity` (with the cluster's resources); for an
    allocation file the command gets the Hadoop version in effect (`file_version`)."""

    def decorate(command: _FileCommand) -> click.Command:
        @functools.wraps(command)
        def run(
            file: str, cluster_spec: str | None, hadoop_version: int | None, as_json: bool
        ) -> None:
            capacity_file = is_capacity_scheduler(file)
            if capacity_file:
                opt.refuse_capacity_options(hadoop_version, None, "read")
            version = 3 if capacity_file else file_version(file, hadoop_version)
            _check_cluster_kind(cluster_spec, version)
            if capacity_file:
                return capacity(file, _resources(cluster_spec), as_json)
            return command(file, cluster_spec, version, as_json)

        options = (click.argument("file", type=_FILE), opt.cluster_option(help=cluster_help))
        decorated: Callable[..., Any] = run
        for option in (*options, _FILE_VERSION, opt.json_option)[::-1]:  # as written above a def
            decorated = option(decorated)
        return config.command(name)(decorated)

    return decorate


@_file_command(
    "validate",
    "Cluster SPEC; adds minimum shares above the cluster to the warnings.",
    config_capacity.validate_file,
)
def validate_command(
    file: str, cluster_spec: str | None, hadoop_version: int, as_json: bool
) -> None:
    """Check FILE as Hadoop would; print each problem as FILE: line N: message.

    Exit status 1 when Hadoop would refuse the file (an error); warnings alone exit 0."""
    issues = validate(file, hadoop_version=hadoop_version, cluster=_resources(cluster_spec))
    opt.report_issues(file, issues, as_json)


def _format(value: object) -> str:
    if value is None or value is pd.NA:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"  # a column of text with None (a leaf's max_child) reads it as NaN
        if math.isinf(value):
            return "never"
        return str(int(value)) if value == int(value) else f"{value:.4g}"
    return str(value)


#: `config show` columns Hadoop holds as Java floats (``Float.parseFloat``, ``float`` weights).
_JAVA_FLOATS = ("weight", "max_am_share", "fair_share_threshold")


def _floats(records: list[dict[Any, Any]]) -> list[dict[Any, Any]]:
    """`records` with each Java float as Hadoop's ``Float.toString`` prints it (0.3, not
    0.30000001192092896), as the table shows it."""
    return [
        {
            k: java_float_json(v) if k in _JAVA_FLOATS and isinstance(v, float) else v
            for k, v in r.items()
        }
        for r in records
    ]


@_file_command("show", "Cluster SPEC; adds the steady fair shares.", config_capacity.show_file)
def show_command(file: str, cluster_spec: str | None, hadoop_version: int, as_json: bool) -> None:
    """Print FILE's effective queue tree: weights, min/max, limits, policy, timeouts.

    With Hadoop 1 (--hadoop-version 1, or a file of <pool>s), the pools' slot settings (minMaps/minReduces,
    maxMaps/maxReduces, maxRunningJobs) and, with a slot --cluster, their fair shares."""
    cluster = Cluster.parse(cluster_spec) if cluster_spec else None
    document = AllocationDocument.from_file(file)
    table = queue_table(
        document,
        cluster=_resources(cluster_spec),
        hadoop_version=hadoop_version,
        slots=cluster.slot_pools if cluster is not None else None,
    )
    _note_created(file, document, table["queue"].tolist(), hadoop_version)
    if as_json:
        records = table.astype(object).where(table.notna(), None).to_dict("records")
        opt.emit_json({"schema": "tempo.config.show/2", "file": file, "queues": _floats(records)})
        return
    text = table.astype(object).map(_format)
    numeric = [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c])]
    echo_table(list(text.columns), text.to_numpy().tolist(), right=numeric)


def _note_created(
    file: str, document: AllocationDocument, shown: list[str], hadoop_version: int
) -> None:
    """Say on stderr which shown queues FILE does not declare (the RM creates them)."""
    from tempo.cli import is_quiet

    declared = {
        q.name for q in effective_allocation(document, hadoop_version=hadoop_version).queues()
    }
    for name in (n for n in shown if n not in declared):
        if not is_quiet():
            click.echo(
                f"{name}: not in {file}; a Hadoop {hadoop_version} RM creates it at start "
                "(weight 1, a share of the cluster), so it is listed",
                err=True,
            )


@config.command("set")
@click.argument("file", type=_FILE)
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="root.QUEUE.SETTING=VALUE",
    help="Change one setting (repeatable); SETTING=VALUE changes a top-level element "
    "(queueMaxResourcesDefault=...); VALUE 'default' removes the element.",
)
@opt.path_option("-o", "--output", required=True, dir_okay=False, help="File to write.")
@opt.force_option("an existing -o file (FILE itself too)")
@opt.hadoop_version_option(
    "Hadoop major version the file is for (default: 1 if FILE has <pool> elements, "
    "else 3); an element it does not read is refused."
)
@opt.json_option
def set_command(
    file: str,
    assignments: tuple[str, ...],
    output: str,
    force: bool,
    hadoop_version: int | None,
    as_json: bool,
) -> None:
    """Write OUTPUT: FILE with only the given settings changed (byte-identical without --set)."""
    opt.refuse_overwrite([output], force=force, option="-o")
    if is_capacity_scheduler(file):
        opt.refuse_capacity_options(hadoop_version, None, "read")
        return config_capacity.set_file(file, assignments, output, as_json)
    original = AllocationDocument.from_file(file)
    changed = apply_assignments(original, assignments, hadoop_version=hadoop_version)
    version = file_hadoop_version(original) if hadoop_version is None else hadoop_version
    count = _changed_count(original, changed, len(assignments), version)
    with opt.writing_output(output, option="-o"):
        write_allocation(changed, output, hadoop_version=hadoop_version)
    _warn_new_issues(file, output, version)
    config_capacity.report_set(output, count, as_json)


def _changed_count(
    original: AllocationDocument, changed: AllocationDocument, assigned: int, version: int
) -> int:
    """How many settings the scheduler will read differently (a --set of the value in force
    changes nothing); every --set counts when FILE itself is one Hadoop would reject (a
    --set that mends it: there is no effective allocation to compare with). Computed
    before anything is written."""
    if listed_errors(validate(original, hadoop_version=version)):
        return assigned
    return len(diff_allocations(original, changed, hadoop_version=version))


def _warn_new_issues(file: str, output: str, hadoop_version: int) -> None:
    """Print on stderr the warnings `tempo config validate` gives OUTPUT and not FILE: a
    value Hadoop takes but not as asked (a drf queue under a fair parent, say)."""
    opt.report_new_warnings(
        output,
        validate(file, hadoop_version=hadoop_version),
        validate(output, hadoop_version=hadoop_version),
    )


def render_diff(diffs: list[SettingDiff]) -> list[str]:
    """The lines `tempo config diff` prints: one per differing setting, in allocation-file terms."""
    if not diffs:
        return ["no differences"]
    return [d.describe() for d in diffs]


@config.command("diff")
@click.argument("a", type=_FILE)
@click.argument("b", type=_FILE)
@opt.cluster_option(help="Cluster SPEC; adds resource settings to the distance.")
@click.option("--space", "space_file", type=_FILE, help="Space file (TOML) for the distance.")
@_VERSION
@opt.json_option
def diff_command(
    a: str,
    b: str,
    cluster_spec: str | None,
    space_file: str | None,
    hadoop_version: int | None,
    as_json: bool,
) -> None:
    """Print the semantic differences between allocation files A and B, and their distance."""
    capacity = [is_capacity_scheduler(f) for f in (a, b)]
    if all(capacity):
        opt.refuse_capacity_options(hadoop_version, space_file, "compared")
        if cluster_spec is not None:
            logging.getLogger("tempo").warning(
                "--cluster: not used for capacity-scheduler.xml files (their distance is "
                "over capacities, percentages of the parent's)"
            )
        return config_capacity.diff_files(a, b, as_json)
    if any(capacity):
        raise click.UsageError(
            "A and B must both be allocation files or both capacity-scheduler.xml "
            "(tempo config convert turns one into the other)"
        )
    doc_a, doc_b = AllocationDocument.from_file(a), AllocationDocument.from_file(b)
    pools = [file_hadoop_version(d) == 1 for d in (doc_a, doc_b)]  # either file's <pool>s
    hadoop_version = file_version(b if pools == [False, True] else a, hadoop_version)
    diffs = diff_allocations(doc_a, doc_b, hadoop_version=hadoop_version)
    eff_a, eff_b = (effective_allocation(d, hadoop_version=hadoop_version) for d in (doc_a, doc_b))
    distance = (  # the default space measures over the queues both files have
        space_distance(
            eff_a,
            eff_b,
            cluster=Cluster.parse(cluster_spec) if cluster_spec else None,
            space_file=space_file,
        )
        if space_file or common_queues(eff_a, eff_b)
        else None
    )
    if as_json:
        opt.emit_json(
            {
                "schema": "tempo.config.diff/1",
                "a": a,
                "b": b,
                "changes": diff_rows(diffs),
                "distance": None if distance is None else distance.distance,
                "dimensions": 0 if distance is None else len(distance.space),
            }
        )
        return
    for line in render_diff(diffs):
        click.echo(line)
    click.echo(distance.describe() if distance else "distance: none (no queue in both files)")
