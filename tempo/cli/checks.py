"""Warnings the commands print before they simulate: what would make their answer misleading.

`warn_allocation` prints the allocation file's validation warnings against the
cluster (a queue's minResources above the cluster, minimum shares that cannot all
be met, a placement rule naming a queue the file does not define...), `warn_capacity`
a capacity-scheduler.xml's (among them the settings the predictor does not model: node
labels, reservable queues...); `warn_site`
each setting of the cluster's site file the predictor does not model (delay
scheduling, a Hadoop 1 weight adjuster, another scheduler class...);
`warn_unmeasured` names each template constraint that had nothing to measure (it
can never be evaluated on this trace, and so is never met). Both go to stderr
through logging, so ``--quiet`` hides them.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import pandas as pd

from tempo.qs import constraint_text
from tempo.templates import QSTemplate
from whatif.allocation import AllocationDocument, Resources, validate
from whatif.allocation.validate import Issue
from whatif.capacity import ConfigurationDocument
from whatif.capacity import validate as validate_capacity
from whatif.cluster import Cluster
from whatif.predictor.site import SiteSettings

logger = logging.getLogger("tempo")


def warn_allocation(
    path: str, document: AllocationDocument, cluster: Cluster | None, *, hadoop_version: int = 3
) -> int:
    """Log each validation warning of `document` (against `cluster`); returns how many."""
    return _log_warnings(
        path, validate(document, hadoop_version=hadoop_version, cluster=_total(cluster))
    )


def warn_capacity(path: str, document: ConfigurationDocument, cluster: Cluster | None) -> int:
    """`warn_allocation` for a capacity-scheduler.xml: its validation warnings, among them
    the settings the predictor does not model (`whatif.capacity.unmodelled`)."""
    return _log_warnings(path, validate_capacity(document, cluster=_total(cluster)))


def _total(cluster: Cluster | None) -> Resources | None:
    return None if cluster is None else Resources(cluster.memory_mb, cluster.vcores)


def _log_warnings(path: str, issues: Sequence[Issue]) -> int:
    warnings = [i for i in issues if i.severity == "warning"]
    for issue in warnings:
        logger.warning("%s: line %d: %s", path, issue.line, issue.message)
    return len(warnings)


def warn_site(site: SiteSettings, *, capacity: bool) -> int:
    """Log each setting of `site` the predictions leave out, and a scheduler class other
    than the one predicted (the Capacity Scheduler when `capacity`); returns how many.
    Only the predicted scheduler's settings are judged (`Unmodelled.scheduler`)."""
    problems = [site.scheduler_mismatch(capacity=capacity)]
    kind = "capacity" if capacity else "fair"
    problems.extend(str(setting) for setting in site.unmodelled if setting.scheduler == kind)
    for problem in filter(None, problems):
        logger.warning("%s", problem)
    return sum(1 for problem in problems if problem)


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
                constraint_text(constraint),
                template.queue,
            )
            count += 1
    return count
