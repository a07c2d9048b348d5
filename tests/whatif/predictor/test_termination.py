"""Simulations that cannot finish every job still end, and say which jobs never finished."""

from predictor_cases import build_workload, containers, flat_tree, predict_hadoop1_preemption

from whatif import Cluster, Resources
from whatif.predictor import SchedulerSettings, Simulation, predict

AM = {"am_memory_mb": 1024.0, "am_vcores": 1.0}


def test_a_job_whose_next_task_never_fits_beside_its_am_stays_unfinished(engine):
    """A finished task of a job that can never finish keeps its one success; the job stays RUNNING."""
    tasks = [("map", 10, 1024), ("map", 10, 1024, {"vcores": 2.0})]
    workload = build_workload([("j", "a", 0, tasks, AM)])
    s = predict(workload, flat_tree(a={}), Cluster(memory_mb=4096.0, vcores=2.0), engine=engine)
    job = s.jobs.iloc[0]
    assert job["state"] == "RUNNING" and job["finish_s"] != job["finish_s"]
    a = s.attempts[~s.attempts["is_am"]]
    assert a["task_id"].tolist() == ["j_map_000"] and a["state"].tolist() == ["SUCCEEDED"]


def test_hadoop2_queue_starved_by_its_own_am_share_does_not_check_forever(engine):
    """Hadoop 2: a starved queue whose AM never fits ends the run once the other queue is done."""
    alloc = flat_tree(
        a={
            "max_am_share": 0.1,
            "min_resources": Resources(2048, 2),
            "min_share_preemption_timeout_s": 5.0,
        },
        b={},
    )
    jobs = [("ja", "a", 0, [("map", 10, 1024)], AM), ("jb", "b", 0, [("map", 30, 1024)] * 2)]
    cfg = SchedulerSettings(
        preemption=True, hadoop_version=2, utilization_threshold=0.0, preemption_interval_s=1.0
    )
    s = predict(build_workload(jobs), alloc, Cluster(4096.0, 4.0), settings=cfg, engine=engine)
    assert s.jobs.set_index("job_id")["state"].to_dict() == {"ja": "PENDING", "jb": "SUCCEEDED"}
    assert s.jobs.set_index("job_id").loc["jb", "finish_s"] == 30.0
    assert not s.attempts["preempted"].any()


def test_hadoop1_check_after_idle_checks_still_runs_on_the_grid(engine):
    """Hadoop 1: checks that found no victim do not delay a kill made possible at a grid time."""
    alloc = flat_tree(
        a={"allow_preemption_from": False},
        b={"min_maps": 2, "min_share_preemption_timeout_s": 10.0},
        c={},
        d={"weight": 3.0},
    )
    jobs = [
        ("ja", "a", 0, [("map", 100, 1024)] * 3),
        ("jc", "c", 0, [("map", 100, 1024)]),
        ("jb", "b", 5, [("map", 100, 1024)] * 2),
        ("jd", "d", 25, [("map", 100, 1024)]),
    ]
    s = predict_hadoop1_preemption(jobs, alloc, engine)
    # b starves from 5; the checks at 15 and 20 find no victim (a is protected, c is at
    # its share); jd's arrival at 25 drops c's share to 0 and the check at 25 kills c's task
    killed = s.attempts[s.attempts["preempted"]]
    assert killed["job_id"].tolist() == ["jc"] and killed["finish_s"].tolist() == [25.0]


def immediate_preemption(hadoop_version, **settings):
    """`SchedulerSettings` whose preemption kills at once (no wait before the kill),
    whatever the cluster's utilization, with `settings` on top."""
    return SchedulerSettings(
        preemption=True,
        hadoop_version=hadoop_version,
        utilization_threshold=0.0,
        wait_time_before_kill_s=0.0,
        **settings,
    )


def test_hadoop2_preemption_livelock_ends_where_the_run_starts_cycling(engine):
    """Hadoop 2: victims freed for a queue whose AM cannot start are re-run and killed
    again forever; the run stops at the first repeated state with the task still running."""
    alloc = flat_tree(
        a={
            "max_am_share": 0.1,
            "fair_share_preemption_timeout_s": 5.0,
            "fair_share_preemption_threshold": 1.0,
        },
        b={},
    )
    jobs = [("jb", "b", 0, [("map", 100, 2048)], AM), ("ja", "a", 1, [("map", 10, 1024)], AM)]
    cfg = immediate_preemption(2, preemption_interval_s=1.0)
    s = predict(build_workload(jobs), alloc, Cluster(4096.0, 8.0), settings=cfg, engine=engine)
    assert s.jobs.set_index("job_id")["state"].to_dict() == {"jb": "RUNNING", "ja": "PENDING"}
    maps = s.attempts[~s.attempts["is_am"]]
    # a starves from 1, past its timeout after 6: warned at 7, killed at 8; jb's AM (calls
    # on whole seconds) learns of it at 9 and asks again at 10, where the map re-runs, is
    # warned and killed at 11, asked for at 13: cycling
    assert maps["start_s"].tolist() == [0.0, 10.0, 13.0]
    assert maps["state"].tolist() == ["KILLED", "KILLED", "RUNNING"]


