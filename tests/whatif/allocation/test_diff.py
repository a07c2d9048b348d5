"""diff_allocations: semantic differences, effective first, then written-only ones."""

import math

from whatif.allocation import AllocationDocument, SettingDiff, diff_allocations

BASE = b"""<allocations>
  <queue name="a"><weight>1.0</weight><minSharePreemptionTimeout>30</minSharePreemptionTimeout>
    <queue name="a1"/>
  </queue>
  <queue name="b"/>
</allocations>
"""


def test_identical_files_have_no_differences():
    """A document compared with itself gives nothing."""
    doc = AllocationDocument.from_bytes(BASE)
    assert diff_allocations(doc, doc) == []


def test_inherited_change_shows_on_every_affected_queue():
    """A parent's timeout change shows on the parent and the child inheriting it."""
    doc = AllocationDocument.from_bytes(BASE)
    changed = doc.set("root.a", "minSharePreemptionTimeout", math.inf)
    assert diff_allocations(doc, changed) == [
        SettingDiff("root.a", "min_share_preemption_timeout_s", 30.0, math.inf),
        SettingDiff("root.a.a1", "min_share_preemption_timeout_s", 30.0, math.inf),
    ]


def test_written_only_difference_is_listed_as_written():
    """1.0 versus 1 has no effect but is listed as a written difference."""
    doc = AllocationDocument.from_bytes(BASE)
    other = AllocationDocument.from_bytes(BASE.replace(b"<weight>1.0<", b"<weight>1<"))
    assert diff_allocations(doc, other) == [SettingDiff("root.a", "written:weight", "1.0", "1")]


def test_added_queue_is_reported():
    """A queue only one file has is reported as present/absent."""
    doc = AllocationDocument.from_bytes(BASE)
    other = AllocationDocument.from_bytes(BASE.replace(b'<queue name="b"/>', b'<queue name="c"/>'))
    found = diff_allocations(doc, other)
    assert SettingDiff("root.b", "queue", "present", None) in found
    assert SettingDiff("root.c", "queue", None, "present") in found
