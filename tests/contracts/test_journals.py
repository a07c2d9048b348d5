"""The Journal contract, run over every implementation."""

from __future__ import annotations

import hashlib
import itertools
import json
import math

import numpy as np
import pytest

from tempo import JournalError
from tempo.journal import DECISIONS, IN_FORCE_STATES, MemoryJournal, SQLiteJournal, file_sha256


class Clock:
    """Epoch seconds that advance by one per reading."""

    def __init__(self) -> None:
        self.ticks = itertools.count(1_700_000_000)

    def __call__(self) -> float:
        return float(next(self.ticks))


JOURNALS = {
    "memory": lambda tmp_path: MemoryJournal(clock=Clock()),
    "sqlite": lambda tmp_path: SQLiteJournal(tmp_path / "journal.sqlite", clock=Clock()),
}


@pytest.fixture(params=sorted(JOURNALS))
def journal(request, tmp_path):
    made = JOURNALS[request.param](tmp_path)
    yield made
    made.close()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


OLD, NEW = b"<allocations/>\n", b"<allocations><queue name='a'/></allocations>\n"


@pytest.fixture
def alloc(tmp_path):
    """An allocation file holding the OLD configuration."""
    path = tmp_path / "fair-scheduler.xml"
    path.write_bytes(OLD)
    return path


def _start_apply(journal, alloc):
    it = journal.begin_iteration(config_path=str(alloc), config_sha256=sha(OLD))
    ap = journal.record_intent(
        it, path=str(alloc), sha256=sha(NEW), previous_sha256=sha(OLD), backup_path=f"{alloc}.1"
    )
    return it, ap


def test_empty_journal(journal):
    """A new journal has no iterations, no last one, and nothing tempo applied."""
    assert journal.iterations() == [] and journal.last() is None and journal.in_force() is None


def test_accepted_iteration_round_trips(journal, alloc):
    """Every field of an accepted iteration reads back as written."""
    it, ap = _start_apply(journal, alloc)
    alloc.write_bytes(NEW)
    journal.complete_apply(ap, outcome="confirmed", detail="steady fair shares match")
    journal.finish_iteration(
        it,
        decision="accepted",
        reason="dominates",
        config_sha256=sha(NEW),
        candidate_sha256=sha(NEW),
        predicted_qs={"root.a/avg_response_s": 12.5},
    )
    (record,) = journal.iterations()
    assert record == journal.last()
    assert (record.id, record.decision, record.reason) == (it, "accepted", "dominates")
    assert record.config_sha256 == record.candidate_sha256 == sha(NEW)
    assert record.config_path == str(alloc) and record.backup_path == f"{alloc}.1"
    assert record.predicted_qs == {"root.a/avg_response_s": 12.5} and record.observed_qs is None
    assert record.started_s < record.finished_s
    (apply,) = journal.applies()
    assert (apply.outcome, apply.detail, apply.dangling) == (
        "confirmed",
        "steady fair shares match",
        False,
    )
    assert apply.intent_s < apply.completed_s


def test_ids_increase_and_order_is_kept(journal, alloc):
    """Iterations come back oldest first with increasing ids; last() is the newest."""
    ids = []
    for decision in DECISIONS:
        it = journal.begin_iteration(config_path=str(alloc), config_sha256=sha(OLD))
        journal.finish_iteration(it, decision=decision, reason=decision)
        ids.append(it)
    assert ids == sorted(ids) and len(set(ids)) == 4
    assert [i.decision for i in journal.iterations()] == list(DECISIONS)
    assert journal.last().decision == "dry_run"


def test_unchanged_configuration_by_default(journal, alloc):
    """finish_iteration without config_sha256 keeps the configuration it started with."""
    it = journal.begin_iteration(config_path=str(alloc), config_sha256=sha(OLD))
    journal.finish_iteration(it, decision="rejected", reason="outside the risk radius")
    assert journal.last().config_sha256 == sha(OLD)


