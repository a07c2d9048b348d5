"""Job-level QS metrics: response time, throughput, slowdown and deadlines.

Each function takes a `Scope` and the metric's parameters and returns one value
per queue of the scope's tree (NaN where the queue has no job to measure).
Lower is better for every one. J is the set of jobs of a queue (its subtree
included) submitted inside the window, each followed to its finish even when
that is after the window's end (`Scope.completed`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from whatif.metrics.scope import Scope

Params = Mapping[str, float | str]


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan
        )


def average_response(scope: Scope, params: Params) -> np.ndarray:
    """QS_AJR: mean of t_f - t_s over J, in seconds."""
    done = scope.completed
    return _ratio(scope.job_sum(np.nan_to_num(scope.response), done), scope.job_sum(1.0, done))


def throughput(scope: Scope, params: Params) -> np.ndarray:
    """QS_THR: minus the number of jobs of J that finished before the window's end."""
    return 0.0 - scope.job_sum(1.0, scope.finished_in_window)


def response_percentile(scope: Scope, params: Params) -> np.ndarray:
    """QS_PCT: the p quantile of t_f - t_s over J, in seconds (numpy's linear interpolation)."""
    return scope.job_quantile(scope.response, scope.completed, float(params["p"]))


def critical_path(scope: Scope) -> np.ndarray:
    """Each job's runtime on an idle cluster, as its schedule shows it, in seconds.

    The job's stages are taken in the order their last successful attempt
    finishes (a stage cannot finish before the stage it waits for, so this is
    the dependency order). Each stage adds its longest successful attempt,
    counting only the part that runs after the previous stage's last attempt
    finished: a reduce that started early (slowstart) and waited for the maps
    adds only the work it did after them. AM containers, failed and killed
    attempts, and attempt time outside the job's ``[t_s, t_f]`` are left out.

    The stages' counted parts are disjoint intervals inside ``[t_s, t_f]``, so
    the path never exceeds the response time (slowdown >= 1) whatever the
    schedule. Zero for a job with no successful task attempt.
    """
    attempts = scope.schedule.attempts
    n_jobs = scope.schedule.n_jobs
    job = scope.attempt_job
    start = np.fmax(scope.attempt_start, scope.submit[job])
    finish = np.fmin(attempts["finish_s"].to_numpy(dtype=float), scope.finish[job])
    useful = (attempts["state"] == "SUCCEEDED").to_numpy(dtype=bool)
    useful &= ~attempts["is_am"].to_numpy(dtype=bool) & (finish > start)
    stage, stages = pd.factorize(attempts["stage"])
    shape = (n_jobs, max(len(stages), 1))
    # Last finish of each (job, stage); -inf for a stage the job did not run.
    last = np.full(shape, -np.inf)
    np.maximum.at(last, (job[useful], stage[useful]), finish[useful])
    # Per job, stages sorted by last finish (ties by stage code); each one's
    # predecessor ends at the previous column of that order (-inf for the first).
    order = np.argsort(last, axis=1, kind="stable")
    ordered = np.take_along_axis(last, order, axis=1)
    before = np.empty(shape)
    np.put_along_axis(
        before, order, np.column_stack([np.full(n_jobs, -np.inf), ordered[:, :-1]]), axis=1
    )
    after = finish - np.fmax(start, before[job, stage])
    longest = np.zeros(shape)
    np.maximum.at(longest, (job[useful], stage[useful]), np.maximum(after[useful], 0.0))
    result: np.ndarray = longest.sum(axis=1)
    return result


def slowdown(scope: Scope, params: Params) -> np.ndarray:
    """QS_SLOWDOWN: mean over J of (t_f - t_s) / critical path; jobs with no task are left out."""
    path = critical_path(scope)
    measured = scope.completed & (path > 0)
    ratio = np.divide(scope.response, path, out=np.zeros_like(path), where=measured)
    return _ratio(scope.job_sum(ratio, measured), scope.job_sum(1.0, measured))


def _late(scope: Scope, deadlines: np.ndarray, slack: float) -> np.ndarray:
    """t_f > t_d + slack * (t_f - t_l): finished later than its deadline plus the slack."""
    finish = scope.finish
    with np.errstate(invalid="ignore"):
        result: np.ndarray = finish > deadlines + slack * (finish - scope.launch)
        return result


def deadline_misses(scope: Scope, params: Params) -> np.ndarray:
    """QS_DL: fraction of the jobs of J that have a deadline and finished late (with slack)."""
    deadlines = scope.deadlines(str(params["deadline"]))
    measured = scope.completed & np.isfinite(deadlines)
    late = _late(scope, deadlines, float(params["slack"])) & measured
    return _ratio(scope.job_sum(1.0, late), scope.job_sum(1.0, measured))


def deadline_attainment(scope: Scope, params: Params) -> np.ndarray:
    """QS_ATTAIN: minus the fraction of jobs due in the window that met their deadline.

    Due jobs: submitted in the window with a deadline before its end. A job met
    its deadline if it finished, at any time, and not late (with slack); unlike
    QS_DL, a due job that never finished (observed: still running when the trace
    ends) counts as a miss.
    """
    deadlines = scope.deadlines(str(params["deadline"]))
    with np.errstate(invalid="ignore"):
        due = scope.submitted & (deadlines < scope.window.end_s)
    met = due & scope.completed & ~_late(scope, deadlines, float(params["slack"]))
    return 0.0 - _ratio(scope.job_sum(1.0, met), scope.job_sum(1.0, due))
