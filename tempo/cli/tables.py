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

from whatif.table_blocks import column_blocks

#: Width used when stdout is not a terminal and COLUMNS is not set.
DEFAULT_WIDTH = 100
#: The fewest characters a line a whole table's free-text column gets (`_whole`).
MIN_TEXT_WIDTH = 32


def terminal_width() -> int:
    """Columns of the terminal (or ``COLUMNS``), `DEFAULT_WIDTH` when there is none."""
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def _table(
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Sequence[str],
    no_wrap: Sequence[str] = (),
) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for name in columns:
        table.add_column(
            name,
            justify="right" if name in right else "left",
            overflow="fold",
            no_wrap=name in no_wrap,
        )
    for row in rows:
        table.add_row(*row)
    return table


def _console(width: int, out: io.StringIO | None = None) -> Console:
    return Console(
        file=out or io.StringIO(),
        width=width,
        color_system=None,
        force_terminal=False,
        legacy_windows=False,
    )


def _render(
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Sequence[str],
    width: int,
    no_wrap: Sequence[str] = (),
) -> list[str]:
    out = io.StringIO()
    _console(width, out).print(_table(columns, rows, right, no_wrap))
    return [line.rstrip() for line in out.getvalue().splitlines() if line.strip()]


def render_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    title: str | None = None,
    right: Sequence[str] = (),
    width: int | None = None,
    keys: int = 1,
    split: bool = True,
) -> str:
    """`rows` under `columns` as text at most `width` columns wide.

    A table wider than that is split into blocks of columns, each repeating the first
    `keys` columns (the row names), stacked one under the other; a single column still
    too wide folds its cells. With ``split=False`` the table stays whole (`_whole`).
    `right` columns align right.
    """
    width = width or terminal_width()
    cells = [["" if cell is None else str(cell) for cell in row] for row in rows]
    if not split:
        return "\n".join(([title] if title else []) + _whole(columns, cells, right, width))

    def natural(cols: list[int]) -> int:
        return max(
            len(line)
            for line in _render(
                [columns[i] for i in cols], [[r[i] for i in cols] for r in cells], right, 10_000
            )
        )

    lines = [title] if title else []
    blocks = column_blocks(len(columns), keys, lambda cols: natural(cols) <= width)
    for n, chosen in enumerate(blocks):
        if n:
            lines.append("")
        lines += _render(
            [columns[i] for i in chosen], [[r[i] for i in chosen] for r in cells], right, width
        )
    return "\n".join(lines)


def _whole(
    columns: Sequence[str], cells: list[list[str]], right: Sequence[str], width: int
) -> list[str]:
    """One table whose last column (free text, such as a reason) wraps between words and
    whose other columns never wrap; wider than `width` if it must be, rather than cut a
    word (a piped ``tempo history`` printed ``minSharePreemptionTim`` / ``eout``) or give
    the text fewer than `MIN_TEXT_WIDTH` characters a line."""
    fixed = columns[:-1]

    def least(text: str) -> str:
        longest = max((len(w) for w in text.split()), default=0)
        return "x" * min(len(text), max(longest, MIN_TEXT_WIDTH))

    words = [[*row[:-1], least(row[-1])] for row in cells]
    narrowest = _console(10_000).measure(_table(columns, words, right, fixed)).maximum
    return _render(columns, cells, right, max(width, narrowest), fixed)


def echo_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    title: str | None = None,
    right: Sequence[str] = (),
) -> None:
    """Print `render_table` on stdout."""
    click.echo(render_table(columns, rows, title=title, right=right))
