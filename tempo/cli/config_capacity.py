"""`tempo config` on Capacity Scheduler files (``capacity-scheduler.xml``), and `config convert`.

`tempo.cli.config` dispatches here when a file is a Hadoop ``<configuration>`` with
``yarn.scheduler.capacity.`` properties (`whatif.capacity.is_capacity_scheduler`);
the Fair Scheduler path is unchanged.
"""

from __future__ import annotations

from typing import cast

import click

from tempo.cli import options as opt
from tempo.cli.tables import echo_table
from tempo.space.capacity_space import capacity_distance
from whatif.allocation import AllocationDocument, write_allocation
from whatif.allocation.effective import Resources
from whatif.allocation.java_values import java_float_json
from whatif.allocation.validate import listed_errors
from whatif.capacity import (
    ConfigurationDocument,
    apply_assignments,
    effective_queues,
    refuse_rejected,
    validate,
    write_capacity,
)
from whatif.capacity.convert import Conversion, convert
from whatif.capacity.document import CapacityConfigError
from whatif.capacity.model import EffectiveQueue
from whatif.capacity.to_fair import FairConversion, to_fair
from whatif.capacity.xml_io import is_capacity_scheduler
from whatif.errors import AllocationError

#: `config show`'s columns: the ``--json`` key and the table's header of each.
_COLUMNS = {
    "queue": "queue",
    "mode": "mode",
    "capacity": "capacity",
    "maximum_capacity": "max",
    "absolute_capacity_percent": "abs %",
    "absolute_maximum_capacity_percent": "abs max %",
    "state": "state",
    "policy": "policy",
    "user_limit_factor": "ulf",
    "minimum_user_limit_percent": "min user %",
    "max_am_share": "am %",
    "max_applications": "max apps",
}
_TEXT_COLUMNS = ("queue", "mode", "capacity", "state", "policy")


def validate_file(file: str, cluster: Resources | None, as_json: bool) -> None:
    """Print FILE's problems as ``FILE: line N: message``; exit 1 on an error."""
    issues = validate(file, cluster=cluster)
    opt.report_issues(file, issues, as_json, scheduler="capacity")


def _cell(value: object) -> str:
    """A table cell: "-" for an unset value (as every tempo table), numbers short."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.4g}"
    return str(value)


def _capacity(q: EffectiveQueue) -> object:
    """A queue's capacity as its mode writes it: a percentage, ``3w``, or ``N mb, M vc``."""
    if q.mode == "weight":
        return f"{_cell(q.weight)}w"
    if q.mode == "absolute" and q.min_resources is not None:
        return f"{_cell(q.min_resources.memory_mb)} mb, {_cell(q.min_resources.vcores)} vc"
    return q.capacity


def _percent(fraction: float | None) -> float | None:
    return None if fraction is None else fraction * 100


def _record(q: EffectiveQueue) -> dict[str, object]:
    """One queue of `config show`, by ``--json`` key; numbers as Hadoop holds them (floats)."""
    return {
        "queue": q.path,
        "mode": q.mode,
        "capacity": _capacity(q),
        "maximum_capacity": q.maximum_capacity,
        "absolute_capacity_percent": _percent(q.absolute_capacity),
        "absolute_maximum_capacity_percent": _percent(q.absolute_maximum_capacity),
        "state": q.state,
        "policy": q.ordering_policy,
        "user_limit_factor": q.user_limit_factor,
        "minimum_user_limit_percent": q.minimum_user_limit_percent,
        "max_am_share": q.maximum_am_resource_percent,
        "max_applications": q.maximum_applications,
    }


def _json_record(record: dict[str, object]) -> dict[str, object]:
    """`record` for ``--json``: each float as Hadoop's ``Float.toString`` prints it (4.7, not
    the 4.699999809265137 the Java float widens to); its table shows the same, shorter."""
    return {k: java_float_json(v) if isinstance(v, float) else v for k, v in record.items()}


