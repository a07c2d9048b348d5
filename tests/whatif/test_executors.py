"""Executors give the same results, in input order, whatever runs them."""

import distributed
import pytest

from whatif.errors import WhatifError
from whatif.executors import DaskExecutor, ProcessPoolExecutor, SerialExecutor, make_executor


def _square(x: int) -> int:
    return x * x


def _fail_on_three(x: int) -> int:
    if x == 3:
        raise ValueError("three")
    return x


def test_serial_and_pool_agree_in_order():
    """The serial and process-pool executors return the same list in input order."""
    items = list(range(20))
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert (
            pool.map(_square, items)
            == SerialExecutor().map(_square, items)
            == [i * i for i in items]
        )


def test_pool_propagates_the_evaluation_error():
    """An exception in one evaluation reaches the caller, not swallowed."""
    with ProcessPoolExecutor(max_workers=2) as pool, pytest.raises(ValueError, match="three"):
        pool.map(_fail_on_three, [1, 2, 3, 4])


def test_make_executor_specs():
    """CLI specs map to the right executor; nonsense is a clear error."""
    assert isinstance(make_executor(None), ProcessPoolExecutor)
    assert make_executor("local:3").max_workers == 3
    assert isinstance(make_executor("serial"), SerialExecutor)
    with pytest.raises(WhatifError, match="expected 'local'"):
        make_executor("spark://x")
    with pytest.raises(WhatifError, match="local:N"):
        make_executor("local:many")


@pytest.mark.slow
def test_dask_local_cluster_matches_serial():
    """A real dask LocalCluster gives the same results as the serial executor."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with DaskExecutor(cluster.scheduler_address) as dask_executor:
            assert dask_executor.map(_square, list(range(10))) == [i * i for i in range(10)]
        with make_executor("dask://" + cluster.scheduler_address.removeprefix("tcp://")) as again:
            assert again.map(_square, [7]) == [49]
