"""The MapReduce AM's unconditional reduce preemption (Hadoop 2.7.3, 2.8+, MAPREDUCE-6302;
``kernel/phases.py``): once a map request has waited
``mapreduce.job.reducer.unconditional-preempt.delay.sec`` (300 s) with no map running,
the AM kills reduces whatever headroom the RM reports. By hand on both engines, and on a
contended workload of mixed container sizes that node reservations deadlock without it.
"""

from __future__ import annotations

import pytest
from conftest import build_workload, flat_tree
from samples import capacity_document

from whatif import Cluster
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, predict
from whatif.predictor.capacity import capacity_allocation
from whatif.predictor.site import read_site

TWO_NODES = "nodes=2,memory-mb=3072,vcores=4"


def fragmented(engine, **settings):
    """(task, start, state) of each attempt, in (start, task) order, and the job's finish:
    one job of three 2048 MB maps (10 s) and five 1024 MB reduces (5 s) on two nodes of
    3072 MB (no reservations, so that only the AM's rules are at work)."""
    return run_maps(engine, 3, lambda _cluster: flat_tree(a={}), **settings)


def test_hanging_maps_preempt_reduces_whatever_the_headroom(engine):
    """Node 0 heartbeats at 0, 1, 2, ..., node 1 at 0.5, 1.5, ...; one container each.
    - 0, 0.5: map_000 on node 0, map_001 on node 1; map_002 (2048 MB) fits neither;
    - 10, 10.5: they end (reported at 11 and 11.5); 1 of 3 done >= slowstart 0.05, so the
      reduces ask, ahead of the maps: 003 at 11 (node 0), 004 at 11.5 (node 1), 005 at
      12, 006 at 12.5, 007 at 13: 1024 MB free in the cluster, no map running, map_002
      waiting. The headroom rule: no room for a 2048 MB map, so the AM withholds its
      reduce requests and kills 007: 2048 MB free, 1024 on each node. The headroom has
      room for the map, no node has: without another rule the job never finishes;
    - 300: map_002, asked for at 0, has waited 300 s: the AM kills min(max(2 reduces for
      one map, ceil(0.5 x (2048 headroom + 4096 in reduces) / 1024) = 3), 2 for the one
      hanging map) = 2 of its newest reduces, 006 (node 1) and 005 (node 0). map_002
      starts at node 1's next heartbeat, 300.5; every map is assigned, so the reduces ask
      again: 007 at 301 and 006 at 302 on node 0, 005 on node 1 once map_002 has ended
      (at 310.5, reported at 311.5).
    """
    got, _ = fragmented(engine)
    assert got == [
        ("map_000", 0.0, "SUCCEEDED"),
        ("map_001", 0.5, "SUCCEEDED"),
        ("reduce_003", 11.0, "SUCCEEDED"),
        ("reduce_004", 11.5, "SUCCEEDED"),
        ("reduce_005", 12.0, "KILLED"),
        ("reduce_006", 12.5, "KILLED"),
        ("reduce_007", 13.0, "KILLED"),
        ("map_002", 300.5, "SUCCEEDED"),
        ("reduce_007", 301.0, "SUCCEEDED"),
        ("reduce_006", 302.0, "SUCCEEDED"),
        ("reduce_005", 311.5, "SUCCEEDED"),
    ]
    # the delay is the site's: 100 s, map_002 starts at 100.5
    got, _ = fragmented(engine, reducer_unconditional_preempt_delay_s=100.0)
    assert ("map_002", 100.5, "SUCCEEDED") in got
    # off (Hadoop 2.7.0-2.7.2: a negative delay): the job waits for map_002 forever
    got, finish = fragmented(engine, reducer_unconditional_preempt_delay_s=-1.0)
    assert [task for task, _, _ in got if task == "map_002"] == [] and finish != finish


def four_maps(engine, allocation, **settings):
    """(task, start, state) of each attempt, in (start, task) order, and the job's finish:
    one job of four 2048 MB maps (10 s) and five 1024 MB reduces (5 s) in queue a on
    two nodes of 3072 MB, under `allocation` (a function of the cluster)."""
    return run_maps(engine, 4, allocation, **settings)


def run_maps(engine, maps, allocation, **settings):
    """One job of `maps` 2048 MB maps (10 s) and five 1024 MB reduces (5 s) in queue a on
    two nodes of 3072 MB under `allocation(cluster)`, without reservations: each
    attempt's (task, start, state), in (start, task) order, and the job's finish."""
    cluster = Cluster.parse(TWO_NODES)
    tasks = [("map", 10.0, 2048.0)] * maps + [("reduce", 5.0, 1024.0)] * 5
    schedule = predict(
        build_workload([("j", "a", 0.0, tasks)]),
        allocation(cluster),
        cluster,
        engine=engine,
        settings=SchedulerSettings(setup_cleanup_s=0.0, reservable_nodes=0.0, **settings),
    )
    a = schedule.attempts.sort_values(["start_s", "task_id"])
    got = list(zip(a["task_id"].str.removeprefix("j_"), a["start_s"], a["state"], strict=True))
    return got, float(schedule.jobs["finish_s"].iloc[0])


def capacity_queue(cluster):
    """The Capacity Scheduler with one queue, a, at 100 %."""
    return capacity_allocation(
        capacity_document({"root.queues": "a", "root.a.capacity": 100}), cluster
    )


