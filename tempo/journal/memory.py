"""An in-memory `Journal`: the same contract as the SQLite journal, minus durability.

For tests and for dry runs that must leave no file behind; its records live as
long as the object.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from tempo.errors import JournalError
from tempo.journal.base import (
    Apply,
    Iteration,
    Journal,
    absolute,
    check_decision,
    check_outcome,
    check_sha256,
    qs_json,
)


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

    def begin_iteration(
        self,
        *,
        config_path: str,
        config_sha256: str,
        observed_qs: Mapping[str, Any] | None = None,
        started_s: float | None = None,
    ) -> int:
        check_sha256(config_sha256, field="config_sha256")
        record = Iteration(
            id=len(self._iterations) + 1,
            started_s=self.clock() if started_s is None else float(started_s),
            config_path=absolute(config_path),
            config_sha256=config_sha256,
            observed_qs=qs_json(observed_qs, field="observed_qs"),
        )
        self._iterations.append(record)
        return record.id

    def record_intent(
        self,
        iteration_id: int,
        *,
        path: str,
        sha256: str,
        previous_sha256: str | None,
        backup_path: str | None,
    ) -> int:
        iteration = self._iteration(iteration_id)
        if iteration.decision is not None:
            raise JournalError(f"iteration {iteration_id} is already finished")
        dangling = [a.id for a in self._applies if a.dangling]
        if dangling:
            raise JournalError(f"apply {dangling[-1]} is still dangling; complete it first")
        record = Apply(
            id=len(self._applies) + 1,
            iteration_id=iteration_id,
            path=absolute(path),
            sha256=sha256,
            previous_sha256=previous_sha256,
            backup_path=None if backup_path is None else absolute(backup_path),
            intent_s=self.clock(),
        )
        self._applies.append(record)
        self._iterations[iteration_id - 1] = replace(iteration, backup_path=record.backup_path)
        return record.id

    def complete_apply(self, apply_id: int, *, outcome: str, detail: str = "") -> None:
        check_outcome(outcome)
        if not 1 <= apply_id <= len(self._applies):
            raise JournalError(f"no apply with id {apply_id}")
        record = self._applies[apply_id - 1]
        if not record.dangling:
            raise JournalError(f"apply {apply_id} is already completed ({record.outcome})")
        self._applies[apply_id - 1] = replace(
            record, outcome=outcome, detail=detail, completed_s=self.clock()
        )

    def finish_iteration(
        self,
        iteration_id: int,
        *,
        decision: str,
        reason: str,
        config_sha256: str | None = None,
        candidate_sha256: str | None = None,
        predicted_qs: Mapping[str, Any] | None = None,
        finished_s: float | None = None,
    ) -> None:
        check_decision(decision)
        iteration = self._iteration(iteration_id)
        if iteration.decision is not None:
            raise JournalError(f"iteration {iteration_id} is already finished")
        self._iterations[iteration_id - 1] = replace(
            iteration,
            decision=decision,
            reason=str(reason),
            finished_s=self.clock() if finished_s is None else float(finished_s),
            config_sha256=iteration.config_sha256 if config_sha256 is None else config_sha256,
            candidate_sha256=candidate_sha256,
            predicted_qs=qs_json(predicted_qs, field="predicted_qs"),
        )

    def iterations(self) -> list[Iteration]:
        return list(self._iterations)

    def applies(self) -> list[Apply]:
        return list(self._applies)

    def _iteration(self, iteration_id: int) -> Iteration:
        if not 1 <= iteration_id <= len(self._iterations):
            raise JournalError(f"no iteration with id {iteration_id}")
        return self._iterations[iteration_id - 1]
