"""`tempo qs`, `optimize` and `whatif` on a capacity-scheduler.xml: the Capacity Scheduler
mode is wired in (predictions under the capacity file, its space, its writer)."""

import json

import pytest
from click.testing import CliRunner
from samples import REPO

from tempo.cli import cli
from whatif import Cluster
from whatif.capacity import ConfigurationDocument, validate
from whatif.metrics import Metric, Window, evaluate
from whatif.predictor import predict
from whatif.predictor.capacity import read_capacity_allocation
from whatif.readers import read_trace

TWO = REPO / "configs" / "two-tenant-capacity.xml"
CLUSTER = "nodes=24,memory-mb=8192,vcores=8"


def _run(*args):
    return CliRunner().invoke(cli, [*map(str, args)])


def _two_tenant(command, *more):
    return _run(
        command,
        "--trace",
        REPO / "traces" / "two-tenant",
        "--templates",
        REPO / "templates" / "two-tenant",
        "--cluster",
        CLUSTER,
        *more,
    )


def test_qs_predicts_under_the_capacity_file():
    """`tempo qs --config capacity-scheduler.xml`: the predicted QS_AJR of each queue is the
    mean response time of the Capacity Scheduler mode's schedule, not the Fair Scheduler's."""
    result = _two_tenant("qs", "--config", TWO, "--json")
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)["values"]
    got = {v["queue"]: v["predicted"] for v in values if v["metric"] == "QS_AJR"}
    trace = read_trace(REPO / "traces" / "two-tenant")
    cluster = Cluster.parse(CLUSTER)
    schedule = predict(trace.workload, read_capacity_allocation(str(TWO), cluster), cluster)
    table = evaluate(
        schedule,
        [Metric("QS_AJR")],
        window=Window.covering(trace.observed),
        queues=["root.prod", "root.engineer"],
    )
    for queue in ("root.prod", "root.engineer"):
        assert got[queue] == pytest.approx(float(table.at[queue, "QS_AJR"]))
    assert got["root.engineer"] == pytest.approx(79.05, abs=0.05)


def test_predicting_commands_warn_of_settings_the_predictor_leaves_out(tmp_path, caplog):
    """A reservable queue in the capacity file (the reservation system, not modelled) is a
    warning naming its line (stderr, through logging) in `qs` and `optimize`, as the
    allocation file's warnings are."""
    reservable = "<property><name>yarn.scheduler.capacity.root.prod.reservable</name><value>true</value></property>"
    marked = tmp_path / "capacity-scheduler.xml"
    marked.write_text(
        TWO.read_text().replace("</configuration>", f"{reservable}\n</configuration>")
    )
    line = marked.read_text().splitlines().index(reservable) + 1
    expected = f"{marked}: line {line}: yarn.scheduler.capacity.root.prod.reservable = true"
    with caplog.at_level("WARNING", logger="tempo"):
        result = _two_tenant("qs", "--config", marked, "--json")
    assert result.exit_code == 0, result.output
    assert expected in caplog.text and "tempo does not model this" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="tempo"):
        optimized = _two_tenant(
            "optimize", "--config", marked, "-o", tmp_path / "o.xml", "--iterations", "1",
            "--batch-size", "2", "--json",
        )  # fmt: skip
    assert optimized.exit_code in (0, 1), optimized.output
    assert expected in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="tempo"):
        assert _two_tenant("qs", "--config", TWO, "--json").exit_code == 0
    assert "tempo does not model" not in caplog.text


def test_qs_refuses_a_capacity_file_hadoop_would_refuse(tmp_path):
    """A capacity file whose percentages do not sum to 100: exit 2, naming the file and line."""
    bad = tmp_path / "capacity-scheduler.xml"
    bad.write_bytes(TWO.read_bytes().replace(b"<value>25</value>", b"<value>35</value>"))
    result = _two_tenant("qs", "--config", bad)
    assert result.exit_code == 2
    assert f"{bad}: line 21:" in result.output
    assert "Illegal capacity sum of 110" in result.output


def test_qs_names_the_template_queues_the_capacity_file_lacks():
    """Templates naming queues the capacity file does not declare: exit 2, naming them."""
    result = _two_tenant("qs", "--config", REPO / "configs" / "six-tenant-capacity.xml")
    assert result.exit_code == 2
    assert "queue root.engineer is not in" in result.output
    assert "six-tenant-capacity.xml" in result.output


def test_optimize_tunes_the_capacity_file_and_writes_a_valid_one(tmp_path):
    """`tempo optimize --config capacity-scheduler.xml --json`: the Capacity Scheduler space's
    settings are tuned, the QS in force are the capacity predictor's, and -o is a file
    Hadoop accepts that differs from the input only in the changes listed."""
    out = tmp_path / "capacity-scheduler.xml"
    result = _two_tenant(
        "optimize", "--config", TWO, "-o", out, "--iterations", "1", "--batch-size", "2", "--json"
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["hadoop_version"] == 3
    assert "root.prod.capacity" in doc["tuned_settings"]
    assert "root.engineer.ordering-policy" in doc["tuned_settings"]
    in_force = {(q["queue"], q["metric"], q["kind"]): q["in_force"] for q in doc["qs"]}
    assert in_force[("root.engineer", "QS_AJR", "objective")] == pytest.approx(79.05, abs=0.05)
    written = ConfigurationDocument.from_file(out)
    assert all(issue.severity != "error" for issue in validate(written))
    before = ConfigurationDocument.from_file(TWO)
    differing = {
        n for n in {*before.names(), *written.names()} if before.value(n) != written.value(n)
    }
    assert len(differing) == len(doc["changes"])


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--space", REPO / "configs" / "space-two-tenant.toml"], "--space: names allocation"),
        (["--tune", "root.prod.weight=1:4"], "--tune: names allocation"),
        (["--hadoop-version", "2"], "tuned by Hadoop 3.x's rules"),
    ],
)
def test_optimize_refuses_allocation_file_options_on_a_capacity_file(tmp_path, option, message):
    """--space, --tune and --hadoop-version 1/2 speak allocation files: exit 2, saying so."""
    result = _two_tenant("optimize", "--config", TWO, "-o", tmp_path / "o.xml", *option)
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "o.xml").exists()


def test_tune_trace_is_for_the_emulated_rm_only(tmp_path):
    """--trace picks what the emulated RM replays: with --rm it is a usage error (exit 2)."""
    result = _run(
        "tune",
        "--rm",
        "http://127.0.0.1:9",
        "--trace",
        REPO / "traces" / "two-tenant",
        "--config",
        TWO,
        "--journal",
        tmp_path / "j.sqlite",
    )
    assert result.exit_code == 2
    assert "--trace is for the emulated RM (without --rm)" in result.output
