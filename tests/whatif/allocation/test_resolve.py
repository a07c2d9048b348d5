"""Effective values: Hadoop's defaults and inheritance, rule by rule."""

import math

import pytest

from whatif.allocation import AllocationDocument, ResourceLimit, Resources, effective_allocation
from whatif.allocation.java_values import to_java_float
from whatif.errors import AllocationError


def effective(body: str, *, version: int = 3):
    return effective_allocation(
        AllocationDocument.from_bytes(f"<allocations>{body}</allocations>".encode()),
        hadoop_version=version,
    )


def test_queue_max_apps_default_applies_to_parents_and_root():
    """queueMaxAppsDefault limits every queue without maxRunningApps, root and parents included."""
    tree = effective(
        "<queueMaxAppsDefault>5</queueMaxAppsDefault>"
        '<queue name="a"><queue name="b"/></queue><queue name="c"><maxRunningApps>9</maxRunningApps></queue>'
    )
    assert [tree.queue(q).max_running_apps for q in ("root", "root.a", "root.a.b", "root.c")] == [
        5,
        5,
        5,
        9,
    ]


def test_policy_comes_from_the_default_not_the_parent():
    """A queue without schedulingPolicy gets defaultQueueSchedulingPolicy, not its parent's."""
    tree = effective(
        "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>"
        '<queue name="a"><schedulingPolicy>fair</schedulingPolicy><queue name="b"/></queue>'
    )
    assert tree.queue("root.a").scheduling_policy == "fair"
    assert tree.queue("root.a.b").scheduling_policy == "drf"
    assert tree.root.scheduling_policy == "drf"


def test_preemption_settings_inherit_from_the_parent_and_root_takes_defaults():
    """Timeouts and threshold pass down the tree; root takes the top-level defaults."""
    tree = effective(
        "<defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout>"
        "<defaultFairSharePreemptionThreshold>0.7</defaultFairSharePreemptionThreshold>"
        '<queue name="a"><fairSharePreemptionTimeout>30</fairSharePreemptionTimeout>'
        '<queue name="b"><minSharePreemptionTimeout>10</minSharePreemptionTimeout></queue></queue>'
        '<queue name="c"/>'
    )
    b, c = tree.queue("root.a.b"), tree.queue("root.c")
    assert (b.min_share_preemption_timeout_s, b.fair_share_preemption_timeout_s) == (10, 30)
    assert (c.min_share_preemption_timeout_s, c.fair_share_preemption_timeout_s) == (120, math.inf)
    assert b.fair_share_preemption_threshold == to_java_float(0.7)
    assert tree.defaults.min_share_preemption_timeout_s == 120


def test_legacy_fair_share_timeout_is_used_only_without_the_default():
    """Top-level fairSharePreemptionTimeout counts only when defaultFairSharePreemptionTimeout is absent."""
    legacy = "<fairSharePreemptionTimeout>50</fairSharePreemptionTimeout>"
    assert effective(legacy).root.fair_share_preemption_timeout_s == 50
    both = legacy + "<defaultFairSharePreemptionTimeout>70</defaultFairSharePreemptionTimeout>"
    assert effective(both).root.fair_share_preemption_timeout_s == 70


def test_clamped_values_are_clamped_as_hadoop_does():
    """maxAMShare above 1 becomes 1; thresholds are clamped to [0, 1]."""
    tree = effective(
        '<queue name="a"><maxAMShare>1.5</maxAMShare>'
        "<fairSharePreemptionThreshold>3</fairSharePreemptionThreshold></queue>"
        '<queue name="b"><maxAMShare>-1</maxAMShare></queue>'
    )
    assert tree.queue("root.a").max_am_share == 1.0
    assert tree.queue("root.a").fair_share_preemption_threshold == 1.0
    assert tree.queue("root.b").max_am_share == -1.0


def test_allow_preemption_from_false_covers_the_subtree():
    """A parent with allowPreemptionFrom false makes every queue below it unpreemptable."""
    tree = effective(
        '<queue name="a"><allowPreemptionFrom>false</allowPreemptionFrom>'
        '<queue name="b"><allowPreemptionFrom>true</allowPreemptionFrom></queue></queue><queue name="c"/>'
    )
    assert not tree.queue("root.a.b").allow_preemption_from
    assert tree.queue("root.c").allow_preemption_from


