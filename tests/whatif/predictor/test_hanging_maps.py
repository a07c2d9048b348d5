"""The MapReduce AM's unconditional reduce preemption (Hadoop 2.7.3, 2.8+, MAPREDUCE-6302;
``kernel/phases.py``): once a map request has waited
``mapreduce.job.reducer.unconditional-preempt.delay.sec`` (300 s) with no map running,
the AM kills reduces whatever headroom the RM reports. By hand on both engines, and on a
contended workload of mixed container sizes that node reservations deadlock without it.
Also by hand: the headroom the Fair Scheduler reports (FSAppAttempt.getHeadroom) is
capped by the leaf queue's fair share minus its usage (memory under the fair policy,
memory and vcores under drf), so the AM's headroom rule kills reduces for a map while the
cluster still has room for it.
"""

from __future__ import annotations

import pytest
from conftest import build_workload, flat_tree
from samples import capacity_document

from whatif import Cluster, EffectiveAllocation, EffectiveQueue
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, predict
from whatif.predictor.capacity import capacity_allocation
from whatif.predictor.site import read_site

TWO_NODES = "nodes=2,memory-mb=3072,vcores=4"


#: Job j: three 2048 MB maps (10 s) and five 1024 MB reduces (5 s).
FRAGMENTING = [("map", 10.0, 2048.0)] * 3 + [("reduce", 5.0, 1024.0)] * 5


def attempts(jobs, allocation, engine, nodes=TWO_NODES, **settings):
    """(task, start, state) of each attempt of `jobs` (see `build_workload`) on `nodes`,
    in (start, task) order, job j's task ids without their ``j_``, and each job's finish
    by id: no setup or cleanup tasks and no node reservations, so that only the AM's
    rules are at work."""
    schedule = predict(
        build_workload(jobs),
        allocation,
        Cluster.parse(nodes),
        engine=engine,
        settings=SchedulerSettings(setup_cleanup_s=0.0, reservable_nodes=0.0, **settings),
    )
    a = schedule.attempts.sort_values(["start_s", "task_id"])
    got = list(zip(a["task_id"].str.removeprefix("j_"), a["start_s"], a["state"], strict=True))
    return got, dict(zip(schedule.jobs["job_id"], schedule.jobs["finish_s"], strict=True))


def fragmented(engine, **settings):
    """`attempts` and the finish of job j (`FRAGMENTING`) alone in queue a."""
    got, finish = attempts([("j", "a", 0.0, FRAGMENTING)], flat_tree(a={}), engine, **settings)
    return got, finish["j"]


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
    tasks = [("map", 10.0, 2048.0)] * 4 + [("reduce", 5.0, 1024.0)] * 5
    allocated = allocation(Cluster.parse(TWO_NODES))
    got, finish = attempts([("j", "a", 0.0, tasks)], allocated, engine, **settings)
    return got, finish["j"]


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


#: Five jobs, 44 tasks of 1024 to 4096 MB, on two nodes of 8 GB (Hadoop 3, preemption on),
#: in queues a, b and c.
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


def contended_finishes(engine, one_queue, **settings):
    """Each `CONTENDED` job's finish by id (NaN: never), in its queue, or with
    `one_queue` every job in queue a (the only queue)."""
    jobs = [(job, "a" if one_queue else queue, *rest) for job, queue, *rest in CONTENDED]
    schedule = predict(
        build_workload(jobs),
        flat_tree(a={}) if one_queue else flat_tree(a={}, b={}, c={}),
        Cluster.parse("nodes=2,memory-mb=8192,vcores=8"),
        engine=engine,
        settings=SchedulerSettings(setup_cleanup_s=0.0, preemption=True, **settings),
    )
    return dict(zip(schedule.jobs["job_id"], schedule.jobs["finish_s"], strict=True))


def stalled(finishes):
    return sorted(job for job, finish in finishes.items() if finish != finish)