def show_file(file: str, cluster: Resources | None, as_json: bool) -> None:
    """Print the effective queue tree: mode, capacities, state, policy and limits."""
    queues = effective_queues(ConfigurationDocument.from_file(file), cluster=cluster)
    records = [_record(q) for q in queues.values()]
    if as_json:
        opt.emit_json(
            {
                "schema": "tempo.config.show/2",
                "file": file,
                "scheduler": "capacity",
                "queues": [_json_record(r) for r in records],
            }
        )
        return
    for r in records:  # the table's AM column is a percentage, as its header says
        r["max_am_share"] = _percent(cast(float, r["max_am_share"]))
    rows = [[_cell(r[k]) for k in _COLUMNS] for r in records]
    numeric = [h for k, h in _COLUMNS.items() if k not in _TEXT_COLUMNS]
    echo_table(list(_COLUMNS.values()), rows, right=numeric)


def set_file(file: str, assignments: tuple[str, ...], output: str, as_json: bool) -> None:
    """Write OUTPUT: FILE with only the given properties changed; the warnings OUTPUT has
    and FILE has not go to stderr, as for an allocation file."""
    original = ConfigurationDocument.from_file(file)
    changed = apply_assignments(original, assignments)
    refuse_rejected(original, changed)
    with opt.writing_output(output, option="-o"):
        write_capacity(changed, output)
    # a value Hadoop takes but not as asked (an AM share above 1, a NaN factor) is said
    opt.report_new_warnings(output, validate(original), validate(changed))
    report_set(output, len(_changed_properties(original, changed)), as_json)


def report_set(output: str, count: int, as_json: bool) -> None:
    """What `config set` prints (either scheduler): the file written and how many settings
    now differ."""
    if as_json:
        opt.emit_json({"schema": "tempo.config.set/1", "output": output, "changed": count})
    else:
        click.echo(f"wrote {output} ({count} setting(s) changed)")


def _changed_properties(
    doc_a: ConfigurationDocument, doc_b: ConfigurationDocument
) -> list[tuple[str, str | None, str | None]]:
    """(property, value in A, value in B) for each property set differently (or only in one)."""
    names = list(dict.fromkeys([*doc_a.names(), *doc_b.names()]))
    return [
        (name, doc_a.value(name), doc_b.value(name))
        for name in names
        if (doc_a.value(name) or "").strip() != (doc_b.value(name) or "").strip()
        or (doc_a.value(name) is None) != (doc_b.value(name) is None)
    ]


def diff_files(a: str, b: str, as_json: bool) -> None:
    """Print the properties whose values differ between A and B (after Hadoop's override rules),
    and their distance over the default Capacity Scheduler space (`tempo.space.capacity_space`;
    none when the files share no tunable setting, as allocation files without a common queue)."""
    doc_a, doc_b = ConfigurationDocument.from_file(a), ConfigurationDocument.from_file(b)
    changes = _changed_properties(doc_a, doc_b)
    distance = capacity_distance(doc_a, doc_b)
    if as_json:
        opt.emit_json(
            {
                "schema": "tempo.config.diff/1",
                "a": a,
                "b": b,
                "scheduler": "capacity",
                "changes": [{"property": n, "old": o, "new": v} for n, o, v in changes],
                "distance": None if distance is None else distance.distance,
                "dimensions": 0 if distance is None else distance.dimensions,
            }
        )
        return
    if not changes:
        click.echo("no differences")
    for name, old, new in changes:  # an unset property is "-", as in show's table
        click.echo(f"{name}: {_cell(old and old.strip())} -> {_cell(new and new.strip())}")
    click.echo(
        distance.describe() if distance else "distance: none (no tunable setting in both files)"
    )


