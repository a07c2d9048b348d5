"""The kernel's asleep blocked jobs (`kernel/blocked_lists.py`): jobs whose reduces wait
for maps that cannot start, passed over by the AM's reduce preemption while they provably
would not act, give the same schedules as the reference engine's visit of every one."""

import numpy as np
import pandas as pd
import pytest

from whatif import Cluster, EffectiveAllocation, EffectiveQueue, Resources, Workload
from whatif.predictor import SchedulerSettings, Simulation
from whatif.predictor import kernel as K


def _workload(seed):
    """40 jobs without a recorded AM (8 maps of 1 GB, 3 reduces of 2 GB) to three queues,
    arriving faster than 6 nodes run them: reduces start early and wait for maps."""
    rng = np.random.default_rng(seed)
    n_jobs, maps, reduces = 40, 8, 3
    jobs = pd.DataFrame(
        {
            "job_id": [f"job_{j:02d}" for j in range(n_jobs)],
            "queue": [f"root.q{q}" for q in rng.integers(0, 3, n_jobs)],
            "submit_s": np.sort(rng.uniform(0.0, 200.0, n_jobs)).round(1),
            "user": "u",
        }
    )
    rows = []
    for j in range(n_jobs):
        for k in range(maps + reduces):
            is_map = k < maps
            rows.append(
                {
                    "job_id": f"job_{j:02d}",
                    "task_id": f"job_{j:02d}_{k:02d}",
                    "stage": "map" if is_map else "reduce",
                    "duration_s": round(float(rng.lognormal(3.0, 0.8)), 1),
                    "memory_mb": 1024.0 if is_map else 2048.0,
                    "vcores": 1.0,
                }
            )
    return Workload(jobs, pd.DataFrame(rows))


def _tree(weights):
    leaves = tuple(
        EffectiveQueue(
            f"root.q{i}",
            weight=w,
            min_resources=Resources(4096.0, 4.0) if i == 0 else Resources(0.0, 0.0),
            min_share_preemption_timeout_s=15.0,
            fair_share_preemption_timeout_s=30.0,
        )
        for i, w in enumerate(weights)
    )
    return EffectiveAllocation(root=EffectiveQueue("root", children=leaves))


CLUSTER = Cluster.parse("nodes=6,memory-mb=8192,vcores=8")


def _some_asleep(gi):
    return gi[K.GI_RCL_HEAD] >= 0


def run(engine, seed, sched, reconfigure_at=None, watch=_some_asleep):
    """The attempts, and the times (whole seconds) at which the kernel's global state
    `gi` met `watch` (by default, a blocked job asleep: the reference engine has none). With
    `reconfigure_at`, the tree is reweighed at that time; with -1, at the first time from
    50 s that met it."""
    sim = Simulation(
        _workload(seed), _tree((1.0, 2.0, 3.0)), CLUSTER, settings=sched, engine=engine
    )
    met = []
    for t in range(1, 400):
        sim.advance_to(float(t))
        if engine == "numba" and watch(sim._engine.state["gi"]):
            met.append(t)
        if t == reconfigure_at or (reconfigure_at == -1 and t >= 50 and met[-1:] == [t]):
            sim.reconfigure(_tree((3.0, 0.5, 1.0)))
            reconfigure_at = t
    return sim.run_to_end().attempts, met, reconfigure_at


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "delays", [(300.0, 0.0), (100.0, 0.0), (-1.0, 5.0)], ids=["default", "hang-100s", "wait-5s"]
)
@pytest.mark.parametrize("version", [2, 3])
def test_asleep_blocked_jobs_change_no_schedule(seed, delays, version):
    """The AM's rules (unconditional after a delay, headroom after a wait) with jobs that
    sleep while blocked: the kernel's schedule is the reference engine's."""
    sched = SchedulerSettings(
        preemption=True,
        hadoop_version=version,
        reducer_unconditional_preempt_delay_s=delays[0],
        reducer_preempt_delay_s=delays[1],
    )
    fast, asleep, _ = run("numba", seed, sched)
    slow, _, _ = run("reference", seed, sched)
    assert asleep
    pd.testing.assert_frame_equal(fast, slow)


@pytest.mark.parametrize("seed", range(3))
def test_asleep_blocked_jobs_see_a_new_tree(seed):
    """A reconfigure while jobs sleep reweighs the leaves, so each leaf's headroom moves:
    every asleep job wakes, and the schedules still agree."""
    sched = SchedulerSettings(preemption=True)
    fast, asleep, at = run("numba", seed, sched, reconfigure_at=-1)
    slow, _, _ = run("reference", seed, sched, reconfigure_at=at)
    assert at in asleep
    pd.testing.assert_frame_equal(fast, slow)
