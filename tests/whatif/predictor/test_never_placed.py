"""Jobs no container of which can ever fit a limit are named with the limit
(`whatif.predictor.never_placed`), and the refusal of the unfinished prediction quotes it."""

from __future__ import annotations

import re

import numpy as np
import pytest
from predictor_cases import build_workload, flat_tree
from samples import capacity_document

from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.allocation.effective import (
    EffectiveAllocation,
    EffectiveQueue,
    ResourceLimit,
    Resources,
)
from whatif.errors import UnfinishedJobsError
from whatif.metrics import require_finished
from whatif.predictor import SchedulerSettings, Simulation, predict
from whatif.predictor.capacity import capacity_allocation
from whatif.schedule import NeverPlaced

SETTINGS = SchedulerSettings(setup_cleanup_s=0.0)
CLUSTER = Cluster.parse("memory-mb=16384,vcores=16")


def _job(queue: str, am_mb: float | None = 1024.0, task_mb: float = 1024.0, user: str = "u"):
    extra = {"user": user, "am_memory_mb": am_mb, "am_vcores": 1.0} if am_mb else {"user": user}
    return (f"j_{queue}_{user}", queue, 0.0, [("map", 10.0, task_mb)] * 2, extra)


def _causes(jobs, allocation, cluster=CLUSTER, settings=SETTINGS, engine="numba"):
    """The causes found, after checking each names jobs its prediction leaves unfinished."""
    schedule = predict(build_workload(jobs), allocation, cluster, settings=settings, engine=engine)
    _check_sound(schedule)
    return [str(cause) for cause in schedule.never_placed]


def _check_sound(schedule) -> None:
    unfinished = schedule.jobs.loc[schedule.jobs["finish_s"].isna(), "queue"].value_counts()
    for cause in schedule.never_placed:
        assert unfinished.get(cause.queue, 0) >= cause.jobs, cause


def _file(body: str) -> EffectiveAllocation:
    text = f'<?xml version="1.0"?>\n<allocations>\n{body}\n</allocations>\n'
    return effective_allocation(AllocationDocument.from_bytes(text.encode()))


def test_a_default_maximum_of_no_vcores_stops_every_am(engine):
    """The doc example's queueMaxResourcesDefault of "40000 mb,0vcores" is root's maximum
    too (AllocationConfiguration.getMaxResources): no AM ever starts, not even in a queue
    with a maxResources of its own."""
    allocation = _file(
        "<queueMaxResourcesDefault>40000 mb,0vcores</queueMaxResourcesDefault>\n"
        '<queue name="own"><maxResources>8192 mb,8vcores</maxResources></queue>'
    )
    causes = _causes([_job("root.default"), _job("root.own")], allocation, engine=engine)
    assert causes == [
        "root.own: 1 job can never finish: its AMs ask 1 vcores, more than the maximum share "
        "of root (0 vcores)",
        "root.default: 1 job can never finish: its AMs ask 1 vcores, more than the maximum "
        "share of root (0 vcores)",
    ]


def test_a_parent_running_no_app_stops_its_leaves_and_so_does_a_user(engine):
    allocation = _file(
        '<queue name="p"><maxRunningApps>0</maxRunningApps><queue name="a"/></queue>\n'
        '<queue name="b"/>\n<user name="eve"><maxRunningApps>0</maxRunningApps></user>'
    )
    jobs = [_job("root.p.a"), _job("root.b", user="eve"), _job("root.b", user="bob")]
    assert _causes(jobs, allocation, engine=engine) == [
        "root.p.a: 1 job can never finish: root.p may run no app (its running-apps limit is 0)",
        "root.b: 1 job can never finish: user eve may run no app (its running-apps limit is 0)",
    ]


def test_an_am_above_what_max_am_share_lets_the_queue_give(engine):
    """maxAMShare 0.1 of a queue capped at 8192 MB: AMs may hold 820 MB at most (Hadoop 3
    rounds up 0.1f x 8192 = 819.2000122), 819 MB under Hadoop 2 (rounded down)."""
    allocation = _file(
        '<queue name="a"><maxResources>8192 mb,8vcores</maxResources>'
        "<maxAMShare>0.1</maxAMShare></queue>"
    )
    for version, held in ((3, 820), (2, 819)):
        settings = SchedulerSettings(setup_cleanup_s=0.0, hadoop_version=version)
        assert _causes([_job("root.a")], allocation, settings=settings, engine=engine) == [
            "root.a: 1 job can never finish: its AMs ask 1024 MB, more than maxAMShare 0.1 "
            f"lets its AMs hold ({held} MB)"
        ]


