"""Hadoop 1 delay scheduling: maps wait for a tracker on their split's host, then its rack.

Three trackers of one map and one reduce slot: h0 and h1 on rack /r1, h2 on /r2. They
heartbeat every 3 s (``max(3 s, ceil(3 / 100) s)``) at phases 0, 1 and 2, so the locality
delay is ``min(15 s, 1.5 x 3 s) = 4.5 s``. Setup and cleanup tasks are off.
"""

import dataclasses
import logging

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from predictor_cases import (
    SPLITS,
    build_workload,
    flat_tree,
    mapred_site_settings,
    run_times,
    scenarios,
)

from whatif import Cluster, Workload
from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings, predict
from whatif.predictor.locality import _warn_unmatched

SPEC = "hosts=/r1/h0;/r1/h1;/r2/h2,map-slots=3,reduce-slots=3"
SLOW = [HealthCheck.too_slow]  # drawing a whole scenario takes a while


def _maps(*splits):
    return [("map", 10, 1024, {"split_locations": s}) for s in splits]


def test_a_job_waits_for_its_node_then_takes_a_rack_local_map_after_the_delay(engine):
    """Both maps are on h1. 0: h0 skips the job (node level). 1: h1 runs m0 (node-local;
    the wait, 1 s since the skip, is reset). 2: h2 skips it; 3: h0 (wait 1) skips it;
    4: h1, whose map slot is busy, does not visit it (wait 2, no skip); 5: h2 skips it; 6: h0
    (wait 3) skips it; 7: h1 (wait 4) does not visit it; 8: h2 skips it (4 < 4.5); 9: h0
    (wait 5 >= 4.5: rack level) runs m1, rack-local on /r1. m1 ends at 19, reported at h0's
    heartbeat at 21."""
    jobs = [("A", "a", 0, _maps("/r1/h1", "/r1/h1"))]
    assert run_times(jobs, SPEC, engine, hadoop_version=1) == ([1.0, 9.0], [11.0, 19.0], [21.0])


def test_without_split_locations_the_maps_go_to_the_first_free_trackers(engine):
    """The same job without split locations: h0 at 0, h1 at 1."""
    jobs = [("A", "a", 0, [("map", 10, 1024), ("map", 10, 1024)])]
    assert run_times(jobs, SPEC, engine, hadoop_version=1) == ([0.0, 1.0], [10.0, 11.0], [13.0])


def test_a_job_with_a_map_without_locations_takes_any_but_looks_on_the_rack_first(engine):
    """m1 has no split location (``nonLocalMaps``), so the job may launch anywhere, but
    ``obtainNewMapTask`` still looks on the node, then the rack: at 0 h0 takes m0 (split on
    h1, same rack), not m1; at 1 h1 takes m1, the only map left."""
    jobs = [("A", "a", 0, _maps("/r1/h1", "") + [("reduce", 1, 1024, {"split_locations": ""})])]
    starts, finishes, ends = run_times(jobs, SPEC, engine, hadoop_version=1)
    assert starts[:2] == [0.0, 1.0] and finishes[:2] == [10.0, 11.0]


def test_a_delay_of_zero_lets_a_job_take_any_map_at_once(engine):
    """``mapred.fairscheduler.locality.delay`` 0: at 0 h0 takes m0 rack-local, at 1 h1
    takes m1 node-local."""
    jobs = [("A", "a", 0, _maps("/r1/h1", "/r1/h1"))]
    got = run_times(jobs, SPEC, engine, hadoop_version=1, locality_delay_s=0.0)
    assert got == ([0.0, 1.0], [10.0, 11.0], [13.0])


def test_two_jobs_each_wait_for_their_own_tracker(engine):
    """A's map is on h2, B's on h0 (both submitted at 0; A first by id). 0: h0 skips A
    (not local) and runs B's map, node-local. 1: h1 skips A. 2: h2 runs A's map. A's map
    ends at 12 and is reported at h2's heartbeat at 14; B's at 10, reported at 12."""
    jobs = [("A", "a", 0, _maps("/r2/h2")), ("B", "a", 0, _maps("/r1/h0"))]
    starts, finishes, ends = run_times(jobs, SPEC, engine, hadoop_version=1)
    assert (starts, finishes, ends) == ([0.0, 2.0], [10.0, 12.0], [14.0, 12.0])


