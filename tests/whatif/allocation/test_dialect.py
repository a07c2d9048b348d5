"""Each Hadoop version's dialect: what validate warns about, what set refuses, what resolve honours.

Hadoop 1's rules are those of ``PoolManager.reloadAllocs`` (contrib fair scheduler,
1.0.x-1.2.x): top-level ``<pool>`` only, eight pool elements, users' maxRunningJobs,
five top-level elements.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from whatif.allocation import (
    AllocationDocument,
    Resources,
    effective_allocation,
    queue_table,
    validate,
)
from whatif.allocation.fairshare import pool_slot_shares, slot_shares
from whatif.allocation.model import file_hadoop_version
from whatif.errors import AllocationError

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
SLS = DATA / "hadoop" / "alloc" / "sls-test-allocation.xml"
CONFIGS = Path(__file__).resolve().parents[3] / "configs"

MIXED = b"""<?xml version="1.0"?>
<allocations>
  <pool name="prod">
    <minMaps>4</minMaps>
    <maxRunningApps>3</maxRunningApps>
    <minResources>50%</minResources>
    <schedulingPolicy>drf</schedulingPolicy>
    <aclSubmitApps>alice</aclSubmitApps>
    <fairSharePreemptionTimeout>60</fairSharePreemptionTimeout>
    <maxRunningJobs>2</maxRunningJobs>
    <pool name="inner"><weight>2</weight></pool>
  </pool>
  <queue name="yarn">
    <weight>3</weight>
  </queue>
  <userMaxAppsDefault>5</userMaxAppsDefault>
  <queuePlacementPolicy><rule name="default"/></queuePlacementPolicy>
  <poolMaxJobsDefault>7</poolMaxJobsDefault>
</allocations>
"""


def _warnings(issues, line):
    return [i.message for i in issues if i.line == line and i.severity == "warning"]


def test_hadoop1_warns_with_the_line_about_every_element_it_ignores():
    """Each ignored element is a warning at its line naming what Hadoop 1 reads instead."""
    issues = validate(MIXED, hadoop_version=1)
    assert not [i for i in issues if i.severity == "error"]  # 50% is ignored, not rejected
    assert "it reads maxRunningJobs" in _warnings(issues, 5)[0]
    assert "it reads minMaps and minReduces" in _warnings(issues, 6)[0]
    assert "it reads schedulingMode" in _warnings(issues, 7)[0]
    assert "Hadoop 1 ignores <aclSubmitApps>" in _warnings(issues, 8)[0]
    assert "top-level <fairSharePreemptionTimeout>" in _warnings(issues, 9)[0]
    assert "do not nest" in _warnings(issues, 11)[0]
    assert "ignores <queue>" in _warnings(issues, 13)[0]
    assert "it reads userMaxJobsDefault" in _warnings(issues, 16)[0]
    assert "queuePlacementPolicy" in _warnings(issues, 17)[0]
    for line in (4, 10, 18):  # minMaps, maxRunningJobs, poolMaxJobsDefault are read
        assert not _warnings(issues, line)


def test_yarn_warns_about_the_mrv1_elements_naming_its_own():
    """Hadoop 3 ignores minMaps, maxRunningJobs and poolMaxJobsDefault, and says what it reads."""
    issues = validate(MIXED, hadoop_version=3)
    assert "it reads minResources" in _warnings(issues, 4)[0]
    assert "it reads maxRunningApps" in _warnings(issues, 10)[0]
    assert "it reads queueMaxAppsDefault" in _warnings(issues, 18)[0]
    assert not _warnings(issues, 5)  # YARN reads maxRunningApps


def test_sls_file_under_hadoop1_warns_about_its_queues():
    """The SLS test file (all <queue> and YARN defaults) prints warnings for Hadoop 1, not nothing."""
    issues = validate(SLS, hadoop_version=1)
    assert [i.line for i in issues] == [31, 32, 38, 44]
    assert all(i.severity == "warning" for i in issues)


def test_hadoop1_scheduling_mode_must_be_fair_or_fifo():
    """Hadoop 1 refuses any mode but fair/fifo (parseSchedulingMode); YARN takes drf."""
    body = b'<allocations><pool name="a"><schedulingMode>drf</schedulingMode></pool></allocations>'
    errors = [i for i in validate(body, hadoop_version=1) if i.severity == "error"]
    assert len(errors) == 1 and "Unknown scheduling mode : drf" in errors[0].message
    assert not [i for i in validate(body, hadoop_version=3) if i.severity == "error"]
    body = b"<allocations><defaultPoolSchedulingMode>FIFO</defaultPoolSchedulingMode></allocations>"
    assert validate(body, hadoop_version=1) == []


def test_hadoop1_warns_about_max_below_min_as_it_does():
    body = b'<allocations>\n<pool name="a"><minMaps>5</minMaps><maxMaps>2</maxMaps></pool>\n</allocations>'
    (issue,) = validate(body, hadoop_version=1)
    assert issue.message == "Pool a has max maps 2 less than min maps 5"


def test_file_dialect_is_hadoop1_with_pools():
    assert file_hadoop_version(AllocationDocument.from_bytes(MIXED)) == 1
    assert file_hadoop_version(AllocationDocument.from_file(SLS)) == 3


@pytest.mark.parametrize(
    "setting, value, instead",
    [
        ("maxRunningApps", 3, "maxRunningJobs"),
        ("minResources", None, "minMaps and minReduces"),
        ("schedulingPolicy", "fifo", "schedulingMode"),
        ("aclSubmitApps", "alice", "ignores <aclSubmitApps>"),
        ("fairSharePreemptionTimeout", 60, "top-level <fairSharePreemptionTimeout>"),
    ],
)
def test_set_refuses_yarn_elements_in_a_hadoop1_pool(setting, value, instead):
    """A <pool> file is Hadoop 1: YARN's elements are refused, naming what Hadoop 1 reads."""
    from whatif.allocation.effective import Resources

    doc = AllocationDocument.from_file(CONFIGS / "contended-expert-hadoop1.xml")
    value = Resources(1024, 1) if value is None else value
    with pytest.raises(AllocationError, match=instead):
        doc.set("root.deadline", setting, value)
    # with the version given as YARN, the same write is allowed
    assert doc.set("root.deadline", setting, value, hadoop_version=3).to_bytes() != doc.to_bytes()


