"""`tempo optimize --report` and `tempo history --report`: the same kind of report as
`tempo whatif` (report.json and a self-contained report.html) with the QS before and
after per queue, the settings changed as an allocation-file diff, and the trajectory;
each page rendered in headless Chromium with its figure drawn."""

from __future__ import annotations

import hashlib
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from samples import REPO, sample_args

from tempo.cli import cli
from tempo.journal import SQLiteJournal
from tempo.reports import SCHEMA, journal_report, write_tuning_report

CONTENDED = [
    *sample_args("contended", config=True),
    "--cluster",
    "nodes=5,memory-mb=8192,vcores=8",
    "--site",
    str(REPO / "configs" / "sample-yarn-site.xml"),
    "--iterations",
    "2",
    "--batch-size",
    "4",
    "--executor",
    "serial",
]


class _Page(HTMLParser):
    """The ids and images of a page, and any text that looks like unrendered Jinja2."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.images: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "img":
            self.images.append(attributes.get("src", ""))

    def handle_data(self, data):
        self.text.append(data)


def _page(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text())
    assert "{{" not in "".join(page.text) and "{%" not in "".join(page.text)
    assert "<script" not in path.read_text()
    return page


@pytest.fixture(scope="module")
def optimize_report_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("optimize")
    result = CliRunner().invoke(
        cli,
        ["optimize", *CONTENDED, "-o", str(root / "tuned.xml"), "--report", str(root / "report")],
    )
    assert result.exit_code == 0, result.output
    assert f"Report: {root / 'report' / 'report.json'}" in result.output
    return root / "report"


def test_optimize_report_has_qs_before_after_the_diff_and_the_trajectory(optimize_report_dir):
    """report.json: one QS row per template QS with both values, the step's settings and
    a unified diff of the allocation file, and a trajectory point per batch."""
    document = json.loads((optimize_report_dir / "report.json").read_text())
    assert document["schema"] == SCHEMA and document["kind"] == "optimize"
    assert {(q["queue"], q["kind"]) for q in document["qs"]} == {
        ("root.besteffort", "objective"),
        ("root.deadline", "constraint"),
    }
    assert all(q["before"] is not None and q["after"] is not None for q in document["qs"])
    (step,) = document["steps"]
    assert step["decision"] == "proposed" and step["changes"]
    assert step["diff"].startswith("--- ") and "\n+" in step["diff"] and "\n-" in step["diff"]
    for series in document["trajectory"]["series"]:
        assert len(series["points"]) == 1 + 3  # the start, two batches and the final one
    page = _page(optimize_report_dir / "report.html")
    assert {"qs", "trajectory", "changes-1", "diff-1"} <= page.ids
    assert len(page.images) == 1 and page.images[0].startswith("data:image/png;base64,")


def test_optimize_report_is_not_overwritten_without_force(optimize_report_dir, tmp_path):
    """An existing report in --report is an error (exit 2) naming it, as -o is."""
    result = CliRunner().invoke(
        cli,
        [
            "optimize",
            *CONTENDED,
            "-o",
            str(tmp_path / "t.xml"),
            "--report",
            str(optimize_report_dir),
        ],
    )
    assert result.exit_code == 2
    assert "report.json: already exists (--report); add --force" in result.output
    assert not (tmp_path / "t.xml").exists()


def _file(path: Path, weight: str) -> str:
    path.write_text(
        '<?xml version="1.0"?>\n<allocations>\n  <queue name="a">\n'
        f"    <weight>{weight}</weight>\n  </queue>\n"
        '  <queue name="b">\n    <weight>1</weight>\n  </queue>\n</allocations>\n'
    )
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def journal(tmp_path) -> Path:
    """A journal of three windows: a confirmed step, a rolled-back one, and a step whose
    files have rotated out of the backups."""
    config = tmp_path / "fair-scheduler.xml"
    first = _file(tmp_path / "fair-scheduler.xml.2", "1")
    second = _file(tmp_path / "fair-scheduler.xml.1", "2")
    _file(config, "2")
    path = tmp_path / "journal.sqlite"
    qs = {"root.a:QS_AJR": 100.0, "root.b:QS_DL(deadline=+90min)": 0.0}
    with SQLiteJournal(path) as j:
        one = j.begin_iteration(config_path=str(config), config_sha256=first, observed_qs=qs)
        apply = j.record_intent(
            one, path=str(config), sha256=second, previous_sha256=first, backup_path=None
        )
        j.complete_apply(apply, outcome="confirmed")
        j.finish_iteration(
            one, decision="accepted", reason="predicted better", config_sha256=second,
            candidate_sha256=second, predicted_qs={**qs, "root.a:QS_AJR": 60.0},
        )  # fmt: skip
        two = j.begin_iteration(
            config_path=str(config), config_sha256=second, observed_qs={**qs, "root.a:QS_AJR": 70.0}
        )
        j.finish_iteration(two, decision="rolled_back", reason="the step did not hold")
        three = j.begin_iteration(config_path=str(config), config_sha256=second, observed_qs=qs)
        gone = "f" * 64
        apply = j.record_intent(
            three, path=str(config), sha256=gone, previous_sha256=second, backup_path=None
        )
        j.complete_apply(apply, outcome="reverted")
        j.finish_iteration(three, decision="rejected", reason="no gain")
    return path


def test_journal_report_has_every_window_and_each_applied_steps_diff(journal):
    """QS per window (observed and predicted), the first and last window per QS, and per
    applied step its settings and unified diff, found among the numbered backups by hash;
    a step whose file is gone says so instead of a diff."""
    document = journal_report(journal)
    assert document["kind"] == "tune"
    assert [w["decision"] for w in document["windows"]] == ["accepted", "rolled_back", "rejected"]
    ajr = next(q for q in document["qs"] if q["metric"] == "QS_AJR")
    assert (ajr["queue"], ajr["unit"], ajr["before"], ajr["after"]) == ("root.a", "s", 100.0, 100.0)
    first, last = document["steps"]
    assert first["changes"] == [{"queue": "root.a", "element": "weight", "old": "1", "new": "2"}]
    assert "-    <weight>1</weight>" in first["diff"] and "+    <weight>2</weight>" in first["diff"]
    assert last["diff"] is None and "not on disk any more" in last["diff_note"]
    files = write_tuning_report(document, journal.parent / "report")
    page = _page(files.html)
    assert {"qs", "windows", "trajectory", "diff-1"} <= page.ids and "diff-2" not in page.ids


def test_a_capacity_scheduler_steps_changes_are_its_properties(tmp_path):
    """A tuned capacity-scheduler.xml's step lists the properties it changed (it was read
    as an allocation file: no changes, and a "Bad fair scheduler config file" note)."""

    def capacity(path: Path, share: str) -> str:
        other = str(100 - int(share))
        path.write_text(
            "<configuration>\n"
            + "".join(
                f"  <property><name>yarn.scheduler.capacity.{name}</name><value>{value}</value>"
                "</property>\n"
                for name, value in (
                    ("root.queues", "a,b"),
                    ("root.a.capacity", share),
                    ("root.b.capacity", other),
                )
            )
            + "</configuration>\n"
        )
        return hashlib.sha256(path.read_bytes()).hexdigest()

    config = tmp_path / "capacity-scheduler.xml"
    first = capacity(tmp_path / "capacity-scheduler.xml.1", "50")
    second = capacity(config, "60")
    path = tmp_path / "journal.sqlite"
    with SQLiteJournal(path) as j:
        one = j.begin_iteration(config_path=str(config), config_sha256=first, observed_qs={})
        apply = j.record_intent(
            one, path=str(config), sha256=second, previous_sha256=first, backup_path=None
        )
        j.complete_apply(apply, outcome="confirmed")
        j.finish_iteration(
            one, decision="accepted", reason="predicted better", config_sha256=second
        )
    [step] = journal_report(path)["steps"]
    assert step["diff_note"] == ""
    assert step["changes"] == [
        {"queue": "root.a", "element": "capacity", "old": "50", "new": "60"},
        {"queue": "root.b", "element": "capacity", "old": "50", "new": "40"},
    ]


def test_journal_report_shows_the_cluster_each_window_predicted_on(journal, tmp_path):
    """Windows of a run that read the RM's nodes carry the cluster's SPEC in report.json and
    its nodes and totals in report.html's window table (a column only when any has one)."""
    without = write_tuning_report(journal_report(journal), tmp_path / "a").html.read_text()
    assert "<th>cluster</th>" not in without
    with SQLiteJournal(journal) as j:
        four = j.begin_iteration(
            config_path="f.xml", config_sha256="0" * 64, observed_qs={"root.a:QS_AJR": 50.0},
            cluster="nodes=3,memory-mb=4096,vcores=4",
        )  # fmt: skip
        j.finish_iteration(four, decision="rejected", reason="no gain")
    document = journal_report(journal)
    assert [w["cluster"] for w in document["windows"]] == [
        None,
        None,
        None,
        "nodes=3,memory-mb=4096,vcores=4",
    ]
    html = write_tuning_report(document, tmp_path / "b").html.read_text()
    assert "<th>cluster</th>" in html and "3 nodes, 12,288 MB, 12 vcores" in html


