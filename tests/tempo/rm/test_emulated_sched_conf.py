"""The scheduler-conf mutation as Hadoop applies it (ConfigurationUpdateAssembler), on documents."""

from __future__ import annotations

import pytest
from emulated import capacity_xml

from tempo.rm.emulated_sched_conf import (
    QueueChange,
    SchedConfError,
    SchedConfUpdate,
    apply_sched_conf,
    parse_sched_conf,
    queue_change_issues,
)
from tempo.rm.sched_conf import sched_conf_update
from whatif.capacity import ConfigurationDocument

P = "yarn.scheduler.capacity."
BASE = ConfigurationDocument.from_bytes(
    capacity_xml(
        {
            "prod.capacity": "75",
            "prod.user-limit-factor": "4",
            "engineer.capacity": "25",
            "engineer.maximum-capacity": "50",
        }
    )
)


def test_parse_reads_every_section_empty_and_null_values():
    body = b"""<sched-conf>
      <remove-queue>root.old</remove-queue>
      <add-queue><queue-name>root.dev</queue-name>
        <params><entry><key>capacity</key><value>10</value></entry></params></add-queue>
      <update-queue><queue-name>root.prod</queue-name>
        <params><entry><key>capacity</key><value>65</value></entry>
        <entry><key>user-limit-factor</key><value></value></entry></params></update-queue>
      <global-updates><entry><key>a.b</key></entry>
        <entry><key>c.d</key><value>1</value></entry></global-updates>
    </sched-conf>"""
    update = parse_sched_conf(body)
    assert update.remove == ("root.old",)
    assert update.add == (QueueChange("root.dev", (("capacity", "10"),)),)
    assert update.update == (
        QueueChange("root.prod", (("capacity", "65"), ("user-limit-factor", ""))),
    )
    assert update.globals_ == (("a.b", None), ("c.d", "1"))


def test_an_unreadable_body_is_refused():
    """Not XML, another document, an update naming no queue: each refused, saying why."""
    refused = {
        b"{}": "not XML",
        b"<configuration/>": "not <sched-conf>",
        b"<sched-conf><update-queue><params/></update-queue></sched-conf>": "no <queue-name>",
    }
    for body, reason in refused.items():
        with pytest.raises(SchedConfError, match=reason):
            parse_sched_conf(body)


def test_update_queue_sets_and_an_empty_value_unsets():
    update = SchedConfUpdate(
        update=(QueueChange("root.prod", (("capacity", "60"), ("user-limit-factor", ""))),)
    )
    new = apply_sched_conf(BASE, update)
    assert new.value(P + "root.prod.capacity") == "60"
    assert new.value(P + "root.prod.user-limit-factor") is None
    # nothing else changed
    assert {n: new.value(n) for n in new.names() if "prod" not in n} == {
        n: BASE.value(n) for n in BASE.names() if "prod" not in n
    }


def test_a_global_update_without_value_unsets_and_an_empty_one_sets_empty():
    doc = BASE.set(P + "maximum-am-resource-percent", "0.2")
    new = apply_sched_conf(
        doc,
        SchedConfUpdate(globals_=((P + "maximum-am-resource-percent", None), ("x.y", ""))),
    )
    assert new.value(P + "maximum-am-resource-percent") is None
    assert new.value("x.y") == ""


def test_add_queue_appends_to_the_parent_and_sets_its_params():
    new = apply_sched_conf(
        BASE,
        SchedConfUpdate(
            add=(QueueChange("root.dev", (("capacity", "10"), ("state", ""))),),
            update=(QueueChange("root.prod", (("capacity", "65"),)),),
        ),
    )
    assert new.value(P + "root.queues") == "prod,engineer,dev"
    assert new.value(P + "root.dev.capacity") == "10"
    assert new.value(P + "root.dev.state") is None
    assert new.value(P + "root.prod.capacity") == "65"


