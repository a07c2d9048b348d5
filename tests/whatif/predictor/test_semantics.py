"""Hand-computed schedules: shares, limits, stages, preemption timing, on both engines."""

import math

import pandas as pd
import pytest
from predictor_cases import (
    build_workload,
    containers,
    flat_tree,
    predict_hadoop1_preemption,
    predict_one_job,
)

from whatif import Cluster, EffectiveAllocation, EffectiveQueue, ResourceLimit, Resources, Workload
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, Simulation, predict

INF = math.inf


def starts_at(schedule, t):
    """Running containers per queue at time t (attempts that started at or before t and end after)."""
    a = schedule.attempts.merge(schedule.jobs[["job_id", "queue"]], on="job_id")
    live = a[(a["start_s"] <= t) & (a["finish_s"] > t)]
    return live.groupby("queue").size().to_dict()


def long_jobs(*queues, n=20, duration=100):
    return [(f"j_{q}", q, 0, [("map", duration, 1024)] * n) for q in queues]


def test_paper_shares_weights_1_2_3_give_2_4_6(engine):
    """Weights 1:2:3 on 12 containers run 2/4/6 containers at once."""
    alloc = flat_tree(a={"weight": 1}, b={"weight": 2}, c={"weight": 3})
    s = predict(build_workload(long_jobs("a", "b", "c")), alloc, containers(12), engine=engine)
    assert starts_at(s, 0) == {"root.a": 2, "root.b": 4, "root.c": 6}


def test_paper_shares_idle_queue_gives_4_8(engine):
    """With C idle, A and B split 12 containers 4/8."""
    alloc = flat_tree(a={"weight": 1}, b={"weight": 2}, c={"weight": 3})
    s = predict(build_workload(long_jobs("a", "b")), alloc, containers(12), engine=engine)
    assert starts_at(s, 0) == {"root.a": 4, "root.b": 8}


def test_paper_shares_max_caps_c_at_3_giving_3_6_3(engine):
    """With C's maxResources at 3 containers, shares are 3/6/3."""
    alloc = flat_tree(
        a={"weight": 1},
        b={"weight": 2},
        c={"weight": 3, "max_resources": ResourceLimit(absolute=Resources(3072, 3))},
    )
    s = predict(build_workload(long_jobs("a", "b", "c")), alloc, containers(12), engine=engine)
    assert starts_at(s, 0) == {"root.a": 3, "root.b": 6, "root.c": 3}


def test_fair_shares_reported_in_state_follow_active_queues(engine):
    """state() reports instantaneous fair shares: an idle queue gets none."""
    alloc = flat_tree(a={"weight": 1}, b={"weight": 2}, c={"weight": 3})
    sim = Simulation(build_workload(long_jobs("a", "b")), alloc, containers(12), engine=engine)
    q = sim.advance_to(1).state().queues.set_index("queue")
    assert q.loc[["root.a", "root.b", "root.c"], "fair_memory_mb"].tolist() == [4096, 8192, 0]
    assert q.loc["root", "usage_memory_mb"] == 12 * 1024


def test_ties_between_apps_break_by_submit_time_then_job_id(engine):
    """Equal apps are served by start time then name, never by a hash: job a0 before a1."""
    jobs = [("a1", "a", 0, [("map", 10, 1024)]), ("a0", "a", 0, [("map", 10, 1024)])]
    s = predict(build_workload(jobs), flat_tree(a={}), containers(1), engine=engine)
    assert s.jobs.set_index("job_id")["finish_s"].to_dict() == {"a0": 10.0, "a1": 20.0}


def test_max_running_apps_holds_apps_back_and_releases_them_in_order(engine):
    """maxRunningApps 1: three jobs run one after another in submission order."""
    jobs = [(f"j{i}", "a", i, [("map", 10, 1024)]) for i in range(3)]
    s = predict(
        build_workload(jobs), flat_tree(a={"max_running_apps": 1}), containers(4), engine=engine
    )
    got = s.jobs.set_index("job_id")[["launch_s", "finish_s"]]
    assert got["launch_s"].tolist() == [0.0, 10.0, 20.0]
    assert got["finish_s"].tolist() == [10.0, 20.0, 30.0]


