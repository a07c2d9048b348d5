"""`tempo config` wiring and exit codes."""

import json
from pathlib import Path

import jsonschema

from tempo.cli.schemas import (
    CONFIG_DIFF_SCHEMA,
    CONFIG_SET_SCHEMA,
    CONFIG_SHOW_SCHEMA,
    CONFIG_VALIDATE_SCHEMA,
)

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
GOOD = DATA / "alloc-corpus" / "23-lizhi16080910-daily-notes-deep-tree.xml"
BROKEN = DATA / "alloc-corpus" / "broken" / "04-weight-not-a-number.xml"


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
    result = run("config", "show", GOOD, "--cluster", "memory-mb=819200,vcores=800", "--json")
    document = json.loads(result.stdout)
    jsonschema.validate(document, CONFIG_SHOW_SCHEMA)
    assert all("fair_memory_mb" in row for row in document["queues"])


def test_set_without_changes_is_byte_identical(run, tmp_path):
    """With no --set, the output file equals the input byte for byte."""
    out = tmp_path / "out.xml"
    assert run("config", "set", GOOD, "-o", out).exit_code == 0
    assert out.read_bytes() == GOOD.read_bytes()


def test_set_and_diff_report_the_change(run, tmp_path):
    """A --set change is written, counted and diff reports it; a --set of the value already
    in force counts none; a bad setting exits 2."""
    out = tmp_path / "out.xml"
    result = run("config", "set", GOOD, "--set", "root.production.weight=5", "-o", out)
    assert result.exit_code == 0 and "(1 setting(s) changed)" in result.output
    same = run("config", "set", GOOD, "--set", "root.production.weight=3", "-o", out, "--force")
    assert same.exit_code == 0 and "(0 setting(s) changed)" in same.output
    assert run("config", "set", GOOD, "--set", "root.production.weight=5", "-o", out, "--force")
    result = run("config", "diff", GOOD, out)
    assert result.exit_code == 0 and "root.production  weight: 3 -> 5" in result.output
    bad = run("config", "set", GOOD, "--set", "root.production.colour=5", "-o", out, "--force")
    assert bad.exit_code == 2 and "unknown queue setting 'colour'" in bad.output


def test_set_refuses_before_writing_and_may_mend_an_invalid_file(run, tmp_path):
    """A --set refused leaves no output; a --set that mends a file Hadoop would reject is
    written, every --set counted (there is no effective allocation to compare with)."""
    out = tmp_path / "out.xml"
    bad = tmp_path / "bad.xml"
    bad.write_text(
        '<allocations><queue name="a"><minResources>1024 mb</minResources></queue></allocations>'
    )
    refused = run("config", "set", bad, "--set", "root.a.minResources.vcores=1", "-o", out)
    assert refused.exit_code == 2 and "is not a value Hadoop reads" in refused.output
    assert not out.exists()
    mended = run("config", "set", BROKEN, "--set", "root.analytics.weight=2", "-o", out)
    assert mended.exit_code == 0 and "(1 setting(s) changed)" in mended.output
    assert run("config", "validate", out).exit_code == 0


DOC_EXAMPLE = DATA / "hadoop" / "alloc" / "fairscheduler-doc-example.xml"


