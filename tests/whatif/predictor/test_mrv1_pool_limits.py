"""A Hadoop 1 pool's job limit is maxRunningJobs, as Hadoop 1 reads it; maxRunningApps in a pool is not.

Resolution (`whatif.allocation.resolve._resolve_mrv1`) turns ``maxRunningJobs`` into
the effective job limit the predictor enforces, so a gain predicted from it happens
on the cluster, and leaves a YARN ``maxRunningApps`` in a ``<pool>`` unread.
"""

from __future__ import annotations

from predictor_cases import build_workload
from samples import allocation_file

from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.predictor import SchedulerSettings, predict

CLUSTER = Cluster.parse("map-slots=4,reduce-slots=2")
# job limits, not timing: no heartbeats, no setup and cleanup tasks
SETTINGS = SchedulerSettings(hadoop_version=1, heartbeats=False, setup_cleanup_s=0.0)

FILE = allocation_file("pool", {"jobs": {"maxRunningJobs": 1}, "apps": {"maxRunningApps": 1}})


def three_jobs(queue: str):
    """Three one-map jobs of 100 s submitted together: 4 map slots could run them at once."""
    return [(f"{queue}_{i}", queue, 0.0, [("map", 100.0, 1024.0)]) for i in range(3)]


def finishes(queue: str) -> list[float]:
    allocation = effective_allocation(AllocationDocument.from_bytes(FILE), hadoop_version=1)
    workload = build_workload(three_jobs(queue))
    schedule = predict(workload, allocation, CLUSTER, settings=SETTINGS, engine="reference")
    return sorted(schedule.jobs["finish_s"].tolist())


def test_max_running_jobs_is_the_pool_job_limit():
    """maxRunningJobs=1: the three jobs run one after another (finish at 100, 200, 300 s)."""
    allocation = effective_allocation(AllocationDocument.from_bytes(FILE), hadoop_version=1)
    assert allocation.queue("root.jobs").max_running_apps == 1
    assert finishes("jobs") == [100.0, 200.0, 300.0]


def test_max_running_apps_in_a_pool_is_not_read_by_hadoop_1():
    """maxRunningApps in a <pool>: no limit under Hadoop 1, so all three finish at 100 s."""
    allocation = effective_allocation(AllocationDocument.from_bytes(FILE), hadoop_version=1)
    assert allocation.queue("root.apps").max_running_apps is None
    assert finishes("apps") == [100.0, 100.0, 100.0]
