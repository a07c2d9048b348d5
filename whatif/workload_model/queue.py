"""The model of one queue (tenant): arrivals, job shapes, per-stage tasks, recurring jobs.

`fit_queue` learns a `QueueModel` from that queue's jobs and tasks; `generate_queue`
samples jobs and tasks from it. Growth and arrival scaling are stored on the model
as factors and applied while sampling, so a transformed model keeps its fitted
distributions and says what was changed.
"""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from whatif.errors import ValidationError
from whatif.workload_model.arrivals import ArrivalProcess, fit_arrivals
from whatif.workload_model.distributions import (
    MAX_DURATION_S,
    DurationDistribution,
    EmpiricalTable,
    GoodnessOfFit,
    fit_duration,
    fit_empirical,
)
from whatif.workload_model.recurring import RecurringJob, fit_recurring
from whatif.workload_model.shapes import JobShapes, fit_shapes, grow_counts, task_counts

logger = logging.getLogger(__name__)

#: Stages that do bookkeeping, not data work: data growth leaves them alone.
BOOKKEEPING_STAGES = frozenset({"setup", "cleanup"})


@dataclass(frozen=True)
class StageModel:
    """Tasks of one stage: order, container priority, durations and resource requests."""

    stage: str
    stage_index: int
    priority: int
    duration: DurationDistribution
    resources: EmpiricalTable


@dataclass(frozen=True)
class DeadlineModel:
    """Share of ad-hoc jobs with a deadline, and deadline minus submission (seconds)."""

    fraction: float
    relative: DurationDistribution


@dataclass(frozen=True)
class QueueModel:
    """Everything fitted for one queue, plus the what-if factors applied when sampling.

    `growth` is data growth (see `generate_queue`); `arrival_scale` multiplies the
    ad-hoc (Poisson) arrival rate. Both are 1.0 for a freshly fitted model.
    """

    name: str
    arrivals: ArrivalProcess
    stages: tuple[StageModel, ...]
    shapes: JobShapes
    users: EmpiricalTable
    am: EmpiricalTable
    deadlines: DeadlineModel | None
    recurring: tuple[RecurringJob, ...]
    growth: float = 1.0
    arrival_scale: float = 1.0

    @property
    def input_stage(self) -> int | None:
        """Position of the first stage that reads the job's input (skips setup)."""
        for position, stage in enumerate(self.stages):
            if stage.stage not in BOOKKEEPING_STAGES:
                return position
        return None


def fit_queue(
    name: str,
    jobs: pd.DataFrame,
    tasks: pd.DataFrame,
    *,
    window: tuple[float, float],
    duration_family: str,
    profile: str,
    min_jobs_for_profile: int,
    ks_alpha: float,
    min_recurrences: int,
    max_empirical_points: int,
) -> tuple[QueueModel, list[dict[str, object]]]:
    """Fit one queue; returns the model and its goodness-of-fit rows."""
    stage_rows = _stage_order(tasks)
    stages = tuple(stage_rows["stage"])
    counts = task_counts(jobs, tasks, stages)
    recurring = fit_recurring(jobs, counts, min_recurrences=min_recurrences, window=window)
    recurring_keys = {r.key for r in recurring}
    adhoc = jobs[~jobs["recurring_key"].isin(recurring_keys)]
    arrivals = fit_arrivals(
        adhoc["submit_s"].to_numpy(dtype=float),
        window=window,
        profile=profile,
        min_jobs=min_jobs_for_profile,
    )
    report = []
    fit = arrivals.goodness_of_fit(adhoc["submit_s"].to_numpy(dtype=float), window[0])
    report.append(_report_row(name, "", "interarrival", f"poisson/{arrivals.profile}", fit))
    stage_models = []
    for stage, stage_index, priority in zip(
        stage_rows["stage"].to_numpy(),
        stage_rows["stage_index"].to_numpy(),
        stage_rows["priority"].to_numpy(),
        strict=True,
    ):
        mine = tasks[tasks["stage"] == stage]
        duration, fit = fit_duration(
            mine["duration_s"].to_numpy(dtype=float),
            family=duration_family,
            ks_alpha=ks_alpha,
            max_points=max_empirical_points,
        )
        report.append(_report_row(name, stage, "duration_s", duration.family, fit, duration))
        stage_models.append(
            StageModel(
                stage=str(stage),
                stage_index=int(stage_index),
                priority=int(priority),
                duration=duration,
                resources=EmpiricalTable.fit(mine, ("memory_mb", "vcores")),
            )
        )
    model = QueueModel(
        name=name,
        arrivals=arrivals,
        stages=tuple(stage_models),
        shapes=fit_shapes(counts.loc[adhoc["job_id"].to_numpy()]),
        users=EmpiricalTable.fit(adhoc, ("user",)),
        am=EmpiricalTable.fit(jobs, ("am_memory_mb", "am_vcores")),
        deadlines=_fit_deadlines(adhoc, max_empirical_points),
        recurring=recurring,
    )
    return model, report