def test_hanging_maps_under_the_capacity_scheduler(engine):
    """The AM's rule does not ask which scheduler the RM runs. Heartbeats as above, one
    off-switch container each (offswitch-per-heartbeat-limit 1):
    - 0, 0.5: map_000 on node 0, map_001 on node 1; map_002 and map_003 fit neither;
    - 10, 10.5: they end (reported at 11, 11.5); the reduces ask, ahead of the maps:
      004 at 11 (node 0), 005 at 11.5, 006 at 12, 007 at 12.5, 008 at 13: 1024 MB free,
      no map running: the headroom rule withholds the reduce requests and kills 008
      (2048 MB free, 1024 on each node: room in the headroom, on no node);
    - 300: the maps have waited 300 s. Under the DefaultResourceCalculator the AM counts
      containers by memory alone (CapacityScheduler.getSchedulingResourceTypes): headroom
      min(2048 free, 6144 - 4096 under a's maximum, user limit 6144 - 4096) = 2048, resource
      limit 2048 + 4096 in reduces; it kills min(max(2 reduces for one map, 3 for half the
      limit), 4 for both maps) = 3 of its newest: 007, 006, 005;
    - 300.5: map_002 on node 1; 301: map_003 on node 0 (beside 004); every map assigned,
      the reduces ask again: 008 at 301.5 (node 1's last 1024 MB), 007 once map_002's end
      is reported (311.5), 006 at 312, 005 at 312.5.
    The Fair Scheduler reports vcores too: half of (4 free + 4 held) is 4 one-vcore
    reduces, so it kills all four running reduces at 300."""
    got, finish = four_maps(engine, capacity_queue)
    assert got == [
        ("map_000", 0.0, "SUCCEEDED"),
        ("map_001", 0.5, "SUCCEEDED"),
        ("reduce_004", 11.0, "SUCCEEDED"),
        ("reduce_005", 11.5, "KILLED"),
        ("reduce_006", 12.0, "KILLED"),
        ("reduce_007", 12.5, "KILLED"),
        ("reduce_008", 13.0, "KILLED"),
        ("map_002", 300.5, "SUCCEEDED"),
        ("map_003", 301.0, "SUCCEEDED"),
        ("reduce_008", 301.5, "SUCCEEDED"),
        ("reduce_007", 311.5, "SUCCEEDED"),
        ("reduce_006", 312.0, "SUCCEEDED"),
        ("reduce_005", 312.5, "SUCCEEDED"),
    ]
    assert finish == 318.5
    fair, _ = four_maps(engine, lambda cluster: flat_tree(a={}))
    assert [(t, s) for t, s, state in fair if state == "KILLED"][:4] == [
        ("reduce_004", 11.0),
        ("reduce_005", 11.5),
        ("reduce_006", 12.0),
        ("reduce_007", 12.5),
    ]
    # off: the job waits for its maps forever
    got, finish = four_maps(engine, capacity_queue, reducer_unconditional_preempt_delay_s=-1.0)
    assert [task for task, _, _ in got if task == "map_002"] == [] and finish != finish


#: Five jobs, 44 tasks of 1024 to 4096 MB, on two nodes of 8 GB (Hadoop 3, preemption on):
#: with node reservations and without the unconditional rule, three jobs never finish.
CONTENDED = [
    ("j0", "a", 17.0, [("map", d, 2048.0) for d in (25, 20)]
     + [("reduce", d, 1024.0) for d in (26, 30, 15, 17)]),
    ("j1", "b", 56.0, [("map", d, 2048.0) for d in (54, 24, 56, 46, 51, 44)]
     + [("reduce", d, 2048.0) for d in (21, 34, 35, 22)]),
    ("j2", "c", 11.0, [("map", d, 1024.0) for d in (52, 51, 33)]
     + [("reduce", d, 2048.0) for d in (26, 19)]),
    ("j3", "a", 26.0, [("map", d, 2048.0) for d in (55, 30, 20, 58, 44, 51)]
     + [("reduce", d, 4096.0) for d in (14, 34, 38, 16)]),
    ("j4", "b", 15.0, [("map", d, 2048.0) for d in (36, 59, 22, 35, 60, 52, 49, 52)]
     + [("reduce", d, 1024.0) for d in (19, 24, 33, 12, 37)]),
]  # fmt: skip


def contended_finishes(engine, **settings):
    schedule = predict(
        build_workload(CONTENDED),
        flat_tree(a={}, b={}, c={}),
        Cluster.parse("nodes=2,memory-mb=8192,vcores=8"),
        engine=engine,
        settings=SchedulerSettings(setup_cleanup_s=0.0, preemption=True, **settings),
    )
    return schedule.jobs["finish_s"].tolist()


def test_a_contended_mixed_size_workload_finishes_with_reservations(engine):
    """Nodes reserved for 2048 MB maps sit idle while other jobs' started reduces, waiting
    for maps that get no node, hold the rest; the headroom (which counts the reserved
    nodes' free resources) has room for a map, so only the unconditional rule frees the
    cluster. Every job finishes with Hadoop's defaults, and without reservations."""
    assert all(f == f for f in contended_finishes(engine))
    assert all(f == f for f in contended_finishes(engine, reservable_nodes=0.0))
    stalled = contended_finishes(engine, reducer_unconditional_preempt_delay_s=-1.0)
    assert sum(f != f for f in stalled) == 3


def test_setting_and_site_file(tmp_path):
    with pytest.raises(ValidationError, match="reducer_unconditional_preempt_delay_s"):
        SchedulerSettings(reducer_unconditional_preempt_delay_s=float("nan"))
    site = tmp_path / "mapred-site.xml"
    site.write_text(
        "<configuration>"
        "<property><name>mapreduce.job.reducer.unconditional-preempt.delay.sec</name>"
        "<value>60</value></property>"
        "</configuration>"
    )
    assert read_site(site, hadoop_version=3).settings.reducer_unconditional_preempt_delay_s == 60
