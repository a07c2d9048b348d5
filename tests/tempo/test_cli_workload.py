"""`tempo workload fit` and `tempo workload generate`: wiring and exit codes."""

import json

import jsonschema
import pandas as pd
import pytest
from click.testing import CliRunner

from tempo.cli import cli
from tempo.cli.schemas import WORKLOAD_FIT_SCHEMA, WORKLOAD_GENERATE_SCHEMA
from whatif import Trace, Workload
from whatif.readers import read_trace, write_native


@pytest.fixture
def trace_dir(tmp_path):
    jobs = pd.DataFrame(
        {
            "job_id": [f"j{i}" for i in range(40)],
            "queue": ["root.a", "root.b"] * 20,
            "submit_s": [i * 90.0 for i in range(40)],
        }
    )
    tasks = pd.DataFrame(
        {
            "job_id": [f"j{i}" for i in range(40) for _ in range(3)],
            "task_id": [f"t{i}" for i in range(120)],
            "stage": ["map", "map", "reduce"] * 40,
            "duration_s": [10.0 + (i * 7) % 13 for i in range(120)],
            "memory_mb": 1024.0,
            "vcores": 1.0,
        }
    )
    write_native(Trace(workload=Workload(jobs=jobs, tasks=tasks)), tmp_path / "trace")
    return tmp_path / "trace"


def test_fit_then_generate_writes_a_readable_trace(trace_dir, tmp_path):
    """fit prints the report and writes the model; generate writes a native trace."""
    runner = CliRunner()
    model = tmp_path / "model.json"
    fitted = runner.invoke(cli, ["workload", "fit", str(trace_dir), "-o", str(model)])
    assert fitted.exit_code == 0, fitted.output
    assert "ks_stat" in fitted.output and "interarrival" in fitted.output
    assert json.loads(model.read_text())["format"] == "tempo-workload-model"
    out = tmp_path / "synthetic"
    generated = runner.invoke(
        cli,
        [
            "workload",
            "generate",
            str(model),
            "--hours",
            "3",
            "--growth",
            "1.3",
            "--arrival-scale",
            "1.2",
            "--seed",
            "5",
            "-o",
            str(out),
            "--json",
        ],
    )
    assert generated.exit_code == 0, generated.output
    document = json.loads(generated.stdout)
    jsonschema.validate(document, WORKLOAD_GENERATE_SCHEMA)
    assert document["jobs"] == read_trace(out).workload.n_jobs > 0
    assert sorted(document["queues"]) == ["root.a", "root.b"]


def test_fit_json_prints_the_report_rows(trace_dir, tmp_path):
    """--json prints one record per fitted distribution."""
    result = CliRunner().invoke(
        cli, ["workload", "fit", str(trace_dir), "-o", str(tmp_path / "m.json"), "--json"]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    jsonschema.validate(document, WORKLOAD_FIT_SCHEMA)
    rows = document["goodness_of_fit"]
    assert {(r["queue"], r["quantity"]) for r in rows} >= {("root.a", "duration_s")}


def test_malformed_model_is_one_line_and_exit_2(tmp_path):
    """A bad model file gives one error line naming it, exit status 1."""
    bad = tmp_path / "model.json"
    bad.write_text('{"format": "tempo-workload-model", "version": 7}')
    result = CliRunner().invoke(
        cli, ["workload", "generate", str(bad), "--hours", "1", "-o", str(tmp_path / "t")]
    )
    assert result.exit_code == 2
    assert f"{bad}: version: expected schema version 1" in result.output
    assert not (tmp_path / "t").exists()


def test_usage_errors_exit_2(tmp_path):
    """A missing required option is a usage error (exit 2)."""
    result = CliRunner().invoke(cli, ["workload", "generate", str(tmp_path), "-o", "x"])
    assert result.exit_code == 2


@pytest.mark.parametrize("start", ["-5", "nan", "inf", "1e300"])
def test_a_start_that_is_no_trace_time_is_a_usage_error_naming_start(trace_dir, tmp_path, start):
    """Trace times are >= 0 (every reader refuses a negative one): --start -5 is refused
    as the command line is read (exit 2, naming --start, saying what it takes), as are
    NaN and a start too large to leave room for the hours (it generated 0 jobs)."""
    model = tmp_path / "model.json"
    assert (
        CliRunner().invoke(cli, ["workload", "fit", str(trace_dir), "-o", str(model)]).exit_code
        == 0
    )
    out = tmp_path / "t"
    args = ["workload", "generate", str(model), "--hours", "1", "--start", start, "-o", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--start': expected seconds in [0, 253402300799] (0 for " in (
        result.output
    )
    assert not out.exists()


def test_generate_refuses_a_start_that_is_no_trace_time():
    """WorkloadModel.generate's start_s: seconds >= 0, NaN and infinity refused too."""
    from whatif.errors import ValidationError
    from whatif.workload_model.model import check_start

    for start in (-5.0, float("nan"), float("inf")):
        with pytest.raises(ValidationError, match=r"start_s: expected seconds in \[0, "):
            check_start(start)
    check_start(0)
    check_start(1.7e9)


def test_generate_takes_the_kind_as_trace_convert_names_it(trace_dir, tmp_path):
    """--kind and --to are one option, with trace convert's values too (native-csv)."""
    model = tmp_path / "model.json"
    fit = CliRunner().invoke(cli, ["workload", "fit", str(trace_dir), "-o", str(model)])
    assert fit.exit_code == 0, fit.output
    for name, value in (("--to", "csv"), ("--kind", "native-csv")):
        out = tmp_path / name.strip("-")
        args = ["workload", "generate", str(model), "--hours", "1", name, value, "-o", str(out)]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert (out / "jobs.csv").is_file() and not (out / "jobs.parquet").exists()


@pytest.fixture
def model_file(trace_dir, tmp_path):
    model = tmp_path / "model.json"
    fitted = CliRunner().invoke(cli, ["workload", "fit", str(trace_dir), "-o", str(model)])
    assert fitted.exit_code == 0, fitted.output
    return model


@pytest.mark.parametrize(
    "options", [["--hours", "1e9"], ["--hours", "1", "--arrival-scale", "1e300"]]
)
def test_generate_too_large_is_a_usage_error_with_the_estimate(model_file, tmp_path, options):
    """A request over the size limit is refused before any draw: exit 2, naming --hours
    and --arrival-scale, the estimate and the limit (it was OOM-killed at 23 GB, or a
    ValueError traceback)."""
    out = tmp_path / "t"
    result = CliRunner().invoke(
        cli, ["workload", "generate", str(model_file), *options, "-o", str(out)]
    )
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--hours' and '--arrival-scale'" in result.output
    assert "would generate about" in result.output and "limit of 20,000,000" in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_generate_ending_past_the_last_date_is_a_usage_error(model_file, tmp_path):
    """--start + --hours past 9999-12-31 23:59:59 is refused before any draw: exit 2,
    naming --start and --hours with their values and the last second (it wrote a trace of
    year-10000 submissions that `tempo trace inspect` could not show: a traceback). A
    trace ending at that second is written, and inspected."""
    out = tmp_path / "t"
    args = ["workload", "generate", str(model_file), "--hours", "10", "-o", str(out)]
    result = CliRunner().invoke(cli, [*args, "--start", "253402300000"])
    assert result.exit_code == 2, result.output
    assert (
        "Error: Invalid value for '--start' and '--hours' (--start 253402300000.0, --hours 10): "
        "expected an end at most 253402300799 s (9999-12-31 23:59:59 UTC, the last second a "
        "date shows), got 253402336000 s"
    ) in result.output
    assert "lower --start or --hours" in result.output
    assert "Traceback" not in result.output and not out.exists()
    written = CliRunner().invoke(cli, [*args, "--start", "253402264799"])
    assert written.exit_code == 0, written.output
    inspected = CliRunner().invoke(cli, ["trace", "inspect", str(out)])
    assert inspected.exit_code == 0, inspected.output
    assert "9999-12-31 23:" in inspected.output


def test_generate_bounds_growth(model_file, tmp_path):
    """--growth 1e300 made a trace with no map stage and a NumPy cast warning: refused."""
    args = ["workload", "generate", str(model_file), "--hours", "1", "--growth", "1e300"]
    result = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "t")])
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--growth'" in result.output and "0<x<=1000" in result.output


