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


HADOOP1 = b"""<allocations>
  <pool name="etl"><minMaps>2</minMaps></pool>
  <pool name="bi"/>
</allocations>
"""


def test_a_hadoop1_file_is_diffed_in_hadoop1_element_names_one_row_a_setting():
    """A pool's maxRunningJobs is one row named maxRunningJobs (not also maxRunningApps),
    schedulingMode is schedulingMode, and a top-level default is named by its element."""
    doc = AllocationDocument.from_bytes(HADOOP1)
    jobs = AllocationDocument.from_bytes(
        HADOOP1.replace(
            b'<pool name="bi"/>',
            b'<pool name="bi"><maxRunningJobs>3</maxRunningJobs><schedulingMode>fifo</schedulingMode></pool>',
        )
    )
    found = diff_allocations(doc, jobs, hadoop_version=1)
    assert [d.describe() for d in found] == [
        "root.bi  maxRunningJobs: - -> 3",
        "root.bi  schedulingMode: fair -> fifo",
    ]
    default = AllocationDocument.from_bytes(
        HADOOP1.replace(
            b"<allocations>", b"<allocations><poolMaxJobsDefault>5</poolMaxJobsDefault>"
        )
    )
    rows = diff_allocations(doc, default, hadoop_version=1)
    assert {d.element for d in rows} == {"maxRunningJobs", "poolMaxJobsDefault"}
    assert [d.queue for d in rows if d.element == "poolMaxJobsDefault"] == ["(defaults)"]


def test_yarn_defaults_are_named_by_their_elements_and_not_listed_twice():
    """queueMaxAppsDefault changes the defaults' row (named queueMaxAppsDefault) and every
    queue inheriting it; its written text is not a second row of the same change."""
    doc = AllocationDocument.from_bytes(BASE)
    changed = AllocationDocument.from_bytes(
        BASE.replace(b"<allocations>", b"<allocations><queueMaxAppsDefault>4</queueMaxAppsDefault>")
    )
    rows = diff_allocations(doc, changed)
    assert [(d.queue, d.element) for d in rows if d.queue.startswith("(")] == [
        ("(defaults)", "queueMaxAppsDefault")
    ]
    assert not [d for d in rows if d.setting.startswith("written:")]
