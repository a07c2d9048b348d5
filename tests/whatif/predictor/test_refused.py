"""Containers above their queue's maxContainerAllocation, which Hadoop refuses and the
predictor runs as asked, are named (`whatif.predictor.refused`)."""

from __future__ import annotations

import logging

from predictor_cases import build_workload

from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.predictor import SchedulerSettings, predict
from whatif.predictor.pack import pack
from whatif.predictor.refused import refused

CLUSTER = Cluster.parse("memory-mb=65536,vcores=64")
SETTINGS = SchedulerSettings(setup_cleanup_s=0.0)
FILE = b"""<?xml version="1.0"?>
<allocations>
  <queue name="p">
    <maxContainerAllocation>2048 mb, 2 vcores</maxContainerAllocation>
    <queue name="a"/>
    <queue name="b"><maxContainerAllocation>8192 mb, 8 vcores</maxContainerAllocation></queue>
  </queue>
  <queue name="c"/>
</allocations>
"""


def _refused(jobs, settings=SETTINGS):
    allocation = effective_allocation(AllocationDocument.from_bytes(FILE))
    packed, allocation = pack(build_workload(jobs), allocation, CLUSTER, settings)
    return refused(packed, allocation, settings)


def test_a_leaf_takes_its_parents_limit_and_its_own_wins():
    """root.p.a inherits root.p's 2048 MB (FSQueue.getMaximumContainerAllocation); root.p.b
    sets its own 8192 MB; root.c has none. Hadoop 2 has no such element."""
    jobs = [
        (f"j_{q}", f"root.{q}", 0.0, [("map", 10.0, 4096.0)], {"am_memory_mb": 1024.0})
        for q in ("p.a", "p.b", "c")
    ]
    assert _refused(jobs, SchedulerSettings(hadoop_version=2, setup_cleanup_s=0.0)) == ()
    assert _refused(jobs) == (
        "root.p.a: 1 job asks containers of up to 4096 MB and 1 vcores, above its "
        "maxContainerAllocation (2048 MB and 2 vcores): Hadoop refuses such a request (the "
        "MapReduce AM kills its job as it starts); the predictor runs them as asked",
    )


def test_a_request_normalized_above_the_limit_but_asked_below_it_is_not_named():
    """1500 MB asked under a 2000 MB limit is valid; both normalize to 2048 MB."""
    text = FILE.replace(b"2048 mb, 2 vcores", b"2000 mb, 2 vcores")
    allocation = effective_allocation(AllocationDocument.from_bytes(text))
    jobs = [("j", "root.p.a", 0.0, [("map", 10.0, 1500.0)])]
    packed, allocation = pack(build_workload(jobs), allocation, CLUSTER, SETTINGS)
    assert refused(packed, allocation, SETTINGS) == ()
    jobs = [("j", "root.p.a", 0.0, [("map", 10.0, 2049.0)])]
    assert len(_refused(jobs)) == 1


def test_a_prediction_warns_and_runs_the_jobs(caplog):
    jobs = [("j", "root.p.a", 0.0, [("map", 10.0, 3072.0)] * 2)]
    allocation = effective_allocation(AllocationDocument.from_bytes(FILE))
    with caplog.at_level(logging.WARNING, logger="whatif.predictor.simulation"):
        schedule = predict(build_workload(jobs), allocation, CLUSTER, settings=SETTINGS)
    assert schedule.jobs["finish_s"].tolist() == [10.0]
    assert "above its maxContainerAllocation (2048 MB and 2 vcores)" in caplog.text