def _run_past_any_livelock(workload, alloc, cluster, cfg, engine):
    """Advance to a far horizon first: a livelock the predictor misses then shows as
    hundreds of kills (and fails the test) instead of a run that never ends."""
    sim = Simulation(workload, alloc, cluster, settings=cfg, engine=engine)
    return sim.advance_to(10_000.0)


def test_hadoop3_min_share_livelock_for_an_am_over_its_share_ends(engine):
    """Hadoop 3 (a shrunk random scenario): a queue starved for its one-vcore min share
    holds only an app whose AM is over maxAMShare (a share of 0: a zero cap). Every
    re-check (14 s) kills the other queue's task for it, which restarts at once; the run
    stops once the state repeats, with the task still running. Each kill adds the task's
    512 MB to the AM's claim (claims.py), which the AM never uses, so the state repeats
    only once the claim reaches the cluster's 4096 MB, at which the check state caps it
    (the eighth kill, at 89)."""
    alloc = flat_tree(
        a={"weight": 0.0},
        b={
            "weight": 0.0,
            "min_resources": Resources(0, 1),
            "min_share_preemption_timeout_s": 5.0,
            "max_am_share": 0.0,
        },
    )
    jobs = [("jb", "b", 0, [], AM), ("ja", "a", 0, [("map", 15, 512)])]
    cfg = immediate_preemption(3, min_allocation_mb=512.0, increment_mb=512.0)
    sim = _run_past_any_livelock(build_workload(jobs), alloc, containers(4), cfg, engine)
    a = sim.schedule().attempts
    # checks are 14 s apart here; the cycle search starts after 16 quiet checks
    assert a["start_s"].tolist() == [0.0, 5.0, 19.0, 33.0, 47.0, 61.0, 75.0, 89.0, 103.0, 117.0]
    assert a["state"].tolist() == ["KILLED"] * 9 + ["RUNNING"]
    s = sim.run_to_end()
    assert s.jobs.set_index("job_id")["state"].to_dict() == {"ja": "RUNNING", "jb": "PENDING"}
    assert len(s.attempts) == 10


def test_hadoop3_fair_share_livelock_for_an_am_over_its_share_ends(engine):
    """Hadoop 3: an app starved for its fair share whose AM is over maxAMShare has the
    other queue's map killed for it at every re-check (wait 15 + 4 heartbeats + 10 s),
    so the map never reaches its 36 s and the reduce waiting for it never ends."""
    alloc = flat_tree(
        a={"weight": 3.0, "max_am_share": 0.1, "fair_share_preemption_timeout_s": 5.0}, b={}
    )
    # jb has an AM: its reduce stage is released once the AM runs, when b's fair share
    # leaves its AM a headroom, so it ramps its reduce up with its map and the reduce
    # starts first (without, the ramp-up asks for it only after the map: newest, it is
    # the one killed, and the map ends)
    jb = [("map", 36, 512, {"vcores": 1.0}), ("reduce", 10, 1024, {"vcores": 2.0})]
    jobs = [("jb", "b", 0, jb, AM), ("ja", "a", 1, [("map", 10, 1024)], AM)]
    cfg = SchedulerSettings(preemption=True, hadoop_version=3, slowstart_completed_maps=0.0)
    sim = _run_past_any_livelock(build_workload(jobs), alloc, Cluster(4096.0, 4.0), cfg, engine)
    maps = sim.schedule().attempts.query("stage == 'map'")
    # starved from 1, acting at 6: killed at 21, asked for again two AM calls later and
    # re-run at 23, marked at 35 and killed at 50, ...; the run stops at 166 (a state seen
    # before) with the map asked for again at 168
    assert maps["start_s"].tolist() == [0.0, 23.0, 52.0, 81.0, 110.0, 139.0]
    assert maps["finish_s"].tolist() == [21.0, 50.0, 79.0, 108.0, 137.0, 166.0]
    assert maps["state"].tolist() == ["KILLED"] * 6
    s = sim.run_to_end()
    assert s.jobs.set_index("job_id")["state"].to_dict() == {"jb": "RUNNING", "ja": "PENDING"}
