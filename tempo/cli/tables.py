"""Terminal tables that fit the terminal: rich tables whose wide cells fold instead of running on.

The width is the terminal's (``COLUMNS`` or the tty), else `DEFAULT_WIDTH` when the
output goes to a file or a pipe. Tables are plain text (no colour), so logs and
pipes get no escape codes.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Sequence

import click
from rich import box
from rich.console import Console
from rich.table import Table

#: Width used when stdout is not a terminal and COLUMNS is not set.
DEFAULT_WIDTH = 100


def terminal_width() -> int:
    """Columns of the terminal (or ``COLUMNS``), `DEFAULT_WIDTH` when there is none."""
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def render_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    title: str | None = None,
    right: Sequence[str] = (),
    width: int | None = None,
) -> str:
    """`rows` under `columns` as text at most `width` columns wide; `right` columns align right."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for name in columns:
        table.add_column(name, justify="right" if name in right else "left", overflow="fold")
    for row in rows:
        table.add_row(*("" if cell is None else str(cell) for cell in row))
    out = io.StringIO()
    console = Console(
        file=out,
        width=width or terminal_width(),
        color_system=None,
        force_terminal=False,
        legacy_windows=False,
        safe_box=True,
    )
    console.print(table)
    lines = [line.rstrip() for line in out.getvalue().rstrip("\n").splitlines()]
    return "\n".join(([title] if title else []) + [line for line in lines if line])


def echo_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    title: str | None = None,
    right: Sequence[str] = (),
) -> None:
    """Print `render_table` on stdout."""
    click.echo(render_table(columns, rows, title=title, right=right))
