"""maxChildResources in the space: tuned on parent queues only, written in the file's own
element (removed for "no limit"), and what is written is what the predictor then applies
to the queues created on the fly under the parent."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tempo.space import ConfigurationSpace, SpaceSpec
from whatif import Cluster, Resources, Workload
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, predict

CLUSTER = Cluster.parse("memory-mb=10240,vcores=10")
KEY = "maxChildResources.memory"

FILE = b"""<allocations>
  <queue name="etl"/>
  <queue name="users" type="parent">
    <maxChildResources>4096 mb,4vcores</maxChildResources>
  </queue>
</allocations>
"""


def document() -> AllocationDocument:
    return AllocationDocument.from_bytes(FILE, source="fair-scheduler.xml")


def space(*overrides: str) -> ConfigurationSpace:
    spec = SpaceSpec(settings=("maxChildResources",)).with_overrides(overrides)
    return ConfigurationSpace.from_spec(spec, effective_allocation(document()), CLUSTER)


def unit(memory_mb: float) -> np.ndarray:
    """The one-dimension vector of a memory cap, on the bounds [512, 10240]."""
    return np.array([(memory_mb - 512.0) / (10240.0 - 512.0)])


def test_it_is_tuned_on_parents_only_from_a_tenth_of_the_split_to_the_cluster():
    s = space()
    assert s.names == ("root.users.maxChildResources.memory",)
    (d,) = s.dimensions
    # root.users' equal split is half the cluster (5120 MB): from a tenth of it to the cluster
    assert (d.low, d.high, d.off) == (512.0, 10240.0, "high")
    current = s.decode(s.encode(effective_allocation(document())))
    assert current.value("root.users", KEY) == 4096


def test_a_rule_on_a_leaf_is_an_error_naming_it():
    with pytest.raises(ValidationError, match=r"root\.etl\.maxChildResources.*expected a parent"):
        space("root.etl.maxChildResources.memory=1024:8192")


def test_writes_the_element_keeping_the_untuned_component_and_removes_it_for_no_limit():
    """Memory alone tuned: its top writes the cluster's memory beside the vcores kept (a
    limit still); both at their top remove the element (no limit at all)."""
    s = space()
    capped = s.apply(document(), unit(2048.0))
    assert b"<maxChildResources>2048 mb,4vcores</maxChildResources>" in capped.to_bytes()
    limit = effective_allocation(capped).queue("root.users").max_child_resources
    assert limit.resolve(Resources(10240, 10)) == Resources(2048, 4)
    memory_only = s.apply(document(), np.ones(1))
    assert b"<maxChildResources>10240 mb,4vcores</maxChildResources>" in memory_only.to_bytes()
    both = space("root.users.maxChildResources.vcores=default")
    assert both.names[-1] == "root.users.maxChildResources.vcores"
    unlimited = both.apply(document(), np.ones(2))
    assert b"maxChildResources" not in unlimited.to_bytes()
    assert math.isinf(
        both.decode(both.encode(effective_allocation(unlimited))).value("root.users", KEY)
    )


def _finish(doc: AllocationDocument) -> float:
    """When alice's job ends: eight 1024 MB maps of 10 s in root.users.alice, a queue
    the file does not declare (the Fair Scheduler creates it under root.users)."""
    jobs = pd.DataFrame({"job_id": ["j"], "queue": ["root.users.alice"], "submit_s": [0.0]})
    tasks = pd.DataFrame(
        {
            "job_id": ["j"] * 8,
            "task_id": [f"m{i}" for i in range(8)],
            "stage": ["map"] * 8,
            "duration_s": [10.0] * 8,
            "memory_mb": [1024.0] * 8,
            "vcores": [1.0] * 8,
        }
    )
    schedule = predict(
        Workload(jobs, tasks),
        effective_allocation(doc),
        CLUSTER,
        settings=SchedulerSettings(setup_cleanup_s=0.0),
        engine="reference",
    )
    return float(schedule.jobs["finish_s"].iloc[0])


def test_the_cap_written_is_the_cap_predicted():
    """4096 MB runs four maps at a time (two waves, 20 s), 2048 MB two (40 s), no limit all
    eight at once (10 s)."""
    assert _finish(document()) == 20.0
    assert _finish(space().apply(document(), unit(2048.0))) == 40.0
    both = space("root.users.maxChildResources.vcores=default")
    assert _finish(both.apply(document(), np.ones(2))) == 10.0
