"""The compiled engine's memory layout: app order trees sized to the live apps and grown
mid-run, replay rows for the reduces only, int32 job and stage rows, live attempts' rows
for the containers held at once; schedules as the reference engine's."""

import numpy as np
import pandas as pd
import pytest
from predictor_cases import build_workload, containers, flat_tree

from whatif.cluster import Cluster
from whatif.predictor import SchedulerSettings, Simulation, apptrees, predict
from whatif.predictor import kernel as K
from whatif.predictor.apptrees import grown_trees
from whatif.predictor.pack import pack

#: 60 short jobs in leaf a, one every 5 s, a few live at once; in b (fifo) a job holding
#: most of the cluster for 200 s and 10 more, all live at once: a takes its share back
#: by preemption. The trees start at one slot and grow as the leaves fill.
JOBS = (
    [(f"a{i:02d}", "a", 5 * i, [("map", 12, 1024)] * 2) for i in range(60)]
    + [("b-hog", "b", 0, [("map", 200, 1024)] * 40)]
    + [
        (f"b{i:02d}", "b", 30 * i, [("map", 20, 1024)] * 2 + [("reduce", 10, 1024)])
        for i in range(1, 11)
    ]
)
ALLOC = flat_tree(a={"fair_share_preemption_timeout_s": 5.0}, b={"scheduling_policy": "fifo"})
SETTINGS = SchedulerSettings(preemption=True, wait_time_before_kill_s=2.0)
CLUSTER = containers(24)


def test_trees_hold_the_live_apps_not_every_job_and_grow_mid_run(monkeypatch):
    workload = build_workload(JOBS)
    slow = predict(workload, ALLOC, CLUSTER, settings=SETTINGS, engine="reference")
    monkeypatch.setattr(apptrees, "MIN_SLOTS", 1)  # so that these few apps grow them
    sim = Simulation(workload, ALLOC, CLUSTER, settings=SETTINGS, engine="numba")
    qi = sim._engine.state["qi"]
    assert qi[1:, K.QI_TREE_P].tolist() == [1, 1]  # nothing live yet
    fast = sim.run_to_end()
    pd.testing.assert_frame_equal(fast.attempts, slow.attempts)
    pd.testing.assert_frame_equal(fast.jobs, slow.jobs)
    p = qi[1:, K.QI_TREE_P]
    # grown fourfold: to the 5-8 apps live at once in a (1, 4, 16), not to its 60 jobs
    assert p.tolist() == [16, 16]
    assert qi[1:, K.QI_LIVE].tolist() == [0, 0]  # every job finished
    assert len(sim._engine.state["tree"]) == K.N_VIEWS * 2 * qi[:, K.QI_TREE_P].sum()


def test_growing_the_trees_at_any_time_keeps_the_schedule():
    """Trees grown (every leaf to 4x its slots) with apps runnable, waiting and marked give
    the schedule of the run that grows them only when the kernel asks."""
    workload = build_workload(JOBS)
    plain = predict(workload, ALLOC, CLUSTER, settings=SETTINGS, engine="numba")
    sim = Simulation(workload, ALLOC, CLUSTER, settings=SETTINGS, engine="numba")
    s = sim._engine.state
    for pause in (5.0, 21.0, 47.0, 90.0):
        sim.advance_to(pause)
        need = 4 * s["qi"][:, K.QI_TREE_P]
        s["tree"], s["tnode"], s["slots"] = grown_trees(
            s["qi"], s["tree"], s["tnode"], s["slots"], need
        )
    grown = sim.run_to_end()
    assert grown.attempts["preempted"].any()
    pd.testing.assert_frame_equal(grown.attempts, plain.attempts)
    pd.testing.assert_frame_equal(grown.jobs, plain.jobs)


def test_replay_rows_are_kept_for_the_reduces_only():
    observed = {"observed_start_s": 0.0, "observed_finish_s": 50.0}
    reduce = ("reduce", 60, 1024, {"observed_start_s": 0.0, "observed_finish_s": 60.0})
    jobs = [
        ("m", "a", 0, [("map", 20, 1024)] * 3),
        ("r", "a", 1, [("map", 20, 1024, observed)] * 2 + [reduce] * 2),
        ("s", "a", 2, [("map", 20, 1024)] + [("reduce", 7, 1024)]),
    ]
    packed, _ = pack(build_workload(jobs), flat_tree(a={}), containers(4), SchedulerSettings())
    assert packed.replay.shape == (3, 3)
    assert packed.stage_replay_row.tolist() == [-1, -1, 0, -1, 2]
    rows = [packed.replay_row(task) for task in (5, 6, 8)]
    assert rows == [0, 1, 2]
    # observed: the part after the last map (60 - 50); not observed: the whole duration
    np.testing.assert_array_equal(packed.replay, [[0, 0, 10], [0, 0, 10], [7, 0, 0]])


def test_job_stage_and_task_rows_are_int32():
    engine = Simulation(build_workload(JOBS), ALLOC, CLUSTER, settings=SETTINGS)._engine
    for name in ("js", "ji", "ss", "si", "ts", "ti"):
        assert engine.state[name].dtype == np.int32, name


@pytest.mark.parametrize(
    ("cluster", "min_attempts"),
    [(CLUSTER, 200), (Cluster.parse("nodes=3,memory-mb=8192,vcores=8"), 150)],
    ids=["one-pool", "heartbeats"],
)
def test_live_rows_are_as_many_as_the_containers_held_at_once(cluster, min_attempts):
    """Attempts take a live row at start and give it back at release (`kernel.live_rows`):
    with preemption's kills among the releases (and, with heartbeats, attempts that ended
    but wait for their node's report), the rows handed out are the most containers held
    at once (24, plus row 0 of the ended ones), not one per attempt, every one is free
    again at the end, and each ended attempt points at row 0."""
    workload = build_workload(JOBS)
    slow = predict(workload, ALLOC, cluster, settings=SETTINGS, engine="reference")
    sim = Simulation(workload, ALLOC, cluster, settings=SETTINGS, engine="numba")
    state = sim._engine.state
    fast = sim.run_to_end()
    pd.testing.assert_frame_equal(fast.attempts, slow.attempts)
    assert fast.attempts["preempted"].any()
    gi = state["gi"]
    assert len(fast.attempts) > min_attempts
    assert gi[K.GI_LIVE_TOP] == 1 + 24
    assert gi[K.GI_LIVE_FREE] == 24
    assert sorted(state["lfree"][:24]) == list(range(1, 25))
    n = int(gi[K.GI_N_ATT])
    assert (state["ai"][:n, K.AI_LIVE] == 0).all()
