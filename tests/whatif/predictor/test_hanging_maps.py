"""The MapReduce AM's unconditional reduce preemption (Hadoop 2.7.3, 2.8+, MAPREDUCE-6302;
``kernel/phases.py``): once a map request has waited
``mapreduce.job.reducer.unconditional-preempt.delay.sec`` (300 s) with no map running,
the AM kills reduces whatever headroom the RM reports. By hand on both engines, in
memory alone under the Capacity Scheduler, and on a contended workload of mixed container
sizes that node reservations deadlocked without it before the AM's reduce ramp-up.
Also by hand: the headroom the Fair Scheduler reports (FSAppAttempt.getHeadroom) is
capped by the leaf queue's fair share minus its usage (memory under the fair policy,
memory and vcores under drf), so the AM's headroom rule kills reduces for a map while the
cluster still has room for it.
"""

from __future__ import annotations

import pytest
from predictor_cases import build_workload, flat_tree, mapred_site_settings, timeline
from samples import capacity_document, table

from whatif import Cluster, EffectiveAllocation, EffectiveQueue
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, predict
from whatif.predictor.capacity import capacity_allocation

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


#: Job j's attempts when its last map hangs until the unconditional rule kills two reduces
UNCONDITIONAL = timeline(
    """
    map_000       0.0  SUCCEEDED
    map_001       0.5  SUCCEEDED
    reduce_003   11.0  SUCCEEDED
    reduce_004   11.5  SUCCEEDED
    reduce_005   12.0  KILLED
    reduce_006   12.5  KILLED
    map_002     300.5  SUCCEEDED
    reduce_007  301.0  SUCCEEDED
    reduce_006  302.0  SUCCEEDED
    reduce_005  311.5  SUCCEEDED
    """
)


def test_hanging_maps_preempt_reduces_whatever_the_headroom(engine):
    """Node 0 heartbeats at 0, 1, 2, ..., node 1 at 0.5, 1.5, ...; one container each.
    - 0, 0.5: map_000 on node 0, map_001 on node 1; map_002 (2048 MB) fits neither;
    - 10, 10.5: they end (reported at 11 and 11.5). At 11, 1 of 3 done >= slowstart 0.05:
      the AM ramps its reduces up (scheduleReduces): its limit is the headroom (4096 MB,
      7 vcores) plus map_001's container, (6144, 8); the reduces' ideal share,
      floor(x min(1/3, 0.5)), is (2048, 2); the rest, (4096, 6), holds 2 maps >= the 2
      asked for or running, so the reduces get all but those: (2048, 6), 2 reduces. They
      go ahead of the maps: 003 at 11 (node 0), 004 at 11.5 (node 1). At 11.5 (2 of 3
      done: the share is 0.5) the limit is (4096 + 2048 in reduces, 8), the rest holds
      the one map asked for: the reduces get (4096, 7) less their 2048, 2 more: 005 at 12,
      006 at 12.5. Then (6144 - 2048 for map_002) - 4096 in reduces: no more, and 2048 MB
      stay free, 1024 on each node: the headroom has room for the map, no node has, so the
      headroom rule does nothing (before the ramp-up, 007 asked too at 13 and the rule
      killed it): without another rule the job never finishes;
    - 300: map_002, asked for at 0, has waited 300 s: the AM kills min(max(2 reduces for
      one map, ceil(0.5 x (2048 headroom + 4096 in reduces) / 1024) = 3), 2 for the one
      hanging map) = 2 of its newest reduces, 006 (node 1) and 005 (node 0). map_002
      starts at node 1's next heartbeat, 300.5; every map is assigned, so the AM asks for
      all its reduces: 007 at 301 and 006 at 302 on node 0, 005 on node 1 once map_002
      has ended (at 310.5, reported at 311.5).
    """
    got, _ = fragmented(engine)
    assert got == UNCONDITIONAL
    # the delay is the site's: 100 s, map_002 starts at 100.5
    got, _ = fragmented(engine, reducer_unconditional_preempt_delay_s=100.0)
    assert ("map_002", 100.5, "SUCCEEDED") in got
    # off (Hadoop 2.7.0-2.7.2: a negative delay): the job waits for map_002 forever
    got, finish = fragmented(engine, reducer_unconditional_preempt_delay_s=-1.0)
    assert [task for task, _, _ in got if task == "map_002"] == [] and finish != finish


