"""`tempo config` on capacity-scheduler.xml, and `tempo config convert` (issue 26)."""

import json
from pathlib import Path

import jsonschema
import pytest
from samples import CAPACITY_PREFIX as P
from samples import capacity_document

from tempo.cli.schemas import (
    CONFIG_CONVERT_SCHEMA,
    CONFIG_DIFF_SCHEMA,
    CONFIG_SET_SCHEMA,
    CONFIG_SHOW_SCHEMA,
    CONFIG_VALIDATE_SCHEMA,
)
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.capacity import ConfigurationDocument, validate

ROOT = Path(__file__).resolve().parents[3]
SLS = ROOT / ".." / "shared" / "data" / "hadoop" / "alloc" / "sls-sample-capacity-scheduler.xml"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A capacity-scheduler.xml of root.a at 60 % and root.b at 40 %."""
    doc = capacity_document(
        {"root.queues": "a,b", "root.a.capacity": "60", "root.b.capacity": "40"}
    )
    path = tmp_path / "capacity-scheduler.xml"
    path.write_bytes(doc.to_bytes())
    return path


def test_validate_accepts_a_capacity_scheduler_file(run, sample):
    result = run("config", "validate", sample)
    assert result.exit_code == 0, result.output
    assert "allocations" not in result.output


def test_validate_reports_hadoops_error_with_file_and_line(run, sample):
    sample.write_text(sample.read_text().replace("<value>40<", "<value>50<"))
    result = run("config", "validate", sample)
    assert result.exit_code == 1
    assert f"{sample}: line 2: Illegal capacity sum of 110" in result.output
    data = json.loads(run("config", "validate", sample, "--json").output)
    jsonschema.validate(data, CONFIG_VALIDATE_SCHEMA)
    assert data["scheduler"] == "capacity" and data["valid"] is False


def test_show_prints_effective_values(run, sample):
    result = run("config", "show", sample, "--json")
    jsonschema.validate(json.loads(result.output), CONFIG_SHOW_SCHEMA)
    queues = {q["queue"]: q for q in json.loads(result.output)["queues"]}
    assert queues["root.a"]["absolute_capacity_percent"] == pytest.approx(60)
    assert queues["root.a"]["max_applications"] == 6000 and queues["root.b"]["policy"] == "fifo"


def test_show_json_has_snake_case_keys_and_floats_as_hadoop_prints_them(run):
    result = run("config", "show", ROOT / "configs" / "six-tenant-capacity.xml", "--json")
    data = json.loads(result.output)
    jsonschema.validate(data, CONFIG_SHOW_SCHEMA)
    queues = {q["queue"]: q for q in data["queues"]}
    assert all(key.replace("_", "").isalpha() for q in data["queues"] for key in q)
    dev = queues["root.dev"]
    assert dev["capacity"] == 4.7 and dev["absolute_capacity_percent"] == 4.7  # not 4.6999998
    assert queues["root.bi"]["max_am_share"] == 0.4 and dev["maximum_capacity"] == 40
    table = run("config", "show", ROOT / "configs" / "six-tenant-capacity.xml").output
    assert "abs %" in table and "am %" in table  # the table keeps its headers
    fair = json.loads(
        run("config", "show", ROOT / "configs" / "six-tenant-expert.xml", "--json").stdout
    )
    shares = {q["max_am_share"] for q in fair["queues"]} | {
        q["fair_share_threshold"] for q in fair["queues"]
    }
    assert 0.3 in shares and 0.6 in shares  # not 0.30000001192092896


def test_set_changes_one_property_and_refuses_invalid_results(run, sample, tmp_path):
    out = tmp_path / "out.xml"
    result = run(
        "config",
        "set",
        sample,
        "--set",
        "root.a.capacity=70",
        "--set",
        "root.b.capacity=30",
        "-o",
        out,
        "--json",
    )
    assert result.exit_code == 0, result.output
    jsonschema.validate(json.loads(result.output), CONFIG_SET_SCHEMA)
    assert json.loads(result.output)["changed"] == 2
    assert out.read_text() == sample.read_text().replace(">60<", ">70<").replace(">40<", ">30<")
    bad = run("config", "set", sample, "--set", "root.a.capacity=70", "-o", tmp_path / "bad.xml")
    assert bad.exit_code == 2 and "Illegal capacity sum" in bad.output
    assert not (tmp_path / "bad.xml").exists()
    same = run("config", "set", sample, "-o", tmp_path / "same.xml")
    assert same.exit_code == 0 and (tmp_path / "same.xml").read_bytes() == sample.read_bytes()


def test_a_refused_set_cites_the_input_files_lines_not_the_unwritten_outputs(run, tmp_path):
    """A --set that Hadoop would reject is refused citing FILE's line (the output is never
    written, so its lines point at nothing): a removed property above it does not shift
    it, and an error on a property the changes added cites no line."""
    file = ROOT / "configs" / "two-tenant-capacity.xml"
    assert "<name>yarn.scheduler.capacity.root.queues<" in file.read_text().splitlines()[21]
    out = tmp_path / "out.xml"
    removed_above = ["--set", "maximum-am-resource-percent=default"]
    result = run("config", "set", file, *removed_above, "--set", "root.prod.capacity=90", "-o", out)
    assert result.exit_code == 2, result.output
    assert f"{file}: refusing the --set changes, which Hadoop would reject: line 21: Illegal " in (
        result.output
    )
    added = ["--set", "root.state=STOPPED", "--set", "root.prod.state=RUNNING"]
    result = run("config", "set", file, *added, "-o", out)
    assert result.exit_code == 2, result.output
    assert "Hadoop would reject: The parent queue:root cannot be STOPPED" in result.output
    assert not out.exists()


def test_diff_says_it_does_not_use_a_cluster_for_capacity_files(run, sample, caplog):
    """--cluster weighs resource settings of allocation files; a capacity distance is over
    capacities: a warning says it is not used (it was ignored without a word)."""
    with caplog.at_level("WARNING", logger="tempo"):
        result = run("config", "diff", sample, sample, "--cluster", "memory-mb=8192,vcores=8")
    assert result.exit_code == 0 and "--cluster: not used for capacity-scheduler.xml" in (
        caplog.text
    )


def test_diff_lists_changed_properties(run, sample, tmp_path):
    other = tmp_path / "other.xml"
    other.write_text(sample.read_text().replace(">60<", ">55<").replace(">40<", ">45<"))
    result = run("config", "diff", sample, other)
    assert result.exit_code == 0
    assert f"{P}root.a.capacity: 60 -> 55" in result.output
    assert "distance: 0.0" in result.output and "tunable dimensions" in result.output
    as_json = json.loads(run("config", "diff", sample, other, "--json").output)
    jsonschema.validate(as_json, CONFIG_DIFF_SCHEMA)
    assert as_json["changes"][0] == {"property": f"{P}root.a.capacity", "old": "60", "new": "55"}
    assert 0 < as_json["distance"] < 0.1 and as_json["dimensions"] > 2
    unset = tmp_path / "unset.xml"
    run("config", "set", sample, "--set", "root.b.state=STOPPED", "-o", unset)
    lines = run("config", "diff", sample, unset).output.splitlines()
    assert f"{P}root.b.state: - -> STOPPED" in lines  # "-" as in show's table and fair's diff
    assert f"{P}root.b.state: STOPPED -> -" in run("config", "diff", unset, sample).output
    shown = [line.split() for line in run("config", "show", sample).output.splitlines()]
    assert any(cells[:1] == ["root"] and "-" in cells for cells in shown)  # root's max apps
    mixed = run("config", "diff", sample, ROOT / "configs" / "two-tenant-expert.xml")
    assert mixed.exit_code == 2 and "both" in mixed.output


def test_diff_counts_a_user_limit_factor_of_infinity_as_a_change(run, sample, tmp_path):
    """1.0 -> 1e400 (Float.parseFloat reads Infinity) printed distance 0.0000, as if nothing
    changed: the untuned setting is one more coordinate, 1 as it changed, and no nan or inf
    is printed; Infinity against the same Infinity (1e400) adds 0."""
    files = {}
    for name, factor in (("one", "1.0"), ("big", "1e400"), ("inf", "Infinity")):
        files[name] = tmp_path / f"{name}.xml"
        files[name].write_text(
            sample.read_text().replace(
                "</configuration>",
                f"  <property>\n    <name>{P}root.a.user-limit-factor</name>\n"
                f"    <value>{factor}</value>\n  </property>\n</configuration>",
            )
        )
    result = run("config", "diff", files["one"], files["big"])
    assert result.exit_code == 0, result.output
    assert f"{P}root.a.user-limit-factor: 1.0 -> 1e400" in result.output
    assert result.output.splitlines()[-1] == (
        "distance: 0.2887 (normalized l2 over 11 tunable dimensions and 1 untuned setting(s); "
        "default Capacity Scheduler space)"
    )
    data = json.loads(run("config", "diff", files["one"], files["big"], "--json").output)
    jsonschema.validate(data, CONFIG_DIFF_SCHEMA)
    assert data["distance"] == pytest.approx((1 / 12) ** 0.5) and data["dimensions"] == 12
    same = run("config", "diff", files["inf"], files["big"])
    assert same.exit_code == 0 and same.output.splitlines()[-1].startswith("distance: 0.0000 (")
    assert "nan" not in result.output + same.output


def test_diff_of_files_sharing_no_tunable_setting_has_no_distance_as_fair_files(run):
    a, b = (ROOT / "configs" / f"{n}-tenant-capacity.xml" for n in ("two", "six"))
    result = run("config", "diff", a, b)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "distance: none (no tunable setting in both files)"
    as_json = run("config", "diff", a, b, "--json")
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.output)
    jsonschema.validate(data, CONFIG_DIFF_SCHEMA)
    assert data["distance"] is None and data["dimensions"] == 0 and data["changes"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "--hadoop-version", "1", "A"], "'--hadoop-version': a capacity-scheduler.xml"),
        (["validate", "--hadoop-version", "1", "A"], "Hadoop 1 has no such Capacity Scheduler"),
        (["validate", "--hadoop-version", "2", "A"], "read by Hadoop 3.x's rules, got 2"),
        (["diff", "--hadoop-version", "1", "A", "A"], "compared by Hadoop 3.x's rules, got 1"),
        (["set", "--hadoop-version", "1", "A", "-o", "OUT"], "'--hadoop-version'"),
        (["diff", "--space", "SPACE", "A", "A"], "--space: names allocation-file settings"),
    ],
)
def test_allocation_file_options_on_a_capacity_file_are_usage_errors(run, tmp_path, args, message):
    """Hadoop 1 has no capacity-scheduler.xml, and a space file names allocation-file
    settings: exit 2 naming the option, not silently ignored."""
    files = {
        "A": ROOT / "configs" / "two-tenant-capacity.xml",
        "SPACE": ROOT / "configs" / "space-two-tenant.toml",
        "OUT": tmp_path / "out.xml",
    }
    result = run("config", *[files.get(a, a) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "out.xml").exists()


def test_fair_scheduler_path_is_unchanged(run):
    result = run("config", "validate", ROOT / "configs" / "two-tenant-expert.xml")
    assert result.exit_code == 0


@pytest.mark.skipif(not SLS.exists(), reason="shared fixtures not present")
def test_hadoop_sample_validates(run):
    assert run("config", "validate", SLS).exit_code == 0


@pytest.mark.parametrize("percentage", [False, True])
def test_convert_fair_to_capacity(run, tmp_path, percentage):
    out = tmp_path / "cs.xml"
    args = [
        "config",
        "convert",
        ROOT / "configs" / "six-tenant-expert.xml",
        "-o",
        out,
        "--cluster",
        "nodes=100,memory-mb=8192,vcores=8",
        "--json",
    ]
    result = run(*args, *(["--percentage"] if percentage else []))
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    jsonschema.validate(report, CONFIG_CONVERT_SCHEMA)
    assert report["direction"] == "fair-to-capacity" and report["properties"] > 0
    assert any("minResources" in line for line in report["not_carried"])
    assert any("queuePlacementPolicy" in line for line in report["not_carried"])
    doc = ConfigurationDocument.from_file(out)
    assert [i for i in validate(doc) if i.severity == "error"] == []
    assert doc.value(P + "root.queues") == "bi,dev,app,str,mv,etl"
    # weights 3, 0.5, 2, 2, 1, 2 (total 10.5)
    assert doc.value(P + "root.bi.capacity") == (
        "28.570" if percentage else "3w"
    )  # 100.001 rounded back on the largest
    assert doc.value(P + "root.mv.ordering-policy") == "fifo"
    assert doc.value(P + "root.mv.max-parallel-apps") == "8"
    assert doc.value(P + "root.etl.maximum-am-resource-percent") == "0.2"
    assert doc.value(P + "root.str.disable_preemption") == "true"
    assert doc.value(P + "root.dev.maximum-capacity") == "40"  # maxResources 40%
    assert doc.value(P + "root.etl.maximum-capacity") == "72"  # 589824 mb of 819200
    assert (
        doc.value(P + "root.bi.acl_submit_applications") == "svc-tableau,svc-superset bi-analysts"
    )
    assert doc.value(P + "maximum-am-resource-percent") == "0.5"


def test_convert_refuses_to_overwrite(run, tmp_path):
    out = tmp_path / "cs.xml"
    out.write_text("keep")
    result = run("config", "convert", ROOT / "configs" / "two-tenant-expert.xml", "-o", out)
    assert result.exit_code == 2 and out.read_text() == "keep"


def test_weight_percentages_follow_fs2cs():
    from decimal import Decimal

    from whatif.capacity.convert import weight_percentages

    assert weight_percentages([1, 1, 1]) == (
        [Decimal("33.334"), Decimal("33.333"), Decimal("33.333")],
        False,
    )
    assert weight_percentages([5]) == ([Decimal("100.000")], False)
    assert weight_percentages([0, 0])[1] is True
    assert sum(weight_percentages([3, 0.5, 2, 2, 1, 2])[0]) == 100


def test_convert_capacity_to_fair_detects_the_direction(run, tmp_path):
    out = tmp_path / "fair-scheduler.xml"
    source = ROOT / "configs" / "six-tenant-capacity.xml"
    result = run("config", "convert", source, "-o", out, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    jsonschema.validate(report, CONFIG_CONVERT_SCHEMA)
    assert report["direction"] == "capacity-to-fair" and report["queues"] == 7
    assert any("user-limit-factor" in line for line in report["not_carried"])
    assert run("config", "validate", out).exit_code == 0
    from whatif.allocation import AllocationDocument

    allocation = effective_allocation(AllocationDocument.from_file(out))
    assert allocation.queue("root.etl").max_resources.percent == (72.0, 72.0)
    assert allocation.queue("root.mv").scheduling_policy == "fifo"
    # and the text report says the same, line by line
    text = run("config", "convert", source, "-o", tmp_path / "again.xml")
    assert text.exit_code == 0 and "not carried over: yarn.scheduler.capacity." in text.output


def test_convert_capacity_to_fair_refuses_percentage(run, tmp_path):
    out = tmp_path / "fair.xml"
    result = run(
        "config", "convert", ROOT / "configs" / "two-tenant-capacity.xml", "-o", out, "--percentage"
    )
    assert result.exit_code == 2 and "--percentage" in result.output and not out.exists()


def test_convert_refuses_a_capacity_file_hadoop_refuses_citing_its_lines(run, tmp_path):
    """A capacity-scheduler.xml with an error is refused with FILE's line (not converted,
    nor refused with a line of the allocation file it would have become)."""
    source = tmp_path / "capacity-scheduler.xml"
    source.write_bytes(
        capacity_document(
            {"root.queues": "a,b", "root.a.capacity": "50", "root.b.capacity": "50",
             "root.a.max-parallel-apps": "lots"}
        ).to_bytes()
    )  # fmt: skip
    out = tmp_path / "fair.xml"
    result = run("config", "convert", source, "-o", out)
    line = next(i.line for i in validate(source) if i.severity == "error")
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr == (
        f"Error: {source}: cannot convert: line {line}: {P}root.a.max-parallel-apps: expected "
        'an integer: For input string: "lots"\n'
    )


def test_convert_whose_output_hadoop_would_refuse_names_the_queue_not_an_output_line(run, tmp_path):
    """A file Hadoop accepts whose conversion it would refuse (a negative container limit
    the Capacity Scheduler does not check; a Fair queue name with a space): exit 2 naming
    FILE, the queue and the setting, and no line of the output, which is not written."""
    source = tmp_path / "capacity-scheduler.xml"
    source.write_bytes(
        capacity_document(
            {"root.queues": "a,b", "root.a.capacity": "50", "root.b.capacity": "50",
             "root.a.maximum-allocation-mb": "-5", "root.a.maximum-allocation-vcores": "2"}
        ).to_bytes()
    )  # fmt: skip
    fair = tmp_path / "fair.xml"
    out = tmp_path / "out.xml"
    result = run("config", "convert", source, "-o", out)
    assert result.exit_code == 2 and not out.exists(), result.output
    assert result.stderr == (
        f"Error: {source}: cannot convert: Hadoop would refuse the allocation file it converts "
        "to: queue root.a: <maxContainerAllocation> '-5 mb, 2 vcores': Invalid value of "
        "memory: -5, value should not be negative!\n"
    )
    fair.write_text('<allocations>\n  <queue name="a b"><weight>1</weight></queue>\n</allocations>')
    result = run("config", "convert", fair, "-o", tmp_path / "out.xml")
    assert result.exit_code == 2 and "line" not in result.stderr
    assert "queue name 'a b' contains white space" in result.stderr


def test_convert_keeps_queue_names_with_xml_special_characters(run, tmp_path):
    """Neither scheduler restricts &, < or > in a queue name (the Fair Scheduler refuses
    only a period or an empty name, AllocationFileQueueParser; the Capacity Scheduler
    splits paths at dots, QueuePath, CapacitySchedulerQueueManager.parseQueue), and fs2cs
    writes them through Configuration.writeXml, escaped: so does tempo, both ways, the
    ACLs' & too, and the converted file reads back with the same queues."""
    fair = tmp_path / "fair.xml"
    fair.write_text(
        '<allocations>\n  <queue name="r&amp;d"><weight>2</weight>\n'
        "    <aclSubmitApps>alice ops&amp;dev</aclSubmitApps></queue>\n"
        '  <queue name="a&lt;b&gt;"><weight>1</weight></queue>\n</allocations>\n'
    )
    capacity, back = tmp_path / "capacity-scheduler.xml", tmp_path / "back.xml"
    result = run("config", "convert", fair, "-o", capacity)
    assert result.exit_code == 0, result.output
    doc = ConfigurationDocument.from_file(capacity)

    def value(name: str) -> str | None:
        prop = doc.get(P + name)
        return None if prop is None else prop.raw

    assert value("root.queues") == "r&d,a<b>" and value("root.r&d.capacity") == "2w"
    assert value("root.a<b>.capacity") == "1w"
    assert value("root.r&d.acl_submit_applications") == "alice ops&dev"
    assert b"root.r&amp;d.capacity" in capacity.read_bytes()
    assert not [i for i in validate(doc) if i.severity == "error"]
    result = run("config", "convert", capacity, "-o", back)
    assert result.exit_code == 0, result.output
    queues = effective_allocation(AllocationDocument.from_file(back)).root.children
    assert [q.name for q in queues] == ["root.r&d", "root.a<b>"]


