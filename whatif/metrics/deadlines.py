"""Where a job's deadline comes from, for the deadline metrics (QS_DL, QS_ATTAIN).

A deadline source is one of:

- ``"column"``: the workload's per-job ``deadline_s``;
- ``"next"``: the submission time of the next run of the same recurring job
  (same non-empty ``recurring_key``); the last run of a series has none;
- ``"auto"`` (default): ``deadline_s`` where given, else the next run;
- a time of day ``"HH:MM"`` or ``"HH:MM:SS"``: the first such time at or after
  the job's submission, on the trace clock (UTC for epoch seconds);
- a duration after submission ``"+1h"`` (``+30m``... any `whatif.durations` form,
  e.g. ``+90s``, ``+2h``, ``+1d``): the job's submission plus that much, the paper's
  "a deadline of 1 hour". It is written back in canonical form (``+60min`` is ``+1h``).

Jobs without a deadline take no part in the deadline metrics.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from whatif.durations import DAY_S, format_duration, parse_duration
from whatif.errors import ValidationError
from whatif.schedule import Schedule
from whatif.workload import Workload

SOURCES = ("auto", "column", "next")

_TIME_OF_DAY = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$")


#: What a deadline source may be, for error messages.
EXPECTED = (
    f"one of {', '.join(SOURCES)}, a time of day HH:MM or a duration after submission such as +1h"
)


def check_source(source: str, *, field: str = "deadline") -> str:
    """`source` in canonical form if it names a deadline source; a ValidationError naming `field` otherwise."""
    if source in SOURCES or _TIME_OF_DAY.match(source):
        return source
    if source.startswith("+"):
        return "+" + format_duration(_relative_s(source, field))
    raise ValidationError(f"{field}: expected {EXPECTED}, got {source!r}")


def _relative_s(source: str, field: str) -> float:
    """Seconds after submission of a ``+DURATION`` source."""
    try:
        seconds = parse_duration(source[1:], field=field)
    except ValidationError:
        seconds = math.nan
    if not seconds > 0:
        raise ValidationError(
            f"{field}: expected a duration > 0 after '+', such as +1h, +30m, +90s or +1d "
            f"(units s, m/min, h, d), got {source!r}"
        )
    return seconds


def relative_s(source: str) -> float | None:
    """Seconds after submission of a ``+DURATION`` source, or None for other sources."""
    return _relative_s(source, "deadline") if source.startswith("+") else None


def time_of_day_s(source: str) -> float | None:
    """Seconds after midnight of a ``HH:MM[:SS]`` source, or None for other sources."""
    match = _TIME_OF_DAY.match(source)
    if match is None:
        return None
    hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return float(hours * 3600 + minutes * 60 + seconds)


def has_deadlines(workload: Workload | None, source: str = "auto") -> bool:
    """Whether `workload` gives any job a deadline of `source`'s kind: a ``deadline_s``
    (``column``), a recurring job's next run (``next``) or either (``auto``)."""
    if workload is None:
        return False
    jobs = workload.jobs
    keys = jobs["recurring_key"][jobs["recurring_key"] != ""]
    column = bool(np.isfinite(jobs["deadline_s"].to_numpy(dtype=float)).any())
    following = bool(keys.duplicated().any())
    return {"column": column, "next": following}.get(source, column or following)


def job_deadlines(schedule: Schedule, workload: Workload | None, source: str) -> np.ndarray:
    """Deadline of each job of `schedule` (in its row order), NaN where it has none.

    Raises
    ------
    ValidationError
        If the source needs the workload and none is given, or the workload has no
        deadline of the kind asked for.
    """
    source = check_source(source)
    tod, after = time_of_day_s(source), relative_s(source)
    submit = schedule.jobs["submit_s"].to_numpy(dtype=float)
    if tod is not None:
        return submit + np.mod(tod - submit, DAY_S)
    if after is not None:
        return submit + after
    if workload is None:
        raise ValidationError(
            f"deadline={source}: no deadlines available; give the workload (its deadline_s "
            "and recurring_key columns), a time of day such as deadline=09:00 or a duration "
            "after submission such as deadline=+1h"
        )
    jobs = workload.jobs
    column = jobs["deadline_s"].to_numpy(dtype=float)
    keys = jobs["recurring_key"]
    following = (
        jobs["submit_s"]
        .where(keys != "")
        .groupby(keys, sort=False)
        .shift(-1)
        .to_numpy(dtype=float, copy=True)
    )
    following[(keys == "").to_numpy()] = np.nan
    if source == "column":
        chosen, wanted = column, "a deadline_s value"
    elif source == "next":
        chosen, wanted = following, "a recurring_key shared by two or more jobs"
    else:
        chosen = np.where(np.isnan(column), following, column)
        wanted = "a deadline_s value or a recurring_key shared by two or more jobs"
    if not np.isfinite(chosen).any():
        raise ValidationError(
            f"deadline={source}: no deadlines available; no job of the workload has {wanted}"
        )
    rows = pd.Index(jobs["job_id"]).get_indexer(schedule.jobs["job_id"])
    out = np.full(rows.size, np.nan)
    known = rows >= 0
    out[known] = chosen[rows[known]]
    return out