def _trace_with(tmp_path, name, submit, durations):
    jobs = pd.DataFrame(
        {"job_id": [f"j{i}" for i in range(len(submit))], "queue": "root.a", "submit_s": submit}
    )
    tasks = pd.DataFrame(
        {
            "job_id": jobs["job_id"],
            "task_id": [f"t{i}" for i in range(len(submit))],
            "stage": "map",
            "duration_s": [d if d != float("inf") else 9999.5 for d in durations],
            "memory_mb": 1024.0,
            "vcores": 1.0,
        }
    )
    path = write_native(
        Trace(workload=Workload(jobs=jobs, tasks=tasks)), tmp_path / name, kind="csv"
    )
    table = path / "tasks.csv"  # an infinity no Workload holds, as a file could have it
    table.write_text(table.read_text().replace("9999.5", "inf"))
    return path


@pytest.mark.parametrize(
    ("submit", "durations", "expected"),
    [
        ([0.0, 60.0, 120.0], [1.0, float("inf"), 2.0], "tasks.duration_s: expected a finite"),
        ([5.0, 5.0], [1.0, 2.0], "need submissions at two or more distinct times"),
    ],
)
def test_fit_names_the_trace_it_cannot_fit(tmp_path, submit, durations, expected):
    """An infinite duration (it crashed writing NaN to JSON) or a single submission time
    is one line naming the trace, exit 2."""
    trace = _trace_with(tmp_path, "bad", submit, durations)
    result = CliRunner().invoke(cli, ["workload", "fit", str(trace), "-o", str(tmp_path / "m")])
    assert result.exit_code == 2, result.output
    assert f"Error: {trace}: {expected}" in result.output
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("quiet", [False, True])
def test_fit_warns_when_hour_of_week_falls_back(trace_dir, tmp_path, quiet, caplog):
    """A trace shorter than a week gets hour-of-day rates; a warning (stderr) says so,
    which -q hides as it hides the others."""
    args = ["workload", "fit", str(trace_dir), "--profile", "hour-of-week", "-o"]
    result = CliRunner().invoke(cli, [*args, str(tmp_path / "m.json"), *(["-q"] if quiet else [])])
    assert result.exit_code == 0, result.output
    warned = [r for r in caplog.records if "hour-of-week needs a week" in r.getMessage()]
    assert [r.levelname for r in warned] == ([] if quiet else ["WARNING"])


def test_generate_refuses_a_model_without_queues(model_file, tmp_path):
    """A model with no queues printed "queues " and wrote an empty trace: refused by name."""
    document = json.loads(model_file.read_text())
    document["queues"] = []
    model_file.write_text(json.dumps(document))
    args = ["workload", "generate", str(model_file), "--hours", "1", "-o", str(tmp_path / "t")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert f"{model_file}: queues: expected at least one queue" in result.output
