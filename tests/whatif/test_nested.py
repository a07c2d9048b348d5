"""Nested scenario workloads (whatif.nested): scenarios differ only by their factors."""

import pytest
from samples import REPO

from whatif.forecast import job_sizes
from whatif.nested import nested_workloads
from whatif.readers import read_trace
from whatif.workload_model import WorkloadModel


@pytest.fixture(scope="module")
def model():
    return WorkloadModel().fit(read_trace(REPO / "traces" / "two-tenant").workload)


def _work(workload, queue):
    mine = (workload.jobs["queue"] == queue).to_numpy()
    return job_sizes(workload)[mine].sum(), int(mine.sum())


def test_larger_factors_hold_every_job_and_task_of_smaller_ones(model):
    """now <= median <= upper factors: each workload's jobs and tasks are in the next, none
    shorter; work and job counts scale by the factors (within sampling noise)."""
    factors = [
        {},
        {"root.engineer": (1.3, 1.5)},
        {"root.engineer": (1.8, 2.0), "root.prod": (1.2, 1.0)},
    ]
    now, median, upper = nested_workloads(model, factors, hours=24, seed=1)
    for small, large in ((now, median), (median, upper)):
        assert set(small.jobs["job_id"]) <= set(large.jobs["job_id"])
        assert set(small.tasks["task_id"]) <= set(large.tasks["task_id"])
        durations = large.tasks.set_index("task_id")["duration_s"]
        shared = small.tasks.set_index("task_id")["duration_s"]
        assert (durations.loc[shared.index].to_numpy() >= shared.to_numpy() - 1e-9).all()
    (w0, n0), (w1, n1), (w2, n2) = (_work(w, "root.engineer") for w in (now, median, upper))
    assert n1 / n0 == pytest.approx(1.5, rel=0.05) and n2 / n0 == pytest.approx(2.0, rel=0.05)
    assert w1 / w0 == pytest.approx(1.3 * 1.5, rel=0.1) and w2 / w0 == pytest.approx(3.6, rel=0.1)
    assert _work(median, "root.prod") == _work(now, "root.prod")
    assert _work(upper, "root.prod")[0] / _work(now, "root.prod")[0] == pytest.approx(1.2, rel=0.05)