def test_user_max_running_apps_counts_across_queues(engine):
    """A user limited to 1 app runs its apps one at a time even in different queues."""
    jobs = [
        ("j0", "a", 0, [("map", 10, 1024)], {"user": "ann"}),
        ("j1", "b", 0, [("map", 10, 1024)], {"user": "ann"}),
        ("j2", "b", 0, [("map", 10, 1024)], {"user": "bob"}),
    ]
    alloc = EffectiveAllocation(root=flat_tree(a={}, b={}).root, user_max_apps={"ann": 1})
    s = predict(build_workload(jobs), alloc, containers(4), engine=engine)
    assert s.jobs.set_index("job_id")["launch_s"].to_dict() == {"j0": 0.0, "j1": 10.0, "j2": 0.0}


def test_parent_max_running_apps_limits_the_subtree(engine):
    """A parent's maxRunningApps counts apps in all its leaves."""
    tree = EffectiveAllocation(
        root=EffectiveQueue(
            "root",
            children=(
                EffectiveQueue(
                    "root.p",
                    max_running_apps=1,
                    children=(EffectiveQueue("root.p.x"), EffectiveQueue("root.p.y")),
                ),
            ),
        )
    )
    jobs = [("j0", "p.x", 0, [("map", 10, 1024)]), ("j1", "root.p.y", 0, [("map", 10, 1024)])]
    s = predict(build_workload(jobs), tree, containers(4), engine=engine)
    assert s.jobs["launch_s"].tolist() == [0.0, 10.0]


def test_am_share_gates_application_masters(engine):
    """maxAMShare 0.25 of an 8-container share admits two 1-container AMs at a time (the
    AMs' allocate cycle off: tested apart)."""
    am = {"am_memory_mb": 1024.0, "am_vcores": 1.0}
    jobs = [(f"j{i}", "a", 0, [("map", 10, 1024)], am) for i in range(3)]
    s = predict(
        build_workload(jobs),
        flat_tree(a={"max_am_share": 0.25}),
        containers(8),
        settings=SchedulerSettings(am_heartbeat_interval_s=0.0),
        engine=engine,
    )
    ams = s.attempts[s.attempts["is_am"]].set_index("job_id")["start_s"].to_dict()
    assert ams == {"j0": 0.0, "j1": 0.0, "j2": 10.0}
    assert s.jobs["finish_s"].tolist() == [10.0, 10.0, 20.0]


def test_am_start_latency_and_launch_latency_delay_tasks(engine):
    """Tasks are requested once the AM has started (its container launched at 1, ready at
    5), and work begins after the launch latency. With the AM's allocate cycle (1 s from 5)
    the map allocated at 5 is taken at the AM's next call, 6, and works from 7 to 17;
    without it, from 6 to 16."""
    jobs = [("j", "a", 0, [("map", 10, 1024)], {"am_memory_mb": 1024.0})]
    for interval, end in ((1.0, 17.0), (0.0, 16.0)):
        cfg = SchedulerSettings(
            container_launch_latency_s=1.0, am_start_latency_s=4.0, am_heartbeat_interval_s=interval
        )
        s = predict(
            build_workload(jobs), flat_tree(a={}), containers(4), settings=cfg, engine=engine
        )
        task = s.attempts[~s.attempts["is_am"]].iloc[0]
        assert (task["start_s"], task["finish_s"]) == (5.0, end)
        assert s.jobs["finish_s"].iloc[0] == end


