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

#: A key is periodic only if its submissions sit within this fraction of a period
#: of the fitted grid (robust spread) ...
MAX_JITTER_FRACTION = 0.25
#: ... and the grid over its observed span does not hold many more instances than seen.
MAX_GRID_EXCESS = 1.5


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
    jobs: pd.DataFrame,
    counts: pd.DataFrame,
    *,
    min_recurrences: int,
    window: tuple[float, float] | None = None,
) -> tuple[RecurringJob, ...]:
    """Recurring jobs among `jobs` whose key repeats at least `min_recurrences` times
    on a period.

    `counts` is the per-job task-count table (index job_id, columns in stage order).
    A key counts as periodic when its submissions sit near a grid of its median gap,
    no two in one grid slot, and that grid over the fitted `window` (default: the
    key's own span) holds not many more instances than were seen; other keys are
    left to the ad-hoc arrival model.
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
        start, end = window if window is not None else (times[0], times[-1])
        on_grid = (end - start) / period + 1
        shared_slot = np.unique(np.round((times - times[0]) / period)).size < times.size
        if (
            shared_slot
            or jitter > MAX_JITTER_FRACTION * period
            or on_grid > MAX_GRID_EXCESS * len(times)
        ):
            # Bursty repeats (the same job re-run a few times close together) are not
            # a schedule: replaying them on the median gap would invent instances.
            logger.info(
                "recurring key %r: %d submissions do not follow a period (median gap %.0f s, "
                "spread %.0f s, %.0f grid slots); treated as ad-hoc jobs",
                key,
                len(times),
                period,
                jitter,
                on_grid,
            )
            continue
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
