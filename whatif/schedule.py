"""The Schedule: when each task attempt ran, observed from a trace or predicted.

Observed schedules (readers) and predicted ones (the predictor) are the same type,
so QS metrics and accuracy reports work on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from whatif._validation import check_numeric, record_label
from whatif.errors import ValidationError
from whatif.workload import ColumnDefault, normalize_linked, sort_rows

#: Attempt states a schedule may record.
ATTEMPT_STATES = ("SUCCEEDED", "FAILED", "KILLED", "RUNNING")

#: Job states a schedule may record.
JOB_STATES = ("SUCCEEDED", "FAILED", "KILLED", "RUNNING", "PENDING")

SCHEDULE_JOB_COLUMNS: dict[str, tuple[str, ColumnDefault]] = {
    "job_id": ("string", None),
    "queue": ("string", None),
    "submit_s": ("float64", None),
    "launch_s": ("float64", np.nan),
    "finish_s": ("float64", np.nan),
    "user": ("string", "unknown"),
    "state": ("string", "SUCCEEDED"),
}

ATTEMPT_COLUMNS: dict[str, tuple[str, ColumnDefault]] = {
    "job_id": ("string", None),
    "task_id": ("string", None),
    "attempt_id": ("string", None),
    "stage": ("string", None),
    "start_s": ("float64", None),
    "finish_s": ("float64", np.nan),
    "memory_mb": ("float64", 0.0),
    "vcores": ("float64", 0.0),
    "state": ("string", "SUCCEEDED"),
    "preempted": ("bool", False),
    "is_am": ("bool", False),
    "node": ("string", ""),
}


@dataclass(frozen=True)
class NeverPlaced:
    """Jobs of a queue a prediction can never finish, and why: a limit none of their
    containers fits (`whatif.predictor.never_placed`)."""

    queue: str
    jobs: int
    cause: str

    def __str__(self) -> str:
        return f"{self.queue}: {self.jobs} job{'s' if self.jobs != 1 else ''} can never finish: {self.cause}"


class DeferredAttempts(Protocol):
    """An attempts table kept as codes and numbers until something reads it
    (`Schedule.deferred`): its length, its count of a state and the table itself."""

    def __len__(self) -> int: ...

    def count_state(self, state: str) -> int: ...

    def build(self) -> pd.DataFrame: ...


@dataclass(frozen=True, eq=False)
class Schedule:
    """Task attempts and job milestones over time.

    Parameters
    ----------
    jobs : DataFrame
        ``job_id``, ``queue``, ``submit_s``; optional ``launch_s`` (first task or AM
        start), ``finish_s`` (NaN while unfinished), ``user``, ``state``.
    attempts : DataFrame
        ``job_id``, ``task_id``, ``attempt_id``, ``stage``, ``start_s``; optional
        ``finish_s``, ``memory_mb``, ``vcores``, ``state`` (one of
        ``ATTEMPT_STATES``), ``preempted`` (killed by the scheduler to free
        resources), ``is_am`` (an ApplicationMaster container), ``node``.
    never_placed : tuple of NeverPlaced
        In a predicted schedule, the jobs the predictor found could never finish, and why
        (quoted when a job is refused as unfinished, `whatif.metrics.require_finished`).
    """

    jobs: pd.DataFrame
    attempts: pd.DataFrame
    never_placed: tuple[NeverPlaced, ...] = ()

    def __post_init__(self) -> None:
        jobs, attempts = normalize_linked(
            self.jobs,
            SCHEDULE_JOB_COLUMNS,
            self.attempts,
            ATTEMPT_COLUMNS,
            key="attempt_id",
            tables=("schedule.jobs", "schedule.attempts"),
        )
        check_numeric(
            attempts, "memory_mb", table="schedule.attempts", key="attempt_id", minimum=0.0
        )
        check_numeric(attempts, "vcores", table="schedule.attempts", key="attempt_id", minimum=0.0)
        for table, frame, allowed, key in (
            ("schedule.attempts", attempts, ATTEMPT_STATES, "attempt_id"),
            ("schedule.jobs", jobs, JOB_STATES, "job_id"),
        ):
            bad = np.flatnonzero(~frame["state"].isin(allowed).to_numpy())
            if bad.size:
                raise ValidationError(
                    f"{table}.state: expected one of {', '.join(allowed)}, got {frame['state'].iloc[bad[0]]!r} "
                    f"in record {record_label(frame, bad, key)}"
                )
        backwards = np.flatnonzero(attempts["finish_s"].to_numpy() < attempts["start_s"].to_numpy())
        if backwards.size:
            raise ValidationError(
                "schedule.attempts.finish_s: finishes before it starts in record "
                f"{record_label(attempts, backwards, 'attempt_id')}"
            )
        jobs = sort_rows(jobs, ["submit_s", "job_id"])
        attempts = sort_rows(attempts, ["start_s", "attempt_id"])
        object.__setattr__(self, "jobs", jobs)
        object.__setattr__(self, "attempts", attempts)

    @classmethod
    def from_normalized(
        cls, jobs: pd.DataFrame, attempts: pd.DataFrame, never_placed: tuple[NeverPlaced, ...] = ()
    ) -> Schedule:
        """A Schedule of tables already as the constructor leaves them (every column in order
        with its dtype, rows sorted, fresh index) and valid, taken without checks or copies.

        For builders whose tables are so by construction (the predictor): at millions of
        attempts the checks would sort every attempt id again.
        """
        return _unchecked(cls, jobs, attempts=attempts, never_placed=never_placed)

    @classmethod
    def deferred(
        cls,
        jobs: pd.DataFrame,
        attempts: DeferredAttempts,
        never_placed: tuple[NeverPlaced, ...] = (),
    ) -> Schedule:
        """A Schedule whose attempts table is built by `attempts` on its first read, and
        meanwhile held as the predictor's codes and numbers: no string per attempt.

        For `predict`: ``tempo predict`` reads the jobs and the attempt counts alone, and at
        1M tasks the table's id and name columns would be its largest memory. `jobs` and
        the table built must be as `from_normalized` takes them.
        """
        return _unchecked(_DeferredSchedule, jobs, _pending=attempts, never_placed=never_placed)

    @property
    def n_jobs(self) -> int:
        return len(self.jobs)

    @property
    def n_attempts(self) -> int:
        return len(self.attempts)

    def count_attempts(self, state: str) -> int:
        """How many attempts ended in `state` (one of `ATTEMPT_STATES`)."""
        return int((self.attempts["state"] == state).sum())

    @property
    def queues(self) -> list[str]:
        return list(dict.fromkeys(self.jobs["queue"].tolist()))

    def __repr__(self) -> str:
        killed = self.count_attempts("KILLED")
        return f"Schedule(jobs={self.n_jobs}, attempts={self.n_attempts}, killed={killed})"


def _unchecked(cls: type[Schedule], jobs: pd.DataFrame, **fields: Any) -> Schedule:
    """A `cls` of `jobs` and `fields` set as they are, without the constructor's checks."""
    schedule = object.__new__(cls)
    object.__setattr__(schedule, "jobs", jobs)
    for name, value in fields.items():
        object.__setattr__(schedule, name, value)
    return schedule


class _DeferredSchedule(Schedule):
    """A `Schedule.deferred`: ``attempts`` is built on first read, then held as any
    Schedule's. Pickles as a plain Schedule (the table built), so that no builder travels."""

    @property
    def attempts(self) -> pd.DataFrame:
        table: pd.DataFrame | None = self.__dict__.get("_attempts")
        if table is None:
            table = self.__dict__["_pending"].build()
            object.__setattr__(self, "attempts", table)  # the setter: the codes go
        return table

    @attempts.setter
    def attempts(self, table: pd.DataFrame) -> None:
        # Set once built (above) and by the dataclass machinery (`replace`, `__post_init__`).
        self.__dict__.pop("_pending", None)
        self.__dict__["_attempts"] = table

    @property
    def n_attempts(self) -> int:
        pending = self.__dict__.get("_pending")
        return len(self.attempts) if pending is None else len(pending)

    def count_attempts(self, state: str) -> int:
        pending: DeferredAttempts | None = self.__dict__.get("_pending")
        return super().count_attempts(state) if pending is None else pending.count_state(state)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Schedule.from_normalized, (self.jobs, self.attempts, self.never_placed))
