"""`tempo config` speaking Hadoop 1: validate warns, set refuses, show prints slots (issue 21)."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from tempo.cli import cli

ROOT = Path(__file__).resolve().parents[3]
SLS = ROOT / ".." / "shared" / "data" / "hadoop" / "alloc" / "sls-test-allocation.xml"
POOLS = ROOT / "configs" / "contended-expert-hadoop1.xml"


@pytest.fixture
def run():
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args])


def test_validate_hadoop1_warns_with_lines_about_queues_it_ignores(run):
    result = run("config", "validate", "--hadoop-version", "1", SLS)
    assert result.exit_code == 0
    assert f"{SLS}: line 32: warning: " in result.output
    assert "Hadoop 1 ignores <queue>" in result.output
    assert "line 31: warning: allocations: Hadoop 1 ignores <userMaxAppsDefault>" in result.output


def test_set_refuses_max_running_apps_in_a_pool_naming_max_running_jobs(run, tmp_path):
    out = tmp_path / "out.xml"
    result = run("config", "set", POOLS, "--set", "root.deadline.maxRunningApps=3", "-o", out)
    assert result.exit_code == 2
    assert "it reads maxRunningJobs" in result.output and not out.exists()
    result = run("config", "set", POOLS, "--set", "root.deadline.maxRunningJobs=3", "-o", out)
    assert result.exit_code == 0 and "<maxRunningJobs>3</maxRunningJobs>" in out.read_text()


def test_set_hadoop_version_option_overrides_the_file_dialect(run, tmp_path):
    out = tmp_path / "out.xml"
    args = ("config", "set", POOLS, "--set", "root.deadline.maxRunningApps=3", "-o", out)
    assert run(*args, "--hadoop-version", "3").exit_code == 0
    result = run(
        *args[:3], "--set", "root.deadline.minMaps=3", "-o", out, "--force", "--hadoop-version", "2"
    )
    assert result.exit_code == 2 and "it reads minResources" in result.output


def test_show_hadoop1_prints_min_maps_and_reduces_and_slot_fair_shares(run):
    result = run(
        "config",
        "show",
        "--hadoop-version",
        "1",
        "--cluster",
        "map-slots=30,reduce-slots=10",
        POOLS,
        "--json",
    )
    assert result.exit_code == 0
    import json

    rows = {r["queue"]: r for r in json.loads(result.output)["queues"]}
    deadline = rows["root.deadline"]
    assert (deadline["min_maps"], deadline["min_reduces"]) == (30, 10)
    assert (deadline["fair_maps"], deadline["fair_reduces"]) == (30, 10)
    assert "min_memory_mb" not in deadline and "max_maps" in deadline


def test_show_hadoop1_refuses_a_memory_cluster(run):
    result = run(
        "config", "show", "--hadoop-version", "1", "--cluster", "memory-mb=1024,vcores=4", POOLS
    )
    assert result.exit_code == 2 and "map-slots" in result.output