def test_the_am_sends_released_stages_and_takes_containers_on_its_allocate_cycle(engine):
    """One node (heartbeats every 1 s from 0) with room for four containers. The AM starts
    at 0 and is ready at 0.25 (start-up latency): its allocate calls fall on 0.25, 1.25, ...
    Its two maps go with the call at 0.25; node heartbeats allocate one container each, at
    1.0 and 2.0, and the AM takes them at its calls at 1.25 and 2.25: the maps run
    1.25-11.25 and 2.25-12.25, reported at the heartbeats at 12.0 and 13.0. The map stage
    completes at 13.0; the AM asks for the reduce (slowstart 1.0) at its call at 13.25; the
    heartbeat at 14.0 allocates it, the AM takes it at 14.25, and it works 5 s, to 19.25,
    reported at 20.0, the job's end. Without the cycle: maps 1-11 and 2-12, the reduce
    allocated at 13 and run 13-18, the job's end at 19."""
    tasks = [("map", 10, 1024)] * 2 + [("reduce", 5, 1024)]
    jobs = [("j", "a", 0, tasks, {"am_memory_mb": 1024.0})]
    expected = {
        1.0: ([1.0, 2.0, 14.0], [11.25, 12.25, 19.25], 20.0),
        0.0: ([1.0, 2.0, 13.0], [11.0, 12.0, 18.0], 19.0),
    }
    for interval, (starts, finishes, end) in expected.items():
        cfg = SchedulerSettings(
            am_start_latency_s=0.25, am_heartbeat_interval_s=interval, slowstart_completed_maps=1.0
        )
        s = predict(
            build_workload(jobs), flat_tree(a={}), Cluster.parse("nodes=1,memory-mb=4096,vcores=4"),
            settings=cfg, engine=engine,
        )  # fmt: skip
        a = s.attempts[~s.attempts["is_am"]].sort_values("start_s")
        assert a["start_s"].tolist() == starts
        assert a["finish_s"].tolist() == finishes
        assert s.jobs["finish_s"].iloc[0] == end


def test_slowstart_releases_reduces_after_the_fraction_of_maps(engine):
    """Reduces are requested once half the maps completed, and end after the last map."""
    tasks = [("map", 10, 1024)] * 4 + [("map", 20, 1024)] * 4 + [("reduce", 5, 1024)]
    cfg = SchedulerSettings(slowstart_completed_maps=0.5)
    s = predict_one_job(tasks, containers(8), engine, cfg)
    red = s.attempts[s.attempts["stage"] == "reduce"].iloc[0]
    assert red["start_s"] == 10.0
    assert red["finish_s"] == 20.0  # max(10 + 5, last map at 20)


def test_slowstart_one_waits_for_every_map(engine):
    """slowstart 1.0 starts reduces only when all maps completed."""
    tasks = [("map", 10, 1024)] * 2 + [("reduce", 5, 1024)]
    cfg = SchedulerSettings(slowstart_completed_maps=1.0)
    s = predict_one_job(tasks, containers(8), engine, cfg)
    red = s.attempts[s.attempts["stage"] == "reduce"].iloc[0]
    assert (red["start_s"], red["finish_s"]) == (10.0, 15.0)


def test_reduce_with_shuffle_times_replays_only_its_own_work(engine):
    """A reduce observed waiting for maps replays its shuffle tail and own work after the last map."""
    maps = [("map", 20, 1024, {"observed_start_s": 0.0, "observed_finish_s": 50.0})]
    reduce = (
        "reduce",
        65,
        1024,
        {"observed_start_s": 0.0, "shuffle_finish_s": 55.0, "observed_finish_s": 65.0},
    )
    cfg = SchedulerSettings(slowstart_completed_maps=0.0)
    s = predict_one_job(maps + [reduce], containers(4), engine, cfg)
    red = s.attempts[s.attempts["stage"] == "reduce"].iloc[0]
    # last predicted map at 20; shuffle tail 55 - 50 = 5; own work 65 - 55 = 10
    assert (red["start_s"], red["finish_s"]) == (0.0, 35.0)


