"""Where a killed or failed attempt's task goes again, by Hadoop version (`pack.RETRY_*`).

Hadoop 2/3's MapReduce AM asks for a new attempt of a task that failed before with
``earlierAttemptFailed`` (TaskImpl.addAndScheduleAttempt sends TA_RESCHEDULE once
``failedAttempts`` is not empty): a map at PRIORITY_FAST_FAIL_MAP (5), taken first in,
first out from ``earlierFailedMaps`` ahead of the job's other maps (20) and its reduces
(10); a killed attempt's task is asked for again at the end of the maps LinkedHashMap (or
of the reduce lists), after the tasks never run. Hadoop 1's JobTracker puts a killed or
failed attempt's task in ``failedMaps`` (or ``nonRunningReduces``), ordered by
``failComparator`` (more failed attempts first, then the lower task), which
``findNewMapTask`` tries before every fresh map, except on a tracker the task failed on
(``findTaskFromList``'s ``hasFailedOnMachine``) while there are other hosts.

Failures come from the noise model: with ``failure_probability=0.5, max_attempts=2`` the
seeds below fail exactly the tasks named, once (`pack._noise_draws`).
"""

import pytest
from predictor_cases import (
    build_workload,
    containers,
    flat_tree,
    predict_hadoop1_preemption,
    timeline,
)

from whatif import Cluster, Resources, Workload
from whatif.predictor import NoiseModel, SchedulerSettings, predict
from whatif.predictor.pack import _noise_draws

ONCE = NoiseModel(failure_probability=0.5, max_attempts=2)


def _order(schedule) -> list[tuple[str, str]]:
    """(task id, state) of every attempt in start order (task id on ties)."""
    a = schedule.attempts.sort_values(["start_s", "task_id"], kind="stable")
    return list(zip(a["task_id"], a["state"], strict=True))


def _predict(workload, cluster, engine, seed=0, **settings):
    """`workload` in queue a on `cluster`, failing the tasks the `seed` fails (`ONCE`)."""
    return predict(
        workload,
        flat_tree(a={}),
        cluster,
        settings=SchedulerSettings(**settings),
        engine=engine,
        seed=seed,
        noise=ONCE,
    )


def test_the_seeds_fail_the_tasks_named():
    """The draws the tests below rely on: seed 0 fails the first of three tasks once (at
    0.017 of its run), seed 18 the second of four (at 0.5639)."""
    _, fails, frac = _noise_draws(3, ONCE, 0)
    assert fails.tolist() == [1, 0, 0] and frac[0] == pytest.approx(0.017, abs=1e-3)
    _, fails, frac = _noise_draws(4, ONCE, 18)
    assert fails.tolist() == [0, 1, 0, 0] and frac[1] == pytest.approx(0.5639, abs=1e-4)


@pytest.mark.parametrize("version", [1, 3])
def test_a_failed_map_runs_again_before_the_maps_never_run(engine, version):
    """One container (one map slot on Hadoop 1), three 10 s maps, the first failing once
    at 0.017 of its run: its second attempt runs next, before j_map_001 and j_map_002 (the
    predictor ran it last before)."""
    workload = build_workload([("j", "a", 0, [("map", 10, 1024)] * 3)])
    cluster = containers(1) if version == 3 else Cluster.parse("map-slots=1,reduce-slots=1")
    s = _predict(
        workload, cluster, engine, hadoop_version=version, heartbeats=False, setup_cleanup_s=0.0
    )
    assert _order(s) == [
        ("j_map_000", "FAILED"),
        ("j_map_000", "SUCCEEDED"),
        ("j_map_001", "SUCCEEDED"),
        ("j_map_002", "SUCCEEDED"),
    ]


