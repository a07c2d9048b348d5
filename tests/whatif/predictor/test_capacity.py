"""The Capacity Scheduler mode, computed by hand on both engines (docs/capacity-scheduler.md,
"Predicting"). Maps of 10 s and 1024 MB on clusters of 1024 MB containers; without nodes
the instant model (everything the rules allow is allocated at every event)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from predictor_cases import build_workload
from samples import capacity_document

from whatif import Cluster
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, predict
from whatif.predictor.capacity import capacity_allocation


def config(cluster: Cluster, props: dict[str, object]):
    """The predictor's view of `document(props)` on `cluster`."""
    return capacity_allocation(capacity_document(props), cluster)


def random_tree(draw, leaf_settings) -> tuple[dict[str, object], list[str]]:
    """Two or three leaves, maybe under a parent, each leaf's settings drawn from
    `leaf_settings` ((name, values) pairs; a None value leaves it unset): the properties
    and the leaves' paths."""
    nested = draw(st.booleans())
    shares = draw(st.sampled_from([(50, 50), (70, 30), (100, 0)]))
    props: dict[str, object] = {
        "root.queues": "a,p" if nested else "a,b",
        "root.a.capacity": shares[0],
    }
    leaves = ["root.a", "root.p.b", "root.p.c"] if nested else ["root.a", "root.b"]
    if nested:
        props.update({"root.p.capacity": shares[1], "root.p.queues": "b,c"})
        props.update({"root.p.b.capacity": 40, "root.p.c.capacity": 60})
        props["root.p.maximum-capacity"] = draw(st.sampled_from([100, 60]))
    else:
        props["root.b.capacity"] = shares[1]
    for leaf in leaves:
        for name, values in leaf_settings:
            value = draw(st.sampled_from(values))
            if value is not None:
                props[f"{leaf}.{name}"] = value
    return props, leaves


def two_queues():
    """root.a and root.b at 50 % each, maximum 100 %."""
    return {"root.queues": "a,b", "root.a.capacity": 50, "root.b.capacity": 50}


def run(jobs, props, engine, spec="memory-mb=8192,vcores=8", **settings):
    """Per job (in order): sorted attempt starts, and the job's finish time."""
    cluster = Cluster.parse(spec)
    settings.setdefault("am_heartbeat_interval_s", 0.0)
    schedule = predict(
        build_workload(jobs),
        config(cluster, props),
        cluster,
        settings=SchedulerSettings(**settings),
        engine=engine,
    )
    a, j = schedule.attempts, schedule.jobs.set_index("job_id")
    return {
        job[0]: (
            sorted(a.loc[a["job_id"] == job[0], "start_s"].tolist()),
            j.loc[job[0], "finish_s"],
        )
        for job in jobs
    }


def job(name, queue, submit, n, user="u", **extra):
    return (name, queue, submit, [("map", 10.0, 1024.0)] * n, {"user": user, **extra})


def test_one_user_stops_one_container_past_the_guarantee(engine):
    """user-limit-factor 1 (default): a user may use its queue's guarantee (4 of 8) and,
    being not above it, one container more; the rest waits though the cluster is idle."""
    got = run([job("j", "a", 0, 8)], two_queues(), engine)
    assert got["j"] == ([0.0] * 5 + [10.0] * 3, 20.0)


def test_elasticity_up_to_maximum_capacity(engine):
    """user-limit-factor 2: the queue grows past its guarantee into the idle half."""
    props = {**two_queues(), "root.a.user-limit-factor": 2}
    got = run([job("j", "a", 0, 10)], props, engine)
    assert got["j"] == ([0.0] * 8 + [10.0] * 2, 20.0)


def test_maximum_capacity_caps_elasticity(engine):
    """maximum-capacity 75: 6 of 8 containers, however idle the rest."""
    props = {
        **two_queues(),
        "root.a.user-limit-factor": 2,
        "root.a.maximum-capacity": 75,
    }
    got = run([job("j", "a", 0, 8)], props, engine)
    assert got["j"] == ([0.0] * 6 + [10.0] * 2, 20.0)


def test_queues_take_turns_by_used_capacity(engine):
    """a holds the cluster (elastic); b's job waits for containers to free (no preemption);
    at 10 the two queues, equally used relative to equal guarantees, alternate (a first:
    document order breaks the tie) until b has all it asks for."""
    props = {**two_queues(), "root.a.user-limit-factor": 2}
    got = run([job("ja", "a", 0, 16), job("jb", "b", 1, 4)], props, engine)
    assert got["ja"] == ([0.0] * 8 + [10.0] * 4 + [20.0] * 4, 30.0)
    assert got["jb"] == ([10.0] * 4, 20.0)


