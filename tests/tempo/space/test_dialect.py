"""The space speaks the file's dialect: Hadoop 1 pools tune slots and job limits, YARN queues resources."""

from __future__ import annotations

import difflib
import math
import re

import numpy as np
import pytest
from samples import allocation_file

from tempo.space import MRV1, YARN, ConfigurationSpace, SpaceSpec, hadoop_version_for
from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.errors import ValidationError

SLOTS = Cluster.parse("map-slots=30,reduce-slots=10")
MEMORY = Cluster.parse("memory-mb=102400,vcores=100")

#: A Hadoop 1 file: two pools, a YARN element Hadoop 1 ignores, a top-level timeout.
POOLS = b"""<?xml version="1.0"?>
<allocations>
  <!-- deadline work first -->
  <pool name="deadline">
    <minMaps>10</minMaps>
    <minReduces>4</minReduces>
    <weight>2.0</weight>
    <maxRunningApps>3</maxRunningApps>
  </pool>
  <pool name="besteffort">
    <maxRunningJobs>20</maxRunningJobs>
    <schedulingMode>fifo</schedulingMode>
  </pool>
  <user name="alice">
    <maxRunningJobs>4</maxRunningJobs>
  </user>
  <fairSharePreemptionTimeout>600</fairSharePreemptionTimeout>
</allocations>
"""

QUEUES = allocation_file(
    "queue",
    {
        "prod": {"minResources": "20480 mb, 10 vcores", "weight": 2.0},
        "engineer": {"maxRunningApps": 5},
    },
    defaultFairSharePreemptionTimeout=600,
)

TAG = re.compile(r"^\s*<(\w+)>[^<]*</\1>\s*$")

#: Every Hadoop 1 setting, in order, as its error messages list them.
HADOOP_1_SETTINGS = (
    "weight, minMaps, minReduces, maxMaps, maxReduces, minSharePreemptionTimeout, "
    "fairSharePreemptionTimeout, maxRunningJobs, schedulingMode"
)

#: Elements only Hadoop 1 reads.
MRV1_ONLY = {"minMaps", "minReduces", "maxMaps", "maxReduces", "maxRunningJobs", "schedulingMode"}


def pools() -> AllocationDocument:
    return AllocationDocument.from_bytes(POOLS, source="pools.xml")


def hadoop1_space(spec=MRV1.settings, cluster=SLOTS, **options) -> ConfigurationSpace:
    """The space of `pools()` read as Hadoop 1 on `cluster`, from `spec` (a SpaceSpec, or
    the settings of one)."""
    if not isinstance(spec, SpaceSpec):
        spec = SpaceSpec(settings=spec)
    return ConfigurationSpace.from_spec(
        spec, effective_allocation(pools(), hadoop_version=1), cluster, **options
    )


def edited_tags(old: AllocationDocument, new: AllocationDocument) -> list[tuple[str, str]]:
    """(+ or -, tag) of each line that differs between two files."""
    diff = difflib.ndiff(old.to_bytes().decode().splitlines(), new.to_bytes().decode().splitlines())
    return [(line[0], TAG.match(line[2:])[1]) for line in diff if line.startswith(("- ", "+ "))]


def test_a_hadoop_1_file_tunes_exactly_the_hadoop_1_settings():
    """Every Hadoop 1 setting, bounded in slots; the one timeout Hadoop 1 reads at the top is root's."""
    space = hadoop1_space()
    assert space.hadoop_version == 1 and space.dialect is MRV1
    # a pool's: all but the timeout Hadoop 1 reads only at the top
    pool = [s for s in HADOOP_1_SETTINGS.split(", ") if s != "fairSharePreemptionTimeout"]
    assert space.names == (
        "root.fairSharePreemptionTimeout",
        *(f"root.deadline.{s}" for s in pool),
        *(f"root.besteffort.{s}" for s in pool),
    )
    described = {d.name: d.describe() for d in space.dimensions}
    assert described["root.deadline.minMaps"] == "[0, 15] integer linear"  # half of 30 map slots
    assert described["root.deadline.minReduces"] == "[0, 5] integer linear"
    assert described["root.deadline.maxMaps"] == "[15, 30] integer linear (>= 30 is no limit)"
    assert described["root.besteffort.maxRunningJobs"] == "[1, 100] integer log or off"
    assert described["root.besteffort.schedulingMode"] == "fair | fifo categorical"
    assert described["root.fairSharePreemptionTimeout"] == "[5, 3600] integer log or off"
    current = space.decode(space.encode(effective_allocation(pools(), hadoop_version=1)))
    assert current.value("root.deadline", "minMaps") == 10
    assert current.value("root.deadline", "maxRunningJobs") == math.inf  # maxRunningApps: not read
    assert current.value("root.besteffort", "maxRunningJobs") == 20
    assert current.value("root.besteffort", "schedulingMode") == "fifo"
    assert current.value("root", "fairSharePreemptionTimeout") == 600


