"""`tempo trace` wiring: inspect (text and --json), convert, and one-line errors."""

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from samples import trace_inspect

from tempo.cli import cli
from tempo.cli.schemas import TRACE_CONVERT_SCHEMA, TRACE_INSPECT_SCHEMA

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
SLS = DATA / "hadoop" / "sls" / "inputsls.json"


def test_inspect_json_prints_one_object():
    """inspect --json prints one tempo.trace.inspect/1 document with counts and queue names."""
    payload = json.loads(trace_inspect(SLS, "--json").output)
    jsonschema.validate(payload, TRACE_INSPECT_SCHEMA)
    assert (payload["jobs"], payload["tasks"], payload["attempts"]) == (2, 5, 5)
    assert payload["queues"] == ["root.sls_queue_1", "root.sls_queue_2"]


def test_inspect_text_with_explicit_format():
    """inspect --format renders a table naming the queues."""
    assert "root.sls_queue_2" in trace_inspect(SLS, "--format", "sls").output


def test_non_trace_is_one_line_exit_2():
    """A file that is not a trace gives one line on stderr and exit status 2, no traceback."""
    result = CliRunner().invoke(
        cli, ["trace", "inspect", str(DATA / "hadoop" / "rest" / "rm-metrics.json")]
    )
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "not a trace" in result.output
    assert "Traceback" not in result.output


def test_convert_then_inspect(tmp_path):
    """convert writes a native trace that inspect reads back; a second convert needs --force."""
    out = tmp_path / "native"
    runner = CliRunner()
    result = runner.invoke(cli, ["trace", "convert", str(SLS), str(out), "--to", "csv"])
    assert result.exit_code == 0, result.output
    assert (out / "tasks.csv").is_file()
    again = runner.invoke(cli, ["trace", "convert", str(SLS), str(out)])
    assert again.exit_code == 2 and "already exists" in again.output
    forced = runner.invoke(cli, ["trace", "convert", str(SLS), str(out), "--force", "--json"])
    assert forced.exit_code == 0 and (out / "tasks.parquet").is_file()
    written = json.loads(forced.stdout)
    jsonschema.validate(written, TRACE_CONVERT_SCHEMA)
    assert written["output"] == str(out)
    payload = json.loads(runner.invoke(cli, ["trace", "inspect", str(out), "--json"]).output)
    assert payload["tasks"] == 5 and payload["format"] == "sls"


def test_convert_takes_the_input_format_as_format_too(tmp_path):
    """`trace convert` names the input format --from (beside --to) and also --format, the
    name every other command gives it, so a script's --format works here as well."""
    runner = CliRunner()
    for option in ("--from", "--format"):
        out = tmp_path / option.strip("-")
        result = runner.invoke(cli, ["trace", "convert", str(SLS), str(out), option, "sls"])
        assert result.exit_code == 0, result.output
        assert (out / "tasks.parquet").is_file()


@pytest.mark.parametrize("option", [["--to", "native-csv"], ["--kind", "csv"]])
def test_convert_kind_has_one_name_with_workload_generate(tmp_path, option):
    """--to and --kind name one option, as on `workload generate`; the first values
    (native-parquet, native-csv) are still read, so old scripts keep working."""
    out = tmp_path / "native"
    result = CliRunner().invoke(cli, ["trace", "convert", str(SLS), str(out), *option])
    assert result.exit_code == 0, result.output
    assert (out / "tasks.csv").is_file()
    wrong = CliRunner().invoke(cli, ["trace", "convert", str(SLS), str(out), "--to", "xml"])
    assert wrong.exit_code == 2 and "'xml' is not one of 'parquet', 'csv'" in wrong.output


def test_inspect_of_a_trace_without_task_records_prints_no_row_of_nan():
    """The JobHistory jobs response alone has no tasks: the durations table says so
    instead of an 'all 0 nan nan ...' row."""
    jobs = DATA / "hadoop" / "rest" / "jhs-jobs.json"
    result = CliRunner().invoke(cli, ["trace", "inspect", str(jobs)])
    assert result.exit_code == 0, result.output
    assert "task durations (s): no task records" in result.output and "nan" not in result.output
