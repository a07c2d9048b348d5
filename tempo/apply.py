"""Putting a new allocation file in force safely: journal, write, reload, confirm, or roll back.

The same procedure applies a Capacity Scheduler ``capacity-scheduler.xml`` with
``fmt=tempo.config_format.CAPACITY`` (Hadoop 3.x's rules, confirmed by the queue
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
journal record; `recover`, which a restarted ``tempo tune`` calls first, finishes it
(nothing was written) or undoes it (the unconfirmed new file is replaced by the
previous one from its backup).
"""

from __future__ import annotations

import hashlib
import logging
import shlex
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempo.config_format import ConfigFormat, fair_format
from tempo.errors import TempoError
from tempo.journal import InForce, Journal
from tempo.rm.client import RMClient
from tempo.rm.confirm import DEFAULT_TOLERANCE, Tolerance
from whatif.atomic import stray_temporaries
from whatif.errors import WhatifError

logger = logging.getLogger(__name__)

#: The reload command run by default (Hadoop's immediate queue refresh).
DEFAULT_RELOAD_COMMAND = ("yarn", "rmadmin", "-refreshQueues")

#: Seconds the Fair Scheduler may take to reload a changed file on its own (10 s poll + 5 s quiet).
RM_RELOAD_WAIT_S = 15.0


class ApplyError(TempoError):
    """A configuration cannot be applied or a dangling apply cannot be recovered safely."""


@dataclass(frozen=True)
class Reload:
    """How the ResourceManager is made to re-read the allocation file.

    Either ``command`` (an argument vector run without a shell, e.g.
    ``("yarn", "rmadmin", "-refreshQueues")``; it must exit 0 within
    ``timeout_s``), or, with ``command`` None, a wait of ``wait_s`` seconds for the
    RM's own periodic reload.
    """

    command: tuple[str, ...] | None = DEFAULT_RELOAD_COMMAND
    timeout_s: float = 60.0
    wait_s: float = 0.0

    def __post_init__(self) -> None:
        if self.command is not None:
            if isinstance(self.command, str) or not all(isinstance(a, str) for a in self.command):
                raise ApplyError(
                    f"Reload.command: expected a sequence of strings, got {self.command!r}"
                )
            object.__setattr__(self, "command", tuple(self.command))
            if not self.command:
                raise ApplyError(
                    "Reload.command: expected a program and its arguments, got nothing"
                )
        if not self.timeout_s > 0:
            raise ApplyError(f"Reload.timeout_s: expected > 0, got {self.timeout_s!r}")
        if not self.wait_s >= 0:
            raise ApplyError(f"Reload.wait_s: expected >= 0, got {self.wait_s!r}")

    @classmethod
    def run(cls, command: str | Sequence[str], *, timeout_s: float = 60.0) -> Reload:
        """Run `command` (an argument vector, or a string split as a POSIX shell would) to reload."""
        argv = shlex.split(command) if isinstance(command, str) else tuple(command)
        return cls(command=tuple(argv), timeout_s=timeout_s)

    @classmethod
    def wait(cls, seconds: float = RM_RELOAD_WAIT_S) -> Reload:
        """Wait `seconds` for the RM's own reload (10 s poll after a 5 s quiet period)."""
        return cls(command=None, wait_s=seconds)

    def describe(self) -> str:
        if self.command is None:
            return f"wait {self.wait_s:g} s for the RM's own reload"
        return shlex.join(self.command)

    def perform(self, *, sleep: Callable[[float], None] = time.sleep) -> str | None:
        """Reload now; None on success, else one line saying what failed."""
        if self.command is None:
            sleep(self.wait_s)
            return None
        argv = list(self.command)
        try:
            result = subprocess.run(  # noqa: S603 (an argument vector, never a shell)
                argv, timeout=self.timeout_s, capture_output=True, text=True, check=False
            )
        except FileNotFoundError:
            return f"reload command {argv[0]!r} not found"
        except subprocess.TimeoutExpired:
            return f"reload command {self.describe()!r} did not finish within {self.timeout_s:g} s"
        except OSError as error:
            return f"reload command {self.describe()!r} could not run: {error.strerror}"
        if result.returncode != 0:
            said = (result.stderr or result.stdout or "").strip().splitlines()
            tail = f": {said[-1]}" if said else ""
            return (
                f"reload command {self.describe()!r} exited with status {result.returncode}{tail}"
            )
        return None


#: `yarn rmadmin -refreshQueues`, 60 s timeout.
DEFAULT_RELOAD = Reload()


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


#: A confirmation: an RM client, or a callable saying whether the new file is in force.
Confirm = Callable[[], bool] | RMClient


def _confirmer(
    confirm: Confirm, document: Any, fmt: ConfigFormat
) -> Callable[[], tuple[bool, str]]:
    """A check returning (in force?, why not)."""
    if isinstance(confirm, RMClient):
        return fmt.confirm(confirm, document)
    if not callable(confirm):
        raise ApplyError(
            f"confirm: expected an RMClient or a callable, got {type(confirm).__name__}"
        )

    def call() -> tuple[bool, str]:
        return (True, "confirmed") if confirm() else (False, "the confirmation check said no")

    return call