def test_a_failed_map_goes_before_the_reduces_asked_for(engine):
    """Hadoop 3, two containers, maps of 5, 20 and 10 s and a 5 s reduce. The first map
    ends at 5 and the third takes its container (the ramp-up asks for no reduce while a
    map is unassigned: 2048 MB x 1/3 done holds none); every map assigned, the AM asks for
    the reduce. The second map fails at 0.5639 of its run (11.278 s) and asks again at
    PRIORITY_FAST_FAIL_MAP: it takes the freed container before the reduce (priority 10),
    which waits for the third map's at 15. (Before, the reduce took it and the map waited
    until 15.)"""
    tasks = [("map", 5, 1024), ("map", 20, 1024), ("map", 10, 1024), ("reduce", 5, 1024)]
    workload = build_workload([("j", "a", 0, tasks)])
    s = _predict(workload, containers(2), engine, seed=18, heartbeats=False)
    starts = s.attempts.set_index(["task_id", "state"])["start_s"]
    failed_at = 0.5639 * 20
    assert starts[("j_map_001", "FAILED")] == 0.0
    assert starts[("j_map_002", "SUCCEEDED")] == 5.0
    assert starts[("j_map_001", "SUCCEEDED")] == pytest.approx(failed_at, abs=1e-3)
    assert starts[("j_reduce_003", "SUCCEEDED")] == 15.0


def test_a_killed_map_stays_behind_the_maps_never_run_on_yarn(engine):
    """Hadoop 3, 4 containers: b's minimum share kills two of ja's maps; ja asks for them
    again at the end of its maps LinkedHashMap, so when it gets containers again its maps
    that never ran start first (as the predictor always did)."""
    alloc = flat_tree(
        a={}, b={"min_resources": Resources(2048, 2), "min_share_preemption_timeout_s": 5.0}
    )
    jobs = [("ja", "a", 0, [("map", 100, 1024)] * 8), ("jb", "b", 1, [("map", 100, 1024)] * 2)]
    settings = SchedulerSettings(preemption=True, heartbeats=False)
    s = predict(build_workload(jobs), alloc, containers(4), settings=settings, engine=engine)
    ja = s.attempts[s.attempts["job_id"] == "ja"].sort_values(["start_s", "task_id"])
    killed = set(ja.loc[ja["preempted"], "task_id"])
    assert len(killed) == 2
    after = ja[(ja["start_s"] > ja.loc[ja["preempted"], "finish_s"].max()) & ~ja["preempted"]]
    assert after["task_id"].tolist()[:4] == ["ja_map_004", "ja_map_005", "ja_map_006", "ja_map_007"]


def test_hadoop1_runs_a_killed_map_again_before_the_maps_never_run(engine):
    """Hadoop 1, 4 map slots: b's minimum share kills two of ja's maps at 20 (see
    test_semantics' `test_hadoop1_min_maps_preemption_kills_newest_tasks_at_once`); when ja
    gets slots again, the killed maps' tasks (in failedMaps) start before its four maps
    that never ran."""
    alloc = flat_tree(a={}, b={"min_maps": 2, "min_share_preemption_timeout_s": 10.0})
    jobs = [("ja", "a", 0, [("map", 100, 1024)] * 8), ("jb", "b", 5, [("map", 100, 1024)] * 2)]
    s = predict_hadoop1_preemption(jobs, alloc, engine)
    ja = s.attempts[s.attempts["job_id"] == "ja"].sort_values(["start_s", "task_id"])
    killed = set(ja.loc[ja["preempted"], "task_id"])
    assert len(killed) == 2
    after = ja[(ja["start_s"] > 20.0) & ~ja["preempted"]]["task_id"].tolist()
    assert set(after[:2]) == killed


@pytest.mark.parametrize(("trackers", "retried", "fresh"), [(2, 13.5, 6.0), (1, 6.0, 30.0)])
def test_hadoop1_runs_a_failed_task_on_another_tracker(engine, trackers, retried, fresh):
    """Hadoop 1, three 10 s maps on two trackers of one map slot each (heartbeats every
    3 s, the second's 1.5 s after the first's; each failed attempt's task-cleanup takes its
    slot for one heartbeat). j_map_000 fails on the first tracker at 0.165 s; at that
    tracker's heartbeat at 6 it is skipped there (it failed there) and the fresh j_map_002
    runs instead; j_map_000 runs on the second tracker once j_map_001 frees it (ends 11.5,
    slot back at its heartbeat at 13.5). (Before, it ran again at 6 on the tracker it had
    failed on, and j_map_002 at 13.5.) With one tracker, the only host, it runs there again
    at 6, before the fresh maps (j_map_002 last, at 30): a task that failed on every host
    may run on any."""
    workload = build_workload([("j", "a", 0, [("map", 10, 1024)] * 3)])
    cluster = Cluster.parse(f"nodes={trackers},map-slots={trackers},reduce-slots={trackers}")
    s = _predict(workload, cluster, engine, hadoop_version=1, setup_cleanup_s=0.0)
    starts = s.attempts.set_index(["task_id", "state"])["start_s"]
    assert starts[("j_map_000", "FAILED")] == 0.0
    assert starts[("j_map_000", "SUCCEEDED")] == retried
    assert starts[("j_map_002", "SUCCEEDED")] == fresh


