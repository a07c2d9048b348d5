"""Hadoop 3 claims on preempted resources (FSSchedulerNode.addContainersForPreemption,
FairScheduler.assignPreemptedContainers), hand-computed on both engines.

Three queues of weight 1: b runs B's four 100 s maps, then A (queue z) and C (queue c)
arrive at 5 with one map each. Only z may preempt: fair-share timeout 1 s, threshold 1, so
A (usage 0, fair share 4096 / 3) acts at the check at 6 and one container is taken from
B, its newest, killed at 6 + 2. The re-check delay is 10 + 2 + 4 heartbeats = 16 s.
Without claims the container freed at 8 went to C (queue c ranks before z by name, both
at usage 0); with them A, for which it was preempted, takes it first.
"""

import math

import pytest
from predictor_cases import build_workload, containers, flat_tree
from samples import benchmark_module

from whatif import Cluster
from whatif.allocation import effective_allocation
from whatif.predictor import SchedulerSettings, predict

INF = math.inf
ALLOC = flat_tree(
    b={}, c={}, z={"fair_share_preemption_timeout_s": 1.0, "fair_share_preemption_threshold": 1.0}
)
SETTINGS = SchedulerSettings(preemption=True, wait_time_before_kill_s=2.0)
ONE_NODE = Cluster.parse("nodes=1,memory-mb=4096,vcores=4")


def jobs(c_map_s=10.0, b_maps=(100.0, 100.0, 100.0, 100.0)):
    return build_workload(
        [
            ("B", "b", 0, [("map", d, 1024) for d in b_maps]),
            ("C", "c", 5, [("map", c_map_s, 1024)]),
            ("A", "z", 5, [("map", 10, 1024)]),
        ]
    )


def timeline(s):
    """Each attempt in attempt order as ``job task start-finish``, its state added unless it
    succeeded: ``B3 3-8 KILLED`` is B's map 3, killed at 8."""
    a = s.attempts
    return [
        f"{j}{int(t[-3:])} {st:g}-{fi:g}" + ("" if state == "SUCCEEDED" else f" {state}")
        for j, t, st, fi, state in zip(
            a["job_id"], a["task_id"], a["start_s"], a["finish_s"], a["state"], strict=True
        )
    ]


#: One node, whatever C's map takes: B's maps start at 0, 1, 2 and 3, the newest is killed
#: at 8 for A, and A takes the freed container at once.
CLAIM_ON_ONE_NODE = ["B0 0-100", "B1 1-101", "B2 2-102", "B3 3-8 KILLED", "A0 8-18"]


def test_the_freed_container_goes_to_the_app_it_was_preempted_for(engine):
    """One node heartbeating at whole seconds, one container per heartbeat: B's maps start
    at 0, 1, 2, 3; its newest is killed at 8 and the node's heartbeat at 8 gives it to A
    (before claims: C, 8 to 18, then A 19 to 29). A ends at 18, reported at 19, where C
    starts; C's end at 29 is reported at 30, where B's map re-runs."""
    s = predict(jobs(), ALLOC, ONE_NODE, settings=SETTINGS, engine=engine)
    assert timeline(s) == [*CLAIM_ON_ONE_NODE, "C0 19-29", "B3 30-130"]
    assert s.jobs.set_index("job_id")["finish_s"].to_dict() == {"B": 131.0, "C": 30.0, "A": 19.0}


def test_without_heartbeats_the_cluster_holds_the_claim(engine):
    """The instant model: every event is the cluster's update. B's maps all start at 0;
    the kill at 8 frees a container for A (before claims: C 8 to 18, A 18 to 28)."""
    s = predict(jobs(), ALLOC, containers(4), settings=SETTINGS, engine=engine)
    assert timeline(s) == [
        "B0 0-100",
        "B1 0-100",
        "B2 0-100",
        "B3 0-8 KILLED",
        "A0 8-18",
        "C0 18-28",
        "B3 28-128",
    ]


def test_one_preemption_serves_the_starvation_instead_of_two(engine):
    """C's map runs 30 s. Before claims C took the container freed at 8 and held it past
    A's re-check at 6 + 16 = 22, so a second of B's maps was killed for A (marked at 22,
    killed at 24): two preemptions for one starvation. With the claim A gets the first
    one, is no longer starved at its re-check, and nothing more is killed."""
    s = predict(jobs(c_map_s=30.0), ALLOC, ONE_NODE, settings=SETTINGS, engine=engine)
    assert s.attempts["preempted"].sum() == 1
    assert timeline(s) == [*CLAIM_ON_ONE_NODE, "C0 19-49", "B3 50-150"]


def test_a_claim_shrinks_with_any_container_the_app_gets_on_its_node(engine):
    """Two nodes of two containers (node 0 heartbeats at whole seconds, node 1 half a
    second later): B's maps go to nodes 0, 1, 0, 1; the newest (node 1) is marked at 6
    for A. B's 6.5 s map on node 1 ends at 7, reported at 7.5: that container is A's by
    its claim on node 1 (before claims: C's), which the claim is then used up by, so the
    victim's container, freed at 8, goes to C at node 1's heartbeat at 8.5."""
    two_nodes = Cluster.parse("nodes=2,memory-mb=2048,vcores=2")
    s = predict(
        jobs(b_maps=(100.0, 6.5, 100.0, 100.0)), ALLOC, two_nodes, settings=SETTINGS, engine=engine
    )
    assert timeline(s) == [
        "B0 0-100",
        "B1 0.5-7",
        "B2 1-101",
        "B3 1.5-8 KILLED",
        "A0 7.5-17.5",
        "C0 8.5-18.5",
        "B3 18.5-118.5",
    ]


@pytest.mark.parametrize("version", [1, 2])
def test_hadoop_1_and_2_have_no_claims(engine, version):
    """Only Hadoop 3 (2.9+) keeps claims: the older preemption hands what it frees to the
    queue most below its share (c before z by name)."""
    settings = SchedulerSettings(
        preemption=True,
        hadoop_version=version,
        wait_time_before_kill_s=0.0,
        preemption_interval_s=1.0,
    )
    s = predict(jobs(), ALLOC, containers(4), settings=settings, engine=engine)
    killed = s.attempts[s.attempts["preempted"]]
    assert len(killed) >= 1
    after = s.attempts[s.attempts["start_s"] == killed["finish_s"].min()]
    assert after["job_id"].iloc[0] == "C"


def test_engines_agree_on_the_contended_preemption_scenario():
    """The benchmarks' preemption scenario (traces/contended, its expert file, 5 nodes,
    Hadoop 3 preemption), where claims are taken and used all the time: both engines give
    the same schedule and every job finishes."""
    scenarios = benchmark_module("scenarios")
    sc = scenarios.preemption()
    alloc = effective_allocation(sc.expert, hadoop_version=3)
    workload = scenarios.contended()
    a, b = (
        predict(workload, alloc, sc.cluster, settings=sc.settings, engine=e)
        for e in ("numba", "reference")
    )
    assert a.attempts.equals(b.attempts) and a.jobs.equals(b.jobs)
    assert a.jobs["finish_s"].notna().all()
    assert a.attempts["preempted"].sum() > 0
