"""The SQLite `Journal`: one file, WAL mode, ``synchronous=FULL``, a versioned schema.

Each journal call is one transaction committed before the call returns, so a
record is durable once the call returns and a crash leaves each call all or
nothing. The schema version is SQLite's ``user_version``; a journal written by a
newer tempo is refused rather than misread. One process writes a journal at a
time (``tempo tune``); readers (``tempo history``) may open it read-only while it
runs.

A column that only adds a nullable field keeps the version: ``iterations.cluster`` (the
SPEC of the cluster an iteration predicted on) is added to a journal that lacks it when
it is opened for writing, read as NULL when it is opened read-only, and ignored by a
tempo that predates it.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tempo.errors import JournalError
from tempo.journal.base import Apply, Finish, Intent, Iteration, Journal, Start

logger = logging.getLogger(__name__)

#: Environment variable naming the default journal file.
JOURNAL_ENV = "TEMPO_JOURNAL"

#: Journal file used when neither ``--journal`` nor ``$TEMPO_JOURNAL`` is given.
DEFAULT_JOURNAL = "tempo-journal.sqlite"

#: Version of the schema this code writes (SQLite ``user_version``).
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE iterations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_s REAL NOT NULL,
    finished_s REAL,
    config_path TEXT NOT NULL,
    config_sha256 TEXT NOT NULL,
    candidate_sha256 TEXT,
    backup_path TEXT,
    observed_qs TEXT,
    predicted_qs TEXT,
    decision TEXT CHECK (decision IN ('accepted', 'rolled_back', 'rejected', 'dry_run')),
    reason TEXT NOT NULL DEFAULT '',
    cluster TEXT
);
CREATE TABLE applies (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    iteration_id INTEGER NOT NULL REFERENCES iterations(id),
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    previous_sha256 TEXT,
    backup_path TEXT,
    intent_s REAL NOT NULL,
    completed_s REAL,
    outcome TEXT CHECK (outcome IN ('confirmed', 'reverted')),
    detail TEXT NOT NULL DEFAULT ''
);
"""

_ITERATION_FIELDS = (
    "id, started_s, finished_s, config_path, config_sha256, candidate_sha256, backup_path, "
    "observed_qs, predicted_qs, decision, reason"
)
_APPLY_FIELDS = (
    "id, iteration_id, path, sha256, previous_sha256, backup_path, intent_s, completed_s, "
    "outcome, detail"
)