def test_a_contended_mixed_size_workload_finishes_with_reservations(engine):
    """Every job in one queue, a, whose fair share is then the whole cluster: the headroom
    is the cluster's free room (reserved resources count as free) and the fair share
    cap never binds. Without the unconditional rule three jobs never finish, j1, j3 and
    j4: their seven started reduces (j4's four of 1024 MB, j3's one of 4096 MB, j1's two
    of 2048 MB) hold 12,288 MB; node 0's last 1024 MB is reserved for a 2048 MB map of
    j4, node 1's last 3072 MB for a 4096 MB reduce of j3. The headroom, 4096 MB, has room
    for a 2048 MB map, so the headroom rule neither withholds j3's reduce requests nor
    kills a reduce, and no map of the three ever gets a node. With the rule (Hadoop's
    defaults) every job finishes, and without reservations every job finishes even
    without it.

    In their own queues a, b and c the cap binds: the headroom rule sees no room for a
    map under a queue's fair share minus its usage and kills reduces by itself, so every
    job finishes without the unconditional rule too, at the same times as with it."""
    assert stalled(contended_finishes(engine, True)) == []
    assert stalled(contended_finishes(engine, True, reservable_nodes=0.0)) == []
    never = contended_finishes(engine, True, reducer_unconditional_preempt_delay_s=-1.0)
    assert stalled(never) == ["j1", "j3", "j4"]
    queued = contended_finishes(engine, False)
    assert stalled(queued) == []
    assert contended_finishes(engine, False, reducer_unconditional_preempt_delay_s=-1.0) == queued


def fair_share_capped(engine, k_queue="b", **a):
    """`attempts` and finishes of job j (`FRAGMENTING`) in queue a and job k, one 1024 MB
    map of 100 s, in `k_queue`, both at 0, under queues a (keyword arguments `a`) and b."""
    jobs = [("j", "a", 0.0, FRAGMENTING), ("k", k_queue, 0.0, [("map", 100.0, 1024.0)])]
    return attempts(jobs, flat_tree(a=a, b={}), engine)


def test_the_headroom_is_capped_by_the_queues_fair_share(engine):
    """The Fair Scheduler's headroom (FSAppAttempt.getHeadroom) is min(free in the cluster
    and under the queue's maximum, the leaf's instantaneous fair share minus its usage)
    in memory under the fair policy (FairSharePolicy.getHeadroom). Queues a and b, of
    weight 1, are both active while k runs: a's fair share is 3072 MB, half the cluster.
    Node 0 heartbeats at 0, 1, 2, ..., node 1 at 0.5, 1.5, ...; one container each:
    - 0: a and b use nothing, a goes first (by name): map_000 on node 0 (1024 MB left);
    - 0.5: b uses less: k_map_000 on node 1 (2048 left);
    - 1: map_001 (2048 MB) does not fit node 0; 1.5: map_001 on node 1 (full). a uses
      4096 MB, over its fair share: the scheduler gives free room whatever the share;
    - 10, 11.5: map_000 and map_001 end, reported at 11 and 12.5. At 11, 1 of 3 maps
      done >= slowstart 0.05: the reduces ask, ahead of the maps: reduce_003 at 11 and
      reduce_004 at 12 on node 0 (1024 left), reduce_005 at 12.5 on node 1 (1024 left);
    - 12.5: no map running, map_002 waiting. The cluster has 2048 MB free, room for it
      in an uncapped headroom, but a uses 3072 MB, its fair share: headroom min(2048,
      3072 - 3072) = 0. The AM withholds its reduce requests and kills its newest reduces
      until the headroom has room for a map (the predictor's count: docs/predictor.md):
      005 (headroom 1024), 004 (2048). Each node has 2048 MB free;
    - 13: map_002 on node 0 (full); every map is assigned, the reduces ask again, fresh
      first: 006 at 13.5 and 007 at 14.5 on node 1 (full);
    - 23: map_002 ends, reported at 24: the running reduces, waiting for it with their
      5 s past, end then; 005 at 24 on node 0, 004 at 24.5 on node 1 (its ended reduces
      reported), ending at 29 and 29.5; j finishes once 004's end is reported, at 30.5.
    """
    got, finish = fair_share_capped(engine)
    assert got == [
        ("map_000", 0.0, "SUCCEEDED"),
        ("k_map_000", 0.5, "SUCCEEDED"),
        ("map_001", 1.5, "SUCCEEDED"),
        ("reduce_003", 11.0, "SUCCEEDED"),
        ("reduce_004", 12.0, "KILLED"),
        ("reduce_005", 12.5, "KILLED"),
        ("map_002", 13.0, "SUCCEEDED"),
        ("reduce_006", 13.5, "SUCCEEDED"),
        ("reduce_007", 14.5, "SUCCEEDED"),
        ("reduce_005", 24.0, "SUCCEEDED"),
        ("reduce_004", 24.5, "SUCCEEDED"),
    ]
    assert finish == {"j": 30.5, "k": 101.5}


