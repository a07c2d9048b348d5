"""validate: each Hadoop rule and tempo warning, with its line."""

import pytest

from whatif.allocation import AllocationDocument, Resources, effective_allocation, validate
from whatif.errors import AllocationError


def issues(body: str, **options):
    data = f"<allocations>\n{body}\n</allocations>".encode()
    return [(i.severity, i.line, i.message) for i in validate(data, **options)]


def only(found, severity):
    return [(line, message) for s, line, message in found if s == severity]


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ('<queue name="  ">\n</queue>', 2, "shouldn't be empty"),
        (
            '<queue name="a"><queue name="b"><schedulingPolicy>fifo</schedulingPolicy></queue></queue>\n'
            '<queue name="p"><schedulingPolicy>fifo</schedulingPolicy><queue name="q"/></queue>',
            3,
            "fifo is only for leaf queues",
        ),
        (
            '<queue name="a">\n<maxRunningApps>1.5</maxRunningApps></queue>',
            3,
            "expected an integer",
        ),
        (
            '<queue name="a">\n<minSharePreemptionTimeout>10s</minSharePreemptionTimeout></queue>',
            3,
            "expected an integer",
        ),
        ('<queue name="a">\n<weight/></queue>', 3, "<weight> is empty"),
        (
            '<queue name="a">\n<schedulingPolicy>lottery</schedulingPolicy></queue>',
            3,
            "lottery SchedulingPolicy class not found!",
        ),
        ('<queue name="a">\n<minResources>50%</minResources></queue>', 3, "must be absolute"),
        (
            '<queue name="a">\n<maxResources>memory-mb=-5, vcores=1</maxResources></queue>',
            3,
            "should not be negative",
        ),
        ('<queue name="a">\n<maxResources>gpus=1</maxResources></queue>', 3, "was not recognized"),
        ("<userMaxAppsDefault>many</userMaxAppsDefault>", 2, "expected an integer"),
        (
            '<queuePlacementPolicy>\n<rule name="specified"/>\n</queuePlacementPolicy>',
            3,
            "Could get past last queue placement rule",
        ),
        (
            '<queuePlacementPolicy>\n<rule name="default"/>\n<rule name="reject"/>\n</queuePlacementPolicy>',
            4,
            "Rules after rule 1",
        ),
        (
            '<queuePlacementPolicy>\n<rule name="random"/>\n</queuePlacementPolicy>',
            3,
            "No rule class found for random",
        ),
        (
            '<queuePlacementPolicy>\n<rule name="user" create="false"/>\n</queuePlacementPolicy>',
            3,
            "Could get past last",
        ),
    ],
)
def test_hadoop_rejections_are_errors_at_their_line(body, line, message):
    """Each construct Hadoop refuses to load is an error on the right line."""
    errors = only(issues(body), "error")
    assert errors and errors[0][0] == line, errors
    assert message in errors[0][1]


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        (
            '<queue name="a">\n<minResources>4096 mb, 4 vcores</minResources>\n'
            "<maxResources>1024 mb, 8 vcores</maxResources></queue>",
            3,
            "less than min resources",
        ),
        (
            '<queue name="a">\n<fairSharePreemptionThreshold>1.2</fairSharePreemptionThreshold></queue>',
            3,
            "clamps it",
        ),
        (
            '<queue name="a">\n<minSharePreemptionTimeout>-3</minSharePreemptionTimeout></queue>',
            3,
            "is negative",
        ),
        (
            '<queue name="a">\n<minSharePreemptionTimeout>9223372036854776</minSharePreemptionTimeout></queue>',
            3,
            "overflows",
        ),
        (
            '<queue name="a">\n<weight>1</weight>\n<weight>2</weight></queue>',
            4,
            "Hadoop uses the last",
        ),
        (
            '<queue name="p">\n<maxAMShare>0.5</maxAMShare><queue name="c"/></queue>',
            3,
            "cannot also include a maxAMShare element",
        ),
        (
            '<queue name="a">\n<schedulingPolicy>drf</schedulingPolicy></queue>',
            3,
            "drf queue under a fair parent",
        ),
        (
            '<queue name="a">\n<maxResources>90000 mb,0vcores</maxResources></queue>',
            3,
            "root.a: <maxResources> '90000 mb,0vcores' allows 0 vcores: no container can run "
            "in root.a or a queue under it",
        ),
        (
            '<queue name="p" type="parent">\n<maxChildResources>0 mb, 0 vcores'
            "</maxChildResources></queue>",
            3,
            "allows 0 MB and 0 vcores: no container can run in a queue created under root.p",
        ),
        (
            "\n<queueMaxResourcesDefault>memory-mb=0%, vcores=50%</queueMaxResourcesDefault>",
            3,
            "allows 0 MB: no container can run in a queue without its own maxResources, nor "
            "under root, which takes this default too",
        ),
        (
            '<queue name="a">\n<maxResources>8192 mb, 1 vcores</maxResources>'
            "<maxAMShare>0</maxAMShare></queue>",
            3,
            "root.a: maxAMShare 0 of its maximum of 1 vcores lets its AMs hold 0 vcores: no "
            "AM (which asks a vcore at least) can ever start there",
        ),
        ("<colour>blue</colour>", 2, "Bad element in allocations file: colour"),
        ('<queue name="a">\n<minMaps>3</minMaps></queue>', 3, "Hadoop 1 (MRv1) element"),
    ],
)
def test_loaded_but_suspicious_constructs_are_warnings(body, line, message):
    """What Hadoop loads but probably not as meant is a warning on the right line, never an error."""
    found = issues(body)
    assert only(found, "error") == []
    warnings = only(found, "warning")
    assert warnings and warnings[0][0] == line, warnings
    assert message in warnings[0][1]


