"""What only the SQLite journal promises: durability, WAL, schema versioning, read-only use."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tempo import JournalError
from tempo.journal import SQLiteJournal, default_journal_path, read_history

ROOT = Path(__file__).resolve().parents[3]


def test_records_survive_reopening(tmp_path):
    """A closed and reopened journal has the same iterations."""
    path = tmp_path / "j.sqlite"
    with SQLiteJournal(path) as journal:
        it = journal.begin_iteration(config_path="a.xml", config_sha256="h1")
        journal.finish_iteration(it, decision="dry_run", reason="diff shown")
    with SQLiteJournal(path) as journal:
        assert [(i.decision, i.reason) for i in journal.iterations()] == [("dry_run", "diff shown")]


def test_wal_mode_and_schema_version(tmp_path):
    """The file is in WAL mode and carries schema version 1."""
    path = tmp_path / "j.sqlite"
    SQLiteJournal(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()


def test_intent_is_durable_when_the_process_dies(tmp_path):
    """A process killed right after record_intent (no close, no exit handlers) left it on disk."""
    path, alloc = tmp_path / "j.sqlite", tmp_path / "fair-scheduler.xml"
    alloc.write_bytes(b"<allocations/>")
    script = textwrap.dedent(
        f"""
        import os
        from tempo.journal import SQLiteJournal, file_sha256
        j = SQLiteJournal({str(path)!r})
        it = j.begin_iteration(config_path={str(alloc)!r}, config_sha256=file_sha256({str(alloc)!r}))
        j.record_intent(it, path={str(alloc)!r}, sha256="new", previous_sha256=file_sha256({str(alloc)!r}), backup_path=None)
        os._exit(9)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, timeout=60
    )
    assert result.returncode == 9
    with SQLiteJournal(path) as journal:
        state = journal.in_force()
        assert state.state == "not_written" and state.apply.dangling
        assert journal.last().decision is None


def test_newer_schema_is_refused(tmp_path):
    """A journal from a newer tempo is refused, not misread."""
    path = tmp_path / "j.sqlite"
    SQLiteJournal(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.commit()
    db.close()
    with pytest.raises(
        JournalError, match="schema version 99 is newer than this tempo understands"
    ):
        SQLiteJournal(path)


def test_foreign_sqlite_file_is_refused(tmp_path):
    """An SQLite file with other tables is not taken over."""
    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="not a tempo journal"):
        SQLiteJournal(path)


def test_garbage_file_is_refused(tmp_path):
    """A file that is not SQLite at all is a one-line JournalError naming it."""
    path = tmp_path / "notes.txt"
    path.write_text("hello, this is not a database" * 100)
    with pytest.raises(JournalError, match=r"notes\.txt: not a usable tempo journal"):
        SQLiteJournal(path)


def test_readonly_needs_an_existing_journal(tmp_path):
    """read_history on a missing file says where it looked and how to point elsewhere."""
    with pytest.raises(JournalError, match=r"nope\.sqlite: no journal here.*TEMPO_JOURNAL"):
        read_history(tmp_path / "nope.sqlite")
    assert not (tmp_path / "nope.sqlite").exists()


def test_readonly_refuses_writes(tmp_path):
    """A read-only journal rejects writes."""
    path = tmp_path / "j.sqlite"
    SQLiteJournal(path).close()
    with SQLiteJournal(path, readonly=True) as journal:
        with pytest.raises(JournalError, match="read-only"):
            journal.begin_iteration(config_path="a", config_sha256="b")


def test_failed_call_rolls_back(tmp_path):
    """A refused call leaves no partial write behind (one transaction per call)."""
    path = tmp_path / "j.sqlite"
    with SQLiteJournal(path) as journal:
        it = journal.begin_iteration(config_path="a", config_sha256="b")
        journal.record_intent(it, path="a", sha256="c", previous_sha256="b", backup_path="a.1")
        with pytest.raises(JournalError):
            journal.record_intent(it, path="a", sha256="d", previous_sha256="c", backup_path="a.2")
    with SQLiteJournal(path) as journal:
        assert len(journal.applies()) == 1 and journal.last().backup_path.endswith("a.1")


def test_default_path_from_environment():
    """$TEMPO_JOURNAL overrides ./tempo-journal.sqlite."""
    assert default_journal_path({}) == Path("tempo-journal.sqlite")
    assert default_journal_path({"TEMPO_JOURNAL": "/var/lib/tempo/j.sqlite"}) == Path(
        "/var/lib/tempo/j.sqlite"
    )


def _journal_before_clusters(path: Path) -> None:
    """A version 1 journal as tempo wrote it before iterations recorded their cluster."""
    from tempo.journal.sqlite import _SCHEMA

    old = _SCHEMA.replace(",\n    cluster TEXT", "")
    assert old != _SCHEMA
    db = sqlite3.connect(path)
    db.executescript(old + "PRAGMA user_version=1;")
    db.execute(
        "INSERT INTO iterations (started_s, config_path, config_sha256, decision, reason) "
        "VALUES (1.0, '/a.xml', 'h1', 'accepted', 'old')"
    )
    db.commit()
    db.close()


def test_each_iteration_records_its_cluster_spec(tmp_path):
    """begin_iteration keeps the SPEC of the cluster the iteration predicts on; a cluster
    that is not a SPEC string is refused."""
    path = tmp_path / "j.sqlite"
    with SQLiteJournal(path) as journal:
        journal.begin_iteration(config_path="a.xml", config_sha256="h1", cluster="nodes=3")
        journal.begin_iteration(config_path="a.xml", config_sha256="h1")
        with pytest.raises(JournalError, match="cluster"):
            journal.begin_iteration(config_path="a.xml", config_sha256="h1", cluster="")
    assert [i.cluster for i in read_history(path)] == ["nodes=3", None]


def test_a_journal_from_before_clusters_stays_readable_and_writable(tmp_path):
    """A journal without the cluster column reads read-only with cluster None (it is not
    changed), and opened for writing gains the column: old rows None, new ones their SPEC."""
    path = tmp_path / "old.sqlite"
    _journal_before_clusters(path)
    (old,) = read_history(path)
    assert (old.reason, old.cluster) == ("old", None)
    assert "cluster" not in {
        r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(iterations)")
    }
    with SQLiteJournal(path) as journal:
        journal.begin_iteration(config_path="a.xml", config_sha256="h2", cluster="nodes=2")
    assert [i.cluster for i in read_history(path)] == [None, "nodes=2"]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()