def test_convert_keeps_the_maximum_hadoop_3_raised_to_the_minimum(run, tmp_path):
    """Hadoop 3's Fair Scheduler raises a maxResources below minResources to it
    (FSQueue.getMaxShare), so a Capacity Scheduler file converted for a cluster that ran
    it keeps the raised maximum: a's 2048 MB maximum under its 8192 MB minimum, on a
    cluster of 16384 MB, is 50 %, and the report says why; Hadoop 2 keeps the maximum as
    written, 12.5 %, which the converter then raises to a's capacity (weight 1 of 4:
    25 %), as the Capacity Scheduler requires (b's 80 % is a form Hadoop 2 does not read:
    that file is refused for Hadoop 2, naming the line). Without --cluster the report says
    it could not compare b's 80 % maximum with its absolute minimum."""
    fair = tmp_path / "fair.xml"
    fair.write_text(
        "<allocations>\n"
        '  <queue name="a"><minResources>8192 mb, 2 vcores</minResources>'
        "<maxResources>2048 mb, 2 vcores</maxResources></queue>\n"
        '  <queue name="b"><weight>3</weight><maxResources>80%</maxResources>'
        "<minResources>1024 mb, 0 vcores</minResources></queue>\n"
        "</allocations>\n"
    )
    cluster = ["--cluster", "memory-mb=16384,vcores=16"]

    def converted(*args, source=fair):
        out = tmp_path / f"cs{len(list(tmp_path.iterdir()))}.xml"
        result = run("config", "convert", source, "-o", out, "--json", *args)
        assert result.exit_code == 0, result.output
        doc = ConfigurationDocument.from_file(out)
        maxima = [doc.value(f"{P}root.{q}.maximum-capacity") for q in "ab"]
        return maxima, json.loads(result.output)["notes"]

    maxima, notes = converted(*cluster)
    assert maxima == ["50", "80"]  # b's 80 % is above its 1024 MB minimum: as written
    assert any("root.a: maxResources is below minResources (12.5% < 50.0%" in n for n in notes)
    refused = run("config", "convert", fair, "-o", tmp_path / "h2.xml", "--hadoop-version", "2")
    assert refused.exit_code == 2 and "fair.xml:3: root.b: <maxResources> '80%': Hadoop 2" in (
        refused.output
    )
    hadoop2 = tmp_path / "fair2.xml"
    hadoop2.write_text(fair.read_text().replace("<maxResources>80%</maxResources>", ""))
    maxima, notes = converted(*cluster, "--hadoop-version", "2", source=hadoop2)
    assert maxima == ["25", "100"] and not any("minResources (" in n for n in notes)
    _, notes = converted()
    assert any(n.startswith("root.b: Hadoop 3 raises maxResources") for n in notes)
