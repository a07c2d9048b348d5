"""The Capacity Scheduler's preemption monitor, computed by hand on both engines
(``whatif/predictor/kernel/capacity_preemption.py``, docs/capacity-scheduler.md section 6).

The base case: 8 containers of 1024 MB, root.a and root.b at 50 % each, a elastic
(user-limit-factor 2). Job ja holds the whole cluster from 0 with eight 1000 s maps; jb
(two 100 s maps) arrives in b at 10. Rounds run at multiples of 3 s; the first after 10
is at 12. There (MB): a uses 8192, guarantee 4096, pending 0 (its user is at its limit);
b uses 0 and asks 2048. Ideal: a 4096, b 0, 4096 unassigned; b (least ideal/guarantee)
is offered half, 2048, all it asks; then a is offered the 2048 left: ideal a 6144, b
2048. a's to-preempt is 8192 - 6144 = 2048, within the round's budget (0.5 x 8192);
to-obtain 2048 x 0.2 = 409.6, rounded half up to 410: one container, ja's newest
(ja_map_007), marked at 12 and killed by the round at 12 + 15 = 27, where b takes it.
At 30 a uses 7168 and asks 1024 (its killed task), b uses 1024 and asks 1024: ideal b
2048, a 6144, to-obtain 205: ja_map_006, marked at 30, killed at 45. At 48 a (6144)
is at its ideal: nothing more. The killed tasks re-run when jb's maps end (127, 145).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from predictor_cases import build_workload
from samples import capacity_document as document
from test_capacity import engines_agree, random_cluster, random_tree

from whatif import Cluster
from whatif.capacity import queue_tree
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, predict
from whatif.predictor.capacity import (
    CapacityMonitor,
    capacity_allocation,
    preemption_disabled,
    read_monitor,
)
from whatif.predictor.reference.livelock import Livelock
from whatif.predictor.simulation import Simulation

MONITOR = "yarn.resourcemanager.monitor.capacity.preemption."
CLUSTER = "memory-mb=8192,vcores=8"


def base(**monitor: object) -> dict[str, object]:
    """The base case's queues; `monitor` sets preemption.* properties."""
    props: dict[str, object] = {
        "root.queues": "a,b",
        "root.a.capacity": 50,
        "root.b.capacity": 50,
        "root.a.user-limit-factor": 2,
        MONITOR + "total_preemption_per_round": 0.5,
    }
    props.update({MONITOR + k: v for k, v in monitor.items()})
    return props


def maps(name, queue, submit, n, duration, user, **extra):
    return (name, queue, submit, [("map", duration, 1024.0)] * n, {"user": user, **extra})


BASE_JOBS = [maps("ja", "a", 0, 8, 1000.0, "u"), maps("jb", "b", 10, 2, 100.0, "v")]


def run(jobs, props, engine, preemption=True, am_calls_s=0.0):
    """The schedule's attempts (sorted by start, then attempt id) and jobs by id; the AMs
    call every `am_calls_s` (0: no allocate cycle)."""
    cluster = Cluster.parse(CLUSTER)
    schedule = predict(
        build_workload(jobs),
        capacity_allocation(document(props), cluster),
        cluster,
        settings=SchedulerSettings(preemption=preemption, am_heartbeat_interval_s=am_calls_s),
        engine=engine,
    )
    attempts = schedule.attempts.sort_values(["start_s", "attempt_id"], kind="stable")
    return attempts, schedule.jobs.set_index("job_id")


def killed(attempts) -> list[tuple[str, float, float]]:
    """(attempt, start, kill time) of every preempted attempt, by kill time."""
    k = attempts[attempts["preempted"]].sort_values("finish_s")
    return list(zip(k["attempt_id"], k["start_s"], k["finish_s"], strict=True))


def starts(attempts, job: str) -> list[float]:
    return sorted(attempts.loc[attempts["job_id"] == job, "start_s"].tolist())