def _wait_for(
    check: Callable[[], tuple[bool, str]],
    timeout_s: float,
    poll_s: float,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
) -> tuple[bool, str]:
    deadline = clock() + timeout_s
    while True:
        ok, why = check()
        if ok:
            return True, why
        if clock() >= deadline:
            return False, f"not confirmed within {timeout_s:g} s: {why}"
        sleep(min(poll_s, max(deadline - clock(), 0.0)))


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

    Parameters
    ----------
    document : AllocationDocument or ConfigurationDocument
        The candidate allocation file (or ``capacity-scheduler.xml`` with
        ``fmt=tempo.config_format.CAPACITY``).
    path : path
        The allocation file the RM reads; it must exist and be valid (it is what a
        failure restores).
    journal, iteration_id
        Where the two-phase apply record goes, and the iteration it belongs to.
    reload : Reload
        How the RM is made to re-read the file.
    confirm : RMClient or callable
        With an `RMClient`, ``/ws/v1/cluster/scheduler`` must match the candidate
        (`tempo.rm.confirm.scheduler_mismatches` within `tolerance`); a callable
        must return True once the candidate is in force. Polled every `poll_s`
        seconds for up to `timeout_s` seconds after the reload.
    backups : int
        Numbered backups kept (``path.1`` is the file replaced).
    fmt : ConfigFormat, optional
        The kind of file (`tempo.config_format`); default a Fair Scheduler
        allocation file for `hadoop_version`. A Capacity Scheduler's `reload` is
        ``yarn rmadmin -refreshQueues`` or a `tempo.rm.sched_conf.SchedConfReload`.

    Returns
    -------
    ApplyOutcome
        ``applied=False`` when the candidate was refused (invalid, or identical to
        the file in force) and nothing was written or journalled.

    Raises
    ------
    ApplyError
        The file in force is missing or invalid (it could not be restored), or
        restoring it after a failure failed (the journal keeps the apply dangling;
        see `recover`).
    JournalError
        An earlier apply is still dangling (call `recover` first).
    """
    fmt = fair_format(hadoop_version, tolerance) if fmt is None else fmt
    target = Path(path)
    data = document.to_bytes()
    sha = hashlib.sha256(data).hexdigest()
    problems = fmt.errors(document)
    if problems:
        reason = f"candidate refused, not written: {'; '.join(problems[:5])}"
        logger.warning("%s: %s", target, reason)
        return ApplyOutcome(False, False, False, reason, None, sha)
    try:
        previous_bytes = target.read_bytes()
    except OSError as error:
        raise ApplyError(
            f"{target}: cannot read the allocation file in force ({error.strerror}); "
            "tempo only replaces an existing, valid file it can restore"
        ) from error
    previous_sha = hashlib.sha256(previous_bytes).hexdigest()
    if previous_sha == sha:
        return ApplyOutcome(
            False, False, False, "the candidate is the file already in force", None, sha
        )
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
    check = _confirmer(confirm, document, fmt)
    backup = target.with_name(f"{target.name}.1") if backups > 0 else None
    apply_id = journal.record_intent(
        iteration_id,
        path=str(target),
        sha256=sha,
        previous_sha256=previous_sha,
        backup_path=None if backup is None else str(backup),
    )
    try:
        fmt.write(document, target, backups)
    except (WhatifError, OSError) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else error
        reason = f"writing {target} failed, previous file untouched: {why}"
        journal.complete_apply(apply_id, outcome="reverted", detail=reason)
        logger.error("%s", reason)
        return ApplyOutcome(
            False, False, False, reason, None, sha, apply_id, write_error=f"{target}: {why}"
        )
    logger.info("wrote %s (sha256 %s); reloading: %s", target, sha[:12], reload.describe())
    failure = reload.perform(sleep=sleep)
    if failure is None:
        confirmed, why = _wait_for(check, timeout_s, poll_s, sleep, clock)
        if confirmed:
            journal.complete_apply(apply_id, outcome="confirmed", detail=why)
            logger.info("%s: new configuration confirmed in force", target)
            return ApplyOutcome(True, True, False, f"confirmed: {why}", backup, sha, apply_id)
        failure = why
    restored = _restore(previous, target, reload, fmt, sleep)
    reason = f"{failure}; restored the previous file{restored}"
    journal.complete_apply(apply_id, outcome="reverted", detail=reason)
    logger.warning("%s: %s", target, reason)
    return ApplyOutcome(True, False, True, reason, backup, sha, apply_id)


def _restore(
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
            f"tempo will not touch it: check it, then restore the backup {record.backup_path} by hand "
            "or keep the file and start tempo with a fresh journal"
        )
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
    note = _restore(previous, target, reload, fmt, sleep)
    reason = f"interrupted before the new file was confirmed; restored the previous file from {backup}{note}"
    journal.complete_apply(record.id, outcome="reverted", detail=f"recovered: {reason}")
    logger.warning("%s: %s", target, reason)
    return Recovery("undone", reason, journal.in_force())
