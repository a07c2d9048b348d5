"""`tempo qs` wiring and exit codes."""

import json

import pytest
from click.testing import CliRunner

from tempo.cli import cli
from whatif import Trace
from whatif.readers import write_native


@pytest.fixture
def trace_dir(tmp_path, make_trace):
    workload, schedule = make_trace()
    path = tmp_path / "trace"
    write_native(Trace(workload=workload, observed=schedule), path)
    return path


def test_qs_prints_json_with_constraint_status(trace_dir, tmp_path, qs_templates_text):
    """--json prints the window, values and constraints; exit 0."""
    (tmp_path / "t.qs").write_text(qs_templates_text)
    result = CliRunner().invoke(
        cli,
        [
            "qs",
            "--trace",
            str(trace_dir),
            "--templates",
            str(tmp_path / "t.qs"),
            "--cluster",
            "memory-mb=1000,vcores=10",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"window", "values", "constraints"}
    assert {c["queue"] for c in data["constraints"]} == {"root.prod", "root.engineer"}


def test_qs_window_option_and_text_output(trace_dir):
    """--window takes a duration and the text table names the queues."""
    result = CliRunner().invoke(cli, ["qs", "--trace", str(trace_dir), "--window", "1min"])
    assert result.exit_code == 0, result.output
    assert "60 s" not in result.output and "1 min" in result.output
    assert "root.prod" in result.output


def test_qs_bad_template_is_one_line_and_exit_1(trace_dir, tmp_path):
    """A template error is reported as file:line:col on one line with exit status 1."""
    (tmp_path / "bad.qs").write_text("QUEUE root.prod\nOPTIMIZE QS_AJR\n")
    result = CliRunner().invoke(
        cli, ["qs", "--trace", str(trace_dir), "--templates", str(tmp_path / "bad.qs")]
    )
    assert result.exit_code == 1
    assert "bad.qs:3:1: expected ';' after OPTIMIZE QS_AJR" in result.output


def test_qs_bad_window_is_exit_1(trace_dir):
    """An unreadable --window is a one-line error."""
    result = CliRunner().invoke(cli, ["qs", "--trace", str(trace_dir), "--window", "soon"])
    assert result.exit_code == 1
    assert "expected a number with an optional unit" in result.output