def test_a_first_child_unsets_the_new_parents_ordering_policy():
    doc = BASE.set(P + "root.engineer.ordering-policy", "fair")
    new = apply_sched_conf(
        doc, SchedConfUpdate(add=(QueueChange("root.engineer.a", (("capacity", "100"),)),))
    )
    assert new.value(P + "root.engineer.queues") == "a"
    assert new.value(P + "root.engineer.ordering-policy") is None


def test_remove_queue_drops_the_name_and_every_property_under_the_path():
    doc = BASE.set(P + "root.engineer.state", "STOPPED").set(P + "root.engineer.a.capacity", "1")
    new = apply_sched_conf(
        doc,
        SchedConfUpdate(
            remove=("root.engineer",), update=(QueueChange("root.prod", (("capacity", "100"),)),)
        ),
    )
    assert new.value(P + "root.queues") == "prod"
    assert [n for n in new.names() if "engineer" in n] == []
    assert new.value(P + "root.prod.capacity") == "100"
    assert queue_change_issues(doc, new) == []


def test_removing_the_last_child_unsets_the_parents_list_and_ordering_policy():
    doc = BASE.set(P + "root.engineer.queues", "a").set(P + "root.engineer.ordering-policy", "x")
    new = apply_sched_conf(doc, SchedConfUpdate(remove=("root.engineer.a",)))
    assert new.value(P + "root.engineer.queues") is None
    assert new.value(P + "root.engineer.ordering-policy") is None


@pytest.mark.parametrize(
    ("update", "reason"),
    [
        (SchedConfUpdate(remove=("root",)), "Can't remove queue root"),
        (SchedConfUpdate(remove=("root.nope",)), "Queue root.nope not found"),
        (SchedConfUpdate(add=(QueueChange("dev", ()),)), "Can't add invalid queue dev"),
        (
            SchedConfUpdate(add=(QueueChange("root.prod", ()),)),
            "Can't add existing queue root.prod",
        ),
    ],
)
def test_the_assemblers_refusals(update, reason):
    with pytest.raises(SchedConfError, match=reason):
        apply_sched_conf(BASE, update)


def test_removing_a_running_queue_or_growing_children_under_a_running_leaf_is_refused():
    removed = apply_sched_conf(
        BASE,
        SchedConfUpdate(
            remove=("root.engineer",), update=(QueueChange("root.prod", (("capacity", "100"),)),)
        ),
    )
    assert queue_change_issues(BASE, removed) == [
        "root.engineer cannot be deleted from the capacity scheduler configuration, as the "
        "queue is not yet in stopped state. Current State : RUNNING"
    ]
    grown = apply_sched_conf(
        BASE, SchedConfUpdate(add=(QueueChange("root.engineer.a", (("capacity", "100"),)),))
    )
    assert queue_change_issues(BASE, grown) == [
        "Can not convert the leaf queue: root.engineer to parent queue since it is not yet "
        "in stopped state. Current State : RUNNING"
    ]
    stopped = BASE.set(P + "root.engineer.state", "STOPPED")
    assert (
        queue_change_issues(
            stopped,
            apply_sched_conf(
                stopped,
                SchedConfUpdate(add=(QueueChange("root.engineer.a", (("capacity", "100"),)),)),
            ),
        )
        == []
    )


def test_tempos_own_update_round_trips_to_the_target_configuration():
    """What `tempo.rm.sched_conf.sched_conf_update` sends, applied to the old document,
    gives the new one's properties (a change, an unset queue property, a global)."""
    new = (
        BASE.set(P + "root.prod.capacity", "60")
        .set(P + "root.engineer.capacity", "40")
        .set(P + "root.prod.user-limit-factor", None)
        .set(P + "maximum-am-resource-percent", "0.3")
    )
    got = apply_sched_conf(BASE, parse_sched_conf(sched_conf_update(BASE, new)))
    assert {n: got.value(n) for n in got.names()} == {n: new.value(n) for n in new.names()}
    back = apply_sched_conf(got, parse_sched_conf(sched_conf_update(new, BASE)))
    assert {n: back.value(n) for n in back.names()} == {n: BASE.value(n) for n in BASE.names()}
