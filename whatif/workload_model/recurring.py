"""Recurring jobs: a `recurring_key` that repeats on a period (hourly ETL, daily reports).

Instances are generated on the fitted grid ``phase_s + k * period_s`` (absolute
clock seconds), each moved by normal jitter, with the key's typical task counts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RecurringJob:
    """One recurring job of a queue.

    Parameters
    ----------
    key : str
        The trace's ``recurring_key``.
    period_s : float
        Median gap between submissions.
    phase_s : float
        First submission modulo the period (where the grid sits on the clock).
    jitter_s : float
        Robust spread (scaled median absolute deviation) of submissions around
        the grid.
    task_counts : tuple of int
        Median tasks per stage, in the queue's stage order.
    user, name : str
        Most frequent user and job name.
    relative_deadline_s : float or None
        Median deadline after submission, when the trace gave deadlines.
    n_seen : int
        Instances in the trace.
    """

    key: str
    period_s: float
    phase_s: float
    jitter_s: float
    task_counts: tuple[int, ...]
    user: str
    name: str
    relative_deadline_s: float | None
    n_seen: int

    def submit_times(self, rng: np.random.Generator, start_s: float, end_s: float) -> np.ndarray:
        """Sorted submissions in [start_s, end_s)."""
        first = np.ceil((start_s - self.phase_s) / self.period_s)
        last = np.floor((end_s - self.phase_s) / self.period_s)
        grid = self.phase_s + np.arange(first, last + 1) * self.period_s
        times = grid + rng.normal(0.0, self.jitter_s, grid.size) if self.jitter_s > 0 else grid
        return np.sort(times[(times >= start_s) & (times < end_s)])


def fit_recurring(
    jobs: pd.DataFrame, counts: pd.DataFrame, *, min_recurrences: int
) -> tuple[RecurringJob, ...]:
    """Recurring jobs among `jobs` whose key repeats at least `min_recurrences` times.

    `counts` is the per-job task-count table (index job_id, columns in stage order).
    """
    keyed = jobs[jobs["recurring_key"] != ""]
    found = []
    for key, group in keyed.groupby("recurring_key", sort=True):
        if len(group) < min_recurrences:
            continue
        times = np.sort(group["submit_s"].to_numpy(dtype=float))
        period = float(np.median(np.diff(times)))
        if period <= 0:
            logger.info("recurring key %r: no positive period, treated as ad-hoc jobs", key)
            continue
        grid = times[0] + np.round((times - times[0]) / period) * period
        jitter = float(1.4826 * np.median(np.abs(times - grid)))
        relative = (group["deadline_s"] - group["submit_s"]).dropna()
        found.append(
            RecurringJob(
                key=str(key),
                period_s=period,
                phase_s=float(np.mod(times[0], period)),
                jitter_s=jitter,
                task_counts=tuple(
                    int(v) for v in np.round(counts.loc[group["job_id"].to_numpy()].median(axis=0))
                ),
                user=str(group["user"].mode().iloc[0]),
                name=str(group["name"].mode().iloc[0]),
                relative_deadline_s=float(relative.median()) if len(relative) else None,
                n_seen=len(group),
            )
        )
    return tuple(found)