def test_reduce_without_shuffle_times_replays_the_part_after_the_last_map(engine):
    """No shuffle time: a reduce observed from 0 to 60 whose job's maps were observed to
    finish at 50 replays its last 10 s after the predicted last map, and the simulation
    decides the waiting. Three containers: the maps run 0-20 beside the reduce (slowstart
    0; the AM asks for it once both maps are assigned, at 0), so it ends at 20 + 10 = 30
    (its whole 60 s replayed, it would end at 60). A reduce observed starting after the
    maps (55-70) replays its whole 15 s from its predicted start: waiting from 0, it ends
    at 20 + 15 = 35."""
    observed_maps = {"observed_start_s": 0.0, "observed_finish_s": 50.0}
    for observed, end in (((0.0, 60.0), 30.0), ((55.0, 70.0), 35.0)):
        reduce = (
            "reduce",
            observed[1] - observed[0],
            1024,
            {"observed_start_s": observed[0], "observed_finish_s": observed[1]},
        )
        s = predict_one_job(
            [("map", 20, 1024, observed_maps)] * 2 + [reduce],
            containers(3),
            engine,
            SchedulerSettings(slowstart_completed_maps=0.0),
        )
        a = s.attempts.sort_values(["start_s", "task_id"])
        assert a["stage"].tolist() == ["map", "map", "reduce"]
        assert a["start_s"].tolist() == [0.0, 0.0, 0.0]
        assert a["finish_s"].tolist() == [20.0, 20.0, end]


def test_reduces_do_not_hog_the_cluster_the_am_ramps_them_up(engine):
    """Two containers, three 10 s maps and two 5 s reduces, slowstart 0. The AM ramps its
    reduces up (RMContainerAllocator.scheduleReduces): with no map done their ideal share
    is 0, and the rest of its limit (2 containers) holds 2 maps < the 3 asked for, so no
    reduce asks while a map is unassigned (before the ramp-up both asked at once, held
    both containers, and the AM killed them for the maps). Maps at 0, 0 and 10; at 10
    every map is assigned, the reduces ask: 003 at 10, waiting for map_002's end at 20;
    004 at 20, ending at 25. Nothing is killed."""
    tasks = [("map", 10, 1024)] * 3 + [("reduce", 5, 1024)] * 2
    cfg = SchedulerSettings(slowstart_completed_maps=0.0)
    s = predict_one_job(tasks, containers(2), engine, cfg)
    a = s.attempts.sort_values(["start_s", "task_id"])
    assert a["start_s"].tolist() == [0.0, 0.0, 10.0, 10.0, 20.0]
    assert a["stage"].tolist() == ["map", "map", "map", "reduce", "reduce"]
    assert (a["state"] == "SUCCEEDED").all() and s.jobs["finish_s"].tolist() == [25.0]


def preemption_case(**b_queue):
    """Queue a fills 12 containers with 100 s tasks; queue b submits at t=10."""
    alloc = flat_tree(a={}, b=b_queue)
    jobs = [("ja", "a", 0, [("map", 100, 1024)] * 24), ("jb", "b", 10, [("map", 100, 1024)] * 4)]
    return build_workload(jobs), alloc


