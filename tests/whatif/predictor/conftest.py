"""Small workload and tree builders shared by the predictor tests."""

import pandas as pd
import pytest

from whatif import Cluster, EffectiveAllocation, EffectiveQueue, Workload


def build_workload(jobs):
    """jobs: (job_id, queue, submit_s, [(stage, duration_s, memory_mb), ...], extra job fields)."""
    job_rows, task_rows = [], []
    for job in jobs:
        job_id, queue, submit, tasks = job[:4]
        extra = job[4] if len(job) > 4 else {}
        job_rows.append({"job_id": job_id, "queue": queue, "submit_s": float(submit), **extra})
        for i, task in enumerate(tasks):
            stage, duration, memory = task[:3]
            more = task[3] if len(task) > 3 else {}
            task_rows.append(
                {
                    "job_id": job_id,
                    "task_id": f"{job_id}_{stage}_{i:03d}",
                    "stage": stage,
                    "duration_s": float(duration),
                    "memory_mb": float(memory),
                    "vcores": 1.0,
                    **more,
                }
            )
    return Workload(pd.DataFrame(job_rows), pd.DataFrame(task_rows))


def flat_tree(**queues):
    """root with one leaf per keyword (name -> EffectiveQueue keyword arguments)."""
    return EffectiveAllocation(
        root=EffectiveQueue(
            "root", children=tuple(EffectiveQueue(f"root.{n}", **kw) for n, kw in queues.items())
        )
    )


def containers(n, size_mb=1024):
    """A cluster of n one-vcore containers of size_mb."""
    return Cluster(memory_mb=float(n * size_mb), vcores=float(n))


@pytest.fixture(params=["numba", "reference"])
def engine(request):
    return request.param
