"""`evaluate`: every requested QS metric of a schedule, per queue, in one table."""

from __future__ import annotations

import logging
from collections.abc import Iterable

import numpy as np
import pandas as pd

from whatif._validation import check_choice
from whatif.cluster import Cluster
from whatif.errors import UnfinishedJobsError, ValidationError
from whatif.metrics.deadlines import job_deadlines
from whatif.metrics.registry import Metric
from whatif.metrics.scope import Scope, job_finish
from whatif.metrics.tree import QueueTree
from whatif.metrics.window import Window
from whatif.schedule import Schedule
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: What `evaluate` does with jobs submitted in the window that never finished.
UNFINISHED = ("error", "warn")
#: Job ids an unfinished-jobs message names.
_SHOWN_IDS = 5


def evaluate(
    schedule: Schedule,
    metrics: Iterable[Metric | str],
    *,
    window: Window,
    cluster: Cluster | None = None,
    workload: Workload | None = None,
    queues: Iterable[str] = (),
    unfinished: str = "error",
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
    unfinished : {"error", "warn"}
        Every job submitted in the window is followed to its finish, even past the
        window's end. A job that never finished would otherwise be silently left out
        of QS_AJR and the others and make the schedule look better, so by default
        (``"error"``, for predicted schedules) `UnfinishedJobsError` is raised. Only
        an observed schedule whose jobs were still running when the trace ended may
        pass ``"warn"``: those jobs are then left out of J (QS_ATTAIN counts due
        ones as misses) with a warning naming how many.

    Returns
    -------
    DataFrame
        Index ``queue`` (full paths: root, parents, leaves, depth first), float
        columns; NaN where a queue has nothing to measure. Parent queues aggregate
        their subtree, ``root`` the whole cluster.

    Raises
    ------
    UnfinishedJobsError
        With ``unfinished="error"``, if a job submitted in the window never finished.
    """
    if not isinstance(window, Window):
        raise ValidationError(f"evaluate window: expected a Window, got {type(window).__name__}")
    check_choice(unfinished, UNFINISHED, field="evaluate unfinished")
    wanted = list(dict.fromkeys(m if isinstance(m, Metric) else Metric(m) for m in metrics))
    if not wanted:
        raise ValidationError("evaluate metrics: expected at least one metric, got none")
    tree = QueueTree.from_paths([*schedule.jobs["queue"].unique().tolist(), *queues])
    sources = {str(m.param("deadline")) for m in wanted if m.spec.needs_deadlines}
    deadlines = {s: job_deadlines(schedule, workload, s) for s in sorted(sources)}
    scopes = {window: Scope(schedule, window, tree, cluster, deadlines)}
    _check_finished(scopes[window], unfinished)
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


def unfinished_jobs(schedule: Schedule, window: Window | None = None) -> pd.DataFrame:
    """The rows of ``schedule.jobs`` submitted in `window` (any time when None) with no finish.

    Still running or pending when an observed trace ends, or cut off in a prediction.
    """
    jobs = schedule.jobs
    keep = np.isnan(job_finish(jobs))
    if window is not None:
        submit = jobs["submit_s"].to_numpy(dtype=float)
        keep &= (submit >= window.start_s) & (submit < window.end_s)
    result: pd.DataFrame = jobs[keep]
    return result


def unfinished_message(jobs: pd.DataFrame, window: Window | None = None) -> str:
    """``3 jobs submitted in [0, 100) s (root.b: 2, root.a: 1; e.g. j4, j7, j9)``."""
    per_queue = jobs["queue"].value_counts(sort=True)
    queues = ", ".join(f"{q}: {n}" for q, n in per_queue.items())
    ids = jobs["job_id"].astype(str).tolist()
    shown = ", ".join(ids[:_SHOWN_IDS]) + (
        f" and {len(ids) - _SHOWN_IDS} more" if len(ids) > _SHOWN_IDS else ""
    )
    where = f" submitted in [{window.start_s:g}, {window.end_s:g}) s" if window is not None else ""
    return f"{len(ids)} job{'s' if len(ids) != 1 else ''}{where} ({queues}; e.g. {shown})"


def require_finished(schedule: Schedule, window: Window | None = None, *, what: str = "") -> None:
    """Raise `UnfinishedJobsError` if a job of `schedule` submitted in `window` (any, when None)
    never finished; `what` (e.g. ``"predicted schedule"``) opens the message."""
    jobs = unfinished_jobs(schedule, window)
    if len(jobs):
        raise _unfinished_error(schedule, jobs, window, what)


def _unfinished_error(
    schedule: Schedule, jobs: pd.DataFrame, window: Window | None, what: str
) -> UnfinishedJobsError:
    """The error for `jobs`, quoting what the predictor found would keep them from finishing
    (`Schedule.never_placed`) for their queues, else asking whether a livelock did."""
    stuck = set(jobs["queue"].astype(str))
    causes = [str(cause) for cause in schedule.never_placed if cause.queue in stuck]
    why = (
        "; ".join(causes)
        if causes
        else "a preemption livelock, or a container that can never be placed?"
    )
    return UnfinishedJobsError(
        f"{what + ': ' if what else ''}{unfinished_message(jobs, window)} never finished, so "
        f"nothing is summarized over them: leaving them out would make the schedule look better "
        f"({why})",
        count=len(jobs),
        job_ids=tuple(jobs["job_id"].astype(str)[:_SHOWN_IDS]),
        queues=tuple((str(q), int(n)) for q, n in jobs["queue"].value_counts(sort=True).items()),
    )


def _check_finished(scope: Scope, unfinished: str) -> None:
    """Raise `UnfinishedJobsError`, or warn (`unfinished="warn"`), if a job of the window never finished."""
    stuck = scope.unfinished
    if not stuck.any():
        return
    jobs = scope.schedule.jobs[stuck]
    if unfinished == "warn":
        logger.warning(
            "%s %s still running when the schedule ends: left out of the QS over finished "
            "jobs (QS_AJR, QS_PCT, QS_SLOWDOWN, QS_DL, QS_THR), counted as misses by QS_ATTAIN",
            unfinished_message(jobs, scope.window),
            "was" if len(jobs) == 1 else "were",
        )
        return
    raise _unfinished_error(scope.schedule, jobs, scope.window, "")