def test_a_victim_gives_up_only_what_keeps_its_fair_share_across_one_apps_scans(engine):
    """Hadoop 3 (FSPreemptionThread.identifyContainersToPreempt tracks each container's
    victims on their app at once, and canContainerBePreempted subtracts them): 16 one-GB
    containers, queue a (min share 12 GB, fair share 12288) holds 8 for ja0, queue b
    (fair 4096) 8 for jb; ja1 joins a at 1. At 6 (timeouts 5 s) ja1 is starved for 3072
    (half its fair share, 6144 of a's 12288) and for its pending 8192 less that 3072 less
    the 1024 a lacks of its min share beyond it (4096): 7 containers. jb
    may give 4 (8192 down to its 4096) and ja0 2 (down to 6144): 6 kills, not 7 from jb
    (which counted none of the scans' earlier victims and left it at 1 GB of 4)."""
    alloc = flat_tree(
        a={
            "min_resources": Resources(12288, 12),
            "min_share_preemption_timeout_s": 5.0,
            "fair_share_preemption_timeout_s": 5.0,
        },
        b={},
    )
    maps = [("map", 100, 1024)] * 8
    jobs = [("ja0", "a", 0, maps), ("jb", "b", 0, maps), ("ja1", "a", 1, maps)]
    cfg = SchedulerSettings(
        preemption=True, hadoop_version=3, utilization_threshold=0.0, wait_time_before_kill_s=0.0
    )
    s = predict(build_workload(jobs), alloc, containers(16), settings=cfg, engine=engine)
    killed = s.attempts[s.attempts["preempted"]]
    assert killed.groupby("job_id").size().to_dict() == {"ja0": 2, "jb": 4}
    assert set(killed["finish_s"]) == {6.0}
    assert s.jobs.set_index("job_id")["finish_s"].to_dict() == {
        "ja0": 200.0,
        "jb": 200.0,
        "ja1": 200.0,
    }


def test_min_share_preemption_fires_after_its_timeout_and_not_before(engine):
    """Hadoop 3: b (min share 4) is starved from t=10; victims die at 10 + 20 + wait 5."""
    workload, alloc = preemption_case(
        min_resources=Resources(4096, 4), min_share_preemption_timeout_s=20.0
    )
    cfg = SchedulerSettings(preemption=True, wait_time_before_kill_s=5.0)
    s = predict(workload, alloc, containers(12), settings=cfg, engine=engine)
    b = s.attempts[s.attempts["job_id"] == "jb"]
    assert b["start_s"].min() == 35.0
    assert (b["start_s"] == 35.0).sum() == 4
    killed = s.attempts[s.attempts["preempted"]]
    assert len(killed) == 4 and (killed["finish_s"] == 35.0).all()
    assert (killed["job_id"] == "ja").all()


def test_hadoop3_starvation_is_found_only_at_update_times(engine):
    """b arrives at 10.3 and times out at 30.3; the update thread (every 2 s) sees it at 32."""
    alloc = flat_tree(
        a={}, b={"min_resources": Resources(4096, 4), "min_share_preemption_timeout_s": 20.0}
    )
    jobs = [("ja", "a", 0, [("map", 100, 1024)] * 24), ("jb", "b", 10.3, [("map", 100, 1024)] * 4)]
    cfg = SchedulerSettings(preemption=True, wait_time_before_kill_s=5.0, update_interval_s=2.0)
    s = predict(build_workload(jobs), alloc, containers(12), settings=cfg, engine=engine)
    killed = s.attempts[s.attempts["preempted"]]
    assert len(killed) == 4 and (killed["finish_s"] == 37.0).all()
    b = s.attempts[s.attempts["job_id"] == "jb"]
    assert (b["start_s"] == 37.0).sum() == 4


def test_no_preemption_below_the_utilization_threshold(engine):
    """A starved queue is not helped while utilization is at or below the threshold."""
    alloc = flat_tree(
        a={}, b={"min_resources": Resources(4096, 4), "min_share_preemption_timeout_s": 5.0}
    )
    jobs = [("ja", "a", 0, [("map", 100, 1024)] * 9), ("jb", "b", 10, [("map", 50, 4096)])]
    workload = build_workload(jobs)
    off = SchedulerSettings(preemption=True, wait_time_before_kill_s=0.0, utilization_threshold=0.8)
    s = predict(workload, alloc, containers(12), settings=off, engine=engine)
    assert not s.attempts["preempted"].any()
    assert s.attempts.set_index("job_id").loc["jb", "start_s"] == 100.0
    on = SchedulerSettings(preemption=True, wait_time_before_kill_s=0.0, utilization_threshold=0.7)
    s = predict(workload, alloc, containers(12), settings=on, engine=engine)
    assert s.attempts["preempted"].sum() == 1
    assert s.attempts[s.attempts["job_id"] == "jb"]["start_s"].iloc[0] == 15.0


