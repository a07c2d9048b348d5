"""Capacity Scheduler -> Fair Scheduler conversion (`whatif.capacity.to_fair`, issue 26)."""

from pathlib import Path

import pytest
from samples import capacity_document

from whatif.allocation import AllocationDocument, effective_allocation, validate
from whatif.allocation.effective import EffectiveAllocation, Resources
from whatif.capacity import ConfigurationDocument
from whatif.capacity.convert import convert
from whatif.capacity.to_fair import FairConversion, to_fair

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
P = "yarn.scheduler.capacity."


def fair(doc: ConfigurationDocument, **kwargs) -> tuple[EffectiveAllocation, FairConversion]:
    """`doc` converted, its allocation file valid to the Fair Scheduler: the file's effective
    allocation and the conversion's result."""
    result = to_fair(doc, **kwargs)
    allocation = AllocationDocument.from_bytes(result.to_xml().encode())
    assert [i for i in validate(allocation) if i.severity == "error"] == []
    return effective_allocation(allocation), result


def ratios(allocation: EffectiveAllocation) -> dict[str, float]:
    """Each queue's weight over its siblings' total."""
    out = {}
    for queue in allocation.queues():
        total = sum(c.weight for c in queue.children)
        for child in queue.children:
            out[child.name] = child.weight / total
    return out


@pytest.mark.parametrize(
    "sample", ["two-tenant-expert.xml", "six-tenant-expert.xml", "contended-expert.xml"]
)
@pytest.mark.parametrize("percentage", [False, True])
def test_round_trip_keeps_the_weights_ratios(sample, percentage):
    original = AllocationDocument.from_file(CONFIGS / sample)
    text = convert(original, percentage=percentage).to_xml()
    back, _ = fair(ConfigurationDocument.from_bytes(text.encode()))
    expected, got = ratios(effective_allocation(original)), ratios(back)
    assert set(got) == set(expected)
    for name, share in expected.items():
        assert got[name] == pytest.approx(share, abs=1e-4), name


def test_round_trip_keeps_the_limits_and_policies():
    original = AllocationDocument.from_file(CONFIGS / "two-tenant-expert.xml")
    cs = ConfigurationDocument.from_bytes(convert(original).to_xml().encode())
    back = fair(cs)[0]
    engineer, prod = back.queue("engineer"), back.queue("prod")
    assert engineer.max_running_apps == 40 and engineer.max_am_share == pytest.approx(0.5)
    assert prod.max_am_share == pytest.approx(0.3) and not prod.allow_preemption_from
    assert engineer.scheduling_policy == prod.scheduling_policy == "fair"
    assert back.user_max_apps_default == 50


def test_settings_map_onto_their_fair_counterparts():
    doc = capacity_document(
        {
            "root.queues": "a,b",
            "root.a.queues": "x,y",
            "root.a.capacity": "60",
            "root.b.capacity": "40",
            "root.a.maximum-capacity": "50",
            "root.a.x.capacity": "1w",
            "root.a.y.capacity": "3w",
            "root.a.y.maximum-capacity": "50",
            "root.b.max-parallel-apps": "7",
            "root.b.maximum-am-resource-percent": "0.4",
            "root.b.ordering-policy": "fair",
            "root.b.disable_preemption": "true",
            "root.b.maximum-allocation-mb": "4096",
            "root.b.maximum-allocation-vcores": "4",
            "root.b.acl_submit_applications": "alice ops",
            "max-parallel-apps": "20",
            "user.max-parallel-apps": "5",
            "user.bob.max-parallel-apps": "2",
        }
    )
    eff, result = fair(doc)
    a, b, x, y = (eff.queue(q) for q in ("root.a", "root.b", "root.a.x", "root.a.y"))
    assert (a.weight, b.weight, x.weight, y.weight) == (60, 40, 1, 3)
    assert a.max_resources.percent == (50.0, 50.0)
    assert y.max_resources.percent == (25.0, 25.0)  # 50 % of a's 50 %: of the cluster
    assert b.max_running_apps == 7 and b.max_am_share == pytest.approx(0.4)
    assert b.scheduling_policy == "fair" and x.scheduling_policy == "fifo"  # CS default
    assert not b.allow_preemption_from
    assert b.max_container_allocation.absolute == Resources(4096, 4)
    assert eff.defaults.max_running_apps == 20 and eff.defaults.max_am_share == pytest.approx(0.1)
    assert eff.user_max_apps_default == 5 and eff.user_max_apps == {"bob": 2}
    assert result.not_carried == ()
    assert "aclSubmitApps>alice ops<" in result.to_xml()