def test_set_changes_a_top_level_element_in_the_files_own_form(run, tmp_path):
    """SETTING=VALUE without root. changes a top-level element (AllocationDocument
    .set_default): the doc example's queueMaxResourcesDefault of 0 vcores, which lets no
    container run, gets vcores; an element the file lacks is added; 'default' removes one;
    a Hadoop 1 element is refused for a YARN file (exit 2)."""
    out = tmp_path / "out.xml"
    result = run(
        "config", "set", DOC_EXAMPLE, "-o", out,
        "--set", "queueMaxResourcesDefault=40000 mb, 8 vcores",
        "--set", "defaultFairSharePreemptionThreshold=0.8",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    written = out.read_text()
    before = DOC_EXAMPLE.read_text()
    assert written == before.replace(
        "<queueMaxResourcesDefault>40000 mb,0vcores<", "<queueMaxResourcesDefault>40000 mb,8vcores<"
    ).replace(
        "  <userMaxAppsDefault>5</userMaxAppsDefault>\n",
        "  <userMaxAppsDefault>5</userMaxAppsDefault>\n"
        "  <defaultFairSharePreemptionThreshold>0.8</defaultFairSharePreemptionThreshold>\n",
    )
    assert "queueMaxResourcesDefault" not in run("config", "validate", out).output
    removed = run(
        "config", "set", out, "-o", tmp_path / "back.xml",
        "--set", "defaultFairSharePreemptionThreshold=default",
    )  # fmt: skip
    assert (
        removed.exit_code == 0
        and "<defaultFairSharePreemptionThreshold>" not in (tmp_path / "back.xml").read_text()
    )
    refused = run(
        "config", "set", DOC_EXAMPLE, "-o", out, "--force", "--set", "poolMaxJobsDefault=3"
    )
    assert refused.exit_code == 2 and "poolMaxJobsDefault" in refused.output


PLACED = """<?xml version="1.0"?>
<allocations>
  <queue name="a">
    <minResources>50000 mb, 10 vcores</minResources>
  </queue>
  <queuePlacementPolicy>
    <rule name="specified"/>
    <rule name="default" queue="nosuch"/>
  </queuePlacementPolicy>
</allocations>
"""


def test_set_warns_of_what_validate_would_warn_of_in_the_file_written(run, tmp_path):
    """A --set Hadoop takes but not as asked (a drf leaf under a fair parent: Hadoop 3 logs
    an error and leaves the queue as it was) is written, as validate would pass it, with
    validate's warning on stderr; a plain change warns of nothing."""
    out = tmp_path / "out.xml"
    config = Path(__file__).parents[3] / "configs" / "contended-expert.xml"
    drf = run("config", "set", config, "--set", "root.deadline.schedulingPolicy=drf", "-o", out)
    assert drf.exit_code == 0
    assert f"{out}: line 18: warning: queue root.deadline: Hadoop 3 refuses a drf queue" in (
        drf.stderr
    )
    plain = run("config", "set", config, "--set", "root.deadline.weight=3", "-o", out, "--force")
    assert plain.exit_code == 0 and "warning" not in plain.stderr


def test_validate_warns_of_a_min_share_above_the_cluster_and_a_placement_rule_to_nowhere(
    run, tmp_path
):
    """Both load in Hadoop, so they are warnings (exit 0), each naming file and line."""
    path = tmp_path / "fair.xml"
    path.write_text(PLACED)
    result = run("config", "validate", path, "--cluster", "nodes=4,memory-mb=8192,vcores=8")
    assert result.exit_code == 0, result.output
    assert (
        f"{path}: line 4: warning: root.a minResources 50000 MB, 10 vcores exceeds the cluster "
        "(32768 MB, 32 vcores); it can never be met"
    ) in result.stderr
    assert (
        f"{path}: line 8: warning: placement rule 'default' names queue root.nosuch, which this "
        "file does not define"
    ) in result.stderr


def test_validate_json_lists_every_issue_and_exits_1_when_invalid(run):
    result = run("config", "validate", BROKEN, "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    jsonschema.validate(data, CONFIG_VALIDATE_SCHEMA)
    assert data["schema"] == "tempo.config.validate/1" and data["valid"] is False
    assert {"line", "severity", "message"} <= set(data["issues"][0])


def test_diff_speaks_allocation_file_syntax_and_json(run, tmp_path):
    out = tmp_path / "out.xml"
    change = "root.production.minResources=1024 mb, 1 vcores"
    written = json.loads(run("config", "set", GOOD, "--set", change, "-o", out, "--json").stdout)
    jsonschema.validate(written, CONFIG_SET_SCHEMA)
    assert (written["output"], written["changed"]) == (str(out), 1)
    text = run("config", "diff", GOOD, out)
    assert "root.production  minResources: 163840 mb, 80 vcores -> 1024 mb, 1 vcores" in (
        text.output
    )
    data = json.loads(run("config", "diff", GOOD, out, "--json").stdout)
    jsonschema.validate(data, CONFIG_DIFF_SCHEMA)
    assert data["distance"] == 0.0 and "scheduler" not in data  # minResources: no --cluster
    assert data["changes"][0] == {
        "queue": "root.production",
        "element": "minResources",
        "old": "163840 mb, 80 vcores",
        "new": "1024 mb, 1 vcores",
    }


def test_set_never_overwrites_without_force(run, tmp_path):
    out = tmp_path / "out.xml"
    out.write_text("mine")
    result = run("config", "set", GOOD, "-o", out)
    assert result.exit_code == 2 and "already exists (-o); add --force" in result.output
    assert out.read_text() == "mine"
    assert run("config", "set", GOOD, "-o", out, "--force").exit_code == 0


def test_show_lists_the_default_queue_a_hadoop2_rm_creates(run, tmp_path):
    """Under Hadoop 2 the RM holds root.default from its start: show lists it with its
    steady share and says on stderr that the file does not declare it; Hadoop 3 does not."""
    path = tmp_path / "two.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<allocations><queue name="a"/><queue name="b"/></allocations>\n'
    )
    cluster = ("--cluster", "memory-mb=24576,vcores=24")
    result = run("config", "show", path, *cluster, "--hadoop-version", "2", "--json")
    shares = {q["queue"]: q["fair_memory_mb"] for q in json.loads(result.stdout)["queues"]}
    assert shares == {"root": 24576, "root.a": 8192, "root.b": 8192, "root.default": 8192}
    assert "root.default: not in" in result.stderr and "Hadoop 2 RM creates it" in result.stderr
    result = run("config", "show", path, *cluster, "--hadoop-version", "3", "--json")
    assert "root.default" not in result.stdout + result.stderr


def test_show_says_what_a_queue_created_under_each_parent_takes(run):
    """max_child: a parent's maxChildResources, else queueMaxResourcesDefault (the doc
    example sets 40000 mb,0vcores), the max each queue created on the fly under it gets;
    none for a leaf (the table's '-', JSON's null)."""
    example = DATA / "hadoop" / "alloc" / "fairscheduler-doc-example.xml"
    result = run("config", "show", example, "--json")
    document = json.loads(result.stdout)
    jsonschema.validate(document, CONFIG_SHOW_SCHEMA)
    child = {row["queue"]: row["max_child"] for row in document["queues"]}
    assert child["root.secondary_group_queue"] == "4096 MB, 4 vcores"
    assert child["root.sample_queue"] == "40000 MB, 0 vcores"
    assert child["root.sample_queue.sample_sub_queue"] is None
    table = run("config", "show", example).output
    lines = table.splitlines()
    at = next(i for i, x in enumerate(lines) if "max_child" in x)  # its table's header
    header, rows = lines[at], lines[at + 2 :]
    row = next(r for r in rows if r.startswith(" root.sample_queue.sample_sub_queue "))
    assert row[header.index("max_child") :].split()[0] == "-"
