"""Progress bars of long commands: rich, on stderr, only for a person watching.

A bar is drawn only when stderr is a terminal and ``-q/--quiet`` was not given, so
logs and pipes never get carriage-return noise; otherwise every method is a no-op.
It clears itself when closed (nothing is left on the screen). It is redrawn only
when it moves, so a command that prints results (on stdout, to the same terminal)
calls `ProgressBar.clear` first and the bar reappears below at its next update;
stdout is never redirected, so results stay on stdout.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any


class ProgressBar:
    """One task's bar: `update` by steps, `total` may grow, `set_postfix_str` says what runs.

    `disable` is True when nothing is drawn (stderr not a terminal, or --quiet).
    """

    def __init__(
        self, total: int | None, description: str, *, unit: str = "it", disable: bool = False
    ) -> None:
        self.description, self.unit, self.disable = description, unit, disable
        self.n = 0
        self._total = total
        self._progress: Any = None
        if disable:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TextColumn(unit),
            TimeElapsedColumn(),
            TextColumn("{task.fields[note]}"),
            console=Console(file=sys.stderr, force_terminal=True),
            transient=True,
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._task = self._progress.add_task(description, total=total, note="")
        self._progress.start()

    @property
    def total(self) -> int | None:
        return self._total

    @total.setter
    def total(self, value: int | None) -> None:
        self._total = value
        if self._progress is not None:
            self._progress.update(self._task, total=value)

    def update(self, steps: int = 1) -> None:
        """Advance by `steps`."""
        self.n += steps
        if self._progress is not None:
            self._progress.update(self._task, completed=self.n, refresh=True)

    def set_postfix_str(self, note: str, refresh: bool = True) -> None:
        """Show `note` (what is being done) after the counts."""
        if self._progress is not None:
            self._progress.update(self._task, note=note, refresh=refresh)

    def clear(self) -> None:
        """Erase the bar's line, so that text printed next starts on a clean line."""
        if self._progress is not None:
            stream = self._progress.console.file
            stream.write("\r\x1b[2K")
            stream.flush()

    def close(self) -> None:
        """Remove the bar from the screen."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def progress_bar(
    total: int | None, description: str, *, unit: str = "it", hidden: bool = False
) -> ProgressBar:
    """A bar on stderr, off (a no-op) when `hidden` (--no-progress), when stderr is not a
    terminal or with --quiet."""
    from tempo.cli import is_quiet

    return ProgressBar(
        total, description, unit=unit, disable=hidden or is_quiet() or not stderr_is_terminal()
    )


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (a person may be watching)."""
    stream = sys.stderr
    return bool(hasattr(stream, "isatty") and stream.isatty())
