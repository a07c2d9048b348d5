"""What tuning does differently per scheduler configuration file, said once.

`tempo optimize`, `tempo whatif` and the live loop read the file in force, predict
each candidate under it, search a configuration space around it, write the result and
say what changed, the same way for a Fair Scheduler allocation file and a Capacity
Scheduler ``capacity-scheduler.xml``. A `SchedulerFile` names what differs:

- ``parse``: the document in a file's bytes; ``errors``: what the ResourceManager would
  refuse (``line N: message``);
- ``allocation``: the predictor's view of the file on a cluster (an
  `EffectiveAllocation`, or a `whatif.predictor.capacity.CapacityAllocation`, which
  runs the predictor's Capacity Scheduler mode);
- ``space``: the default configuration space around the file (`ConfigurationSpace`
  or `tempo.space.CapacitySpace`), and ``start``, the file's point in it;
- ``diff``: the settings that differ between two files (`SettingDiff` rows);
- ``write``: the atomic write that refuses a file Hadoop would reject.

`scheduler_file` picks one for a document, `read_scheduler_document` reads a file as
its kind (`whatif.capacity.is_capacity_scheduler` decides).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tempo.space import CapacitySpace, ConfigurationSpace
from whatif import allocation, capacity
from whatif.allocation import AllocationDocument, SettingDiff, diff_allocations
from whatif.allocation.effective import EffectiveAllocation
from whatif.capacity import ConfigurationDocument, is_capacity_scheduler
from whatif.capacity.model import queue_of, queue_tree
from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.predictor.capacity import capacity_allocation

#: A scheduler configuration file read: an allocation file or a capacity-scheduler.xml.
SchedulerDocument = AllocationDocument | ConfigurationDocument
#: The configuration space over either.
SchedulerSpace = ConfigurationSpace | CapacitySpace


@dataclass(frozen=True)
class SchedulerFile:
    """What tuning does with one kind of scheduler file (see the module)."""

    name: str
    parse: Callable[[bytes, str], Any]
    errors: Callable[[Any], list[str]]
    allocation: Callable[[Any, Cluster], EffectiveAllocation]
    space: Callable[[Any, Cluster, bool], SchedulerSpace]
    start: Callable[[Any, Any, bool], np.ndarray]
    diff: Callable[[Any, Any], tuple[SettingDiff, ...]]
    write: Callable[[Any, str | os.PathLike[str]], Path]

    def check(self, document: SchedulerDocument, what: str) -> None:
        """Raise `ValidationError` naming the first error for which Hadoop would refuse `document`."""
        errors = self.errors(document)
        if errors:
            raise ValidationError(f"{what}: {errors[0]}")


def error_lines(issues: list[Any]) -> list[str]:
    """The errors among validation `issues`, as ``line N: message``."""
    return [f"line {i.line}: {i.message}" for i in issues if i.severity == "error"]


def fair_file(hadoop_version: int = 3) -> SchedulerFile:
    """Fair Scheduler allocation files as Hadoop `hadoop_version` reads them."""

    def effective(document: AllocationDocument, cluster: Cluster) -> EffectiveAllocation:
        return allocation.effective_allocation(document, hadoop_version=hadoop_version)

    def space(document: AllocationDocument, cluster: Cluster, preemption: bool) -> SchedulerSpace:
        current = effective(document, cluster)
        return ConfigurationSpace.default(
            current, cluster, hadoop_version=hadoop_version, preemption=preemption
        )

    def start(space: ConfigurationSpace, document: AllocationDocument, clip: bool) -> np.ndarray:
        current = allocation.effective_allocation(document, hadoop_version=space.hadoop_version)
        return space.encode(current, clip=clip)

    return SchedulerFile(
        name="allocation file",
        parse=lambda data, source: AllocationDocument.from_bytes(data, source=source),
        errors=lambda doc: error_lines(allocation.validate(doc, hadoop_version=hadoop_version)),
        allocation=effective,
        space=space,
        start=start,
        diff=lambda a, b: tuple(diff_allocations(a, b, hadoop_version=hadoop_version)),
        write=lambda doc, path: allocation.write_allocation(
            doc, path, hadoop_version=hadoop_version
        ),
    )


def capacity_diff(a: ConfigurationDocument, b: ConfigurationDocument) -> tuple[SettingDiff, ...]:
    """The properties whose values differ (after Hadoop's override rules), as `SettingDiff`
    rows: ``queue`` the queue path (``(scheduler)`` for a scheduler-wide property),
    ``setting`` the rest of the name, ``old``/``new`` the value text (None when unset)."""
    paths = {node.path for doc in (a, b) for node in queue_tree(doc).walk()}
    rows = []
    for name in dict.fromkeys([*a.names(), *b.names()]):
        old, new = a.value(name), b.value(name)
        if (old is None) == (new is None) and (old or "").strip() == (new or "").strip():
            continue
        split = queue_of(name, paths)
        queue, setting = split or ("(scheduler)", name.removeprefix("yarn.scheduler.capacity."))
        rows.append(SettingDiff(queue, setting, _strip(old), _strip(new)))
    return tuple(rows)


def _strip(value: str | None) -> str | None:
    return None if value is None else value.strip()


def _capacity_space(
    document: ConfigurationDocument, cluster: Cluster, preemption: bool
) -> SchedulerSpace:
    return CapacitySpace.default(document, preemption=preemption)


#: ``capacity-scheduler.xml``: Hadoop 3.x's rules, the predictor's Capacity Scheduler mode.
CAPACITY_FILE = SchedulerFile(
    name="Capacity Scheduler configuration",
    parse=lambda data, source: ConfigurationDocument.from_bytes(data, source=source),
    errors=lambda doc: error_lines(capacity.validate(doc)),
    allocation=capacity_allocation,
    space=_capacity_space,
    start=lambda space, doc, clip: space.encode(doc, clip=clip),
    diff=capacity_diff,
    write=lambda doc, path: capacity.write_capacity(doc, path),
)


def scheduler_file(document: SchedulerDocument, hadoop_version: int = 3) -> SchedulerFile:
    """The `SchedulerFile` of `document`: `CAPACITY_FILE` for a capacity-scheduler.xml,
    else the allocation file read as Hadoop `hadoop_version` reads it."""
    if isinstance(document, ConfigurationDocument):
        return CAPACITY_FILE
    return fair_file(hadoop_version)


def read_scheduler_document(path: str | os.PathLike[str]) -> SchedulerDocument:
    """The file at `path` as a `ConfigurationDocument` (a capacity-scheduler.xml) or an
    `AllocationDocument` (any other file: its errors are the allocation file's)."""
    if is_capacity_scheduler(path):
        return ConfigurationDocument.from_file(path)
    return AllocationDocument.from_file(path)


__all__ = [
    "CAPACITY_FILE",
    "SchedulerDocument",
    "SchedulerFile",
    "SchedulerSpace",
    "capacity_diff",
    "error_lines",
    "fair_file",
    "read_scheduler_document",
    "scheduler_file",
]