def test_what_does_not_carry_over_is_reported():
    doc = capacity_document(
        {
            "root.queues": "a,b",
            "root.a.capacity": "50",
            "root.b.capacity": "50",
            "root.b.state": "STOPPED",
            "root.a.user-limit-factor": "2",
            "root.a.minimum-user-limit-percent": "25",
            "root.a.accessible-node-labels": "gpu",
            "root.a.maximum-applications": "100",
            "queue-mappings": "u:alice:a",
            "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill": "5000",
        }
    )
    lost = "\n".join(fair(doc)[1].not_carried)
    assert "root.b: state STOPPED: the Fair Scheduler has no queue state" in lost
    assert f"{P}root.a.user-limit-factor: user limits" in lost
    assert f"{P}root.a.minimum-user-limit-percent: user limits" in lost
    assert f"{P}root.a.accessible-node-labels: node labels" in lost
    assert f"{P}root.a.maximum-applications: Fair has no cap" in lost
    assert f"{P}queue-mappings: placement" in lost
    assert "max_wait_before_kill: the preemption monitor" in lost


def test_absolute_capacities_become_min_resources_and_memory_weights():
    doc = capacity_document(
        {
            "root.queues": "a,b",
            "root.a.capacity": "[memory=30720,vcores=30]",
            "root.b.capacity": "[memory=10240,vcores=10]",
            "root.a.maximum-capacity": "[memory=61440,vcores=60]",
            "root.b.maximum-capacity": "[memory=51200,vcores=50]",
            "root.b.queues": "c",
            "root.b.c.capacity": "100",
            "root.b.c.maximum-capacity": "50",
        }
    )
    eff, result = fair(doc)
    a = eff.queue("root.a")
    assert a.min_resources == Resources(30720, 30)
    assert a.max_resources.absolute == Resources(61440, 60)
    assert a.weight / eff.queue("root.b").weight == pytest.approx(3)
    # c's maximum is a share of b's absolute resources: it needs the cluster size
    assert any(line.startswith("root.b.c: maximum-capacity 50") for line in result.not_carried)
    with_cluster = fair(doc, cluster=Resources(102400, 100))[0]
    assert with_cluster.queue("root.b.c").max_resources.percent == (25.0, 25.0)


def test_the_dominant_resource_calculator_makes_fair_leaves_drf():
    doc = capacity_document(
        {
            "root.queues": "a,b",
            "root.a.capacity": "50",
            "root.b.capacity": "50",
            "root.a.ordering-policy": "fair",
            "resource-calculator": "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator",
        }
    )
    eff = fair(doc)[0]
    assert eff.queue("root.a").scheduling_policy == "drf"
    assert eff.queue("root.b").scheduling_policy == "fifo"


def test_checked_xml_refuses_a_conversion_hadoop_would_refuse():
    """The library refuses what `tempo config convert` refuses: a Capacity file whose
    negative container limit the Capacity Scheduler does not check converts to an allocation
    file the Fair Scheduler would refuse; a Fair queue whose name holds a space converts to
    a capacity-scheduler.xml the Capacity Scheduler would refuse. Both name the queue and
    the setting; a valid conversion's checked text is its `to_xml`."""
    from whatif.capacity.document import CapacityConfigError

    bad = capacity_document(
        {"root.queues": "a,b", "root.a.capacity": "50", "root.b.capacity": "50",
         "root.a.maximum-allocation-mb": "-5", "root.a.maximum-allocation-vcores": "2"}
    )  # fmt: skip
    with pytest.raises(CapacityConfigError, match=r"^in.xml: cannot convert: .*queue root\.a"):
        to_fair(bad).checked_xml("in.xml")
    spaced = AllocationDocument.from_bytes(
        b'<allocations><queue name="a b"><weight>1</weight></queue></allocations>'
    )
    with pytest.raises(CapacityConfigError, match="queue name 'a b' contains white space"):
        convert(spaced).checked_xml("fair.xml")
    good = to_fair(capacity_document({"root.queues": "a", "root.a.capacity": "100"}))
    assert good.checked_xml("cs.xml") == good.to_xml(source="cs.xml")