def test_history_report_option_writes_the_report(journal, tmp_path):
    """`tempo history --report DIR` writes the journal's report beside its usual table."""
    out = tmp_path / "history-report"
    result = CliRunner().invoke(cli, ["history", "--journal", str(journal), "--report", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "report.json").read_text())["steps"][0]["changes"]
    again = CliRunner().invoke(cli, ["history", "--journal", str(journal), "--report", str(out)])
    assert again.exit_code == 2 and "add --force" in again.output


def test_tune_report_option_writes_the_runs_report(journal, tmp_path, monkeypatch):
    """`tempo tune --report DIR` writes the run's journal as `history --report` does, and
    refuses an existing report before tuning anything."""
    from tempo.loop.report import TuneRun

    runs = []

    def fake(settings, *, on_start=None, callback=None):
        runs.append(settings)
        return TuneRun(Path("f.xml"), journal, True, "fresh", ())

    monkeypatch.setattr("tempo.loop.wiring.tune", fake)
    out = tmp_path / "tune-report"
    result = CliRunner().invoke(cli, ["tune", "--report", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "report.json").read_text()) == journal_report(journal)
    again = CliRunner().invoke(cli, ["tune", "--report", str(out)])
    assert again.exit_code == 2 and "add --force" in again.output and len(runs) == 1


