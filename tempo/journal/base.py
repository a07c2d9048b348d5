"""The `Journal` extension point: a durable record of every tuning-loop iteration.

Call order (what the control loop does each window)::

    it = journal.begin_iteration(config_path=..., config_sha256=..., observed_qs=...)
    # decide; if a configuration is to be written:
    ap = journal.record_intent(it, path=..., sha256=new, previous_sha256=old, backup_path=...)
    #   ... back up, write the allocation file atomically, reload, confirm ...
    journal.complete_apply(ap, outcome="confirmed")   # or "reverted" after restoring
    journal.finish_iteration(it, decision="accepted", reason=..., config_sha256=new, ...)

On start-up the loop calls `Journal.in_force` to learn which configuration is in
force (resolving an apply left dangling by a crash) and `Journal.last` to resume.

What every implementation guarantees:

- **durable once a call returns** (the in-memory journal is the documented
  exception: it lives as long as the process), and **one transaction per call**:
  a crash leaves each call either fully recorded or not at all;
- ids are positive integers that increase in call order; `iterations` and
  `applies` return records in id order;
- the intent of an apply is on record before the allocation file is written, so
  after a crash at any point `in_force` can tell, by hashing the file on disk,
  whether the new file, the previous one, or neither is there;
- misuse (an unknown id, finishing twice, a decision not in `DECISIONS`) raises
  `tempo.JournalError` and records nothing.

QS vectors are stored as JSON objects; non-finite numbers become ``null``.
"""

from __future__ import annotations

import hashlib
import math
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tempo.errors import JournalError

#: What an iteration decided.
DECISIONS = ("accepted", "rolled_back", "rejected", "dry_run")

#: How an apply ended: the new file confirmed in force, or the previous one restored.
OUTCOMES = ("confirmed", "reverted")

#: What `Journal.in_force` can conclude about the allocation file on disk.
IN_FORCE_STATES = {
    "applied": "the last apply was confirmed and the file on disk is that configuration",
    "restored": "the last apply was reverted and the file on disk is the previous configuration",
    "unconfirmed": "an apply was interrupted after the new file was written; not yet confirmed",
    "not_written": "an apply was interrupted before the new file was written; the previous "
    "configuration is on disk",
    "external": "the file on disk is not what the journal expects: it was changed outside tempo",
    "missing": "the allocation file does not exist",
}


@dataclass(frozen=True)
class Iteration:
    """One loop iteration as journalled.

    ``config_sha256``/``config_path``: the configuration in force when the
    iteration finished (when it started, while it is unfinished);
    ``candidate_sha256``: the configuration it proposed, if any; ``backup_path``:
    the backup made before writing, if it wrote. ``decision`` is None while the
    iteration is unfinished (e.g. after a crash). Times are epoch seconds.
    ``cluster``: the SPEC (`whatif.cluster.Cluster.spec`) of the cluster its predictions
    ran on, None when none was given (and in journals written before it was recorded).
    """

    id: int
    started_s: float
    config_path: str
    config_sha256: str
    finished_s: float | None = None
    decision: str | None = None
    reason: str = ""
    candidate_sha256: str | None = None
    backup_path: str | None = None
    observed_qs: Mapping[str, Any] | None = None
    predicted_qs: Mapping[str, Any] | None = None
    cluster: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        out = asdict(self)
        out["observed_qs"] = None if self.observed_qs is None else dict(self.observed_qs)
        out["predicted_qs"] = None if self.predicted_qs is None else dict(self.predicted_qs)
        return out


@dataclass(frozen=True)
class Intent:
    """An apply's intent as `Journal.record_intent` hands it to storage (checked)."""

    iteration_id: int
    path: str
    sha256: str
    previous_sha256: str | None
    backup_path: str | None
    intent_s: float


@dataclass(frozen=True)
class Apply(Intent):
    """The two-phase record of writing one allocation file: its `Intent` (written before
    the file: ``intent_s``, hashes, backup), then ``outcome`` (`OUTCOMES`) and
    ``completed_s`` after confirmation or restoration."""

    id: int
    completed_s: float | None = None
    outcome: str | None = None
    detail: str = ""

    @property
    def dangling(self) -> bool:
        return self.outcome is None


@dataclass(frozen=True)
class InForce:
    """Which configuration is in force, as resolved by `Journal.in_force`.

    ``state`` is a key of `IN_FORCE_STATES`; ``sha256`` is the hash of the file on
    disk (None when missing); ``apply`` is the apply record it was resolved from.
    """

    state: str
    path: str
    sha256: str | None
    apply: Apply

    @property
    def description(self) -> str:
        return IN_FORCE_STATES[self.state]


@dataclass(frozen=True)
class Start:
    """An iteration's start as `Journal.begin_iteration` hands it to storage (checked)."""

    started_s: float
    config_path: str
    config_sha256: str
    observed_qs: dict[str, Any] | None
    cluster: str | None = None


@dataclass(frozen=True)
class Finish:
    """An iteration's end as `Journal.finish_iteration` hands it to storage (checked);
    ``config_sha256`` None means the configuration it started with is still in force."""

    decision: str
    reason: str
    finished_s: float
    config_sha256: str | None
    candidate_sha256: str | None
    predicted_qs: dict[str, Any] | None


def absolute(path: str | os.PathLike[str]) -> str:
    """`path` made absolute (not resolving links), so a restart from elsewhere finds it."""
    return os.path.abspath(os.fspath(path))


