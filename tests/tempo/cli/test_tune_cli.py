"""`tempo tune`: option wiring, exit codes, the console report and `tempo history` after a run."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from tempo.cli import cli
from tempo.cli.schemas import TUNE_SCHEMA
from tempo.gain import MinGain
from tempo.journal import SQLiteJournal
from tempo.loop import IterationReport, Tuner
from tempo.loop.demo import REPO
from tempo.loop.report import TuneRun
from whatif.allocation import SettingDiff

XML = b"""<?xml version="1.0"?>
<allocations>
  <queue name="prod"><weight>1.0</weight></queue>
  <queue name="engineer"><weight>1.0</weight></queue>
</allocations>
"""
LABEL = "root.engineer:QS_AJR"


@pytest.fixture
def captured(monkeypatch):
    """Replace the library call by one that records its settings and returns an empty run."""
    seen = {}

    def fake(settings, *, on_start=None, callback=None):
        seen["settings"] = settings
        run = TuneRun(Path("f.xml"), Path("j.sqlite"), not settings.rm_urls, "fresh start")
        if on_start:
            on_start(run)
        return run

    monkeypatch.setattr("tempo.loop.wiring.tune", fake)
    return seen


def _window(**fields) -> IterationReport:
    """Iteration 2 of a 45-minute window; `fields` give its decision and the rest."""
    return IterationReport(id=2, begin_s=1_700_000_000.0, end_s=1_700_002_700.0, **fields)


def _replay(monkeypatch, *reports: IterationReport) -> None:
    """Make `tempo tune` run a library call that reports `reports`, one per window."""

    def fake(settings, *, on_start=None, callback=None):
        for report in reports:
            callback(report)
        return TuneRun(Path("f.xml"), Path("j.sqlite"), True, "fresh", reports)

    monkeypatch.setattr("tempo.loop.wiring.tune", fake)


def _live(url: str, config: Path, templates: Path, cluster: str) -> list[str]:
    """`tempo tune`'s arguments for one address serving both the RM and the history server."""
    args = ["tune", "--rm", url, "--history-server", url, "--config", str(config)]
    return [*args, "--templates", str(templates), "--cluster", cluster]


def test_options_reach_the_library(captured):
    """--once, --dry-run, durations and RM options are passed through as settings."""
    result = CliRunner().invoke(
        cli,
        [
            "tune",
            "--rm",
            "http://rm1:8088",
            "--rm",
            "http://rm2:8088",
            "--history-server",
            "http://jhs:19888",
            "--window",
            "30min",
            "--interval",
            "1h",
            "--once",
            "--dry-run",
            "--radius",
            "0.2",
            "--reload-command",
            "yarn rmadmin -refreshQueues",
        ],
    )
    assert result.exit_code == 0, result.output
    s = captured["settings"]
    assert s.rm_urls == ("http://rm1:8088", "http://rm2:8088")
    assert (s.window_s, s.interval_s, s.max_iterations, s.dry_run) == (1800, 3600, 1, True)
    assert s.radius == 0.2 and s.engine == "numba" and s.min_improvement == 0.01
    assert s.reload_command == "yarn rmadmin -refreshQueues"


@pytest.mark.parametrize(("warm", "engine"), [(False, "reference"), (True, "numba")])
def test_without_rm_the_emulated_sample_runs_a_few_iterations(captured, monkeypatch, warm, engine):
    """No --rm means the emulated RM, three iterations, and the numba engine once its kernel
    is compiled, else the reference engine (no compile wait before a first demo)."""
    monkeypatch.setattr("whatif.predictor.compiled.kernel_cache_is_warm", lambda: warm)
    result = CliRunner().invoke(cli, ["tune"])
    assert result.exit_code == 0, result.output
    s = captured["settings"]
    assert s.rm_urls == () and s.max_iterations == 3 and s.engine == engine
    assert "emulated RM" in result.output


def test_a_bad_duration_is_a_usage_error(captured):
    """--window that is not a duration exits with status 2 naming the option."""
    result = CliRunner().invoke(cli, ["tune", "--window", "soon"])
    assert result.exit_code == 2 and "--window" in result.output


@pytest.mark.parametrize(
    "options",
    [
        ["--history-server", "http://jhs:19888"],
        ["--reload-command", "yarn rmadmin -refreshQueues"],
    ],
    ids=["--history-server", "--reload-command"],
)
def test_live_rm_options_without_rm_are_a_usage_error(captured, options):
    """Options of a live RM given without --rm (a script's empty $RM) stop with exit 2
    naming them, rather than run the emulated demo and exit 0 as if the cluster were tuned."""
    result = CliRunner().invoke(cli, ["tune", *options])
    assert result.exit_code == 2, result.output
    assert "settings" not in captured
    assert options[0] in result.output and "--rm" in result.output


