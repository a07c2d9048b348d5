"""The MapReduce AM's reduce ramp-up (RMContainerAllocator.scheduleReduces, Hadoop 2/3;
``kernel/phases.py`` `_ramp_job`): once slowstart is met and while maps are unassigned,
the AM asks for reduces only up to min(done maps / maps,
``mapreduce.job.reduce.rampup.limit``) of its resource limit (the headroom plus its
assigned containers), plus what its maps leave unused when the rest holds every map
asked for or running. By hand on both engines, and the setting with its site file.
"""

from __future__ import annotations

import pytest
from predictor_cases import build_workload, flat_tree, mapred_site_settings, timeline
from test_hanging_maps import FOUR_MAPS_RAMPED, four_maps

from whatif import Cluster
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, predict


def fair(cluster):
    return flat_tree(a={})


def test_the_ramp_up_holds_reduces_back_while_maps_wait(engine):
    """One job of four 2048 MB maps (10 s) and five 1024 MB reduces (5 s), 1 vcore each,
    on two nodes of 3072 MB and 4 vcores, alone in queue a (no AM container, no setup
    or cleanup, no reservations). Node 0 heartbeats at 0, 1, 2, ..., node 1 at 0.5, 1.5,
    ...; one container each; reduces go ahead of maps:
    - 0, 0.5: map_000 on node 0, map_001 on node 1; map_002 and map_003 fit neither;
    - 11 (map_000's end reported, 1 of 4 done >= slowstart 0.05): the headroom is
      (4096 MB, 7 vcores), the limit (6144, 8) with map_001's container; the reduces'
      ideal share, floor(x min(0.25, 0.5)), is (1536, 2); the rest, (4608, 6), holds
      min(2, 6) = 2 maps < the 3 asked for or running, so the reduces get (1536, 2):
      min(1, 2) = 1 reduce, 004 at 11 on node 0 (2048 MB left);
    - 11.5 (map_001's end reported, 2 of 4): no reduce asked, map_002 on node 1. The
      limit, (3072 + 2048 + 1024, 6 + 1 + 1), x 0.5: (3072, 4); the rest holds 1 map <
      2: the reduces get (3072, 4) less (1024, 1) running: 2 more, 005 at 12 (node 0),
      006 at 12.5 (node 1); then none (the limit is the same, 3 reduces hold it);
    - 22.5 (map_002's end reported): map_003 on node 1; every map is assigned, the AM
      asks for all its reduces: 007 at 23 on node 0; map_003 ends at 32.5, reported at
      33.5, and the waiting reduces end: 008 on node 1, ending at 38.5, reported at 39.5.
    Before the ramp-up all five reduces asked at 11, took both nodes' room and held it
    until the unconditional rule killed the four running at 300."""
    got, finish = four_maps(engine, fair)
    assert got == FOUR_MAPS_RAMPED
    assert finish == 39.5
    # the limit does not bind here: 0.25 and 0.5 of the maps are done when it acts
    assert four_maps(engine, fair, reduce_rampup_limit=1.0) == (got, finish)


def test_a_zero_limit_asks_for_reduces_once_every_map_is_assigned(engine):
    """The same job with mapreduce.job.reduce.rampup.limit 0 (see the test above):
    - 11: the reduces' ideal share is 0; the rest, the whole limit (6144, 8), holds
      min(3, 8) = 3 maps >= 3, so the reduces get the limit less 3 maps: (0, 5), no
      reduce; map_002 on node 0; 11.5: map_003 on node 1: every map is assigned, the AM
      asks for all its reduces: 004 at 12 (node 0), 005 at 12.5 (node 1);
    - 21 and 21.5: map_002 and map_003 end, reported at 22 and 22.5: 006 at 22 on node
      0, 007 at 22.5 on node 1, 008 at 23 on node 0, ending at 28, reported at 29.
    Slowstart 1.0 instead: the AM asks for all five reduces once every map is done, at
    22.5: one per heartbeat from 22.5 to 24.5; the last ends at 29.5, reported at 30.5."""
    got, finish = four_maps(engine, fair, reduce_rampup_limit=0.0)
    assert got == timeline(
        """
        map_000      0.0  SUCCEEDED
        map_001      0.5  SUCCEEDED
        map_002     11.0  SUCCEEDED
        map_003     11.5  SUCCEEDED
        reduce_004  12.0  SUCCEEDED
        reduce_005  12.5  SUCCEEDED
        reduce_006  22.0  SUCCEEDED
        reduce_007  22.5  SUCCEEDED
        reduce_008  23.0  SUCCEEDED
        """
    )
    assert finish == 29.0
    got, finish = four_maps(engine, fair, slowstart_completed_maps=1.0)
    assert [(t, s) for t, s, _ in got if t.startswith("reduce")] == [
        ("reduce_004", 22.5),
        ("reduce_005", 23.0),
        ("reduce_006", 23.5),
        ("reduce_007", 24.0),
        ("reduce_008", 24.5),
    ]
    assert finish == 30.5


