"""read_site: the predictor's scheduler knobs from yarn-site.xml / mapred-site.xml."""

from pathlib import Path

import pytest

from whatif.errors import ValidationError
from whatif.predictor import SchedulerSettings
from whatif.predictor.site import preemption_source, read_site

REPO = Path(__file__).resolve().parents[3]


def _site(tmp_path, *properties: tuple[str, str]) -> Path:
    body = "".join(
        f"  <property>\n    <name>{n}</name>\n    <value>{v}</value>\n  </property>\n"
        for n, v in properties
    )
    path = tmp_path / "yarn-site.xml"
    path.write_text(f"<?xml version='1.0'?>\n<configuration>\n{body}</configuration>\n")
    return path


def test_the_knobs_the_predictor_models_are_read_in_their_units(tmp_path):
    path = _site(
        tmp_path,
        ("yarn.scheduler.fair.preemption", "true"),
        ("yarn.scheduler.fair.waitTimeBeforeKill", "20000"),
        ("yarn.scheduler.fair.preemption.cluster-utilization-threshold", "0.7"),
        ("yarn.scheduler.minimum-allocation-mb", "512"),
        ("yarn.nodemanager.resource.memory-mb", "8192"),  # not modelled: ignored
    )
    site = read_site(path)
    assert site.settings == SchedulerSettings(
        preemption=True,
        wait_time_before_kill_s=20.0,
        utilization_threshold=0.7,
        min_allocation_mb=512.0,
    )
    assert site.found["yarn.scheduler.fair.preemption"] == 3
    assert preemption_source(site, 3, None) == f"yarn.scheduler.fair.preemption in {path}:3"


def test_hadoop_1_reads_mapred_site_names_and_not_yarn_ones(tmp_path):
    path = _site(
        tmp_path,
        ("yarn.scheduler.fair.preemption", "true"),
        ("mapred.fairscheduler.preemption.interval", "15000"),
    )
    site = read_site(path, hadoop_version=1)
    assert site.settings.preemption is False and site.settings.preemption_interval_s == 15.0
    assert not site.sets_preemption
    assert "does not set mapred.fairscheduler.preemption" in preemption_source(site, 1, None)


def test_a_bad_value_names_the_file_line_and_property(tmp_path):
    path = _site(tmp_path, ("yarn.scheduler.fair.waitTimeBeforeKill", "soon"))
    with pytest.raises(
        ValidationError,
        match=r"yarn-site.xml:3: .*waitTimeBeforeKill: expected a number, got 'soon'",
    ):
        read_site(path)
    path.write_text("<allocations/>")
    with pytest.raises(ValidationError, match=r"yarn-site.xml:1: expected a Hadoop site file"):
        read_site(path)


def test_the_bundled_samples_site_turns_preemption_on():
    assert read_site(REPO / "configs" / "sample-yarn-site.xml").settings.preemption is True


def test_the_rule_without_a_site_is_hadoops_default():
    assert (
        preemption_source(None, 3, None) == "Hadoop 3's default for yarn.scheduler.fair.preemption"
    )
    assert preemption_source(None, 3, True) == "--preemption"


def _conf(path: Path, *properties: tuple[str, str]) -> Path:
    body = "".join(
        f"<property><name>{n}</name><value>{v}</value></property>\n" for n, v in properties
    )
    path.write_text(f"<configuration>\n{body}</configuration>\n")
    return path


def test_hadoop_1_heartbeat_and_assign_multiple_knobs_of_mapred_site(tmp_path):
    """Every Hadoop 1 knob the predictor models, by its mapred-site.xml name."""
    path = _conf(
        tmp_path / "mapred-site.xml",
        ("mapred.fairscheduler.assignmultiple", "false"),
        ("mapred.fairscheduler.assignmultiple.maps", "2"),
        ("mapred.fairscheduler.assignmultiple.reduces", "1"),
        ("mapred.heartbeats.in.second", "50"),
        ("mapred.reduce.slowstart.completed.maps", "0.8"),
        ("mapred.fairscheduler.preemption", "true"),
    )
    s = read_site(path, hadoop_version=1).settings
    assert (s.assign_multiple, s.assign_multiple_maps, s.assign_multiple_reduces) == (False, 2, 1)
    assert s.heartbeats_in_second == 50.0 and s.heartbeat_interval_s(400) == 8.0
    assert s.slowstart_completed_maps == 0.8 and s.preemption is True
    # unset: Hadoop 1's own defaults
    assert SchedulerSettings(hadoop_version=1).assign_multiple is True
    assert read_site(_conf(tmp_path / "other.xml"), hadoop_version=1).settings == (
        SchedulerSettings(hadoop_version=1)
    )


def test_yarn_site_brings_the_mapred_site_beside_it(tmp_path):
    """yarn-site.xml's scheduler knobs and, from mapred-site.xml in the same directory, the
    MapReduce ones; the file given wins where both set a property."""
    yarn = _conf(
        tmp_path / "yarn-site.xml",
        ("yarn.scheduler.fair.assignmultiple", "true"),
        ("yarn.scheduler.fair.dynamic.max.assign", "false"),
        ("yarn.scheduler.fair.max.assign", "3"),
        ("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "500"),
        ("yarn.scheduler.fair.preemption", "true"),
    )
    mapred = _conf(
        tmp_path / "mapred-site.xml",
        ("mapreduce.job.reduce.slowstart.completedmaps", "0.5"),
        ("yarn.scheduler.fair.preemption", "false"),
    )
    site = read_site(yarn)
    s = site.settings
    assert (s.assign_multiple, s.dynamic_max_assign, s.max_assign) == (True, False, 3)
    assert s.node_heartbeat_interval_s == 0.5 and s.heartbeat_interval_s(10) == 0.5
    assert s.slowstart_completed_maps == 0.5 and s.preemption is True
    assert site.location("mapreduce.job.reduce.slowstart.completedmaps") == f"{mapred}:2"
    assert preemption_source(site, 3, None) == f"yarn.scheduler.fair.preemption in {yarn}:6"
    # given alone, a file with another name reads only itself
    alone = _conf(tmp_path / "conf.xml", ("yarn.scheduler.fair.assignmultiple", "true"))
    assert read_site(alone).settings.slowstart_completed_maps == 0.05


def test_a_bad_value_in_the_sibling_names_the_sibling(tmp_path):
    yarn = _conf(tmp_path / "yarn-site.xml")
    _conf(tmp_path / "mapred-site.xml", ("mapreduce.job.reduce.slowstart.completedmaps", "half"))
    with pytest.raises(ValidationError, match=r"mapred-site.xml:2: .*slowstart.*expected a number"):
        read_site(yarn)