def _stage_order(tasks: pd.DataFrame) -> pd.DataFrame:
    """One row per stage: its usual stage_index and priority, in stage order.

    If two stage names share an index across jobs, indices are renumbered in that
    order so every generated job has a consistent chain of stages.
    """
    if tasks.empty:
        return pd.DataFrame({"stage": [], "stage_index": [], "priority": []})
    rows = (
        tasks.groupby("stage", sort=True)
        .agg(
            stage_index=("stage_index", lambda s: s.mode().iloc[0]),
            priority=("priority", lambda s: s.mode().iloc[0]),
        )
        .reset_index()
        .sort_values(["stage_index", "stage"], kind="stable")
        .reset_index(drop=True)
    )
    if rows["stage_index"].duplicated().any():
        logger.info("stages share an index across jobs; renumbering %s", list(rows["stage"]))
        rows["stage_index"] = np.arange(len(rows))
    return rows


def _fit_deadlines(jobs: pd.DataFrame, max_points: int) -> DeadlineModel | None:
    relative = (jobs["deadline_s"] - jobs["submit_s"]).dropna().to_numpy(dtype=float)
    if relative.size == 0:
        return None
    return DeadlineModel(
        fraction=relative.size / len(jobs),
        relative=fit_empirical(relative, max_points=max_points),
    )


def _report_row(
    queue: str,
    stage: str,
    quantity: str,
    family: str,
    fit: GoodnessOfFit,
    duration: DurationDistribution | None = None,
) -> dict[str, object]:
    return {
        "queue": queue,
        "stage": stage,
        "quantity": quantity,
        "family": family,
        "n": fit.n,
        "ks_stat": fit.ks_stat,
        "p_value": fit.p_value,
        "mu": duration.mu if duration is not None else float("nan"),
        "sigma": duration.sigma if duration is not None else float("nan"),
    }


def stream(seed: int, queue: str, *path: int) -> np.random.Generator:
    """An independent random stream for one part of one queue's generation.

    Streams are keyed by the queue name (not its position), so adding or removing
    a tenant, or growing one, leaves the draws of the others unchanged.
    """
    key = zlib.crc32(queue.encode("utf-8"))
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(key, *path)))


_ARRIVALS, _SHAPES, _DURATIONS, _RESOURCES, _ATTRIBUTES, _RECURRING = range(6)