@pytest.mark.slow
def test_optimize_report_renders_in_headless_chromium(optimize_report_dir, render_in_chromium):
    """Headless Chromium draws the optimize report with its trajectory figure visible."""
    render_in_chromium(optimize_report_dir / "report.html", height=1400)


@pytest.mark.slow
def test_tune_report_renders_in_headless_chromium(journal, tmp_path, render_in_chromium):
    """Headless Chromium draws the tune report with its trajectory figure visible."""
    files = write_tuning_report(journal_report(journal), tmp_path / "report")
    render_in_chromium(files.html, height=1400)


def test_a_tune_report_marks_constraints_with_their_thresholds_from_the_templates(
    journal, tmp_path
):
    """The journal keeps QS values only; given the run's templates, the report says which
    QS is a constraint and its threshold (as optimize reports do), and `history --report
    --templates` passes them."""
    from tempo.cli.options import template_components

    templates = tmp_path / "t.qs"
    templates.write_text(
        "QUEUE root.a\nOPTIMIZE QS_AJR;\nQUEUE root.b\nCONSTRAINT QS_DL(deadline=+90min) <= 0%;\n"
    )
    document = journal_report(journal, template_components(templates))
    kinds = {(q["queue"], q["kind"], q["threshold"]) for q in document["qs"]}
    assert kinds == {("root.a", "objective", None), ("root.b", "constraint", 0.0)}
    assert {q["kind"] for q in journal_report(journal)["qs"]} == {""}
    out = tmp_path / "r"
    args = [
        "history",
        "--journal",
        str(journal),
        "--report",
        str(out),
        "--templates",
        str(templates),
    ]
    assert CliRunner().invoke(cli, args).exit_code == 0
    assert json.loads((out / "report.json").read_text())["qs"] == document["qs"]