def test_fair_share_preemption_needs_starvation_below_threshold(engine):
    """Hadoop 3 fair-share starvation: b's app (share 6) below 0.5 * 6 after 30 s gets 3 containers.

    At exactly 10 + 30 s: Hadoop 3 acts once ``now - lastTimeAtFairShare >= timeout``."""
    workload, alloc = preemption_case(fair_share_preemption_timeout_s=30.0)
    cfg = SchedulerSettings(preemption=True, wait_time_before_kill_s=0.0)
    s = predict(workload, alloc, containers(12), settings=cfg, engine=engine)
    b = s.attempts[s.attempts["job_id"] == "jb"]
    assert b["start_s"].min() == 40.0
    assert (b["start_s"] == 40.0).sum() == 3


def test_hadoop3_looks_at_the_newest_container_first_even_when_free_resources_fit(engine):
    """b's app is starved but its AM is held back by maxAMShare (floor(4096 * 0.2) < 1024),
    so the one free container already fits its request. Hadoop's
    identifyContainersToPreemptOnNode still examines one container before it tests the
    fit: the newest, n's, which n cannot give up (it is below its 2048 share; its 2048 map
    waits), so nothing is preempted, though r holds 4096 over its share. The AM starts
    once queue a empties at 200 and b's share doubles."""
    alloc = flat_tree(
        a={},
        b={"max_am_share": 0.2, "fair_share_preemption_timeout_s": 10.0},
    )
    am = {"am_memory_mb": 1024.0, "am_vcores": 1.0}
    jobs = [
        ("r", "a", 0, [("map", 100, 1024)] * 6),
        ("n", "a", 2, [("map", 100, 1024), ("map", 100, 2048)]),
        ("s", "b", 3, [("map", 10, 1024)], am),
    ]
    cfg = SchedulerSettings(preemption=True, wait_time_before_kill_s=0.0)
    s = predict(build_workload(jobs), alloc, containers(8), settings=cfg, engine=engine)
    assert not s.attempts["preempted"].any()
    s_am = s.attempts[(s.attempts["job_id"] == "s") & s.attempts["is_am"]]
    assert s_am["start_s"].tolist() == [200.0]


def test_queues_not_allowing_preemption_keep_their_containers(engine):
    """allowPreemptionFrom=false protects a queue's containers."""
    alloc = flat_tree(
        a={"allow_preemption_from": False},
        b={"min_resources": Resources(4096, 4), "min_share_preemption_timeout_s": 5.0},
    )
    workload, _ = preemption_case()
    cfg = SchedulerSettings(preemption=True, wait_time_before_kill_s=0.0)
    s = predict(workload, alloc, containers(12), settings=cfg, engine=engine)
    assert not s.attempts["preempted"].any()


def test_hadoop2_warns_then_kills_after_the_wait(engine):
    """Hadoop 2: a check on the 5 s grid warns victims and a later check kills them (15-20 s)."""
    workload, alloc = preemption_case(
        min_resources=Resources(4096, 4), min_share_preemption_timeout_s=20.0
    )
    cfg = SchedulerSettings(preemption=True, hadoop_version=2, wait_time_before_kill_s=15.0)
    s = predict(workload, alloc, containers(12), settings=cfg, engine=engine)
    killed = s.attempts[s.attempts["preempted"]]
    # starved from 10, timeout expires at 30 and acts strictly after it (resToPreempt:
    # curTime - last > timeout): warned at 35, killed once warned longer than 15 s, at 55
    assert len(killed) == 4 and (killed["finish_s"] == 55.0).all()
    assert s.attempts[s.attempts["job_id"] == "jb"]["start_s"].min() == 55.0


