"""A queue whose maxResources is below its minResources: Hadoop 3's Fair Scheduler raises
its maximum to its minimum, resource by resource (FSQueue.getMaxShare: componentwiseMax,
with a warning in the RM's log), and uses that everywhere; Hadoop 2 keeps the maximum as
written. Both engines.
"""

from __future__ import annotations

import pytest
from predictor_cases import build_workload, flat_tree

from whatif import Cluster, ResourceLimit, Resources
from whatif.predictor import SchedulerSettings, predict

#: Four 1024 MB maps of 100 s: they all fit on the node at once.
FOUR_LONG_MAPS = [("j", "a", 0.0, [("map", 100.0, 1024.0)] * 4)]


def running_at_once(engine: str, hadoop_version: int) -> int:
    """How many of job j's maps start before the first one ends, in queue a with min 4096
    MB, max 2048 MB on one node of 8192 MB and 8 vcores."""
    allocation = flat_tree(
        a={
            "min_resources": Resources(4096, 4),
            "max_resources": ResourceLimit(absolute=Resources(2048, 8)),
        }
    )
    schedule = predict(
        build_workload(FOUR_LONG_MAPS),
        allocation,
        Cluster.parse("nodes=1,memory-mb=8192,vcores=8"),
        engine=engine,
        settings=SchedulerSettings(hadoop_version=hadoop_version, setup_cleanup_s=0.0),
    )
    starts = schedule.attempts["start_s"]
    return int((starts < schedule.attempts["finish_s"].min()).sum())


@pytest.mark.parametrize(("hadoop_version", "at_once"), [(3, 4), (2, 2)])
def test_hadoop_3_raises_a_maximum_below_the_minimum(engine, hadoop_version, at_once):
    """Hadoop 3: the maximum is max(2048, 4096) = 4096 MB, so all four maps run at once;
    Hadoop 2: 2048 MB, two at a time."""
    assert running_at_once(engine, hadoop_version) == at_once
