"""Roll back: put the previous configuration back.

Three cases share it: a step that regressed (the `Tuner` re-applies the file the
step replaced, found by hash with `previous_bytes`), an apply whose reload or
confirmation failed (`restore`), and an apply a crash left dangling (`recover`,
which a restarted ``tempo tune`` calls first).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempo.errors import ApplyError
from tempo.journal import InForce, Journal, file_sha256
from tempo.loop.config_format import ConfigFormat, fair_format
from tempo.loop.decide import Regression
from tempo.loop.reload import Reload
from whatif.atomic import stray_temporaries
from whatif.errors import WhatifError

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


def restore(
    previous: Any,
    target: Path,
    reload: Reload | Any | None,
    fmt: ConfigFormat,
    sleep: Callable[[float], None],
) -> str:
    """Put `previous` back at `target` (no backup rotation) and reload; a note on the reload."""
    try:
        fmt.write(previous, target, 0)
    except (WhatifError, OSError) as error:
        raise ApplyError(
            f"{target}: restoring the previous file failed ({error}); the journal keeps the apply "
            f"open and `recover` will retry; by hand: copy {target}.1 over {target}"
        ) from error
    if reload is None:
        return ""
    failure = reload.perform(sleep=sleep)
    return "" if failure is None else f" (but the reload after restoring failed: {failure})"


@dataclass(frozen=True)
class Recovery:
    """What `recover` found and did: ``action`` is ``none``, ``finished`` or ``undone``."""

    action: str
    reason: str
    in_force: InForce | None


def recover(
    journal: Journal,
    path: str | Path,
    *,
    reload: Reload | Any | None = None,
    hadoop_version: int = 3,
    sleep: Callable[[float], None] = time.sleep,
    fmt: ConfigFormat | None = None,
) -> Recovery:
    """Finish or undo an apply a crash left dangling, so the journal and the file agree.

    - Nothing dangling: nothing to do.
    - The new file was never written (the previous one is on disk): the apply is
      recorded as ``reverted``.
    - The new file is on disk but was never confirmed: the previous file is
      restored from the backup (checked against the journalled hash), the RM is
      reloaded with `reload` (if given), and the apply is recorded ``reverted``.

    Either way, a temporary file the killed write left beside `path`
    (`whatif.atomic.stray_temporaries`) is removed.

    Raises `ApplyError`, touching nothing, when the file on disk is neither the
    previous nor the new one (changed outside tempo), is missing, or the backup no
    longer holds the previous file: an operator must decide.
    """
    fmt = fair_format(hadoop_version) if fmt is None else fmt
    target = Path(path)
    state = journal.in_force()
    if state is None or not state.apply.dangling:
        return Recovery("none", "no apply was interrupted", state)
    record = state.apply
    if Path(record.path) != target and Path(record.path).resolve() != target.resolve():
        raise ApplyError(
            f"the interrupted apply was of {record.path}, not {target}; recover that file"
        )
    for stray in stray_temporaries(target):
        logger.warning("%s: removing %s, left by the interrupted write", target, stray.name)
        stray.unlink(missing_ok=True)
    if state.state == "not_written":
        reason = "interrupted before the new file was written; the previous file is in force"
        journal.complete_apply(record.id, outcome="reverted", detail=f"recovered: {reason}")
        logger.warning("%s: %s", target, reason)
        return Recovery("finished", reason, journal.in_force())
    if state.state != "unconfirmed":
        raise ApplyError(
            f"{target}: an apply was interrupted and the file is now {state.description}; "
            f"tempo will not touch it: check it, then restore the backup {record.backup_path} "
            "by hand or keep the file and start tempo with a fresh journal"
        )
    reason = _undo(state, target, reload, fmt, sleep)
    journal.complete_apply(record.id, outcome="reverted", detail=f"recovered: {reason}")
    logger.warning("%s: %s", target, reason)
    return Recovery("undone", reason, journal.in_force())


def _undo(
    state: InForce,
    target: Path,
    reload: Reload | Any | None,
    fmt: ConfigFormat,
    sleep: Callable[[float], None],
) -> str:
    """Restore the previous file of an unconfirmed apply from its backup; the reason."""
    record = state.apply
    backup = None if record.backup_path is None else Path(record.backup_path)
    try:
        backup_bytes = None if backup is None else backup.read_bytes()
    except OSError:
        backup_bytes = None
    if backup_bytes is None or hashlib.sha256(backup_bytes).hexdigest() != record.previous_sha256:
        raise ApplyError(
            f"{target}: an unconfirmed apply was interrupted and the backup {record.backup_path} "
            "no longer holds the previous file; check the numbered backups by hand"
        )
    previous = fmt.parse(backup_bytes, str(backup))
    note = restore(previous, target, reload, fmt, sleep)
    return (
        "interrupted before the new file was confirmed; restored the previous file "
        f"from {backup}{note}"
    )


def rolled_back_configurations(journal: Journal) -> dict[str, int]:
    """Each configuration (file SHA-256) a rollback undid, and the iteration that did: the
    one the last accepted step before it applied. The loop does not apply one again, so a
    step the cluster refused once is not flipped back and forth window after window."""
    undone: dict[str, int] = {}
    applied = None
    for iteration in journal.iterations():
        if iteration.decision == "accepted":
            applied = iteration.config_sha256
        elif iteration.decision == "rolled_back" and applied is not None:
            undone.setdefault(applied, iteration.id)
            applied = None
    return undone
