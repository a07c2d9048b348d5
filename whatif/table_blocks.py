"""Splitting a table too wide for its width into blocks of columns stacked one under the
other, each repeating the columns that name a row: one rule for the plain-text what-if
report (`whatif.report.text`) and for a command line's terminal tables."""

from __future__ import annotations

from collections.abc import Callable


def column_blocks(count: int, keys: int, fits: Callable[[list[int]], bool]) -> list[list[int]]:
    """Column indices per block of a table split to fit a width: the first `keys` (what
    names a row) in every block, then as many further columns as `fits` accepts (at least
    one a block)."""
    head = list(range(min(keys, count)))
    blocks: list[list[int]] = []
    for i in range(len(head), count):
        if blocks and fits(head + blocks[-1] + [i]):
            blocks[-1].append(i)
        else:
            blocks.append([i])
    return [head + block for block in blocks] or [head]
