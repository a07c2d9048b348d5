"""The MapReduce AM's reduce ramp-down in the Capacity Scheduler mode, by hand on both
engines: the headroom the RM reports to the AM (LeafQueue.getHeadroom) includes the user
limit, so reduces that hold the user's limit while maps wait are killed for the maps, not
left waiting forever."""

from __future__ import annotations

from predictor_cases import build_workload
from test_capacity import config, two_queues

from whatif import Cluster
from whatif.predictor import SchedulerSettings, predict


def test_reduces_holding_the_user_limit_make_room_for_the_maps(engine):
    """root.a: 50 % of 8 x 1024 MB, user-limit-factor 1: the user may be allocated while it
    uses <= 4096 MB, five containers. One job of 12 maps (10 s) and 6 reduces (5 s), no
    AM container; the AM counts memory alone (DefaultResourceCalculator):
    - 0: five maps (5120 MB);
    - 10: they end. At the first end, 1 of 12 done >= slowstart 0.05: the AM ramps its
      reduces up. Its headroom is 0 (the user's 4096 MB limit less the 4096 still
      running), its limit 4096 with those maps; the reduces' ideal share floor(4096 x
      1/12) = 341 MB, the rest holds 3 maps < the 11 asked for or running: no reduce.
      Five maps start (map_005 to 009, 5120 MB); then 5 of 12 done: limit 0 + 5120, the
      reduces' share floor(5120 x 5/12) = 2133 MB, the rest holds 2 maps < 7: two reduces
      asked for, which the user limit does not let start;
    - 20: the five maps end; the two reduces go first (MapReduce's reduce priority 10
      before the maps' 20): 012 and 013, then map_010 and 011: every map is assigned and
      the AM asks for all its reduces: 014, the fifth container;
    - 30: the last maps end, so do the three reduces waiting for them; 015, 016 and 017
      run and end at 35, the job with them.
    Before the ramp-up all six reduces asked at 10, five started and held the user limit
    while maps waited; the headroom rule killed 016 and 015 for the maps then. Now the
    reduces never hold the room the maps need here, and the job ends 20 s earlier."""
    cluster = Cluster.parse("memory-mb=8192,vcores=8")
    tasks = [("map", 10.0, 1024.0)] * 12 + [("reduce", 5.0, 1024.0)] * 6
    schedule = predict(
        build_workload([("j", "a", 0, tasks, {"user": "u"})]),
        config(cluster, two_queues()),
        cluster,
        settings=SchedulerSettings(am_heartbeat_interval_s=0.0),
        engine=engine,
    )
    a = schedule.attempts.sort_values(["start_s", "task_id", "finish_s"])
    got = list(
        zip(
            a["task_id"].str.removeprefix("j_"),
            a["start_s"],
            a["finish_s"],
            a["state"],
            strict=True,
        )
    )
    ok = "SUCCEEDED"
    assert got == [
        *((f"map_{i:03d}", 0.0, 10.0, ok) for i in range(5)),
        *((f"map_{i:03d}", 10.0, 20.0, ok) for i in range(5, 10)),
        ("map_010", 20.0, 30.0, ok),
        ("map_011", 20.0, 30.0, ok),
        *((f"reduce_{i:03d}", 20.0, 30.0, ok) for i in (12, 13, 14)),
        *((f"reduce_{i:03d}", 30.0, 35.0, ok) for i in (15, 16, 17)),
    ]
    assert schedule.jobs["finish_s"].tolist() == [35.0]
