"""The two kinds of scheduler configuration tempo applies, as `tempo.loop.apply` needs them.

`tempo.loop.apply.apply_configuration` and `tempo.loop.rollback.recover` are one
procedure (validate, journal, atomic write with backups, reload, confirm through
REST, roll back) for either file: a Fair Scheduler allocation file (`fair_format`) or a Capacity Scheduler
``capacity-scheduler.xml`` (`CAPACITY`). A `ConfigFormat` names what differs:
how the bytes parse, what Hadoop would refuse, how the file is written, and how
the RM's queue tree confirms it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempo.errors import RMError
from tempo.rm.client import RMClient
from tempo.rm.confirm import DEFAULT_TOLERANCE, Tolerance, scheduler_mismatches
from tempo.rm.confirm_capacity import capacity_mismatches
from tempo.scheduler_file import CAPACITY_FILE, error_lines
from whatif import allocation, capacity
from whatif.allocation import effective_allocation

Check = Callable[[], tuple[bool, str]]


@dataclass(frozen=True)
class ConfigFormat:
    """What `tempo.loop.apply` does differently per scheduler (see the module)."""

    name: str
    parse: Callable[[bytes, str], Any]
    errors: Callable[[Any], list[str]]
    write: Callable[[Any, Path, int], object]
    confirm: Callable[[RMClient, Any], Check]


def _check(read: Callable[[], Any], compare: Callable[[Any], list[str]], ok: str) -> Check:
    def check() -> tuple[bool, str]:
        try:
            state = read()
        except RMError as error:
            return False, f"cannot read the scheduler: {error}"
        problems = compare(state)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            return False, problems[0] + more
        return True, ok

    return check


def fair_format(hadoop_version: int = 3, tolerance: Tolerance = DEFAULT_TOLERANCE) -> ConfigFormat:
    """Fair Scheduler allocation files read as Hadoop `hadoop_version` reads them."""

    def confirm(client: RMClient, document: allocation.AllocationDocument) -> Check:
        effective = effective_allocation(document, hadoop_version=hadoop_version)
        return _check(
            client.scheduler,
            lambda state: scheduler_mismatches(
                state, effective, tolerance=tolerance, hadoop_version=hadoop_version
            ),
            "the RM's queue tree matches the new allocation",
        )

    return ConfigFormat(
        name="allocation file",
        parse=lambda data, source: allocation.AllocationDocument.from_bytes(data, source=source),
        errors=lambda doc: error_lines(allocation.validate(doc, hadoop_version=hadoop_version)),
        write=lambda doc, path, backups: allocation.write_allocation(
            doc, path, backups=backups, hadoop_version=hadoop_version
        ),
        confirm=confirm,
    )


def _confirm_capacity(client: RMClient, document: capacity.ConfigurationDocument) -> Check:
    return _check(
        client.capacity_scheduler,
        lambda state: capacity_mismatches(state, document),
        "the RM's queue tree matches the new Capacity Scheduler configuration",
    )


#: ``capacity-scheduler.xml``: Hadoop 3.x's rules, confirmed by capacities and states.
CAPACITY = ConfigFormat(
    name=CAPACITY_FILE.name,
    parse=CAPACITY_FILE.parse,
    errors=CAPACITY_FILE.errors,
    write=lambda doc, path, backups: capacity.write_capacity(doc, path, backups=backups),
    confirm=_confirm_capacity,
)