def default_journal_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$TEMPO_JOURNAL`` if set, else ``./tempo-journal.sqlite``."""
    env = os.environ if environ is None else environ
    return Path(env.get(JOURNAL_ENV) or DEFAULT_JOURNAL)


class SQLiteJournal(Journal):
    """A durable `Journal` in an SQLite file.

    Parameters
    ----------
    path : path-like
        The journal file; created (with its schema) unless `readonly`.
    readonly : bool
        Open an existing journal for reading only (``tempo history``).
    clock : callable, optional
        Epoch seconds for default timestamps (``time.time``).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        readonly: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.clock = clock
        self._has_cluster = False  # whether the iterations table has its cluster column
        if readonly and not self.path.is_file():
            raise JournalError(
                f"{self.path}: no journal here (tempo tune writes one; "
                f"give --journal PATH or set ${JOURNAL_ENV})"
            )
        try:
            if readonly:
                uri = self.path.resolve().as_uri() + "?mode=ro"
                self._db = sqlite3.connect(uri, uri=True, isolation_level=None)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, isolation_level=None)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._open_schema()
        except sqlite3.OperationalError as error:  # a read-only directory, a full disk
            raise JournalError(
                f"{self.path}: cannot open or create the journal ({error})"
            ) from None
        except sqlite3.DatabaseError as error:
            raise JournalError(f"{self.path}: not a usable tempo journal ({error})") from None

    def _open_schema(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"{self.path}: journal schema version {version} is newer than this tempo "
                f"understands ({SCHEMA_VERSION}); upgrade tempo"
            )
        if version == SCHEMA_VERSION:
            self._add_cluster_column()
            return
        tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables:
            raise JournalError(
                f"{self.path}: an SQLite file that is not a tempo journal (no schema version)"
            )
        if self.readonly:
            raise JournalError(f"{self.path}: empty file, not a tempo journal")
        with self._transaction() as db:
            if db.execute("PRAGMA user_version").fetchone()[0] == 0:  # not created meanwhile
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        self._has_cluster = True
        logger.info("created journal %s (schema version %d)", self.path, SCHEMA_VERSION)

    def _add_cluster_column(self) -> None:
        """Give a journal written before clusters were recorded its ``cluster`` column
        (not when read-only: its iterations then read with cluster None)."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(iterations)")}
        self._has_cluster = "cluster" in columns
        if self._has_cluster or self.readonly:
            return
        with self._transaction() as db:
            db.execute("ALTER TABLE iterations ADD COLUMN cluster TEXT")
        self._has_cluster = True

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed on success, rolled back on any error."""
        if self.readonly:
            raise JournalError(f"{self.path}: journal opened read-only")
        db = self._db
        try:
            if not db.in_transaction:
                db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            if db.in_transaction:
                db.execute("COMMIT")
        except sqlite3.OperationalError as error:
            # a full disk ("database or disk is full"), a read-only file or directory,
            # an I/O error: nothing of this transaction was recorded, earlier ones stay.
            raise JournalError(
                f"{self.path}: cannot write the journal ({error}); nothing of this "
                "step was recorded"
            ) from error

    def close(self) -> None:
        self._db.close()

    def _begin(self, start: Start) -> int:
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO iterations (started_s, config_path, config_sha256, observed_qs, "
                "cluster) VALUES (?, ?, ?, ?, ?)",
                (
                    start.started_s,
                    start.config_path,
                    start.config_sha256,
                    _dumps(start.observed_qs),
                    start.cluster,
                ),
            )
            return _row_id(cursor.lastrowid)

    def _intend(self, intent: Intent) -> int:
        iteration_id = intent.iteration_id
        with self._transaction() as db:
            if self._iteration_row(db, iteration_id)["decision"] is not None:
                raise JournalError(f"iteration {iteration_id} is already finished")
            dangling = db.execute(
                "SELECT id FROM applies WHERE outcome IS NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if dangling:
                raise JournalError(f"apply {dangling[0]} is still dangling; complete it first")
            cursor = db.execute(
                "INSERT INTO applies (iteration_id, path, sha256, previous_sha256, backup_path, "
                "intent_s) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    iteration_id,
                    intent.path,
                    intent.sha256,
                    intent.previous_sha256,
                    intent.backup_path,
                    intent.intent_s,
                ),
            )
            db.execute(
                "UPDATE iterations SET backup_path = ? WHERE id = ?",
                (intent.backup_path, iteration_id),
            )
            return _row_id(cursor.lastrowid)

    def _complete(self, apply_id: int, outcome: str, detail: str, completed_s: float) -> None:
        with self._transaction() as db:
            row = db.execute("SELECT outcome FROM applies WHERE id = ?", (apply_id,)).fetchone()
            if row is None:
                raise JournalError(f"no apply with id {apply_id}")
            if row[0] is not None:
                raise JournalError(f"apply {apply_id} is already completed ({row[0]})")
            db.execute(
                "UPDATE applies SET outcome = ?, detail = ?, completed_s = ? WHERE id = ?",
                (outcome, detail, completed_s, apply_id),
            )

    def _finish(self, iteration_id: int, finish: Finish) -> None:
        with self._transaction() as db:
            row = self._iteration_row(db, iteration_id)
            if row["decision"] is not None:
                raise JournalError(f"iteration {iteration_id} is already finished")
            db.execute(
                "UPDATE iterations SET decision = ?, reason = ?, finished_s = ?, "
                "config_sha256 = ?, candidate_sha256 = ?, predicted_qs = ? WHERE id = ?",
                (
                    finish.decision,
                    finish.reason,
                    finish.finished_s,
                    row["config_sha256"] if finish.config_sha256 is None else finish.config_sha256,
                    finish.candidate_sha256,
                    _dumps(finish.predicted_qs),
                    iteration_id,
                ),
            )

    def iterations(self) -> list[Iteration]:
        cluster = "cluster" if self._has_cluster else "NULL AS cluster"
        rows = self._select(f"SELECT {_ITERATION_FIELDS}, {cluster} FROM iterations ORDER BY id")
        return [
            Iteration(
                **{
                    **row,
                    "observed_qs": _loads(row["observed_qs"]),
                    "predicted_qs": _loads(row["predicted_qs"]),
                }
            )
            for row in rows
        ]

    def applies(self) -> list[Apply]:
        return [
            Apply(**row) for row in self._select(f"SELECT {_APPLY_FIELDS} FROM applies ORDER BY id")
        ]

    def _select(self, sql: str) -> list[dict[str, Any]]:
        try:
            cursor = self._db.execute(sql)
        except sqlite3.DatabaseError as error:
            raise JournalError(f"{self.path}: cannot read the journal ({error})") from None
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def _iteration_row(self, db: sqlite3.Connection, iteration_id: int) -> dict[str, Any]:
        cursor = db.execute(
            "SELECT decision, config_sha256 FROM iterations WHERE id = ?", (iteration_id,)
        )
        row = cursor.fetchone()
        if row is None:
            raise JournalError(f"no iteration with id {iteration_id}")
        return {"decision": row[0], "config_sha256": row[1]}


def _dumps(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, allow_nan=False)


def _loads(text: str | None) -> dict[str, Any] | None:
    return None if text is None else json.loads(text)


def _row_id(lastrowid: int | None) -> int:
    """The id of the row an INSERT just wrote (sqlite3 sets ``lastrowid`` after one)."""
    if lastrowid is None:
        raise RuntimeError("sqlite3: no row id after an INSERT")
    return lastrowid