def _freed_one_a_second(policy, engine):
    """c (40 %, elastic) holds the 10-container cluster with maps ending at 20, 21, ...,
    29; a and b (30 % each, b at priority 1) each ask for three maps of 10 s from 1: who
    gets each container as it frees, under the parent ordering `policy`."""
    props = {
        "root.queues": "a,b,c",
        "root.ordering-policy": policy,
        "root.a.capacity": 30,
        "root.b.capacity": 30,
        "root.b.priority": 1,
        "root.c.capacity": 40,
        "root.c.user-limit-factor": 10,
    }
    held = ("jc", "c", 0, [("map", 20.0 + i, 1024.0) for i in range(10)], {"user": "uc"})
    return run([held, job("ja", "a", 1, 3, user="ua"), job("jb", "b", 1, 3, user="ub")],
               props, engine, spec="memory-mb=10240,vcores=10")  # fmt: skip


def test_queues_take_turns_by_used_capacity_whatever_their_priority(engine):
    """utilization (the default): priorities order nothing; a and b alternate as the
    containers free (a first at the tie: the larger capacity, then document order)."""
    got = _freed_one_a_second("utilization", engine)
    assert got["ja"] == ([20.0, 22.0, 24.0], 34.0)
    assert got["jb"] == ([21.0, 23.0, 25.0], 35.0)


def test_priority_utilization_serves_the_higher_priority_while_both_are_under(engine):
    """priority-utilization (PriorityUtilizationQueueOrderingPolicy): both under their
    guarantee, b (priority 1) gets every container until it reaches its guarantee (3 of
    3: used capacity 1); then a, under its guarantee, goes before b, at or over it."""
    got = _freed_one_a_second("priority-utilization", engine)
    assert got["jb"] == ([20.0, 21.0, 22.0], 32.0)
    assert got["ja"] == ([23.0, 24.0, 25.0], 35.0)


@pytest.mark.parametrize(("weight", "first", "second"), [(2, 8, 0), (1, 5, 3)])
def test_a_user_weight_scales_its_user_limit(engine, weight, first, second):
    """minimum-user-limit-percent 50 (so weights up to 100 / 50 = 2 are allowed), 8
    containers: the leaf's user limit is max(ceil((active used + m) / summed weights),
    50 % of 8192) = 4096 throughout; u1's own is that times its weight. Weight 2: 8192,
    and u1's job (first in fifo) takes the whole cluster; weight 1: 4096, one container
    past it (5), and u2's job takes the other 3 (UsersManager)."""
    props = {
        "root.queues": "a",
        "root.a.capacity": 100,
        "root.a.minimum-user-limit-percent": 50,
        "root.a.user-settings.u1.weight": weight,
    }
    got = run([job("j1", "a", 0, 8, user="u1"), job("j2", "a", 0, 8, user="u2")], props, engine)
    assert got["j1"][0] == [0.0] * first + [10.0] * (8 - first)
    assert got["j2"][0] == [0.0] * second + [10.0] * (8 - second)


@pytest.mark.parametrize(("size_based", "big", "small"), [(True, 5, 3), (False, 4, 4)])
def test_size_based_weight_in_a_fair_leaf(engine, size_based, big, small):
    """FairOrderingPolicy with enable-size-based-weight: an app's magnitude is its used
    memory / log2(1 + its demand, used + pending). j1 (200 maps) holds the 8 containers
    until 10; then j1 (demand 196,608 MB: weight 17.58) and j2 (8 maps, 8,192 MB: 13.0)
    share the 8 freed: j1 first (tie at 0, submitted first), then the smaller magnitude
    each time: j1 5, j2 3; without size-based weight they alternate, 4 and 4."""
    props = {
        "root.queues": "a",
        "root.a.capacity": 100,
        "root.a.user-limit-factor": -1,
        "root.a.ordering-policy": "fair",
        "root.a.ordering-policy.fair.enable-size-based-weight": str(size_based).lower(),
    }
    got = run([job("j1", "a", 0, 200, user="u1"), job("j2", "a", 1, 8, user="u2")], props, engine)
    assert got["j1"][0].count(10.0) == big
    assert got["j2"][0].count(10.0) == small


