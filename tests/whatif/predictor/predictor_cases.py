"""Small workload and tree builders and expected timelines shared by the predictor tests.

A module of its own name, not the directory's conftest.py: tests import these helpers,
and every conftest.py outside a package is the module ``conftest``, so an import of it
could find another directory's (pytest loads the conftest of each path it is given).
"""

import math

import hypothesis
import numpy as np
import pandas as pd
from hypothesis import HealthCheck, Phase
from hypothesis import strategies as st
from samples import flat_tree, table

from whatif import Cluster, EffectiveAllocation, EffectiveQueue, ResourceLimit, Resources, Workload
from whatif.predictor import NoiseModel, SchedulerSettings, predict
from whatif.predictor.site import read_site

INF = math.inf


def build_workload(jobs):
    """jobs: (job_id, queue, submit_s, [(stage, duration_s, memory_mb), ...], extra job fields)."""
    job_rows, task_rows = [], []
    for job in jobs:
        job_id, queue, submit, tasks = job[:4]
        extra = job[4] if len(job) > 4 else {}
        job_rows.append({"job_id": job_id, "queue": queue, "submit_s": float(submit), **extra})
        for i, task in enumerate(tasks):
            stage, duration, memory = task[:3]
            more = task[3] if len(task) > 3 else {}
            task_rows.append(
                {
                    "job_id": job_id,
                    "task_id": f"{job_id}_{stage}_{i:03d}",
                    "stage": stage,
                    "duration_s": float(duration),
                    "memory_mb": float(memory),
                    "vcores": 1.0,
                    **more,
                }
            )
    return Workload(pd.DataFrame(job_rows), pd.DataFrame(task_rows))


def run_times(jobs, spec, engine, **settings):
    """(attempt starts, attempt finishes, job finishes) of `jobs` (see `build_workload`) in
    queue ``a`` of a flat tree on the cluster SPEC, in (start, task id) order; Hadoop 1's
    added setup and cleanup tasks off unless `settings` asks for them."""
    settings.setdefault("setup_cleanup_s", 0.0)
    schedule = predict(
        build_workload(jobs),
        flat_tree(a={}),
        Cluster.parse(spec),
        settings=SchedulerSettings(**settings),
        engine=engine,
    )
    a = schedule.attempts.sort_values(["start_s", "task_id"])
    return a["start_s"].tolist(), a["finish_s"].tolist(), schedule.jobs["finish_s"].tolist()


def starts_and_finishes(schedule, leave_out=("Z",)):
    """Per job of `schedule` but those in `leave_out`: its sorted attempt starts and its
    finish time."""
    a, j = schedule.attempts, schedule.jobs.set_index("job_id")
    return {
        name: (sorted(a.loc[a["job_id"] == name, "start_s"].tolist()), j.loc[name, "finish_s"])
        for name in j.index
        if name not in leave_out
    }


def predict_one_job(tasks, cluster, engine, settings=None):
    """The schedule of one job ``j`` of `tasks` (see `build_workload`) submitted at 0 to
    queue ``a`` of a flat tree on `cluster`, under `settings` (yarn-default.xml's if None)."""
    return predict(
        build_workload([("j", "a", 0, tasks)]),
        flat_tree(a={}),
        cluster,
        settings=SchedulerSettings() if settings is None else settings,
        engine=engine,
    )


def predict_hadoop1_preemption(jobs, allocation, engine):
    """The schedule of `jobs` (see `build_workload`) under Hadoop 1 preemption checked every
    5 s (no setup or cleanup tasks) on 4 map slots and 1 reduce slot."""
    return predict(
        build_workload(jobs),
        allocation,
        Cluster.parse("map-slots=4,reduce-slots=1"),
        settings=SchedulerSettings(
            hadoop_version=1, preemption=True, preemption_interval_s=5.0, setup_cleanup_s=0.0
        ),
        engine=engine,
    )


def replayed(max_examples):
    """Hypothesis settings that replay the same `max_examples` examples every run
    (derandomized, no example database, no shrinking, no deadline, slow data allowed)."""
    return hypothesis.settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),
        suppress_health_check=[HealthCheck.too_slow],
    )