def file_sha256(path: str | Path) -> str | None:
    """The SHA-256 (hex) of the file's bytes, or None when it does not exist."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def qs_json(qs: Mapping[str, Any] | None, *, field: str) -> dict[str, Any] | None:
    """A QS vector as a JSON-ready dict: string keys, non-finite numbers as None."""
    if qs is None:
        return None
    if not isinstance(qs, Mapping):
        raise JournalError(f"{field}: expected a mapping of QS name to value, got {qs!r}")

    def clean(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, Mapping):
            return {str(k): clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        if hasattr(value, "item"):  # numpy scalars
            return clean(value.item())
        return value

    return {str(key): clean(value) for key, value in qs.items()}


def check_decision(decision: str) -> None:
    if decision not in DECISIONS:
        raise JournalError(f"decision: expected one of {', '.join(DECISIONS)}, got {decision!r}")


def check_sha256(value: object, *, field: str) -> str:
    """A file's digest as a non-empty string, or a JournalError naming `field`.

    Catches the None that `file_sha256` returns for a missing file.
    """
    if not (isinstance(value, str) and value):
        raise JournalError(
            f"{field}: expected the SHA-256 digest of an existing file, got {value!r}"
        )
    return value


def check_outcome(outcome: str) -> None:
    if outcome not in OUTCOMES:
        raise JournalError(f"outcome: expected one of {', '.join(OUTCOMES)}, got {outcome!r}")


class Journal(ABC):
    """Durable record of loop iterations and allocation-file applies (see the module docstring).

    The public calls check and normalize their arguments here, once; an implementation
    stores the resulting `Start`, `Intent`, outcome and `Finish` in one transaction each
    (the underscored methods), refusing an unknown id or a second finish or completion.
    """

    #: Epoch seconds for default timestamps.
    clock: Callable[[], float]

    def begin_iteration(
        self,
        *,
        config_path: str,
        config_sha256: str | None,
        observed_qs: Mapping[str, Any] | None = None,
        started_s: float | None = None,
        cluster: str | None = None,
    ) -> int:
        """Record the start of an iteration (the configuration in force now, the SPEC of the
        cluster its predictions run on); return its id.

        `config_sha256` None (`file_sha256` of a missing file) is a JournalError."""
        sha = check_sha256(config_sha256, field="config_sha256")
        if cluster is not None and not (isinstance(cluster, str) and cluster):
            raise JournalError(f"cluster: expected a cluster SPEC string or None, got {cluster!r}")
        return self._begin(
            Start(
                started_s=self.clock() if started_s is None else float(started_s),
                config_path=absolute(config_path),
                config_sha256=sha,
                observed_qs=qs_json(observed_qs, field="observed_qs"),
                cluster=cluster,
            )
        )

    def record_intent(
        self,
        iteration_id: int,
        *,
        path: str,
        sha256: str,
        previous_sha256: str | None,
        backup_path: str | None,
    ) -> int:
        """Record, before writing it, that `path` is about to become the file hashing to `sha256`.

        Returns the apply id. Raises `JournalError` if another apply is still dangling.
        """
        return self._intend(
            Intent(
                iteration_id=iteration_id,
                path=absolute(path),
                sha256=sha256,
                previous_sha256=previous_sha256,
                backup_path=None if backup_path is None else absolute(backup_path),
                intent_s=self.clock(),
            )
        )

    def complete_apply(self, apply_id: int, *, outcome: str, detail: str = "") -> None:
        """Record how an apply ended: ``confirmed`` (new file in force) or ``reverted``."""
        check_outcome(outcome)
        self._complete(apply_id, outcome, str(detail), self.clock())

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
        """Record the decision; `config_sha256` is the configuration now in force
        (unchanged from the start when None)."""
        check_decision(decision)
        self._finish(
            iteration_id,
            Finish(
                decision=decision,
                reason=str(reason),
                finished_s=self.clock() if finished_s is None else float(finished_s),
                config_sha256=config_sha256,
                candidate_sha256=candidate_sha256,
                predicted_qs=qs_json(predicted_qs, field="predicted_qs"),
            ),
        )

    @abstractmethod
    def _begin(self, start: Start) -> int:
        """Store a new iteration; return its id."""

    @abstractmethod
    def _intend(self, intent: Intent) -> int:
        """Store an apply's intent and the iteration's backup path; return the apply id.
        `JournalError` for an unknown or finished iteration, or a dangling apply."""

    @abstractmethod
    def _complete(self, apply_id: int, outcome: str, detail: str, completed_s: float) -> None:
        """Store an apply's outcome; `JournalError` for an unknown or completed apply."""

    @abstractmethod
    def _finish(self, iteration_id: int, finish: Finish) -> None:
        """Store an iteration's end; `JournalError` for an unknown or finished iteration."""

    @abstractmethod
    def iterations(self) -> list[Iteration]:
        """Every iteration, oldest first."""

    @abstractmethod
    def applies(self) -> list[Apply]:
        """Every apply record, oldest first."""

    def last(self) -> Iteration | None:
        """The most recent iteration (finished or not), or None for an empty journal."""
        items = self.iterations()
        return items[-1] if items else None

    def in_force(self) -> InForce | None:
        """Which configuration is in force, from the last apply and the file on disk.

        None when tempo never applied anything (the operator's file is in force).
        """
        records = self.applies()
        if not records:
            return None
        last = records[-1]
        on_disk = file_sha256(last.path)
        if on_disk is None:
            state = "missing"
        elif last.outcome == "confirmed":
            state = "applied" if on_disk == last.sha256 else "external"
        elif last.outcome == "reverted":
            state = "restored" if on_disk == last.previous_sha256 else "external"
        elif on_disk == last.sha256:
            state = "unconfirmed"
        elif on_disk == last.previous_sha256:
            state = "not_written"
        else:
            state = "external"
        return InForce(state=state, path=last.path, sha256=on_disk, apply=last)

    def close(self) -> None:  # noqa: B027 (optional hook)
        """Release resources; the journal is not used afterwards."""

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
