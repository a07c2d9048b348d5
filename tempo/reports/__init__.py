"""Reports of a tuning run, the kind `tempo whatif` writes: ``report.json`` and a
self-contained ``report.html`` with the QS before and after per queue, the settings
changed as an allocation-file diff, and the trajectory of the search.

- `optimize_report`: a `tempo optimize` outcome (one proposed step, the search by
  number of predictions);
- `journal_report`: a `tempo tune` run from its journal (QS per window, each step's
  decision, each applied step's diff);
- `write_tuning_report`: both files into a directory, through `whatif.report`'s writer,
  base template and figure helpers.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tempo.reports.document import SCHEMA, optimize_report, tune_report
from tempo.reports.html import render_tuning_html
from tempo.reports.journal import journal_report
from whatif.report import ReportFiles, write_pages

__all__ = [
    "SCHEMA",
    "journal_report",
    "optimize_report",
    "render_tuning_html",
    "tune_report",
    "write_tuning_report",
]


def write_tuning_report(
    document: Mapping[str, Any], directory: str | os.PathLike[str]
) -> ReportFiles:
    """Write `document` as ``report.json`` and ``report.html`` into `directory`, both or
    neither (`whatif.report.write_pages`); a failure is a `WhatifError` naming the file."""
    return write_pages(Path(directory), document, render_tuning_html(document))