def test_set_writes_what_hadoop1_reads_and_may_remove_what_it_ignores():
    doc = AllocationDocument.from_bytes(MIXED)
    changed = doc.set("root.prod", "maxRunningJobs", 5)
    assert effective_allocation(changed, hadoop_version=1).queue("root.prod").max_running_apps == 5
    removed = doc.set("root.prod", "maxRunningApps", None)
    assert b"maxRunningApps" not in removed.to_bytes()
    assert (
        effective_allocation(doc.set("root.prod", "schedulingMode", "fifo"), hadoop_version=1)
        .queue("root.prod")
        .scheduling_policy
        == "fifo"
    )


@pytest.mark.parametrize(
    "queue, setting, value, message",
    [
        ("root.prod", "schedulingMode", "drf", "only fair or fifo"),
        ("root.yarn", "weight", 2.0, "this is a <queue>"),
        ("root.prod.inner", "weight", 2.0, "nested in another"),
    ],
)
def test_set_refuses_what_hadoop1_would_reject_or_never_read(queue, setting, value, message):
    doc = AllocationDocument.from_bytes(MIXED)
    with pytest.raises(AllocationError, match=message):
        doc.set(queue, setting, value, hadoop_version=1)


def test_set_refuses_mrv1_elements_in_a_yarn_file():
    doc = AllocationDocument.from_file(CONFIGS / "contended-expert.xml")
    with pytest.raises(AllocationError, match="it reads minResources"):
        doc.set("root.deadline", "minMaps", 3)
    with pytest.raises(AllocationError, match="it reads maxRunningApps"):
        doc.set("root.deadline", "maxRunningJobs", 3)
    with pytest.raises(AllocationError, match="it reads queueMaxAppsDefault"):
        doc.set_default("poolMaxJobsDefault", 3)
    with pytest.raises(AllocationError, match="it reads userMaxJobsDefault"):
        AllocationDocument.from_bytes(MIXED).set_default("userMaxAppsDefault", 3)


