"""`tempo history`: what the tuning loop did, from its journal."""

from __future__ import annotations

import os
from pathlib import Path

import click

from tempo.cli import options as opt
from tempo.cli.tables import render_table
from tempo.journal import JOURNAL_ENV, default_journal_path, read_history
from whatif.cluster import spec_totals
from whatif.durations import format_instant

#: The `tempo tune` demo's journal, read when there is no other (tempo.cli.tune.DEMO_WORK_DIR).
DEMO_JOURNAL = Path("tempo-demo") / "tempo-journal.sqlite"


def default_history_journal() -> Path:
    """``$TEMPO_JOURNAL``, else ./tempo-journal.sqlite, else the demo's ./tempo-demo journal."""
    path = default_journal_path()
    if os.environ.get(JOURNAL_ENV) or path.exists() or not DEMO_JOURNAL.exists():
        return path
    return DEMO_JOURNAL


@click.command()
@opt.path_option(
    "--journal",
    "journal_path",
    dir_okay=False,
    help=f"Journal file [default: ${JOURNAL_ENV}, else ./tempo-journal.sqlite, else the "
    "tempo tune demo's ./tempo-demo/tempo-journal.sqlite].",
)
@opt.json_option
@opt.report_option("QS per window, each step's decision, each applied step's allocation-file diff")
@opt.path_option(
    "--templates",
    "templates_path",
    exists=True,
    help="With --report: the run's QS templates, so the report marks each QS objective or "
    "constraint with its threshold (the journal keeps only the values).",
)
@opt.force_option("report.json and report.html already in the --report directory")
def history(
    journal_path: str | None,
    as_json: bool,
    report_dir: str | None,
    templates_path: str | None,
    force: bool,
) -> None:
    """Show every iteration of the tuning loop: when, configuration, decision and reason."""
    path = Path(journal_path) if journal_path else default_history_journal()
    opt.refuse_report_overwrite(report_dir, force=force)
    iterations = read_history(path)
    if report_dir:
        from tempo.reports import journal_report, write_tuning_report  # matplotlib: 0.8 s

        components = opt.template_components(templates_path)
        with opt.writing_output(report_dir, option="--report", directory=True):
            files = write_tuning_report(journal_report(path, components), report_dir)
        click.echo(f"Report: {files.json} and {files.html}", err=True)
    if as_json:
        opt.emit_json(
            {
                "schema": "tempo.history/1",
                "journal": str(path),
                "iterations": [i.to_dict() for i in iterations],
            }
        )
        return
    if not journal_path:
        click.echo(f"journal: {path}", err=True)
    if not iterations:
        click.echo(f"no iterations in {path}")
        return
    rows = [
        [
            i.id,
            format_instant(i.started_s),
            format_instant(i.finished_s),
            i.decision or "(unfinished)",
            i.config_sha256[:12],
            i.reason,
        ]
        for i in iterations
    ]
    columns = ["#", "started (UTC)", "finished", "decision", "config", "reason"]
    if any(i.cluster for i in iterations):  # journals of tune runs since clusters are recorded
        columns.insert(5, "cluster (--json: SPEC)")
        for row, i in zip(rows, iterations, strict=True):
            row.insert(5, spec_totals(i.cluster))
    click.echo(render_table(columns, rows, right=["#"], split=False))
