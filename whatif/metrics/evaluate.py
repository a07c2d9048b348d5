"""`evaluate`: every requested QS metric of a schedule, per queue, in one table."""

from __future__ import annotations

import logging
from collections.abc import Iterable

import numpy as np
import pandas as pd

from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.metrics.deadlines import job_deadlines
from whatif.metrics.registry import Metric
from whatif.metrics.scope import Scope
from whatif.metrics.tree import QueueTree
from whatif.metrics.window import Window
from whatif.schedule import Schedule
from whatif.workload import Workload

logger = logging.getLogger(__name__)


def evaluate(
    schedule: Schedule,
    metrics: Iterable[Metric | str],
    *,
    window: Window,
    cluster: Cluster | None = None,
    workload: Workload | None = None,
    queues: Iterable[str] = (),
) -> pd.DataFrame:
    """QS values of `schedule` over `window`: one row per queue, one column per metric.

    Parameters
    ----------
    schedule : Schedule
        Observed or predicted.
    metrics : iterable of Metric or metric name
        Columns, in order, labelled by ``Metric.label``; repeats are computed once.
    window : Window
        ``[t0, t0 + L)``; a metric with a ``window`` parameter uses the last
        ``window`` seconds of it instead.
    cluster : Cluster, optional
        Required by the resource metrics (QS_UTIL, QS_UTIL_NOPREEMPT, QS_FAIR, QS_WASTE).
    workload : Workload, optional
        Source of per-job deadlines and recurring-job keys for QS_DL and QS_ATTAIN.
    queues : iterable of str
        Queue names to report even when no job ran in them (e.g. from an
        allocation file); bare leaf names mean ``root.<name>``.

    Returns
    -------
    DataFrame
        Index ``queue`` (full paths: root, parents, leaves, depth first), float
        columns; NaN where a queue has nothing to measure. Parent queues aggregate
        their subtree, ``root`` the whole cluster.
    """
    if not isinstance(window, Window):
        raise ValidationError(f"evaluate window: expected a Window, got {type(window).__name__}")
    wanted = list(dict.fromkeys(m if isinstance(m, Metric) else Metric(m) for m in metrics))
    if not wanted:
        raise ValidationError("evaluate metrics: expected at least one metric, got none")
    tree = QueueTree.from_paths([*schedule.jobs["queue"].unique().tolist(), *queues])
    sources = {str(m.param("deadline")) for m in wanted if m.spec.needs_deadlines}
    deadlines = {s: job_deadlines(schedule, workload, s) for s in sorted(sources)}
    scopes: dict[Window, Scope] = {}
    columns: dict[str, np.ndarray] = {}
    for metric in wanted:
        length = float(metric.param("window"))
        scoped = window.last(length) if length > 0 else window
        scope = scopes.get(scoped)
        if scope is None:
            scope = scopes[scoped] = Scope(schedule, scoped, tree, cluster, deadlines)
        columns[metric.label] = metric.spec.compute(scope, metric.resolved())
    logger.debug("evaluated %d metrics over %d queues", len(columns), len(tree))
    return pd.DataFrame(columns, index=pd.Index(tree.names, name="queue"))
