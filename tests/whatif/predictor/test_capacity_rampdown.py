"""The MapReduce AM's reduce ramp-down in the Capacity Scheduler mode, by hand on both
engines: the headroom the RM reports to the AM (LeafQueue.getHeadroom) includes the user
limit, so reduces that hold the user's limit while maps wait are killed for the maps, not
left waiting forever."""

from __future__ import annotations

from conftest import build_workload
from test_capacity import config, two_queues

from whatif import Cluster
from whatif.predictor import SchedulerSettings, predict


def test_reduces_holding_the_user_limit_make_room_for_the_maps(engine):
    """root.a: 50 % of 8 x 1024 MB, user-limit-factor 1: the user may be allocated while it
    uses <= 4096 MB, five containers. One job of 12 maps (10 s) and 6 reduces (5 s):
    - 0: five maps (5120 MB);
    - 10: they end; 5 of 12 done >= slowstart 0.05, so the reduces ask, and are served
      first (MapReduce's reduce priority 10 before the maps' 20): five reduces, 5120 MB.
      No map runs and maps wait; the AM's headroom, 4096 - 5120, has no room for a map:
      it holds back its reduce requests and kills its newest waiting reduces until a map
      fits - 016 (4096 MB used: no room), 015 (3072: room for one). Two maps start (to
      5120), the held reduces ask for nothing;
    - 20, 30: two maps each; 40: the last map, and the reduces ask again: 017 starts;
    - 50: the last map ends, so do the four reduces waiting for it; 015 and 016 run again
      and end at 55, the job with them."""
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
        ("map_005", 10.0, 20.0, ok),
        ("map_006", 10.0, 20.0, ok),
        *((f"reduce_{i:03d}", 10.0, 50.0, ok) for i in (12, 13, 14)),
        ("reduce_015", 10.0, 10.0, "KILLED"),
        ("reduce_016", 10.0, 10.0, "KILLED"),
        ("map_007", 20.0, 30.0, ok),
        ("map_008", 20.0, 30.0, ok),
        ("map_009", 30.0, 40.0, ok),
        ("map_010", 30.0, 40.0, ok),
        ("map_011", 40.0, 50.0, ok),
        ("reduce_017", 40.0, 50.0, ok),
        ("reduce_015", 50.0, 55.0, ok),
        ("reduce_016", 50.0, 55.0, ok),
    ]
    assert schedule.jobs["finish_s"].tolist() == [55.0]
