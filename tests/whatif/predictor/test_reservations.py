"""Fair Scheduler node reservations (``kernel/reservations.py``, Hadoop 2/3): schedules
computed by hand on both engines, and the engines agree on random workloads of mixed
container sizes.

One node of 4096 MB heartbeating every second at 0, 1, 2, ...; one container per
heartbeat. App ``s`` (queue ``a``) has 1024 MB maps of 10 s from 0; app ``b`` (queue ``b``)
asks for 2048 MB (at least 2 x the 1024 MB increment: reservable) from 2.5.
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from predictor_cases import build_workload, flat_tree, replayed, scenarios

from whatif import Cluster
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, Simulation, predict
from whatif.predictor import kernel as K
from whatif.predictor.site import read_site

ONE_NODE = "nodes=1,memory-mb=4096,vcores=4"


def starts(jobs, engine, spec=ONE_NODE, tree=None, **settings):
    """{task id: start} of `jobs` (see `build_workload`), in queues a and b by default."""
    attempts = predict(
        build_workload(jobs),
        flat_tree(a={}, b={}) if tree is None else tree,
        Cluster.parse(spec),
        engine=engine,
        settings=SchedulerSettings(setup_cleanup_s=0.0, **settings),
    ).attempts
    return dict(zip(attempts["task_id"], attempts["start_s"], strict=True))


def big_and_small(big_mb=2048.0, n_small=4):
    return [
        ("s", "a", 0.0, [("map", 10.0, 1024.0)] * n_small),
        ("b", "b", 2.5, [("map", 10.0, big_mb)]),
    ]


def test_a_big_request_reserves_the_node_while_a_small_one_waits(engine):
    """Hadoop 2 (2.8 defaults). s's maps start at 0, 1, 2 (3072 MB used). At 3, b (queue b,
    usage 0) comes first; its 2048 MB do not fit the 1024 MB free: it reserves the node,
    and s's last map, which would fit, is not assigned. s's first map ends at 10 and is
    reported at 11: 2048 MB free, the reservation is fulfilled, b starts at 11. s's second
    map is reported at 12 and its last map starts then. Without reservations (0 reservable
    nodes) s's last map starts at 3 and b at 12, when two maps have been reported."""
    got = starts(big_and_small(), engine, hadoop_version=2)
    assert got["b_map_000"] == 11.0 and got["s_map_003"] == 12.0
    off = starts(big_and_small(), engine, hadoop_version=2, reservable_nodes=0.0)
    assert off["s_map_003"] == 3.0 and off["b_map_000"] == 12.0


def test_a_request_below_the_threshold_does_not_reserve(engine):
    """A 1536 MB request rounds up to 2048 with the default 1024 increment, so take a
    threshold of 3 x 1024: b's 2048 MB no longer reserve, s takes the node at 3."""
    got = starts(big_and_small(), engine, hadoop_version=2, reservation_threshold_multiple=3.0)
    assert got["s_map_003"] == 3.0 and got["b_map_000"] == 12.0


def test_hadoop3_reserves_only_for_a_starved_app(engine):
    """Queue b is fifo: b0 (from 2.2, one 1024 MB map of 30 s) is its earliest app and has
    the leaf's whole fair share, b (from 2.5, 2048 MB) none. At 3 queue b (usage 0) comes
    first and b0 takes the last 1024 MB. At 4 the node is full; b's 2048 MB do not fit.
    Hadoop 2 reserves the node for b: s's maps reported at 11 and 12 free 2048 MB, b starts
    at 12, s's last map at 13. Hadoop 3 reserves only for a starved app (isStarved: usage
    below its fair share), and b's usage 0 is not below 0: at 11 queue b (1024 MB) comes
    first, b is passed over, s's last map starts; b starts at 13 when two of s's maps are
    reported."""
    jobs = [
        ("s", "a", 0.0, [("map", 10.0, 1024.0)] * 4),
        ("b0", "b", 2.2, [("map", 30.0, 1024.0)]),
        ("b", "b", 2.5, [("map", 10.0, 2048.0)]),
    ]

    def run(version):
        tree = flat_tree(a={}, b={"scheduling_policy": "fifo"})
        return starts(jobs, engine, tree=tree, hadoop_version=version)

    v2 = run(2)
    assert v2["b0_map_000"] == 3.0 and v2["b_map_000"] == 12.0 and v2["s_map_003"] == 13.0
    v3 = run(3)
    assert v3["s_map_003"] == 11.0 and v3["b_map_000"] == 13.0
    # b in a fair leaf of its own has half the node as fair share: starved, it reserves
    got = starts(big_and_small(), engine, hadoop_version=3)
    assert got["b_map_000"] == 11.0 and got["s_map_003"] == 12.0


def test_reservable_nodes_caps_the_nodes_an_app_holds(engine):
    """Two nodes of 2048 MB (heartbeats at 0, 0.5, 1, ...): s's maps fill them by 1.5. b
    (two 2048 MB maps) arrives at 1.7 and reserves node 0 at 2. At 2.5, with the default
    0.05 an app may hold ceil(2 x 0.05) = 1 reserved node: b may not reserve node 1, which
    then serves s's fifth map at 11.5 (b is passed over, at its cap) and its sixth at
    12.5; b's maps start at 12 (node 0's reservation fulfilled) and 23. With 1.0 b
    reserves node 1 at 2.5 too: b's maps start at 12 and 12.5, s's at 23 and 23.5."""
    jobs = [
        ("s", "a", 0.0, [("map", 10.0, 1024.0)] * 6),
        ("b", "b", 1.7, [("map", 10.0, 2048.0)] * 2),
    ]
    spec = "nodes=2,memory-mb=2048,vcores=4"
    capped = starts(jobs, engine, spec, hadoop_version=2)
    assert [capped[f"s_map_00{i}"] for i in (4, 5)] == [11.5, 12.5]
    assert [capped[f"b_map_00{i}"] for i in (0, 1)] == [12.0, 23.0]
    free = starts(jobs, engine, spec, hadoop_version=2, reservable_nodes=1.0)
    assert [free[f"b_map_00{i}"] for i in (0, 1)] == [12.0, 12.5]
    assert [free[f"s_map_00{i}"] for i in (4, 5)] == [23.0, 23.5]


