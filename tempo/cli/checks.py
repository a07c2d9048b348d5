"""Warnings the commands print before they simulate: what would make their answer misleading.

`warn_allocation` prints the allocation file's validation warnings against the
cluster (a queue's minResources above the cluster, minimum shares that cannot all
be met, a placement rule naming a queue the file does not define...);
`warn_unmeasured` names each template constraint that had nothing to measure (it
can never be evaluated on this trace, and so is never met); `warn_window_longer`
says when ``--window`` reaches back before the trace's first job. All go to stderr
through logging, so ``--quiet`` hides them.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import pandas as pd

from tempo.templates import QSTemplate
from whatif.allocation import AllocationDocument, Resources, validate
from whatif.cluster import Cluster
from whatif.durations import format_duration
from whatif.metrics import Window
from whatif.workload import Workload

logger = logging.getLogger("tempo")


def warn_allocation(
    path: str, document: AllocationDocument, cluster: Cluster | None, *, hadoop_version: int = 3
) -> int:
    """Log each validation warning of `document` (against `cluster`); returns how many."""
    total = None if cluster is None else Resources(cluster.memory_mb, cluster.vcores)
    issues = [
        i
        for i in validate(document, hadoop_version=hadoop_version, cluster=total)
        if i.severity == "warning"
    ]
    for issue in issues:
        logger.warning("%s: line %d: %s", path, issue.line, issue.message)
    return len(issues)


def warn_unmeasured(templates: Sequence[QSTemplate], constraints: pd.DataFrame, side: str) -> int:
    """Log each constraint whose `side` value had nothing to measure; returns how many.

    `constraints` is `tempo.qs.QSReport.constraints` (one row per template constraint,
    in template order).
    """
    placed = [(t, c) for t in templates for c in t.constraints]
    count = 0
    for (template, constraint), value in zip(placed, constraints[side], strict=True):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            where = constraint.location or template.location
            logger.warning(
                "%s: the constraint %s of %s can never be evaluated on this trace: nothing to "
                "measure (no finished job of the queue in the window, or no deadlines); it "
                "counts as not met",
                where or template.queue,
                constraint,
                template.queue,
            )
            count += 1
    return count


def warn_window_longer(window: Window, workload: Workload, option: str) -> bool:
    """Log when `window` (asked for as `option`, e.g. ``--window 10d``) starts before the
    workload's first submission: the shares averaged over the window count the time
    before the trace as idle. Returns whether it did."""
    first = float(workload.jobs["submit_s"].min())
    if not window.start_s < first:
        return False
    logger.warning(
        "%s: the window is longer than the trace, which covers its last %s (from the first "
        "submission at %s s); QS_UTIL, QS_UTIL_NOPREEMPT and QS_FAIR average over the whole "
        "window, so the time before the trace counts as idle",
        option,
        format_duration(window.end_s - first),
        f"{first:,.1f}",
    )
    return True
