"""Roll back: find the configuration a step replaced, to restore it when the step regressed."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from tempo.journal import Journal, file_sha256
from tempo.loop.decide import Regression

logger = logging.getLogger(__name__)


def previous_bytes(journal: Journal, iteration_id: int) -> bytes | None:
    """The configuration an accepted iteration replaced: its backup, checked by hash.

    None (with a warning) when no backup beside the file holds it any more.
    """
    applies = [a for a in journal.applies() if a.iteration_id == iteration_id]
    if not applies or applies[-1].previous_sha256 is None:
        return None
    wanted = applies[-1].previous_sha256
    target = Path(applies[-1].path)
    candidates = [applies[-1].backup_path] if applies[-1].backup_path else []
    candidates += sorted(str(p) for p in target.parent.glob(f"{target.name}.*"))
    for candidate in candidates:
        if file_sha256(candidate) == wanted:
            return Path(candidate).read_bytes()
    logger.warning("no backup of %s with SHA-256 %s: cannot roll back", target, wanted[:12])
    return None


def regressed(worse: Sequence[Regression], adjusted: bool) -> str:
    """What got worse after a step, the start of a rollback's reason."""
    what = "; ".join(f"{r} got worse" for r in worse)
    if adjusted:
        what += " than the previous configuration predicted on this window's load"
    return what
