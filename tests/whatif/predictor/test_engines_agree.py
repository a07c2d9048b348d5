"""The numba kernel and the plain-Python reference give identical schedules."""

import pandas as pd
from conftest import build_workload, containers, flat_tree, scenarios
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from whatif import Resources
from whatif.predictor import SchedulerSettings, Simulation, predict


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow],
)
@given(scenarios(), st.integers(0, 3))
def test_reference_and_numba_give_identical_schedules(scenario, seed):
    """Both engines produce exactly the same attempts and job times on random inputs."""
    workload, allocation, cluster, sched, noise = scenario
    fast = predict(
        workload, allocation, cluster, settings=sched, engine="numba", seed=seed, noise=noise
    )
    slow = predict(
        workload, allocation, cluster, settings=sched, engine="reference", seed=seed, noise=noise
    )
    pd.testing.assert_frame_equal(fast.attempts, slow.attempts)
    pd.testing.assert_frame_equal(fast.jobs, slow.jobs)
    # predict drops the engine before unpacking; a kept Simulation gives the same schedule
    kept = Simulation(
        workload, allocation, cluster, settings=sched, engine="numba", seed=seed, noise=noise
    ).run_to_end()
    pd.testing.assert_frame_equal(fast.attempts, kept.attempts)
    pd.testing.assert_frame_equal(fast.jobs, kept.jobs)


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow],
)
@given(scenarios(), st.floats(0, 60))
def test_engines_agree_when_advanced_in_steps_and_reconfigured(scenario, pause):
    """Advancing to a time, reconfiguring and running on gives the same result in both engines."""
    workload, allocation, cluster, sched, noise = scenario
    results = []
    for engine in ("numba", "reference"):
        sim = Simulation(workload, allocation, cluster, settings=sched, engine=engine, noise=noise)
        sim.advance_to(pause)
        state = sim.state()
        sim.reconfigure(allocation)
        results.append((state, sim.run_to_end()))
    (s1, r1), (s2, r2) = results
    pd.testing.assert_frame_equal(s1.queues, s2.queues)
    pd.testing.assert_frame_equal(s1.attempts, s2.attempts)
    pd.testing.assert_frame_equal(r1.attempts, r2.attempts)


def test_a_new_tree_that_renumbers_the_leaves_mid_run_protects_the_right_queue():
    """`c` fills the cluster; a new tree lists `c` first (renumbering both leaves) and
    stops preemption from it, then `b` starves. Nothing may be killed, in either engine:
    the kernel's per-leaf bookkeeping of running containers must follow the new numbers,
    or it would take `c`'s containers as if they were `b`'s."""
    long_maps = [("map", 150.0, 1024.0)] * 4
    workload = build_workload(
        [(f"c{i}", "c", 0.0, long_maps) for i in range(3)]
        + [(f"b{i}", "b", 30.0, [("map", 20.0, 1024.0)] * 4) for i in range(4)]
    )
    preempting = dict(min_share_preemption_timeout_s=5.0, fair_share_preemption_timeout_s=10.0)
    before = flat_tree(b=dict(**preempting), c=dict(**preempting))
    after = flat_tree(
        c=dict(weight=3.0, allow_preemption_from=False, **preempting),
        b=dict(min_resources=Resources(6 * 1024.0, 6.0), **preempting),
    )
    sched = SchedulerSettings(preemption=True, hadoop_version=3, wait_time_before_kill_s=2.0)
    runs = []
    for engine in ("numba", "reference"):
        sim = Simulation(workload, before, containers(12), settings=sched, engine=engine)
        sim.advance_to(20.0)
        sim.reconfigure(after)
        runs.append(sim.run_to_end())
    fast, slow = runs
    pd.testing.assert_frame_equal(fast.attempts, slow.attempts)
    pd.testing.assert_frame_equal(fast.jobs, slow.jobs)
    assert not fast.attempts["preempted"].any()
    b_starts = fast.attempts.loc[fast.attempts["job_id"].str.startswith("b"), "start_s"]
    assert b_starts.min() >= 150.0  # b waited for c's containers to end
