"""The What-if Model f(x, w): a configuration and a workload to a QS vector.

Each candidate configuration is replayed through the schedule predictor on the
workload, N times with seeds ``seed, seed + 1, ...`` (the same seeds for every
candidate, so candidates are compared on common random numbers), and the
requested QS metrics are computed on each predicted schedule. The result is the
mean and the spread (standard deviation) over replicates.

Evaluations are independent, so a batch goes through an `Executor` (serial, a
local process pool, or Dask); the numbers do not depend on which.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from whatif._validation import check_count
from whatif.allocation.effective import EffectiveAllocation
from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.executors import Executor, SerialExecutor
from whatif.metrics import Metric, Window, evaluate, full_path, require_finished
from whatif.predictor import NoiseModel, SchedulerSettings, predict
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: A QS to estimate: (queue, metric).
QSEntry = tuple[str, Metric]


@dataclass(frozen=True, eq=False)
class QSEstimate:
    """Predicted QS of a batch of candidates.

    ``replicates`` has shape (candidates, N, k); ``mean`` and ``spread`` (sample
    standard deviation, 0 for a single replicate) have shape (candidates, k).
    Column j is ``labels[j]``, ``"queue:metric label"``. NaN where a queue had
    nothing to measure.
    """

    labels: tuple[str, ...]
    replicates: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        if not self.replicates.size:
            return self._empty()
        # nanmean without its warning: a QS with nothing to measure is NaN by design
        measured = ~np.isnan(self.replicates)
        total = np.where(measured, self.replicates, 0.0).sum(axis=1)
        count = measured.sum(axis=1)
        mean: np.ndarray = np.divide(
            total, count, out=np.full(total.shape, np.nan), where=count > 0
        )
        return mean

    @property
    def spread(self) -> np.ndarray:
        if self.replicates.shape[1] < 2:
            return np.zeros(self.replicates.shape[::2])
        # nanstd(ddof=1) without its warning: NaN where fewer than two replicates measured
        measured = ~np.isnan(self.replicates)
        count = measured.sum(axis=1)
        deviation = np.where(measured, self.replicates - self.mean[:, None, :], 0.0)
        squares = (deviation * deviation).sum(axis=1)
        variance = np.divide(
            squares, count - 1, out=np.full(squares.shape, np.nan), where=count > 1
        )
        spread: np.ndarray = np.sqrt(variance)
        return spread

    def _empty(self) -> np.ndarray:
        return np.zeros((self.replicates.shape[0], self.replicates.shape[2]))


@dataclass(frozen=True, eq=False)
class _Replicate:
    """One predictor run and its QS: the unit of work sent to an executor."""

    workload: Workload
    allocation: EffectiveAllocation
    cluster: Cluster
    settings: SchedulerSettings
    noise: NoiseModel | None
    seed: int
    engine: str
    window: Window | None
    qs: tuple[QSEntry, ...]


def _run_replicate(task: _Replicate) -> np.ndarray:
    schedule = predict(
        task.workload,
        task.allocation,
        task.cluster,
        settings=task.settings,
        engine=task.engine,
        seed=task.seed,
        noise=task.noise,
    )
    window = task.window if task.window is not None else Window.covering(schedule)
    # Any replayed job that never finishes invalidates the prediction, in the window or not.
    require_finished(schedule, what=f"predicted schedule (seed {task.seed})")
    queues = [queue for queue, _ in task.qs]
    table = evaluate(
        schedule,
        [metric for _, metric in task.qs],
        window=window,
        cluster=task.cluster,
        workload=task.workload,
        queues=queues,
    )
    return qs_values(table, task.qs)


def qs_values(
    table: pd.DataFrame, entries: Sequence[tuple[str, Metric] | tuple[Any, ...]]
) -> np.ndarray:
    """The values of ``(queue, metric, ...)`` entries in an `evaluate` table, in order.

    Raises ValidationError if the table lacks an entry's queue row or metric column.
    """
    values = np.empty(len(entries))
    for i, (queue, metric, *_rest) in enumerate(entries):
        row = full_path(queue)
        if row not in table.index:
            raise ValidationError(f"QS table: no row for queue {row}")
        if metric.label not in table.columns:
            raise ValidationError(f"QS table: no column {metric.label}; evaluate that metric first")
        # the evaluate table holds floats; pandas-stubs types a cell as any scalar
        values[i] = cast(float, table.at[row, metric.label])
    return values


class WhatifModel:
    """Predicts the QS vector of configurations on a workload.

    Parameters
    ----------
    cluster : Cluster
    qs : sequence of (queue, Metric)
        The QS vector's entries, in order.
    settings : SchedulerSettings, optional
        The yarn-site knobs the predictor models; Hadoop's defaults when omitted.
    replicates : int
        N, seeded runs per candidate; more than one is useful only with ``noise``.
    noise : NoiseModel, optional
        Failures, stragglers and jitter that make replicates differ.
    seed : int
        Seed of the first replicate.
    window : Window, optional
        Where QS are measured. By default, each predicted schedule is measured
        over the span it covers (first submission to last finish), so every
        replayed job counts. Over a given window, the jobs submitted in it count,
        each followed to its finish past the window's end, so no candidate looks
        better by pushing jobs past it. A job that never finishes (a livelock, a
        task that never fits) raises `UnfinishedJobsError`: the tuner then
        records that candidate as failed, never as a smaller average.
    engine : {"numba", "reference"}
    executor : Executor, optional
        Where replicates run; in this process by default.
    """

    def __init__(
        self,
        cluster: Cluster,
        qs: Sequence[QSEntry],
        *,
        settings: SchedulerSettings | None = None,
        replicates: int = 1,
        noise: NoiseModel | None = None,
        seed: int = 0,
        window: Window | None = None,
        engine: str = "numba",
        executor: Executor | None = None,
    ) -> None:
        self.cluster = cluster
        self.qs = tuple((str(queue), metric) for queue, metric in qs)
        self.settings = settings if settings is not None else SchedulerSettings()
        self.replicates = replicates
        self.noise = noise
        self.seed = seed
        self.window = window
        self.engine = engine
        self.executor = executor
        self._validate()

    def _validate(self) -> None:
        if not isinstance(self.cluster, Cluster):
            raise ValidationError(
                f"WhatifModel cluster: expected a Cluster, got {type(self.cluster).__name__}"
            )
        if not self.qs:
            raise ValidationError(
                "WhatifModel qs: expected at least one (queue, metric) entry, got none"
            )
        for queue, metric in self.qs:
            if not isinstance(metric, Metric):
                raise ValidationError(
                    f"WhatifModel qs: expected a Metric for queue {queue}, got {metric!r}"
                )
        check_count(self.replicates, field="WhatifModel replicates", minimum=1)
        if self.engine not in ("numba", "reference"):
            raise ValidationError(
                f"WhatifModel engine: expected 'numba' or 'reference', got {self.engine!r}"
            )

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(f"{full_path(queue)}:{metric.label}" for queue, metric in self.qs)

    def evaluate(
        self, allocations: Sequence[EffectiveAllocation], workload: Workload
    ) -> QSEstimate:
        """The QS estimate of every candidate configuration on `workload`."""
        allocations = list(allocations)
        for i, allocation in enumerate(allocations):
            if not isinstance(allocation, EffectiveAllocation):
                raise ValidationError(
                    f"WhatifModel.evaluate allocations[{i}]: expected an EffectiveAllocation, "
                    f"got {type(allocation).__name__}"
                )
        if not isinstance(workload, Workload):
            raise ValidationError(
                f"WhatifModel.evaluate workload: expected a Workload, got {type(workload).__name__}"
            )
        tasks = [
            _Replicate(
                workload,
                allocation,
                self.cluster,
                self.settings,
                self.noise,
                self.seed + r,
                self.engine,
                self.window,
                self.qs,
            )
            for allocation in allocations
            for r in range(self.replicates)
        ]
        executor = self.executor or SerialExecutor()
        logger.info(
            "evaluating %d candidates x %d replicates on %r",
            len(allocations),
            self.replicates,
            executor,
        )
        results = executor.map(_run_replicate, tasks)
        shape = (len(allocations), self.replicates, len(self.qs))
        replicates = np.asarray(results, dtype=float).reshape(shape)
        return QSEstimate(labels=self.labels, replicates=replicates)
