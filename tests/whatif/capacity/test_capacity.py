"""capacity-scheduler.xml: byte-faithful edits, Hadoop's validation rules, effective values."""

from __future__ import annotations

from pathlib import Path

import pytest

from whatif.allocation.effective import Resources
from whatif.capacity import (
    CapacityConfigError,
    ConfigurationDocument,
    apply_assignments,
    effective_queues,
    is_capacity_scheduler,
    validate,
    write_capacity,
)
from whatif.capacity.values import java_boolean

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "hadoop" / "alloc"
SLS = SHARED / "sls-sample-capacity-scheduler.xml"
P = "yarn.scheduler.capacity."


def conf(props: dict[str, str]) -> bytes:
    body = "".join(
        f"  <property>\n    <name>{k}</name>\n    <value>{v}</value>\n  </property>\n"
        for k, v in props.items()
    )
    return f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n'.encode()


def two(a: str = "60", b: str = "40", **extra: str) -> dict[str, str]:
    props = {P + "root.queues": "a,b", P + "root.a.capacity": a, P + "root.b.capacity": b}
    props.update({P + k: v for k, v in extra.items()})
    return props


def capacity_props(*assignments: str) -> dict[str, str]:
    """``KEY=VALUE`` assignments as properties, each KEY under the ``yarn.scheduler.capacity.`` prefix."""
    return {P + key: value for key, value in (a.split("=", 1) for a in assignments)}


def errors(props: dict[str, str]) -> list[str]:
    return [i.message for i in validate(conf(props)) if i.severity == "error"]


def refuses(props: dict[str, str], message: str) -> bool:
    """One of the errors validating `props` contains `message`."""
    return any(message in m for m in errors(props))


def warnings(props: dict[str, str]) -> list[str]:
    return [i.message for i in validate(conf(props)) if i.severity == "warning"]


# ------------------------------------------------------------------ document
@pytest.mark.skipif(not SLS.exists(), reason="shared fixtures not present")
def test_round_trip_is_byte_identical(tmp_path: Path) -> None:
    doc = ConfigurationDocument.from_file(SLS)
    assert doc.to_bytes() == SLS.read_bytes()
    write_capacity(doc, tmp_path / "out.xml")
    assert (tmp_path / "out.xml").read_bytes() == SLS.read_bytes()


@pytest.mark.skipif(not SLS.exists(), reason="shared fixtures not present")
def test_set_changes_exactly_one_value() -> None:
    doc = ConfigurationDocument.from_file(SLS)
    changed = apply_assignments(doc, ["root.sls_queue_1.capacity=40"])
    old, new = doc.to_bytes().decode(), changed.to_bytes().decode()
    assert new == old.replace(
        "root.sls_queue_1.capacity</name>\n    <value>25<",
        "root.sls_queue_1.capacity</name>\n    <value>40<",
    )
    assert changed.value(P + "root.sls_queue_1.capacity") == "40"


def test_absent_property_is_added_with_the_files_indentation() -> None:
    data = b"<configuration>\n\t<property>\n\t\t<name>yarn.scheduler.capacity.root.queues</name>\n\t\t<value>a</value>\n\t</property>\n\t<property>\n\t\t<name>yarn.scheduler.capacity.root.a.capacity</name>\n\t\t<value>100</value>\n\t</property>\n</configuration>\n"
    doc = ConfigurationDocument.from_bytes(data)
    changed = apply_assignments(doc, ["root.a.user-limit-factor=2"])
    assert changed.to_bytes() == data.replace(
        b"<value>100</value>\n\t</property>\n",
        b"<value>100</value>\n\t</property>\n\t<property>\n\t\t<name>yarn.scheduler.capacity."
        b"root.a.user-limit-factor</name>\n\t\t<value>2</value>\n\t</property>\n",
    )
    removed = apply_assignments(changed, ["root.a.user-limit-factor=default"])
    assert removed.to_bytes() == data


def test_one_line_properties_stay_one_line() -> None:
    data = (
        b"<configuration>\n"
        b"<property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>\n"
        b"</configuration>\n"
    )
    changed = ConfigurationDocument.from_bytes(data).set(P + "root.a.capacity", "100")
    assert (
        b"<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property>\n</configuration>"
        in changed.to_bytes()
    )


def test_value_whitespace_comments_and_escapes_are_kept() -> None:
    data = conf(two()).replace(b"<value>60</value>", b"<value> 60 </value><!-- prod -->")
    doc = ConfigurationDocument.from_bytes(data)
    changed = doc.set(P + "root.a.capacity", "70")
    assert b"<value> 70 </value><!-- prod -->" in changed.to_bytes()
    acl = doc.set(P + "root.a.acl_submit_applications", "a&b <x>")
    assert acl.value(P + "root.a.acl_submit_applications") == "a&b <x>"


