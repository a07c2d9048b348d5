"""A Trace: what a reader returns, a Workload plus the Schedule it observed (if any)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from whatif.errors import ValidationError
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


def last_window(trace: Trace, length_s: float) -> Trace:
    """The jobs of `trace` submitted in its last `length_s` seconds, their tasks and attempts.

    "Last" is from the latest submission, as ``tempo optimize --window`` picks a workload.
    """
    if not length_s > 0:
        raise ValidationError(f"window: expected a length > 0 seconds, got {length_s!r}")
    _, last = trace.workload.span_s
    keep = trace.workload.jobs["submit_s"].to_numpy() >= last - length_s
    workload = trace.workload.select_jobs(keep)
    observed = trace.observed
    if observed is not None:
        ids = workload.jobs["job_id"]
        observed = Schedule(
            jobs=observed.jobs[observed.jobs["job_id"].isin(ids)],
            attempts=observed.attempts[observed.attempts["job_id"].isin(ids)],
        )
    return replace(trace, workload=workload, observed=observed)
