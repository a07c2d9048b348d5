"""A `tempo tune` run's report from its journal: every window's QS and decision, and for
each applied step the settings it changed and the allocation file's unified diff.

The journal keeps each apply's SHA-256 (before and after), not the files; the files
are found by hash among the allocation file and its numbered backups (``FILE.1``,
``FILE.2``, ...: `tempo.loop.apply` keeps the last few). A step whose files have
rotated out keeps its hashes and decision, with a note instead of a diff.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tempo.journal import Apply, Iteration, SQLiteJournal
from tempo.optimize import QSComponent
from tempo.reports.document import tune_report, unified_diff
from tempo.scheduler_file import capacity_diff
from tempo.space import hadoop_version_for
from whatif.allocation import AllocationDocument, SettingDiff, diff_allocations, diff_rows
from whatif.capacity import ConfigurationDocument
from whatif.capacity.xml_io import looks_like_capacity_scheduler
from whatif.errors import WhatifError

logger = logging.getLogger(__name__)


def _versions(config_path: Path) -> dict[str, tuple[Path, bytes]]:
    """The allocation file and its numbered backups on disk, by SHA-256."""
    found: dict[str, tuple[Path, bytes]] = {}
    candidates = [config_path]
    if config_path.parent.is_dir():
        pattern = re.compile(re.escape(config_path.name) + r"\.\d+")
        candidates += sorted(p for p in config_path.parent.iterdir() if pattern.fullmatch(p.name))
    for path in candidates:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        found.setdefault(hashlib.sha256(data).hexdigest(), (path, data))
    return found


def _step(
    apply: Apply, iteration: Iteration | None, versions: dict[str, tuple[Path, bytes]]
) -> dict[str, Any]:
    """One applied step: its iteration's decision and reason, the apply's outcome, the
    settings changed and the file's diff."""
    step: dict[str, Any] = {
        "iteration": apply.iteration_id,
        "decision": (iteration.decision if iteration else None) or "unfinished",
        "outcome": apply.outcome or "unfinished",
        "reason": (iteration.reason if iteration else "") or apply.detail,
        "distance": None,
        "previous_sha256": apply.previous_sha256,
        "sha256": apply.sha256,
        "changes": [],
        "diff": None,
        "diff_note": "",
    }
    before = versions.get(apply.previous_sha256 or "")
    after = versions.get(apply.sha256)
    if before is None or after is None:
        missing = [
            f"{name} {sha[:12]}"
            for name, sha, version in (
                ("previous", apply.previous_sha256, before),
                ("written", apply.sha256, after),
            )
            if version is None and sha
        ]
        step["diff_note"] = (
            f"not on disk any more ({', '.join(missing)}): only the hashes are journaled"
        )
        return step
    try:
        step["changes"] = diff_rows(_diff(before, after))
    except WhatifError as error:
        logger.warning("step of iteration %s: %s", apply.iteration_id, error)
        step["diff_note"] = f"settings not compared: {error}"
    step["diff"] = unified_diff(
        before[1].decode("utf-8", "replace"),
        after[1].decode("utf-8", "replace"),
        f"{before[0].name} ({(apply.previous_sha256 or '')[:12]})",
        f"{after[0].name} ({apply.sha256[:12]})",
    )
    return step


def _diff(before: tuple[Path, bytes], after: tuple[Path, bytes]) -> tuple[SettingDiff, ...]:
    """The settings two journaled versions of a file differ in: a capacity-scheduler.xml's
    properties, or an allocation file's settings in its own dialect."""
    if looks_like_capacity_scheduler(before[1]):
        return capacity_diff(
            ConfigurationDocument.from_bytes(before[1], source=str(before[0])),
            ConfigurationDocument.from_bytes(after[1], source=str(after[0])),
        )
    old = AllocationDocument.from_bytes(before[1], source=str(before[0]))
    new = AllocationDocument.from_bytes(after[1], source=str(after[0]))
    version = hadoop_version_for(None, document=old)
    return tuple(diff_allocations(old, new, hadoop_version=version))


def journal_report(
    path: str | os.PathLike[str], components: Sequence[QSComponent] = ()
) -> dict[str, Any]:
    """The `tempo.reports.document.tune_report` of the journal at `path` (read-only), its
    QS kinds and thresholds from `components` (the templates'); raises
    `tempo.JournalError` when there is none."""
    with SQLiteJournal(path, readonly=True) as journal:
        iterations = journal.iterations()
        applies = journal.applies()
    by_id = {i.id: i for i in iterations}
    by_file: dict[str, dict[str, tuple[Path, bytes]]] = {}
    steps = []
    for apply in applies:
        if apply.path not in by_file:
            by_file[apply.path] = _versions(Path(apply.path))
        steps.append(_step(apply, by_id.get(apply.iteration_id), by_file[apply.path]))
    return tune_report(iterations, steps, journal=str(path), components=components)