def timeline(text):
    """(task, start, state) of each attempt as `samples.table` reads `text`, a line an
    attempt: ``map_000  0.0  SUCCEEDED``."""
    return table(text, str, float, str)


def containers(n, size_mb=1024):
    """A cluster of n one-vcore containers of size_mb."""
    return Cluster(memory_mb=float(n * size_mb), vcores=float(n))


def mapred_site_settings(tmp_path, name, value, hadoop_version=3):
    """The settings `read_site` takes, as Hadoop `hadoop_version`, from a mapred-site.xml in
    `tmp_path` (written over) that sets property `name` to `value` alone."""
    site = tmp_path / "mapred-site.xml"
    site.write_text(
        f"<configuration><property><name>{name}</name><value>{value}</value></property>"
        "</configuration>"
    )
    return read_site(site, hadoop_version=hadoop_version).settings


#: (unconditional, headroom) delays of the MapReduce AM's reduce preemption, in seconds
AM_DELAYS = [(300.0, 4.0), (10.0, 0.0), (10.0, 4.0), (-1.0, 4.0)]

#: A map's split locations in random Hadoop 1 scenarios: none, on trackers h0-h3 (racks
#: /r0 and /r1), a bare host, and a host that is no tracker.
SPLITS = ["", "/r0/h0", "/r1/h1,/r0/h2", "/r1/h3", "/r0/h9", "h1", "/r1/h1"]


