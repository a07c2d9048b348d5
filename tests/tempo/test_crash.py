"""`kill -9` at every step of an apply: the file is always one of two valid versions, the
journal says which, and the next run rolls back or resumes.

Each case forks a child that runs one loop iteration (a step predicted to help,
applied through `tempo.loop.apply.apply_configuration` with a real reload command) and
SIGKILLs itself at one point of the apply. The parent then checks the file on disk
and the journal, and resumes as a restarted ``tempo tune`` does.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from test_loop import LABEL, TEMPLATES, XML, DoublingStepper, FakeCluster

import tempo.loop.reload
import whatif.atomic
from tempo.journal import SQLiteJournal
from tempo.loop import Tuner
from tempo.loop.apply import ConfigurationApplier
from tempo.loop.reload import Reload
from tempo.loop.rollback import recover
from whatif.allocation import AllocationDocument, validate
from whatif.atomic import stray_temporaries

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

NEW = AllocationDocument.from_bytes(XML).set("root.engineer", "weight", 2.0).to_bytes()

#: Kill point -> (file on disk after the kill, what the journal concludes).
STEPS = {
    "after-intent": (XML, "not_written"),
    "after-temporary-file": (XML, "not_written"),
    "after-backup": (XML, "not_written"),
    "after-rename": (NEW, "unconfirmed"),
    "after-reload": (NEW, "unconfirmed"),
    "after-confirmation": (NEW, "unconfirmed"),
    "after-journal-completion": (NEW, "applied"),
}


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _after(function, *, before: bool = False, when=lambda *a, **k: True):
    """`function` that SIGKILLs the process before or after the call for which `when` holds."""

    def wrapped(*args, **kwargs):
        if before and when(*args, **kwargs):
            _die()
        result = function(*args, **kwargs)
        if not before and when(*args, **kwargs):
            _die()
        return result

    return wrapped


def _arm(step: str, journal: SQLiteJournal) -> None:
    """Make this (child) process SIGKILL itself at `step`."""
    if step == "after-intent":
        journal.record_intent = _after(journal.record_intent)
    elif step == "after-temporary-file":  # fsynced, before backups and rename
        whatif.atomic.rotate_backups = _after(whatif.atomic.rotate_backups, before=True)
    elif step == "after-backup":
        whatif.atomic.rotate_backups = _after(whatif.atomic.rotate_backups)
    elif step == "after-rename":
        os.replace = _after(os.replace, when=lambda source, target: str(source).endswith(".tmp"))
    elif step == "after-reload":
        tempo.loop.reload.Reload.perform = _after(tempo.loop.reload.Reload.perform)
    elif step == "after-confirmation":
        journal.complete_apply = _after(journal.complete_apply, before=True)
    elif step == "after-journal-completion":
        journal.complete_apply = _after(journal.complete_apply)


def _loop(path: Path, journal: SQLiteJournal) -> Tuner:
    return Tuner(
        observer=FakeCluster(path, lambda w: 100.0 / w),
        stepper=DoublingStepper(),
        # a real reload command and an immediate confirmation
        applier=ConfigurationApplier(
            path, reload=Reload.run(["true"]), confirm=lambda: True, timeout_s=1.0
        ),
        journal=journal,
        templates=TEMPLATES,
        allocation_path=path,
        window_s=600.0,
        recover=lambda j, p: recover(j, p, reload=Reload.run(["true"])),
        clock=iter(range(1_700_000_000, 1_800_000_000, 600)).__next__,
    )


def _killed_at(step: str, path: Path, db: Path) -> None:
    """Fork a child that runs one iteration and SIGKILLs itself at `step`; wait for it."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            journal = SQLiteJournal(db)
            loop = _loop(path, journal)
            loop.resume()
            _arm(step, journal)
            loop.step()
        finally:
            os._exit(99)  # reached only if the kill point was never hit
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (
        f"the child was not killed at {step} (status {status})"
    )


def _valid(data: bytes) -> bool:
    issues = validate(AllocationDocument.from_bytes(data))
    return not [i for i in issues if i.severity == "error"]


@pytest.mark.parametrize("step", list(STEPS))
def test_a_kill_at_any_apply_step_leaves_a_valid_file_the_journal_explains(tmp_path, step):
    """After SIGKILL at `step`: the file is the old or the new valid version, the journal's
    in-force state names which; a restart rolls an unconfirmed apply back (or keeps a
    confirmed one, to be judged next window), removes the killed write's temporary file,
    finishes the interrupted iteration, and the loop goes on."""
    path = tmp_path / "fair-scheduler.xml"
    path.write_bytes(XML)
    path.chmod(0o640)
    db = tmp_path / "journal.sqlite"
    _killed_at(step, path, db)

    expected, state = STEPS[step]
    on_disk = path.read_bytes()
    assert on_disk == expected and _valid(on_disk)
    assert (path.stat().st_mode & 0o777) == 0o640
    killed_mid_write = step in ("after-temporary-file", "after-backup")
    assert bool(stray_temporaries(path)) == killed_mid_write
    with SQLiteJournal(db) as journal:
        assert journal.in_force().state == state
        assert journal.iterations()[-1].decision is None  # the iteration was cut short

    with SQLiteJournal(db) as journal:
        loop = _loop(path, journal)
        resumed = loop.resume()
        assert not stray_temporaries(path)
        (interrupted,) = journal.iterations()
        assert interrupted.decision is not None and "interrupted" in interrupted.reason
        if state == "applied":
            assert path.read_bytes() == NEW and interrupted.decision == "accepted"
            assert "judged on the next window" in resumed and loop.baseline_ == {LABEL: 100.0}
        else:
            assert path.read_bytes() == XML and interrupted.decision == "rejected"
            assert journal.in_force().state == "restored"
        assert all(not a.dangling for a in journal.applies())
        after = loop.step()
        assert after.decision == "accepted" and _valid(path.read_bytes())