def generate_queue(
    model: QueueModel, *, seed: int, start_s: float, end_s: float
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Sample the queue's jobs and tasks submitted in [start_s, end_s).

    Data growth by a factor g (``model.growth``) means every stage processes g
    times the data: the stage that reads the input (map) gets g times as many
    tasks of unchanged duration (one task per input split), later stages
    (reduce) keep their task count and each task runs g times as long (each
    reduce gets g times the shuffle data), and setup/cleanup are unchanged.

    Returns a job table keyed by a ``local`` integer column and a task table
    referring to it (without ids); the caller assigns ids.
    """
    name = model.name
    attributes = stream(seed, name, _ATTRIBUTES)
    parts, count_parts = _adhoc_jobs(model, seed, start_s, end_s, attributes)
    for k, job in enumerate(model.recurring):
        rtimes = job.submit_times(stream(seed, name, _RECURRING, k), start_s, end_s)
        deadline = np.nan if job.relative_deadline_s is None else job.relative_deadline_s
        parts.append(
            pd.DataFrame(
                {
                    "submit_s": rtimes,
                    "user": job.user,
                    "name": job.name,
                    "deadline_s": rtimes + deadline,
                    "recurring_key": job.key,
                }
            )
        )
        count_parts.append(np.tile(np.asarray(job.task_counts, dtype=np.int64), (rtimes.size, 1)))
    jobs = pd.concat(parts, ignore_index=True)
    counts = np.vstack(count_parts).reshape(len(jobs), len(model.stages))
    jobs.insert(0, "queue", name)
    jobs.insert(0, "local", np.arange(len(jobs)))
    if model.am.rows:
        am = model.am.sample(attributes, len(jobs))
        jobs["am_memory_mb"], jobs["am_vcores"] = am["am_memory_mb"], am["am_vcores"]
    if model.growth != 1.0 and model.input_stage is not None:
        counts[:, model.input_stage] = grow_counts(
            counts[:, model.input_stage], model.growth, stream(seed, name, _SHAPES, 1)
        )
    return jobs, _tasks(model, seed, jobs["local"].to_numpy(), counts)


def _adhoc_jobs(
    model: QueueModel,
    seed: int,
    start_s: float,
    end_s: float,
    attributes: np.random.Generator,
) -> tuple[list[pd.DataFrame], list[np.ndarray]]:
    """The ad-hoc jobs' table (arrivals, users, deadlines) and task counts per stage, as the
    first of the parts `generate_queue` concatenates; users and deadlines draw on
    `attributes`."""
    name = model.name
    times = model.arrivals.sample(
        stream(seed, name, _ARRIVALS), start_s, end_s, scale=model.arrival_scale
    )
    n = times.size
    if n and not model.shapes.counts:
        raise ValidationError(f"queue {name!r} has an arrival rate but no job shapes")
    counts = model.shapes.sample(stream(seed, name, _SHAPES), n)
    users = model.users.sample(attributes, n)["user"] if model.users.rows else np.full(n, "unknown")
    deadlines = np.full(n, np.nan)
    if model.deadlines is not None and n:
        has = attributes.random(n) < model.deadlines.fraction
        deadlines[has] = times[has] + model.deadlines.relative.sample(attributes, int(has.sum()))
    table = pd.DataFrame(
        {
            "submit_s": times,
            "user": users,
            "name": "",
            "deadline_s": deadlines,
            "recurring_key": "",
        }
    )
    return [table], [counts]


def _tasks(model: QueueModel, seed: int, local_ids: np.ndarray, counts: np.ndarray) -> pd.DataFrame:
    """Every stage's tasks of the jobs `local_ids` (``counts[job, stage]`` of each), with
    durations (later stages lengthened by data growth) and resources sampled."""
    growth, grown_stage = model.growth, model.input_stage
    tasks = []
    for position, stage in enumerate(model.stages):
        per_job = counts[:, position]
        total = int(per_job.sum())
        if total == 0:
            continue
        durations = stage.duration.sample(stream(seed, model.name, _DURATIONS, position), total)
        if growth != 1.0 and grown_stage is not None and position > grown_stage:
            if stage.stage not in BOOKKEEPING_STAGES:
                durations = np.minimum(durations * growth, MAX_DURATION_S)
        resources = stage.resources.sample(stream(seed, model.name, _RESOURCES, position), total)
        starts = np.repeat(np.cumsum(per_job) - per_job, per_job)
        tasks.append(
            pd.DataFrame(
                {
                    "local": np.repeat(local_ids, per_job),
                    "number": np.arange(total) - starts,
                    "stage": stage.stage,
                    "stage_index": stage.stage_index,
                    "priority": stage.priority,
                    "duration_s": durations,
                    "memory_mb": resources["memory_mb"],
                    "vcores": resources["vcores"],
                }
            )
        )
    columns = ["local", "number", "stage", "stage_index", "priority", "duration_s"]
    return (
        pd.concat(tasks, ignore_index=True)
        if tasks
        else pd.DataFrame({c: [] for c in [*columns, "memory_mb", "vcores"]})
    )