@st.composite
def scenarios(draw):
    """A random queue tree, workload, cluster and scheduler settings."""
    version = draw(st.sampled_from([1, 2, 3]))
    slots = version == 1 and draw(st.booleans())
    n_leaves = draw(st.integers(1, 4))
    nested = draw(st.booleans()) and n_leaves >= 2
    leaves = []
    for i in range(n_leaves):
        parent = "root.p" if nested and i % 2 == 0 else "root"
        name = f"{parent}.q{i}"
        leaves.append(
            EffectiveQueue(
                name,
                weight=draw(st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 3.0])),
                min_resources=Resources(
                    draw(st.sampled_from([0, 0, 2048, 4096])), draw(st.sampled_from([0, 1, 2]))
                ),
                max_resources=ResourceLimit(
                    absolute=draw(st.sampled_from([None, Resources(4096, 4), Resources(8192, 100)]))
                ),
                max_running_apps=draw(st.sampled_from([None, None, 1, 2])),
                max_am_share=draw(st.sampled_from([0.5, -1.0, 0.2])),
                scheduling_policy=draw(st.sampled_from(["fair", "fair", "fifo", "drf"])),
                min_share_preemption_timeout_s=draw(st.sampled_from([INF, 5.0, 10.0])),
                fair_share_preemption_timeout_s=draw(st.sampled_from([INF, 5.0, 20.0])),
                fair_share_preemption_threshold=draw(st.sampled_from([0.5, 1.0])),
                allow_preemption_from=draw(st.booleans()) or True,
                min_maps=draw(st.sampled_from([None, 2])),
                max_reduces=draw(st.sampled_from([None, 1, 3])),
            )
        )
    top = [q for q in leaves if q.name.count(".") == 1]
    if nested:
        top.append(
            EffectiveQueue(
                "root.p",
                children=tuple(q for q in leaves if q.name.startswith("root.p.")),
                weight=draw(st.sampled_from([1.0, 2.0])),
                max_running_apps=draw(st.sampled_from([None, 2])),
                scheduling_policy=draw(st.sampled_from(["fair", "drf"])),
            )
        )
    root = EffectiveQueue(
        "root", children=tuple(top), scheduling_policy=draw(st.sampled_from(["fair", "drf"]))
    )
    allocation = EffectiveAllocation(
        root=root, user_max_apps={"u1": draw(st.sampled_from([1, 2, 5]))}
    )
    names = [q.name for q in leaves] + ["root.undeclared"]
    jobs, tasks = [], []
    for j in range(draw(st.integers(1, 7))):
        jid = f"job_{j:02d}"
        am = draw(st.sampled_from([np.nan, np.nan, 1024.0]))
        jobs.append(
            {
                "job_id": jid,
                "queue": draw(st.sampled_from(names)),
                "submit_s": float(draw(st.integers(0, 30))),
                "user": draw(st.sampled_from(["u1", "u2"])),
                "am_memory_mb": am,
                "am_vcores": 1.0,
            }
        )
        n_maps = draw(st.integers(1, 6))
        n_red = draw(st.integers(0, 3))
        for k in range(n_maps + n_red):
            stage = "map" if k < n_maps else "reduce"
            dur = float(draw(st.integers(0, 40)))
            row = {
                "job_id": jid,
                "task_id": f"{jid}_{stage}_{k:02d}",
                "stage": stage,
                "duration_s": dur,
                "memory_mb": float(draw(st.sampled_from([512, 1024, 2048]))),
                "vcores": float(draw(st.sampled_from([1, 2]))),
            }
            if stage == "reduce" and draw(st.booleans()):
                row.update(observed_start_s=0.0, shuffle_finish_s=dur / 2, observed_finish_s=dur)
            if slots:  # split locations (delay scheduling where the trackers are named)
                row["split_locations"] = "" if stage == "reduce" else draw(st.sampled_from(SPLITS))
            tasks.append(row)
    workload = Workload(pd.DataFrame(jobs), pd.DataFrame(tasks))
    if slots:
        trackers = draw(st.sampled_from([0, 0, 1, 3, 4]))  # named by host and rack, or not
        hosts = ";".join(f"/r{i % 2}/h{i}" for i in range(trackers))
        cluster = Cluster.parse(
            (f"hosts={hosts}," if hosts else "")
            + f"map-slots={draw(st.integers(2, 8))},reduce-slots={draw(st.integers(1, 4))}"
        )
    elif draw(st.booleans()):
        cluster = Cluster(
            memory_mb=float(draw(st.sampled_from([4096, 8192, 12288]))),
            vcores=float(draw(st.sampled_from([4, 8, 12]))),
        )
    else:
        # nodes: heartbeats (unless switched off below)
        cluster = Cluster.parse(
            f"nodes={draw(st.integers(1, 3))},memory-mb={draw(st.sampled_from([2048, 4096]))},"
            f"vcores={draw(st.sampled_from([2, 4]))}"
        )
    sched = SchedulerSettings(
        heartbeats=draw(st.booleans()) or draw(st.booleans()),
        assign_multiple=draw(st.booleans()),
        max_assign=draw(st.sampled_from([-1, 2])),
        dynamic_max_assign=draw(st.booleans()),
        assign_multiple_maps=draw(st.sampled_from([-1, 1])),
        assign_multiple_reduces=draw(st.sampled_from([-1, 2])),
        node_heartbeat_interval_s=draw(st.sampled_from([1.0, 3.0])),
        continuous_scheduling=version != 1 and draw(st.booleans()),
        continuous_scheduling_sleep_s=draw(st.sampled_from([0.005, 0.7])),
        preemption=draw(st.booleans()),
        hadoop_version=version,
        utilization_threshold=draw(st.sampled_from([0.0, 0.5, 0.8])),
        wait_time_before_kill_s=draw(st.sampled_from([0.0, 3.0, 15.0])),
        container_launch_latency_s=draw(st.sampled_from([0.0, 1.0])),
        am_start_latency_s=draw(st.sampled_from([0.0, 2.0])),
        slowstart_completed_maps=draw(st.sampled_from([0.0, 0.05, 1.0])),
        size_based_weight=draw(st.booleans()),
        preemption_interval_s=draw(st.sampled_from([1.0, 5.0])),
        min_allocation_mb=512.0,
        increment_mb=512.0,
        locality_delay_s=draw(st.sampled_from([-1.0, 0.0, 2.0])),
    )
    noise = draw(
        st.sampled_from(
            [None, NoiseModel(failure_probability=0.3, jitter_cv=0.2, straggler_probability=0.1)]
        )
    )
    return workload, allocation, cluster, sched, noise
