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
