"""Simulations that cannot finish every job still end, and say which jobs never finished."""

from conftest import build_workload, flat_tree

from whatif import Cluster
from whatif.predictor import predict

AM = {"am_memory_mb": 1024.0, "am_vcores": 1.0}


def test_a_job_whose_next_task_never_fits_beside_its_am_stays_unfinished(engine):
    """A finished task of a job that can never finish keeps its one success; the job stays RUNNING."""
    tasks = [("map", 10, 1024), ("map", 10, 1024, {"vcores": 2.0})]
    workload = build_workload([("j", "a", 0, tasks, AM)])
    s = predict(workload, flat_tree(a={}), Cluster(memory_mb=4096.0, vcores=2.0), engine=engine)
    job = s.jobs.iloc[0]
    assert job["state"] == "RUNNING" and job["finish_s"] != job["finish_s"]
    a = s.attempts[~s.attempts["is_am"]]
    assert a["task_id"].tolist() == ["j_map_000"] and a["state"].tolist() == ["SUCCEEDED"]
