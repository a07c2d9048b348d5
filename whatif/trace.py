"""A Trace: what a reader returns, a Workload plus the Schedule it observed (if any)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from whatif.schedule import Schedule
from whatif.workload import Workload


@dataclass(frozen=True)
class Trace:
    """A workload and, when the source recorded real times, its observed schedule."""

    workload: Workload
    observed: Schedule | None = None
    source: Path | None = None
    format: str = ""
    notes: tuple[str, ...] = field(default=())
