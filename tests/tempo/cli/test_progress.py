"""Progress bars: rich on stderr for a person at a terminal; nothing in pipes, logs or with -q."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tempo.cli import cli
from tempo.cli.progress import ProgressBar, progress_bar
from tempo.loop import IterationReport
from tempo.loop.report import TuneRun

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def terminal(monkeypatch):
    """Make tempo believe stderr is a terminal (CliRunner's stderr is a pipe)."""
    monkeypatch.setattr("tempo.cli.progress.stderr_is_terminal", lambda: True)
    monkeypatch.setenv("COLUMNS", "160")


def test_a_bar_draws_counts_and_notes_then_leaves_nothing_on_the_line(monkeypatch):
    """At a terminal: description, done/total, unit and the note; closing erases it."""
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    bar = ProgressBar(3, "tune", unit="windows")
    bar.update(1)
    bar.set_postfix_str("accepted", refresh=False)
    bar.update(1)
    bar.clear()
    bar.close()
    text = ANSI.sub("", stream.getvalue())
    assert "tune" in text and "1/3 windows" in text and "2/3 windows" in text
    assert "accepted" in text and "\x1b[2K" in stream.getvalue()  # erased, not left behind


def test_no_bar_without_a_terminal_or_with_quiet(monkeypatch):
    """A pipe or a log gets no bar and no carriage returns; -q hides it at a terminal too."""
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    bar = progress_bar(4, "generate")
    bar.update(4)
    bar.close()
    assert bar.disable and stream.getvalue() == ""
    monkeypatch.setattr("tempo.cli.progress.stderr_is_terminal", lambda: True)
    monkeypatch.setattr("tempo.cli.is_quiet", lambda ctx=None: True)
    assert progress_bar(4, "generate").disable


def _report(i: int, decision: str) -> IterationReport:
    return IterationReport(
        id=i, begin_s=1.7e9 + 600 * i, end_s=1.7e9 + 600 * (i + 1), decision=decision, reason="r"
    )


@pytest.fixture
def fake_tune(monkeypatch):
    def fake(settings, *, on_start=None, callback=None):
        run = TuneRun(Path("f.xml"), Path("j.sqlite"), True, "fresh start")
        on_start(run)
        reports = [_report(1, "accepted"), _report(2, "rejected")]
        for report in reports:
            callback(report)
        import dataclasses

        return dataclasses.replace(run, reports=tuple(reports))

    monkeypatch.setattr("tempo.loop.wiring.tune", fake)


def test_tune_counts_its_windows_on_stderr_and_keeps_stdout_clean(fake_tune, terminal):
    """`tempo tune --max-iterations 2`: the bar goes 1/2, 2/2 windows on stderr with the
    last decision; stdout has the iterations and no bar, no escape codes."""
    result = CliRunner().invoke(cli, ["tune", "--max-iterations", "2", "--work-dir", "w"])
    assert result.exit_code == 0, result.output
    bar = ANSI.sub("", result.stderr)
    assert "1/2 windows" in bar and "2/2 windows" in bar and "accepted; next window ends" in bar
    assert "\x1b" not in result.stdout and "windows" not in result.stdout
    assert "iteration 1:" in result.stdout and "iteration 2:" in result.stdout


def test_tune_json_and_quiet_runs_draw_no_bar(fake_tune, terminal):
    for extra in (["-q"], ["--json", "-q"]):
        result = CliRunner().invoke(cli, ["tune", "--max-iterations", "2", *extra])
        assert result.exit_code == 0, result.output
        assert "windows" not in result.stderr


def test_workload_generate_shows_queues_then_the_write(tmp_path, terminal):
    """`tempo workload generate`: a step per queue generated and one for the write."""
    import pandas as pd

    from whatif import Trace, Workload
    from whatif.readers import write_native
    from whatif.workload_model import fit_trace

    jobs = pd.DataFrame(
        {"job_id": [f"j{i}" for i in range(40)], "queue": ["root.a", "root.b"] * 20}
    ).assign(submit_s=[i * 90.0 for i in range(40)])
    tasks = pd.DataFrame({"job_id": jobs["job_id"], "task_id": jobs["job_id"] + "t"}).assign(
        stage="map", duration_s=[10.0 + i % 7 for i in range(40)], memory_mb=1024.0, vcores=1.0
    )
    write_native(Trace(workload=Workload(jobs=jobs, tasks=tasks)), tmp_path / "trace")
    model = tmp_path / "model.json"
    fit_trace(tmp_path / "trace", model)
    out = tmp_path / "synthetic"
    result = CliRunner().invoke(
        cli, ["workload", "generate", str(model), "--hours", "2", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    bar = ANSI.sub("", result.stderr)
    assert "generated root.a" in bar and "1/3 steps" in bar and "3/3 steps" in bar
    assert "wrote synthetic" in bar and "\x1b" not in result.stdout
    quiet = CliRunner().invoke(
        cli, ["workload", "generate", str(model), "--hours", "2", "-o", str(out), "--force", "-q"]
    )
    assert quiet.exit_code == 0 and quiet.stderr == ""
    hidden = CliRunner().invoke(  # --no-progress: no bar, the rest as without it
        cli, ["workload", "generate", str(model), "--hours", "2", "-o", str(out), "--force",
              "--no-progress"]
    )  # fmt: skip
    assert hidden.exit_code == 0 and hidden.stderr == "" and hidden.stdout == result.stdout


def test_optimize_draws_its_batches_unless_no_progress(tmp_path, terminal):
    """`tempo optimize` counts its batches on stderr at a terminal; --no-progress (for
    scripts that keep stderr for errors) draws none and changes nothing else."""
    from samples import sample_args

    args = ["optimize", *sample_args("contended", config=True), "--preemption",
            "--cluster", "nodes=5,memory-mb=8192,vcores=8", "--iterations", "1",
            "--batch-size", "2", "--executor", "serial"]  # fmt: skip
    drawn = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "a.xml")])
    assert drawn.exit_code in (0, 1), drawn.output
    assert "2/2 batch" in ANSI.sub("", drawn.stderr)
    hidden = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "b.xml"), "--no-progress"])
    assert hidden.exit_code == drawn.exit_code, hidden.output
    assert "batch" not in hidden.stderr and "\x1b" not in hidden.stderr
    assert hidden.stdout.replace("b.xml", "a.xml") == drawn.stdout


