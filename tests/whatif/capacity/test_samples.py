"""The Capacity Scheduler samples in configs/ load cleanly and mirror the Fair Scheduler ones."""

from pathlib import Path

import pytest

from whatif.allocation.effective import Resources
from whatif.capacity import ConfigurationDocument, effective_queues, validate

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
SHARED = CONFIGS.parent.parent / "shared" / "data" / "hadoop" / "alloc"


@pytest.mark.parametrize(
    "name",
    ["two-tenant-capacity.xml", "six-tenant-capacity.xml", "capacity-hadoop-sls-sample.xml"],
)
def test_sample_has_no_issues(name):
    assert validate(CONFIGS / name) == []


def test_hadoop_sample_is_a_verbatim_copy():
    original = SHARED / "sls-sample-capacity-scheduler.xml"
    if not original.exists():
        pytest.skip("shared fixtures not present")
    assert (CONFIGS / "capacity-hadoop-sls-sample.xml").read_bytes() == original.read_bytes()


def test_two_tenant_mirrors_the_fair_scheduler_weights():
    queues = effective_queues(ConfigurationDocument.from_file(CONFIGS / "two-tenant-capacity.xml"))
    assert set(queues) == {"root", "root.prod", "root.engineer"}
    assert queues["root.prod"].absolute_capacity == pytest.approx(0.75)
    assert queues["root.engineer"].max_parallel_apps == 40


def test_six_tenant_queues_match_the_fair_scheduler_sample():
    doc = ConfigurationDocument.from_file(CONFIGS / "six-tenant-capacity.xml")
    queues = effective_queues(doc, cluster=Resources(819200, 800))
    assert [q.split(".")[-1] for q in queues][1:] == ["bi", "dev", "app", "str", "mv", "etl"]
    assert queues["root.mv"].ordering_policy == "fifo"
    assert queues["root.etl"].absolute_maximum_capacity == pytest.approx(0.72)


def test_hadoop_doc_example_is_a_fragment_and_tempo_says_where():
    """CapacityScheduler.md's "Setting up queues" example, copied verbatim, is three
    <property> elements with no <configuration> around them: Hadoop's Configuration
    cannot parse it (several root elements), and tempo stops at the second one."""
    from whatif.allocation.xml_io import XMLSyntaxProblem

    path = CONFIGS / "capacity-hadoop-doc-example.xml"
    assert path.read_text().startswith("<property>\n  <name>yarn.scheduler.capacity.root.queues")
    with pytest.raises(XMLSyntaxProblem, match=r"Extra content at the end") as problem:
        ConfigurationDocument.from_file(path)
    assert problem.value.line == 8  # the second <property>


def test_hadoop_doc_example_in_a_configuration_still_needs_its_capacities():
    """Put in a <configuration>, the example declares the tree (a, b, c; a1, a2; b1-b3)
    but no capacity: Hadoop 3 reads a missing capacity as 0
    (CapacitySchedulerConfiguration.getNonLabeledQueueCapacity) and refuses root's
    children summing to 0 - tempo reports exactly that, at root.queues' line."""
    text = (CONFIGS / "capacity-hadoop-doc-example.xml").read_text()
    doc = ConfigurationDocument.from_bytes(f"<configuration>\n{text}</configuration>\n".encode())
    tree = effective_queues(doc)
    assert [q for q in tree if tree[q].is_leaf] == [
        "root.a.a1",
        "root.a.a2",
        "root.b.b1",
        "root.b.b2",
        "root.b.b3",
        "root.c",
    ]
    errors = [i for i in validate(doc) if i.severity == "error"]
    assert [(i.line, i.message.split(".")[0]) for i in errors] == [
        (2, "Illegal capacity sum of 0 for children of queue root")
    ]
