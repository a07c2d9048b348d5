"""`tempo config` wiring and exit codes."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from tempo.cli import cli

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
GOOD = DATA / "alloc-corpus" / "23-lizhi16080910-daily-notes-deep-tree.xml"
BROKEN = DATA / "alloc-corpus" / "broken" / "04-weight-not-a-number.xml"


@pytest.fixture
def run():
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args])


def test_validate_exits_0_on_a_good_file(run):
    """A valid file exits 0."""
    assert run("config", "validate", GOOD).exit_code == 0


def test_validate_exits_1_and_names_file_and_line(run):
    """Errors exit 1, each as FILE: line N: message."""
    result = run("config", "validate", BROKEN)
    assert result.exit_code == 1
    assert f"{BROKEN}: line 4: queue root.analytics" in result.output


def test_show_prints_the_tree_with_fair_shares(run):
    """show prints one row per queue, with fair shares for a cluster."""
    result = run("config", "show", GOOD, "--cluster", "memory-mb=819200,vcores=800")
    assert result.exit_code == 0
    assert "root.production.algo.lechuan" in result.output and "fair_memory_mb" in result.output


def test_set_without_changes_is_byte_identical(run, tmp_path):
    """With no --set, the output file equals the input byte for byte."""
    out = tmp_path / "out.xml"
    assert run("config", "set", GOOD, "-o", out).exit_code == 0
    assert out.read_bytes() == GOOD.read_bytes()


def test_set_and_diff_report_the_change(run, tmp_path):
    """A --set change is written and diff reports it; a bad setting exits 1."""
    out = tmp_path / "out.xml"
    assert run("config", "set", GOOD, "--set", "root.production.weight=5", "-o", out).exit_code == 0
    result = run("config", "diff", GOOD, out)
    assert result.exit_code == 0 and "root.production  weight: 3 -> 5" in result.output
    bad = run("config", "set", GOOD, "--set", "root.production.colour=5", "-o", out)
    assert bad.exit_code == 2 and "unknown queue setting 'colour'" in bad.output
