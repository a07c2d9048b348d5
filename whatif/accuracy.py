"""How close a predicted schedule is to the observed one: the paper's section 8.1 errors.

For the jobs of queue (tenant) i with predicted finish time p_j and observed finish
time l_j::

    RAE_i = sum_j |p_j - l_j| / sum_j |l_j - mean(l)|
    RSE_i = sqrt(sum_j (p_j - l_j)^2 / sum_j (l_j - mean(l))^2)

plus the mean absolute error and the mean signed error (bias, p - l: positive when
jobs are predicted to finish late) in seconds. Only jobs that finished in both schedules
count; a queue whose observed finish times are all equal has an undefined (NaN)
RAE and RSE.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from whatif.errors import ValidationError
from whatif.schedule import Schedule

#: Row label of the all-queues summary in `prediction_errors`.
ALL_QUEUES = "(all)"


def prediction_errors(predicted: Schedule, observed: Schedule) -> pd.DataFrame:
    """Per-queue RAE, RSE, mean absolute and mean signed error (s) of job finish times.

    Returns a table with columns ``queue``, ``jobs``, ``rae``, ``rse``, ``mae_s``,
    ``bias_s`` (mean of predicted minus observed: a consistent direction), one
    row per queue of the observed schedule (in first-submission order) and a last
    row ``(all)`` over every matched job. Queues are taken from the observed jobs.
    """
    for name, value in (("predicted", predicted), ("observed", observed)):
        if not isinstance(value, Schedule):
            raise ValidationError(
                f"prediction_errors {name}: expected a Schedule, got {type(value).__name__}"
            )
    obs = observed.jobs[["job_id", "queue", "finish_s"]].rename(columns={"finish_s": "observed_s"})
    pred = predicted.jobs[["job_id", "finish_s"]].rename(columns={"finish_s": "predicted_s"})
    both = obs.merge(pred, on="job_id", how="inner")
    both = both[both["observed_s"].notna() & both["predicted_s"].notna()]
    if both.empty:
        raise ValidationError(
            "prediction_errors: no job finished in both the predicted and the observed schedule"
        )
    rows = [_errors(str(q), group) for q, group in both.groupby("queue", sort=False)]
    rows.append(_errors(ALL_QUEUES, both))
    return pd.DataFrame(rows, columns=["queue", "jobs", "rae", "rse", "mae_s", "bias_s"])


def _errors(queue: str, group: pd.DataFrame) -> dict[str, object]:
    p = group["predicted_s"].to_numpy(dtype=float)
    obs = group["observed_s"].to_numpy(dtype=float)
    deviation = obs - obs.mean()
    spread_abs = np.abs(deviation).sum()
    spread_sq = (deviation**2).sum()
    err = p - obs
    return {
        "queue": queue,
        "jobs": len(group),
        "rae": float(np.abs(err).sum() / spread_abs) if spread_abs > 0 else float("nan"),
        "rse": float(np.sqrt((err**2).sum() / spread_sq)) if spread_sq > 0 else float("nan"),
        "mae_s": float(np.abs(err).mean()),
        "bias_s": float(err.mean()),
    }
