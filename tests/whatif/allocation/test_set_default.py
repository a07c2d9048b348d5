"""Writing top-level elements (`AllocationDocument.set_default`) and Hadoop 1 pool elements."""

from __future__ import annotations

import math

import pytest

from whatif.allocation import NEVER_TIMEOUT_S, AllocationDocument, effective_allocation
from whatif.errors import AllocationError

POOLS = b"""<?xml version="1.0"?>
<allocations>
  <pool name="prod">
    <minMaps>20</minMaps>
  </pool>
  <defaultMinSharePreemptionTimeout>600</defaultMinSharePreemptionTimeout>
</allocations>
"""


def test_set_default_adds_after_the_last_top_level_setting_and_removes_for_never():
    """A new top-level element goes after the last one; never (inf) removes it, restoring the bytes."""
    doc = AllocationDocument.from_bytes(POOLS)
    added = doc.set_default("fairSharePreemptionTimeout", 300)
    assert added.to_bytes() == POOLS.replace(
        b"</defaultMinSharePreemptionTimeout>\n",
        b"</defaultMinSharePreemptionTimeout>\n"
        b"  <fairSharePreemptionTimeout>300</fairSharePreemptionTimeout>\n",
    )
    assert effective_allocation(added, hadoop_version=1).root.fair_share_preemption_timeout_s == 300
    assert added.set_default(
        "fairSharePreemptionTimeout", 45
    ).to_bytes() == added.to_bytes().replace(b">300<", b">45<")
    assert added.set_default("fairSharePreemptionTimeout", math.inf).to_bytes() == POOLS


def test_set_default_in_a_file_without_top_level_settings():
    """Without other top-level settings the element opens <allocations>, indented like the pools."""
    doc = AllocationDocument.from_bytes(b'<allocations>\n    <pool name="a"/>\n</allocations>\n')
    assert doc.set_default("fairSharePreemptionTimeout", 30).to_bytes() == (
        b"<allocations>\n"
        b"    <fairSharePreemptionTimeout>30</fairSharePreemptionTimeout>\n"
        b'    <pool name="a"/>\n'
        b"</allocations>\n"
    )


def test_never_is_written_when_removing_would_let_the_legacy_element_apply():
    """defaultFairSharePreemptionTimeout=never with a finite legacy fairSharePreemptionTimeout."""
    doc = AllocationDocument.from_bytes(
        b"<allocations>\n  <fairSharePreemptionTimeout>60</fairSharePreemptionTimeout>\n"
        b"  <defaultFairSharePreemptionTimeout>90</defaultFairSharePreemptionTimeout>\n"
        b"</allocations>\n"
    )
    never = doc.set_default("defaultFairSharePreemptionTimeout", math.inf)
    assert f">{NEVER_TIMEOUT_S}<".encode() in never.to_bytes()
    assert math.isinf(effective_allocation(never).root.fair_share_preemption_timeout_s)


def test_set_default_rejects_queue_settings_and_bad_values():
    doc = AllocationDocument.from_bytes(POOLS)
    with pytest.raises(
        AllocationError, match=r"unknown top-level setting 'weight'; expected one of"
    ):
        doc.set_default("weight", 2.0)
    with pytest.raises(
        AllocationError, match=r"<allocations> poolMaxJobsDefault: expected a value >= 0"
    ):
        doc.set_default("poolMaxJobsDefault", -1)


def test_a_new_scheduling_mode_keeps_the_name_hadoop_1_reads():
    """set(..., "schedulingMode", ...) writes <schedulingMode>, the only name Hadoop 1 reads."""
    doc = AllocationDocument.from_bytes(POOLS).set("root.prod", "schedulingMode", "fifo")
    assert b"    <schedulingMode>fifo</schedulingMode>\n" in doc.to_bytes()
    assert (
        effective_allocation(doc, hadoop_version=1).queue("root.prod").scheduling_policy == "fifo"
    )


def test_hadoop_1_does_not_read_scheduling_policy_in_a_pool():
    """A YARN <schedulingPolicy> in a <pool> leaves Hadoop 1's mode at its default; YARN reads it."""
    doc = AllocationDocument.from_bytes(POOLS).set(
        "root.prod", "schedulingPolicy", "fifo", hadoop_version=3
    )
    assert b"<schedulingPolicy>fifo</schedulingPolicy>" in doc.to_bytes()
    assert (
        effective_allocation(doc, hadoop_version=1).queue("root.prod").scheduling_policy == "fair"
    )
    assert (
        effective_allocation(doc, hadoop_version=3).queue("root.prod").scheduling_policy == "fifo"
    )