def test_a_cluster_given_by_counts_skips_locality_and_says_so(engine, caplog):
    """Trackers not named by host cannot hold a split: the schedule is the one without
    locality, and a warning says why (once per cluster)."""
    jobs = [("A", "a", 0, _maps("/r1/h1", "/r1/h1"))]
    _warn_unmatched.cache_clear()
    with caplog.at_level(logging.WARNING, logger="whatif.predictor.locality"):
        got = run_times(jobs, "nodes=3,map-slots=3,reduce-slots=3", engine, hadoop_version=1)
    assert got == ([0.0, 1.0], [10.0, 11.0], [13.0])
    assert "delay scheduling is skipped" in caplog.text


def test_the_locality_delay_is_read_from_mapred_site(tmp_path):
    """``mapred.fairscheduler.locality.delay`` in ms; -1 is Hadoop's computed default."""

    def delay(value):
        name = "mapred.fairscheduler.locality.delay"
        return mapred_site_settings(tmp_path, name, value, hadoop_version=1).locality_delay_s

    assert delay(3000) == 3.0
    assert delay(-1) == -1.0
    with pytest.raises(ValidationError, match="mapred.fairscheduler.locality.delay"):
        delay(-5)
    with pytest.raises(ValidationError, match="locality_delay_s"):
        SchedulerSettings(locality_delay_s=-2.0)


@st.composite
def located_scenarios(draw):
    """A random scenario made Hadoop 1 on one to four trackers named by host (racks /r0 and
    /r1), every map with random split locations (`SPLITS`)."""
    workload, allocation, _, sched, noise = draw(scenarios())
    n = draw(st.integers(1, 4))
    hosts = ";".join(f"/r{i % 2}/h{i}" for i in range(n))
    maps, reduces = draw(st.integers(n, 2 * n)), draw(st.integers(1, n))
    cluster = Cluster.parse(f"hosts={hosts},map-slots={maps},reduce-slots={reduces}")
    tasks = workload.tasks.copy()
    tasks["split_locations"] = [
        draw(st.sampled_from(SPLITS)) if stage == "map" else "" for stage in tasks["stage"]
    ]
    sched = dataclasses.replace(
        sched,
        hadoop_version=1,
        heartbeats=True,
        continuous_scheduling=False,
        assign_multiple=draw(st.booleans()),
        setup_cleanup_s=draw(st.sampled_from([0.0, 1.2])),
    )
    return Workload(workload.jobs, tasks), allocation, cluster, sched, noise


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=SLOW)
@given(located_scenarios(), st.integers(0, 3))
def test_engines_agree_with_delay_scheduling(scenario, seed):
    """Both engines give the same schedule with split locations on named trackers (noise,
    failures and preemption included: Hadoop 1 re-queues maps in `failedMaps`)."""
    workload, allocation, cluster, sched, noise = scenario
    fast, slow = (
        predict(workload, allocation, cluster, settings=sched, engine=e, seed=seed, noise=noise)
        for e in ("numba", "reference")
    )
    pd.testing.assert_frame_equal(fast.attempts, slow.attempts)
    pd.testing.assert_frame_equal(fast.jobs, slow.jobs)


def test_a_scaled_cluster_keeps_delay_scheduling_on_its_original_trackers(caplog):
    """A what-if cluster twice as large keeps h0-h2 (and adds three trackers on a rack no
    split names; six trackers heartbeat at phases 0, 0.5, ..., 2.5 s): h1 runs m0 at 0.5,
    node-local, and m1 waits for h0's heartbeat at 6 (rack-local); without locality, as
    on nodes=6, they would start at 0 and 0.5."""
    jobs = [("A", "a", 0, _maps("/r1/h1", "/r1/h1"))]
    _warn_unmatched.cache_clear()
    with caplog.at_level(logging.WARNING, logger="whatif.predictor.locality"):
        schedule = predict(
            build_workload(jobs),
            flat_tree(a={}),
            Cluster.parse(SPEC).scaled(2.0),
            settings=SchedulerSettings(hadoop_version=1, setup_cleanup_s=0.0),
            engine="reference",
        )
    assert "delay scheduling is skipped" not in caplog.text
    assert sorted(schedule.attempts["start_s"]) == [0.5, 6.0]
