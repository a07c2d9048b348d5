"""Weights that change nothing: left out of the space (or flagged) when minimum shares cover the cluster."""

from __future__ import annotations

import logging

import pandas as pd
import pytest

from tempo.space import MRV1, YARN, ConfigurationSpace, SpaceSpec
from tempo.space.flat import flat_weights
from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, predict
from whatif.workload import Workload

SLOTS = Cluster.parse("map-slots=30,reduce-slots=10")
MEMORY = Cluster.parse("memory-mb=10240,vcores=10")


def pools(*mins: tuple[str, int, int], weights: dict[str, float] | None = None) -> bytes:
    """A Hadoop 1 file: one pool per (name, minMaps, minReduces)."""
    weights = weights or {}
    body = "".join(
        f'  <pool name="{name}">\n    <minMaps>{maps}</minMaps>\n'
        f"    <minReduces>{reduces}</minReduces>\n"
        f"    <weight>{weights.get(name, 1.0)}</weight>\n  </pool>\n"
        for name, maps, reduces in mins
    )
    return f"<allocations>\n{body}</allocations>\n".encode()


def mrv1(data: bytes):
    return effective_allocation(
        AllocationDocument.from_bytes(data, source="pools.xml"), hadoop_version=1
    )


COVERING = pools(("deadline", 20, 6), ("besteffort", 10, 4))


def test_fixed_minimum_shares_that_cover_the_cluster_leave_weights_out_with_a_note(caplog):
    """20 + 10 >= 30 map slots and 6 + 4 >= 10 reduce slots: no weight dimension, and why."""
    with caplog.at_level(logging.INFO, logger="tempo.space.flat"):
        space = ConfigurationSpace.from_spec(
            SpaceSpec(settings=("weight", "minSharePreemptionTimeout")), mrv1(COVERING), SLOTS
        )
    assert space.names == (
        "root.deadline.minSharePreemptionTimeout",
        "root.besteffort.minSharePreemptionTimeout",
    )
    assert space.notes == (
        "weights of root.deadline, root.besteffort not tuned: their minimum shares cover the "
        "cluster (minMaps 10 + 20 >= 30 map slots; minReduces 4 + 6 >= 10 reduce slots) wherever "
        "the space goes, so fair shares come from minimum shares and weights change nothing "
        "(name QUEUE.weight in a space file or --tune to tune them anyway)",
    )
    assert space.notes[0] in caplog.text


def test_weights_stay_when_the_space_may_lower_the_minimum_shares():
    """The default space tunes minMaps from 0: weights matter there, so they stay, with a note."""
    space = ConfigurationSpace.from_spec(SpaceSpec(), mrv1(COVERING), SLOTS)
    assert "root.deadline.weight" in space.names and "root.besteffort.weight" in space.names
    assert len(space.notes) == 1
    assert space.notes[0].startswith(
        "weights of root.deadline, root.besteffort change nothing in the configuration in force: "
        "their minimum shares cover the cluster (minMaps 10 + 20 >= 30 map slots;"
    )
    assert "kept because the space may lower those minimum shares" in space.notes[0]


def test_minimum_shares_bounded_above_the_cover_leave_weights_out():
    """Tuned minimum shares whose lowest values still cover the cluster keep weights flat."""
    space = ConfigurationSpace.from_spec(
        SpaceSpec(settings=("weight", "minMaps")).with_overrides(
            ["deadline.minMaps=20:30", "besteffort.minMaps=10:15"]
        ),
        mrv1(COVERING),
        SLOTS,
    )
    assert space.names == ("root.deadline.minMaps", "root.besteffort.minMaps")
    assert "wherever the space goes" in space.notes[0]


def test_a_weight_the_operator_names_is_tuned_anyway():
    space = ConfigurationSpace.from_spec(
        SpaceSpec(settings=("weight", "minSharePreemptionTimeout")).with_overrides(
            ["deadline.weight=0.5:4"]
        ),
        mrv1(COVERING),
        SLOTS,
    )
    assert "root.deadline.weight" in space.names
    assert "root.besteffort.weight" not in space.names