def test_hadoop1_offers_a_job_the_task_its_tracker_would_get(engine):
    """Hadoop 1 on memory nodes (two of 2 vcores, heartbeats every 3 s, the second's 1.5 s
    after the first's; the seed fails j_map_000 and both of k's maps once). At node 0's
    heartbeat at 12, j_map_000 (2 vcores), first in j's failedMaps, failed on node 0 and
    is passed over there; the task node 0 gets from j is the fresh j_map_003 (1 vcore),
    which fits its 1 vcore left: it starts at 12. The kernel ranked j by its head task's
    request (2 vcores) and passed j over, so j_map_003 waited until 21 (its app trees now
    rank a Hadoop 1 job by the least request any tracker could get from it)."""
    tasks = [("map", 10.0, 1024.0, {"vcores": 2.0})] + [("map", 10.0, 1024.0, {"vcores": 1.0})] * 3
    k = [("map", 30.0, 512.0, {"vcores": 1.0})] * 2
    workload = build_workload([("j", "a", 0.0, tasks), ("k", "a", 0.5, k)])
    nodes = Cluster.parse("nodes=2,memory-mb=4096,vcores=2")
    s = _predict(
        workload, nodes, engine, hadoop_version=1, setup_cleanup_s=0.0, assign_multiple=True
    )
    a = s.attempts
    assert list(zip(a["task_id"], a["start_s"], a["state"], strict=True)) == timeline(
        """
        j_map_000   0.0  FAILED
        j_map_001   1.5  SUCCEEDED
        k_map_000   1.5  FAILED
        j_map_002   9.0  SUCCEEDED
        k_map_001   9.0  FAILED
        j_map_003  12.0  SUCCEEDED
        k_map_001  13.5  SUCCEEDED
        k_map_000  30.0  SUCCEEDED
        j_map_000  46.5  SUCCEEDED
        """
    )


def test_hadoop1_runs_a_failed_located_map_first_on_any_other_tracker(engine):
    """Hadoop 1.2.1 puts a failed map in `failedMaps` alone (JobInProgress.failMap, off its
    location lists), and findNewMapTask takes it first whatever the allowed locality level,
    on any tracker but one it failed on. Trackers h0 (/r0) and h1 (/r1), one map slot
    each, heartbeating at 0, 3, 6, ... and 1.5, 4.5, ...; three 10 s maps located on h0,
    h0 and h1; the seed fails j_map_000 once, at 0.165 s:
    - 0: h0 runs j_map_000 (node-local); 1.5: h1 runs j_map_002 (node-local, to 11.5);
    - 3: h0 reports the failure and runs its task-cleanup attempt (reported at 6);
    - 6: h0 passes over j_map_000, which failed there, and runs j_map_001 (node-local);
    - 13.5: h1 reports j_map_002 and takes j_map_000 at once, off-rack (the job's allowed
      level was node-local): it ends at 23.5, reported at 25.5, when the job finishes.
    Before, the failed map went back to its place in its location lists: h0 ran it again
    at 6 and j_map_001 at 18, and the job finished at 30."""
    plain = build_workload([("j", "a", 0, [("map", 10, 1024)] * 3)])
    located = plain.tasks.assign(split_locations=["/r0/h0", "/r0/h0", "/r1/h1"])
    trackers = Cluster.parse("hosts=/r0/h0;/r1/h1,map-slots=2,reduce-slots=2")
    s = _predict(
        Workload(plain.jobs, located), trackers, engine, hadoop_version=1, setup_cleanup_s=0.0
    )
    assert _order(s) == [
        ("j_map_000", "FAILED"),
        ("j_map_002", "SUCCEEDED"),
        ("j_map_001", "SUCCEEDED"),
        ("j_map_000", "SUCCEEDED"),
    ]
    assert s.attempts.sort_values("start_s")["start_s"].tolist() == [0.0, 1.5, 6.0, 13.5]
    assert s.jobs["finish_s"].tolist() == [25.5]