def test_unfinished_iteration_is_visible(journal, alloc):
    """An iteration begun but never finished (a crash) has no decision."""
    journal.begin_iteration(config_path=str(alloc), config_sha256=sha(OLD), observed_qs={"q": 1})
    last = journal.last()
    assert last.decision is None and last.finished_s is None and last.observed_qs == {"q": 1}


def test_qs_values_are_json_clean(journal, alloc):
    """Non-finite QS values become null; numpy scalars become plain numbers."""
    it = journal.begin_iteration(
        config_path=str(alloc),
        config_sha256=sha(OLD),
        observed_qs={"a": math.inf, "b": np.float64(2.5), "c": float("nan"), "d": np.int64(3)},
    )
    journal.finish_iteration(it, decision="dry_run", reason="r")
    record = journal.last()
    assert record.observed_qs == {"a": None, "b": 2.5, "c": None, "d": 3}
    json.dumps(record.to_dict(), allow_nan=False)


def test_missing_configuration_hash_is_a_clear_error(journal, tmp_path):
    """A missing file's hash (None) is refused with the field named, and nothing is recorded."""
    missing = file_sha256(tmp_path / "nowhere.xml")
    with pytest.raises(
        JournalError, match="config_sha256: expected the SHA-256 digest of an existing file"
    ):
        journal.begin_iteration(config_path=str(tmp_path / "nowhere.xml"), config_sha256=missing)
    assert journal.iterations() == []


def test_bad_decision_records_nothing(journal, alloc):
    """A decision outside DECISIONS raises JournalError and leaves the iteration unfinished."""
    it = journal.begin_iteration(config_path=str(alloc), config_sha256=sha(OLD))
    with pytest.raises(JournalError, match="decision: expected one of accepted, rolled_back"):
        journal.finish_iteration(it, decision="maybe", reason="")
    assert journal.last().decision is None


def test_finishing_twice_is_refused(journal, alloc):
    """An iteration is finished once."""
    it = journal.begin_iteration(config_path=str(alloc), config_sha256=sha(OLD))
    journal.finish_iteration(it, decision="rejected", reason="first")
    with pytest.raises(JournalError, match="already finished"):
        journal.finish_iteration(it, decision="accepted", reason="second")
    assert journal.last().reason == "first"


def test_unknown_ids_are_refused(journal):
    """Unknown iteration and apply ids raise JournalError naming the id."""
    with pytest.raises(JournalError, match="no iteration with id 42"):
        journal.finish_iteration(42, decision="accepted", reason="")
    with pytest.raises(JournalError, match="no iteration with id 42"):
        journal.record_intent(42, path="x", sha256="a", previous_sha256=None, backup_path=None)
    with pytest.raises(JournalError, match="no apply with id 7"):
        journal.complete_apply(7, outcome="confirmed")


def test_apply_completes_once_with_a_known_outcome(journal, alloc):
    """complete_apply takes confirmed or reverted, once."""
    _, ap = _start_apply(journal, alloc)
    with pytest.raises(JournalError, match="outcome: expected one of confirmed, reverted"):
        journal.complete_apply(ap, outcome="done")
    journal.complete_apply(ap, outcome="reverted")
    with pytest.raises(JournalError, match="already completed"):
        journal.complete_apply(ap, outcome="confirmed")


def test_one_dangling_apply_at_a_time(journal, alloc):
    """A new intent is refused while an earlier apply is unresolved."""
    _start_apply(journal, alloc)
    it2 = journal.begin_iteration(config_path=str(alloc), config_sha256=sha(OLD))
    with pytest.raises(JournalError, match="still dangling"):
        journal.record_intent(
            it2, path=str(alloc), sha256="x", previous_sha256=None, backup_path=None
        )
    assert len(journal.applies()) == 1


