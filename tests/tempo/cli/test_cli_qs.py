"""`tempo qs` wiring and exit codes."""

import json
import re
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from tempo.cli import cli
from tempo.cli.schemas import QS_SCHEMA
from whatif import Schedule, Trace, Workload
from whatif.readers import read_trace, write_native


def _qs(*args):
    """`tempo qs` with `args` (paths as text), in-process."""
    return CliRunner().invoke(cli, ["qs", *map(str, args)])


def _qs_small_cluster(trace, templates, *more):
    """`tempo qs` of `trace` against `templates` on a 1000 MB, 10-vcore cluster."""
    return _qs(
        "--trace", trace, "--templates", templates, "--cluster", "memory-mb=1000,vcores=10", *more
    )


@pytest.fixture
def trace_dir(tmp_path, make_trace):
    workload, schedule = make_trace()
    path = tmp_path / "trace"
    write_native(Trace(workload=workload, observed=schedule), path)
    return path


def test_qs_prints_json_with_constraint_status(trace_dir, tmp_path, qs_templates_text):
    """--json prints the window, values and constraints (a tempo.qs/1 document); exit 1 as a
    constraint is violated."""
    (tmp_path / "t.qs").write_text(
        qs_templates_text.replace("QUEUE root.idle OPTIMIZE QS_THR;", "")
    )
    result = _qs_small_cluster(trace_dir, tmp_path / "t.qs", "--json")
    data = json.loads(result.stdout)
    jsonschema.validate(data, QS_SCHEMA)
    assert set(data) == {"schema", "window", "values", "constraints", "observed_unfinished"}
    assert data["observed_unfinished"] == 0
    assert {c["queue"] for c in data["constraints"]} == {"root.prod", "root.engineer"}
    assert False in [c["observed_met"] for c in data["constraints"]]
    assert result.exit_code == 1


def test_qs_template_queue_missing_from_the_trace_is_an_input_error(
    trace_dir, tmp_path, qs_templates_text
):
    """A template queue with no job in the trace: exit 2, naming the queue, the template
    file and line, and the queues the trace has (never a report of n/a)."""
    (tmp_path / "t.qs").write_text(qs_templates_text)
    result = _qs_small_cluster(trace_dir, tmp_path / "t.qs")
    assert result.exit_code == 2
    assert f"{tmp_path / 't.qs'}:4:1: queue root.idle is not in the trace" in result.output
    assert "which has jobs in root.engineer, root.prod" in result.output


def test_qs_six_tenant_templates_on_the_two_tenant_trace_are_refused():
    """The issue's example: every missing queue named with its line, exit 2."""
    result = _qs(
        "--trace",
        ROOT / "traces/two-tenant",
        "--templates",
        ROOT / "templates/six-tenant",
        "--cluster",
        "nodes=24,memory-mb=8192,vcores=8",
    )
    assert result.exit_code == 2
    assert "tenants.qs:11:1: queue root.etl is not in the trace" in result.output
    assert "also missing: root.mv (line 18)" in result.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "QUEUE root.prod\nCONSTRAINT QS_UTIL < 90%;\n",
            "t.qs:2: QS_UTIL needs --cluster SPEC",
            id="resource-metric-without-cluster",
        ),
        pytest.param(
            "QUEUE root.prod\nOPTIMIZE QS_AJR\n",
            "t.qs:3:1: expected ';' after OPTIMIZE QS_AJR",
            id="syntax-error",
        ),
    ],
)
def test_qs_template_errors_are_one_line_naming_the_place_and_exit_2(
    trace_dir, tmp_path, text, message
):
    """A template error is one line with its file:line[:col] and exit status 2: a syntax
    error, or QS_UTIL without --cluster (a usage error naming --cluster and the template
    line, never a library call)."""
    (tmp_path / "t.qs").write_text(text)
    result = _qs("--trace", trace_dir, "--templates", tmp_path / "t.qs")
    assert result.exit_code == 2
    assert message in result.output
    assert "Cluster.parse" not in result.output


def test_qs_bad_cluster_spec_is_a_usage_error_naming_the_option(trace_dir):
    result = _qs("--trace", trace_dir, "--cluster", "nodes=x")
    assert result.exit_code == 2 and "'--cluster'" in result.output and "nodes" in result.output


def test_qs_window_option_and_text_output(trace_dir):
    """--window takes a duration and the text table names the queues."""
    result = _qs("--trace", trace_dir, "--window", "1min")
    assert result.exit_code == 0, result.output
    assert "60 s" not in result.output and "1 min" in result.output
    assert "root.prod" in result.output


