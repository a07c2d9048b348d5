"""The Fair Scheduler's delay scheduling on YARN (``yarn.scheduler.fair.locality.threshold
.node`` / ``.rack``), computed by hand on both engines (``kernel/fair_locality.py``;
Hadoop's FSAppAttempt.assignContainer and getAllowedLocalityLevel).

Four NodeManagers of 1024 MB named by host: h0 and h1 on rack /r1, h2 and h3 on /r2. Node i
heartbeats at 0.25 i + k s, so h0, h1, h2, h3 are offered at 0, 0.25, 0.5, 0.75, then 1.0,
... Maps of 1024 MB run 10 s; a map's end is reported at its node's next heartbeat. Queue
``a`` holds the whole cluster. A job "Z" submitted at 1000 s with a split on h0 keeps the
layout on (a trace none of whose split hosts is a node skips locality) and is left out of the
results. Each offer of a located map stage whose request fits the node's capability is one
scheduling opportunity ("opp" counts them, including the current one); a level relaxes when
the opportunities exceed 4 nodes x its threshold, and the count starts again at 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from predictor_cases import build_workload, flat_tree, starts_and_finishes

from whatif import Cluster
from whatif.allocation.effective import ResourceLimit, Resources
from whatif.predictor import SchedulerSettings, predict
from whatif.predictor.site import read_site

HOSTS = "hosts=/r1/h0;/r1/h1;/r2/h2;/r2/h3"
SPEC = f"{HOSTS},memory-mb=1024,vcores=1"


def maps(*splits: str, memory: float = 1024.0) -> list[tuple]:
    return [("map", 10.0, memory, {"split_locations": s}) for s in splits]


def settings(node: float, rack: float, **more) -> SchedulerSettings:
    more.setdefault("am_heartbeat_interval_s", 0.0)
    return SchedulerSettings(locality_threshold_node=node, locality_threshold_rack=rack, **more)


def run(splits, node, rack, engine, others=(), spec=SPEC, memory=1024.0, submit=0.0, **more):
    """Job A's maps (one per split, of `memory` MB, submitted at `submit`) first in queue
    a, then `others`: per job, its sorted map starts and its finish time."""
    cluster = Cluster.parse(spec)
    first = ("A", "a", submit, maps(*splits, memory=memory))
    jobs = [first, *others, ("Z", "a", 1000, maps("/r1/h0"))]
    schedule = predict(
        build_workload(jobs), flat_tree(a={}), cluster, settings=settings(node, rack, **more),
        engine=engine,
    )  # fmt: skip
    return starts_and_finishes(schedule)


def test_a_node_local_request_waits_for_its_node(engine):
    """The split is on h2; thresholds 1 (relax past 4 opportunities). h0 (opp 1: the level
    becomes NODE_LOCAL) and h1 (2) are not its node: A is passed over; h2 (3) is: NODE_LOCAL
    at 0.5, reported at 11.5. With the thresholds off (-1, Hadoop's default) it takes h0."""
    assert run(["/r2/h2"], 1.0, 1.0, engine) == {"A": ([0.5], 11.5)}
    assert run(["/r2/h2"], -1.0, -1.0, engine) == {"A": ([0.0], 11.0)}


@pytest.mark.parametrize(("node", "start"), [(0.5, 0.5), (0.75, 0.75)])
def test_rack_local_once_the_node_threshold_is_passed(engine, node, start):
    """The split's host hx is no node; its rack /r2 holds h2 and h3. With 0.5 (relax past 2):
    h2 (opp 3) relaxes to RACK_LOCAL and takes it at 0.5; with 0.75 (past 3) h2 (3) does not,
    h3 (4) does at 0.75."""
    assert run(["/r2/hx"], node, 1.0, engine) == {"A": ([start], start + 11.0)}


@pytest.mark.parametrize(("rack", "start"), [(0.0, 0.5), (0.25, 0.75), (0.5, 1.0)])
def test_off_switch_once_the_rack_threshold_is_passed(engine, rack, start):
    """The split is on rack /r9, which no node is on. Node threshold 0.25: h1 (opp 2 > 1)
    relaxes to RACK_LOCAL, the count starting again; then OFF_SWITCH past 4 x rack: with 0
    at h2 (1 > 0), with 0.25 at h3 (2 > 1), with 0.5 at h0 again (3 > 2, at 1.0)."""
    assert run(["/r9/hz"], 0.25, rack, engine) == {"A": ([start], start + 11.0)}


def test_an_app_passed_over_leaves_the_node_to_the_next(engine):
    """A waits for h2; B, with no split, is offered h0 after it and takes it at 0."""
    other = [("B", "a", 0, [("map", 10.0, 1024.0)])]
    assert run(["/r2/h2"], 1.0, 1.0, engine, others=other) == {
        "A": ([0.5], 11.5),
        "B": ([0.0], 11.0),
    }


def test_a_full_nodes_heartbeats_count_opportunities_too(engine):
    """FairScheduler.attemptScheduling asks the queues at every heartbeat, room or not. B's
    four 100 s maps fill the nodes from 0 to 0.75; A, submitted at 1.0 with a split on h2,
    counts an opportunity at every heartbeat of the full nodes (thresholds 0.5 and 1: RACK
    past 2, OFF past 4 more), so when h0 reports B's map at 101.0 A is long off-switch and
    takes it there, not h2 at 101.5."""
    other = [("B", "a", 0, [("map", 100.0, 1024.0)] * 4)]
    cluster = Cluster.parse(SPEC)
    jobs = [*other, ("A", "a", 1.0, maps("/r2/h2")), ("Z", "a", 1000, maps("/r1/h0"))]
    schedule = predict(
        build_workload(jobs), flat_tree(a={}), cluster, settings=settings(0.5, 1.0),
        engine=engine,
    )  # fmt: skip
    assert starts_and_finishes(schedule) == {
        "B": ([0.0, 0.25, 0.5, 0.75], 101.75),
        "A": ([101.0], 112.0),
    }


def test_a_node_local_container_brings_an_off_switch_level_back(engine):
    """A's first map (split on /r9) goes off-switch at h2 (thresholds 0.25 and 0: RACK at h1,
    opp 2 > 1, OFF at h2, 1 > 0); its second, split on h3, is node-local at 0.75, which sets
    the level back to NODE_LOCAL (FSAppAttempt.allocate) with the count as it was (1, at
    h3). Its third, on h2 (busy until 10.5), waits: at h0 (1.0, opp 2 > 1) the level is
    RACK_LOCAL again, no rack-local split there; at h1 (1.25, opp 1 > 0) OFF_SWITCH, and it
    takes h1."""
    assert run(["/r9/hz", "/r2/h3", "/r2/h2"], 0.25, 0.0, engine) == {
        "A": ([0.5, 0.75, 1.25], 12.25)
    }


def test_a_request_larger_than_the_node_counts_no_opportunity(engine):
    """On 512 MB nodes no 1024 MB map fits a node (hasContainerForNode): it never runs,
    and the prediction names the cause."""
    spec = f"{HOSTS},memory-mb=512,vcores=1"
    cluster = Cluster.parse(spec)
    jobs = [("A", "a", 0, maps("/r2/h2"))]
    schedule = predict(
        build_workload(jobs), flat_tree(a={}), cluster, settings=settings(0.0, 0.0), engine=engine
    )
    assert schedule.jobs["finish_s"].isna().all()
    assert "more than any node holds" in str(schedule.never_placed[0])


def _reserving(ratio: float, engine: str, late: int = 0) -> dict:
    """Nodes of 2048 MB, so a 2048 MB map reaches the reservation threshold (twice the
    1024 MB increment). B's four 100 s maps (no split) take half of each node from 0 to
    0.75; A (at 1.0) asks for one 2048 MB map split on h2 (thresholds 1: RACK past 4
    opportunities, OFF_SWITCH past 4 more); C (at 1.1) for three 1024 MB maps of 50 s; D
    (at 60) for `late` more."""
    others = [
        ("B", "a", 0, [("map", 100.0, 1024.0)] * 4),
        ("C", "a", 1.1, [("map", 50.0, 1024.0)] * 3),
    ]
    others += [("D", "a", 60.0, [("map", 50.0, 1024.0)] * late)] if late else []
    return run(
        ["/r2/h2"], 1.0, 1.0, engine, others=others, spec=f"{HOSTS},memory-mb=2048,vcores=2",
        memory=2048.0, submit=1.0, reservable_nodes=ratio,
    )  # fmt: skip


def test_a_located_map_that_does_not_fit_its_node_reserves_it(engine):
    """A is passed over at h0 (opp 1) and h1 (2); at h2 (1.5, opp 3) its NODE_LOCAL
    container does not fit the 1024 MB left, and A reserves h2 (FSAppAttempt.assignContainer:
    node-local, so no cap). C then takes h1 at 1.25, h3 at 1.75 and h0 at 2.0, not the
    reserved h2 at 1.5 as with reservations off (reservable-nodes 0). A, off-switch long
    before, takes h0 when it reports B's map at 101.0."""
    b = ([0.0, 0.25, 0.5, 0.75], 101.75)
    assert _reserving(0.05, engine) == {
        "B": b,
        "A": ([101.0], 112.0),
        "C": ([1.25, 1.75, 2.0], 53.0),
    }
    assert _reserving(0.0, engine) == {
        "B": b,
        "A": ([101.0], 112.0),
        "C": ([1.25, 1.5, 1.75], 52.75),
    }


def test_a_located_maps_reservations_are_capped_by_their_type(engine):
    """After h2 (node-local, 1.5), A relaxes to RACK_LOCAL at h0 (2.0, opp 5); at h3 (2.75)
    its rack-local container does not fit. With reservable-nodes 0.05 a rack of 2 nodes
    allows ceil(0.1) = 1 reservation, which h2 holds: A is passed over, and off-switch
    (ceil(4 x 0.05) = 1, held) it reserves nothing more. So D's third map takes h3 at 60.75.
    With 1.0, A reserves h3 (2 per rack) and, off-switch from h0 at 4.0 (opp 5), h0 and h1
    too (4 in all): D waits until the nodes report B's maps, and A takes h0 at 101.0."""
    assert _reserving(0.05, engine, late=3)["D"] == ([60.0, 60.25, 60.75], 111.75)
    everything = _reserving(1.0, engine, late=3)
    assert everything["D"] == ([101.25, 101.5, 101.75], 152.75)
    assert everything["A"] == ([101.0], 112.0)


def test_continuous_scheduling_turns_the_count_based_rule_off(engine):
    """With continuous scheduling Hadoop counts time instead (not modelled, and warned of):
    the prediction is the one without delay scheduling."""
    assert run(["/r2/h2"], 1.0, 1.0, engine, continuous_scheduling=True)["A"][0] == [0.0]


def test_the_site_file_thresholds_reach_the_settings(tmp_path):
    site = tmp_path / "yarn-site.xml"
    site.write_text(
        "<configuration>"
        "<property><name>yarn.scheduler.fair.locality.threshold.node</name><value>0.5</value></property>"
        "<property><name>yarn.scheduler.fair.locality.threshold.rack</name><value>2</value></property>"
        "</configuration>"
    )
    read = read_site(site, hadoop_version=3)
    assert read.settings.fair_locality == (0.5, 1.0)  # above 1: capped, as Hadoop does
    assert read.unmodelled == ()  # modelled now; continuous scheduling's delays are not


def _random_case(rng: np.random.Generator):
    """Two queues on six nodes over two racks, jobs of maps with splits on nodes, on hosts
    that are no node, or none, some with AMs and reduces, random thresholds and limits."""
    hosts = "hosts=" + ";".join(f"/r{i % 2}/h{i}" for i in range(6))
    cluster = Cluster.parse(f"{hosts},memory-mb=4096,vcores=4")
    places = ["/r0/h0", "/r1/h1", "/r0/h2", "/r1/h5", "/r0/hx", "/r7/hy", ""]
    jobs = []
    for i in range(int(rng.integers(3, 7))):
        n_maps = int(rng.integers(1, 6))
        tasks = [
            ("map", float(rng.integers(1, 30)), float(rng.choice([1024.0, 2048.0])),
             {"split_locations": ",".join(rng.choice(places, int(rng.integers(1, 3))))})
            for _ in range(n_maps)
        ]  # fmt: skip
        tasks += [("reduce", float(rng.integers(1, 20)), 1024.0)] * int(rng.integers(0, 3))
        am = {"am_memory_mb": 1024.0, "am_vcores": 1.0} if rng.integers(2) else {}
        jobs.append((f"j{i}", ["a", "b"][rng.integers(2)], float(rng.integers(0, 20)), tasks, am))
    jobs.append(("Z", "a", 500.0, maps("/r0/h0")))
    allocation = flat_tree(
        a={"max_resources": ResourceLimit(absolute=Resources(12288, 12))},
        b={"weight": float(rng.choice([1.0, 2.0]))},
    )
    sched = settings(
        float(rng.choice([0.0, 0.25, 0.5, 1.0, 2.0])),
        float(rng.choice([0.0, 0.5, 1.0])),
        preemption=bool(rng.integers(2)),
        am_heartbeat_interval_s=float(rng.choice([0.0, 1.0])),
        assign_multiple=bool(rng.integers(2)),
        hadoop_version=int(rng.choice([2, 3])),
        reservable_nodes=float(rng.choice([0.05, 0.4, 1.0])),
    )
    return build_workload(jobs), allocation, cluster, sched


def test_the_engines_agree_on_random_clusters_with_delay_scheduling():
    """Both engines give the same schedule on random inputs with delay scheduling on
    (reservations, preemption, assign-multiple, AMs and reduces included)."""
    rng = np.random.default_rng(20261129)
    for _ in range(30):
        workload, allocation, cluster, sched = _random_case(rng)
        fast = predict(workload, allocation, cluster, settings=sched, engine="numba")
        slow = predict(workload, allocation, cluster, settings=sched, engine="reference")
        pd.testing.assert_frame_equal(fast.attempts, slow.attempts)
        pd.testing.assert_frame_equal(fast.jobs, slow.jobs)
