"""Shared fixtures of the tempo tests: a small observed two-queue trace and its templates."""

import math

import pandas as pd
import pytest
from emulated import FakeTime

from whatif import Cluster, Schedule, Workload

CLUSTER = Cluster(memory_mb=1000, vcores=10)
TEMPLATES = """
QUEUE root.prod CONSTRAINT QS_DL(slack=25%) <= 0%;
QUEUE root.engineer OPTIMIZE QS_AJR; CONSTRAINT QS_AJR < 1 min AND QS_UTIL < -10%;
QUEUE root.idle OPTIMIZE QS_THR;
"""


def _make_trace(engineer_finish: float = 50.0) -> tuple[Workload, Schedule]:
    """prod p1 runs [0, 40] due 32, p2 [10, 90] due 20; engineer e1 [0, engineer_finish] on 20% of the cluster."""
    jobs = pd.DataFrame(
        {
            "job_id": ["p1", "p2", "e1"],
            "queue": ["root.prod", "root.prod", "root.engineer"],
            "submit_s": [0.0, 10.0, 0.0],
            "launch_s": [0.0, 10.0, 0.0],
            "finish_s": [40.0, 90.0, engineer_finish],
        }
    )
    # a job a map attempt, from the job's launch to its finish
    attempts = jobs[["job_id"]].assign(
        task_id=["t1", "t2", "t3"],
        attempt_id=["a1", "a2", "a3"],
        stage="map",
        start_s=jobs["launch_s"],
        finish_s=jobs["finish_s"],
        memory_mb=[100.0, 100.0, 200.0],
        vcores=1.0,
    )
    workload = Workload(
        jobs=jobs[["job_id", "queue", "submit_s"]].assign(deadline_s=[32.0, 20.0, math.nan]),
        tasks=pd.DataFrame(
            {
                "job_id": ["p1", "p2", "e1"],
                "task_id": ["t1", "t2", "t3"],
                "stage": ["map"] * 3,
                "duration_s": [40.0, 80.0, 50.0],
                "memory_mb": [100.0, 100.0, 200.0],
                "vcores": [1.0] * 3,
            }
        ),
    )
    return workload, Schedule(jobs, attempts)


@pytest.fixture
def make_trace():
    """A factory of (workload, observed schedule) for root.prod and root.engineer."""
    return _make_trace


@pytest.fixture
def qs_templates_text():
    """Templates for the trace of `make_trace`, and an idle queue."""
    return TEMPLATES


@pytest.fixture
def small_cluster():
    """1000 MB and 10 vcores."""
    return CLUSTER


@pytest.fixture
def fake_time() -> FakeTime:
    """An injected ``sleep`` that records its delays and advances an injected ``clock``."""
    return FakeTime()