def test_an_over_guarantee_queue_yields_to_a_starved_one(engine):
    """The base case (module docstring): ja_map_007 marked at 12, killed at 27;
    ja_map_006 marked at 30, killed at 45; jb runs at 27 and 45; the killed tasks re-run
    at 127 and 145."""
    attempts, jobs = run(BASE_JOBS, base(), engine)
    assert killed(attempts) == [("ja_map_007_0", 0.0, 27.0), ("ja_map_006_0", 0.0, 45.0)]
    assert starts(attempts, "jb") == [27.0, 45.0]
    again = attempts[attempts["attempt_id"].isin(["ja_map_007_1", "ja_map_006_1"])]
    assert again["start_s"].tolist() == [127.0, 145.0]
    assert jobs.loc["jb", "finish_s"] == 145.0 and jobs.loc["ja", "finish_s"] == 1145.0


def test_preemption_off_jb_waits_for_ja(engine):
    """Without the monitor nothing is killed: jb starts when ja's maps end at 1000."""
    attempts, _ = run(BASE_JOBS, base(), engine, preemption=False)
    assert killed(attempts) == []
    assert starts(attempts, "jb") == [1000.0, 1000.0]


def test_the_file_turns_the_monitor_on(engine):
    """yarn.resourcemanager.scheduler.monitor.enable true in the file: the same kills
    without SchedulerSettings.preemption."""
    props = {**base(), "yarn.resourcemanager.scheduler.monitor.enable": "true"}
    attempts, _ = run(BASE_JOBS, props, engine, preemption=False)
    assert [k[2] for k in killed(attempts)] == [27.0, 45.0]


@pytest.mark.parametrize(
    ("ignored", "kills", "jb"),
    [
        (0.74, [27.0, 45.0], [27.0, 45.0]),
        (0.75, [27.0], [27.0, 127.0]),
        (1.0, [], [1000.0, 1000.0]),
    ],
)
def test_dead_zone(engine, ignored, kills, jb):
    """max_ignored_over_capacity: a (guarantee 4096) yields only while its usage is above
    4096 x (1 + it), truncated: at 0.74 (7127) both at 12 (8192 used) and at 30 (7168);
    at 0.75 (7168) only at 12 (jb's second map waits for its first); at 1.0 (8192)
    never, and jb waits until ja's maps end."""
    attempts, _ = run(BASE_JOBS, base(max_ignored_over_capacity=ignored), engine)
    assert [k[2] for k in killed(attempts)] == kills
    assert starts(attempts, "jb") == jb


def test_natural_termination_factor(engine):
    """natural_termination_factor 1: a's whole to-preempt (2048) is taken at once: ja's
    two newest containers, both marked at 12 and killed at 27; jb gets both at 27."""
    attempts, _ = run(BASE_JOBS, base(natural_termination_factor=1.0), engine)
    assert killed(attempts) == [("ja_map_006_0", 0.0, 27.0), ("ja_map_007_0", 0.0, 27.0)]
    assert starts(attempts, "jb") == [27.0, 27.0]


def test_per_round_budget(engine):
    """total_preemption_per_round 0.125 (budget 1024) with natural_termination_factor 1:
    a needs 2048, scaled by 1024 / 2048 to a to-preempt of 1024: one container a round
    (ja_map_007 marked at 12, ja_map_006 at 30). At the default 0.1 the budget (819 MB)
    holds no 1024 MB container: nothing is ever taken."""
    props = base(total_preemption_per_round=0.125, natural_termination_factor=1.0)
    attempts, _ = run(BASE_JOBS, props, engine)
    assert [(k[0], k[2]) for k in killed(attempts)] == [
        ("ja_map_007_0", 27.0),
        ("ja_map_006_0", 45.0),
    ]
    attempts, _ = run(BASE_JOBS, base(total_preemption_per_round=0.1), engine)
    assert killed(attempts) == []
    assert starts(attempts, "jb") == [1000.0, 1000.0]


def test_disable_preemption(engine):
    """root.a.disable_preemption: a's containers are never taken; jb waits until 1000."""
    attempts, _ = run(BASE_JOBS, {**base(), "root.a.disable_preemption": "true"}, engine)
    assert killed(attempts) == []
    assert starts(attempts, "jb") == [1000.0, 1000.0]


