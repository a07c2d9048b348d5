"""AllocationDocument: safe parsing, the typed written tree, and one-element edits."""

import difflib
import math

import pytest

from whatif.allocation import (
    NEVER_TIMEOUT_S,
    AllocationDocument,
    ResourceLimit,
    Resources,
    effective_allocation,
    validate,
)
from whatif.allocation.resource_string import NEW, OLD
from whatif.errors import AllocationError

from .corpus import CORPUS, HADOOP_ALLOC

SAMPLE = b"""<?xml version="1.0" encoding="UTF-8"?>
<!-- operator's file -->
<allocations>
  <queue name="prod">
    <weight>2.0</weight>
    <minResources>4096mb,4vcores</minResources>
    <fairSharePreemptionTimeout>60</fairSharePreemptionTimeout>
    <schedulingMode>fair</schedulingMode>
  </queue>
  <queue name='dev' type="parent">
    <queue name="adhoc"/>
  </queue>
  <defaultMinSharePreemptionTimeout>300</defaultMinSharePreemptionTimeout>
</allocations>
"""


def changed_lines(before: bytes, after: bytes) -> list[str]:
    diff = difflib.unified_diff(
        before.decode().splitlines(), after.decode().splitlines(), lineterm="", n=0
    )
    return [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def test_typed_tree_exposes_written_values_and_aliases():
    """Settings are typed, aliases map to canonical names, queue paths are full."""
    doc = AllocationDocument.from_bytes(SAMPLE)
    prod = doc.queue("root.prod")
    assert prod.get("weight").value == 2.0 and prod.get("weight").line == 5
    assert prod.get("minResources").value.form == OLD
    assert prod.get("schedulingPolicy").tag == "schedulingMode"
    assert [q.path for q in doc.iter_queues()] == ["root.prod", "root.dev", "root.dev.adhoc"]
    assert doc.queue("dev").is_parent and doc.queue("root.dev").type == "parent"
    assert doc.default("defaultMinSharePreemptionTimeout").value == 300


def test_set_changes_only_that_element_text():
    """Changing a weight rewrites only the text of that element."""
    doc = AllocationDocument.from_bytes(SAMPLE)
    changed = doc.set("root.prod", "weight", 3.5)
    assert changed_lines(SAMPLE, changed.to_bytes()) == [
        "-    <weight>2.0</weight>",
        "+    <weight>3.5</weight>",
    ]
    assert changed.queue("root.prod").get("weight").value == 3.5
    assert doc.to_bytes() == SAMPLE


def test_set_keeps_the_resource_spelling():
    """A new resource amount is written in the operator's own spelling."""
    changed = AllocationDocument.from_bytes(SAMPLE).set(
        "root.prod", "minResources", Resources(8192, 6)
    )
    assert (
        changed_lines(SAMPLE, changed.to_bytes())[1]
        == "+    <minResources>8192mb,6vcores</minResources>"
    )


def test_set_adds_a_missing_element_with_the_file_indentation():
    """An inherited setting is added as one element indented like its siblings."""
    changed = AllocationDocument.from_bytes(SAMPLE).set("root.prod", "maxRunningApps", 12)
    assert changed_lines(SAMPLE, changed.to_bytes()) == ["+    <maxRunningApps>12</maxRunningApps>"]


def test_set_adds_resources_in_the_form_used_elsewhere():
    """A resource element that is added copies the file's resource-string form."""
    changed = AllocationDocument.from_bytes(SAMPLE).set(
        "root.dev", "maxResources", Resources(10240, 10)
    )
    assert changed_lines(SAMPLE, changed.to_bytes()) == [
        "+    <maxResources>10240mb,10vcores</maxResources>"
    ]


def test_set_opens_a_self_closing_queue():
    """A setting on <queue name="adhoc"/> opens the element with the file's indentation."""
    changed = AllocationDocument.from_bytes(SAMPLE).set("root.dev.adhoc", "weight", 2)
    assert changed_lines(SAMPLE, changed.to_bytes()) == [
        '-    <queue name="adhoc"/>',
        '+    <queue name="adhoc">',
        "+      <weight>2.0</weight>",
        "+    </queue>",
    ]


def test_set_opens_a_self_closing_queue_that_shares_its_line():
    """A self-closing queue not alone on its line (no indentation of its own) opens with
    the file's indentation unit instead of failing (issue 25: found by mypy)."""
    doc = AllocationDocument.from_bytes(b'<allocations><queue name="a"/></allocations>')
    assert doc.set("root.a", "weight", 2).to_bytes() == (
        b'<allocations><queue name="a">\n  <weight>2.0</weight>\n</queue></allocations>'
    )


def test_set_accepts_the_alias_the_file_uses():
    """schedulingMode in the file is changed through either name, keeping the tag."""
    doc = AllocationDocument.from_bytes(SAMPLE)
    for name in ("schedulingPolicy", "schedulingMode"):
        changed = doc.set("root.prod", name, "drf")
        assert (
            changed_lines(SAMPLE, changed.to_bytes())[1]
            == "+    <schedulingMode>drf</schedulingMode>"
        )


def test_set_none_removes_the_element_line():
    """None removes the element (and its line), so the default applies again."""
    changed = AllocationDocument.from_bytes(SAMPLE).set("root.prod", "weight", None)
    assert changed_lines(SAMPLE, changed.to_bytes()) == ["-    <weight>2.0</weight>"]
    assert effective_allocation(changed).queue("root.prod").weight == 1.0


def test_infinite_timeout_writes_never_when_inherited_is_finite():
    """math.inf over a finite inherited timeout writes NEVER_TIMEOUT_S, which resolves to inf."""
    changed = AllocationDocument.from_bytes(SAMPLE).set(
        "root.dev", "minSharePreemptionTimeout", math.inf
    )
    assert changed.queue("root.dev").get("minSharePreemptionTimeout").value == NEVER_TIMEOUT_S
    assert (
        effective_allocation(changed).queue("root.dev.adhoc").min_share_preemption_timeout_s
        == math.inf
    )
    assert NEVER_TIMEOUT_S * 1000 <= 2**63 - 1


def test_infinite_timeout_removes_the_element_when_inherited_is_never():
    """math.inf where the parent already never preempts removes the element."""
    changed = AllocationDocument.from_bytes(SAMPLE).set(
        "root.prod", "fairSharePreemptionTimeout", math.inf
    )
    assert changed_lines(SAMPLE, changed.to_bytes()) == [
        "-    <fairSharePreemptionTimeout>60</fairSharePreemptionTimeout>"
    ]


@pytest.mark.parametrize(
    ("queue", "setting", "value", "match"),
    [
        ("root.nope", "weight", 1.0, "no queue 'root.nope'"),
        ("root.prod", "colour", 1.0, "unknown queue setting 'colour'"),
        ("root.prod", "weight", -1.0, "weight >= 0"),
        ("root.prod", "maxAMShare", 1.5, r"\[0, 1\] or -1"),
        ("root.prod", "fairSharePreemptionThreshold", 2, r"\[0, 1\]"),
        ("root.prod", "maxRunningApps", 2.5, "whole number"),
        ("root.prod", "minSharePreemptionTimeout", -5, ">= 0"),
        ("root.prod", "schedulingPolicy", "lottery", "fair, drf or fifo"),
        ("root.dev", "maxAMShare", 0.3, "parent queue"),
        ("root.prod", "minResources", Resources(-1, 2), "amounts >= 0, got -1 MB"),
        ("root.prod", "minResources", Resources(1024, math.inf), "expected finite amounts, got"),
        ("root.prod", "maxResources", Resources(math.inf, math.inf), "one may be unlimited"),
    ],
)
def test_set_refuses_unknown_names_and_bad_values(queue, setting, value, match):
    """Unknown queues or settings and values Hadoop would reject or clamp raise AllocationError."""
    with pytest.raises(AllocationError, match=match):
        AllocationDocument.from_bytes(SAMPLE).set(queue, setting, value)


def test_a_maximum_with_one_unlimited_amount_is_written_in_hadoop_3s_form():
    """memory-mb=X alone: Hadoop 3 reads the vcores left out as unlimited."""
    changed = AllocationDocument.from_bytes(SAMPLE).set(
        "root.prod", "maxResources", Resources(8192, math.inf)
    )
    assert "<maxResources>memory-mb=8192</maxResources>" in changed.to_bytes().decode()
    limit = effective_allocation(changed).queue("root.prod").max_resources.absolute
    assert (limit.memory_mb, limit.vcores) == (8192, math.inf)


@pytest.mark.parametrize(
    ("assignment", "line"),
    [
        ("root.prod.minResources.memory=8192", "<minResources>8192mb,4vcores</minResources>"),
        ("root.prod.minResources.vcores=6", "<minResources>4096mb,6vcores</minResources>"),
        ("root.dev.adhoc.minResources.vcores=2", "<minResources>0mb,2vcores</minResources>"),
        ("root.prod.maxResources.memory-mb=9000", "<maxResources>memory-mb=9000</maxResources>"),
    ],
)
def test_one_amount_of_a_resource_is_set_alone(assignment, line):
    """QUEUE.minResources.memory=N, as optimize names what it tunes, keeps the other
    amount as written (0 in a minimum the file leaves out, unlimited in a maximum)."""
    from whatif.allocation.assign import apply_assignments

    changed = apply_assignments(AllocationDocument.from_bytes(SAMPLE), [assignment])
    added = [line_[1:].strip() for line_ in changed_lines(SAMPLE, changed.to_bytes())]
    assert line in added


@pytest.mark.parametrize(
    ("written", "amount"),
    [
        ("<minResources>1024 mb</minResources>", "minResources.vcores=1"),
        (
            "<maxResources>vcores=4, memory-mb=8192, yarn.io/gpu=2</maxResources>",
            "maxResources.vcores=8",
        ),
    ],
)
def test_an_amount_of_an_unreadable_resource_is_refused(written, amount):
    """One amount of a resource element Hadoop cannot read (a missing vcores, a resource type
    it does not know) is refused, naming the value and its problem: the other amounts are
    not known, and writing them as 0 or unlimited would lose what the operator wrote."""
    from whatif.allocation.assign import apply_assignments

    doc = AllocationDocument.from_bytes(
        f'<allocations><queue name="a">{written}</queue></allocations>'.encode()
    )
    with pytest.raises(AllocationError) as error:
        apply_assignments(doc, [f"root.a.{amount}"])
    assert "is not a value Hadoop reads" in str(error.value)
    assert "set the whole element" in str(error.value)


def test_under_hadoop2_an_amount_beside_an_unlimited_one_is_refused_as_its_own_error():
    """Hadoop 2 reads only 'X mb, Y vcores': maxResources.memory of a queue without a
    maximum (vcores unlimited) is refused naming the assignment and the whole-element
    form, not blamed on the input file's line as a value it does not hold."""
    from whatif.allocation.assign import apply_assignments

    doc = AllocationDocument.from_bytes(b'<allocations><queue name="a"/></allocations>')
    with pytest.raises(AllocationError) as error:
        apply_assignments(doc, ["root.a.maxResources.memory=40960"], hadoop_version=2)
    assert str(error.value).startswith("--set 'root.a.maxResources.memory=40960': root.a has")
    assert "--set 'root.a.maxResources=40960 mb, 40 vcores'" in str(error.value)
    written = apply_assignments(doc, ["root.a.maxResources.memory=40960"], hadoop_version=3)
    assert written.queue("root.a").get("maxResources").text == "memory-mb=40960"
    both = AllocationDocument.from_bytes(
        b'<allocations><queue name="a"><maxResources>8192 mb, 8 vcores</maxResources>'
        b"</queue></allocations>"
    )
    kept = apply_assignments(both, ["root.a.maxResources.memory=4096"], hadoop_version=2)
    assert kept.queue("root.a").get("maxResources").text == "4096 mb, 8 vcores"


def test_a_bad_amount_assignment_names_what_it_takes():
    """An amount that is no number >= 0 says what the amount is in; a value of the wrong
    kind says what the setting takes (not Python's conversion error); a queue not in the
    file is named."""
    from whatif.allocation.assign import apply_assignments

    doc = AllocationDocument.from_bytes(SAMPLE)

    def refusal(assignment: str) -> str:
        with pytest.raises(AllocationError) as error:
            apply_assignments(doc, [assignment])
        return str(error.value)

    assert "takes an amount >= 0 (MB), got '-5'" in refusal("root.prod.minResources.memory=-5")
    assert "(cores), got 'lots'" in refusal("root.prod.minResources.vcores=lots")
    assert "no queue 'root.nope'" in refusal("root.nope.minResources.memory=5")
    assert "weight takes a number, got 'abc'" in refusal("root.prod.weight=abc")
    assert "takes a whole number, got '2.5'" in refusal("root.prod.maxRunningApps=2.5")
    assert "takes true or false, got 'maybe'" in refusal("root.prod.allowPreemptionFrom=maybe")


def test_percent_limit_written_as_percentage():
    """A percentage ResourceLimit into a file without one uses '% memory, % cpu'."""
    changed = AllocationDocument.from_bytes(SAMPLE).set(
        "root.prod", "maxResources", ResourceLimit(percent=(50.0, 25.0))
    )
    assert "<maxResources>50% memory, 25% cpu</maxResources>" in changed.to_bytes().decode()
    assert effective_allocation(changed).queue("root.prod").max_resources.percent == (50.0, 25.0)


def test_new_style_resource_string_keeps_its_form():
    """memory-mb=..., vcores=... stays in that form with its spacing."""
    doc = AllocationDocument.from_file(CORPUS / "29-apache-hadoop-fs2cs-conversion.xml")
    changed = doc.set("root.users.john", "minResources", Resources(8192, 2))
    lines = changed_lines(doc.to_bytes(), changed.to_bytes())
    assert lines[1][1:].strip() == "<minResources>memory-mb=8192, vcores=2</minResources>"
    assert changed.queue("root.users.john").get("minResources").value.form == NEW


def test_cjk_file_edit_keeps_every_other_byte():
    """Editing a UTF-8 file with Chinese comments changes one line and keeps the encoding."""
    path = CORPUS / "27-zhaidewei-hadoop-cluster-on-aws-cjk-root.xml"
    doc = AllocationDocument.from_file(path)
    changed = doc.set("root.hadoop", "weight", 2.0)
    assert len(changed_lines(doc.to_bytes(), changed.to_bytes())) == 2
    assert "资源池权重" in changed.to_bytes().decode("utf-8")


def test_doc_example_round_trips_after_a_set_and_back():
    """Setting a value and setting it back restores the original bytes."""
    doc = AllocationDocument.from_file(HADOOP_ALLOC / "fairscheduler-doc-example.xml")
    queue = next(q for q in doc.iter_queues() if q.get("weight") is not None)
    original = queue.get("weight").text
    back = doc.set(queue.path, "weight", 7.0).set(queue.path, "weight", float(original))
    assert back.to_bytes() == doc.to_bytes()


def test_external_entity_is_refused():
    """An XXE document is refused, never read from disk."""
    data = b"""<?xml version="1.0"?>
<!DOCTYPE allocations [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<allocations><queue name="a"><aclSubmitApps>&xxe;</aclSubmitApps></queue></allocations>"""
    with pytest.raises(AllocationError, match="evil.xml:2: a document type declaration"):
        AllocationDocument.from_bytes(data, source="evil.xml")
    [issue] = validate(data)
    assert issue.severity == "error" and "refused" in issue.message


def test_any_doctype_is_refused_on_its_line_as_hadoop_3_3_5_refuses_it():
    """Hadoop 3.3.5+ parses allocation files with disallow-doctype-decl: a DOCTYPE with no
    internal subset is refused too, on its own line, saying why."""
    data = b'<?xml version="1.0"?>\n\n<!DOCTYPE allocations>\n<allocations/>\n'
    with pytest.raises(AllocationError, match=r"plain.xml:3: .*Hadoop 3.3.5 and later refuse"):
        AllocationDocument.from_bytes(data, source="plain.xml")


def test_billion_laughs_is_refused():
    """Nested entity definitions are refused without being expanded."""
    entities = "".join(f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    data = f'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY l0 "lol">{entities}]><allocations>&l9;</allocations>'
    with pytest.raises(AllocationError, match="evil.xml:"):
        AllocationDocument.from_bytes(data.encode(), source="evil.xml")


def test_oversized_file_is_refused(monkeypatch):
    """A file above the size limit is refused before parsing."""
    from whatif.allocation import xml_io

    monkeypatch.setattr(xml_io, "MAX_FILE_BYTES", 100)
    with pytest.raises(AllocationError, match="limited to 100"):
        AllocationDocument.from_bytes(SAMPLE)


def test_utf16_file_round_trips_and_edits():
    """A UTF-16 file with a BOM is decoded, edited and re-encoded in UTF-16."""
    data = SAMPLE.decode().replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16")
    doc = AllocationDocument.from_bytes(data)
    assert doc.to_bytes() == data
    changed = doc.set("root.prod", "weight", 5.0)
    assert changed.to_bytes().startswith(b"\xff\xfe")
    assert changed.queue("root.prod").get("weight").value == 5.0


def test_setting_an_acl_replaces_its_whole_text():
    """Hadoop reads ACLs untrimmed, so `--set` writes exactly the ACL given: a space left
    from the old text would make the user 'alice' the group 'alice' (found by fuzzing)."""
    from whatif.allocation.assign import apply_assignments

    doc = AllocationDocument.from_bytes(
        b'<allocations><queue name="q"><aclSubmitApps> admins</aclSubmitApps></queue></allocations>'
    )
    changed = apply_assignments(doc, ["root.q.aclSubmitApps=alice"])
    assert changed.queue("root.q").get("aclSubmitApps").raw == "alice"
    nobody = apply_assignments(doc, ["root.q.aclSubmitApps= "])
    assert nobody.queue("root.q").get("aclSubmitApps").raw == " "


@pytest.mark.parametrize(
    ("value", "match"),
    [("", r"aclSubmitApps needs a value"), ("a\x85b", r"cannot take control characters")],
)
def test_an_empty_or_control_character_acl_is_refused(value, match):
    """An empty ACL element makes Hadoop fail reading the file; control characters do not
    survive XML: both are refused, naming the setting."""
    from whatif.allocation.assign import apply_assignments

    doc = AllocationDocument.from_bytes(b'<allocations><queue name="q"/></allocations>')
    with pytest.raises(AllocationError, match=match):
        apply_assignments(doc, [f"root.q.aclSubmitApps={value}"])


def test_deep_nesting_and_a_huge_file_are_refused_at_once(tmp_path):
    """5,000 nested queues and a 28 MB file are refused in well under a second, without
    building the tree or reading the file (lxml's depth limit; a size check first)."""
    import time

    deep = b"<allocations>" + b'<queue name="q">' * 5000 + b"</queue>" * 5000 + b"</allocations>"
    huge = tmp_path / "huge.xml"
    huge.write_bytes(b"<allocations>" + b"<!-- padding -->" * (28 << 16) + b"</allocations>")
    started = time.perf_counter()
    with pytest.raises(AllocationError, match=r"<bytes>:1: not well-formed XML: Excessive depth"):
        AllocationDocument.from_bytes(deep)
    with pytest.raises(AllocationError, match=r"huge\.xml:1: file is 29360155 bytes; allocation"):
        AllocationDocument.from_file(huge)
    assert time.perf_counter() - started < 1.0
