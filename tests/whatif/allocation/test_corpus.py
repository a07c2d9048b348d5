"""The real and derived allocation files: what parses, round-trips, and what is rejected where."""

from pathlib import Path

import pytest
from samples import table

from whatif.allocation import AllocationDocument, effective_allocation, validate
from whatif.allocation.effective import Resources
from whatif.allocation.summary import queue_table
from whatif.errors import AllocationError

from .corpus import CORPUS, HADOOP_ALLOC, allocation_files

FILES = allocation_files()


def test_corpus_is_present():
    """The shared fixtures are found beside the repository."""
    assert len(FILES) == 33


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_real_file_round_trips_validates_and_shows(path):
    """Each accepted real file parses, is byte-identical on output, has no errors and resolves."""
    data = path.read_bytes()
    doc = AllocationDocument.from_file(path)
    assert doc.to_bytes() == data
    assert AllocationDocument.from_bytes(doc.to_bytes()).to_bytes() == data
    issues = validate(doc)
    assert [i for i in issues if i.severity == "error"] == []
    table = queue_table(doc, cluster=Resources(819200, 800))
    assert table["queue"].iloc[0] == "root"
    assert len(table) == len(list(effective_allocation(doc).queues()))


#: Each rejected file below the corpus, the line of its first error and part of its message.
BROKEN = {
    name: (line, message)
    for name, line, message in table(
        """
        broken/01-wrong-root-element.xml                                      2  top-level element not <allocations>
        broken/02-unclosed-queue-tag.xml                                      8  not well-formed XML
        broken/03-queue-name-with-dot.xml                                     3  queue name (dev.eng) shouldn't contain period
        broken/04-weight-not-a-number.xml                                     4  NumberFormatException
        broken/06-resource-missing-vcores.xml                                 4  Missing resource: vcores
        broken/07-fifo-default-policy.xml                                     3  can't be FIFO
        broken/09-root-with-sibling.xml                                       8  no other queues can be placed alongside it
        broken/10-reservation-on-parent.xml                                   4  cannot also include a reservation element
        malformed-real/01-apache-hadoop-stray-close-tag.xml                  20  Opening and ending tag mismatch
        malformed-real/02-steidsen-TA-Hadoop-nested-comment.xml              20  Double hyphen within comment
        malformed-real/03-saimadanmohan-HSparkCluster-smart-quotes.xml        1  not well-formed XML
        malformed-real/04-lepetitprinz-apache-hadoop-bad-xml-decl.xml         1  not well-formed XML
        rejected-real/15-wwj6591812-ModifyFSXML-nested-pools-bad-values.xml   5  Missing resource: mb
        rejected-real/22-jiaorenyu-learning-fifo-default.xml                 38  can't be FIFO
        rejected-real/30-apache-hadoop-fs2cs-invalidplacementrules.xml       54  Rules after rule 2 in queue placement policy can never be reached
        """,
        str,
        int,
        str,
    )
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_rejected_file_gives_its_error_with_the_line(name):
    """Broken, malformed and Hadoop-rejected files give the expected error at the expected line."""
    line, message = BROKEN[name]
    errors = [i for i in validate(CORPUS / name) if i.severity == "error"]
    assert errors, name
    assert errors[0].line == line
    assert message in errors[0].message


def test_every_broken_file_is_covered():
    """No file in broken/, malformed-real/ or rejected-real/ escapes the table above."""
    found = {
        str(p.relative_to(CORPUS))
        for folder in ("broken", "malformed-real", "rejected-real")
        for p in (CORPUS / folder).glob("*.xml")
    }
    assert found == set(BROKEN)


def test_capacity_scheduler_file_is_rejected_at_its_root_line():
    """A capacity-scheduler.xml is not an allocation file: error at the <configuration> line."""
    path = HADOOP_ALLOC / "sls-sample-capacity-scheduler.xml"
    line = next(
        n
        for n, text in enumerate(path.read_text().splitlines(), 1)
        if text.startswith("<configuration")
    )
    [issue] = validate(path)
    assert (issue.severity, issue.line) == ("error", line)
    assert "top-level element not <allocations> (found <configuration>)" in issue.message
    with pytest.raises(AllocationError, match=f"{line}: Bad fair scheduler config"):
        effective_allocation(AllocationDocument.from_file(path))


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("05-negative-weight.xml", 4, "negative weight -2.0"),
        ("08-maxamshare-above-one.xml", 4, "silently caps it at 1.0"),
    ],
)
def test_suspicious_file_gives_a_warning_and_no_error(name, line, message):
    """Values Hadoop loads but a careful tool flags are warnings naming the line."""
    issues = validate(CORPUS / "suspicious" / name)
    assert [i.severity for i in issues] == ["warning"]
    assert issues[0].line == line and message in issues[0].message


def test_malformed_file_raises_with_path_and_line():
    """from_file on a malformed file raises AllocationError naming path:line."""
    path = CORPUS / "broken" / "02-unclosed-queue-tag.xml"
    with pytest.raises(AllocationError, match=r"02-unclosed-queue-tag.xml:8: not well-formed"):
        AllocationDocument.from_file(path)


def test_placement_rules_accepted_by_hadoop_2():
    """File 30's nested placement was accepted before YARN-8967 (Hadoop 2 has no % though)."""
    issues = validate(
        CORPUS / "rejected-real" / "30-apache-hadoop-fs2cs-invalidplacementrules.xml",
        hadoop_version=2,
    )
    messages = [i.message for i in issues if i.severity == "error"]
    assert not any("never be reached" in m for m in messages)
    assert any("Hadoop 2 reads only" in m for m in messages)


def test_mrv1_file_resolves_pools_and_job_limits_for_hadoop_1():
    """The MRv1 sample gives flat pools with slot minimums and job limits under Hadoop 1."""
    doc = AllocationDocument.from_file(CORPUS / "02-cmri-bc-hadoop-mrv1-sample.xml")
    effective = effective_allocation(doc, hadoop_version=1)
    default = effective.queue("root.default")
    assert (default.min_maps, default.min_reduces, default.max_running_apps) == (20, 10, 10)
    assert default.min_share_preemption_timeout_s == 300
    assert default.fair_share_preemption_timeout_s == 600
    assert effective.queue("root.1_LoadQueue").max_running_apps == 50
    assert effective.queue("root.1_LoadQueue").min_share_preemption_timeout_s == 600
    assert effective.max_apps_for_user("user1") == 10
    assert effective.max_apps_for_user("other") == 50


def test_mrv1_file_under_yarn_ignores_job_limits():
    """Read by YARN, the same file keeps slot minimums but has no job limits."""
    effective = effective_allocation(
        AllocationDocument.from_file(CORPUS / "02-cmri-bc-hadoop-mrv1-sample.xml")
    )
    default = effective.queue("root.default")
    assert default.min_maps == 20 and default.max_running_apps is None
    assert effective.max_apps_for_user("user1") is None
    assert default.fair_share_preemption_timeout_s == 600  # legacy top-level element


CONFIGS = Path(__file__).resolve().parents[3] / "configs"


@pytest.mark.parametrize("name", ["two-tenant-expert.xml", "six-tenant-expert.xml"])
def test_shipped_sample_configs_are_clean(name):
    """The sample expert configurations have no errors and no warnings, and resolve."""
    path = CONFIGS / name
    assert validate(path, cluster=Resources(819200, 800)) == []
    effective = effective_allocation(AllocationDocument.from_file(path))
    assert len(effective.leaves()) == (2 if name.startswith("two") else 6)