@click.command("convert")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@opt.path_option(
    "-o",
    "--output",
    required=True,
    dir_okay=False,
    help="File to write: capacity-scheduler.xml from an allocation file, or the reverse.",
)
@click.option(
    "--percentage",
    is_flag=True,
    help="Fair -> Capacity: capacities as percentages of the parent (default: weights, Nw).",
)
@opt.cluster_option(
    help="Cluster SPEC; converts absolute maxima (maxResources / maximum-capacity)."
)
@opt.hadoop_version_option(
    "Fair -> Capacity: Hadoop major version of the Fair Scheduler that reads FILE (default: "
    "1 if FILE has <pool> elements, else 3; from 3 on, a maxResources below minResources "
    "is raised to it, and so converted)."
)
@opt.force_option("an existing -o file")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def convert_command(
    file: str,
    output: str,
    percentage: bool,
    cluster_spec: str | None,
    hadoop_version: int | None,
    force: bool,
    as_json: bool,
) -> None:
    """Convert a Fair Scheduler allocation FILE to a Capacity Scheduler configuration, or back.

    The direction follows FILE: a capacity-scheduler.xml becomes an allocation file.
    Fair -> Capacity follows Hadoop's fs2cs mapping. Both print what does not carry
    over (minResources, preemption timeouts, ...; user limits, STOPPED states, node
    labels, ...) and the notes on where the mapping approximates."""
    from whatif.cluster import Cluster

    opt.refuse_overwrite([output], force=force, option="-o")
    cluster = None
    if cluster_spec:
        parsed = Cluster.parse(cluster_spec)
        cluster = Resources(parsed.memory_mb, parsed.vcores)
    if is_capacity_scheduler(file):
        if percentage:
            raise click.UsageError(
                "--percentage: applies to Fair -> Capacity; FILE is a Capacity Scheduler file"
            )
        _to_fair(file, output, cluster, as_json)
        return
    try:
        result = convert(
            AllocationDocument.from_file(file),
            percentage=percentage,
            cluster=cluster,
            hadoop_version=hadoop_version,
        )
    except AllocationError as error:
        raise CapacityConfigError(f"{file}: cannot convert: {error}") from None
    text = result.checked_xml(file)
    with opt.writing_output(output, option="-o"):
        write_capacity(ConfigurationDocument.from_bytes(text.encode(), source=output), output)
    count = len(result.properties)
    _report(file, output, ("properties", count), "fair-to-capacity", result, as_json)


def _to_fair(file: str, output: str, cluster: Resources | None, as_json: bool) -> None:
    """Capacity -> Fair: write the allocation file (validated, atomic) and report; FILE
    must be one Hadoop accepts (its errors cite its lines), as an allocation file must be
    to convert the other way."""
    source = ConfigurationDocument.from_file(file)
    listed = listed_errors(validate(source, cluster=cluster))
    if listed:
        raise CapacityConfigError(f"{file}: cannot convert: {listed}")
    result = to_fair(source, cluster=cluster)
    text = result.checked_xml(file)
    doc = AllocationDocument.from_bytes(text.encode(), source=output)
    with opt.writing_output(output, option="-o"):
        write_allocation(doc, output, backups=0)
    count = sum(1 for _ in doc.iter_queues())
    _report(file, output, ("queues", count), "capacity-to-fair", result, as_json)


def _report(
    file: str,
    output: str,
    size: tuple[str, int],
    direction: str,
    result: Conversion | FairConversion,
    as_json: bool,
) -> None:
    """Print what was written, what did not carry over, and the notes (or one JSON object)."""
    if as_json:
        opt.emit_json(
            {
                "schema": "tempo.config.convert/1",
                "file": file,
                "output": output,
                "direction": direction,
                size[0]: size[1],
                "not_carried": list(result.not_carried),
                "notes": list(result.notes),
            }
        )
        return
    click.echo(f"wrote {output} ({size[1]} {size[0]})")
    for line in result.not_carried:
        click.echo(f"not carried over: {line}")
    for line in result.notes:
        click.echo(f"note: {line}")
