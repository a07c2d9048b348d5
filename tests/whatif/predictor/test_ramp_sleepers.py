"""The kernel's asleep ramping jobs (`kernel/ramp_lists.py`) after a reconfigure."""

import math

import numpy as np
import pandas as pd

from whatif import (
    Cluster,
    EffectiveAllocation,
    EffectiveQueue,
    ResourceLimit,
    Resources,
    Workload,
)
from whatif.predictor import SchedulerSettings, Simulation

NAN = math.nan


def _tree(q1_weight, q0_weight, q2_weight, capped):
    """root: q1 (fifo) and p (drf, at most 2 running apps) with leaves q0 (fifo) and q2,
    both at most 4096 MB / 4 vcores while `capped`."""
    cap = ResourceLimit(absolute=Resources(4096, 4) if capped else None)
    p = EffectiveQueue(
        "root.p",
        weight=2.0,
        max_running_apps=2,
        scheduling_policy="drf",
        children=(
            EffectiveQueue(
                "root.p.q0",
                weight=q0_weight,
                min_resources=Resources(0, 1),
                max_resources=cap,
                max_am_share=0.2,
                scheduling_policy="fifo",
                fair_share_preemption_timeout_s=5.0,
                fair_share_preemption_threshold=1.0,
                min_maps=2,
                max_reduces=3,
            ),
            EffectiveQueue(
                "root.p.q2",
                weight=q2_weight,
                min_resources=Resources(2048, 2),
                max_resources=cap,
                max_am_share=0.2,
                min_share_preemption_timeout_s=10.0,
                fair_share_preemption_timeout_s=20.0,
                max_reduces=3,
            ),
        ),
    )
    q1 = EffectiveQueue(
        "root.q1",
        weight=q1_weight,
        min_resources=Resources(4096, 1),
        max_am_share=-1.0,
        scheduling_policy="fifo",
        min_share_preemption_timeout_s=5.0,
    )
    root = EffectiveQueue("root", children=(q1, p), scheduling_policy="drf")
    return EffectiveAllocation(root=root, user_max_apps={"u1": 1})


def _workload():
    jobs = pd.DataFrame(
        {
            "job_id": ["job_00", "job_02", "job_01"],
            "queue": ["root.p.q2", "root.p.q0", "root.p.q2"],
            "submit_s": [8.0, 10.0, 13.0],
            "user": ["u1", "u2", "u2"],
            "am_memory_mb": [1024.0, NAN, NAN],
            "am_vcores": [1.0, 1.0, 1.0],
        }
    )
    tasks = [  # job, stage, duration, memory, vcores, observed start, finish, shuffle finish
        ("job_00", "reduce", 3.0, 1024.0, 1.0, NAN, NAN, NAN),
        ("job_02", "map", 37.0, 512.0, 1.0, NAN, NAN, NAN),
        ("job_02", "map", 40.0, 512.0, 1.0, NAN, NAN, NAN),
        ("job_02", "reduce", 3.0, 1024.0, 2.0, NAN, NAN, NAN),
        ("job_02", "reduce", 28.0, 2048.0, 1.0, NAN, NAN, NAN),
        ("job_01", "map", 27.0, 512.0, 1.0, NAN, NAN, NAN),
        ("job_01", "map", 22.0, 1024.0, 2.0, NAN, NAN, NAN),
        ("job_01", "reduce", 16.0, 2048.0, 1.0, 0.0, 16.0, 8.0),
        ("job_01", "reduce", 9.0, 512.0, 1.0, 0.0, 9.0, 4.5),
        ("job_01", "reduce", 38.0, 2048.0, 1.0, NAN, NAN, NAN),
    ]
    columns = ["job_id", "stage", "duration_s", "memory_mb", "vcores"]
    columns += ["observed_start_s", "observed_finish_s", "shuffle_finish_s"]
    frame = pd.DataFrame(tasks, columns=columns)
    frame.insert(1, "task_id", [f"{j}_{k:02d}" for k, j in enumerate(frame.job_id)])
    return Workload(jobs, frame)


def test_asleep_ramping_jobs_see_a_new_tree():
    """A reconfigure lifts the caps on p's leaves and reweighs them: the headroom of a job
    whose ramp-up asked for nothing (asleep) may grow, so the kernel's next ramp-up looks
    at every asleep job again, as the reference engine's looks at every ramping job."""
    cluster = Cluster.parse("nodes=3,memory-mb=4096,vcores=2")
    sched = SchedulerSettings(slowstart_completed_maps=0.0)
    runs = []
    for engine in ("numba", "reference"):
        sim = Simulation(
            _workload(), _tree(1.0, 1.0, 0.0, True), cluster, settings=sched, engine=engine
        )
        sim.advance_to(54.0)
        sim.reconfigure(_tree(5.0, 0.5, 1.0, False))
        runs.append(sim.run_to_end().attempts)
    pd.testing.assert_frame_equal(runs[0], runs[1])
    assert np.isfinite(runs[0]["finish_s"]).all()
