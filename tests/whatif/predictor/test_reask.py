"""When a MapReduce AM asks again for a task whose attempt failed or was killed: at its
allocate calls (`kernel/allocate_cycle._reask_call`), not at once. Both engines.

The AMs below are ready at 0.25, so their calls fall on 0.25, 1.25, 2.25, ... (1 s);
launch latency 0, no node heartbeats.
"""

import pytest
from predictor_cases import build_workload, containers, flat_tree

from whatif import Resources
from whatif.predictor import NoiseModel, SchedulerSettings, predict

CYCLE = {
    "heartbeats": False,
    "am_start_latency_s": 0.25,
    "am_heartbeat_interval_s": 1.0,
    "container_launch_latency_s": 0.0,
}


def _attempts(schedule) -> list[tuple[str, str, float, float]]:
    """(task id, state, start, finish) of each task attempt, in start order."""
    a = schedule.attempts[~schedule.attempts["is_am"]].sort_values(["start_s", "task_id"])
    return list(zip(a["task_id"], a["state"], a["start_s"], a["finish_s"], strict=True))


def _killing_two_maps(engine, interval):
    """ja's AM and three 100 s maps in queue a at 0; jb's two 0.5 s maps (no AM) at 1 in
    queue b, whose minimum share (two containers, 5 s timeout) preempts; four containers,
    ja's AM calls every `interval` s."""
    alloc = flat_tree(
        a={}, b={"min_resources": Resources(2048, 2), "min_share_preemption_timeout_s": 5.0}
    )
    jobs = [
        ("ja", "a", 0, [("map", 100, 1024)] * 3, {"am_memory_mb": 1024.0}),
        ("jb", "b", 1, [("map", 0.5, 1024)] * 2),
    ]
    settings = SchedulerSettings(preemption=True, **{**CYCLE, "am_heartbeat_interval_s": interval})
    return predict(build_workload(jobs), alloc, containers(4), settings=settings, engine=engine)


def test_a_failed_task_is_asked_for_again_at_the_next_call(engine):
    """Three 10 s maps on two containers (the AM's and one more); seed 0 fails j_map_000
    once, early in its run. Its container, allocated at 0.25 and taken at the call at 1.25,
    frees at ~1.415; the RM gives it at once to j_map_001, asked for at 0.25, while the AM
    asks again for j_map_000 at its next call, 2.25, so it runs third (12.25-23.25). Before,
    the request was there at once (at PRIORITY_FAST_FAIL_MAP) and took the container."""
    workload = build_workload([("j", "a", 0, [("map", 10, 1024)] * 3, {"am_memory_mb": 1024.0})])
    noise = NoiseModel(failure_probability=0.5, max_attempts=2)
    s = predict(
        workload, flat_tree(a={}), containers(2), settings=SchedulerSettings(**CYCLE),
        engine=engine, seed=0, noise=noise,
    )  # fmt: skip
    failed_at = pytest.approx(1.415276, abs=1e-6)
    assert _attempts(s) == [
        ("j_map_000", "FAILED", 0.25, failed_at),
        ("j_map_001", "SUCCEEDED", failed_at, 12.25),
        ("j_map_000", "SUCCEEDED", 12.25, 23.25),
        ("j_map_002", "SUCCEEDED", 23.25, 34.25),
    ]


def test_a_killed_task_is_asked_for_again_after_the_call_that_reports_it(engine):
    """Four containers: ja's AM and three 100 s maps from 0.25. jb (no AM) is starved of
    b's minimum share (two containers) from 1, marked at 6 and kills two of ja's maps after
    the 15 s wait, at 21; its two 0.5 s maps run 21-21.5. ja's AM learns of the kills from
    its call at 21.25 and asks again at 22.25: the freed containers go to the two maps
    then (taken at 23.25, work to 123.25). Before, they were asked for at 21, allocated at
    21.5 and done at 122.25."""
    s = _killing_two_maps(engine, interval=1.0)
    assert _attempts(s) == [
        ("ja_map_000", "SUCCEEDED", 0.25, 101.25),
        ("ja_map_001", "KILLED", 0.25, 21.0),
        ("ja_map_002", "KILLED", 0.25, 21.0),
        ("jb_map_000", "SUCCEEDED", 21.0, 21.5),
        ("jb_map_001", "SUCCEEDED", 21.0, 21.5),
        ("ja_map_001", "SUCCEEDED", 22.25, 123.25),
        ("ja_map_002", "SUCCEEDED", 22.25, 123.25),
    ]
    assert s.jobs.set_index("job_id")["finish_s"].to_dict() == {"ja": 123.25, "jb": 21.5}


def test_a_task_without_an_allocate_cycle_is_asked_for_again_at_once(engine):
    """The same kill with the cycle off (interval 0): the two maps take the containers jb
    frees at 21.5 and work to 121.5."""
    s = _killing_two_maps(engine, interval=0.0)
    again = [a for a in _attempts(s) if a[0].startswith("ja") and a[1] == "SUCCEEDED"]
    assert [(a[0], a[2], a[3]) for a in again[1:]] == [
        ("ja_map_001", 21.5, 121.5),
        ("ja_map_002", 21.5, 121.5),
    ]