def test_am_containers_are_set_aside(engine):
    """j1 (seven maps) and j2 (an AM, its map pending) share a; j2, the newer app, is
    visited first, but its only container is its AM, set aside: the victims are j1's
    newest maps (j1_map_006 killed at 27, j1_map_005 at 45), never j2's AM."""
    jobs = [
        maps("j1", "a", 0, 7, 1000.0, "u"),
        maps("j2", "a", 1, 1, 1000.0, "u", am_memory_mb=1024.0),
        maps("jb", "b", 10, 2, 100.0, "v"),
    ]
    attempts, _ = run(jobs, base(), engine)
    assert killed(attempts) == [("j1_map_006_0", 0.0, 27.0), ("j1_map_005_0", 0.0, 45.0)]
    am = attempts[attempts["is_am"] & (attempts["job_id"] == "j2")]
    assert am["state"].tolist() == ["SUCCEEDED"]
    assert starts(attempts, "jb") == [27.0, 45.0]


def am_jobs(second: str = "map"):
    """ja (an AM and one 3072 MB map of 1000 s) from 0 and jc (an AM, a 3072 MB map of 5 s
    and a 3072 MB task of 1000 s in stage `second`) from 1 fill a; jb (two 1024 MB maps of
    100 s) arrives in b at 10."""
    am = {"user": "u", "am_memory_mb": 1024.0}
    return [
        ("ja", "a", 0, [("map", 1000.0, 3072.0)], am),
        ("jc", "a", 1, [("map", 5.0, 3072.0), (second, 1000.0, 3072.0)], am),
        maps("jb", "b", 10, 2, 100.0, "v"),
    ]


def am_props(percent: float) -> dict[str, object]:
    """The base queues with a budget of 2048 MB a round (total_preemption_per_round 0.25),
    natural_termination_factor 0.5 and a's maximum-am-resource-percent `percent`."""
    props = base(total_preemption_per_round=0.25, natural_termination_factor=0.5)
    props["root.a.maximum-am-resource-percent"] = percent
    return props


def rows(attempts, job: str) -> list[tuple[str, float, float, str, bool]]:
    """(attempt, start, finish, state, preempted) of the job's attempts, by attempt id."""
    mine = attempts[attempts["job_id"] == job].sort_values("attempt_id")
    cols = ["attempt_id", "start_s", "finish_s", "state", "preempted"]
    return [tuple(r) for r in mine[cols].itertuples(index=False)]


@pytest.mark.parametrize("second", ["map", "reduce"])
def test_an_am_is_taken_when_the_set_aside_ams_exceed_the_max_am_capacity(engine, second):
    """At 12 (as in the base case) a must yield 2048 x 0.5 = 1024 MB; its running tasks
    (3072 MB) do not fit the round's 2048 MB budget, its AMs (jc's, then ja's: newest app
    first) are set aside: 2048 MB, above a's max AM capacity 4096 x 0.3f = 1228 (truncated),
    so jc's AM is taken (marked at 12, killed at 27). jc's attempt fails: its running task
    (map_001, or with `second` reduce, reduce_001 with the map stage completed at 6) is
    killed too (not a preemption), its completed map_000 stays done. jb takes two of the
    4096 MB freed at 27 and jc's second AM a third (within a's AM limit, 2048); the new AM
    asks again only for task 001, which starts when jb's maps end (127) and ends at 1127:
    121 s later than without the kill (1006, next test)."""
    attempts, jobs = run(am_jobs(second), am_props(0.3), engine)
    assert killed(attempts) == [("jc_am_0", 1.0, 27.0)]
    assert rows(attempts, "jc") == [
        ("jc_am_0", 1.0, 27.0, "KILLED", True),
        ("jc_am_1", 27.0, 1127.0, "SUCCEEDED", False),
        ("jc_map_000_0", 1.0, 6.0, "SUCCEEDED", False),
        (f"jc_{second}_001_0", 6.0, 27.0, "KILLED", False),
        (f"jc_{second}_001_1", 127.0, 1127.0, "SUCCEEDED", False),
    ]
    assert starts(attempts, "jb") == [27.0, 27.0]
    assert jobs["finish_s"].to_dict() == {"ja": 1000.0, "jc": 1127.0, "jb": 127.0}


