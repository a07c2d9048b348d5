"""An in-memory `Journal`: the same contract as the SQLite journal, minus durability.

For tests and for dry runs that must leave no file behind; its records live as
long as the object.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, replace

from tempo.errors import JournalError
from tempo.journal.base import Apply, Finish, Intent, Iteration, Journal, Start


class MemoryJournal(Journal):
    """A `Journal` held in lists (not durable).

    Parameters
    ----------
    clock : callable, optional
        Epoch seconds for default timestamps (``time.time``).
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._iterations: list[Iteration] = []
        self._applies: list[Apply] = []

    def _begin(self, start: Start) -> int:
        record = Iteration(id=len(self._iterations) + 1, **asdict(start))
        self._iterations.append(record)
        return record.id

    def _intend(self, intent: Intent) -> int:
        iteration = self._iteration(intent.iteration_id)
        if iteration.decision is not None:
            raise JournalError(f"iteration {iteration.id} is already finished")
        dangling = [a.id for a in self._applies if a.dangling]
        if dangling:
            raise JournalError(f"apply {dangling[-1]} is still dangling; complete it first")
        record = Apply(id=len(self._applies) + 1, **asdict(intent))
        self._applies.append(record)
        self._iterations[iteration.id - 1] = replace(iteration, backup_path=record.backup_path)
        return record.id

    def _complete(self, apply_id: int, outcome: str, detail: str, completed_s: float) -> None:
        if not 1 <= apply_id <= len(self._applies):
            raise JournalError(f"no apply with id {apply_id}")
        record = self._applies[apply_id - 1]
        if not record.dangling:
            raise JournalError(f"apply {apply_id} is already completed ({record.outcome})")
        self._applies[apply_id - 1] = replace(
            record, outcome=outcome, detail=detail, completed_s=completed_s
        )

    def _finish(self, iteration_id: int, finish: Finish) -> None:
        iteration = self._iteration(iteration_id)
        if iteration.decision is not None:
            raise JournalError(f"iteration {iteration_id} is already finished")
        changes = asdict(finish)
        if finish.config_sha256 is None:
            del changes["config_sha256"]
        self._iterations[iteration_id - 1] = replace(iteration, **changes)

    def iterations(self) -> list[Iteration]:
        return list(self._iterations)

    def applies(self) -> list[Apply]:
        return list(self._applies)

    def _iteration(self, iteration_id: int) -> Iteration:
        if not 1 <= iteration_id <= len(self._iterations):
            raise JournalError(f"no iteration with id {iteration_id}")
        return self._iterations[iteration_id - 1]