def test_qs_window_longer_than_the_trace_warns_that_shares_are_diluted(trace_dir, caplog):
    """--window longer than the trace starts before its first job: the shares averaged
    over the window (QS_UTIL...) count the time before as idle, so a warning (stderr,
    through logging) says so; a window inside the trace says nothing."""
    cluster = ("--cluster", "memory-mb=1000,vcores=10")
    with caplog.at_level("WARNING", logger="tempo"):
        longer = _qs("--trace", trace_dir, *cluster, "--window", "10d")
    assert longer.exit_code == 0, longer.output
    assert re.search(r"--window 10d: .*longer than the trace.*QS_UTIL", caplog.text)
    caplog.clear()
    with caplog.at_level("WARNING", logger="tempo"):
        inside = _qs("--trace", trace_dir, "--window", "1min")
    assert inside.exit_code == 0 and "longer than the trace" not in caplog.text


def test_qs_deadline_template_on_a_trace_without_deadlines_names_the_template_line(tmp_path):
    """A QS_DL constraint taking its deadlines from the trace (deadline=auto), on a trace
    where no job has a deadline_s or a recurring key, is exit 2 naming the template line,
    the trace and the way out (a deadline the template gives itself); it was one line
    with neither, 'deadline=auto: no deadlines available; ...'."""
    trace = read_trace(ROOT / "traces/two-tenant")
    jobs = trace.workload.jobs.assign(recurring_key="")
    path = write_native(
        Trace(workload=Workload(jobs, trace.workload.tasks), observed=trace.observed),
        tmp_path / "no-deadlines",
    )
    result = _qs("--trace", path, "--templates", ROOT / "templates/two-tenant")
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    assert "prod.qs:10:12" in line and str(path) in line and "deadline=+1h" in line


def test_qs_stage_no_task_of_the_trace_has_is_warned_of(tmp_path, caplog):
    """QS_UTIL(stage=mpa), a stage no task of the trace has, counts no attempt (0% busy,
    silently); a warning names the template line and the trace's stages."""
    templates = tmp_path / "t.qs"
    templates.write_text("QUEUE root.prod\nCONSTRAINT QS_UTIL(stage=mpa) < -1%;\n")
    with caplog.at_level("WARNING", logger="tempo"):
        result = _qs(
            "--trace",
            ROOT / "traces/two-tenant",
            "--templates",
            templates,
            "--cluster",
            "nodes=24,memory-mb=8192,vcores=8",
        )
    assert result.exit_code == 1, result.output
    assert re.search(r"t\.qs:2:12: .*stage=mpa.*map, reduce", caplog.text)


def test_qs_bad_window_is_exit_2(trace_dir):
    """An unreadable --window is a one-line error."""
    result = _qs("--trace", trace_dir, "--window", "soon")
    assert result.exit_code == 2
    assert "expected a number with an optional unit" in result.output


ROOT = __import__("pathlib").Path(__file__).resolve().parents[3]


def test_qs_with_config_shows_observed_and_predicted_on_the_bundled_two_tenant_trace():
    """--config predicts the schedule beside the sample's recorded run: the text table has an
    observed and a predicted column per queue, and --json both values and statuses."""
    args = [
        "qs",
        "--trace",
        str(ROOT / "traces/two-tenant"),
        "--templates",
        str(ROOT / "templates/two-tenant"),
        "--config",
        str(ROOT / "configs/two-tenant-expert.xml"),
        "--cluster",
        "nodes=24,memory-mb=8192,vcores=8",
        "--site",
        str(ROOT / "configs/sample-yarn-site.xml"),
    ]
    text = CliRunner().invoke(cli, args)
    assert text.exit_code == 0, text.output
    assert "preemption: on (yarn.scheduler.fair.preemption in " in text.stderr
    lines = text.stdout.splitlines()
    assert lines[2].split() == ["root", "root.engineer", "root.prod"]
    assert lines[3].split() == ["metric", *["observed", "predicted"] * 3]
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert all("observed" in row and "predicted" in row for row in data["values"])
    assert {c["queue"] for c in data["constraints"]} == {"root.prod", "root.engineer"}
    assert all(
        c["observed_met"] in (True, False) and c["predicted_met"] in (True, False)
        for c in data["constraints"]
    )


