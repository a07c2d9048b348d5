"""`tempo optimize` on a Hadoop 1 file: the dialect is inferred, the note printed, Hadoop 1 elements written."""

from __future__ import annotations

from click.testing import CliRunner
from samples import REPO, allocation_file

from tempo.cli import cli
from whatif.allocation import AllocationDocument, effective_allocation

#: The two-tenant trace's queues as Hadoop 1 pools whose minimum shares cover the slots.
POOLS = allocation_file(
    "pool",
    {
        "prod": {"minMaps": 20, "minReduces": 6, "weight": 4.0},
        "engineer": {"minMaps": 10, "minReduces": 4},
    },
)


def test_optimize_tunes_a_pool_file_in_hadoop_1_terms(tmp_path):
    """A slot cluster means Hadoop 1 without --hadoop-version; only pool elements are written."""
    config = tmp_path / "fair-scheduler.xml"
    config.write_bytes(POOLS)
    templates = tmp_path / "engineer.qs"
    templates.write_text("QUEUE root.engineer\nOPTIMIZE QS_AJR;\n")
    out = tmp_path / "new.xml"
    args = [
        "optimize",
        "--trace", str(REPO / "traces" / "two-tenant"),
        "--templates", str(templates),
        "--cluster", "map-slots=30,reduce-slots=10",
        "--window", "30min",
        "--iterations", "1",
        "--batch-size", "2",
        "--executor", "serial",
        "--engine", "reference",
        "--preemption",
        "--tune", "prod.minMaps=fixed",
        "--tune", "prod.minReduces=fixed",
        "--tune", "engineer.minMaps=fixed",
        "--tune", "engineer.minReduces=fixed",
        "--config", str(config),
        "-o", str(out),
    ]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "tuning 3 Hadoop 1 (MRv1) settings" in result.output
    assert "note: weights of root.prod, root.engineer not tuned" in result.output
    written = out.read_bytes()
    assert b"<pool" in written and b"<queue" not in written
    for yarn in (b"minResources", b"maxRunningApps", b"schedulingPolicy"):
        assert yarn not in written
    tuned = effective_allocation(AllocationDocument.from_file(out), hadoop_version=1)
    assert tuned.queue("root.prod").min_maps == 20
