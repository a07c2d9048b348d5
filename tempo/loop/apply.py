"""Putting a new allocation file in force safely: journal, write, reload, confirm, or roll back.

The same procedure applies a Capacity Scheduler ``capacity-scheduler.xml`` with
``fmt=tempo.loop.config_format.CAPACITY`` (Hadoop 3.x's rules, confirmed by the queue
tree's capacities and states; reloaded by ``yarn rmadmin -refreshQueues`` or the
mutation API, `tempo.rm.sched_conf.SchedConfReload`).

`apply_configuration` is the only way tempo changes a cluster's configuration:

1. the candidate is validated; one with errors is never written;
2. the intent (new and previous SHA-256, backup path) goes into the journal;
3. `whatif.allocation.write_allocation` writes the file atomically (temporary file,
   fsync, rename), rotating numbered backups (``FILE.1`` is the previous file) and
   keeping the file's permissions;
4. the RM is told to reload: a command run without a shell (by default
   ``yarn rmadmin -refreshQueues``), or a wait for its own 10 to 15 s reload;
5. the new settings are confirmed in force through ``/ws/v1/cluster/scheduler``
   (`tempo.rm.confirm.scheduler_mismatches`), polling until a timeout;
6. the journal records the completion: ``confirmed``, or, when the reload or the
   confirmation failed, ``reverted`` after the previous file was restored (through
   `write_allocation`, without rotating backups, so ``FILE.1`` still holds it) and
   the RM reloaded again.

A crash at any point leaves a valid file (the rename is atomic) and a dangling
journal record; `tempo.loop.rollback.recover`, which a restarted ``tempo tune`` calls first, finishes it
(nothing was written) or undoes it (the unconfirmed new file is replaced by the
previous one from its backup).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any, Protocol

from tempo.errors import ApplyError
from tempo.journal import Journal
from tempo.loop.config_format import ConfigFormat, fair_format
from tempo.loop.reload import DEFAULT_RELOAD, Reload
from tempo.loop.rollback import restore
from tempo.loop.verify import Confirm, confirmer, wait_for
from tempo.rm.confirm import DEFAULT_TOLERANCE, Tolerance
from tempo.scheduler_file import SchedulerDocument
from whatif.errors import WhatifError

logger = logging.getLogger(__name__)

#: Why a candidate identical to the file in force is not applied.
_UNCHANGED = "the candidate is the file already in force"

__all__ = [
    "Applier",
    "ApplyError",
    "ApplyOutcome",
    "ApplyResult",
    "ConfigurationApplier",
    "apply_configuration",
]


class ApplyResult(Protocol):
    """What an applier reports (`ApplyOutcome` has these fields)."""

    @property
    def applied(self) -> bool: ...
    @property
    def confirmed(self) -> bool: ...
    @property
    def reverted(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def backup_path(self) -> str | Path | None: ...
    @property
    def sha256(self) -> str | None: ...


class Applier(Protocol):
    """Writes a configuration, reloads the RM and confirms it, journalling the two phases.

    Must record the intent in `journal` under `iteration_id` before writing, and
    leave the previous file in force (``reverted``) when confirmation fails.
    """

    def apply(
        self, document: SchedulerDocument, *, journal: Journal, iteration_id: int
    ) -> ApplyResult: ...


@dataclass(frozen=True)
class ApplyOutcome:
    """What `apply_configuration` did.

    ``applied``: the new file was written; ``confirmed``: the RM showed it in force;
    ``reverted``: the previous file was restored after a failure; ``reason`` says
    what happened in one line; ``backup_path`` is the backup of the previous file
    (``FILE.1``) or None; ``sha256`` the hash of the candidate; ``apply_id`` the
    journal's apply record, None when nothing was journalled (candidate refused);
    ``write_error``: ``FILE: reason`` when the file could not be written at all (a
    full disk, a read-only directory), which ``tempo tune`` reports with exit 2.
    """

    applied: bool
    confirmed: bool
    reverted: bool
    reason: str
    backup_path: Path | None
    sha256: str
    apply_id: int | None = None
    write_error: str | None = None


def apply_configuration(
    document: Any,
    path: str | Path,
    *,
    journal: Journal,
    iteration_id: int,
    reload: Reload | Any = DEFAULT_RELOAD,
    confirm: Confirm,
    timeout_s: float = 60.0,
    backups: int = 5,
    hadoop_version: int = 3,
    tolerance: Tolerance = DEFAULT_TOLERANCE,
    poll_s: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    fmt: ConfigFormat | None = None,
) -> ApplyOutcome:
    """Write `document` to `path`, reload the RM, confirm it is in force, or restore the previous file.

    `document` is the candidate allocation file (or ``capacity-scheduler.xml`` with
    ``fmt=tempo.loop.config_format.CAPACITY``); `path` the file the RM reads, which
    must exist and be valid (it is what a failure restores). The two-phase record
    goes to `journal` under `iteration_id`. `reload` makes the RM re-read the file
    (`tempo.loop.reload.Reload`, or a `tempo.rm.sched_conf.SchedConfReload`).
    `confirm` (`tempo.loop.verify`) is polled every `poll_s` for up to `timeout_s`
    seconds after the reload: with an `RMClient` the scheduler endpoint must match
    the candidate within `tolerance`. `backups` numbered backups are kept
    (``path.1`` is the file replaced); `fmt` defaults to a Fair Scheduler file of
    `hadoop_version`.

    Returns ``applied=False`` when the candidate was refused (invalid, or identical
    to the file in force) and nothing was written or journalled. Raises `ApplyError`
    when the file in force is missing or invalid (it could not be restored), or
    restoring it after a failure failed (the apply stays dangling: see
    `tempo.loop.rollback.recover`); `JournalError` when an earlier apply is still
    dangling.
    """
    fmt = fair_format(hadoop_version, tolerance) if fmt is None else fmt
    target = Path(path)
    sha = hashlib.sha256(document.to_bytes()).hexdigest()
    problems = fmt.errors(document)
    if problems:
        return _refused(target, sha, problems)
    previous, previous_sha = _in_force(target, fmt)
    if previous_sha == sha:
        return ApplyOutcome(False, False, False, _UNCHANGED, None, sha)
    check = confirmer(confirm, document, fmt)
    pending = _Pending.record(journal, iteration_id, target, sha, previous_sha, backups)
    try:
        fmt.write(document, target, backups)
    except (WhatifError, OSError) as error:
        return pending.not_written(error)
    logger.info("wrote %s (sha256 %s); reloading: %s", target, sha[:12], reload.describe())
    failure = reload.perform(sleep=sleep)
    if failure is None:
        confirmed, failure = wait_for(check, timeout_s, poll_s, sleep, clock)
        if confirmed:
            return pending.confirmed(failure)
    return pending.reverted(failure, restore(previous, target, reload, fmt, sleep))


def _refused(target: Path, sha: str, problems: list[str]) -> ApplyOutcome:
    """An invalid candidate, neither written nor journalled."""
    reason = f"candidate refused, not written: {'; '.join(problems[:5])}"
    logger.warning("%s: %s", target, reason)
    return ApplyOutcome(False, False, False, reason, None, sha)


def _in_force(target: Path, fmt: ConfigFormat) -> tuple[Any, str]:
    """The valid file in force (what a failure restores) and its hash. Raises `ApplyError`
    when it cannot be read or is invalid."""
    try:
        previous_bytes = target.read_bytes()
    except OSError as error:
        raise ApplyError(
            f"{target}: cannot read the allocation file in force ({error.strerror}); "
            "tempo only replaces an existing, valid file it can restore"
        ) from error
    try:
        previous = fmt.parse(previous_bytes, str(target))
        previous_problems = fmt.errors(previous)
    except WhatifError as error:
        previous_problems = [str(error)]
    if previous_problems:
        raise ApplyError(
            f"{target}: the allocation file in force is not valid, so it could not be restored "
            f"after a failure; fix it first: {'; '.join(previous_problems[:3])}"
        )
    return previous, hashlib.sha256(previous_bytes).hexdigest()


@dataclass(frozen=True)
class _Pending:
    """An apply whose intent is in the journal: each way it can end closes the record."""

    journal: Journal
    apply_id: int
    target: Path
    sha: str
    backup: Path | None

    @classmethod
    def record(
        cls,
        journal: Journal,
        iteration_id: int,
        target: Path,
        sha: str,
        previous_sha: str,
        backups: int,
    ) -> _Pending:
        """Journal the intent to replace `target` (hashing `previous_sha`) by `sha`."""
        backup = target.with_name(f"{target.name}.1") if backups > 0 else None
        apply_id = journal.record_intent(
            iteration_id,
            path=str(target),
            sha256=sha,
            previous_sha256=previous_sha,
            backup_path=None if backup is None else str(backup),
        )
        return cls(journal, apply_id, target, sha, backup)

    def confirmed(self, why: str) -> ApplyOutcome:
        """The RM showed the new file in force."""
        self.journal.complete_apply(self.apply_id, outcome="confirmed", detail=why)
        logger.info("%s: new configuration confirmed in force", self.target)
        reason = f"confirmed: {why}"
        return ApplyOutcome(True, True, False, reason, self.backup, self.sha, self.apply_id)

    def reverted(self, failure: str, restored: str) -> ApplyOutcome:
        """The reload or the confirmation failed and the previous file was `restored`."""
        reason = f"{failure}; restored the previous file{restored}"
        self.journal.complete_apply(self.apply_id, outcome="reverted", detail=reason)
        logger.warning("%s: %s", self.target, reason)
        return ApplyOutcome(True, False, True, reason, self.backup, self.sha, self.apply_id)

    def not_written(self, error: Exception) -> ApplyOutcome:
        """The file could not be written (the previous one is untouched)."""
        why = error.strerror if isinstance(error, OSError) and error.strerror else error
        reason = f"writing {self.target} failed, previous file untouched: {why}"
        self.journal.complete_apply(self.apply_id, outcome="reverted", detail=reason)
        logger.error("%s", reason)
        return ApplyOutcome(
            False,
            False,
            False,
            reason,
            None,
            self.sha,
            self.apply_id,
            write_error=f"{self.target}: {why}",
        )


@dataclass(eq=False)
class ConfigurationApplier:
    """Applies through `apply_configuration` (an `Applier` for the `Tuner`); `fmt` as there
    (None: a Fair Scheduler allocation file)."""

    path: Path
    _: KW_ONLY
    reload: Reload | Any
    confirm: Confirm
    timeout_s: float
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    fmt: ConfigFormat | None = None

    def apply(
        self, document: SchedulerDocument, *, journal: Journal, iteration_id: int
    ) -> ApplyOutcome:
        """Apply `document` to the file, polling the confirmation 20 times within the timeout."""
        return apply_configuration(
            document,
            self.path,
            journal=journal,
            iteration_id=iteration_id,
            reload=self.reload,
            confirm=self.confirm,
            timeout_s=self.timeout_s,
            poll_s=min(1.0, self.timeout_s / 20),
            sleep=self.sleep,
            clock=self.clock,
            fmt=self.fmt,
        )