def test_a_new_am_attempt_asks_for_a_task_its_failed_one_had_not_asked_for_again(engine):
    """AMs calling every 1 s (their calls on whole seconds): ja's 3072 MB map runs from 1
    (taken at the call after 0), jc's two 2048 MB maps leave room for one (map_000, from
    2). The monitor marks at 12 and kills at 27 jc's map_000, then jc's AM (above a's max
    AM capacity, as above): the AM would have asked for the map again at 29 (the call after
    the one at 28 that reported it), but its attempt fails first, and the next one
    (started at 110, when jb's first map ends) asks for every task not completed, in
    task order: map_000 from 128 (allocated at 127) and map_001 from 1002 (allocated at
    1001, when ja's map ends), so jc ends at 2002. Had the failed attempt taken the map's
    pending request with it, jc would never end; before the new attempt asked in task
    order, map_001 (never run) went first."""
    am = {"user": "u", "am_memory_mb": 1024.0}
    jobs = [
        ("ja", "a", 0, [("map", 1000.0, 3072.0)], am),
        ("jc", "a", 1, [("map", 1000.0, 2048.0)] * 2, am),
        maps("jb", "b", 10, 4, 100.0, "v"),
    ]
    props = base(total_preemption_per_round=0.5, natural_termination_factor=1.0)
    props["root.a.maximum-am-resource-percent"] = 0.3
    attempts, jobs = run(jobs, props, engine, am_calls_s=1.0)
    assert killed(attempts) == [("jc_am_0", 1.0, 27.0), ("jc_map_000_0", 1.0, 27.0)]
    assert rows(attempts, "jc") == [
        ("jc_am_0", 1.0, 27.0, "KILLED", True),
        ("jc_am_1", 110.0, 2002.0, "SUCCEEDED", False),
        ("jc_map_000_0", 1.0, 27.0, "KILLED", True),
        ("jc_map_000_1", 127.0, 1128.0, "SUCCEEDED", False),
        ("jc_map_001_0", 1001.0, 2002.0, "SUCCEEDED", False),
    ]
    assert jobs["finish_s"].to_dict() == {"ja": 1001.0, "jc": 2002.0, "jb": 127.0}


def test_an_am_is_not_taken_within_the_max_am_capacity(engine):
    """maximum-am-resource-percent 0.5: a's max AM capacity is 2048, the set-aside AMs'
    2048 MB are within it, and nothing else fits the budget: nothing is taken, jb waits
    for ja to end (1000) and jc ends at 6 + 1000."""
    attempts, jobs = run(am_jobs(), am_props(0.5), engine)
    assert killed(attempts) == []
    assert starts(attempts, "jb") == [1000.0, 1000.0]
    assert jobs["finish_s"].to_dict() == {"ja": 1000.0, "jc": 1006.0, "jb": 1100.0}


def test_a_marked_container_ending_on_its_own_is_not_killed(engine):
    """A mark only warns. With natural_termination_factor 1, jb's 1024 MB ask makes a
    yield one container at 12: the newest app's (jc, visited first in reverse fifo
    order), marked. jc's map ends at 20, before its kill was due (27); b takes the room
    at 20, a is within its ideal from then on, and nothing is killed."""
    jobs = [
        maps("ja", "a", 0, 7, 1000.0, "u"),
        maps("jc", "a", 0, 1, 20.0, "u"),
        maps("jb", "b", 10, 1, 100.0, "v"),
    ]
    attempts, _ = run(jobs, base(natural_termination_factor=1.0), engine)
    assert killed(attempts) == []
    assert starts(attempts, "jb") == [20.0]
    attempts, _ = run(jobs, base(natural_termination_factor=1.0, max_wait_before_kill=6000), engine)
    assert killed(attempts) == [("jc_map_000_0", 0.0, 18.0)]
    assert starts(attempts, "jb") == [18.0]


