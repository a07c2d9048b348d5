"""Resume: what the journal says is in force, and whether the last step awaits judgement.

A tuner restarted after a crash or a stop picks up where the journal left off: an
apply left dangling is recovered first, an iteration left open is closed with what
is on disk, and the last accepted step is judged on the next window.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempo.errors import TempoError
from tempo.journal import InForce, Journal, file_sha256
from tempo.loop.rollback import previous_bytes

logger = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class Resumed:
    """The journal's state for a restarted tuner: one line, and the step awaiting judgement.

    ``baseline`` is the QS observed before the last accepted step (None: nothing to
    judge); ``previous`` the configuration that step replaced (None: not restorable).
    """

    message: str
    baseline: dict[str, float] | None = None
    previous: bytes | None = None


def resume_state(
    journal: Journal, path: str, recover: Callable[[Journal, str], object] | None
) -> Resumed:
    """Recover a dangling apply, close an interrupted iteration, and find the pending step."""
    state = journal.in_force()
    if state is not None and Path(state.path).absolute() != Path(path):
        logger.warning(
            "the journal's last apply was to %s, not %s: not resuming from it", state.path, path
        )
        return Resumed(f"the journal is about {state.path}: starting afresh")
    if state is not None and state.state in ("unconfirmed", "not_written"):
        if recover is None:
            raise TempoError(
                f"{state.path}: an apply was interrupted ({state.description}) and no "
                "recover function was given"
            )
        logger.warning("%s: %s; recovering", state.path, state.description)
        recover(journal, state.path)
        undone = state.state == "unconfirmed"
        state = journal.in_force()
    else:
        undone = False
    finish_interrupted(journal, path, undone=undone)
    resumed = _pending(journal, state)
    logger.info("%s", resumed.message)
    return resumed


def _pending(journal: Journal, state: InForce | None) -> Resumed:
    """The state once nothing is left open: the last accepted step awaits judgement."""
    finished = [i for i in journal.iterations() if i.decision is not None]
    if state is not None and state.state == "external":
        return Resumed(
            f"{state.path} was changed outside tempo since its last apply; "
            "tuning from the file as it is"
        )
    last = finished[-1] if finished else None
    if last is not None and last.decision == "accepted" and last.observed_qs:
        return Resumed(
            f"resumed after iteration {last.id} (accepted): its step is judged on the next window",
            baseline={k: _number(v) for k, v in last.observed_qs.items()},
            previous=previous_bytes(journal, last.id),
        )
    if finished:
        return Resumed(f"resumed after iteration {finished[-1].id} ({finished[-1].decision})")
    return Resumed("no previous iteration in the journal: starting from the file in force")


def finish_interrupted(journal: Journal, path: str, *, undone: bool = False) -> None:
    """Record the decision of an iteration a crash left open, from what is on disk
    (`undone`: its unconfirmed apply was just reverted on restart)."""
    items = journal.iterations()
    if not items or items[-1].decision is not None:
        return
    last = items[-1]
    ours = [a for a in journal.applies() if a.iteration_id == last.id]
    on_disk = file_sha256(path)
    if ours and ours[-1].outcome == "confirmed" and on_disk == ours[-1].sha256:
        decision, what = "accepted", "the new configuration was confirmed in force"
    elif undone:
        decision, what = (
            "rejected",
            "its unconfirmed new file was undone: the previous one is in force",
        )
    else:
        decision, what = "rejected", "the configuration it found is in force"
    journal.finish_iteration(
        last.id,
        decision=decision,
        reason=f"interrupted before it finished; on restart {what}",
        config_sha256=on_disk,
    )
    logger.warning("iteration %d was interrupted; recorded as %s", last.id, decision)


def _number(value: Any) -> float:
    """A journalled QS value: a number, or None for one that could not be computed."""
    return math.nan if value is None else float(value)
