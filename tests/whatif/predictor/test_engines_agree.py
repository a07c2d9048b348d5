"""The numba kernel and the plain-Python reference give identical schedules."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from predictor_cases import AM_DELAYS, build_workload, containers, flat_tree, replayed, scenarios

from whatif import Resources
from whatif.predictor import SchedulerSettings, Simulation, predict


@replayed(40)
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


@replayed(120)
@given(scenarios(), st.sampled_from(AM_DELAYS), st.integers(0, 3))
def test_engines_agree_with_the_ams_reduce_preemption_delays(scenario, delays, seed):
    """Both engines agree with the AM's rules timed otherwise than by Hadoop's defaults
    (which `scenarios` keeps): an unconditional delay short enough to act in these
    workloads, or off, and a headroom rule that waits (each rule's `HANG` events). (120
    examples: with the reference ignoring the headroom delay, 100 fail and 60 do not.)"""
    workload, allocation, cluster, sched, noise = scenario
    unconditional, headroom = delays
    sched = dataclasses.replace(
        sched,
        reducer_unconditional_preempt_delay_s=unconditional,
        reducer_preempt_delay_s=headroom,
    )
    fast, slow = (
        predict(workload, allocation, cluster, settings=sched, engine=e, seed=seed, noise=noise)
        for e in ("numba", "reference")
    )
    pd.testing.assert_frame_equal(fast.attempts, slow.attempts)
    pd.testing.assert_frame_equal(fast.jobs, slow.jobs)


@replayed(20)
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


def _unmarked_bits(engine) -> np.ndarray:
    """The attempts whose bit is set in the compiled engine's `unmarked` bitset."""
    words = engine.state["unmarked"]
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")
    return np.flatnonzero(bits)


def test_growing_the_compiled_engine_mid_run_keeps_its_state():
    """When the kernel runs out of attempt rows the engine doubles its arrays; a run grown
    mid-way gives the schedule of one that never grows, and the bitset of unmarked task
    containers still names exactly the running task attempts not marked for preemption."""
    from whatif.predictor import kernel as K

    alloc = flat_tree(a={}, b={"fair_share_preemption_timeout_s": 10.0})
    jobs = [
        ("r", "a", 0, [("map", 100, 1024)] * 6),
        ("n", "a", 2, [("map", 100, 1024), ("map", 100, 2048)]),
        ("s", "b", 3, [("map", 10, 1024)] * 4),
    ]
    workload = build_workload(jobs)
    sched = SchedulerSettings(preemption=True, wait_time_before_kill_s=5.0)
    plain = predict(workload, alloc, containers(8), settings=sched, engine="numba")
    sim = Simulation(workload, alloc, containers(8), settings=sched, engine="numba")
    engine = sim._engine
    for pause in (5.0, 16.0, 30.0):  # before the check, with victims marked, after kills
        sim.advance_to(pause)
        rows = engine.state["ai"].shape[0]
        engine._grow()
        assert engine.state["ai"].shape[0] == 2 * rows
        # every attempt row the kernel may now fill has its bit
        assert 64 * engine.state["unmarked"].shape[0] >= engine.state["ai"].shape[0]
        n = int(engine.state["gi"][K.GI_N_ATT])
        ai = engine.state["ai"][:n]
        running = (ai[:, K.AI_STATE] == K.RUNNING) & (ai[:, K.AI_TASK] >= 0)
        marked = engine.state["lf"][ai[:, K.AI_LIVE], K.LF_MARK] >= 0.0  # by live row
        expected = np.flatnonzero(running & ~marked)
        np.testing.assert_array_equal(_unmarked_bits(engine), expected)
    grown = sim.run_to_end()
    assert grown.attempts["preempted"].any()  # the marks and kills went through the growth
    pd.testing.assert_frame_equal(grown.attempts, plain.attempts)
    pd.testing.assert_frame_equal(grown.jobs, plain.jobs)


def test_small_pages_turns_numpy_huge_page_advice_off_and_restores_it():
    from whatif.predictor.compiled import _small_pages

    advise = (getattr(np, "_core", None) or np.core).multiarray._set_madvise_hugepage
    before = advise(True)
    try:
        with _small_pages():
            assert advise(False) is False  # off inside (setting it again returns the old value)
        assert advise(True) is True  # restored on the way out
        with pytest.raises(RuntimeError), _small_pages():
            raise RuntimeError("allocation failed")
        assert advise(True) is True  # restored after an error too
    finally:
        advise(before)
