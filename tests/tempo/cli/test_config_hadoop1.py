"""`tempo config` speaking Hadoop 1: validate warns, set refuses, show prints slots (issue 21)."""

import json
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from tempo.cli import cli
from tempo.cli.schemas import CONFIG_SHOW_SCHEMA

ROOT = Path(__file__).resolve().parents[3]
SLS = ROOT / ".." / "shared" / "data" / "hadoop" / "alloc" / "sls-test-allocation.xml"
POOLS = ROOT / "configs" / "contended-expert-hadoop1.xml"
CAPACITY = ROOT / "configs" / "two-tenant-capacity.xml"


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

    document = json.loads(result.output)
    jsonschema.validate(document, CONFIG_SHOW_SCHEMA)
    rows = {r["queue"]: r for r in document["queues"]}
    deadline = rows["root.deadline"]
    assert (deadline["min_maps"], deadline["min_reduces"]) == (30, 10)
    assert (deadline["fair_maps"], deadline["fair_reduces"]) == (30, 10)
    assert "min_memory_mb" not in deadline and "max_maps" in deadline


def test_show_hadoop1_refuses_a_memory_cluster(run):
    result = run(
        "config", "show", "--hadoop-version", "1", "--cluster", "memory-mb=1024,vcores=4", POOLS
    )
    assert result.exit_code == 2 and "map-slots" in result.output


def test_validate_and_show_refuse_a_slot_cluster_for_a_yarn_file(run):
    """Slots read as YARN resources were 40 MB for 40 slots ('exceeds the cluster (40 MB,
    40 vcores)'): a usage error naming what a YARN file's --cluster takes, for allocation
    and capacity files alike."""
    yarn = ROOT / "configs" / "two-tenant-expert.xml"
    for command, file in (("validate", yarn), ("show", yarn), ("show", CAPACITY)):
        result = run("config", command, "--cluster", "map-slots=30,reduce-slots=10", file)
        assert result.exit_code == 2, result.output
        assert "read as Hadoop 3: expected memory-mb and vcores" in result.output


def test_validate_and_show_infer_the_version_from_pools_and_say_so(tmp_path):
    """Without --hadoop-version a file of <pool>s is read as Hadoop 1 (as config set does):
    validate warns about the YARN element Hadoop 1 ignores, show prints slot settings, and
    stderr names the version used; --hadoop-version still overrides."""
    runner = CliRunner()
    pools = tmp_path / "pools.xml"
    pools.write_text(
        "<allocations>\n"
        '  <pool name="a">\n'
        "    <minMaps>2</minMaps>\n"
        "    <maxRunningApps>3</maxRunningApps>\n"
        "  </pool>\n"
        "</allocations>\n"
    )
    result = runner.invoke(cli, ["config", "validate", str(pools)])
    assert result.exit_code == 0, result.output
    assert f"hadoop version: 1 ({pools}: it has <pool> elements" in result.stderr
    assert f"{pools}: line 4: warning: " in result.stderr
    assert "Hadoop 1 ignores <maxRunningApps>" in result.stderr
    explicit = runner.invoke(cli, ["config", "validate", "--hadoop-version", "3", str(pools)])
    assert "hadoop version" not in explicit.stderr
    assert "Hadoop 1 ignores" not in explicit.stderr

    shown = runner.invoke(cli, ["config", "show", str(pools), "--json"])
    assert shown.exit_code == 0, shown.output
    assert "hadoop version: 1" in shown.stderr
    jsonschema.validate(json.loads(shown.stdout), CONFIG_SHOW_SCHEMA)
    row = {r["queue"]: r for r in json.loads(shown.stdout)["queues"]}["root.a"]
    assert row["min_maps"] == 2 and "min_memory_mb" not in row
    yarn = runner.invoke(cli, ["config", "show", str(pools), "--hadoop-version", "3", "--json"])
    jsonschema.validate(json.loads(yarn.stdout), CONFIG_SHOW_SCHEMA)
    assert "min_memory_mb" in json.loads(yarn.stdout)["queues"][0]


def test_validate_and_show_infer_version_3_for_queues(run):
    runner = CliRunner()
    result = runner.invoke(cli, ["config", "show", str(ROOT / "configs" / "contended-expert.xml")])
    assert result.exit_code == 0
    assert "hadoop version: 3 (" in result.stderr and "no <pool> elements" in result.stderr
    quiet = runner.invoke(
        cli, ["-q", "config", "validate", str(ROOT / "configs" / "contended-expert.xml")]
    )
    assert quiet.exit_code == 0 and "hadoop version" not in quiet.stderr


def test_set_checks_what_it_writes_as_the_files_hadoop_reads_it(run, tmp_path):
    """A pool with a <minResources> Hadoop 1 ignores (and could not read on YARN): validate
    only warns for a Hadoop 1 file, so set writes it too; read as YARN (--hadoop-version 3)
    the write is refused, naming the lines of the file they come from."""
    source = tmp_path / "pools.xml"
    source.write_text(
        "<allocations>\n  <pool name='a'>\n    <minMaps>2</minMaps>\n"
        "    <minResources>bogus</minResources>\n  </pool>\n  <pool name='b'/>\n</allocations>\n"
    )
    out = tmp_path / "out.xml"
    result = run("config", "set", source, "--set", "root.a.weight=3", "-o", out)
    assert result.exit_code == 0, result.output
    assert "<weight>3.0</weight>" in out.read_text()
    result = run("config", "set", source, "--hadoop-version", "3", "-o", tmp_path / "yarn.xml")
    assert result.exit_code == 2 and not (tmp_path / "yarn.xml").exists()
    assert f"refusing to write an invalid allocation file (lines of {source}): line 4:" in (
        result.output
    )


def test_convert_reads_a_pool_file_as_hadoop_1_and_lists_its_slots(run, tmp_path):
    """A <pool> file converts as Hadoop 1 reads it: maxRunningJobs becomes
    max-parallel-apps (as maxRunningApps does), and minMaps/minReduces, which the Capacity
    Scheduler has no counterpart for, are listed as not carried over, not dropped."""
    source = tmp_path / "pools.xml"
    source.write_text(
        "<allocations>\n  <pool name='a'>\n    <minMaps>30</minMaps>\n"
        "    <minReduces>10</minReduces>\n    <maxRunningJobs>4</maxRunningJobs>\n"
        "  </pool>\n  <pool name='b'/>\n</allocations>\n"
    )
    out = tmp_path / "capacity-scheduler.xml"
    result = run("config", "convert", source, "-o", out, "--json")
    assert result.exit_code == 0, result.output
    lost = json.loads(result.stdout)["not_carried"]
    assert any(line.startswith("root.a: minMaps 30: Hadoop 1 slots") for line in lost)
    assert any(line.startswith("root.a: minReduces 10: Hadoop 1 slots") for line in lost)
    text = out.read_text()
    assert "yarn.scheduler.capacity.root.a.max-parallel-apps</name>\n    <value>4<" in text