def test_nothing_left_to_tune_says_why():
    with pytest.raises(ValidationError, match=r"nothing left to tune: weights of root.deadline"):
        ConfigurationSpace.from_spec(SpaceSpec(settings=("weight",)), mrv1(COVERING), SLOTS)


def test_covering_in_sum_is_not_enough_with_three_queues():
    """20 + 20 + 0 >= 30, but the pool with 0 and one with 20 can both be past their minimum
    shares with 10 slots to split: weights matter, nothing is left out."""
    allocation = mrv1(pools(("a", 20, 5), ("b", 20, 5), ("c", 0, 0)))
    assert flat_weights(allocation, SLOTS, MRV1) == []
    space = ConfigurationSpace.from_spec(SpaceSpec(settings=("weight",)), allocation, SLOTS)
    assert space.names == ("root.a.weight", "root.b.weight", "root.c.weight")
    assert space.notes == ()


def test_yarn_looks_at_memory_under_fair_and_every_resource_under_drf():
    """Under a fair parent memory decides; under drf vcores must be covered too."""
    queues = (
        b"<allocations>\n{policy}"
        b'  <queue name="a"><minResources>6144 mb, 2 vcores</minResources></queue>\n'
        b'  <queue name="b"><minResources>4096 mb, 2 vcores</minResources></queue>\n'
        b"</allocations>\n"
    )
    fair = effective_allocation(AllocationDocument.from_bytes(queues.replace(b"{policy}", b"")))
    groups = flat_weights(fair, MEMORY, YARN)
    assert [g.queues for g in groups] == [("root.a", "root.b")]
    assert groups[0].reasons == ("minResources.memory 4096 + 6144 >= 10240 MB",)
    drf = effective_allocation(
        AllocationDocument.from_bytes(
            queues.replace(
                b"{policy}", b"<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>\n"
            )
        )
    )
    assert flat_weights(drf, MEMORY, YARN) == []  # 2 + 2 vcores < 10


def busy_workload(queues: tuple[str, ...]) -> Workload:
    """Forty 100 s maps per queue, all submitted at 0, in two jobs each (more than 30 slots want)."""
    jobs, tasks = [], []
    for queue in queues:
        for j in range(2):
            job = f"{queue}{j}"
            jobs.append({"job_id": job, "queue": f"root.{queue}", "submit_s": float(j)})
            tasks += [
                {
                    "job_id": job,
                    "task_id": f"{job}_m{t:02d}",
                    "stage": "map",
                    "duration_s": 100.0 + t,
                    "memory_mb": 1024.0,
                    "vcores": 1.0,
                }
                for t in range(20)
            ]
    return Workload(jobs=pd.DataFrame(jobs), tasks=pd.DataFrame(tasks))


def starts(data: bytes, workload: Workload) -> list[tuple[str, float]]:
    """Each task's start in the predicted Hadoop 1 schedule."""
    schedule = predict(
        workload,
        mrv1(data),
        SLOTS,
        settings=SchedulerSettings(hadoop_version=1),
        engine="reference",
    )
    return sorted(zip(schedule.attempts["task_id"], schedule.attempts["start_s"], strict=True))


def test_the_predictor_agrees_weights_change_nothing_only_when_flat():
    """Covered: weights 1:1 and 1:9 give the same schedule. Not covered (0 + 20 < 30): a weight
    of 9 for a wins it the slots past its minimum share that c took at weight 1."""
    covered = [("deadline", 20, 6), ("besteffort", 10, 4)]
    two = busy_workload(("deadline", "besteffort"))
    assert flat_weights(mrv1(pools(*covered)), SLOTS, MRV1)
    assert starts(pools(*covered), two) == starts(pools(*covered, weights={"besteffort": 9.0}), two)
    three = [("a", 20, 0), ("b", 20, 0), ("c", 0, 0)]
    busy = busy_workload(("a", "c"))  # b, whose minimum share would cover, is idle
    assert starts(pools(*three), busy) != starts(pools(*three, weights={"a": 9.0}), busy)
