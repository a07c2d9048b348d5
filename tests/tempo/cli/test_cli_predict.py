"""`tempo predict` wiring and exit codes."""

import json

import jsonschema
from click.testing import CliRunner
from samples import REPO

from tempo.cli import cli
from tempo.cli.schemas import PREDICT_SCHEMA
from whatif import Trace, Workload
from whatif.readers import read_trace, write_native

SLS_ALLOC = REPO.parent / "shared" / "data" / "hadoop" / "alloc" / "sls-test-allocation.xml"
ARGS = [
    "predict",
    "--trace",
    str(REPO / "traces/hadoop/sls"),
    "--config",
    str(SLS_ALLOC),
    "--cluster",
    "nodes=19,memory-mb=8192,vcores=8",
    "--engine",
    "reference",
]


def test_predict_compares_with_the_observed_schedule_and_writes_outputs(tmp_path):
    """--compare-observed reports per-queue errors (a tempo.predict/1 document); -o and
    --jobruntime write their files."""
    out, csv = tmp_path / "predicted", tmp_path / "jobruntime.csv"
    result = CliRunner().invoke(
        cli, [*ARGS, "--compare-observed", "-o", str(out), "--jobruntime", str(csv), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    jsonschema.validate(data, PREDICT_SCHEMA)
    assert data["jobs"] == 2 and {q["queue"] for q in data["queues"]} == {
        "root.sls_queue_1",
        "root.sls_queue_2",
    }
    assert [e["queue"] for e in data["errors"]] == ["root.sls_queue_1", "root.sls_queue_2", "(all)"]
    assert read_trace(out).observed.n_jobs == 2
    assert (
        csv.read_text().splitlines()[0]
        == "JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time"
    )


def test_predict_errors_are_one_line(tmp_path):
    """No observed schedule to compare with, or a missing option, gives a clear exit code."""
    workload = read_trace(REPO / "traces/two-tenant").workload
    no_times = [
        "predict",
        "--trace",
        str(write_native(Trace(workload=workload), tmp_path / "no-times")),
        "--config",
        str(REPO / "configs/two-tenant-expert.xml"),
        "--cluster",
        "nodes=24,memory-mb=8192,vcores=8",
        "--compare-observed",
    ]
    result = CliRunner().invoke(cli, no_times)
    assert result.exit_code == 2 and "no observed schedule to compare with" in result.output
    assert "--compare-observed" in result.output
    assert CliRunner().invoke(cli, ARGS[:-2][:5]).exit_code == 2


def test_predict_of_jobs_that_never_finish_is_an_error_after_writing_outputs(tmp_path):
    """No AM of queue prod fits its maxAMShare, so its jobs never finish: exit status 1 naming
    them, no per-queue mean response printed, and -o still written for inspection."""
    workload = read_trace(REPO / "traces/two-tenant").workload
    workload = Workload(
        jobs=workload.jobs.assign(am_memory_mb=1024.0, am_vcores=1.0), tasks=workload.tasks
    )
    config = tmp_path / "starved.xml"
    config.write_text(
        '<?xml version="1.0"?>\n<allocations>\n'
        '  <queue name="prod"><maxAMShare>0.0001</maxAMShare></queue>\n'
        '  <queue name="engineer"/>\n</allocations>\n'
    )
    out = tmp_path / "predicted"
    args = [
        "predict",
        "--trace",
        str(write_native(Trace(workload=workload), tmp_path / "with-ams")),
        "--config",
        str(config),
        "--cluster",
        "nodes=24,memory-mb=8192,vcores=8",
        "-o",
        str(out),
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert f"predicted schedule under {config}: " in result.output
    assert "(root.prod: " in result.output and "never finished" in result.output
    assert "mean_response_s" not in result.output
    assert read_trace(out).observed.n_jobs == workload.n_jobs


def test_window_predicts_only_the_last_jobs():
    """--window 1min keeps the sample's second job (submitted 105 s after the first)."""
    result = CliRunner().invoke(cli, [*ARGS, "--window", "1min", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["jobs"] == 1
    result = CliRunner().invoke(cli, [*ARGS, "--window", "0s"])
    assert result.exit_code == 2 and "'--window': expected a duration > 0" in result.output


def test_an_unknown_trace_format_is_a_usage_error_naming_the_option():
    at = ARGS.index("--trace") + 2
    result = CliRunner().invoke(cli, [*ARGS[:at], "--format", "bogus", *ARGS[at:]])
    assert result.exit_code == 2
    assert "Invalid value for '--format': 'bogus' is not one of 'hadoop1'" in result.output


def test_cluster_may_be_the_sls_nodes_file_the_trace_came_with(tmp_path):
    """--cluster nodes.json predicts on SLS's own topology (SLS's node size); the predicted
    trace records the SPEC it was read as; a file that is no node list is a usage error
    naming it."""
    nodes = REPO.parent / "shared" / "data" / "hadoop" / "sls" / "nodes.json"
    at = ARGS.index("--cluster") + 1
    args = [*ARGS[:at], str(nodes), *ARGS[at + 1 :]]
    out = tmp_path / "predicted"
    result = CliRunner().invoke(cli, [*args, "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    (note,) = read_trace(out).notes
    assert note.endswith(
        "on hosts=/rack1/node1;/rack1/node2;/rack1/node3;/rack1/node4;"
        "/rack2/node5;/rack2/node6;/rack2/node7;/rack2/node8;/rack3/node9;"
        "/rack3/node10;/rack3/node11;/rack3/node12;/rack4/node13;"
        "/rack4/node14;/rack4/node15;/rack4/node16;/rack5/node17;"
        "/rack5/node18;/rack5/node19,memory-mb=10240,vcores=10"
    )
    bad = tmp_path / "metrics.json"
    bad.write_text('{"nodes": {"clusterMetrics": 1}}')
    result = CliRunner().invoke(cli, [*ARGS[:at], str(bad), *ARGS[at + 1 :]])
    assert result.exit_code == 2
    assert f"Invalid value for '--cluster': {bad}: expected an RM /ws/v1/cluster/nodes" in (
        result.output
    )


def test_auto_engine_on_a_cold_kernel_replays_by_reference_and_says_so(
    tmp_path, monkeypatch, caplog
):
    """--engine auto (the default) with the kernel not compiled (its cache folder empty):
    the reference engine gives the numba engine's figures, and a warning says which ran."""
    monkeypatch.setattr("whatif.predictor.compiled.kernel_cache_dir", lambda: tmp_path)
    base = ARGS[:-2]  # without --engine reference
    with caplog.at_level("WARNING", logger="whatif.predictor.compiled"):
        auto = CliRunner().invoke(cli, [*base, "--json"])
    assert auto.exit_code == 0, auto.output
    assert "reference engine replays these 5 tasks" in caplog.text
    reference = CliRunner().invoke(cli, [*base, "--engine", "reference", "--json"])
    assert json.loads(auto.stdout) == json.loads(reference.stdout)


def test_predict_accepts_a_capacity_scheduler_file(tmp_path):
    """A capacity-scheduler.xml is predicted under the Capacity Scheduler; an invalid one is
    refused with its line."""
    args = [
        "predict",
        "--trace",
        str(REPO / "traces/two-tenant"),
        "--config",
        str(REPO / "configs/two-tenant-capacity.xml"),
        "--cluster",
        "nodes=20,memory-mb=8192,vcores=8",
        "--engine",
        "reference",
        "--json",
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{") :])
    assert {q["queue"] for q in data["queues"]} == {"root.prod", "root.engineer"}
    bad = tmp_path / "capacity-scheduler.xml"
    bad.write_text(
        "<configuration><property><name>yarn.scheduler.capacity.root.queues</name>"
        "<value>a</value></property><property><name>yarn.scheduler.capacity.root.a.capacity"
        "</name><value>40</value></property></configuration>"
    )
    args[4] = str(bad)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "line" in result.output


def test_a_cluster_or_version_the_file_cannot_have_is_a_usage_error(tmp_path):
    """A slot cluster under YARN rules (it would be 15 MB for 15 slots) and a
    capacity-scheduler.xml under Hadoop 1 or 2 exit 2 naming the option, for `predict` and
    `qs` alike; Hadoop 1 rules on a memory cluster stay (memory is then the one pool)."""
    capacity = str(REPO / "configs/capacity-hadoop-sls-sample.xml")
    slots = ["--cluster", "map-slots=10,reduce-slots=5"]
    cases = [
        ([*ARGS, *slots, "--hadoop-version", "3"], "a slot cluster (map-slots/reduce-slots) is"),
        ([*ARGS, "--config", capacity, "--hadoop-version", "1"], "by Hadoop 3.x's rules, got 1"),
        ([*ARGS, "--config", capacity, "--hadoop-version", "2"], "by Hadoop 3.x's rules, got 2"),
        ([*ARGS, "--config", capacity, *slots], "a capacity-scheduler.xml is predicted by"),
    ]
    template = tmp_path / "sls.qs"
    template.write_text("QUEUE root.sls_queue_1\nOPTIMIZE QS_AJR;\n")
    for args, message in cases:
        for command in ("predict", "qs"):
            full = [command, *args[1:]]
            if command == "qs":  # no --engine
                at = full.index("--engine")
                full[at : at + 2] = ["--templates", str(template)]
            result = CliRunner().invoke(cli, full)
            assert result.exit_code == 2 and message in result.output, (command, result.output)
    memory = CliRunner().invoke(cli, [*ARGS, "--hadoop-version", "1", "--json"])
    assert memory.exit_code == 0, memory.output
