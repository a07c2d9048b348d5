"""The Capacity Scheduler's delay scheduling (``node-locality-delay``,
``rack-locality-additional-delay``, ``rack-locality-full-reset``), computed by hand on both
engines (``kernel/capacity_locality.py``; Hadoop's ``RegularContainerAllocator.canAssign``).

Four NodeManagers of 1024 MB named by host: h0 and h1 on rack /r1, h2 and h3 on /r2. Node i
heartbeats at 0.25 i + k s, so h0, h1, h2, h3 are offered at 0, 0.25, 0.5, 0.75, then 1.0,
... Maps of 1024 MB run 10 s; a map's end is reported at its node's next heartbeat. Queue
``a`` holds the whole cluster. A job "Z" submitted at 1000 s with a split on h0 keeps the
layout on (a trace none of whose split hosts is a node skips locality) and is left out of the
results. Each heartbeat offering a located map stage is one scheduling opportunity: "missed"
counts them, including the current one.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from predictor_cases import build_workload, starts_and_finishes
from samples import capacity_document
from test_capacity import engines_agree, random_jobs, random_tree

from whatif import Cluster
from whatif.predictor import SchedulerSettings, Simulation, predict
from whatif.predictor.capacity import capacity_allocation

HOSTS = "hosts=/r1/h0;/r1/h1;/r2/h2;/r2/h3"
SPEC = f"{HOSTS},memory-mb=1024,vcores=1"
#: Off-switch only after more than min(4 nodes, 40 + 40) missed opportunities.
LATE = {"node-locality-delay": 40, "rack-locality-additional-delay": 40}


def maps(*splits: str) -> list[tuple]:
    return [("map", 10.0, 1024.0, {"split_locations": s}) for s in splits]


def run(splits, props, engine, spec=SPEC, others=()):
    """Job A's maps (one per split) first in queue a, then `others`: per job, its sorted map
    starts and its finish time."""
    cluster = Cluster.parse(spec)
    jobs = [("A", "a", 0, maps(*splits)), *others, ("Z", "a", 1000, maps("/r1/h0"))]
    allocation = capacity_allocation(
        capacity_document({"root.queues": "a", "root.a.capacity": 100, **props}), cluster
    )
    schedule = predict(
        build_workload(jobs),
        allocation,
        cluster,
        settings=SchedulerSettings(am_heartbeat_interval_s=0.0),
        engine=engine,
    )
    return starts_and_finishes(schedule)


def test_a_node_local_request_waits_for_its_node(engine):
    """The split is on h2. h0 (missed 1) and h1 (2) are neither local nor allowed off-switch
    (2 <= 4): A is skipped; h2 (3) is its node: NODE_LOCAL at 0.5, reported at 11.5."""
    assert run(["/r2/h2"], LATE, engine) == {"A": ([0.5], 11.5)}


@pytest.mark.parametrize(("delay", "start"), [(1, 0.5), (3, 0.75)])
def test_rack_local_after_node_locality_delay_missed_opportunities(engine, delay, start):
    """The split's host hx is no node; its rack /r2 holds h2 and h3. RACK_LOCAL once missed >
    min(4, node-locality-delay): with 1, h2 (missed 3) takes it at 0.5; with 3, h2 (3 > 3
    fails) skips and h3 (4) takes it at 0.75."""
    props = {"node-locality-delay": delay, "rack-locality-additional-delay": 40}
    assert run(["/r2/hx"], props, engine) == {"A": ([start], start + 11.0)}


@pytest.mark.parametrize(("additional", "start"), [(2, 0.75), (3, 1.0), (100, 1.0)])
def test_off_switch_after_the_rack_locality_additional_delay(engine, additional, start):
    """The split is on rack /r9, which no node is on: only OFF_SWITCH, once missed >
    min(4 nodes, node-locality-delay 1 + rack-locality-additional-delay): 3 -> h3 (missed 4)
    at 0.75; 4, and 101 capped at the 4 nodes -> h0 again (5) at 1.0."""
    props = {"node-locality-delay": 1, "rack-locality-additional-delay": additional}
    assert run(["/r9/hx"], props, engine) == {"A": ([start], start + 11.0)}


def test_off_switch_by_the_locality_wait_factor_without_reset(engine):
    """Defaults (additional delay -1): OFF_SWITCH once min(4, pending x min((asks - 1) / 4,
    1)) < missed, asks = host hx, rack /r9 and ANY = 3, so the factor is 0.5. 4 pending: wait
    2, h2 (missed 3) takes one at 0.5. Off-switch does not reset the count: h3 (4 > 1.5),
    h0 (5 > 1) and h1 (6 > 0.5) take the others, one per heartbeat (the off-switch cap)."""
    got = run(["/r9/hx"] * 4, {}, engine)
    assert got == {"A": ([0.5, 0.75, 1.0, 1.25], 12.25)}


def test_a_node_local_container_resets_the_missed_opportunities(engine):
    """Both maps on h2. h2 (missed 3) runs m0 node-local and resets the count. h3 (1), h0 (2),
    h1 (3) skip A; h2 is full (no opportunity); h3 (4) skips; h0 (5 > 4) runs m1 off-switch at
    2.0."""
    assert run(["/r2/h2", "/r2/h2"], LATE, engine) == {"A": ([0.5, 2.0], 13.0)}


@pytest.mark.parametrize(("reset", "second"), [("true", 1.75), ("false", 0.75)])
def test_rack_locality_full_reset(engine, reset, second):
    """Both maps on rack /r2 (host hx), node-locality-delay 1. h2 (missed 3) runs m0
    rack-local. With the full reset (Hadoop's default) the count restarts: h3 (1), h0 (2),
    h1 (3) skip (h0, h1 are not on /r2), h3 (4 > 1) at 1.75; without it h3 (4) at 0.75."""
    props = {
        "node-locality-delay": 1,
        "rack-locality-additional-delay": 40,
        "rack-locality-full-reset": reset,
    }
    assert run(["/r2/hx", "/r2/hx"], props, engine) == {"A": ([0.5, second], second + 11.0)}


def test_node_local_containers_do_not_count_toward_the_off_switch_cap(engine):
    """Nodes of 2048 MB: both maps are on h0, which takes both node-local at 0 (only
    off-switch containers are capped at one per heartbeat); without split locations the
    second waits for h1 at 0.25."""
    spec = f"{HOSTS},memory-mb=2048,vcores=1"
    assert run(["/r1/h0", "/r1/h0"], {}, engine, spec) == {"A": ([0.0, 0.0], 11.0)}
    assert run(["", ""], {}, engine, spec) == {"A": ([0.0, 0.25], 11.25)}


def test_a_skipped_app_lets_the_next_one_take_the_node(engine):
    """A (split on h3) is skipped at h0, h1 and h2; B, asking for ANY only (no split
    locations), is never delayed and takes h0 at 0 off-switch; A's map runs on h3 at 0.75."""
    got = run(["/r2/h3"], LATE, engine, others=[("B", "a", 0, maps(""))])
    assert got == {"A": ([0.75], 11.75), "B": ([0.0], 11.0)}


def test_a_bare_split_host_is_on_its_nodes_rack(engine):
    """A .jhist split names a bare host: h2 is found on its node's rack /r2, as
    ``/r2/h2`` is (node-local at 0.5)."""
    assert run(["h2"], LATE, engine) == {"A": ([0.5], 11.5)}


def test_a_new_configuration_changes_the_delay_mid_run(engine):
    """As the rack-local test with node-locality-delay 3 (h3 at 0.75), but a configuration
    with 1 is put in force at 0.3, after h0 (missed 1) and h1 (2): h2 (3 > 1) takes the map
    rack-local at 0.5."""
    cluster = Cluster.parse(SPEC)

    def allocation(delay):
        props = {"root.queues": "a", "root.a.capacity": 100, "node-locality-delay": delay}
        props["rack-locality-additional-delay"] = 40
        return capacity_allocation(capacity_document(props), cluster)

    jobs = [("A", "a", 0, maps("/r2/hx")), ("Z", "a", 1000, maps("/r1/h0"))]
    sim = Simulation(
        build_workload(jobs),
        allocation(3),
        cluster,
        settings=SchedulerSettings(am_heartbeat_interval_s=0.0),
        engine=engine,
    )
    sim.advance_to(0.3)
    sim.reconfigure(allocation(1))
    attempts = sim.run_to_end().attempts
    assert attempts.loc[attempts["job_id"] == "A", "start_s"].tolist() == [0.5]


def test_the_fair_scheduler_on_yarn_places_as_before(engine):
    """Split locations on a cluster named by host change nothing under the Fair Scheduler:
    its requests are placed as ANY-only ones (locality is the Capacity Scheduler's here)."""
    from predictor_cases import flat_tree

    cluster = Cluster.parse(SPEC)
    got = [
        predict(
            build_workload([("A", "a", 0, maps(*splits))]),
            flat_tree(a={}),
            cluster,
            settings=SchedulerSettings(am_heartbeat_interval_s=0.0),
            engine=engine,
        )
        .attempts["start_s"]
        .tolist()
        for splits in (["/r2/h2", "/r2/h2"], ["", ""])
    ]
    assert got[0] == got[1]


def test_the_settings_are_read_from_the_file():
    """Hadoop's names and defaults (CapacitySchedulerConfiguration); an off-switch cap below
    1 is read as 1 (getOffSwitchPerHeartbeatLimit)."""
    cluster = Cluster.parse(SPEC)
    default = capacity_allocation(
        capacity_document({"root.queues": "a", "root.a.capacity": 100}), cluster
    )
    assert (default.node_locality_delay, default.rack_locality_additional_delay) == (40, -1)
    assert default.rack_locality_full_reset and default.max_offswitch_assignments == 1
    props = {
        "root.queues": "a",
        "root.a.capacity": 100,
        "node-locality-delay": 7,
        "rack-locality-additional-delay": 2,
        "rack-locality-full-reset": "false",
        "per-node-heartbeat.maximum-offswitch-assignments": 0,
    }
    got = capacity_allocation(capacity_document(props), cluster)
    assert (got.node_locality_delay, got.rack_locality_additional_delay) == (7, 2)
    assert not got.rack_locality_full_reset and got.max_offswitch_assignments == 1


SPLITS = ["", "/r1/h0", "/r2/h3", "h1", "/r1/h1,/r2/h2", "/r2/hx", "/r9/hx"]


@st.composite
def located_capacity_scenarios(draw):
    """A random Capacity Scheduler configuration with random locality settings, and maps
    with random split locations on four to five nodes named by host."""
    props, leaves = random_tree(
        draw,
        (
            ("user-limit-factor", [1, 2]),
            ("maximum-capacity", [100, 60]),
            ("ordering-policy", ["fifo", "fair"]),
        ),
    )
    props["node-locality-delay"] = draw(st.sampled_from([0, 1, 3, 40]))
    props["rack-locality-additional-delay"] = draw(st.sampled_from([-1, -1, 0, 2]))
    props["rack-locality-full-reset"] = draw(st.sampled_from(["true", "false"]))
    props["per-node-heartbeat.maximum-offswitch-assignments"] = draw(st.sampled_from([1, 2]))
    jobs = random_jobs(draw, leaves, SPLITS, jobs=6, last_submit=20)
    jobs.append(("job_z", leaves[0].removeprefix("root."), 500, maps("/r1/h0"), {"user": "u1"}))
    nodes = draw(st.sampled_from([HOSTS, f"{HOSTS};/r1/h4"]))
    cluster = Cluster.parse(f"{nodes},memory-mb={draw(st.sampled_from([2048, 4096]))},vcores=4")
    sched = SchedulerSettings(
        min_allocation_mb=512.0,
        increment_mb=512.0,
        am_heartbeat_interval_s=draw(st.sampled_from([0.0, 1.0])),
        slowstart_completed_maps=draw(st.sampled_from([0.05, 1.0])),
        preemption=draw(st.booleans()),
    )
    return build_workload(jobs), props, cluster, sched


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(located_capacity_scenarios())
def test_engines_agree_on_located_maps_under_the_capacity_scheduler(scenario):
    """Both engines give the same schedule with random split locations and locality settings
    (preemption on or off)."""
    workload, props, cluster, sched = scenario
    engines_agree(workload, capacity_allocation(capacity_document(props), cluster), cluster, sched)
