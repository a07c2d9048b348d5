"""YARN's continuous scheduling (``kernel/continuous.py``): hand-computed schedules on both
engines (issue 21)."""

from __future__ import annotations

import pytest
from predictor_cases import run_times

from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings
from whatif.predictor.site import read_site

FOUR_MAPS = [("j", "a", 0.0, [("map", 10.0, 1024.0)] * 4)]
TWO_NODES = "nodes=2,memory-mb=2048,vcores=2"  # heartbeats every 1 s at phases 0 and 0.5


def run(engine, **settings):
    return run_times(FOUR_MAPS, TWO_NODES, engine, **settings)


def test_passes_offer_the_emptiest_node_first_between_heartbeats(engine):
    """Hadoop 3, a pass every 5 ms. At 0 node 0 heartbeats and takes one map; the pass at
    0, after that heartbeat, offers node 1 (2048 MB free) before node 0 (1024 MB): one
    map each; the pass at 0.005 gives node 1 the last. Without continuous scheduling the
    maps wait for heartbeats: 0.0, 0.5, 1.0, 1.5. Ends are still reported at the
    heartbeats after them: node 0's two at 11.0, node 1's at 10.5, so the job ends at
    11.0."""
    starts, finishes, job = run(engine, continuous_scheduling=True)
    assert starts == pytest.approx([0.0, 0.0, 0.0, 0.005])
    assert finishes == pytest.approx([10.0, 10.0, 10.0, 10.005])
    assert job == pytest.approx([11.0])
    assert run(engine)[0] == [0.0, 0.5, 1.0, 1.5]


def test_hadoop2_heartbeats_assign_only_when_they_report_a_finished_container(engine):
    """Hadoop 2 (before 2.9) with continuous scheduling: node 0's heartbeat at 0 reports
    nothing finished, so it assigns nothing; the passes do: at 0 (the submission changed
    what a pass finds) both nodes tie on free memory (node order: 0, then 1), one map
    each, and again at 0.005."""
    starts, finishes, job = run(engine, continuous_scheduling=True, hadoop_version=2)
    assert starts == pytest.approx([0.0, 0.0, 0.005, 0.005])
    assert job == pytest.approx([11.0])


def test_a_longer_sleep_spaces_the_passes():
    """With the thread sleeping 2 s, passes fall on 0, 2, 4, ...: node 0 takes a map at
    its heartbeat at 0, the pass at 0 gives each node one, and node 1's heartbeat at 0.5
    takes the last, before the next pass at 2."""
    starts, _, _ = run("numba", continuous_scheduling=True, continuous_scheduling_sleep_s=2.0)
    assert starts == [0.0, 0.0, 0.0, 0.5]


def test_settings_and_site_file(tmp_path):
    with pytest.raises(ValidationError, match="YARN Fair Scheduler setting"):
        SchedulerSettings(hadoop_version=1, continuous_scheduling=True)
    with pytest.raises(ValidationError, match="continuous_scheduling_sleep_s"):
        SchedulerSettings(continuous_scheduling_sleep_s=0.0)
    site = tmp_path / "yarn-site.xml"
    site.write_text(
        "<configuration>"
        "<property><name>yarn.scheduler.fair.continuous-scheduling-enabled</name>"
        "<value>true</value></property>"
        "<property><name>yarn.scheduler.fair.continuous-scheduling-sleep-ms</name>"
        "<value>20</value></property>"
        "</configuration>"
    )
    settings = read_site(site, hadoop_version=3).settings
    assert settings.continuous_scheduling and settings.continuous_scheduling_sleep_s == 0.02
