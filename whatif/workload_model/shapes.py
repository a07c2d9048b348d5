"""Job shapes: how many tasks each stage of a job has, sampled jointly.

A queue's jobs are reduced to rows of task counts, one column per stage
(``map``, ``reduce``, ...). Sampling picks whole observed rows, so the numbers of
maps and reduces of a generated job stay as correlated as in the trace.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class JobShapes:
    """Distinct task-count rows and how often each was seen.

    Parameters
    ----------
    stages : tuple of str
        Column names, in stage order.
    counts : tuple of tuples of int
        One row per distinct shape: tasks per stage.
    weights : tuple of float
        Number of jobs seen with each shape.
    """

    stages: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]
    weights: tuple[float, ...]

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Task counts of `size` jobs, shape (size, len(stages)), int64."""
        counts = np.asarray(self.counts, dtype=np.int64).reshape(len(self.counts), len(self.stages))
        if size == 0:
            return np.zeros((0, len(self.stages)), dtype=np.int64)
        weights = np.asarray(self.weights, dtype=float)
        return counts[rng.choice(len(self.counts), size=size, p=weights / weights.sum())]


def task_counts(jobs: pd.DataFrame, tasks: pd.DataFrame, stages: tuple[str, ...]) -> pd.DataFrame:
    """Tasks per stage of every job in `jobs` (index job_id, one column per stage)."""
    table = pd.crosstab(tasks["job_id"], tasks["stage"]) if len(tasks) else pd.DataFrame()
    return (
        table.reindex(index=jobs["job_id"].to_numpy(), columns=list(stages), fill_value=0)
        .fillna(0)
        .astype(np.int64)
    )


def fit_shapes(counts: pd.DataFrame) -> JobShapes:
    """Distinct rows of the per-job task-count table, most frequent first."""
    stages = tuple(str(c) for c in counts.columns)
    if len(counts) == 0:
        return JobShapes(stages, (), ())
    if not stages:
        return JobShapes(stages, ((),), (float(len(counts)),))
    rows, seen = np.unique(counts.to_numpy(dtype=np.int64), axis=0, return_counts=True)
    order = np.argsort(-seen, kind="stable")
    return JobShapes(
        stages,
        tuple(tuple(int(v) for v in rows[i]) for i in order),
        tuple(float(seen[i]) for i in order),
    )


def grow_counts(counts: np.ndarray, factor: float, rng: np.random.Generator) -> np.ndarray:
    """Scale positive task counts by `factor`, rounding at random so the mean scales exactly.

    A count of n becomes floor(n * factor) or one more, with the probability of one
    more equal to the fractional part; it never drops below one task.
    """
    scaled = counts * factor
    whole = np.floor(scaled)
    grown = whole + (rng.random(counts.shape) < scaled - whole)
    return np.where(counts > 0, np.maximum(grown, 1), 0).astype(np.int64)
