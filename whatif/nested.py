"""Nested scenario workloads: one generated week, scaled, so a larger scenario holds a smaller one.

Generating each scenario anew from the workload model draws other jobs for
every arrival scale, so a scenario with more work can, by the luck of its tail,
need a smaller cluster. Here the model generates once, at each queue's largest
arrival scale of all scenarios; each scenario then keeps an ad-hoc job when the
job's fixed uniform draw is below its arrival scale / the largest (thinning a
Poisson process keeps it Poisson at the lower rate), keeps every recurring job
(they keep their schedule, as `WorkloadModel.with_arrival_scale` says), and grows
each kept job by its growth as `WorkloadModel.with_growth` does: the input
stage gets ``n * growth`` tasks (rounded up or down by the job's fixed draw;
added tasks repeat the job's own), later stages run ``growth`` times as long,
setup and cleanup unchanged. With factors at least as large in every queue, a
scenario's jobs and tasks include the other's, none shorter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from whatif.workload import Workload
from whatif.workload_model import WorkloadModel
from whatif.workload_model.queue import BOOKKEEPING_STAGES

#: (growth, arrival scale) per queue.
Factors = Mapping[str, tuple[float, float]]


def nested_workloads(
    model: WorkloadModel,
    factors: Sequence[Factors],
    *,
    hours: float,
    seed: int,
    start_s: float = 0.0,
) -> list[Workload]:
    """One workload per entry of `factors` (queues not named keep factors 1), nested as above."""
    queues = list(model.queues_)
    top = {q: max([f.get(q, (1.0, 1.0))[1] for f in factors] + [1e-12]) for q in queues}
    pool_model = model
    for queue, scale in top.items():
        pool_model = pool_model.with_arrival_scale(scale, queue)
    pool = pool_model.generate(hours=hours, seed=seed, start_s=start_s)
    draws = np.random.default_rng([seed, 7]).random((pool.n_jobs, 2))
    jobs = pool.jobs
    queue_of = jobs["queue"].to_numpy()
    recurring = jobs["recurring_key"].fillna("").astype(str).to_numpy() != ""
    out = []
    for entry in factors:
        arrival = np.array([entry.get(q, (1.0, 1.0))[1] / top[q] for q in queue_of])
        keep = recurring | (draws[:, 0] < arrival)
        growth = {q: entry.get(q, (1.0, 1.0))[0] for q in queues}
        out.append(grow(pool.select_jobs(keep), growth, pool.jobs["job_id"], draws[:, 1]))
    return out


def grow(
    workload: Workload, growth: Mapping[str, float], job_ids: pd.Series, draws: np.ndarray
) -> Workload:
    """`workload` with each queue's jobs grown by `growth` (see the module); `draws[i]` is
    the fixed uniform of ``job_ids[i]``, which rounds its input stage's task count."""
    if all(g == 1.0 for g in growth.values()):
        return workload
    jobs, tasks = workload.jobs, workload.tasks
    factor = tasks["job_id"].map(jobs.set_index("job_id")["queue"].map(growth)).to_numpy(float)
    draw = tasks["job_id"].map(pd.Series(draws, index=job_ids.to_numpy())).to_numpy(float)
    work = ~tasks["stage"].isin(BOOKKEEPING_STAGES).to_numpy()
    first_stage = tasks[work].groupby("job_id", sort=False)["stage"].first()
    is_input = work & (tasks["stage"].to_numpy() == tasks["job_id"].map(first_stage).to_numpy())
    later = work & ~is_input
    tasks = tasks.assign(
        duration_s=np.where(later, tasks["duration_s"] * factor, tasks["duration_s"])
    )
    inputs = tasks[is_input]
    n = inputs.groupby("job_id", sort=False)["task_id"].transform("size").to_numpy()
    rank = inputs.groupby("job_id", sort=False).cumcount().to_numpy()
    target = n * factor[is_input]
    wanted = np.maximum(np.floor(target) + (draw[is_input] < target - np.floor(target)), 1)
    copies = np.ceil(np.maximum(wanted - rank, 0) / n).astype(int)  # rows per original task
    rows = np.repeat(np.arange(len(inputs)), copies)
    copy = np.concatenate([np.arange(c) for c in copies]) if len(copies) else np.array([], int)
    grown = inputs.iloc[rows].assign(
        task_id=[
            t if c == 0 else f"{t}_g{c}"
            for t, c in zip(inputs["task_id"].iloc[rows], copy, strict=True)
        ]
    )
    tasks = pd.concat([tasks[~is_input], grown]).sort_index(kind="stable")
    return Workload(jobs=jobs, tasks=tasks.reset_index(drop=True))


def per_queue_factors(
    queues: Sequence[str],
    growth: float,
    arrival_scale: float,
    per_queue: Sequence[tuple[str, float, float]],
) -> dict[str, tuple[float, float]]:
    """(growth, arrival scale) of every queue: the global factors times its per-queue entry."""
    named = {q: (g, a) for q, g, a in per_queue}
    return {
        q: (growth * named.get(q, (1.0, 1.0))[0], arrival_scale * named.get(q, (1.0, 1.0))[1])
        for q in queues
    }