def test_rm_without_a_history_server_is_a_usage_error(captured):
    """--rm without --history-server (where the finished jobs are read) stops with exit 2
    and the usage, before any connection or work, as its help says it is required."""
    result = CliRunner().invoke(cli, ["tune", "--rm", "http://127.0.0.1:9"])
    assert result.exit_code == 2, result.output
    assert "settings" not in captured
    assert "Usage:" in result.output and "--rm needs --history-server" in result.output


def test_kerberos_without_the_extra_is_a_usage_error(monkeypatch):
    """--kerberos without requests-gssapi is exit 2 naming the option and the extra, read
    with the command line, not 3 (a failed cluster a script would retry)."""
    monkeypatch.setitem(sys.modules, "requests_gssapi", None)  # import fails
    live = ["tune", "--rm", "http://127.0.0.1:9", "--history-server", "http://127.0.0.1:9"]
    result = CliRunner().invoke(cli, [*live, "--kerberos", "--once"])
    assert result.exit_code == 2, result.output
    assert "'--kerberos'" in result.output and "tempo-yarn[kerberos]" in result.output


def test_rm_without_config_is_one_line_and_status_2(tmp_path):
    """With --rm but no allocation file, the command fails with one line and exit 2."""
    url = "http://127.0.0.1:9"
    result = CliRunner().invoke(cli, ["tune", "--rm", url, "--history-server", url, "--once"])
    assert result.exit_code == 2
    assert "--config" in result.output and "Traceback" not in result.output