def test_fifo_inside_a_leaf(engine):
    """fifo (default): the first app takes every container it asks for; the second waits."""
    props = {"root.queues": "a", "root.a.capacity": 100}
    got = run(
        [job("j1", "a", 0, 8), job("j2", "a", 5, 4)], props, engine, "memory-mb=4096,vcores=4"
    )
    assert got["j1"] == ([0.0] * 4 + [10.0] * 4, 20.0)
    assert got["j2"] == ([20.0] * 4, 30.0)


def test_fair_ordering_inside_a_leaf(engine):
    """fair: the app using less memory goes first (ties: the earlier submitted)."""
    props = {"root.queues": "a", "root.a.capacity": 100, "root.a.ordering-policy": "fair"}
    got = run(
        [job("j1", "a", 0, 8), job("j2", "a", 5, 4)], props, engine, "memory-mb=4096,vcores=4"
    )
    assert got["j1"] == ([0.0] * 4 + [10.0] * 2 + [20.0] * 2, 30.0)
    assert got["j2"] == ([10.0] * 2 + [20.0] * 2, 30.0)


def test_minimum_user_limit_percent_shares_the_queue_between_users(engine):
    """minimum-user-limit-percent 50, two users: the first user is capped at half of the
    queue (4096) and stops one container past it; the second gets the rest. At 100 (the
    default) the first user could take all 8."""
    props = {"root.queues": "a", "root.a.capacity": 100, "root.a.minimum-user-limit-percent": 50}
    jobs = [job("j1", "a", 0, 8, user="alice"), job("j2", "a", 0, 8, user="bob")]
    got = run(jobs, props, engine)
    assert got["j1"][0] == [0.0] * 5 + [10.0] * 3
    assert got["j2"][0] == [0.0] * 3 + [10.0] * 5
    del props["root.a.minimum-user-limit-percent"]
    got = run(jobs, props, engine)
    assert got["j1"][0] == [0.0] * 8


def test_am_limit(engine):
    """maximum-am-resource-percent 0.25 of 8192 MB: two 1024 MB AMs at once; the third
    app's AM starts when an app ends (at 10, its map then runs 10-20). At the default 0.1
    (limit 1024 MB, rounded up) one AM at a time."""
    props = {"root.queues": "a", "root.a.capacity": 100, "root.a.maximum-am-resource-percent": 0.25}
    jobs = [job(f"j{i}", "a", 0, 1, user=f"u{i}", am_memory_mb=1024.0) for i in range(3)]
    got = run(jobs, props, engine)
    assert [got[f"j{i}"] for i in range(3)] == [
        ([0.0, 0.0], 10.0),
        ([0.0, 0.0], 10.0),
        ([10.0, 10.0], 20.0),
    ]
    del props["root.a.maximum-am-resource-percent"]
    got = run(jobs, props, engine)
    assert [got[f"j{i}"][1] for i in range(3)] == [10.0, 20.0, 30.0]


def test_maximum_applications_rejects_at_submission(engine):
    """maximum-applications 2: the third app submitted while two are in the queue is
    rejected (no attempt, no finish); one submitted after they ended is accepted."""
    props = {"root.queues": "a", "root.a.capacity": 100, "root.a.maximum-applications": 2}
    jobs = [job("j1", "a", 0, 1), job("j2", "a", 0, 1), job("j3", "a", 1, 1), job("j4", "a", 50, 1)]
    got = run(jobs, props, engine)
    assert got["j1"] == ([0.0], 10.0) and got["j2"] == ([0.0], 10.0)
    assert got["j3"][0] == [] and math.isnan(got["j3"][1])
    assert got["j4"] == ([50.0], 60.0)


@pytest.mark.parametrize(
    ("props", "starts"),
    [
        ({}, [0.0, 0.5, 1.0, 1.5]),
        ({"per-node-heartbeat.maximum-offswitch-assignments": 2}, [0.0, 0.0, 0.5, 0.5]),
        (
            {
                "per-node-heartbeat.maximum-offswitch-assignments": 2,
                "per-node-heartbeat.multiple-assignments-enabled": "false",
            },
            [0.0, 0.5, 1.0, 1.5],
        ),
    ],
)
def test_one_off_switch_container_per_node_heartbeat(engine, props, starts):
    """Node i of 2 heartbeats at 0.5 i + k s; one (off-switch) container per heartbeat by
    default, as many as maximum-offswitch-assignments with multiple assignments."""
    props = {"root.queues": "a", "root.a.capacity": 100, "root.a.user-limit-factor": 1, **props}
    got = run([job("j", "a", 0, 4)], props, engine, "nodes=2,memory-mb=2048,vcores=1")
    assert got["j"][0] == starts