def test_the_default_hadoop_1_space_is_the_papers_settings_in_hadoop_1_names():
    """Without settings: weights, map and reduce minimum shares and both preemption timeouts."""
    space = hadoop1_space(SpaceSpec())
    assert {d.setting for d in space.dimensions} == set(MRV1.defaults)
    assert (
        "root.deadline.minMaps" in space.names and "root.fairSharePreemptionTimeout" in space.names
    )
    assert not any(d.setting == "minResources" for d in space.dimensions)


def test_hadoop_1_writes_its_own_elements_and_keeps_the_rest_byte_for_byte():
    """minMaps, maxRunningJobs and schedulingMode go inside the <pool>; the timeout at the top."""
    doc = pools()
    space = hadoop1_space()
    configuration = space.decode(space.encode(effective_allocation(doc, hadoop_version=1)))
    wanted = {
        ("root.deadline", "minMaps"): 12,
        ("root.deadline", "maxRunningJobs"): 2,
        ("root.deadline", "schedulingMode"): "fifo",
        ("root.besteffort", "maxReduces"): 6,
        ("root", "fairSharePreemptionTimeout"): 120,
    }
    moved = type(configuration)(tuple((q, k, wanted.get((q, k), v)) for q, k, v in configuration))
    new = space.apply(doc, space.encode(moved))
    text = new.to_bytes().decode()
    deadline = text[text.index('<pool name="deadline">') : text.index("</pool>")]
    assert "<minMaps>12</minMaps>" in deadline
    assert "<maxRunningJobs>2</maxRunningJobs>" in deadline
    assert "<schedulingMode>fifo</schedulingMode>" in deadline
    assert "<maxRunningApps>3</maxRunningApps>" in deadline  # untouched, still ignored
    assert "  <fairSharePreemptionTimeout>120</fairSharePreemptionTimeout>\n</allocations>" in text
    assert sorted(edited_tags(doc, new)) == sorted(
        [
            ("-", "minMaps"),
            ("+", "minMaps"),
            ("+", "maxRunningJobs"),
            ("+", "schedulingMode"),
            ("+", "maxReduces"),
            ("-", "fairSharePreemptionTimeout"),
            ("+", "fairSharePreemptionTimeout"),
        ]
    )
    resolved = effective_allocation(new, hadoop_version=1)
    assert resolved.queue("root.deadline").max_running_apps == 2
    assert resolved.queue("root.deadline").scheduling_policy == "fifo"
    assert resolved.queue("root.besteffort").max_reduces == 6
    assert resolved.root.fair_share_preemption_timeout_s == 120
    assert space.decode(space.encode(resolved)) == moved
    assert (
        space.apply(doc, space.encode(effective_allocation(doc, hadoop_version=1))).to_bytes()
        == POOLS
    )


def test_no_limit_removes_hadoop_1_limits():
    """maxMaps at the slot count and maxRunningJobs off mean no limit: the elements go."""
    doc = AllocationDocument.from_bytes(
        POOLS.replace(b"<minMaps>10</minMaps>", b"<maxMaps>20</maxMaps>"), source="limits.xml"
    )
    space = ConfigurationSpace.from_spec(
        SpaceSpec(settings=("maxMaps", "maxRunningJobs")),
        effective_allocation(doc, hadoop_version=1),
        SLOTS,
    )
    vector = space.encode(effective_allocation(doc, hadoop_version=1))
    vector[space.index("root.deadline.maxMaps")] = 1.0
    vector[space.index("root.besteffort.maxRunningJobs")] = 1.0
    new = space.apply(doc, vector)
    assert sorted(edited_tags(doc, new)) == [("-", "maxMaps"), ("-", "maxRunningJobs")]