# The monitor's livelock: b (maximum 60 %: 4915 MB) runs jb's 3072 MB AM, and jb's
# 2048 MB map never fits under that maximum; a (guarantee 4096) holds ja's 4096 MB AM and
# one 1024 MB map. Every round sees b asking and a over its guarantee, so ja's map is
# marked and killed at the next round (max_wait_before_kill 0); b cannot use the room
# and ja takes it back. Without the livelock detection the run never ended.
LIVELOCK_JOBS = [
    ("ja", "a", 0, [("map", 100.0, 1024.0)] * 2, {"user": "u", "am_memory_mb": 4096.0}),
    ("jb", "b", 10, [("map", 100.0, 2048.0)], {"user": "v", "am_memory_mb": 3072.0}),
]


def livelock_props() -> dict[str, object]:
    props = base(max_wait_before_kill=0)
    props["root.b.maximum-capacity"] = 60
    props["root.a.maximum-am-resource-percent"] = 1.0
    props["root.b.maximum-am-resource-percent"] = 1.0
    return props


def test_a_monitor_livelock_ends_the_run_with_the_jobs_unfinished(engine):
    """ja_map_001 is killed at 15 (for jb's AM), ja_map_000 at 21; from then on a map
    starts at every kill and is killed 6 s later, the two maps in turn (a cycle of 12 s).
    The run ends at the first repeat found (16 quiet rounds, then Brent's search): at 159,
    with both jobs unfinished and ja_map_000 still running."""
    attempts, jobs = run(LIVELOCK_JOBS, livelock_props(), engine)
    kills = killed(attempts)
    assert kills[:2] == [("ja_map_001_0", 0.0, 15.0), ("ja_map_000_0", 0.0, 21.0)]
    assert [(k[1], k[2]) for k in kills[2:]] == [(s, s + 6.0) for s in range(21, 159, 6)]
    assert [k[0][:10] for k in kills[2:]] == ["ja_map_001", "ja_map_000"] * 11 + ["ja_map_001"]
    live = attempts[attempts["state"] == "RUNNING"]
    assert live["attempt_id"].tolist() == ["ja_am_0", "jb_am_0", "ja_map_000_12"]
    assert jobs["finish_s"].isna().all() and (jobs["state"] == "RUNNING").all()


def test_the_monitor_livelock_is_a_true_cycle(monkeypatch):
    """With the detection off (reference engine) the same input is still cycling at 1000:
    a map killed every 6 s, nothing finished."""
    monkeypatch.setattr(Livelock, "_cycling_v3", lambda self, t: False)
    cluster = Cluster.parse(CLUSTER)
    sim = Simulation(
        build_workload(LIVELOCK_JOBS),
        capacity_allocation(document(livelock_props()), cluster),
        cluster,
        settings=SchedulerSettings(preemption=True, am_heartbeat_interval_s=0.0),
        engine="reference",
    )
    sim.advance_to(1000.0)
    attempts = sim.state().attempts
    assert attempts["preempted"].sum() == 1 + (1000 - 21) // 6 + 1
    assert not (attempts["state"] == "SUCCEEDED").any()


def test_monitor_settings_are_read_with_hadoop_defaults():
    """Unset: Hadoop's defaults; set: the file's; the switch needs this policy listed."""
    assert read_monitor(document({})) == CapacityMonitor()
    doc = document(
        {
            "yarn.resourcemanager.scheduler.monitor.enable": " true ",
            MONITOR + "monitoring_interval": "1000",
            MONITOR + "max_wait_before_kill": "0x1388",
            MONITOR + "natural_termination_factor": "1",
        }
    )
    assert read_monitor(doc) == CapacityMonitor(
        enabled=True,
        monitoring_interval_ms=1000,
        max_wait_before_kill_ms=5000,
        natural_termination_factor=1.0,
    )
    other = document(
        {
            "yarn.resourcemanager.scheduler.monitor.enable": "true",
            "yarn.resourcemanager.scheduler.monitor.policies": "org.example.OtherPolicy",
        }
    )
    assert not read_monitor(other).enabled
    with pytest.raises(ValidationError, match="monitoring_interval"):
        read_monitor(document({MONITOR + "monitoring_interval": "0"}))
    with pytest.raises(ValidationError, match="natural_termination_factor"):
        read_monitor(document({MONITOR + "natural_termination_factor": "lots"}))