def test_qs_on_a_trace_without_task_times_needs_config_and_shows_predicted_only(tmp_path):
    """A trace that recorded no schedule shows predicted values only, and needs --config."""
    workload = read_trace(ROOT / "traces/two-tenant").workload
    path = write_native(Trace(workload=workload), tmp_path / "no-times")
    args = ["qs", "--trace", str(path), "--templates", str(ROOT / "templates/two-tenant")]
    config = [
        "--config",
        str(ROOT / "configs/two-tenant-expert.xml"),
        "--cluster",
        "memory-mb=409600,vcores=400",
    ]
    result = CliRunner().invoke(cli, [*args, *config, "--json"])
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.stdout)
    assert all("predicted" in row and "observed" not in row for row in data["values"])
    assert all(c["predicted_met"] in (True, False) for c in data["constraints"])
    assert result.exit_code == (
        1 if not all(c["predicted_met"] for c in data["constraints"]) else 0
    )
    text = CliRunner().invoke(cli, [*args, *config])
    assert "preemption: off (Hadoop 3's default for yarn.scheduler.fair.preemption)" in text.stderr
    missing = CliRunner().invoke(cli, args)
    assert missing.exit_code == 2 and "pass --config and --cluster" in missing.output


def test_qs_config_without_cluster_is_a_usage_error(trace_dir):
    """--config without --cluster is refused with exit 2."""
    result = _qs("--trace", trace_dir, "--config", "x.xml")
    assert result.exit_code == 2 and "--config needs --cluster" in result.output


def test_qs_unknown_template_queue_is_checked_against_the_config(tmp_path):
    """A template for a queue the allocation file lacks is reported with its place."""
    (tmp_path / "t.qs").write_text("QUEUE root.nosuch\nOPTIMIZE QS_AJR;\n")
    result = _qs(
        "--trace",
        ROOT / "traces/two-tenant",
        "--templates",
        tmp_path / "t.qs",
        "--config",
        ROOT / "configs/two-tenant-expert.xml",
        "--cluster",
        "memory-mb=409600,vcores=400",
    )
    assert result.exit_code == 2 and "root.nosuch" in result.output and "t.qs:1" in result.output


def test_qs_warns_of_observed_jobs_still_running_at_the_end_of_the_trace(tmp_path, make_trace):
    """Observed jobs still running when the trace ended are the one case that only warns:
    exit 0, and the report says how many were left out."""
    workload, schedule = make_trace()
    jobs = schedule.jobs.assign(
        finish_s=schedule.jobs["finish_s"].where(schedule.jobs["job_id"] != "e1"),
        state=schedule.jobs["state"].where(schedule.jobs["job_id"] != "e1", "RUNNING"),
    )
    attempts = schedule.attempts.assign(
        finish_s=schedule.attempts["finish_s"].where(schedule.attempts["job_id"] != "e1"),
        state=schedule.attempts["state"].where(schedule.attempts["job_id"] != "e1", "RUNNING"),
    )
    path = write_native(
        Trace(workload=workload, observed=Schedule(jobs, attempts)), tmp_path / "cut"
    )
    result = _qs("--trace", path)
    assert result.exit_code == 0, result.output
    assert "WARNING: 1 job submitted in the window was still running when the trace ended" in (
        result.output
    )


def test_qs_config_whose_predicted_jobs_never_finish_is_an_error(tmp_path):
    """Under --config, a predicted job that never finishes is an error with exit status 1,
    naming how many, which and where, never a QS computed without it."""
    workload = read_trace(ROOT / "traces/two-tenant").workload
    workload = Workload(
        jobs=workload.jobs.assign(am_memory_mb=1024.0, am_vcores=1.0), tasks=workload.tasks
    )
    path = write_native(Trace(workload=workload), tmp_path / "with-ams")
    config = tmp_path / "starved.xml"
    config.write_text(
        '<?xml version="1.0"?>\n<allocations>\n'
        '  <queue name="prod"><maxAMShare>0.0001</maxAMShare></queue>\n'
        '  <queue name="engineer"/>\n</allocations>\n'
    )
    result = _qs(
        "--trace", path, "--config", config, "--cluster", "nodes=24,memory-mb=8192,vcores=8"
    )
    assert result.exit_code == 1, result.output
    assert re.search(
        r"predicted schedule: \d+ jobs submitted in .* \(root\.prod: \d+; e\.g\. ", result.output
    )
    assert "never finished" in result.output


@pytest.mark.parametrize("flag", [["--preemption"], ["--no-preemption"], ["--hadoop-version", "1"]])
def test_prediction_options_without_config_are_usage_errors(flag):
    """--preemption and --hadoop-version set how the prediction runs: without --config
    there is none, so a script that passes them learns so (exit 2) instead of an
    observed-only table that silently ignored them."""
    trace = Path(__file__).parents[3] / "traces" / "contended"
    result = CliRunner().invoke(cli, ["qs", "--trace", str(trace), *flag])
    assert result.exit_code == 2
    assert f"{flag[0]} sets how the prediction runs: it needs --config" in result.output