def test_the_reservation_is_dropped_when_its_request_is_gone(engine):
    """Two nodes of 2048 MB. s's maps: 3 s and 10 s on node 0 (at 0 and 1), 5 s each on node
    1 (at 0.5 and 1.5). b (one 2048 MB map) reserves node 0 at 2. Node 0 reports s's first
    map at 4: 1024 MB free, short of the booked 2048, and nobody else may use them. Node 1
    reports its two maps at 6.5 and 7.5 and b starts there at 7.5. b's reserved request is
    gone, so at node 0's heartbeat at 8 the reservation is dropped (isValidReservation)
    and c, arrived at 8, takes the free 1024 MB at once."""
    durations = [3.0, 5.0, 10.0, 5.0]
    jobs = [
        ("s", "a", 0.0, [("map", d, 1024.0) for d in durations]),
        ("b", "b", 1.7, [("map", 10.0, 2048.0)]),
        ("c", "a", 8.0, [("map", 1.0, 1024.0)]),
    ]
    got = starts(jobs, engine, "nodes=2,memory-mb=2048,vcores=4", hadoop_version=2)
    assert got["b_map_000"] == 7.5 and got["c_map_000"] == 8.0


def test_settings_and_site_file(tmp_path):
    with pytest.raises(ValidationError, match="reservable_nodes"):
        SchedulerSettings(reservable_nodes=1.5)
    with pytest.raises(ValidationError, match="reservation_threshold_multiple"):
        SchedulerSettings(reservation_threshold_multiple=-1.0)
    site = tmp_path / "yarn-site.xml"
    site.write_text(
        "<configuration>"
        "<property><name>yarn.scheduler.fair.reservable-nodes</name>"
        "<value>0.2</value></property>"
        "<property><name>yarn.scheduler.reservation-threshold.increment-multiple</name>"
        "<value>4</value></property>"
        "</configuration>"
    )
    settings = read_site(site, hadoop_version=3).settings
    assert settings.reservable_nodes == 0.2 and settings.reservation_threshold_multiple == 4.0


@replayed(25)
@given(scenarios(), st.sampled_from([0.0, 1.0, 2.0]), st.sampled_from([0.05, 0.5, 1.0]))
def test_engines_agree_with_reservations(scenario, multiple, ratio):
    """The engines agree on random workloads of 512, 1024 and 2048 MB containers with the
    reservation threshold and cap varied (0 and 1: every request may reserve)."""
    workload, allocation, cluster, sched, noise = scenario
    sched = dataclasses.replace(
        sched, reservation_threshold_multiple=multiple, reservable_nodes=ratio
    )
    fast = predict(workload, allocation, cluster, settings=sched, engine="numba", noise=noise)
    slow = predict(workload, allocation, cluster, settings=sched, engine="reference", noise=noise)
    pd.testing.assert_frame_equal(fast.attempts, slow.attempts)
    pd.testing.assert_frame_equal(fast.jobs, slow.jobs)


def test_reserved_nodes_rest_on_their_app_until_their_reservation_is_fulfilled():
    """The kernel's settling passes skip reserved nodes that want nothing: they rest on
    their app (`kernel/resting.py`). In the capped case above with reservable_nodes 1.0,
    b holds both nodes reserved from 2.5 while s's maps fill them; they stay parked until
    the first settling pass after a change, at 11 (s maps reported done, 1024 MB free on
    each: b's 2048 MB still do not fit), which finds them wanting nothing: both rest on
    b. Once b's maps have both started (12.5) neither is reserved or resting, and the
    schedule is the one above."""
    jobs = [
        ("s", "a", 0.0, [("map", 10.0, 1024.0)] * 6),
        ("b", "b", 1.7, [("map", 10.0, 2048.0)] * 2),
    ]
    settings = SchedulerSettings(setup_cleanup_s=0.0, hadoop_version=2, reservable_nodes=1.0)
    cluster = Cluster.parse("nodes=2,memory-mb=2048,vcores=4")
    sim = Simulation(
        build_workload(jobs), flat_tree(a={}, b={}), cluster, settings=settings, engine="numba"
    )
    sim.advance_to(10.5)
    assert sim._engine.state["nodei"][:2, K.NI_PARK].tolist() == [0, 1]  # parked
    sim.advance_to(11.25)
    nodei, ji, gi = (sim._engine.state[name] for name in ("nodei", "ji", "gi"))
    b = 1
    assert nodei[:2, K.NI_PARK].tolist() == [K.REST, K.REST]
    assert nodei[:2, K.NI_RES_APP].tolist() == [b, b]
    assert gi[K.GI_REST_HEAD] == b and ji[b, K.JI_REST_NEXT] == -1
    first = ji[b, K.JI_REST_HEAD]
    assert {first, nodei[first, K.NI_REST_NEXT]} == {0, 1}
    sim.advance_to(13.0)
    assert (nodei[:2, K.NI_PARK] != K.REST).all() and (nodei[:2, K.NI_RES_APP] == -1).all()
    attempts = sim.run_to_end().attempts
    start = dict(zip(attempts["task_id"], attempts["start_s"], strict=True))
    assert [start["b_map_000"], start["b_map_001"]] == [12.0, 12.5]
