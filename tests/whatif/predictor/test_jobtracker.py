"""Hadoop 1's JobTracker hands out setup and cleanup tasks ahead of the Fair Scheduler
(``kernel/jobtracker.py``): hand-computed schedules on both engines (issue 21).
"""

from __future__ import annotations

import pytest
from predictor_cases import build_workload, flat_tree

from whatif import Cluster
from whatif.predictor import SchedulerSettings, predict


def run(jobs, spec, engine, **settings):
    schedule = predict(
        build_workload(jobs),
        flat_tree(a={}, b={}),
        Cluster.parse(spec),
        settings=SchedulerSettings(hadoop_version=1, **settings),
        engine=engine,
    )
    a = schedule.attempts.sort_values(["start_s", "task_id"])
    rows = list(zip(a["task_id"], a["start_s"], a["finish_s"], strict=True))
    ends = dict(zip(schedule.jobs["job_id"], schedule.jobs["finish_s"], strict=True))
    return schedule, rows, ends


def maps(n, duration=10.0):
    return [("map", duration, 1024.0)] * n


def test_setup_takes_a_free_reduce_slot_ahead_of_the_scheduler(engine):
    """One map and one reduce slot, no heartbeats, setup and cleanup of 1.2 s added. X (2
    maps) at 0, Y (1 map) at 1, both in pool `a`. X's setup takes the map slot at 0; Y's,
    at 1, finds it busy and takes the reduce slot (1.0-2.2): the JobTracker hands out
    setup tasks in either pool, while the Fair Scheduler would have kept it waiting for a
    map slot until 22.4. X's maps run 1.2-11.2 and 11.2-21.2 (X ahead of Y on the tie:
    both use nothing, X started first); at 21.2 X's cleanup goes first (the JobTracker
    before the scheduler), 21.2-22.4; then Y's map 22.4-32.4 and cleanup 32.4-33.6."""
    _, rows, ends = run(
        [("X", "a", 0.0, maps(2)), ("Y", "a", 1.0, maps(1))],
        "map-slots=1,reduce-slots=1",
        engine,
        heartbeats=False,
        setup_cleanup_s=1.2,
    )
    assert [r[0] for r in rows] == [
        "X:setup", "Y:setup", "X_map_000", "X_map_001", "X:cleanup", "Y_map_000", "Y:cleanup",
    ]  # fmt: skip
    assert [r[1] for r in rows] == pytest.approx([0.0, 1.0, 1.2, 11.2, 21.2, 22.4, 32.4])
    assert [r[2] for r in rows] == pytest.approx([1.2, 2.2, 11.2, 21.2, 22.4, 32.4, 33.6])
    assert ends == pytest.approx({"X": 22.4, "Y": 33.6})


def test_a_heartbeat_that_gets_a_setup_task_gets_nothing_else(engine):
    """One tracker (2 map and 2 reduce slots, heartbeats every 3 s from 0), assign-multiple
    on (Hadoop 1's default). X (4 maps, no setup) and Y (a recorded 1 s setup, then a map)
    both at 0. At 0 the JobTracker gives the tracker Y's setup (in a map slot) and the
    Fair Scheduler is not asked, though X's maps wait and a map slot is free. The setup
    ends at 1.0, reported at 3.0; there the scheduler hands out two maps (the load cap:
    ceil(2 * min(1, 5 / 2)) = 2): X's first (X and Y tie at no usage, X first by id),
    then Y's (now below X). Both end at 13.0, reported at 15.0: X's next two maps run
    15-25, reported at 27.0; X's last map 27-37, reported at 39.0, X's end."""
    _, rows, ends = run(
        [("X", "a", 0.0, maps(4)), ("Y", "a", 0.0, [("setup", 1.0, 1024.0)] + maps(1))],
        "map-slots=2,reduce-slots=2",
        engine,
        setup_cleanup_s=0.0,
    )
    assert rows[0] == ("Y_setup_000", 0.0, 1.0)
    assert [(r[0], r[1]) for r in rows[1:]] == [
        ("X_map_000", 3.0), ("Y_map_001", 3.0), ("X_map_001", 15.0), ("X_map_002", 15.0),
        ("X_map_003", 27.0),
    ]  # fmt: skip
    assert ends == pytest.approx({"X": 39.0, "Y": 15.0})