#: `four_maps`' attempts with the ramp-up, under either scheduler
FOUR_MAPS_RAMPED = timeline(
    """
    map_000      0.0  SUCCEEDED
    map_001      0.5  SUCCEEDED
    reduce_004  11.0  SUCCEEDED
    map_002     11.5  SUCCEEDED
    reduce_005  12.0  SUCCEEDED
    reduce_006  12.5  SUCCEEDED
    map_003     22.5  SUCCEEDED
    reduce_007  23.0  SUCCEEDED
    reduce_008  33.5  SUCCEEDED
    """
)


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
    """The AM ramps its reduces up under either scheduler. Heartbeats as above, one
    off-switch container each (offswitch-per-heartbeat-limit 1); under the
    DefaultResourceCalculator the AM counts containers by memory alone:
    - 0, 0.5: map_000 on node 0, map_001 on node 1; map_002 and map_003 fit neither;
    - 11 (map_000's end reported, 1 of 4 done): headroom min(4096 free, 6144 - 2048 under
      a's maximum and its user limit) = 4096, limit 4096 + 2048 for map_001 = 6144; the
      reduces' ideal share floor(6144 x 0.25) = 1536; the rest, 4608, holds 2 maps < the 3
      asked for or running, so the reduces get 1536: one, 004 at 11 on node 0;
    - 11.5 (map_001's end reported, 2 of 4): map_002 on node 1 (no reduce asked). The
      limit, 3072 + 2048 + 1024 = 6144, x 0.5: 3072; the rest holds 1 map < 2: the
      reduces get 3072 less 1024 running, 2 more: 005 at 12 (node 0), 006 at 12.5 (node 1);
    - 22.5 (map_002's end reported): map_003 on node 1; every map is assigned, the AM asks
      for all its reduces: 007 at 23 on node 0; map_003 ends at 32.5, reported at 33.5:
      the reduces end, 008 on node 1, ending at 38.5, reported at 39.5.
    Before the ramp-up all five reduces asked at 11 and held the nodes until the
    unconditional rule killed three of them at 300. The Fair Scheduler counts vcores too,
    to the same numbers here."""
    got, finish = four_maps(engine, capacity_queue)
    expected = FOUR_MAPS_RAMPED
    assert got == expected and finish == 39.5
    fair, _ = four_maps(engine, lambda cluster: flat_tree(a={}))
    assert fair == expected


