"""Provisioning reports: a terminal table, ``report.json`` (versioned schema) and a self-contained ``report.html``."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatif.atomic import write_atomic
from whatif.errors import OutputWriteError
from whatif.forecast import WorkloadForecast
from whatif.provisioning import ProvisioningAnalysis
from whatif.report.document import report_dict
from whatif.report.html import render_html
from whatif.report.schema import REPORT_SCHEMA, REPORT_VERSION
from whatif.report.text import render_forecast, render_text
from whatif.scaleup_check import ScaleUpCheck

__all__ = [
    "REPORT_SCHEMA",
    "REPORT_VERSION",
    "ReportFiles",
    "ReportWriteError",
    "render_forecast",
    "render_html",
    "render_text",
    "report_dict",
    "write_pages",
    "write_report",
]

logger = logging.getLogger(__name__)


class ReportWriteError(OutputWriteError):
    """A report could not be written: `path` is a report file, or the directory."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: cannot write the report: {reason}", path, reason)


@dataclass(frozen=True)
class ReportFiles:
    """Where `write_report` put the report."""

    json: Path
    html: Path


def write_report(
    analysis: ProvisioningAnalysis,
    directory: str | Path,
    *,
    retuned: ProvisioningAnalysis | None = None,
    check: ScaleUpCheck | None = None,
    inputs: Mapping[str, object] | None = None,
    forecast: WorkloadForecast | None = None,
) -> ReportFiles:
    """Write ``report.json`` and ``report.html`` into `directory` (created if needed).

    `retuned` is the same analysis with the configuration re-tuned at each cluster
    size (``analyze_provisioning(..., configure=...)``), `check` the scale-up check,
    `forecast` the forecast the scenarios came from (report.json's ``forecast``).

    Both are rendered in memory first; ``report.json`` is replaced while the new
    ``report.html`` waits, fsynced, in its temporary file, which is then renamed
    (`whatif.atomic.write_atomic`). A full disk or a read-only directory is a
    `ReportWriteError` naming the file, and leaves the previous report (or none) whole:
    never half a file, never a new ``report.json`` beside an old ``report.html``, and
    no empty directory it created.
    """
    document = report_dict(analysis, retuned=retuned, check=check, inputs=inputs, forecast=forecast)
    page = render_html(analysis, retuned=retuned, check=check, forecast=forecast)
    return write_pages(directory, document, page)


def write_pages(directory: str | Path, document: Mapping[str, Any], page: str) -> ReportFiles:
    """Write a report's ``report.json`` (`document`) and ``report.html`` (`page`) into
    `directory` (created if needed), both or neither, as `write_report` describes; every
    report (what-if, optimize, tune) is written by this one function."""
    directory = Path(directory)
    made = _missing(directory)
    files = ReportFiles(directory / "report.json", directory / "report.html")
    previous = files.json.read_bytes() if files.json.is_file() else None
    text = json.dumps(document, indent=2, allow_nan=False) + "\n"
    replaced: list[Path] = []
    try:
        _make(directory)
        write_atomic(files.html, page, before_replace=lambda _: _write(files.json, text, replaced))
    except (OSError, ReportWriteError) as error:
        _undo(replaced, previous, made)
        if isinstance(error, OSError):
            raise _cannot(files.html, error) from error
        raise
    logger.info("wrote %s and %s", files.json, files.html)
    return files


def _missing(directory: Path) -> list[Path]:
    """`directory` and those of its parents that do not exist yet, deepest first."""
    missing = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    return missing


def _make(directory: Path) -> None:
    """Create the report directory and its parents, or raise naming the one that failed."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _cannot(Path(error.filename or directory), error) from error


def _write(path: Path, text: str, replaced: list[Path]) -> None:
    """``report.json``, written while the new ``report.html`` waits to be renamed."""
    try:
        write_atomic(path, text)
    except OSError as error:
        raise _cannot(path, error) from error
    replaced.append(path)


def _undo(replaced: list[Path], previous: bytes | None, made: list[Path]) -> None:
    """After a report that could not be written whole: put back the ``report.json`` it
    replaced (`previous`, or none) and remove the directories it made (`made`, empty then);
    best effort, as the disk that failed may refuse this too."""
    with contextlib.suppress(OSError):
        for path in replaced:
            if previous is None:
                path.unlink()
            else:
                write_atomic(path, previous)
        for directory in made:
            directory.rmdir()


def _cannot(path: Path, error: OSError) -> ReportWriteError:
    return ReportWriteError(path, error.strerror or str(error))