def test_an_am_share_of_a_one_vcore_queue_stops_an_am_only_where_hadoop_does(engine):
    """maxAMShare 0.5 of a queue capped at 1 vcore: Hadoop 3 rounds the AMs' vcores up to
    1 (the AM runs), Hadoop 2 down to 0, which stops the AM only under drf (the fair
    policy compares the AMs' memory alone)."""
    body = (
        '<queue name="a"><maxResources>8192 mb, 1 vcores</maxResources>'
        "<maxAMShare>0.5</maxAMShare>{}</queue>"
    )
    fair = _file(body.format(""))
    drf = _file(
        "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>" + body.format("")
    )
    cases = ((3, fair, False), (3, drf, False), (2, fair, False), (2, drf, True))
    for version, allocation, stopped in cases:
        settings = SchedulerSettings(setup_cleanup_s=0.0, hadoop_version=version)
        found = _causes([_job("root.a")], allocation, settings=settings, engine=engine)
        expected = ["root.a: 1 job can never finish: its AMs ask 1 vcores, more than maxAMShare "
                    "0.5 lets its AMs hold (0 vcores)"]  # fmt: skip
        assert found == (expected if stopped else []), (version, stopped)


def test_a_task_larger_than_any_node(engine):
    cluster = Cluster.parse("nodes=2,memory-mb=4096,vcores=4")
    jobs = [_job("root.a", am_mb=None, task_mb=6144.0), _job("root.b", am_mb=None)]
    assert _causes(jobs, flat_tree(a={}, b={}), cluster=cluster, engine=engine) == [
        "root.a: 1 job can never finish: its containers ask up to 6144 MB and 1 vcores, more "
        "than any node holds (4096 MB and 4 vcores)"
    ]


def test_a_hadoop1_pool_with_no_map_slots(engine):
    allocation = flat_tree(a={"max_maps": 0}, b={})
    settings = SchedulerSettings(hadoop_version=1, setup_cleanup_s=0.0)
    cluster = Cluster.parse("map-slots=4,reduce-slots=2")
    jobs = [_job("root.a", am_mb=None), _job("root.b", am_mb=None)]
    assert _causes(jobs, allocation, cluster=cluster, settings=settings, engine=engine) == [
        "root.a: 1 job can never finish: its map tasks ask 1 map slots, more than the maximum "
        "share of root.a (0 map slots)"
    ]


def test_the_refusal_quotes_the_cause_of_its_queues_only():
    allocation = flat_tree(a={"max_running_apps": 0}, b={})
    schedule = predict(build_workload([_job("root.a"), _job("root.b")]), allocation, CLUSTER)
    with pytest.raises(UnfinishedJobsError, match=r"\(root\.a: 1 job can never finish: root\.a"):
        require_finished(schedule)
    stuck = NeverPlaced("root.z", 3, "a cause of another queue")
    schedule = type(schedule).from_normalized(schedule.jobs, schedule.attempts, (stuck,))
    with pytest.raises(UnfinishedJobsError, match="livelock, or a container that can never"):
        require_finished(schedule)


def test_a_finishing_workload_has_no_cause_and_a_reload_forgets_them():
    limited = flat_tree(a={"max_running_apps": 0})
    sim = Simulation(build_workload([_job("root.a")]), limited, CLUSTER, settings=SETTINGS)
    assert len(sim.never_placed) == 1
    sim.reconfigure(flat_tree(a={}))
    assert sim.run_to_end().never_placed == ()
    assert _causes([_job("root.a")], flat_tree(a={})) == []


def _random_case(rng: np.random.Generator):
    """Two leaves under a parent, limits drawn to bite often, and four jobs."""

    def limits() -> dict:
        return {
            "max_resources": ResourceLimit(
                absolute=[None, Resources(512, 8), Resources(8192, 0), Resources(4096, 4)][
                    rng.integers(4)
                ]
            ),
            "max_running_apps": [None, None, 0, 2][rng.integers(4)],
            "max_am_share": [0.5, 0.1, -1.0][rng.integers(3)],
        }

    leaves = tuple(EffectiveQueue(f"root.p.{n}", **limits()) for n in "ab")
    parent = EffectiveQueue("root.p", children=leaves, **limits())
    users = {"eve": 0} if rng.integers(2) else {}
    allocation = EffectiveAllocation(
        root=EffectiveQueue("root", children=(parent,)), user_max_apps=users
    )
    jobs = [
        (
            f"j{i}",
            f"root.p.{'ab'[rng.integers(2)]}",
            float(i),
            [("map", 5.0, [1024.0, 6144.0][rng.integers(2)])] * 2,
            {
                "user": ["eve", "bob"][rng.integers(2)],
                "am_memory_mb": [np.nan, 1024.0][rng.integers(2)],
                "am_vcores": 1.0,
            },
        )
        for i in range(4)
    ]
    cluster = ["memory-mb=16384,vcores=16", "nodes=2,memory-mb=4096,vcores=4"][rng.integers(2)]
    return build_workload(jobs), allocation, Cluster.parse(cluster)


