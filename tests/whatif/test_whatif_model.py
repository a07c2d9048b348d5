"""The What-if Model: QS of candidate configurations, the same on every executor."""

import pickle

import distributed
import numpy as np
import pandas as pd
import pytest
from samples import map_workload

from whatif import (
    Cluster,
    EffectiveAllocation,
    EffectiveQueue,
    UnfinishedJobsError,
    ValidationError,
    Workload,
)
from whatif.executors import DaskExecutor, ProcessPoolExecutor, SerialExecutor
from whatif.metrics import Metric, Window
from whatif.predictor import NoiseModel
from whatif.whatif_model import QSEstimate, WhatifModel, qs_values

CLUSTER = Cluster.parse("memory-mb=4096,vcores=4")
QS = [("root.a", Metric("QS_AJR")), ("root.b", Metric("QS_AJR")), ("root", Metric("QS_THR"))]


def _workload() -> Workload:
    """Queue a and b each submit three 4-task jobs at t=0, 1, 2 (1 GB, 1 vcore, 10 s tasks)."""
    jobs = pd.DataFrame(
        {
            "job_id": [f"{q}{i}" for q in "ab" for i in range(3)],
            "queue": [f"root.{q}" for q in "ab" for _ in range(3)],
            "submit_s": [float(i) for _ in "ab" for i in range(3)],
        }
    )
    return map_workload(jobs, 4, 10.0)


def _allocation(weight_a: float = 1.0, **queue_a: float) -> EffectiveAllocation:
    """Queues a (weight `weight_a` and settings `queue_a`) and b (the defaults) under root."""
    return EffectiveAllocation(
        root=EffectiveQueue(
            "root",
            children=(
                EffectiveQueue("root.a", weight=weight_a, **queue_a),
                EffectiveQueue("root.b"),
            ),
        )
    )


def test_favouring_a_queue_lowers_its_response_time():
    """A higher weight for queue a predicts a lower AJR for a and a higher one for b."""
    model = WhatifModel(CLUSTER, QS, engine="reference")
    estimate = model.evaluate([_allocation(1.0), _allocation(9.0)], _workload())
    assert estimate.mean.shape == (2, 3) and estimate.labels[0] == "root.a:QS_AJR"
    assert estimate.mean[1, 0] < estimate.mean[0, 0]
    assert estimate.mean[1, 1] > estimate.mean[0, 1]
    assert (estimate.mean[:, 2] == -6).all()
    assert (estimate.spread == 0).all()


def test_noisy_replicates_have_spread_and_are_reproducible():
    """With noise, replicates differ; the same seed gives the same estimate."""
    noise = NoiseModel(jitter_cv=0.5)
    model = WhatifModel(CLUSTER, QS, replicates=3, noise=noise, seed=7, engine="reference")
    first = model.evaluate([_allocation(1.0)], _workload())
    again = model.evaluate([_allocation(1.0)], _workload())
    assert first.replicates.shape == (1, 3, 3)
    assert (first.spread[0, :2] > 0).all()
    np.testing.assert_array_equal(first.replicates, again.replicates)


def test_the_spread_of_a_qs_measured_once_is_nan_without_a_warning(recwarn):
    """A QS that only some replicates measure (NaN in the others) has the sample
    standard deviation of those that did: NaN where fewer than two did, and no numpy
    "Degrees of freedom" warning on the operator's terminal (it printed in `tempo
    optimize` on the six-tenant sample)."""
    replicates = np.array([[[1.0, 2.0, np.nan], [3.0, np.nan, np.nan], [5.0, np.nan, np.nan]]])
    estimate = QSEstimate(labels=("a", "b", "c"), replicates=replicates)
    np.testing.assert_array_equal(estimate.mean, [[3.0, 2.0, np.nan]])
    np.testing.assert_array_equal(estimate.spread, [[2.0, np.nan, np.nan]])
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.slow
def test_same_numbers_on_serial_pool_and_dask():
    """Serial, local-pool and Dask executors give identical estimates for the same seeds."""
    noise = NoiseModel(jitter_cv=0.3, straggler_probability=0.1)
    candidates = [_allocation(w) for w in (0.5, 1.0, 4.0)]

    def run(executor):
        model = WhatifModel(
            CLUSTER, QS, replicates=2, noise=noise, engine="reference", executor=executor
        )
        return model.evaluate(candidates, _workload()).replicates

    serial = run(SerialExecutor())
    with ProcessPoolExecutor(max_workers=2) as pool:
        np.testing.assert_array_equal(run(pool), serial)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        with DaskExecutor(cluster.scheduler_address) as dask_executor:
            np.testing.assert_array_equal(run(dask_executor), serial)