@pytest.mark.parametrize(
    ("settings", "disabled"),
    [
        pytest.param(
            {"root.p": "true", "root.p.y": "false"},
            {"root": False, "root.p": True, "root.p.x": True, "root.p.y": False, "root.c": False},
            id="set-or-inherited",
        ),
        # Configuration.getBoolean's default is the parent's value: a garbage or blank
        # disable_preemption changes nothing, as an unset one, and ' TRUE ' reads true.
        pytest.param(
            {"root.p": " TRUE ", "root.p.x": "yes", "root.p.y": " ", "root.c": "no"},
            {"root": False, "root.p": True, "root.p.x": True, "root.p.y": True, "root.c": False},
            id="not-a-boolean-is-inherited",
        ),
    ],
)
def test_disable_preemption_is_inherited_unless_set(settings, disabled):
    """A queue without a readable disable_preemption takes its parent's; one with it keeps
    its own."""
    doc = document(
        {
            "root.queues": "p,c",
            "root.p.queues": "x,y",
            **{f"{queue}.disable_preemption": value for queue, value in settings.items()},
        }
    )
    assert preemption_disabled(doc, queue_tree(doc)) == disabled


@st.composite
def preempting_scenarios(draw):
    """A random configuration (as `test_capacity.capacity_scenarios`: two or three leaves,
    maybe under a parent) with the monitor's settings drawn, and a workload that presses
    on it: one or two long jobs fill the cluster first, later ones arrive in any leaf."""
    props, leaves = random_tree(
        draw,
        (
            ("user-limit-factor", [2, -1, 1]),
            ("minimum-user-limit-percent", [100, 50]),
            ("maximum-am-resource-percent", [0.1, 0.5]),
            ("maximum-capacity", [100, 100, 60]),
            ("ordering-policy", ["fifo", "fair"]),
            ("disable_preemption", [None, None, None, "true"]),
        ),
    )
    for name, values in (
        ("monitoring_interval", [3000, 1000]),
        ("max_wait_before_kill", [2000, 0, 15000]),
        ("total_preemption_per_round", [0.5, 1.0, 0.1]),
        ("natural_termination_factor", [1.0, 0.2]),
        ("max_ignored_over_capacity", [0.1, 0.0]),
    ):
        props[MONITOR + name] = draw(st.sampled_from(values))
    jobs = []
    for j in range(draw(st.integers(2, 6))):
        early = j < draw(st.integers(1, 3))
        tasks = [
            (
                stage,
                float(draw(st.integers(20, 120) if early else st.integers(5, 60))),
                float(draw(st.sampled_from([512, 1024, 2048]))),
            )
            for stage in ["map"] * draw(st.integers(1, 10) if early else st.integers(1, 5))
            + ["reduce"] * draw(st.integers(0, 2))
        ]
        extra = {
            "user": draw(st.sampled_from(["u1", "u2"])),
            "am_memory_mb": draw(st.sampled_from([math.nan, 1024.0, 3072.0])),
        }
        queue = draw(st.sampled_from(leaves)).removeprefix("root.")
        submit = draw(st.integers(0, 5) if early else st.integers(5, 60))
        jobs.append((f"job_{j:02d}", queue, submit, tasks, extra))
    latency = draw(st.sampled_from([0.0, 4.0]))  # an AM killed before it is ready, or not
    return (
        build_workload(jobs),
        props,
        *random_cluster(draw, preemption=True, am_start_latency_s=latency),
    )


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(preempting_scenarios())
def test_engines_agree_with_the_preemption_monitor(scenario):
    """Both engines give the same schedule on random inputs with the monitor on."""
    workload, props, cluster, sched = scenario
    engines_agree(workload, capacity_allocation(document(props), cluster), cluster, sched)
