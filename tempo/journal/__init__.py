"""The iteration journal: a durable record of what the tuning loop did and what is in force.

`Journal` (in `tempo.journal.base`) is the extension point; `SQLiteJournal` is the
durable implementation `tempo tune` uses, `MemoryJournal` the in-process one for
tests and dry runs. `read_history` is what `tempo history` shows.
"""

from __future__ import annotations

import os

from tempo.journal.base import (
    DECISIONS,
    IN_FORCE_STATES,
    OUTCOMES,
    Apply,
    InForce,
    Iteration,
    Journal,
    file_sha256,
)
from tempo.journal.memory import MemoryJournal
from tempo.journal.sqlite import DEFAULT_JOURNAL, JOURNAL_ENV, SQLiteJournal, default_journal_path

__all__ = [
    "DECISIONS",
    "DEFAULT_JOURNAL",
    "IN_FORCE_STATES",
    "JOURNAL_ENV",
    "OUTCOMES",
    "Apply",
    "InForce",
    "Iteration",
    "Journal",
    "MemoryJournal",
    "SQLiteJournal",
    "default_journal_path",
    "file_sha256",
    "read_history",
]


def read_history(path: str | os.PathLike[str] | None = None) -> list[Iteration]:
    """Every iteration in the journal at `path` (default: `default_journal_path`), oldest first.

    Opens the journal read-only; raises `tempo.JournalError` when there is none.
    """
    with SQLiteJournal(default_journal_path() if path is None else path, readonly=True) as journal:
        return journal.iterations()