def test_set_refuses_undeclared_queues_and_bad_values() -> None:
    doc = ConfigurationDocument.from_bytes(conf(two()))
    for bad, words in [
        ("root.c.capacity=10", "not declared"),
        ("root.a.capacity=150", "Illegal capacity of 150"),
        ("root.a.capacity=abc", "For input string"),
        ("root.a.state=DRAINING", "RUNNING or STOPPED"),
        ("root.a.ordering-policy=drf", "fifo, fair"),
        ("root.ordering-policy=fair", "utilization"),
        ("root.a.frobnicate=1", "unknown queue setting"),
        ("root.capacity=50", "always 100"),
        ("root.a.maximum-applications=1.5", "For input string"),
        ("nonsense", "expected root.QUEUE.SETTING=VALUE"),
    ]:
        with pytest.raises(CapacityConfigError, match=words):
            apply_assignments(doc, [bad])


def test_final_property_wins_and_repeats_warn() -> None:
    data = conf(two()).replace(
        b"</configuration>",
        b"  <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>10</value>"
        b"</property>\n</configuration>",
    )
    doc = ConfigurationDocument.from_bytes(data)
    assert doc.value(P + "root.a.capacity") == "10"
    assert any("repeats line" in i.message for i in validate(doc))
    final = data.replace(b"<value>60</value>", b"<value>60</value><final>true</final>")
    assert ConfigurationDocument.from_bytes(final).value(P + "root.a.capacity") == "60"


def test_detection() -> None:
    assert is_capacity_scheduler(SLS) or not SLS.exists()
    assert not is_capacity_scheduler(
        Path(__file__).resolve().parents[3] / "configs" / "two-tenant-expert.xml"
    )


# ------------------------------------------------------------------ validation
def test_valid_two_queue_file() -> None:
    assert validate(conf(two())) == []


def test_children_must_sum_to_100_within_hadoops_precision() -> None:
    issues = validate(conf(two("60", "50")))
    assert [(i.severity, i.line) for i in issues] == [("error", 3)]  # the root.queues property
    assert "Illegal capacity sum of 110" in issues[0].message
    assert errors(two("60", "40.04")) == []  # within 0.05 %
    assert errors(two("60", "40.1"))


def test_zero_sum_is_allowed_only_when_the_parent_allows_it() -> None:
    props = capacity_props(
        "root.queues=p",
        "root.p.capacity=100",
        "root.p.queues=x,y",
        "root.p.x.capacity=0",
        "root.p.y.capacity=0",
    )
    assert refuses(props, "doesn't allow children capacity")
    props[P + "root.p.allow-zero-capacity-sum"] = "true"
    assert errors(props) == []


def test_three_modes_and_mixing_rules() -> None:
    assert errors(two("3w", "1w")) == []
    assert errors(two("[memory=4096,vcores=4]", "[memory=2048,vcores=2]")) == []
    assert refuses(two("60", "1w"), "mixed of weight mode")
    assert refuses(two("[memory=1024,vcores=1]", "40"), "mixed of weight mode")
    # a 0 % sibling does not count as percentage mode (Hadoop: capacity > 0)
    assert errors(two("0", "1w")) == []


def test_absolute_children_need_an_absolute_parent_with_room() -> None:
    props = capacity_props(
        "root.queues=p,q",
        "root.p.capacity=50",
        "root.q.capacity=50",
        "root.p.queues=x",
        "root.p.x.capacity=[memory=1024,vcores=1]",
    )
    assert refuses(props, "both parent and child all use absolute")
    props[P + "root.p.capacity"] = "[memory=1024,vcores=1]"
    props[P + "root.q.capacity"] = "[memory=1024,vcores=1]"
    assert errors(props) == []
    props[P + "root.p.x.capacity"] = "[memory=2048,vcores=1]"
    assert refuses(props, "less than to its children")


def test_weights_are_bounded() -> None:
    assert refuses(two("20000w", "1w"), "Illegal weight=20000")


def test_maximum_capacity_rules() -> None:
    assert errors(two(**{"root.a.maximum-capacity": "60"})) == []
    assert errors(two(**{"root.a.maximum-capacity": "-1"})) == []
    assert refuses(
        two(**{"root.a.maximum-capacity": "50"}), "greater than its absolute maximumCapacity"
    )
    assert refuses(two(**{"root.a.maximum-capacity": "120"}), "maximumCapacity")


def test_states() -> None:
    assert refuses(two(**{"root.a.state": "PAUSED"}), "We can only use RUNNING or STOPPED")
    props = capacity_props(
        "root.queues=p",
        "root.p.capacity=100",
        "root.p.state=STOPPED",
        "root.p.queues=x",
        "root.p.x.capacity=100",
    )
    assert errors(props) == []
    props[P + "root.p.x.state"] = "running"
    assert refuses(props, "cannot be STOPPED")


