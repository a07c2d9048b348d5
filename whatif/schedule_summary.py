"""A compact summary of one predicted schedule, for reports: usage over time, response times, waste.

A schedule of tens of thousands of attempts is reduced to a few small arrays
per queue, so it is cheap to send back from a worker process or Dask.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from whatif.allocation.effective import EffectiveAllocation
from whatif.cluster import Cluster
from whatif.errors import UnfinishedJobsError
from whatif.metrics import require_finished
from whatif.predictor import NoiseModel, SchedulerSettings, predict
from whatif.schedule import Schedule
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: Time bins of the usage timeline.
TIMELINE_BINS = 120


@dataclass(frozen=True, eq=False)
class ScheduleSummary:
    """Per-queue usage timeline, response times and preemption waste of one schedule.

    ``edges_s`` (bins + 1,) are the timeline's bin edges; ``usage[queue]`` (bins,)
    the queue's mean dominant share of the cluster in each bin (max of its memory
    and vcores shares). ``response_s[queue]`` are the finished jobs' response times
    (finish - submit), sorted. ``waste_gb_h[queue]`` is the memory-time of killed
    attempts in GB-hours and ``waste_fraction[queue]`` its share of the queue's
    memory-time; ``preempted[queue]`` counts preempted attempts.
    """

    edges_s: np.ndarray
    usage: dict[str, np.ndarray]
    response_s: dict[str, np.ndarray]
    waste_gb_h: dict[str, float]
    waste_fraction: dict[str, float]
    preempted: dict[str, int]


def summarize_schedule(
    schedule: Schedule, cluster: Cluster, *, bins: int = TIMELINE_BINS
) -> ScheduleSummary:
    """Reduce `schedule` on `cluster` to a `ScheduleSummary`."""
    jobs, attempts = schedule.jobs, schedule.attempts
    queue_of = dict(zip(jobs["job_id"].astype(str), jobs["queue"].astype(str), strict=True))
    queues = sorted(set(queue_of.values()))
    attempt_queue = attempts["job_id"].astype(str).map(queue_of).to_numpy()
    start = attempts["start_s"].to_numpy(dtype=float)
    finish = attempts["finish_s"].to_numpy(dtype=float)
    times = np.concatenate([jobs["submit_s"].to_numpy(dtype=float), start, finish])
    times = times[np.isfinite(times)]
    t0, t1 = (float(times.min()), float(times.max())) if times.size else (0.0, 1.0)
    t1 = max(t1, t0 + 1.0)
    finish = np.where(np.isfinite(finish), finish, t1)
    edges = np.linspace(t0, t1, bins + 1)
    memory = attempts["memory_mb"].to_numpy(dtype=float)
    vcores = attempts["vcores"].to_numpy(dtype=float)
    share = np.maximum(
        memory / cluster.memory_mb if cluster.memory_mb > 0 else 0.0,
        vcores / cluster.vcores if cluster.vcores > 0 else 0.0,
    )
    # Overlap of every attempt with every bin, (attempts, bins): a few million floats at most.
    overlap = np.clip(
        np.minimum(finish[:, None], edges[None, 1:]) - np.maximum(start[:, None], edges[None, :-1]),
        0.0,
        None,
    )
    width = np.diff(edges)
    seconds = np.clip(finish - start, 0.0, None)
    killed = attempts["state"].astype(str).to_numpy() == "KILLED"
    preempted = attempts["preempted"].to_numpy(dtype=bool)
    submit = jobs["submit_s"].to_numpy(dtype=float)
    done = jobs["finish_s"].to_numpy(dtype=float)
    job_queue = jobs["queue"].astype(str).to_numpy()
    usage, response, waste, waste_fraction, n_preempted = {}, {}, {}, {}, {}
    for queue in queues:
        mine = attempt_queue == queue
        usage[queue] = (share[mine, None] * overlap[mine]).sum(axis=0) / width
        times_q = done[job_queue == queue] - submit[job_queue == queue]
        response[queue] = np.sort(times_q[np.isfinite(times_q)])
        mb_s = memory[mine] * seconds[mine]
        lost = float(mb_s[killed[mine]].sum())
        waste[queue] = lost / 1024.0 / 3600.0
        total = float(mb_s.sum())
        waste_fraction[queue] = lost / total if total > 0 else 0.0
        n_preempted[queue] = int(preempted[mine].sum())
    return ScheduleSummary(edges, usage, response, waste, waste_fraction, n_preempted)


def summarize_run(
    task: tuple[
        Workload, EffectiveAllocation, Cluster, SchedulerSettings, NoiseModel | None, int, str
    ],
) -> ScheduleSummary:
    """Predict one schedule and summarize it: the unit of work sent to an executor.

    `task` is (workload, allocation, cluster, settings, noise, seed, engine). A job
    that never finishes raises `UnfinishedJobsError`: a report never summarizes
    response times that leave it out.
    """
    workload, allocation, cluster, settings, noise, seed, engine = task
    schedule = predict(
        workload, allocation, cluster, settings=settings, engine=engine, seed=seed, noise=noise
    )
    require_finished(schedule, what=f"predicted schedule on {cluster.describe()}")
    return summarize_schedule(schedule, cluster)


def summarize_finished(
    task: tuple[
        Workload, EffectiveAllocation, Cluster, SchedulerSettings, NoiseModel | None, int, str
    ],
) -> ScheduleSummary | None:
    """`summarize_run`, or None (with a warning naming the cluster and why) when jobs never
    finish: a report's details leave that scale out rather than the whole report."""
    try:
        return summarize_run(task)
    except UnfinishedJobsError as error:
        logger.warning("no schedule details on %s: %s", task[2].describe(), error)
        return None