def test_hadoop1_slot_pools_are_separate(engine):
    """Hadoop 1: maps and reduces draw from their own slot pools."""
    from whatif import Cluster

    tasks = [("map", 10, 1024)] * 4 + [("reduce", 10, 1024)] * 4
    # the instant model: heartbeats are tested in test_heartbeats.py
    cfg = SchedulerSettings(
        hadoop_version=1, slowstart_completed_maps=0.0, heartbeats=False, setup_cleanup_s=0.0
    )
    s = predict_one_job(tasks, Cluster.parse("map-slots=2,reduce-slots=1"), engine, cfg)
    at0 = s.attempts[s.attempts["start_s"] == 0]
    assert (at0["stage"] == "map").sum() == 2 and (at0["stage"] == "reduce").sum() == 1
    # maps end at 20; the first reduce waits for them, the other three follow on one slot
    assert s.jobs["finish_s"].iloc[0] == 50.0


def test_hadoop1_min_maps_preemption_kills_newest_tasks_at_once(engine):
    """Hadoop 1: a pool below minMaps after its timeout kills the newest tasks immediately."""
    alloc = flat_tree(a={}, b={"min_maps": 2, "min_share_preemption_timeout_s": 10.0})
    jobs = [("ja", "a", 0, [("map", 100, 1024)] * 8), ("jb", "b", 5, [("map", 100, 1024)] * 2)]
    s = predict_hadoop1_preemption(jobs, alloc, engine)
    killed = s.attempts[s.attempts["preempted"]]
    # starved from 5; tasksToPreempt acts once curTime - last > timeout: not at 15, at 20
    assert len(killed) == 2 and (killed["finish_s"] == 20.0).all()


def test_hadoop1_preemption_on_a_memory_cluster_kills_only_the_memory_missing(engine):
    """Hadoop 1 without slot pools: memory is the pool, so a kill counts the task's memory
    against the amount to preempt (not one unit of it)."""
    alloc = flat_tree(
        a={},
        b={
            "min_resources": Resources(2048, 2),
            "min_share_preemption_timeout_s": 5.0,
        },
    )
    jobs = [("ja", "a", 0, [("map", 100, 1024)] * 8), ("jb", "b", 1, [("map", 100, 1024)] * 2)]
    cfg = SchedulerSettings(
        hadoop_version=1, preemption=True, preemption_interval_s=5.0, setup_cleanup_s=0.0
    )
    s = predict(build_workload(jobs), alloc, containers(8), settings=cfg, engine=engine)
    killed = s.attempts[s.attempts["preempted"]]
    # b misses 2048 MB from 1; the check at 10 kills a's two newest 1024 MB tasks
    assert killed["job_id"].tolist() == ["ja", "ja"] and (killed["finish_s"] == 10.0).all()
    assert (s.attempts[s.attempts["job_id"] == "jb"]["start_s"] == 10.0).all()


def test_undeclared_queue_is_created_as_a_leaf(engine):
    """A job in a queue missing from the tree runs in a leaf created with the defaults."""
    s = predict(
        build_workload([("j", "adhoc", 0, [("map", 10, 1024)])]),
        flat_tree(a={}),
        containers(2),
        engine=engine,
    )
    assert s.jobs["queue"].tolist() == ["root.adhoc"] and s.jobs["finish_s"].tolist() == [10.0]


def test_job_submitted_to_a_parent_queue_is_rejected():
    """Apps can only go to leaves."""
    tree = EffectiveAllocation(
        root=EffectiveQueue(
            "root", children=(EffectiveQueue("root.p", children=(EffectiveQueue("root.p.x"),)),)
        )
    )
    with pytest.raises(ValidationError, match="parent queue"):
        predict(
            build_workload([("j", "p", 0, [("map", 1, 1024)])]),
            tree,
            containers(2),
            engine="reference",
        )