def test_resource_forms_resolve_with_hadoops_missing_values():
    """New-style minimums miss as 0, maximums as unlimited; percentages stay percentages."""
    tree = effective(
        "<queueMaxResourcesDefault>40%</queueMaxResourcesDefault>"
        '<queue name="a"><minResources>memory-mb=2048</minResources>'
        '<maxResources>vcores=8</maxResources></queue><queue name="b"/>'
    )
    a = tree.queue("root.a")
    assert a.min_resources == Resources(2048, 0)
    assert a.max_resources == ResourceLimit(absolute=Resources(math.inf, 8))
    assert tree.queue("root.b").max_resources == ResourceLimit(percent=(40.0, 40.0))


def test_weights_are_java_floats_and_never_timeouts_are_infinite():
    """Weights hold Java float values; a huge timeout means never."""
    tree = effective(
        '<queue name="a"><weight>0.1</weight>'
        "<minSharePreemptionTimeout>9223372036854775</minSharePreemptionTimeout></queue>"
    )
    assert tree.queue("root.a").weight == to_java_float(0.1)
    assert tree.queue("root.a").min_share_preemption_timeout_s == math.inf


def test_explicit_root_queue_is_the_tree_root():
    """A top-level root queue holds the tree; its settings apply to root itself."""
    tree = effective(
        '<queue name="root"><maxRunningApps>7</maxRunningApps><queue name="x"/></queue>'
    )
    assert tree.root.max_running_apps == 7
    assert [q.name for q in tree.leaves()] == ["root.x"]


def test_users_and_reservations():
    """User limits and their default resolve; a reservation queue is marked reservable."""
    tree = effective(
        '<user name="ann"><maxRunningApps>3</maxRunningApps></user><userMaxAppsDefault>8</userMaxAppsDefault>'
        '<queue name="plan"><reservation/></queue>'
    )
    assert (tree.max_apps_for_user("ann"), tree.max_apps_for_user("bob")) == (3, 8)
    assert tree.queue("root.plan").reservable


def test_effective_raises_on_a_file_hadoop_rejects():
    """A file with errors has no effective configuration; the error names the line."""
    with pytest.raises(AllocationError, match=r"<bytes>:1: .*NumberFormatException"):
        effective('<queue name="a"><weight>x</weight></queue>')


@pytest.mark.parametrize(("version", "tag"), [(3, "queue"), (1, "pool")])
def test_a_queue_declared_twice_merges_setting_by_setting(version, tag):
    """Hadoop's loaders keep one map per setting keyed by queue name and load every
    element's children: a second declaration overrides only what it sets, and both
    declarations' child queues exist."""
    limit = "maxRunningApps" if version == 3 else "maxRunningJobs"
    tree = effective(
        f'<{tag} name="etl"><weight>2.0</weight><{limit}>7</{limit}></{tag}>'
        f'<{tag} name="etl"><weight>3.0</weight></{tag}>',
        version=version,
    )
    assert (tree.queue("root.etl").weight, tree.queue("root.etl").max_running_apps) == (3.0, 7)
    nested = effective(
        '<queue name="eng"><queue name="alice"><weight>2</weight></queue></queue>'
        '<queue name="eng"><queue name="bob"/><queue name="alice"><maxRunningApps>4</maxRunningApps>'
        "</queue></queue>"
    )
    alice = nested.queue("root.eng.alice")
    assert [q.name for q in nested.queue("root.eng").children] == ["root.eng.alice", "root.eng.bob"]
    assert (alice.weight, alice.max_running_apps) == (2.0, 4)


def test_a_set_on_a_queue_declared_twice_changes_the_value_in_force():
    """`AllocationDocument.set` edits the element Hadoop reads the setting from, wherever
    the queue declares it."""
    doc = AllocationDocument.from_bytes(
        b'<allocations><queue name="etl"><weight>2.0</weight><maxRunningApps>7</maxRunningApps>'
        b'</queue><queue name="etl"><maxAMShare>0.9</maxAMShare></queue></allocations>'
    )
    changed = doc.set("root.etl", "maxRunningApps", 9)
    assert b"<maxRunningApps>9</maxRunningApps>" in changed.to_bytes()
    assert effective_allocation(changed).queue("root.etl").max_running_apps == 9