def test_the_capacity_schedulers_kill_count_is_in_memory_alone(engine):
    """Job j of `FRAGMENTING` whose maps ask for 4 vcores, alone in the Capacity
    Scheduler's queue a (100 %). Under the DefaultResourceCalculator the RM schedules by
    memory (the vcores fit anywhere), and the AM counts containers in the resource types
    the RM names, memory alone (CapacityScheduler.getSchedulingResourceTypes):
    - 0 to 12.5: as under the Fair Scheduler (`test_hanging_maps_preempt_reduces_whatever_
      the_headroom`), in memory: map_000, map_001, then four reduces, 003 to 006; map_002
      (2048 MB) fits no node, whose 1024 MB the headroom counts as room for it;
    - 300: map_002 has waited 300 s: the AM kills min(max(ceil(2048 / 1024) = 2 reduces
      for one map, ceil(floor(0.5 x (2048 + 4096)) / 1024) = 3), ceil(2048 x 1 / 1024) =
      2 for the one hanging map) = 2, 006 and 005. Counted in vcores too, one map would
      take ceil(4 / 1) = 4 reduces, and all four running reduces would be killed.
    Then as under the Fair Scheduler: map_002 at 300.5, the job ends at 317.5."""
    tasks = [("map", 10.0, 2048.0, {"vcores": 4.0})] * 3 + FRAGMENTING[3:]
    cluster = Cluster.parse(TWO_NODES)
    got, finish = attempts([("j", "a", 0.0, tasks)], capacity_queue(cluster), engine)
    assert got == UNCONDITIONAL
    assert finish["j"] == 317.5


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
    cap never binds. Before the AM's reduce ramp-up was modeled, three jobs never
    finished without the unconditional rule, j1, j3 and j4: their seven started reduces
    held 12,288 MB while reservations held the rest for their maps. The ramp-up asks for
    reduces only up to the room its maps leave, and every job finishes with the rule
    (Hadoop's defaults), without it, and without reservations.

    In their own queues a, b and c the cap binds: the headroom rule sees no room for a
    map under a queue's fair share minus its usage and kills reduces by itself, so every
    job finishes without the unconditional rule too, at the same times as with it."""
    assert stalled(contended_finishes(engine, True)) == []
    assert stalled(contended_finishes(engine, True, reservable_nodes=0.0)) == []
    never = contended_finishes(engine, True, reducer_unconditional_preempt_delay_s=-1.0)
    assert stalled(never) == []
    queued = contended_finishes(engine, False)
    assert stalled(queued) == []
    assert contended_finishes(engine, False, reducer_unconditional_preempt_delay_s=-1.0) == queued


def fair_share_capped(engine, k_queue="b", **a):
    """`attempts` and finishes of job j (`FRAGMENTING`) in queue a and job k, one 1024 MB
    map of 100 s, in `k_queue`, both at 0, under queues a (keyword arguments `a`) and b."""
    jobs = [("j", "a", 0.0, FRAGMENTING), ("k", k_queue, 0.0, [("map", 100.0, 1024.0)])]
    return attempts(jobs, flat_tree(a=a, b={}), engine)


#: `fair_share_capped`'s attempts whatever a's fair share (`test_the_cap_follows_the_fair_share`)
CAPPED = timeline(
    """
    map_000      0.0  SUCCEEDED
    k_map_000    0.5  SUCCEEDED
    map_001      1.5  SUCCEEDED
    reduce_003  11.0  SUCCEEDED
    map_002     12.0  SUCCEEDED
    reduce_004  12.5  SUCCEEDED
    reduce_005  13.5  SUCCEEDED
    reduce_006  23.0  SUCCEEDED
    reduce_007  23.5  SUCCEEDED
    """
)


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
    - 10: map_000 ends, reported at 11: 1 of 3 maps done >= slowstart 0.05, the AM ramps
      its reduces up. The headroom is min(3072 free, 3072 - 2048 for map_001) = 1024 MB
      (and 6 vcores, not capped), its limit (3072, 7) with map_001; the reduces' ideal
      share floor(x 1/3) = (1024, 2); the rest holds 1 map < the 2 asked for or running:
      the reduces get (1024, 2), one reduce: reduce_003 at 11 on node 0 (2048 left);
    - 12: map_002 on node 0 (full): every map is assigned, the AM asks for all its
      reduces: 004 at 12.5 on node 1 (map_001's end reported; 1024 left), 005 at 13.5;
    - 22: map_002 ends, reported at 23: the running reduces, waiting for it with their
      5 s past, end then; 006 at 23 on node 0, 007 at 23.5 on node 1 (its ended reduces
      reported), ending at 28 and 28.5; j finishes once 007's end is reported, at 29.5.
    Before the ramp-up the five reduces asked at 11 and the headroom rule killed two at
    12.5 (the cap left no room for a map); now no reduce waits on a node a map needs.
    """
    got, finish = fair_share_capped(engine)
    assert got == CAPPED
    assert finish == {"j": 29.5, "k": 101.5}


def test_the_cap_follows_the_fair_share(engine):
    """The same jobs with a's fair share larger (see the test above for the timeline): the
    ramp-up at 11 still asks for one reduce. a of weight 2: fair share 4096 MB, headroom
    min(3072, 4096 - 2048) = 2048, limit 4096, the reduces' ideal share floor(4096 / 3) =
    1365 MB, one reduce; k in a too (b idle): fair share 6144, usage 3072 with k's map,
    headroom 3072, limit 5120, share 1706 MB, one reduce. map_002 takes node 0 at 12 and
    the rest goes as above."""
    got, _ = fair_share_capped(engine, weight=2.0)
    assert got == CAPPED
    got, finish = fair_share_capped(engine, k_queue="a")
    assert got == CAPPED
    assert finish == {"j": 29.5, "k": 101.5}


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
    - 11 (map_000's end reported, 1 of 3 done): the AM ramps its reduces up. a uses
      1024 MB and 3 vcores: the headroom is min(10240 free, 6144 - 1024) = 5120 MB and
      min(4 free, 4 - 3) = 1 vcore; its limit (6144, 4) with map_001; the reduces' ideal
      share floor(x 1/3) = (2048, 1); the rest, (4096, 3), holds 1 map (3 vcores) < the 2
      asked for or running: the reduces get (2048, 1), one reduce: 003 at 11 on node 0;
    - 12: map_002 on node 0 (none left); every map is assigned, the AM asks for all its
      reduces: 004 at 12.5 (map_001's end reported), 005 at 13.5 and 006 at 14.5 on
      node 1 (none left);
    - 22: map_002 ends, reported at 23: the running reduces end then; 007 at 23 on
      node 0, ending at 28, reported at 29: j finishes.
    Under the fair policy the vcores are not capped: the headroom has 4 vcores, the
    limit (6144, 7), the ideal share (2048, 2), two reduces: 003 at 11 and 004 at 12 on
    node 0, which leaves map_002 too few vcores there; it starts at 12.5 on node 1
    (map_001's end reported), and every map is assigned: 005 at 13 and 006 at 14 on
    node 0, 007 at 23.5 on node 1 once map_002's end (22.5) is reported; it ends at
    28.5, reported at 29.5: j finishes."""
    j = [("map", 10.0, 1024.0, {"vcores": 3.0})] * 3 + [("reduce", 5.0, 1024.0)] * 5
    jobs = [("j", "a", 0.0, j), ("k", "b", 0.0, [("map", 100.0, 1024.0)])]

    def under(policy):
        queues = tuple(EffectiveQueue(n, scheduling_policy=policy) for n in ("root.a", "root.b"))
        tree = EffectiveAllocation(
            EffectiveQueue("root", children=queues, scheduling_policy=policy)
        )
        return attempts(jobs, tree, engine, "nodes=2,memory-mb=6144,vcores=4")

    got, finish = under("drf")
    assert got[:7] == CAPPED[:7]  # to 13.5 as with the cap in memory alone (CAPPED)
    assert got[7:] == timeline(
        """
        reduce_006  14.5  SUCCEEDED
        reduce_007  23.0  SUCCEEDED
        """
    )
    assert finish == {"j": 29.0, "k": 101.5}
    got, finish = under("fair")
    assert got == timeline(
        """
        map_000      0.0  SUCCEEDED
        k_map_000    0.5  SUCCEEDED
        map_001      1.5  SUCCEEDED
        reduce_003  11.0  SUCCEEDED
        reduce_004  12.0  SUCCEEDED
        map_002     12.5  SUCCEEDED
        reduce_005  13.0  SUCCEEDED
        reduce_006  14.0  SUCCEEDED
        reduce_007  23.5  SUCCEEDED
        """
    )
    assert finish == {"j": 29.5, "k": 101.5}


def test_setting_and_site_file(tmp_path):
    with pytest.raises(ValidationError, match="reducer_unconditional_preempt_delay_s"):
        SchedulerSettings(reducer_unconditional_preempt_delay_s=float("nan"))
    name = "mapreduce.job.reducer.unconditional-preempt.delay.sec"
    assert mapred_site_settings(tmp_path, name, 60).reducer_unconditional_preempt_delay_s == 60


#: Job j in queue a at 0: maps of 10, 20, 10, 10, 20 and 5 s, two reduces of 5 s; job k in
#: b at 10: four maps of 200 s; 1024 MB each.
HANGING = [
    ("j", "a", 0.0, [("map", d, 1024.0) for d in (10.0, 20.0, 10.0, 10.0, 20.0, 5.0)]
     + [("reduce", 5.0, 1024.0)] * 2),
    ("k", "b", 10.0, [("map", 200.0, 1024.0)] * 4),
]  # fmt: skip


def hanging_from_20(engine, **settings):
    """`attempts` of the `HANGING` jobs that start at 20 s or later, and the jobs' finishes:
    queues a (weight 1) and b (weight 2), one pool of 5 containers of 1024 MB, slowstart 0.5."""
    got, finish = attempts(
        HANGING,
        flat_tree(a={}, b={"weight": 2.0}),
        engine,
        "memory-mb=5120,vcores=5",
        slowstart_completed_maps=0.5,
        **settings,
    )
    return [row for row in got if row[1] >= 20.0], finish


def test_the_headroom_rule_kills_for_the_hanging_maps_and_no_more(engine):
    """The headroom rule's count is preemptReducer's (Hadoop 2.7.3+, 3.x), as the
    unconditional rule's: min(max(reduces for one map, reduces for half the AM's resource
    limit), reduces for every hanging map), not "until a map fits". One pool of 5
    containers of 1024 MB (no heartbeats), queues a (weight 1) and b (weight 2), slowstart
    0.5. Job j in a at 0: maps of 10, 20, 10, 10, 20 and 5 s, two reduces of 5 s; job k
    in b at 10: four maps of 200 s.
    - 0: j alone: map_000 to map_004 start; map_005 waits;
    - 10: map_000, 002 and 003 end. At the third, 3 of 6 are done: the AM releases its
      reduces and ramps them up: headroom min(3072 free, a's fair share, the cluster,
      less 2048 used) = 3072, limit 5120 with its two maps, ideal share floor(x 0.5) =
      2560; the rest holds 2 maps < the 3 asked for or running: 2 reduces. Then k
      arrives: a's fair share is 1706.7 MB, b's 3413.3; b uses less per weight and takes
      the 3 free containers (k's map_000 to 002);
    - 20: map_001 and 004 end; a uses nothing, b 1536 per weight: j's reduces go first,
      006 and 007 take both containers. map_005 waits with no map running: the headroom,
      min(0 free, 1706.7 - 2048), has no room for it, so the AM withholds its reduce
      requests and kills min(max(1, ceil(floor(0.5 x (0 + 2048)) / 1024) = 1), 1 for the
      one hanging map) = 1 reduce, its newest, 007. The freed container goes to a (1024
      per weight, below b's): map_005 at 20; every map is assigned, 007 is asked again;
    - 25: map_005 and 006 end: 007 on a's container (a uses nothing), k's map_003 on the
      other; 007 ends at 30: j finishes.
    Killing "until a map fits", as before, took 006 too: with 007 gone the headroom was
    min(1024, 1706.7 - 1024) = 682.7 MB, still short of a map."""
    got, finish = hanging_from_20(engine)
    assert got == timeline(
        """
        map_005     20.0  SUCCEEDED
        reduce_006  20.0  SUCCEEDED
        reduce_007  20.0  KILLED
        reduce_007  25.0  SUCCEEDED
        k_map_003   25.0  SUCCEEDED
        """
    )
    assert finish == {"j": 30.0, "k": 225.0}


def test_the_headroom_rule_waits_for_the_preempt_delay(engine):
    """mapreduce.job.reducer.preempt.delay.sec: the headroom rule kills reduces only for
    map requests that have waited longer than the delay (getNumHangingRequests). The jobs
    of `test_the_headroom_rule_kills_for_the_hanging_maps_and_no_more`, whose map_005 was
    asked for at 0 with its stage:
    - delay 15: at 20 it has waited 20 s: the rule kills 007 at once, as with 0;
    - delay 30: at 20 006 and 007 take a's two containers and nothing is killed; they
      wait for map_005, which no container is freed for: at 30 (a `HANG` event, nothing
      else happens then) the rule kills 007, map_005 takes its container at 30 and ends
      at 35, when 006 ends too: 007 again and k's map_003 at 35; j finishes at 40, k at
      235 (its map_003 ends 200 s later)."""

    def late(delay):
        return hanging_from_20(engine, reducer_preempt_delay_s=delay)

    assert late(15.0) == late(0.0)
    assert late(30.0) == (
        timeline(
            """
            reduce_006  20.0  SUCCEEDED
            reduce_007  20.0  KILLED
            map_005     30.0  SUCCEEDED
            reduce_007  35.0  SUCCEEDED
            k_map_003   35.0  SUCCEEDED
            """
        ),
        {"j": 40.0, "k": 235.0},
    )


def test_the_preempt_delay_is_read_from_mapred_site(tmp_path):
    name = "mapreduce.job.reducer.preempt.delay.sec"
    assert mapred_site_settings(tmp_path, name, 45).reducer_preempt_delay_s == 45
    with pytest.raises(ValidationError, match="reducer_preempt_delay_s"):
        SchedulerSettings(reducer_preempt_delay_s=float("inf"))


#: One job: two 3072 MB maps (15 s) and three 1024 MB reduces (2 s).
TWO_BIG_MAPS = [("map", 15.0, 3072.0)] * 2 + [("reduce", 2.0, 1024.0)] * 3


def test_hadoop_3_takes_the_asked_reduces_off_the_headroom(engine):
    """Hadoop 3 (2.8+, MAPREDUCE-6689) takes the reduces the AM asked for and has not been
    assigned (scheduledRequests.reduces) off the headroom before it asks whether a map
    fits; Hadoop 2.7 asks of the headroom itself. One node of 4096 MB heartbeating at 0,
    1, 2, ...; one container a heartbeat; reduces go ahead of maps; slowstart 0.5.
    - 0: map_000 (3072 MB); map_001 does not fit the 1024 MB left;
    - 15: map_000 ends, reported at 16: 1 of 2 maps done, the AM ramps its reduces up:
      the headroom is 4096 MB (a's fair share, the cluster, less nothing used), the limit
      4096, the reduces' share floor(x min(1/2, 0.5)) = 2048; the rest holds no 3072 MB
      map: two reduces asked; 002 takes the heartbeat's container. No map runs, map_001
      waits, 002 waits for it; the headroom, min(3072 free, 4096 - 1024), fits the map;
    - Hadoop 3: less 003, asked for and not assigned, it has 2048 MB, no room: the AM
      withholds its reduce requests and kills min(max(3 reduces for a map, 2 for half
      its limit 3072 + 1024), 3 for the one hanging map) = 3 of its waiting reduces:
      002 at 16. map_001 at 17; every map is assigned, the reduces are asked again: 003
      at 18, waiting for map_001 (ends at 32, reported at 33); 004 at 33 and 002 at 34
      (one a heartbeat), ending at 36: j finishes at 37;
    - Hadoop 2: nothing at 16; at 17 003 takes the heartbeat's container (ahead of the
      map): the headroom, 2048 MB, has no room for map_001: the AM kills 3 of its
      waiting reduces, both, 003 and 002 at 17. map_001 at 18, 004 at 19; 003 at 34,
      002 at 35: j finishes at 38, a second later, with one more reduce killed."""

    def under(version):
        got, finish = attempts(
            [("j", "a", 0.0, TWO_BIG_MAPS)],
            flat_tree(a={}),
            engine,
            "nodes=1,memory-mb=4096,vcores=8",
            slowstart_completed_maps=0.5,
            hadoop_version=version,
        )
        return got, finish["j"]

    assert under(3) == (
        timeline(
            """
            map_000      0.0  SUCCEEDED
            reduce_002  16.0  KILLED
            map_001     17.0  SUCCEEDED
            reduce_003  18.0  SUCCEEDED
            reduce_004  33.0  SUCCEEDED
            reduce_002  34.0  SUCCEEDED
            """
        ),
        37.0,
    )
    assert under(2) == (
        timeline(
            """
            map_000      0.0  SUCCEEDED
            reduce_002  16.0  KILLED
            reduce_003  17.0  KILLED
            map_001     18.0  SUCCEEDED
            reduce_004  19.0  SUCCEEDED
            reduce_003  34.0  SUCCEEDED
            reduce_002  35.0  SUCCEEDED
            """
        ),
        38.0,
    )


def test_the_am_preempts_reduces_at_its_allocate_call(engine):
    """The AM runs preemptReducesIfNeeded in its heartbeat (RMContainerAllocator.heartbeat),
    so a job with an allocate cycle kills reduces at its calls only. One node of 5120 MB
    heartbeating at 0, 1, 2, ...; job j's AM (1024 MB) is ready at 0.25 and calls at
    0.25, 1.25, ...; four 3072 MB maps (19 s), two 1024 MB reduces (10 s), slowstart 0:
    - 1: map_000 (1024 MB left); the ramp-up at 1.25 asks no reduce (no map completed);
    - 21: map_000's end (20.25) reported, map_001 in its room; the call at 21.25 ramps up
      with 1 of 4 maps done: limit 1024 free + 3072 used, the reduces' share 1024, the
      rest holds 1 map < the 3 asked or running: reduce_004, at 22 (the node is full);
    - 41: map_001's end reported, map_002 in its room; the call at 41.25 ramps up with 2
      of 4 done: limit 0 + 4096, share 2048, the rest holds no map < 2: 2048 less 004's
      1024: reduce_005 is asked for;
    - 61: map_002's end reported: reduce_005 goes ahead of map_003, which does not fit
      the 2048 MB left. No map runs, map_003 waits: the headroom, 2048 MB, has no room
      for it. At the AM's call at 61.25 (before: at once, at 61) it withholds its reduce
      requests and kills min(max(3 reduces for a map, 2 for half its limit 2048 + 2048),
      3 for the one hanging map): both waiting reduces;
    - 62: map_003; every map is assigned, the reduces are asked again: 005 at 63, 004 at
      82 (map_003's end reported), ending at 92.25, reported at 93."""
    tasks = [("map", 19.0, 3072.0)] * 4 + [("reduce", 10.0, 1024.0)] * 2
    for version in (2, 3):
        schedule = predict(
            build_workload([("j", "a", 0.0, tasks, {"am_memory_mb": 1024.0})]),
            flat_tree(a={}),
            Cluster.parse("nodes=1,memory-mb=5120,vcores=8"),
            engine=engine,
            settings=SchedulerSettings(
                am_start_latency_s=0.25,
                setup_cleanup_s=0.0,
                reservable_nodes=0.0,
                slowstart_completed_maps=0.0,
                hadoop_version=version,
            ),
        )
        a = schedule.attempts.sort_values(["start_s", "task_id"])
        got = list(zip(a["task_id"], a["start_s"], a["finish_s"], a["state"], strict=True))
        assert got == table(
            """
            j_am           0.0  93.0   SUCCEEDED
            j_map_000      1.0  20.25  SUCCEEDED
            j_map_001     21.0  40.25  SUCCEEDED
            j_reduce_004  22.0  61.25  KILLED
            j_map_002     41.0  60.25  SUCCEEDED
            j_reduce_005  61.0  61.25  KILLED
            j_map_003     62.0  81.25  SUCCEEDED
            j_reduce_005  63.0  82.0   SUCCEEDED
            j_reduce_004  82.0  92.25  SUCCEEDED
            """,
            str,
            float,
            float,
            str,
        ), version
        assert schedule.jobs["finish_s"].tolist() == [93.0]