def test_every_job_named_is_left_unfinished(engine):
    """On random limits, each cause counts no more jobs than its queue has unfinished; the
    cases find every kind of cause, and here (no livelock) explain every unfinished job."""
    rng = np.random.default_rng(20261129)
    kinds = set()
    unfinished = named = 0
    for _ in range(40):
        workload, allocation, cluster = _random_case(rng)
        schedule = predict(workload, allocation, cluster, settings=SETTINGS, engine=engine)
        _check_sound(schedule)
        unfinished += int(schedule.jobs["finish_s"].isna().sum())
        for cause in schedule.never_placed:
            named += cause.jobs
            kinds.add(re.sub(r"[\d.]+|root\S*|\(.*\)", "", cause.cause))
    assert len(kinds) >= 7, kinds
    assert unfinished >= named > 100


def test_a_capped_ancestor_is_named():
    """The least maximum up the tree is the parent's: the cause names the parent."""
    leaf = EffectiveQueue("root.p.a")
    parent = EffectiveQueue(
        "root.p",
        children=(leaf,),
        max_resources=ResourceLimit(absolute=Resources(512, 8)),
    )
    allocation = EffectiveAllocation(root=EffectiveQueue("root", children=(parent,)))
    assert _causes([_job("root.p.a", am_mb=None)], allocation) == [
        "root.p.a: 1 job can never finish: its map tasks ask 1024 MB, more than the maximum "
        "share of root.p (512 MB)"
    ]


def _capacity(props: dict[str, object], cluster: Cluster):
    return capacity_allocation(capacity_document(props), cluster)


def test_a_capacity_queue_whose_maximum_capacity_holds_no_container(engine):
    """The Capacity Scheduler mode: root.p's maximum capacity, 10 % of 16384 MB (1638 MB),
    holds no 2048 MB map of root.p.b, while root.a's run; vcores never limit there."""
    props = {
        "root.queues": "a,p",
        "root.a.capacity": 90,
        "root.p.capacity": 10,
        "root.p.maximum-capacity": 10,
        "root.p.queues": "b",
        "root.p.b.capacity": 100,
    }
    jobs = [
        ("ja", "root.a", 0.0, [("map", 10.0, 2048.0)] * 2),
        ("jb", "root.p.b", 0.0, [("map", 10.0, 2048.0)] * 2),
    ]
    allocation = _capacity(props, CLUSTER)
    assert _causes(jobs, allocation, engine=engine) == [
        "root.p.b: 1 job can never finish: its map tasks ask 2048 MB, more than the maximum "
        "capacity of root.p (1638.4 MB); the jobs after it in the queue may wait behind it"
    ]


def test_a_capacity_container_larger_than_every_node_names_memory_only(engine):
    cluster = Cluster.parse("nodes=2,memory-mb=4096,vcores=4")
    props = {"root.queues": "a", "root.a.capacity": 100}
    jobs = [("j", "root.a", 0.0, [("map", 10.0, 6144.0)])]
    assert _causes(jobs, _capacity(props, cluster), cluster=cluster, engine=engine) == [
        "root.a: 1 job can never finish: its containers ask up to 6144 MB, more than any "
        "node holds (4096 MB)"
    ]


def test_every_capacity_job_named_is_left_unfinished(engine):
    """The Capacity Scheduler mode on random maximum capacities and request sizes: each
    cause is sound (a job its queue's headroom cannot hold may also hold up the jobs after
    it, which are not named)."""
    rng = np.random.default_rng(20261130)
    unfinished = named = 0
    for _ in range(20):
        props = {
            "root.queues": "a,p",
            "root.a.capacity": 90,
            "root.p.capacity": 10,
            "root.p.maximum-capacity": [10, 50, 100][rng.integers(3)],
            "root.p.queues": "b,c",
            "root.p.b.capacity": 50,
            "root.p.c.capacity": 50,
            "root.p.b.maximum-capacity": [100, 20][rng.integers(2)],
        }
        cluster = Cluster.parse(
            ["memory-mb=16384,vcores=16", "nodes=2,memory-mb=4096,vcores=4"][rng.integers(2)]
        )
        jobs = [
            (f"j{i}", ["root.a", "root.p.b", "root.p.c"][rng.integers(3)], float(i),
             [("map", 5.0, [1024.0, 2048.0, 6144.0][rng.integers(3)])] * 2)
            for i in range(4)
        ]  # fmt: skip
        schedule = predict(
            build_workload(jobs), _capacity(props, cluster), cluster, settings=SETTINGS,
            engine=engine,
        )  # fmt: skip
        _check_sound(schedule)
        unfinished += int(schedule.jobs["finish_s"].isna().sum())
        named += sum(cause.jobs for cause in schedule.never_placed)
    assert unfinished >= named > 10
