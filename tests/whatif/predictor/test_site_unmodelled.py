"""Site-file settings the predictor does not model are named, by Hadoop's own rule of when
they act; Hadoop 1's log-only preemption is modelled as preemption off."""

import numpy as np
import pytest

from whatif.errors import ValidationError
from whatif.predictor.site import preemption_source, read_site

NODE = "yarn.scheduler.fair.locality.threshold.node"
RACK = "yarn.scheduler.fair.locality.threshold.rack"
FAIR = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
CAPACITY = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"


def _conf(path, *properties):
    body = "".join(
        f"<property><name>{n}</name><value>{v}</value></property>\n" for n, v in properties
    )
    path.write_text(f"<configuration>\n{body}</configuration>\n")
    return path


@pytest.mark.parametrize(
    ("properties", "thresholds"),
    [
        ([], None),
        ([(NODE, "0.5")], None),  # the rack threshold stays -1: delay scheduling is off
        ([(NODE, "0.5"), (RACK, "-1")], None),
        ([(NODE, "0.5"), (RACK, "0")], (0.5, 0.0)),
        ([(NODE, "0"), (RACK, "0.8")], (0.0, float(np.float32(0.8)))),  # a Java float
        (
            [
                (NODE, "1.5"),
                (RACK, "2"),
                ("yarn.scheduler.fair.continuous-scheduling-enabled", "true"),
            ],
            None,  # continuous scheduling counts time (the delays) instead
        ),
    ],
)
def test_delay_scheduling_counts_when_both_thresholds_are_at_least_zero(
    tmp_path, properties, thresholds
):
    """The count-based rule is modelled (``kernel/fair_locality.py``): its thresholds reach
    the settings, and nothing is warned of."""
    site = read_site(_conf(tmp_path / "yarn-site.xml", *properties))
    assert site.settings.fair_locality == thresholds
    assert site.unmodelled == ()


def test_with_continuous_scheduling_the_delays_count_instead_of_the_thresholds(tmp_path):
    path = _conf(
        tmp_path / "yarn-site.xml",
        ("yarn.scheduler.fair.continuous-scheduling-enabled", "true"),
        ("yarn.scheduler.fair.locality-delay-node-ms", "2000"),
        ("yarn.scheduler.fair.locality-delay-rack-ms", "4000"),
    )
    (setting,) = read_site(path).unmodelled
    assert setting.location == f"{path}:3" and "up to 2000 ms, then 4000 ms" in setting.effect
    path.write_text(path.read_text().replace("4000", "-1"))
    assert read_site(path).unmodelled == ()


def test_a_threshold_that_is_not_a_number_names_its_line(tmp_path):
    path = _conf(tmp_path / "yarn-site.xml", (NODE, "0.5"), (RACK, "half"))
    with pytest.raises(
        ValidationError, match=rf"yarn-site.xml:3: {RACK}: expected a number, got 'half'"
    ):
        read_site(path)


def test_the_scheduler_class_is_judged_against_the_scheduler_predicted(tmp_path):
    path = _conf(
        tmp_path / "yarn-site.xml", ("yarn.resourcemanager.scheduler.class", f" {CAPACITY} ")
    )
    site = read_site(path)
    assert site.scheduler_mismatch(capacity=True) is None
    message = site.scheduler_mismatch(capacity=False)
    assert message is not None and message.startswith(f"{path}:2: ")
    assert "not the Fair Scheduler tempo predicts" in message
    path = _conf(path, ("yarn.resourcemanager.scheduler.class", FAIR))
    assert read_site(path).scheduler_mismatch(capacity=False) is None
    assert "not the Capacity Scheduler" in (read_site(path).scheduler_mismatch(capacity=True) or "")
    assert read_site(_conf(path)).scheduler_mismatch(capacity=False) is None  # unset: no claim


def test_hadoop_1_pluggable_classes_other_than_the_defaults(tmp_path):
    path = _conf(
        tmp_path / "mapred-site.xml",
        ("mapred.jobtracker.taskScheduler", "org.apache.hadoop.mapred.JobQueueTaskScheduler"),
        ("mapred.fairscheduler.weightadjuster", "org.apache.hadoop.mapred.NewJobWeightBooster"),
        ("mapred.fairscheduler.loadmanager", "org.apache.hadoop.mapred.CapBasedLoadManager"),
        ("mapred.fairscheduler.taskselector", "com.example.RackFirstSelector"),
        (NODE, "0.5"),  # a YARN property: Hadoop 1 does not read it
        (RACK, "0.5"),
    )
    site = read_site(path, hadoop_version=1)
    assert [s.setting.split(" = ")[0] for s in site.unmodelled] == [
        "mapred.fairscheduler.weightadjuster",
        "mapred.fairscheduler.taskselector",
    ]
    assert [s.location for s in site.unmodelled] == [f"{path}:3", f"{path}:5"]
    assert "JobQueueTaskScheduler" in (site.scheduler_mismatch(capacity=False) or "")


def test_hadoop_1_log_only_preemption_kills_nothing(tmp_path):
    """FairScheduler.preemptTasksIfNecessary counts the tasks to preempt and, with
    mapred.fairscheduler.preemption.only.log, logs them and kills none."""
    path = _conf(
        tmp_path / "mapred-site.xml",
        ("mapred.fairscheduler.preemption", "true"),
        ("mapred.fairscheduler.preemption.only.log", "true"),
    )
    site = read_site(path, hadoop_version=1)
    assert site.settings.preemption is False and site.only_logged == f"{path}:3"
    assert preemption_source(site, 1, None) == (
        f"mapred.fairscheduler.preemption in {path}:2, but "
        f"mapred.fairscheduler.preemption.only.log in {path}:3: the JobTracker only logs "
        "the tasks it would preempt"
    )
    assert preemption_source(site, 1, True) == "--preemption"
    path = _conf(
        path,
        ("mapred.fairscheduler.preemption", "true"),
        ("mapred.fairscheduler.preemption.only.log", "false"),
    )
    assert read_site(path, hadoop_version=1).settings.preemption is True
    path = _conf(
        path,
        ("mapred.fairscheduler.preemption", "true"),
        ("mapred.fairscheduler.preemption.only.log", "yes"),
    )
    assert read_site(path, hadoop_version=1).settings.preemption is True  # Hadoop: not "true"


def test_application_priorities_count_when_the_cluster_maximum_is_above_zero(tmp_path):
    """The Capacity Scheduler caps every app's priority at yarn.cluster.max-application-
    priority (0 by default): above 0, its leaves serve higher priorities first, which the
    traces do not record; the Fair Scheduler ignores app priorities."""
    top = "yarn.cluster.max-application-priority"
    (setting,) = read_site(_conf(tmp_path / "yarn-site.xml", (top, "5"))).unmodelled
    assert setting.scheduler == "capacity" and "priorities up to 5" in setting.effect
    assert read_site(_conf(tmp_path / "yarn-site.xml", (top, "0"))).unmodelled == ()
    with pytest.raises(ValidationError, match=rf"yarn-site.xml:2: {top}: expected an integer"):
        read_site(_conf(tmp_path / "yarn-site.xml", (top, "high")))