def test_fixed_window_counts_only_jobs_finished_inside_it():
    """An explicit window that ends early leaves out jobs that finish after it."""

    def throughput(window):
        model = WhatifModel(
            CLUSTER, [("root", Metric("QS_THR"))], window=window, engine="reference"
        )
        return model.evaluate([_allocation(1.0)], _workload()).mean[0, 0]

    # 24 ten-second tasks on 4 containers: the last job cannot finish before t=60.
    assert throughput(Window(0.0, 1000.0)) == -6
    assert throughput(Window(0.0, 50.0)) > -6


def test_fixed_window_follows_its_jobs_to_completion():
    """Response times of the jobs submitted in a window count in full, even finishing after it:
    the AJR over [0, 50) (every job submitted by t=2, the last finishing at 60) is the AJR over
    [0, 1000)."""

    def ajr(window):
        model = WhatifModel(
            CLUSTER, [("root", Metric("QS_AJR"))], window=window, engine="reference"
        )
        return model.evaluate([_allocation(1.0)], _workload()).mean[0, 0]

    assert ajr(Window(0.0, 50.0)) == ajr(Window(0.0, 1000.0))


def test_jobs_that_never_finish_fail_the_prediction():
    """Queue a's jobs never start under maxAMShare 0.1: the estimate of root.b alone is not
    silently returned; UnfinishedJobsError names the count, jobs and queue, and pickles (it
    comes back from worker processes and Dask). maxAMShare 0.1 of 4 GB holds no 1 GB AM."""
    workload = _workload()
    workload = Workload(
        jobs=workload.jobs.assign(am_memory_mb=1024.0, am_vcores=1.0), tasks=workload.tasks
    )
    model = WhatifModel(CLUSTER, [("root.b", Metric("QS_AJR"))], engine="reference")
    assert np.isfinite(model.evaluate([_allocation(max_am_share=0.5)], workload).mean).all()
    with pytest.raises(
        UnfinishedJobsError, match=r"^predicted schedule \(seed 0\): 3 jobs \(root\.a: 3"
    ) as caught:
        model.evaluate([_allocation(max_am_share=0.5), _allocation(max_am_share=0.1)], workload)
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.count, again.job_ids, again.queues) == (3, ("a0", "a1", "a2"), (("root.a", 3),))
    assert str(again) == str(caught.value)


def test_bad_arguments_are_named():
    """Invalid parameters and inputs raise errors naming the argument."""
    with pytest.raises(ValidationError, match="replicates: expected an int >= 1, got 0"):
        WhatifModel(CLUSTER, QS, replicates=0)
    with pytest.raises(ValidationError, match="qs: expected at least one"):
        WhatifModel(CLUSTER, [])
    with pytest.raises(ValidationError, match="engine: expected"):
        WhatifModel(CLUSTER, QS, engine="fast")
    with pytest.raises(ValidationError, match=r"allocations\[0\]: expected an EffectiveAllocation"):
        WhatifModel(CLUSTER, QS, engine="reference").evaluate(["x"], _workload())


def test_qs_values_reports_missing_rows_and_columns():
    """Reading a QS the table lacks is a clear error."""
    table = pd.DataFrame({"QS_AJR": [1.0]}, index=pd.Index(["root.a"], name="queue"))
    assert qs_values(table, [("a", Metric("QS_AJR"))]).tolist() == [1.0]
    with pytest.raises(ValidationError, match="no row for queue root.b"):
        qs_values(table, [("root.b", Metric("QS_AJR"))])
    with pytest.raises(ValidationError, match="no column QS_THR"):
        qs_values(table, [("root.a", Metric("QS_THR"))])