def test_hadoop1_effective_allocation_honours_only_pools_and_their_elements():
    """<queue> is no pool; maxRunningJobs (not maxRunningApps) limits; min shares are slots."""
    effective = effective_allocation(AllocationDocument.from_bytes(MIXED), hadoop_version=1)
    assert [q.name for q in effective.root.children] == ["root.prod"]
    prod = effective.queue("root.prod")
    assert prod.max_running_apps == 2
    assert (prod.min_maps, prod.min_reduces) == (4, None)
    assert prod.min_resources.memory_mb == 0
    assert prod.scheduling_policy == "fair"  # <schedulingPolicy>drf is not read
    assert prod.fair_share_preemption_timeout_s == float("inf")  # per-pool one is not read
    assert effective.defaults.max_running_apps == 7


def test_hadoop1_queue_table_shows_slots():
    """config show for Hadoop 1: minMaps/minReduces and maxMaps/maxReduces, not memory."""
    doc = AllocationDocument.from_file(CONFIGS / "contended-expert-hadoop1.xml")
    table = queue_table(doc, hadoop_version=1, slots={"map": 30, "reduce": 10}).set_index("queue")
    assert "min_memory_mb" not in table.columns
    assert table.loc["root.deadline", ["min_maps", "min_reduces"]].tolist() == [30, 10]
    assert table.loc["root.deadline", ["fair_maps", "fair_reduces"]].tolist() == [30, 10]
    assert table.loc["root.besteffort", ["fair_maps", "fair_reduces"]].tolist() == [0, 0]


TWO_QUEUES = b"""<?xml version="1.0"?>
<allocations>
  <queue name="a"/>
  <queue name="b"/>
</allocations>
"""


@pytest.mark.parametrize(
    ("hadoop_version", "expected"),
    [
        (2, {"root.a": 8192, "root.b": 8192, "root.default": 8192}),
        (3, {"root.a": 12288, "root.b": 12288}),
    ],
)
def test_hadoop2_shows_the_default_queue_its_rm_creates_at_start(hadoop_version, expected):
    """A Hadoop 2 RM creates root.default at start (QueueManager.initialize; 3.1 stopped,
    YARN-7769), so beside a and b it takes a third of the steady fair share, as the RM's
    steadyFairResources show; a Hadoop 3 RM splits the cluster between a and b."""
    doc = AllocationDocument.from_bytes(TWO_QUEUES)
    table = queue_table(doc, cluster=Resources(24576, 24), hadoop_version=hadoop_version)
    leaves = table[table["leaf"]].set_index("queue")["fair_memory_mb"].to_dict()
    assert leaves == expected


def test_a_declared_default_queue_is_not_created_twice():
    """root.default declared with weight 2: one row, its own weight, half the cluster."""
    doc = AllocationDocument.from_bytes(
        TWO_QUEUES.replace(
            b"</allocations>", b'  <queue name="default"><weight>2</weight></queue>\n</allocations>'
        )
    )
    table = queue_table(doc, cluster=Resources(24576, 24), hadoop_version=2).set_index("queue")
    assert table.index.tolist().count("root.default") == 1
    assert table.loc["root.default", "fair_memory_mb"] == 12288


def test_slot_shares_follow_hadoop1_compute_fair_shares():
    """Weights 4:1 on 30 slots give 24/6; a min share of 30 takes all; a demand cap of 3 frees 27."""
    weights, none = np.array([4.0, 1.0]), np.array([0.0, 0.0])
    unlimited = np.array([np.inf, np.inf])
    assert np.allclose(slot_shares(weights, none, unlimited, 30), [24, 6])
    assert np.allclose(slot_shares(weights, np.array([30.0, 0]), unlimited, 30), [30, 0], atol=1e-6)
    assert np.allclose(slot_shares(weights, none, np.array([3.0, np.inf]), 30), [3, 27])
    doc = AllocationDocument.from_bytes(
        b'<allocations><pool name="a"><weight>3</weight><maxReduces>2</maxReduces></pool>'
        b'<pool name="b"/></allocations>'
    )
    shares = pool_slot_shares(effective_allocation(doc, hadoop_version=1), {"map": 8, "reduce": 8})
    assert shares["root.a"] == pytest.approx({"map": 6, "reduce": 2})
    assert shares["root.b"] == pytest.approx({"map": 2, "reduce": 6})