def test_requests_round_up_to_the_increment(engine):
    """A 1500 MB request takes 2048 MB, so only two fit in 4 GB."""
    s = predict_one_job([("map", 10, 1500)] * 3, containers(4), engine)
    assert s.attempts["memory_mb"].tolist() == [2048.0] * 3
    assert sorted(s.attempts["start_s"].tolist()) == [0.0, 0.0, 10.0]


def test_settings_validation_names_the_field():
    """Bad settings raise ValidationError naming the field."""
    with pytest.raises(ValidationError, match="utilization_threshold"):
        SchedulerSettings(utilization_threshold=1.5)
    with pytest.raises(ValidationError, match="hadoop_version"):
        SchedulerSettings(hadoop_version=4)
    with pytest.raises(ValidationError, match="engine"):
        predict(
            build_workload([("j", "a", 0, [("map", 1, 1024)])]),
            flat_tree(a={}),
            containers(1),
            engine="java",
        )


def test_advance_to_rejects_going_back():
    """A simulation cannot move backwards in time."""
    sim = Simulation(
        build_workload([("j", "a", 0, [("map", 10, 1024)])]),
        flat_tree(a={}),
        containers(1),
        engine="reference",
    )
    sim.advance_to(5)
    with pytest.raises(ValidationError, match="advance_to"):
        sim.advance_to(1)


def test_reconfigure_changes_shares_from_then_on(engine):
    """Raising b's weight mid-run gives b more of the containers that free up afterwards."""
    alloc = flat_tree(a={}, b={})
    jobs = [("ja", "a", 0, [("map", 10, 1024)] * 40), ("jb", "b", 0, [("map", 10, 1024)] * 40)]
    sim = Simulation(build_workload(jobs), alloc, containers(4), engine=engine)
    assert sim.advance_to(5).state().running.groupby("job_id").size().to_dict() == {
        "ja": 2,
        "jb": 2,
    }
    sim.reconfigure(flat_tree(a={}, b={"weight": 3.0}))
    sim.advance_to(15)
    assert sim.state().running.groupby("job_id").size().to_dict() == {"ja": 1, "jb": 3}
    assert sim.run_to_end().jobs["state"].eq("SUCCEEDED").all()


def test_am_whose_id_is_a_task_id_shares_its_attempt_numbering(engine):
    """An AM ("<job>_am") and a task named the same get attempts _0 and _1, not two _0."""
    jobs = pd.DataFrame(
        {"job_id": ["j"], "queue": ["root.a"], "submit_s": [0.0], "am_memory_mb": [1024.0]}
    )
    tasks = pd.DataFrame(
        {
            "job_id": ["j"],
            "task_id": ["j_am"],
            "stage": ["map"],
            "duration_s": [5.0],
            "memory_mb": [1024.0],
            "vcores": [1.0],
        }
    )
    s = predict(Workload(jobs, tasks), flat_tree(a={}), containers(4), engine=engine)
    by_id = s.attempts.set_index("attempt_id")["is_am"].to_dict()
    assert by_id == {"j_am_0": True, "j_am_1": False}


def test_workload_of_jobs_without_tasks_gives_their_am_attempts(engine):
    """Jobs with an AM and no tasks (no task table rows at all) schedule just their AMs."""
    jobs = pd.DataFrame(
        {"job_id": ["j1", "j2"], "queue": ["root.a"] * 2, "submit_s": [0.0, 1.0]}
    ).assign(am_memory_mb=1024.0)
    tasks = pd.DataFrame(
        columns=["job_id", "task_id", "stage", "duration_s", "memory_mb", "vcores"]
    )
    s = predict(Workload(jobs, tasks), flat_tree(a={}), containers(4), engine=engine)
    assert s.attempts["attempt_id"].tolist() == ["j1_am_0", "j2_am_0"]
    assert s.attempts["stage"].tolist() == ["am", "am"]
