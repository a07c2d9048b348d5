"""Apply: what the loop asks of whatever puts a configuration in force."""

from __future__ import annotations

from typing import Protocol

from tempo.journal import Journal
from whatif.allocation import AllocationDocument


class ApplyResult(Protocol):
    """What an applier reports (`ApplyOutcome` has these fields)."""

    applied: bool
    confirmed: bool
    reverted: bool
    reason: str
    backup_path: str | None
    sha256: str | None


class Applier(Protocol):
    """Writes a configuration, reloads the RM and confirms it, journalling the two phases.

    Must record the intent in `journal` under `iteration_id` before writing, and
    leave the previous file in force (``reverted``) when confirmation fails.
    """

    def apply(
        self, document: AllocationDocument, *, journal: Journal, iteration_id: int
    ) -> ApplyResult: ...