def test_the_cap_follows_the_fair_share(engine):
    """The same jobs with a's fair share larger (see the test above for the timeline).
    - a of weight 2: its fair share is 6144 x 2/3 = 4096 MB; at 12.5 the headroom is
      min(2048, 4096 - 3072) = 1024: the AM kills 005 alone (2048; Hadoop's
      preemptReducer would count 2, as it does when the headroom is 0). Node 0 has
      1024 MB free, node 1 2048: map_002 starts at 13.5 on node 1, 006 at 14 on node 0;
    - k in a too: b is idle, a's fair share is the whole cluster and its usage counts
      k's 1024 MB: at 12.5 the headroom is min(2048, 6144 - 4096) = 2048, room for the
      map, no kill. 13: reduce_006 on node 0; 1024 MB free: the AM withholds its reduce
      requests and kills 006 (2048 free, 1024 on each node: room in the headroom, on no
      node). map_002 waits for k to end (100.5, reported 101.5 on node 1), 007 starts at
      102 on node 0; map_002 ends at 111.5, reported at 112.5: the reduces end, 006 starts
      on node 1 and ends at 117.5; j finishes at 118.5 instead of 30.5."""
    got, _ = fair_share_capped(engine, weight=2.0)
    assert [(t, s) for t, s, state in got if state == "KILLED"] == [("reduce_005", 12.5)]
    assert ("map_002", 13.5, "SUCCEEDED") in got and ("reduce_006", 14.0, "SUCCEEDED") in got
    got, finish = fair_share_capped(engine, k_queue="a")
    assert got == [
        ("map_000", 0.0, "SUCCEEDED"),
        ("k_map_000", 0.5, "SUCCEEDED"),
        ("map_001", 1.5, "SUCCEEDED"),
        ("reduce_003", 11.0, "SUCCEEDED"),
        ("reduce_004", 12.0, "SUCCEEDED"),
        ("reduce_005", 12.5, "SUCCEEDED"),
        ("reduce_006", 13.0, "KILLED"),
        ("map_002", 101.5, "SUCCEEDED"),
        ("reduce_007", 102.0, "SUCCEEDED"),
        ("reduce_006", 112.5, "SUCCEEDED"),
    ]
    assert finish == {"j": 118.5, "k": 101.5}