def test_a_yarn_file_never_gets_hadoop_1_elements():
    """Random points of the full YARN space write only YARN elements into <queue>s."""
    doc = AllocationDocument.from_bytes(QUEUES)
    space = ConfigurationSpace.from_spec(
        SpaceSpec(settings=YARN.settings), effective_allocation(doc), MEMORY
    )
    assert space.hadoop_version == 3
    assert not MRV1_ONLY & {d.setting for d in space.dimensions}
    center = space.encode(effective_allocation(doc))
    tags = set()
    for vector in space.sample(np.random.default_rng(5), 40, center=center, radius=0.5):
        tags |= {tag for _, tag in edited_tags(doc, space.apply(doc, vector))}
    assert tags and not tags & MRV1_ONLY
    assert "schedulingPolicy" in tags


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (
            lambda: hadoop1_space(("weight", "schedulingPolicy")),
            rf"space.settings: expected one of {HADOOP_1_SETTINGS} "
            r"\(the Hadoop 1 \(MRv1\) settings\), got 'schedulingPolicy' \(schedulingPolicy is a "
            r"Hadoop 2/3 \(YARN\) setting\)",
        ),
        (
            lambda: hadoop1_space(("minResources",)),
            r"got 'minResources' \(minResources is a Hadoop 2/3 \(YARN\) setting\)",
        ),
        (
            lambda: ConfigurationSpace.from_spec(
                SpaceSpec(settings=("minMaps",)),
                effective_allocation(AllocationDocument.from_bytes(QUEUES)),
                MEMORY,
            ),
            r"expected one of weight, minResources, .*schedulingPolicy \(the Hadoop 2/3 \(YARN\) "
            r"settings\), got 'minMaps' \(minMaps is a Hadoop 1 \(MRv1\) setting\)",
        ),
        (
            lambda: ConfigurationSpace.default(
                effective_allocation(pools(), hadoop_version=1), SLOTS, settings=("priority",)
            ),
            r"ConfigurationSpace.default: settings: expected one of weight, minMaps.*got 'priority'$",
        ),
        (
            lambda: hadoop1_space(
                SpaceSpec().with_overrides(["root.deadline.maxRunningApps=1:10"])
            ),
            r"^override 'root.deadline.maxRunningApps=1:10': root.deadline.maxRunningApps: "
            r"expected one of .*maxRunningJobs.*got 'maxRunningApps'",
        ),
        (
            lambda: hadoop1_space(
                SpaceSpec().with_overrides(["root.deadline.fairSharePreemptionTimeout=30:600"])
            ),
            r"root.deadline.fairSharePreemptionTimeout: expected root.fairSharePreemptionTimeout "
            r"\(Hadoop 1 \(MRv1\) reads fairSharePreemptionTimeout only at the top of the file\)",
        ),
        (
            lambda: hadoop1_space(("minMaps",), None, hadoop_version=1),
            r"root.deadline.minMaps: cluster: required to bound minMaps",
        ),
        (
            lambda: hadoop1_space(SpaceSpec(), MEMORY, hadoop_version=1),
            r"hadoop_version 1: expected a slot cluster \(map-slots=N,reduce-slots=M\) for Hadoop 1, "
            r"got the cluster memory-mb=102400,vcores=100",
        ),
    ],
)
def test_a_setting_of_the_wrong_dialect_is_a_clear_error(build, match):
    """Unknown or wrong-dialect names raise ValidationError naming the setting and the known ones."""
    with pytest.raises(ValidationError, match=match):
        build()


def test_rules_bound_hadoop_1_settings_in_slots():
    """Percentages of a slot setting are of that slot type; the top-level timeout is tuned on root."""
    space = hadoop1_space(
        SpaceSpec(settings=("weight",)).with_overrides(
            [
                "deadline.minMaps=0:50%",
                "root.besteffort.maxReduces=2:",
                "root.fairSharePreemptionTimeout=30:900",
                "root.besteffort.schedulingMode=default",
            ]
        )
    )
    bounds = {d.name: (d.low, d.high) for d in space.dimensions}
    assert bounds["root.deadline.minMaps"] == (0, 15)
    assert bounds["root.besteffort.maxReduces"] == (2, 10)
    assert bounds["root.fairSharePreemptionTimeout"] == (30, 900)
    assert space.dimensions[space.index("root.besteffort.schedulingMode")].choices == (
        "fair",
        "fifo",
    )


def test_the_hadoop_version_follows_the_user_then_the_cluster_then_the_file():
    """Chosen version first; a slot cluster means 1; <pool>s mean 1 only without a cluster."""
    doc = pools()
    assert hadoop_version_for(2, cluster=MEMORY, document=doc) == 2
    assert hadoop_version_for(None, cluster=SLOTS) == 1
    assert hadoop_version_for(None, cluster=None, document=doc) == 1
    assert hadoop_version_for(None, cluster=MEMORY, document=doc) == 3
    assert hadoop_version_for(None, document=AllocationDocument.from_bytes(QUEUES)) == 3
    with pytest.raises(
        ValidationError, match=r"hadoop_version 3: expected a memory/vcores cluster"
    ):
        hadoop_version_for(3, cluster=SLOTS)


def test_schedulingpolicy_offers_drf_only_under_a_drf_parent():
    """Hadoop 3 refuses a drf queue under a fair parent, so drf is a choice only under drf."""
    doc = AllocationDocument.from_bytes(
        b"<allocations>\n"
        b'  <queue name="a"><schedulingPolicy>drf</schedulingPolicy>\n'
        b'    <queue name="x"/><queue name="y"/></queue>\n'
        b'  <queue name="b"/>\n'
        b"</allocations>\n"
    )
    space = ConfigurationSpace.from_spec(
        SpaceSpec(settings=("schedulingPolicy",)), effective_allocation(doc), MEMORY
    )
    choices = {d.name: d.choices for d in space.dimensions}
    assert choices == {
        "root.a.x.schedulingPolicy": ("fair", "fifo", "drf"),
        "root.a.y.schedulingPolicy": ("fair", "fifo", "drf"),
        "root.b.schedulingPolicy": ("fair", "fifo"),
    }
