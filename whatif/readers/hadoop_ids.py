"""Hadoop id arithmetic: which job a task, attempt or application belongs to.

Ids look like ``task_<cluster>_<job>_m_000001`` and
``attempt_<cluster>_<job>_m_000001_0``; the history server docs also use
``task_1326381300833_2_2_m_0``, so the job part is "everything between the prefix
and the last two (task) or three (attempt) fields".
"""

from __future__ import annotations

#: Task type letter in an id -> stage.
TASK_LETTERS = {"m": "map", "r": "reduce", "s": "setup", "c": "cleanup", "t": "cleanup"}


def job_of_task(task_id: str) -> str | None:
    """``task_X_Y_m_N`` -> ``job_X_Y``; None when `task_id` is not a task id."""
    parts = task_id.split("_")
    if len(parts) < 5 or parts[0] != "task" or parts[-2] not in TASK_LETTERS:
        return None
    return "job_" + "_".join(parts[1:-2])


def task_of_attempt(attempt_id: str) -> str | None:
    """``attempt_X_Y_m_N_K`` -> ``task_X_Y_m_N``; None when not an attempt id."""
    parts = attempt_id.split("_")
    if len(parts) < 6 or parts[0] != "attempt" or parts[-3] not in TASK_LETTERS:
        return None
    return "task_" + "_".join(parts[1:-1])


def attempt_number(attempt_id: str) -> int | None:
    """``attempt_X_Y_m_N_K`` -> ``K`` (0 for a task's first attempt); None when not an attempt id."""
    if task_of_attempt(attempt_id) is None:
        return None
    last = attempt_id.rsplit("_", 1)[-1]
    return int(last) if last.isdigit() else None


def job_of_attempt(attempt_id: str) -> str | None:
    """``attempt_X_Y_m_N_K`` -> ``job_X_Y``; None when not an attempt id."""
    task = task_of_attempt(attempt_id)
    return None if task is None else job_of_task(task)


def job_of_app_attempt(app_attempt_id: str) -> str | None:
    """``appattempt_X_Y_000001`` -> ``job_X_Y``; None when not an application attempt id."""
    parts = app_attempt_id.split("_")
    if len(parts) != 4 or parts[0] != "appattempt":
        return None
    return f"job_{parts[1]}_{parts[2]}"


def job_of_application(app_id: str) -> str | None:
    """``application_X_Y`` -> ``job_X_Y`` (the MapReduce job id of that application)."""
    parts = app_id.split("_")
    if len(parts) != 3 or parts[0] != "application":
        return None
    return f"job_{parts[1]}_{parts[2]}"
