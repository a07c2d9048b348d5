"""`tempo whatif`: wiring, report files and exit codes."""

import json

import pytest
from click.testing import CliRunner
from samples import REPO, sample_args

from tempo.cli import cli

ARGS = [
    "whatif",
    *sample_args("two-tenant", config=True),
    "--executor",
    "serial",
    "--no-progress",
]


def test_whatif_writes_the_report_and_prints_the_table(tmp_path):
    """A run on the bundled two-tenant trace prints the table and writes report.json and report.html."""
    result = CliRunner().invoke(
        cli, [*ARGS, "--cluster-scale", "0.5,1", "--tolerance", "0.2", "-o", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "Smallest cluster scale meeting every SLO" in result.output
    document = json.loads((tmp_path / "report.json").read_text())
    assert document["grid"] == [0.5, 1.0] and document["inputs"]["executor"] == "serial"
    assert (tmp_path / "report.html").stat().st_size > 10_000


def test_a_window_longer_than_the_trace_is_warned_of(tmp_path, caplog):
    """--window 10d on a trace of two hours starts before its first job: shares over the
    window (QS_UTIL...) count that time as idle, and a warning says so, as tempo qs does."""
    with caplog.at_level("WARNING", logger="tempo"):
        result = CliRunner().invoke(
            cli, [*ARGS, "--cluster-scale", "1", "--window", "10d", "-o", str(tmp_path)]
        )
    assert result.exit_code == 0, result.output
    assert "--window 10d: the window is longer than the trace" in caplog.text


def test_growth_whose_generated_workload_has_no_deadlines_names_the_template_line(tmp_path):
    """--growth replays workloads generated from the trace's model, which keeps recurring
    jobs only when they are periodic: the two-tenant sample's are not, so root.prod's
    QS_DL (deadline=auto) has no deadline in any generated job. Exit 2 naming the
    template line and why, not the bare 'deadline=auto: no deadlines available; ...'."""
    result = CliRunner().invoke(
        cli, [*ARGS, "--cluster-scale", "1", "--growth", "1.3", "-o", str(tmp_path)]
    )
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    assert "prod.qs:10:12" in line and "workload model" in line and "deadline=+1h" in line


@pytest.mark.parametrize("scales", ["1,big", "1e400", "inf", "nan", "2e5"])
def test_bad_scale_list_is_a_usage_error(tmp_path, scales):
    """A non-numeric --cluster-scale, or one no cluster could be scaled to (inf was an
    OverflowError, 1e300 ran for minutes), exits 2 naming the option."""
    result = CliRunner().invoke(cli, [*ARGS, "--cluster-scale", scales, "-o", str(tmp_path)])
    assert result.exit_code == 2 and "--cluster-scale" in result.output


def test_missing_trace_is_one_line_and_exit_2(tmp_path):
    """An unreadable trace gives one error line, exit status 2, and no report."""
    args = [*ARGS, "-o", str(tmp_path / "out")]
    args[args.index("--trace") + 1] = str(tmp_path / "nope")
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "Error:" in result.output
    assert not (tmp_path / "out").exists()


def test_the_cluster_defaults_to_the_one_the_sample_was_recorded_on(tmp_path):
    """Without --cluster, scale 1 is the trace's recorded cluster (24 nodes for the
    two-tenant sample, not 100), and the command says so."""
    result = CliRunner().invoke(
        cli, [*ARGS, "--cluster-scale", "1", "--tolerance", "0.5", "-o", str(tmp_path)]
    )
    assert result.exit_code in (0, 1), result.output
    assert "cluster at scale 1: nodes=24,memory-mb=8192,vcores=8 (from the trace's notes)" in (
        result.stdout
    )
    document = json.loads((tmp_path / "report.json").read_text())
    assert document["inputs"]["cluster"] == "nodes=24,memory-mb=8192,vcores=8"
    assert "preemption: off (Hadoop 3's default" in result.stderr
    assert document["inputs"]["preemption"] is False


def test_whatif_never_overwrites_a_report_without_force(tmp_path):
    (tmp_path / "report.json").write_text("{}")
    result = CliRunner().invoke(cli, [*ARGS, "--cluster-scale", "1", "-o", str(tmp_path)])
    assert result.exit_code == 2 and "report.json: already exists (-o)" in result.output
    assert (tmp_path / "report.json").read_text() == "{}"


def test_six_tenant_templates_on_the_two_tenant_trace_are_an_error_not_a_report(tmp_path):
    args = [*ARGS, "-o", str(tmp_path / "out")]
    args[args.index("--templates") + 1] = str(REPO / "templates" / "six-tenant")
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert "tenants.qs:11:1: queue root.etl is not in the trace" in result.output
    assert not (tmp_path / "out").exists()


def test_a_trace_that_records_no_cluster_needs_the_option(tmp_path):
    args = [*ARGS, "-o", str(tmp_path / "out")]
    args[args.index("--trace") + 1] = str(REPO / "traces" / "hadoop" / "sls")
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert "does not say which cluster it was recorded on" in result.output
    assert "--cluster" in result.output


def test_growth_auto_with_an_unparsable_horizon_is_exit_2(tmp_path):
    """--horizon must be a duration: exit 2 naming the option, no report."""
    result = CliRunner().invoke(
        cli, [*ARGS, "--growth", "auto", "--horizon", "next quarter", "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 2 and "--horizon" in result.output, result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "horizon,expected",
    [
        ("next quarter", "duration: expected a number"),
        ("12h", "expected a duration of at least 1d (e.g. 90d), got '12h'"),
        ("0", "expected a duration of at least 1d (e.g. 90d), got '0'"),
    ],
)
def test_a_bad_horizon_is_a_usage_error_worded_as_clicks(tmp_path, horizon, expected):
    """'--horizon' quoted as click quotes an option, and what it expects: a horizon under
    the forecast's day stops before the trace is read, naming the option, not the trace."""
    args = [*ARGS, "--growth", "auto", "--horizon", horizon, "-o", str(tmp_path / "o")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert f"Error: Invalid value for '--horizon': {expected}" in result.output
    assert "preemption:" not in result.output  # stopped before any work


def test_horizon_without_growth_auto_and_a_bad_growth_are_exit_2(tmp_path):
    result = CliRunner().invoke(cli, [*ARGS, "--horizon", "90d", "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "Invalid value for '--horizon': expected only with --growth auto" in result.output
    result = CliRunner().invoke(cli, [*ARGS, "--growth", "lots", "-o", str(tmp_path)])
    assert result.exit_code == 2 and "expected a number > 0 or 'auto'" in result.output
    both = [*ARGS, "--growth", "auto", "--arrival-scale", "1.2", "-o", str(tmp_path)]
    result = CliRunner().invoke(cli, both)
    assert result.exit_code == 2 and "'--arrival-scale': not with --growth auto" in result.output
    assert "preemption:" not in result.output  # with the command line, before any reading


def test_growth_auto_on_a_history_under_a_day_is_exit_2(tmp_path):
    """The bundled two-tenant sample spans 2 hours: too short to forecast; the error names
    the trace and says what was expected."""
    result = CliRunner().invoke(
        cli, [*ARGS, "--growth", "auto", "--horizon", "90d", "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 2, result.output
    assert "two-tenant: --growth auto: history: expected at least 1d" in result.output
    assert not (tmp_path / "o").exists()


def test_the_forecast_answer_names_the_smallest_cluster_without_an_upper_bound():
    """`--growth auto`'s summary line: a scenario met at the one-node cluster reads as that
    cluster, "at most" stays for a scale at the bisection's lower limit."""
    from types import SimpleNamespace

    from tempo.cli.whatif import _answer
    from whatif import Cluster
    from whatif.provisioning import BisectionResult

    def run(status):
        smallest = SimpleNamespace(cluster=Cluster.parse("nodes=1,memory-mb=4096,vcores=4"))
        bisection = BisectionResult(0.25, None, status, ((0.25, True),))
        scenario = SimpleNamespace(label="median", smallest=smallest, bisection=bisection)
        scenario.scenario = scenario
        return SimpleNamespace(analysis=SimpleNamespace(scenarios=[scenario]))

    assert "median: scale 0.25: " in _answer(run("smallest_cluster"))
    assert "(the smallest cluster)" in _answer(run("smallest_cluster"))
    assert "median: at most scale 0.25: " in _answer(run("below_min"))
