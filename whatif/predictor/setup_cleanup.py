"""Hadoop 1's job setup and cleanup tasks, inserted where a trace does not record them.

A Hadoop 1 JobTracker runs a setup task before a job's first map and a cleanup task
after its last reduce, each in a task slot (a map slot when one is free) for about a
second of JVM start and committer work. Traces that record them (jhist ``JOB_SETUP`` /
``JOB_CLEANUP``, Rumen ``SETUP`` / ``CLEANUP``, Hadoop 1 history) keep them as the
``setup`` and ``cleanup`` stages, which the predictor replays like any stage; for a
MapReduce job without them, `with_setup_cleanup` adds one task of each, of
``SchedulerSettings.setup_cleanup_s``. On YARN the MapReduce AM does this work in its
own container (``am_start_latency_s`` covers the setup), so nothing is added there.
"""

from __future__ import annotations

import pandas as pd

from whatif.workload import MAPREDUCE_PRIORITY, MAPREDUCE_STAGE_ORDER, Workload

#: Hadoop 1 setup and cleanup task run time (s): the Hadoop 1 history sample in
#: traces/hadoop1 (job_201311192236_3583) ran its setup in 1.19 s and cleanup in 1.22 s.
DEFAULT_SETUP_CLEANUP_S = 1.2


def with_setup_cleanup(workload: Workload, duration_s: float) -> Workload:
    """`workload` with a setup and a cleanup task of `duration_s` added to every job whose
    stages are all MapReduce stages and that lacks them (a setup needs a free stage index
    before the first stage); each asks what the job's first task asks. Unchanged (the
    same object) when no job needs one."""
    tasks = workload.tasks
    if tasks.empty:
        return workload
    per_job = (
        tasks.assign(
            _setup=tasks["stage"].eq("setup"),
            _cleanup=tasks["stage"].eq("cleanup"),
            _mapreduce=tasks["stage"].isin(list(MAPREDUCE_STAGE_ORDER)),
        )
        .groupby("job_id", sort=False)
        .agg(
            setup=("_setup", "any"),
            cleanup=("_cleanup", "any"),
            mapreduce=("_mapreduce", "all"),
            first=("stage_index", "min"),
            last=("stage_index", "max"),
            memory_mb=("memory_mb", "first"),
            vcores=("vcores", "first"),
        )
    )
    per_job = per_job[per_job["mapreduce"]]
    ids = set(tasks["task_id"].tolist()) if len(per_job) else set()
    rows = []
    for stage, needs, index in (
        ("setup", ~per_job["setup"] & (per_job["first"] >= 1), per_job["first"] - 1),
        ("cleanup", ~per_job["cleanup"], per_job["last"] + 1),
    ):
        chosen = per_job[needs]
        task_ids = [f"{job}:{stage}" for job in chosen.index]
        keep = [t not in ids for t in task_ids]
        rows.append(
            pd.DataFrame(
                {
                    "job_id": chosen.index.to_numpy()[keep],
                    "task_id": [t for t, k in zip(task_ids, keep, strict=True) if k],
                    "stage": stage,
                    "duration_s": float(duration_s),
                    "memory_mb": chosen["memory_mb"].to_numpy()[keep],
                    "vcores": chosen["vcores"].to_numpy()[keep],
                    "stage_index": index[needs].to_numpy()[keep].astype("int64"),
                    "priority": MAPREDUCE_PRIORITY[stage],
                }
            )
        )
    added = pd.concat(rows, ignore_index=True)
    if added.empty:
        return workload
    return Workload(jobs=workload.jobs, tasks=pd.concat([tasks, added], ignore_index=True))