def test_drf_caps_the_headroom_in_vcores_too(engine):
    """DominantResourceFairnessPolicy.getHeadroom caps each resource, FairSharePolicy's
    memory alone. Two nodes of 6144 MB and 4 vcores; root, a and b under drf (a drf leaf
    needs a drf parent), both active while k runs: a's fair share is 6144 MB and 4
    vcores. Job j in a: three maps of 1024 MB and 3 vcores (10 s), five reduces of
    1024 MB and 1 vcore (5 s); job k in b, one map of 1024 MB and 1 vcore (100 s).
    Heartbeats as in the tests above:
    - 0: map_000 on node 0 (1 vcore left); 0.5: b's dominant share, 0, is below a's,
      3/8: k_map_000 on node 1 (3 left); 1: map_001 does not fit node 0; 1.5: map_001
      on node 1 (none left);
    - 11 (map_000's end reported): the reduces ask, ahead of the maps: reduce_003 at 11
      and 004 at 12 on node 0 (2 vcores left), 005 at 12.5 on node 1 (map_001's end
      reported; 2 left);
    - 12.5: no map running, map_002 waiting; 9216 MB and 4 vcores free in the cluster
      (room for it; on no node). a uses 3072 MB and 3 vcores: the memory cap, 6144 -
      3072, has room, the vcores cap, 4 - 3 = 1, not: the AM withholds its reduce
      requests and kills 005, then 004 (2, then 3 vcores under the cap);
    - 13: map_002 on node 0 (none left); the reduces ask again, fresh first: 006 at 13.5,
      007 at 14.5 and 005 at 15.5 on node 1 (none left);
    - 23: map_002 ends, reported at 24: the running reduces end then; 004 at 24 on
      node 0, ending at 29, reported at 30: j finishes.
    Under the fair policy the vcores are not capped: at 12.5 the headroom has room, no
    kill; reduce_006 starts at 13 on node 0, 007 at 13.5 on node 1, and with 2 vcores
    free in the cluster the AM withholds and kills 007 (3 free: room in the headroom, on
    no node): map_002 waits for k's end (100.5, reported at 101.5 on node 1), 007 starts
    again at 102 on node 0; map_002 ends at 111.5, reported at 112.5, when the reduces
    end: j finishes once node 1 reports them, at 113.5."""
    j = [("map", 10.0, 1024.0, {"vcores": 3.0})] * 3 + [("reduce", 5.0, 1024.0)] * 5
    jobs = [("j", "a", 0.0, j), ("k", "b", 0.0, [("map", 100.0, 1024.0)])]

    def under(policy):
        queues = tuple(EffectiveQueue(n, scheduling_policy=policy) for n in ("root.a", "root.b"))
        tree = EffectiveAllocation(
            EffectiveQueue("root", children=queues, scheduling_policy=policy)
        )
        return attempts(jobs, tree, engine, "nodes=2,memory-mb=6144,vcores=4")

    got, finish = under("drf")
    assert got == [
        ("map_000", 0.0, "SUCCEEDED"),
        ("k_map_000", 0.5, "SUCCEEDED"),
        ("map_001", 1.5, "SUCCEEDED"),
        ("reduce_003", 11.0, "SUCCEEDED"),
        ("reduce_004", 12.0, "KILLED"),
        ("reduce_005", 12.5, "KILLED"),
        ("map_002", 13.0, "SUCCEEDED"),
        ("reduce_006", 13.5, "SUCCEEDED"),
        ("reduce_007", 14.5, "SUCCEEDED"),
        ("reduce_005", 15.5, "SUCCEEDED"),
        ("reduce_004", 24.0, "SUCCEEDED"),
    ]
    assert finish == {"j": 30.0, "k": 101.5}
    got, finish = under("fair")
    assert got == [
        ("map_000", 0.0, "SUCCEEDED"),
        ("k_map_000", 0.5, "SUCCEEDED"),
        ("map_001", 1.5, "SUCCEEDED"),
        ("reduce_003", 11.0, "SUCCEEDED"),
        ("reduce_004", 12.0, "SUCCEEDED"),
        ("reduce_005", 12.5, "SUCCEEDED"),
        ("reduce_006", 13.0, "SUCCEEDED"),
        ("reduce_007", 13.5, "KILLED"),
        ("map_002", 101.5, "SUCCEEDED"),
        ("reduce_007", 102.0, "SUCCEEDED"),
    ]
    assert finish == {"j": 113.5, "k": 101.5}


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