def test_the_console_shows_the_qs_table_and_the_decision(monkeypatch):
    """Each iteration prints its QS table, the decision and the reasoning."""
    report = _window(
        decision="accepted",
        reason="predicted root.engineer:QS_AJR 100 -> 80",
        observed={LABEL: 100.0},
        baseline={LABEL: 101.0},
        predicted={LABEL: 80.0},
        predicted_current={LABEL: math.nan},
        diff=(SettingDiff("root.engineer", "weight", 1.0, 2.0),),
        jobs=12,
    )
    _replay(monkeypatch, report)
    result = CliRunner().invoke(cli, ["tune"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "iteration 2" in out and "12 job(s)" in out
    table = next(line for line in out.splitlines() if line.strip().startswith(LABEL))
    assert table.split()[1:] == ["101", "100", "-", "80"]
    assert "decision: ACCEPTED" in out and "reason:   predicted" in out
    assert "root.engineer  weight: 1 -> 2" in out  # allocation-file syntax
    assert "1 iteration(s): 1 accepted" in out
    document = json.loads(CliRunner().invoke(cli, ["tune", "--json"]).stdout)
    jsonschema.validate(document, TUNE_SCHEMA)
    (iteration,) = document["iterations"]
    assert iteration["predicted_current"] == {LABEL: None}  # NaN
    assert iteration["changes"] == [
        {"queue": "root.engineer", "element": "weight", "old": "1", "new": "2"}
    ]


def test_a_change_of_the_rms_nodes_is_said_once_with_the_iteration(monkeypatch):
    """The window where the RM's nodes changed says so in one line, before -> after; the
    next does not; --json gives each window's cluster SPEC and the change."""
    before, after = "4 RUNNING node(s), ...", "3 RUNNING node(s), ..."
    changed = _window(
        decision="rejected",
        reason="no gain",
        cluster="nodes=3,memory-mb=1024,vcores=1",
        cluster_change=f"{before} -> {after}",
    )
    same = dataclasses.replace(changed, id=3, cluster_change="")
    _replay(monkeypatch, changed, same)
    out = CliRunner().invoke(cli, ["tune"]).output
    lines = [line for line in out.splitlines() if "the RM's nodes changed" in line]
    assert lines == [
        f"  the RM's nodes changed: {before} -> {after}; predicting on them from this window"
    ]
    assert out.index(lines[0]) < out.index("iteration 3")
    document = json.loads(CliRunner().invoke(cli, ["tune", "--json"]).stdout)
    jsonschema.validate(document, TUNE_SCHEMA)
    assert [(i["cluster"], i["cluster_change"]) for i in document["iterations"]] == [
        ("nodes=3,memory-mb=1024,vcores=1", f"{before} -> {after}"),
        ("nodes=3,memory-mb=1024,vcores=1", None),
    ]


def test_history_json_lists_the_iterations_of_a_run(monkeypatch, tmp_path):
    """After a run, `tempo history --json` lists each iteration with its decision and reason."""
    from test_loop import FakeCluster, FileApplier  # the loop tests' fakes

    from tempo.templates import parse_templates

    path = tmp_path / "fair-scheduler.xml"
    path.write_bytes(XML)
    db = tmp_path / "journal.sqlite"
    clock = iter(range(1_700_000_000, 1_800_000_000, 600))

    def fake(settings, *, on_start=None, callback=None):
        with SQLiteJournal(settings.journal_path) as journal:
            from test_loop import DoublingStepper

            loop = Tuner(
                observer=FakeCluster(path, lambda w: 100 / w),
                stepper=DoublingStepper(),
                applier=FileApplier(path),
                journal=journal,
                templates=parse_templates("QUEUE root.engineer OPTIMIZE QS_AJR;"),
                allocation_path=path,
                window_s=600,
                dry_run=settings.dry_run,
                clock=lambda: float(next(clock)),
            )
            reports = loop.run(max_iterations=settings.max_iterations, sleep=lambda s: None)
        return TuneRun(path, settings.journal_path, True, "fresh", tuple(reports))

    monkeypatch.setattr("tempo.loop.wiring.tune", fake)
    runner = CliRunner()
    assert (
        runner.invoke(cli, ["tune", "--journal", str(db), "--max-iterations", "2"]).exit_code == 0
    )
    assert runner.invoke(cli, ["tune", "--journal", str(db), "--once", "--dry-run"]).exit_code == 0
    result = runner.invoke(cli, ["history", "--journal", str(db), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["iterations"]
    assert [r["decision"] for r in rows] == ["accepted", "accepted", "dry_run"]
    assert all(r["reason"] for r in rows)
    assert rows[0]["observed_qs"] == {LABEL: 100.0} and rows[0]["predicted_qs"] == {LABEL: 50.0}


@pytest.mark.slow
def test_the_demo_runs_end_to_end_and_cuts_best_effort_response_time(tmp_path):
    """`tempo tune` alone, on a copy of the contended sample (noisy emulated cluster, another
    seed than the predictions), accepts a step in each of its three windows, leaves the
    shipped file untouched, journals each decision with its reason; the observed
    best-effort AJR falls by >= 30% and no deadline job is late. (One run: each costs a
    minute and a half of CI.)"""
    shipped = (REPO / "configs" / "contended-expert.xml").read_bytes()
    runner = CliRunner()
    result = runner.invoke(cli, ["tune", "--engine", "numba", "--work-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "iteration 3" in result.output and "decision: ACCEPTED" in result.output
    assert (REPO / "configs" / "contended-expert.xml").read_bytes() == shipped
    journal = tmp_path / "tempo-journal.sqlite"
    history = runner.invoke(cli, ["history", "--journal", str(journal), "--json"])
    rows = json.loads(history.output)["iterations"]
    assert [r["decision"] for r in rows] == ["accepted"] * 3
    assert all(r["reason"] for r in rows)
    ajr = [r["observed_qs"]["root.besteffort:QS_AJR"] for r in rows]
    late = [r["observed_qs"]["root.deadline:QS_DL(deadline=+90min)"] for r in rows]
    assert ajr[-1] <= 0.7 * ajr[0]
    assert late == [0.0, 0.0, 0.0]


@pytest.mark.slow
def test_dry_run_on_the_emulated_sample_writes_nothing(tmp_path):
    """With --dry-run the configuration copy keeps the shipped bytes and no backup appears."""
    shipped = (REPO / "configs" / "contended-expert.xml").read_bytes()
    result = CliRunner().invoke(
        cli, ["tune", "--dry-run", "--max-iterations", "1", "--work-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "fair-scheduler.xml").read_bytes() == shipped
    assert not list(tmp_path.glob("fair-scheduler.xml.*"))


def test_tune_against_a_live_rm_address(tmp_path):
    """--rm/--history-server/--config: one iteration observes the RM's last window, on the
    RM's clock (the emulated one is years behind this machine's), and is journalled."""
    import sys

    from emulated import CLUSTER, WEIGHTED, FakeClock, tiny_trace, write

    from tempo.rm.emulator import EmulatedRM

    config = write(tmp_path / "fair-scheduler.xml", WEIGHTED)
    templates = tmp_path / "t.qs"
    templates.write_text("QUEUE root.engineer OPTIMIZE QS_AJR;\n")
    clock = FakeClock()
    rm = EmulatedRM(tiny_trace(), config, CLUSTER, engine="reference", clock=clock, speed=60.0)
    url = rm.start()
    clock.advance(10.0)  # 600 trace seconds: the tiny trace's jobs (0 to 90 s) have finished
    journal = tmp_path / "journal.sqlite"
    refresh = f"from tempo.rm.emulator import request_refresh; request_refresh({url!r})"
    try:
        result = CliRunner().invoke(
            cli,
            [
                *_live(url, config, templates, CLUSTER),
                "--once",
                "--engine",
                "reference",
                "--journal",
                str(journal),
                "--reload-command",
                f"{sys.executable} -c {refresh!r}",
            ],
        )
    finally:
        rm.stop()
    assert result.exit_code == 0, result.output
    (row,) = json.loads(
        CliRunner().invoke(cli, ["history", "--journal", str(journal), "--json"]).output
    )["iterations"]
    assert row["decision"] in ("accepted", "rejected") and "cannot observe" not in row["reason"]
    assert row["observed_qs"][LABEL] > 0


def test_an_unreachable_rm_exits_3_saying_what_to_check(tmp_path, monkeypatch):
    """`tempo tune --once` with the RM down journals the unobserved window, leaves the file,
    and exits 3 (a remote failure) with one line naming what to check, for cron jobs."""
    import socket
    from dataclasses import replace

    import tempo.loop.wiring
    from tempo.rm import RetryPolicy

    options = tempo.loop.wiring.TransportOptions
    monkeypatch.setattr(
        tempo.loop.wiring,
        "TransportOptions",
        lambda **kw: replace(options(**kw), retry=RetryPolicy(max_attempts=1)),
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    config = tmp_path / "fair-scheduler.xml"
    config.write_bytes(XML)
    templates = tmp_path / "t.qs"
    templates.write_text("QUEUE root.engineer OPTIMIZE QS_AJR;\n")
    journal = tmp_path / "journal.sqlite"
    args = _live(dead, config, templates, "memory-mb=1024,vcores=1")
    result = CliRunner().invoke(cli, [*args, "--journal", str(journal), "--once"])
    assert result.exit_code == 3, result.output
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    assert dead in line and "check that the ResourceManager (--rm)" in line
    assert config.read_bytes() == XML and "Traceback" not in result.output
    (row,) = json.loads(
        CliRunner().invoke(cli, ["history", "--journal", str(journal), "--json"]).output
    )["iterations"]
    assert row["decision"] == "rejected" and "cannot observe the window" in row["reason"]


def test_the_demo_keeps_its_state_where_tempo_history_finds_it(captured, tmp_path, monkeypatch):
    """Without --rm: ./tempo-demo holds the copy and the journal, the emulated cluster's
    yarn-site turns preemption on (and the command says where that came from), and
    `tempo history` with no option reads the demo's journal and says which file it read."""
    from tempo.journal import SQLiteJournal

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TEMPO_JOURNAL", raising=False)
    result = CliRunner().invoke(cli, ["tune"])
    assert result.exit_code == 0, result.output
    s = captured["settings"]
    assert s.work_dir == Path("tempo-demo") and s.preemption is True
    assert "preemption: on (yarn.scheduler.fair.preemption in " in result.stderr
    assert "sample-yarn-site.xml" in result.stderr
    (tmp_path / "tempo-demo").mkdir()
    SQLiteJournal(tmp_path / "tempo-demo" / "tempo-journal.sqlite").close()
    history = CliRunner().invoke(cli, ["history"])
    assert history.exit_code == 0, history.output
    assert "journal: tempo-demo/tempo-journal.sqlite" in history.stderr
    assert "no iterations in tempo-demo/tempo-journal.sqlite" in history.stdout


def test_no_preemption_overrides_the_demos_site(captured):
    result = CliRunner().invoke(cli, ["tune", "--no-preemption"])
    assert result.exit_code == 0, result.output
    assert captured["settings"].preemption is False
    assert "preemption: off (--no-preemption)" in result.stderr


def test_tune_json_is_one_document(captured):
    result = CliRunner().invoke(cli, ["tune", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    jsonschema.validate(data, TUNE_SCHEMA)
    assert data["emulated"] is True
    assert data["iterations"] == [] and data["journal"] == "j.sqlite"


def test_min_gain_relative_and_absolute_reach_the_loop(captured):
    """--min-gain and --min-gain-abs make one MinGain; without them a live RM gets tempo
    optimize's defaults (1%, 1 s, 0.5 points) and the emulated demo any gain."""
    live = ["tune", "--rm", "http://rm:8088", "--history-server", "http://jhs:19888", "--once"]
    assert CliRunner().invoke(cli, live).exit_code == 0
    assert captured["settings"].min_gain == MinGain()
    args = [*live, "--min-gain", "0.02", "--min-gain-abs", "30s", "--min-gain-abs", "2%"]
    assert CliRunner().invoke(cli, args).exit_code == 0
    assert captured["settings"].min_gain == MinGain(relative=0.02, seconds=30.0, fraction=0.02)
    assert CliRunner().invoke(cli, ["tune"]).exit_code == 0
    assert captured["settings"].min_gain == MinGain(0.0, 0.0, 0.0)
    bad = CliRunner().invoke(cli, [*live, "--min-gain-abs", "soon"])
    assert bad.exit_code == 2 and "--min-gain-abs" in bad.output


def test_site_knobs_reach_the_predictions(captured, tmp_path):
    """Every scheduler knob of --site (not only preemption) goes to the loop's predictions;
    --no-preemption overrides the file's preemption alone."""
    site = tmp_path / "yarn-site.xml"
    site.write_text(
        "<configuration>"
        "<property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>"
        "<property><name>yarn.scheduler.fair.preemption.cluster-utilization-threshold</name>"
        "<value>0.6</value></property>"
        "<property><name>yarn.scheduler.fair.waitTimeBeforeKill</name><value>5000</value>"
        "</property></configuration>"
    )
    live = ["tune", "--rm", "http://rm:8088", "--history-server", "http://jhs:19888", "--once"]
    assert CliRunner().invoke(cli, [*live, "--site", str(site)]).exit_code == 0
    s = captured["settings"]
    assert s.preemption is True and s.scheduler.preemption is True
    assert s.scheduler.utilization_threshold == 0.6 and s.scheduler.wait_time_before_kill_s == 5.0
    assert CliRunner().invoke(cli, [*live, "--site", str(site), "--no-preemption"]).exit_code == 0
    s = captured["settings"]
    assert s.scheduler.preemption is False and s.scheduler.utilization_threshold == 0.6


def test_tune_gives_the_site_knobs_to_its_stepper_and_emulator():
    """`tempo.loop.settings.scheduler_settings`: the site's knobs, preemption overridden only when set."""
    import dataclasses

    from tempo.loop.settings import TuneSettings, scheduler_settings
    from whatif.predictor import SchedulerSettings

    site = SchedulerSettings(preemption=True, utilization_threshold=0.6)
    assert scheduler_settings(TuneSettings(scheduler=site), emulated=False) == site
    off = scheduler_settings(TuneSettings(scheduler=site, preemption=False), emulated=False)
    assert off == dataclasses.replace(site, preemption=False)
    assert scheduler_settings(TuneSettings(), emulated=True).preemption is True
    assert scheduler_settings(TuneSettings(), emulated=False).preemption is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            XML.replace(b"<weight>1.0</weight></queue>\n  <queue name=\"engineer\">",
                        b"<weight>abc</weight></queue>\n  <queue name=\"engineer\">"),
            "line 3: queue root.prod: <weight> expected a number, got 'abc'",
        ),
        (b"<allocations>\n", ":2: not well-formed XML"),
    ],
)  # fmt: skip
def test_an_emulated_run_on_a_config_hadoop_refuses_cites_that_file(tmp_path, text, expected):
    """`tempo tune --config BAD.xml` (emulated): exit 2, the errors citing BAD.xml's lines,
    before the run copies it into the work directory (whose copy the error named, and the
    next run resumed from)."""
    config = tmp_path / "bad.xml"
    config.write_bytes(text)
    work = tmp_path / "work"
    result = CliRunner().invoke(
        cli, ["tune", "--config", str(config), "--max-iterations", "1", "--work-dir", str(work)]
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"Error: {config}") and expected in result.stderr
    assert not work.exists()


def test_a_resumed_demo_observes_the_next_window_not_the_first_again(tmp_path):
    """The work directory records where in the trace a run stopped: a second run goes on
    with the window after the first run's last (it replayed the trace from its start, and
    observed the same window again)."""
    import json as json_module

    def window(extra=()):
        args = ["tune", "--engine", "numba", "--dry-run", "--max-iterations", "1"]
        result = CliRunner().invoke(cli, [*args, "--work-dir", str(tmp_path), "--json", *extra])
        assert result.exit_code == 0, result.output
        [iteration] = json_module.loads(result.stdout)["iterations"]
        return iteration["begin_s"], iteration["end_s"]

    first, second = window(), window()
    assert second[0] == pytest.approx(first[1]) and second[1] > first[1]
