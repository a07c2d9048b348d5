"""Prediction errors exactly as the paper's section 8.1 defines them, on hand-computed cases."""

import math

import pandas as pd
import pytest

from whatif import Schedule, ValidationError
from whatif.accuracy import ALL_QUEUES, prediction_errors


def _schedule(finish: dict[str, float], queues: dict[str, str]) -> Schedule:
    jobs = pd.DataFrame(
        {
            "job_id": list(finish),
            "queue": [queues[j] for j in finish],
            "submit_s": 0.0,
            "finish_s": list(finish.values()),
        }
    )
    empty = pd.DataFrame(columns=["job_id", "task_id", "attempt_id", "stage", "start_s"])
    return Schedule(jobs=jobs, attempts=empty)


QUEUES = {"a1": "root.a", "a2": "root.a", "a3": "root.a", "b1": "root.b"}


def test_rae_rse_and_mae_per_queue():
    """Observed a: 10, 20, 30 (mean 20); predicted 12, 20, 27: RAE 5/20, RSE sqrt(13/200), MAE 5/3."""
    observed = _schedule({"a1": 10, "a2": 20, "a3": 30, "b1": 50}, QUEUES)
    predicted = _schedule({"a1": 12, "a2": 20, "a3": 27, "b1": 55}, QUEUES)
    table = prediction_errors(predicted, observed).set_index("queue")
    assert table.at["root.a", "jobs"] == 3
    assert table.at["root.a", "rae"] == pytest.approx(5 / 20)
    assert table.at["root.a", "rse"] == pytest.approx(math.sqrt(13 / 200))
    assert table.at["root.a", "mae_s"] == pytest.approx(5 / 3)
    assert table.at["root.a", "bias_s"] == pytest.approx((2 + 0 - 3) / 3)  # signed: -1/3
    # A queue of one job has no spread: RAE and RSE are undefined, the MAE is not.
    assert math.isnan(table.at["root.b", "rae"]) and table.at["root.b", "mae_s"] == 5
    assert table.at["root.b", "bias_s"] == 5
    # All jobs: observed mean 27.5, spread |.| = 17.5+7.5+2.5+22.5 = 50; errors 2+0+3+5 = 10.
    assert table.at[ALL_QUEUES, "rae"] == pytest.approx(10 / 50)
    assert table.at[ALL_QUEUES, "bias_s"] == pytest.approx((2 + 0 - 3 + 5) / 4)


def test_only_jobs_finished_in_both_count_and_none_is_an_error():
    """Unfinished jobs are left out; with nothing in common the error says so."""
    observed = _schedule({"a1": 10, "a2": 20, "a3": float("nan")}, QUEUES)
    predicted = _schedule({"a1": 11, "a2": 19, "a3": 40}, QUEUES)
    assert prediction_errors(predicted, observed).set_index("queue").at["root.a", "jobs"] == 2
    with pytest.raises(ValidationError, match="no job finished in both"):
        prediction_errors(_schedule({"b1": 1.0}, QUEUES), observed)
    with pytest.raises(ValidationError, match="expected a Schedule"):
        prediction_errors("x", observed)