def test_undeclared_queue_is_refused():
    cluster = Cluster.parse("memory-mb=8192,vcores=8")
    with pytest.raises(ValidationError, match="undeclared"):
        predict(build_workload([job("j", "zz", 0, 1)]), config(cluster, two_queues()), cluster)


@st.composite
def capacity_scenarios(draw):
    """A random Capacity Scheduler configuration (two or three leaves, maybe under a parent),
    workload, cluster and settings."""
    props, leaves = random_tree(
        draw,
        (
            ("user-limit-factor", [1, 2, -1]),
            ("minimum-user-limit-percent", [100, 50]),
            ("maximum-am-resource-percent", [0.1, 0.5]),
            ("maximum-capacity", [100, 100, 60]),
            ("maximum-applications", [None, 2]),
            ("max-parallel-apps", [None, None, 1]),
            ("ordering-policy", ["fifo", "fair"]),
            ("ordering-policy.fair.enable-size-based-weight", [None, "true"]),
            ("priority", [None, 0, 2]),
            ("user-settings.u1.weight", [None, 0.5]),
        ),
    )
    props["root.ordering-policy"] = draw(st.sampled_from(["utilization", "priority-utilization"]))
    props["per-node-heartbeat.maximum-offswitch-assignments"] = draw(st.sampled_from([1, 3]))
    return build_workload(random_jobs(draw, leaves)), props, *random_cluster(draw)


def random_jobs(draw, leaves, splits=None, jobs=7, last_submit=30):
    """Up to `jobs` jobs in random `leaves`, one to six maps (each with split locations
    drawn from `splits`, if given) and up to two reduces, two users, with or without an AM."""
    drawn = []
    for j in range(draw(st.integers(1, jobs))):
        tasks = []
        for stage in ["map"] * draw(st.integers(1, 6)) + ["reduce"] * draw(st.integers(0, 2)):
            task = (
                stage,
                float(draw(st.integers(0, 40))),
                float(draw(st.sampled_from([512, 1024, 2048]))),
            )
            if splits is not None:
                located = draw(st.sampled_from(splits)) if stage == "map" else ""
                task = (*task, {"split_locations": located})
            tasks.append(task)
        extra = {
            "user": draw(st.sampled_from(["u1", "u2"])),
            "am_memory_mb": draw(st.sampled_from([math.nan, 1024.0])),
        }
        queue = draw(st.sampled_from(leaves)).removeprefix("root.")
        drawn.append((f"job_{j:02d}", queue, draw(st.integers(0, last_submit)), tasks, extra))
    return drawn


def engines_agree(workload, allocation, cluster, sched) -> None:
    """The numba and reference engines give the same attempts and jobs."""
    fast = predict(workload, allocation, cluster, settings=sched, engine="numba")
    slow = predict(workload, allocation, cluster, settings=sched, engine="reference")
    pd.testing.assert_frame_equal(fast.attempts, slow.attempts)
    pd.testing.assert_frame_equal(fast.jobs, slow.jobs)


def random_cluster(draw, **settings) -> tuple[Cluster, SchedulerSettings]:
    """An instant or a two-node cluster, and settings (with `settings`) drawn for it."""
    spec = draw(st.sampled_from(["memory-mb=8192,vcores=8", "nodes=2,memory-mb=4096,vcores=4"]))
    sched = SchedulerSettings(
        heartbeats=draw(st.booleans()),
        min_allocation_mb=512.0,
        increment_mb=512.0,
        am_heartbeat_interval_s=draw(st.sampled_from([0.0, 1.0])),
        slowstart_completed_maps=draw(st.sampled_from([0.05, 1.0])),
        **settings,
    )
    return Cluster.parse(spec), sched


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(capacity_scenarios())
def test_engines_agree_under_the_capacity_scheduler(scenario):
    """Both engines give the same schedule on random Capacity Scheduler inputs."""
    workload, props, cluster, sched = scenario
    engines_agree(workload, config(cluster, props), cluster, sched)