def test_intent_on_finished_iteration_is_refused(journal, alloc):
    """Nothing is applied on behalf of a finished iteration."""
    it = journal.begin_iteration(config_path=str(alloc), config_sha256=sha(OLD))
    journal.finish_iteration(it, decision="rejected", reason="")
    with pytest.raises(JournalError, match="already finished"):
        journal.record_intent(
            it, path=str(alloc), sha256="x", previous_sha256=None, backup_path=None
        )


def test_non_mapping_qs_is_refused(journal, alloc):
    """A QS vector must be a mapping; the field is named."""
    with pytest.raises(JournalError, match="observed_qs: expected a mapping"):
        journal.begin_iteration(config_path=str(alloc), config_sha256="a", observed_qs=[1, 2])
    assert journal.iterations() == []


def test_paths_are_stored_absolute(journal, alloc, monkeypatch):
    """Relative paths are made absolute so a restart elsewhere finds the file."""
    monkeypatch.chdir(alloc.parent)
    it = journal.begin_iteration(config_path=alloc.name, config_sha256=sha(OLD))
    journal.record_intent(it, path=alloc.name, sha256="x", previous_sha256=None, backup_path="b")
    assert journal.last().config_path == str(alloc)
    assert journal.applies()[0].path == str(alloc)
    assert journal.last().backup_path == str(alloc.parent / "b")


# In force after a crash at each point of the apply protocol.


def test_in_force_after_confirmed_apply(journal, alloc):
    """Confirmed and the new file on disk: applied."""
    _, ap = _start_apply(journal, alloc)
    alloc.write_bytes(NEW)
    journal.complete_apply(ap, outcome="confirmed")
    state = journal.in_force()
    assert (state.state, state.sha256, state.apply.id) == ("applied", sha(NEW), ap)


def test_in_force_after_revert(journal, alloc):
    """Confirmation failed and the previous file was restored: restored."""
    _, ap = _start_apply(journal, alloc)
    journal.complete_apply(ap, outcome="reverted", detail="confirmation timed out")
    assert journal.in_force().state == "restored"


def test_in_force_crash_before_write(journal, alloc):
    """Intent on record, crash before the file was written: the previous file is in force."""
    _start_apply(journal, alloc)
    state = journal.in_force()
    assert (state.state, state.sha256) == ("not_written", sha(OLD))
    assert state.apply.dangling


def test_in_force_crash_after_write_before_confirm(journal, alloc):
    """Intent on record, new file written, crash before confirmation: unconfirmed."""
    _start_apply(journal, alloc)
    alloc.write_bytes(NEW)
    state = journal.in_force()
    assert (state.state, state.sha256) == ("unconfirmed", sha(NEW))


def test_dangling_apply_can_be_resolved_after_restart(journal, alloc):
    """After a crash the loop completes the dangling apply and may start a new one."""
    _, ap = _start_apply(journal, alloc)
    alloc.write_bytes(NEW)
    journal.complete_apply(ap, outcome="confirmed", detail="confirmed after restart")
    it2 = journal.begin_iteration(config_path=str(alloc), config_sha256=sha(NEW))
    journal.record_intent(
        it2, path=str(alloc), sha256=sha(OLD), previous_sha256=sha(NEW), backup_path=None
    )
    assert journal.in_force().state == "not_written"
    assert [a.dangling for a in journal.applies()] == [False, True]


def test_in_force_detects_external_edit(journal, alloc):
    """A file matching neither hash was changed outside tempo."""
    _, ap = _start_apply(journal, alloc)
    journal.complete_apply(ap, outcome="confirmed")
    alloc.write_bytes(b"<allocations><!-- hand edit --></allocations>")
    state = journal.in_force()
    assert state.state == "external" and "outside tempo" in state.description


def test_in_force_missing_file(journal, alloc):
    """A deleted allocation file is reported as missing."""
    _, ap = _start_apply(journal, alloc)
    alloc.unlink()
    state = journal.in_force()
    assert state.state == "missing" and state.sha256 is None
    assert set(IN_FORCE_STATES) >= {state.state}
