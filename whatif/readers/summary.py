"""What is in a trace: counts, queues, time span, resource-time and task duration quantiles.

`summarize` is what ``tempo trace inspect`` prints; it is a pure function of a
`Trace` so tests and other tools use it directly.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from whatif.readers.registry import read_trace
from whatif.readers.slots import observed_nodes, observed_slots
from whatif.schedule import Schedule
from whatif.trace import Trace

#: Quantiles reported for task durations.
QUANTILES = (0.5, 0.9, 0.99)


@dataclass(frozen=True)
class QueueSummary:
    """One queue's share of the workload (resource-time = sum of duration x size)."""

    queue: str
    jobs: int
    tasks: int
    memory_mb_s: float
    vcore_s: float


@dataclass(frozen=True)
class DurationSummary:
    """Task durations of one stage (or ``all``), in seconds."""

    stage: str
    tasks: int
    mean_s: float
    p50_s: float
    p90_s: float
    p99_s: float
    max_s: float


@dataclass(frozen=True)
class TraceSummary:
    """Summary of a trace; ``attempts`` counts task attempts (AM containers separately)."""

    source: str
    format: str
    jobs: int
    tasks: int
    attempts: int
    am_containers: int
    killed_attempts: int
    failed_attempts: int
    preempted_attempts: int
    queues: tuple[str, ...]
    first_submit_s: float
    last_submit_s: float
    last_finish_s: float
    per_queue: tuple[QueueSummary, ...]
    durations: tuple[DurationSummary, ...]
    notes: tuple[str, ...]
    #: Hadoop 1 history only: trackers and slots seen (`whatif.readers.slots`), with
    #: the ``--cluster`` spec they imply.
    slots: dict[str, Any] | None = None
    #: YARN traces whose attempts name their NodeManager: nodes and per-node peaks
    #: seen (`whatif.readers.slots.observed_nodes`), with the ``--cluster`` spec.
    nodes: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (NaN becomes None)."""
        return {key: _json_ready(value) for key, value in asdict(self).items()}


def _json_ready(value: object) -> object:
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _durations(stage: str, values: np.ndarray) -> DurationSummary:
    if values.size == 0:
        return DurationSummary(stage, 0, math.nan, math.nan, math.nan, math.nan, math.nan)
    q = np.quantile(values, QUANTILES)
    return DurationSummary(
        stage,
        int(values.size),
        float(values.mean()),
        float(q[0]),
        float(q[1]),
        float(q[2]),
        float(values.max()),
    )


def summarize(trace: Trace) -> TraceSummary:
    """Summarize `trace` (see `TraceSummary`)."""
    jobs = trace.workload.jobs
    tasks = trace.workload.tasks
    queues = tuple(sorted(jobs["queue"].unique().tolist()))
    duration = tasks["duration_s"].to_numpy(float)
    stages = tasks["stage"].to_numpy(dtype=object)
    durations = [_durations("all", duration)] + [
        _durations(stage, duration[stages == stage]) for stage in dict.fromkeys(stages.tolist())
    ]
    attempts, am, killed, failed, preempted, last_finish = _attempt_counts(trace.observed)
    first, last = trace.workload.span_s if len(jobs) else (math.nan, math.nan)
    slots = nodes = None
    if trace.format == "hadoop1" and trace.observed is not None:
        seen = observed_slots(trace.observed.attempts)
        slots = None if seen is None else seen.to_dict()
    elif trace.observed is not None:
        yarn = observed_nodes(trace.observed.attempts)
        nodes = None if yarn is None else yarn.to_dict()
    return TraceSummary(
        source=str(trace.source) if trace.source is not None else "",
        format=trace.format,
        jobs=len(jobs),
        tasks=len(tasks),
        attempts=attempts,
        am_containers=am,
        killed_attempts=killed,
        failed_attempts=failed,
        preempted_attempts=preempted,
        queues=queues,
        first_submit_s=first,
        last_submit_s=last,
        last_finish_s=last_finish,
        per_queue=_per_queue(jobs, tasks, queues, duration),
        durations=tuple(durations),
        notes=trace.notes,
        slots=slots,
        nodes=nodes,
    )


def _per_queue(
    jobs: pd.DataFrame, tasks: pd.DataFrame, queues: tuple[str, ...], duration: np.ndarray
) -> tuple[QueueSummary, ...]:
    """Each queue's jobs, tasks, and memory and vcore time asked for."""
    queue_of_task = tasks["job_id"].map(dict(zip(jobs["job_id"], jobs["queue"], strict=True)))
    job_counts = jobs.groupby("queue").size()
    task_counts = queue_of_task.value_counts()
    codes = queue_of_task.map({q: i for i, q in enumerate(queues)}).to_numpy(int)

    def by_queue(column: str) -> np.ndarray:
        if not len(tasks):
            return np.zeros(len(queues))
        weights = duration * tasks[column].to_numpy(float)
        return np.bincount(codes, weights=weights, minlength=len(queues))

    memory, vcores = by_queue("memory_mb"), by_queue("vcores")
    return tuple(
        QueueSummary(
            queue=q,
            jobs=int(job_counts.get(q, 0)),
            tasks=int(task_counts.get(q, 0)),
            memory_mb_s=float(memory[i]),
            vcore_s=float(vcores[i]),
        )
        for i, q in enumerate(queues)
    )


def _attempt_counts(observed: Schedule | None) -> tuple[int, int, int, int, int, float]:
    """Task attempts, AM containers, killed, failed and preempted task attempts, and the
    last job finish, of an observed schedule (zeros and NaN without one)."""
    if observed is None:
        return 0, 0, 0, 0, 0, math.nan
    frame = observed.attempts
    is_am = frame["is_am"].to_numpy(bool)
    task_attempts = frame[~is_am]
    finishes = observed.jobs["finish_s"].to_numpy(float)
    last_finish = float(np.nanmax(finishes)) if np.isfinite(finishes).any() else math.nan
    return (
        int((~is_am).sum()),
        int(is_am.sum()),
        int((task_attempts["state"] == "KILLED").sum()),
        int((task_attempts["state"] == "FAILED").sum()),
        int(task_attempts["preempted"].sum()),
        last_finish,
    )


def inspect_trace(path: str | os.PathLike[str], *, format: str | None = None) -> TraceSummary:
    """Read the trace at `path` (format detected when None) and summarize it."""
    return summarize(read_trace(path, format=format))