def test_minimum_shares_above_the_cluster_warn_only_with_a_cluster():
    """Minimum shares summing past the cluster are flagged when a cluster is given."""
    body = (
        '<queue name="a"><minResources>6000 mb, 2 vcores</minResources></queue>\n'
        '<queue name="b"><minResources>6000 mb, 2 vcores</minResources></queue>'
    )
    assert issues(body) == []
    warned = only(issues(body, cluster=Resources(10000, 100)), "warning")
    assert len(warned) == 1 and "12000 MB" in warned[0][1]


def test_version_specific_rules():
    """drf under fair and maxAMShare on parents are Hadoop 3 concerns; % resources fail in Hadoop 2."""
    body = '<queue name="p"><maxAMShare>0.5</maxAMShare><schedulingPolicy>drf</schedulingPolicy><queue name="c"/></queue>'
    assert issues(body, hadoop_version=2) == []
    percent = '<queue name="a"><maxResources>50%</maxResources></queue>'
    assert only(issues(percent), "error") == []
    assert "Hadoop 2 reads only" in only(issues(percent, hadoop_version=2), "error")[0][1]


def test_a_small_am_share_leaves_no_vcore_only_where_the_version_rounds_down_and_compares_vcores():
    """FSLeafQueue.canRunAppAM: Hadoop 3 rounds maxAMShare's cap up (0.1 of 8 vcores is
    1), Hadoop 2 rounds it down (0) but compares vcores under drf alone."""
    leaf = '<queue name="a"><maxResources>16384 mb, 8 vcores</maxResources>{}</queue>'
    share = "<maxAMShare>0.1</maxAMShare>"
    held = "maxAMShare 0.1 of its maximum of 8 vcores lets its AMs hold 0 vcores"
    assert issues(leaf.format(share)) == []  # Hadoop 3
    assert issues(leaf.format(share), hadoop_version=2) == []  # fair: memory alone
    drf = "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>" + leaf.format(share)
    assert held in only(issues(drf, hadoop_version=2), "warning")[0][1]
    assert issues(drf) == []


def test_java_number_spellings_are_accepted():
    """0.5f, +3 and 1e1 are numbers to Java, so they are not errors."""
    body = (
        '<queue name="a"><maxAMShare>0.5f</maxAMShare><maxRunningApps>+3</maxRunningApps>'
        "<weight>1e1</weight></queue>"
    )
    assert issues(body) == []
    doc = AllocationDocument.from_bytes(f"<allocations>{body}</allocations>".encode())
    queue = effective_allocation(doc).queue("root.a")
    assert (queue.max_am_share, queue.max_running_apps, queue.weight) == (0.5, 3, 10.0)


def test_issues_are_sorted_by_line():
    """Issues come back in line order."""
    found = issues('<colour/>\n<queue name="a.b"/>\n<size/>')
    assert [line for _, line, _ in found] == sorted(line for _, line, _ in found)


def test_queue_declared_twice_is_a_warning():
    """The same queue path declared twice is merged by Hadoop; tempo warns at the second."""
    found = issues('<queue name="a"/>\n<queue name="a"><weight>2</weight></queue>')
    assert only(found, "error") == []
    assert only(found, "warning")[0][0] == 3 and "declared again" in only(found, "warning")[0][1]


def test_a_user_given_twice_and_a_replaced_placement_policy_are_warnings():
    """A second <user name="bob"> merges with the first; only the last
    queuePlacementPolicy is read, so an earlier one is a warning at its line."""
    rule = '<queuePlacementPolicy><rule name="default"/></queuePlacementPolicy>'
    found = issues(
        '<user name="bob"><maxRunningApps>2</maxRunningApps></user>\n'
        '<user name="bob"><maxRunningApps>3</maxRunningApps></user>\n' + f"{rule}\n{rule}"
    )
    assert only(found, "error") == []
    warned = {line: message for line, message in only(found, "warning")}
    assert "user bob is given again (first on line 2)" in warned[3]
    assert "queuePlacementPolicy is given again on line 5" in warned[4]


def test_root_setting_without_a_root_element_is_refused():
    """Setting root's own values needs a root element; the error says so."""
    doc = AllocationDocument.from_bytes(b'<allocations><queue name="a"/></allocations>')
    with pytest.raises(AllocationError, match="has no <queue name=.root.> element"):
        doc.set("root", "weight", 2.0)