def test_setup_waits_for_its_job_to_be_runnable_and_is_no_pools_usage(engine):
    """Pool `a` runs one job at a time (maxRunningJobs 1): Y's setup is handed out only
    when X ends and Y becomes runnable (the Fair Scheduler initializes a job when it makes
    it runnable). Setup and cleanup are in no pool's usage: Hadoop 1's preemption never
    kills them and fair shares do not count them."""
    schedule = predict(
        build_workload([("X", "a", 0.0, maps(1)), ("Y", "a", 0.0, maps(1))]),
        flat_tree(a={"max_running_apps": 1}),
        Cluster.parse("map-slots=2,reduce-slots=2"),
        settings=SchedulerSettings(hadoop_version=1, heartbeats=False, setup_cleanup_s=1.0),
        engine=engine,
    )
    a = schedule.attempts.set_index("task_id")
    assert a.loc["X:cleanup", "finish_s"] == pytest.approx(12.0)
    assert a.loc["Y:setup", "start_s"] == pytest.approx(12.0)
    assert schedule.jobs.set_index("job_id")["finish_s"].to_dict() == pytest.approx(
        {"X": 12.0, "Y": 24.0}
    )


def test_setup_and_cleanup_are_never_preemption_victims(engine):
    """Hadoop 1 preemption, one map and one reduce slot: A's recorded 30 s setup holds the
    map slot from 0; B (pool `b`, minMaps 1, timeout 1 s) waits for a map from 0.5. The
    setup is in no pool's usage, so pool `a` is not above its share and nothing is killed
    (counted as `a`'s task, it would be killed at the first check past the timeout). B's
    map takes the slot when the setup ends (30-40; `b` is below its min share, so needy
    first), A's map follows (40-50)."""
    schedule = predict(
        build_workload(
            [("A", "a", 0.0, [("setup", 30.0, 1024.0)] + maps(1)), ("B", "b", 0.5, maps(1))]
        ),
        flat_tree(a={}, b={"min_maps": 1, "min_share_preemption_timeout_s": 1.0}),
        Cluster.parse("map-slots=1,reduce-slots=1"),
        settings=SchedulerSettings(
            hadoop_version=1, heartbeats=False, setup_cleanup_s=0.0, preemption=True,
            preemption_interval_s=1.0,
        ),
        engine=engine,
    )  # fmt: skip
    a = schedule.attempts.set_index("task_id")
    assert not schedule.attempts["preempted"].any()
    assert a.loc["B_map_000", "start_s"] == pytest.approx(30.0)
    assert a.loc["A_map_001", "start_s"] == pytest.approx(40.0)


def _preempted(engine, spec, **settings):
    """A (pool `a`, a 100 s map) holds the only map slot from 0; B (pool `b`, minMaps 1,
    min-share timeout 1 s, a 10 s map) arrives at 0.5; preemption checks every second."""
    schedule = predict(
        build_workload([("A", "a", 0.0, maps(1, 100.0)), ("B", "b", 0.5, maps(1))]),
        flat_tree(a={}, b={"min_maps": 1, "min_share_preemption_timeout_s": 1.0}),
        Cluster.parse(spec),
        settings=SchedulerSettings(
            hadoop_version=1, setup_cleanup_s=0.0, preemption=True, preemption_interval_s=1.0,
            **settings,
        ),
        engine=engine,
    )  # fmt: skip
    a = schedule.attempts.sort_values(["start_s", "task_id"])
    return list(zip(a["task_id"], a["start_s"], a["finish_s"], a["state"], strict=True))


def test_a_killed_attempt_gets_a_task_cleanup_attempt_ahead_of_the_scheduler(engine):
    """No heartbeats. B's pool is starved past its timeout at the check at 2.0 (1.5 s >
    1 s): A's map is killed. Its task-cleanup attempt (1.2 s) takes the freed map slot at
    once, ahead of the Fair Scheduler, 2.0-3.2; B's map follows 3.2-13.2, A's retry
    13.2-113.2. Without task-cleanup attempts B's map starts at 2.0. The cleanup attempt
    holds the slot but is no attempt of the schedule."""
    assert _preempted(engine, "map-slots=1,reduce-slots=1", heartbeats=False) == [
        ("A_map_000", 0.0, 2.0, "KILLED"),
        ("B_map_000", 3.2, 13.2, "SUCCEEDED"),
        ("A_map_000", 13.2, 113.2, "SUCCEEDED"),
    ]
    got = _preempted(engine, "map-slots=1,reduce-slots=1", heartbeats=False, task_cleanup_s=0.0)
    assert [r[1] for r in got] == [0.0, 2.0, 12.0]


def test_a_task_cleanup_attempt_is_handed_out_and_reported_at_heartbeats(engine):
    """One tracker, heartbeats every 3 s from 0. A's map is killed at 2.0; at the heartbeat
    at 3 the JobTracker hands out its task-cleanup attempt (3-4.2, reported at 6), so B's
    map starts at 6 (16, reported at 18), A's retry at 18."""
    got = _preempted(engine, "nodes=1,map-slots=1,reduce-slots=1")
    assert [(r[0], r[1], r[3]) for r in got] == [
        ("A_map_000", 0.0, "KILLED"),
        ("B_map_000", 6.0, "SUCCEEDED"),
        ("A_map_000", 18.0, "SUCCEEDED"),
    ]
