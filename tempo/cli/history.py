"""`tempo history`: what the tuning loop did, from its journal."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click
import pandas as pd

from tempo.journal import JOURNAL_ENV, default_journal_path, read_history


def _when(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


@click.command()
@click.option(
    "--journal",
    "journal_path",
    type=click.Path(dir_okay=False),
    default=None,
    help=f"Journal file [default: ${JOURNAL_ENV}, else ./tempo-journal.sqlite].",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of iterations.")
def history(journal_path: str | None, as_json: bool) -> None:
    """Show every iteration of the tuning loop: when, configuration, decision and reason."""
    path = journal_path or default_journal_path()
    iterations = read_history(path)
    if as_json:
        click.echo(json.dumps([i.to_dict() for i in iterations], indent=1, allow_nan=False))
        return
    if not iterations:
        click.echo(f"no iterations in {path}")
        return
    table = pd.DataFrame(
        {
            "#": [i.id for i in iterations],
            "started (UTC)": [_when(i.started_s) for i in iterations],
            "finished": [_when(i.finished_s) for i in iterations],
            "decision": [i.decision or "(unfinished)" for i in iterations],
            "config": [i.config_sha256[:12] for i in iterations],
            "reason": [i.reason for i in iterations],
        }
    )
    click.echo(table.to_string(index=False, justify="left"))