@pytest.mark.parametrize(
    ("rules", "version", "message"),
    [
        ('<rule name="default" create="false"/>', 3, "Could get past last"),
        ('<rule name="default" create="false"/>', 2, None),
        ('<rule name="nestedUserQueue"/>', 3, "must have a parent rule set"),
        (
            '<rule name="user"><rule name="reject"/></rule><rule name="default"/>',
            3,
            "not allowed as a parent rule",
        ),
        (
            '<rule name="nestedUserQueue"><rule name="primaryGroup" create="false"/></rule><rule name="default"/>',
            3,
            None,
        ),
        ('<rule name="default"/><rule name="reject"/>', 2, "Rules after rule 0"),
    ],
)
def test_placement_terminal_rules_follow_each_hadoop_version(rules, version, message):
    """Terminal rules as Hadoop 2 and Hadoop 3.3 decide them, with each one's rule numbering."""
    found = only(
        issues(f"<queuePlacementPolicy>{rules}</queuePlacementPolicy>", hadoop_version=version),
        "error",
    )
    if message is None:
        assert found == []
    else:
        assert found and message in found[0][1]


@pytest.mark.parametrize(("version", "raised"), [(3, True), (2, False)])
def test_a_maximum_below_the_minimum_says_what_the_version_does(version, raised):
    """Hadoop 3 uses the minimum as the maximum (FSQueue.getMaxShare); Hadoop 2 keeps it."""
    body = (
        '<queue name="a">\n<minResources>4096 mb, 4 vcores</minResources>\n'
        "<maxResources>1024 mb, 8 vcores</maxResources></queue>"
    )
    (message,) = [m for _, m in only(issues(body, hadoop_version=version), "warning")]
    assert ("Hadoop 3 raises the maximum to the minimum" in message) is raised


def test_an_am_share_that_holds_a_vcore_or_no_limit_is_no_warning():
    """0.5 of 2 vcores holds one; -1 turns the check off; Hadoop 3 raises a maximum below
    the minimum (4 vcores: 2 held); Hadoop 2 does not (and compares vcores under drf)."""
    quiet = [
        '<queue name="a"><maxResources>8192 mb, 2 vcores</maxResources></queue>',
        '<queue name="a"><maxResources>8192 mb, 1 vcores</maxResources>'
        "<maxAMShare>-1</maxAMShare></queue>",
        '<queue name="a"><maxResources>8192 mb, 1 vcores</maxResources>'
        "<minResources>1024 mb, 4 vcores</minResources></queue>",
    ]
    for body in quiet:
        assert not [m for _, _, m in issues(body) if "maxAMShare" in m], body
    drf = quiet[2].replace("</queue>", "<schedulingPolicy>drf</schedulingPolicy></queue>")
    assert any("maxAMShare" in m for _, _, m in issues(drf, hadoop_version=2))


def test_a_reservation_leaf_is_a_warning_that_the_reservation_system_is_not_modelled():
    """Hadoop makes a ``<reservation>`` leaf a plan queue; tempo predicts it as a plain leaf
    and says so at the element's line (Hadoop 1 has no reservation system to warn of)."""
    body = '<queue name="plan">\n<reservation></reservation>\n</queue>\n<queue name="b"/>'
    found = [(line, m) for line, m in only(issues(body), "warning") if "reservation" in m]
    assert found == [
        (
            3,
            "<reservation>: root.plan is a plan queue of the reservation system, which tempo "
            "does not model: it is predicted as a plain leaf (its jobs as submitted to it, "
            "not to reservations)",
        )
    ]
    assert not only(issues('<queue name="b"/>'), "warning")


def test_hadoop2_ignores_max_container_allocation_and_set_refuses_it():
    """maxContainerAllocation is read from Hadoop 3.2 on (YARN-8468): under Hadoop 2 it is
    a warning at its line, takes no effect, and `set` refuses to write it."""
    import pytest

    from whatif.allocation import AllocationDocument, effective_allocation
    from whatif.allocation.effective import Resources
    from whatif.errors import AllocationError

    body = '<queue name="a">\n<maxContainerAllocation>4096 mb, 2 vcores</maxContainerAllocation></queue>'
    assert only(issues(body, hadoop_version=2), "warning") == [
        (3, "root.a: Hadoop 2 ignores <maxContainerAllocation> (read from Hadoop 3.2 (YARN-8468))")
    ]
    assert only(issues(body), "warning") == []
    doc = AllocationDocument.from_bytes(f"<allocations>\n{body}\n</allocations>".encode())
    assert (
        effective_allocation(doc, hadoop_version=2)
        .queue("root.a")
        .max_container_allocation.is_unlimited
    )
    limit = effective_allocation(doc).queue("root.a").max_container_allocation
    assert limit.resolve(Resources(10**6, 10**3)) == Resources(4096, 2)
    bare = AllocationDocument.from_bytes(b'<allocations><queue name="b"/></allocations>')
    with pytest.raises(AllocationError, match="Hadoop 2 ignores <maxContainerAllocation>"):
        bare.set("root.b", "maxContainerAllocation", "1024 mb, 1 vcores", hadoop_version=2)