@pytest.mark.parametrize(
    ("extra", "severity", "message"),
    [
        (
            {"root.a.ordering-policy": "drf"},
            "error",
            "Unable to construct ordering policy for: drf",
        ),
        ({"root.ordering-policy": "fifo"}, "error", "queue ordering policy=fifo"),
        ({"root.a.user-limit-factor": "x"}, "error", "expected a number"),
        ({"root.a.maximum-applications": "1e3"}, "error", "expected an integer"),
        ({"root.a.maximum-am-resource-percent": "10"}, "warning", "expected 0 to 1"),
        ({"root.a.user-limit-factor": "0"}, "warning", "-1 for no user limit"),
        ({"root.a.minimum-user-limit-percent": "150"}, "warning", "(0, 100]"),
        ({"root.c.capacity": "5"}, "warning", "not declared"),
    ],
)
def test_a_value_hadoop_refuses_or_doubts_is_reported(
    extra: dict[str, str], severity: str, message: str
) -> None:
    """Ordering policies, numbers and limits, undeclared queues: Hadoop's message, as an error
    where Hadoop refuses the file and a warning where it only logs."""
    found = errors(two(**extra)) if severity == "error" else warnings(two(**extra))
    assert any(message in m for m in found)


def test_ordering_policies() -> None:
    assert errors(two(**{"root.a.ordering-policy": "fair", "root.b.ordering-policy": "fifo"})) == []
    assert errors(two(**{"root.ordering-policy": "priority-utilization"})) == []


def test_numbers_and_limits() -> None:
    assert warnings(two(**{"root.a.user-limit-factor": "-1"})) == []


def test_structure_errors() -> None:
    assert refuses({P + "x": "1"}, "missing child queue names for root")
    assert refuses(two() | {P + "root.queues": "a,,b"}, "empty queue name")
    assert refuses(two() | {P + "root.queues": "a,b,a"}, "listed twice")
    issues = validate(b"<allocations/>")
    assert "top-level element not <configuration>" in issues[0].message
    broken = validate(b"<configuration>\n<property>\n</configuration>")
    assert broken[0].severity == "error" and broken[0].line == 3


def test_write_refuses_what_hadoop_rejects(tmp_path: Path) -> None:
    doc = ConfigurationDocument.from_bytes(conf(two("60", "50")))
    with pytest.raises(CapacityConfigError, match="Illegal capacity sum"):
        write_capacity(doc, tmp_path / "x.xml")
    assert not (tmp_path / "x.xml").exists()


# ------------------------------------------------------------------ effective values
def test_effective_defaults_and_inheritance() -> None:
    props = capacity_props(
        "maximum-am-resource-percent=0.2",
        "maximum-applications=1000",
        "user-limit-factor=2",
        "root.queues=p,b",
        "root.p.capacity=40",
        "root.p.state=STOPPED",
        "root.p.queues=x,y",
        "root.p.x.capacity=3w",
        "root.p.y.capacity=1w",
        "root.p.x.maximum-am-resource-percent=0.5",
        "root.p.x.minimum-user-limit-percent=25",
        "root.p.x.ordering-policy=fair",
        "root.p.disable_preemption=true",
        "root.p.y.disable_preemption=maybe",
        "root.b.capacity=60",
        "root.b.maximum-capacity=80",
        "root.b.maximum-applications=7",
    )
    queues = effective_queues(ConfigurationDocument.from_bytes(conf(props)))
    x, y, b = queues["root.p.x"], queues["root.p.y"], queues["root.b"]
    assert x.mode == "weight" and x.absolute_capacity == pytest.approx(0.3)
    assert y.absolute_capacity == pytest.approx(0.1)
    assert x.state == "STOPPED"  # inherited from root.p
    assert x.maximum_am_resource_percent == 0.5
    assert y.maximum_am_resource_percent == pytest.approx(0.2)
    assert x.maximum_applications == 300 and y.maximum_applications == 100
    assert x.maximum_applications_per_user == int(300 * 0.25 * 2)
    assert x.ordering_policy == "fair" and y.ordering_policy == "fifo"
    assert queues["root.p"].ordering_policy == "utilization"
    assert b.maximum_applications == 7 and b.absolute_maximum_capacity == pytest.approx(0.8)
    assert b.user_limit_factor == 2
    # disable_preemption: unset or not a boolean, the parent's (isQueueHierarchyPreemptionDisabled)
    assert x.disable_preemption and y.disable_preemption and not b.disable_preemption


def test_absolute_capacity_needs_the_cluster() -> None:
    doc = ConfigurationDocument.from_bytes(
        conf(two("[memory=4096,vcores=4]", "[memory=12Gi,vcores=12]"))
    )
    assert effective_queues(doc)["root.a"].absolute_capacity is None
    sized = effective_queues(doc, cluster=Resources(16384, 16))
    assert sized["root.a"].absolute_capacity == pytest.approx(0.25)
    assert sized["root.b"].min_resources == Resources(12288, 12)


@pytest.mark.parametrize(
    ("raw", "default", "expected"),
    [
        (None, True, True),
        (None, False, False),
        (" TRUE ", False, True),
        ("False", True, False),
        ("yes", True, True),
        ("yes", False, False),
    ],
)
def test_java_boolean_reads_as_configuration_get_boolean(raw, default, expected):
    """Trimmed true/false in any case; unset or anything else is the default."""
    assert java_boolean(raw, default) is expected
