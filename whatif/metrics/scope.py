"""What the QS metrics see: the schedule's jobs and attempts as arrays, per queue, in one window.

A `Scope` is built once per (schedule, window) inside `evaluate` and computes its
arrays lazily, so a call that asks only for AJR never touches the attempts.
Every per-queue aggregate is an ``np.bincount`` over the (record, queue) pairs
from `QueueTree.expand`: no Python loop runs per job or per attempt.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.metrics.tree import QueueTree
from whatif.metrics.window import Window
from whatif.schedule import Schedule
from whatif.workload import positions_in

#: Job states that mean the job has left the system.
TERMINAL_STATES = ("SUCCEEDED", "FAILED", "KILLED")


def job_finish(jobs: pd.DataFrame) -> np.ndarray:
    """Finish time of each job of a schedule's job table, NaN unless it left the system."""
    done = jobs["state"].isin(TERMINAL_STATES).to_numpy()
    return np.where(done, jobs["finish_s"].to_numpy(dtype=float), np.nan)


@dataclass(eq=False, repr=False)
class Scope:
    """Arrays of one schedule over one window, and reductions per queue of a `QueueTree`
    (`deadlines_by_source`: each deadline source's array, one deadline a job)."""

    schedule: Schedule
    window: Window
    tree: QueueTree
    cluster: Cluster | None
    deadlines_by_source: dict[str, np.ndarray]

    # ---- jobs -------------------------------------------------------------------------
    @cached_property
    def submit(self) -> np.ndarray:
        return self.schedule.jobs["submit_s"].to_numpy(dtype=float)

    @cached_property
    def finish(self) -> np.ndarray:
        """Finish time of finished jobs, NaN for jobs still running or pending."""
        return job_finish(self.schedule.jobs)

    @cached_property
    def launch(self) -> np.ndarray:
        """Launch time: ``launch_s``, else the first attempt's start, else the submission."""
        launch = self.schedule.jobs["launch_s"].to_numpy(dtype=float)
        if np.isnan(launch).any():
            first = np.full(launch.size, np.nan)
            if self.attempt_job.size:
                starts = pd.Series(self.attempt_start).groupby(self.attempt_job).min()
                first[starts.index.to_numpy()] = starts.to_numpy()
            launch = np.where(np.isnan(launch), first, launch)
            launch = np.where(np.isnan(launch), self.submit, launch)
        return launch

    @cached_property
    def response(self) -> np.ndarray:
        result: np.ndarray = self.finish - self.submit
        return result

    @cached_property
    def completed(self) -> np.ndarray:
        """J: jobs submitted inside the window, each followed to its finish wherever it falls.

        A job finishing after the window's end counts with its true response time, so
        no schedule looks better by pushing jobs past the end. A submitted job that
        never finished is not in J: `evaluate` refuses such a schedule, or (observed
        schedules only) warns that it is left out (`unfinished`).
        """
        result: np.ndarray = self.submitted & ~np.isnan(self.finish)
        return result

    @cached_property
    def finished_in_window(self) -> np.ndarray:
        """Jobs of J that also finished before the window's end (what QS_THR counts)."""
        with np.errstate(invalid="ignore"):
            return self.completed & (self.finish < self.window.end_s)

    @cached_property
    def submitted(self) -> np.ndarray:
        """Jobs submitted inside the window."""
        return (self.submit >= self.window.start_s) & (self.submit < self.window.end_s)

    @cached_property
    def unfinished(self) -> np.ndarray:
        """Jobs submitted inside the window with no finish: still running, pending or cut off."""
        result: np.ndarray = self.submitted & np.isnan(self.finish)
        return result

    @cached_property
    def job_queue(self) -> np.ndarray:
        """Index in the tree of each job's queue."""
        return self.tree.codes(self.schedule.jobs["queue"])

    @cached_property
    def _job_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        return self.tree.expand(self.job_queue)

    def deadlines(self, source: str) -> np.ndarray:
        """Each job's deadline from `source` (see `whatif.metrics.deadlines`)."""
        return self.deadlines_by_source[source]

    # ---- attempts -----------------------------------------------------------------------
    @cached_property
    def attempt_job(self) -> np.ndarray:
        """Row of each attempt's job in ``schedule.jobs`` (looked up in Arrow: no Python
        string per attempt)."""
        return positions_in(self.schedule.attempts["job_id"], self.schedule.jobs["job_id"])

    @cached_property
    def attempt_start(self) -> np.ndarray:
        return self.schedule.attempts["start_s"].to_numpy(dtype=float)

    @cached_property
    def attempt_seconds(self) -> np.ndarray:
        """Seconds each attempt held its container inside the window (running ones to its end)."""
        t0, t1 = self.window.start_s, self.window.end_s
        finish = self.schedule.attempts["finish_s"].to_numpy(dtype=float)
        finish = np.where(np.isnan(finish), t1, finish)
        result: np.ndarray = np.clip(
            np.minimum(finish, t1) - np.maximum(self.attempt_start, t0), 0.0, None
        )
        return result

    @cached_property
    def _attempt_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        return self.tree.expand(self.job_queue[self.attempt_job])

    def attempt_shares(self, stage: str) -> np.ndarray:
        """Each attempt's share of the cluster; zero for attempts outside `stage` when given.

        The share is the dominant one over memory and vcores; on a Hadoop 1 (slot)
        cluster a task holds one slot of the whole pool, or of its stage's pool
        when `stage` is given.
        """
        cluster = self.cluster
        if cluster is None:
            raise ValidationError(
                "metrics: resource metrics (QS_UTIL, QS_UTIL_NOPREEMPT, QS_FAIR, QS_WASTE) need "
                "the cluster; pass cluster=Cluster.parse(SPEC)"
            )
        attempts = self.schedule.attempts
        n = len(attempts)
        if cluster.slots:
            pools = cluster.slot_pools
            if stage and stage not in pools:
                raise ValidationError(
                    f"metric stage: expected one of the cluster's slot pools "
                    f"({', '.join(pools)}), got {stage!r}"
                )
            shares = np.full(n, 1.0 / (pools[stage] if stage else sum(pools.values())))
        else:
            shares = np.zeros(n)
            for column, capacity in (("memory_mb", cluster.memory_mb), ("vcores", cluster.vcores)):
                if capacity > 0:
                    shares = np.maximum(shares, attempts[column].to_numpy(dtype=float) / capacity)
        if stage:
            shares = np.where((attempts["stage"] == stage).to_numpy(), shares, 0.0)
        return shares

    # ---- reductions per queue -------------------------------------------------------------
    def job_sum(self, values: np.ndarray | float, mask: np.ndarray) -> np.ndarray:
        """Sum of `values` over the jobs in `mask`, per queue (subtrees included)."""
        return self._sum(self._job_pairs, values, mask)

    def attempt_sum(self, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Sum of `values` over the attempts in `mask`, per queue (subtrees included)."""
        return self._sum(self._attempt_pairs, values, mask)

    def job_quantile(self, values: np.ndarray, mask: np.ndarray, q: float) -> np.ndarray:
        """The `q` quantile (linear interpolation, as numpy) of `values` over `mask`, per queue."""
        items, groups = self._job_pairs
        keep = mask[items]
        v, g = values[items][keep], groups[keep]
        order = np.lexsort((v, g))
        v, g = v[order], g[order]
        counts = np.bincount(g, minlength=len(self.tree))
        out = np.full(len(self.tree), np.nan)
        has = counts > 0
        starts = (np.cumsum(counts) - counts)[has]
        position = (counts[has] - 1) * q
        low = np.floor(position).astype(np.int64)
        high = np.minimum(low + 1, counts[has] - 1)
        below, above = v[starts + low], v[starts + high]
        out[has] = below + (above - below) * (position - low)
        return out

    def _sum(
        self,
        pairs: tuple[np.ndarray, np.ndarray],
        values: np.ndarray | float,
        mask: np.ndarray | None,
    ) -> np.ndarray:
        items, groups = pairs
        weights = np.broadcast_to(np.asarray(values, dtype=float), (items.max(initial=-1) + 1,))
        if mask is None:
            return np.bincount(groups, weights=weights[items], minlength=len(self.tree))
        keep = mask[items]
        return np.bincount(groups[keep], weights=weights[items][keep], minlength=len(self.tree))