def test_tune_with_no_progress_draws_no_bar_and_prints_the_same(fake_tune, terminal):
    """`tempo tune --no-progress`, as optimize and whatif take it: no bar at a terminal,
    the same iterations and summary on stdout."""
    args = ["tune", "--max-iterations", "2", "--work-dir", "w"]
    drawn = CliRunner().invoke(cli, args)
    hidden = CliRunner().invoke(cli, [*args, "--no-progress"])
    assert hidden.exit_code == drawn.exit_code == 0, hidden.output
    assert "windows" in drawn.stderr and "windows" not in hidden.stderr
    assert "\x1b" not in hidden.stderr and hidden.stdout == drawn.stdout


def test_trace_convert_with_no_progress_draws_no_bar_and_writes_the_same(tmp_path, terminal):
    """`tempo trace convert --no-progress` on a streamed (SLS) trace: no MB bar, the same
    "wrote" line."""
    source = str(Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "sls")
    source += "/inputsls.json"
    drawn = CliRunner().invoke(cli, ["trace", "convert", source, str(tmp_path / "t")])
    hidden = CliRunner().invoke(
        cli, ["trace", "convert", source, str(tmp_path / "t"), "--force", "--no-progress"]
    )
    assert hidden.exit_code == drawn.exit_code == 0, hidden.output
    assert "MB" in ANSI.sub("", drawn.stderr) and "MB" not in hidden.stderr
    assert "\x1b" not in hidden.stderr and hidden.stdout == drawn.stdout
