"""A queue the Fair Scheduler creates on the fly under a parent with ``maxChildResources``
takes it as its maxResources (QueueManager.setChildResourceLimits; FairScheduler
.applyChildDefaults again at every reload); a declared child does not, nor does a queue
created under a parent that was itself created on the fly. The common production case:
``root.users`` with ``maxChildResources`` and a placement rule that makes a queue per user.
"""

from __future__ import annotations

from predictor_cases import build_workload

from whatif import Cluster
from whatif.allocation import (
    AllocationDocument,
    Resources,
    effective_allocation,
    with_undeclared_queues,
)
from whatif.predictor import SchedulerSettings, predict

#: 16 containers of 1024 MB in one pool; no setup or cleanup tasks, so only the limits act.
CLUSTER = Cluster.parse("memory-mb=16384,vcores=16")
SETTINGS = SchedulerSettings(setup_cleanup_s=0.0)

FILE = """<?xml version="1.0"?>
<allocations>
  <queue name="users" type="parent">
    <maxChildResources>{limit}</maxChildResources>
    <queue name="carol"/>
  </queue>
</allocations>
"""


def finishes(queues: list[str], engine: str, limit: str = "2048 mb, 2 vcores") -> list[float]:
    """Each job's finish: one job per queue of four 1024 MB maps of 10 s, submitted at 0."""
    document = AllocationDocument.from_bytes(FILE.format(limit=limit).encode())
    jobs = [(f"j{i}", queue, 0.0, [("map", 10.0, 1024.0)] * 4) for i, queue in enumerate(queues)]
    schedule = predict(
        build_workload(jobs),
        effective_allocation(document),
        CLUSTER,
        settings=SETTINGS,
        engine=engine,
    )
    return schedule.jobs.sort_values("job_id")["finish_s"].tolist()


def test_a_queue_created_under_the_parent_is_capped_and_a_declared_one_is_not(engine):
    """alice's queue is created on the fly: two maps at a time (2048 MB), done at 20 s;
    carol's is declared in the file: all four at once, done at 10 s."""
    assert finishes(["root.users.alice", "root.users.carol"], engine) == [20.0, 10.0]


def test_each_created_queue_has_its_own_cap(engine):
    """The cap is per child, not shared: alice and bob each run two maps at a time."""
    assert finishes(["root.users.alice", "root.users.bob"], engine) == [20.0, 20.0]


def test_a_percentage_is_of_the_cluster(engine):
    """25% of 16384 MB and 16 vcores: four containers, so all four maps at once."""
    assert finishes(["root.users.alice"], engine, limit="25%") == [10.0]


def test_only_the_first_created_level_takes_the_cap(engine):
    """root.users.team is created under users and capped at 2048 MB; team.dave is created
    under team, which sets no maxChildResources, so it is not capped itself, but its
    parent's cap holds it to two maps at a time."""
    allocation = _created(["root.users.team.dave"])
    assert allocation.queue("root.users.team").max_resources.absolute is not None
    assert allocation.queue("root.users.team.dave").max_resources.is_unlimited
    assert finishes(["root.users.team.dave"], engine) == [20.0]


def _created(queues: list[str], top: str = ""):
    """The file's effective allocation with `queues` created (`top`: more top-level
    elements)."""
    text = FILE.format(limit="2048 mb, 2 vcores").replace("</allocations>", top + "</allocations>")
    return with_undeclared_queues(
        effective_allocation(AllocationDocument.from_bytes(text.encode())), queues
    )


def test_elsewhere_a_created_queue_takes_queue_max_resources_default():
    """root.other is created under root, which sets no maxChildResources: it gets
    queueMaxResourcesDefault, and root.users.alice its parent's cap instead."""
    top = "  <queueMaxResourcesDefault>4096 mb, 4 vcores</queueMaxResourcesDefault>\n"
    allocation = _created(["root.other", "root.users.alice"], top)
    assert allocation.queue("root.other").max_resources.absolute == Resources(4096, 4)
    assert allocation.queue("root.users.alice").max_resources.absolute == Resources(2048, 2)