def test_the_ramp_up_sees_the_state_at_the_ams_call(engine):
    """One node of 8192 MB and 8 vcores heartbeating at 0, 1, 2, ..., one container each;
    job j's AM (1024 MB) is ready at 0.25 and calls at 0.25, 1.25, ...; six 2048 MB maps
    (10 s), two 1024 MB reduces (5 s), reduces ahead of maps:
    - 1, 2, 3: map_000 to map_002 (the node then has 1024 MB free), taken at the calls
      after, ending at 11.25, 12.25, 13.25, reported at 12, 13, 14;
    - 12: map_003 in map_000's room; 1 of 6 done: the call at 12.25 sends the reduces
      and ramps up: limit 1024 + 3 x 2048 = 7168 MB (7 vcores), the reduces' share
      floor(7168 x 1/6) = 1194 (1 vcore); the rest holds 2 maps < the 5 asked or running:
      1 reduce, 006 at 13;
    - 13: 2 of 6 done, 2048 MB free. The call at 13.25, with no event at it, ramps up on
      that state: limit 2048 + 2 x 2048 + 1024 = 7168 (7), share floor(7168 / 3) = 2389
      (2), the rest holds 2 maps < 4: 2389 less the running reduce: 1 more, 007 at 14
      ahead of the maps; map_004 at 15, map_005 at 23 (map_003's room, reported at 23).
    When the ramp-up waited for the first event at or after the call (14: map_004 had
    taken the room by then), 007 started at 15 and map_004 at 14. (Here the one node
    heartbeats every second either way; with idle heartbeats skipped, which event came
    first after a call, and so the schedule, depended on the skipping.)"""
    tasks = [("map", 10, 2048)] * 6 + [("reduce", 5, 1024)] * 2
    schedule = predict(
        build_workload([("j", "a", 0, tasks, {"am_memory_mb": 1024.0})]),
        flat_tree(a={}),
        Cluster.parse("nodes=1,memory-mb=8192,vcores=8"),
        settings=SchedulerSettings(
            am_start_latency_s=0.25, setup_cleanup_s=0.0, reservable_nodes=0.0
        ),
        engine=engine,
    )
    a = schedule.attempts.sort_values(["start_s", "task_id"])
    assert list(zip(a["task_id"], a["start_s"], strict=True)) == [
        ("j_am", 0.0),
        ("j_map_000", 1.0),
        ("j_map_001", 2.0),
        ("j_map_002", 3.0),
        ("j_map_003", 12.0),
        ("j_reduce_006", 13.0),
        ("j_reduce_007", 14.0),
        ("j_map_004", 15.0),
        ("j_map_005", 23.0),
    ]
    assert schedule.jobs["finish_s"].tolist() == [35.0]


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_the_limit_is_a_fraction(bad):
    with pytest.raises(ValidationError, match="reduce_rampup_limit"):
        SchedulerSettings(reduce_rampup_limit=bad)


def test_the_limit_is_read_from_mapred_site(tmp_path):
    assert SchedulerSettings().reduce_rampup_limit == 0.5
    name = "mapreduce.job.reduce.rampup.limit"
    assert mapred_site_settings(tmp_path, name, 0.25).reduce_rampup_limit == 0.25
