"""`run_whatif` and its re-tuner on a capacity-scheduler.xml: the Capacity Scheduler mode at
every cluster size."""

import json

import jsonschema
import pytest
from samples import REPO

from tempo.templates import load_templates
from tempo.whatif import retuner, run_whatif
from whatif import Cluster
from whatif.capacity import ConfigurationDocument
from whatif.errors import ValidationError
from whatif.executors import make_executor
from whatif.predictor import SchedulerSettings
from whatif.predictor.capacity import CapacityAllocation
from whatif.readers import read_trace
from whatif.report import REPORT_SCHEMA

TRACE = REPO / "traces" / "two-tenant"
CONFIG = REPO / "configs" / "two-tenant-capacity.xml"
TEMPLATES = REPO / "templates" / "two-tenant"


def test_whatif_predicts_each_cluster_size_under_the_capacity_file(tmp_path):
    """At scale 1 the engineers' QS_AJR is the capacity predictor's 79.05 s (79.8 s before
    the AM's reduce ramp-up); half the cluster makes it worse; report.json validates."""
    run = run_whatif(
        TRACE, CONFIG, TEMPLATES, tmp_path, scales=(0.5, 1.0), rel_tol=0.5, executor="serial"
    )
    column = list(run.analysis.labels).index("root.engineer:QS_AJR")
    ajr = {r.scale: float(r.mean[column]) for r in run.analysis.scenarios[0].scales}
    assert ajr[1.0] == pytest.approx(79.05, abs=0.05)
    assert ajr[0.5] > ajr[1.0]
    document = json.loads((tmp_path / "report.json").read_text())
    jsonschema.validate(document, REPORT_SCHEMA)
    assert document["inputs"]["config"] == str(CONFIG)


def test_whatif_refuses_a_capacity_file_hadoop_would_refuse(tmp_path):
    """A capacity sum of 110: refused with the file and line before anything is predicted."""
    bad = tmp_path / "capacity-scheduler.xml"
    bad.write_bytes(CONFIG.read_bytes().replace(b"<value>25</value>", b"<value>35</value>"))
    with pytest.raises(ValidationError, match=rf"{bad}: line 21: .*capacity sum of 110"):
        run_whatif(TRACE, bad, TEMPLATES, tmp_path / "out", executor="serial")
    assert not (tmp_path / "out").exists()


def test_the_retuner_tunes_the_capacity_file_for_each_cluster():
    """The re-tuning hook searches the CapacitySpace and returns the Capacity Scheduler
    allocation of the tuned file on the cluster it was asked about."""
    doc = ConfigurationDocument.from_file(CONFIG)
    with make_executor("serial") as pool:
        configure = retuner(
            doc,
            load_templates(TEMPLATES),
            executor=pool,
            settings=SchedulerSettings(),
            iterations=1,
            batch_size=2,
        )
        allocation = configure(
            Cluster.parse("nodes=12,memory-mb=8192,vcores=8"), read_trace(TRACE).workload
        )
    assert isinstance(allocation, CapacityAllocation)
    assert set(allocation.capacity) == {"root", "root.prod", "root.engineer"}
