"""A change of workload from some trace time on: how the emulated RM makes a good configuration bad.

Tests of the tuning loop need the cluster's workload to change under a configuration
that was fine before, so that the next observed window is worse and the loop rolls
back. A `WorkloadShift` rewrites the replayed workload before the replay starts:
from ``from_s`` on, the jobs of one queue (or every queue) get longer tasks and/or
arrive faster.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from whatif.errors import ValidationError
from whatif.readers import normalize_queue
from whatif.workload import Workload


@dataclass(frozen=True)
class WorkloadShift:
    """From trace time `from_s` on, scale the task durations and arrival rate of a queue.

    Parameters
    ----------
    from_s : float
        Trace time (the trace's own seconds) at which the shift starts; jobs submitted
        at or after it are shifted.
    queue : str, optional
        Full queue path (``root.etl``) or leaf name; None shifts every queue.
    duration_factor : float
        Task durations of the shifted jobs are multiplied by this (> 0).
    arrival_factor : float
        Arrivals after `from_s` come this many times faster (> 0): a shifted job
        submitted at ``s`` is submitted at ``from_s + (s - from_s) / arrival_factor``.
    """

    from_s: float
    queue: str | None = None
    duration_factor: float = 1.0
    arrival_factor: float = 1.0

    def __post_init__(self) -> None:
        if not math.isfinite(self.from_s):
            raise ValidationError(
                f"workload shift from_s: expected a finite time, got {self.from_s!r}"
            )
        for name in ("duration_factor", "arrival_factor"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValidationError(
                    f"workload shift {name}: expected a number > 0, got {value!r}"
                )
        if self.queue is not None:
            object.__setattr__(self, "queue", normalize_queue(self.queue))

    @classmethod
    def parse(cls, text: str) -> WorkloadShift:
        """A shift from ``from=T[,queue=Q][,duration=F][,arrival=F]`` (the CLI's ``--shift``)."""
        keys = {
            "from": "from_s",
            "queue": "queue",
            "duration": "duration_factor",
            "arrival": "arrival_factor",
        }
        values: dict[str, object] = {}
        for part in text.split(","):
            key, sep, raw = part.partition("=")
            key, raw = key.strip().lower(), raw.strip()
            if not sep or key not in keys:
                raise ValidationError(
                    f"workload shift {text!r}: expected from=T[,queue=Q][,duration=F][,arrival=F], "
                    f"got {part.strip()!r}"
                )
            if key == "queue":
                values[keys[key]] = raw
                continue
            try:
                values[keys[key]] = float(raw)
            except ValueError:
                raise ValidationError(
                    f"workload shift {text!r}: {key} expects a number, got {raw!r}"
                ) from None
        if "from_s" not in values:
            raise ValidationError(f"workload shift {text!r}: from=T (trace seconds) is required")
        return cls(**values)  # type: ignore[arg-type]

    def apply(self, workload: Workload) -> Workload:
        """`workload` with this shift applied (a new Workload)."""
        jobs, tasks = workload.jobs.copy(), workload.tasks.copy()
        submit = jobs["submit_s"].to_numpy(dtype=float)
        hit = submit >= self.from_s
        if self.queue is not None:
            queues = jobs["queue"].map(normalize_queue).to_numpy(dtype=object)
            if self.queue not in set(queues):
                raise ValidationError(
                    f"workload shift queue={self.queue}: no job of the trace is in that queue "
                    f"(its queues: {', '.join(sorted(set(queues))) or 'none'})"
                )
            hit &= queues == self.queue
        jobs.loc[hit, "submit_s"] = self.from_s + (submit[hit] - self.from_s) / self.arrival_factor
        shifted = tasks["job_id"].isin(jobs.loc[hit, "job_id"]).to_numpy()
        tasks.loc[shifted, "duration_s"] = (
            tasks.loc[shifted, "duration_s"].to_numpy(dtype=float) * self.duration_factor
        )
        if self.duration_factor != 1.0:
            # Observed times no longer describe the shifted tasks: replay their durations.
            for column in (
                "observed_start_s",
                "observed_finish_s",
                "shuffle_finish_s",
                "sort_finish_s",
            ):
                tasks.loc[shifted, column] = np.nan
        return Workload(jobs=jobs, tasks=tasks)


def apply_shifts(workload: Workload, shifts: Iterable[WorkloadShift]) -> Workload:
    """`workload` with every shift applied in order."""
    for shift in shifts:
        if not isinstance(shift, WorkloadShift):
            raise ValidationError(
                f"workload shift: expected a WorkloadShift, got {type(shift).__name__}"
            )
        workload = shift.apply(workload)
    return workload
