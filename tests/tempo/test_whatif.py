"""`run_whatif`: files to a provisioning report, scenarios, re-tuning."""

import json

import jsonschema
import pytest
from samples import REPO

from tempo.errors import TempoError
from tempo.whatif import run_whatif, workload_scenarios
from whatif.provisioning import WorkloadScenario
from whatif.report import REPORT_SCHEMA

TRACE = REPO / "traces" / "two-tenant"
CONFIG = REPO / "configs" / "two-tenant-expert.xml"
TEMPLATES = REPO / "templates" / "two-tenant"


def test_workload_scenarios_are_baseline_each_change_then_both():
    """Growth and arrival scale give four scenarios, the baseline first; none gives one."""
    assert workload_scenarios(None, None) == [WorkloadScenario()]
    assert workload_scenarios(1.3, 1.2) == [
        WorkloadScenario(1.0, 1.0),
        WorkloadScenario(1.3, 1.0),
        WorkloadScenario(1.0, 1.2),
        WorkloadScenario(1.3, 1.2),
    ]


def test_templates_without_constraints_are_refused(tmp_path):
    """Provisioning needs at least one CONSTRAINT; the error names the templates."""
    only_objective = tmp_path / "t.qs"
    only_objective.write_text("QUEUE root.prod\nOPTIMIZE QS_AJR;\n")
    with pytest.raises(TempoError, match="t.qs: the templates state no CONSTRAINT"):
        run_whatif(TRACE, CONFIG, only_objective, tmp_path / "out", executor="serial")


@pytest.mark.slow
def test_retune_adds_a_retuned_analysis_to_the_report(tmp_path):
    """With retune, every evaluated scale is re-tuned and report.json carries the retuned scenarios."""
    run = run_whatif(
        TRACE,
        CONFIG,
        TEMPLATES,
        tmp_path,
        scales=(0.5, 1.0),
        rel_tol=0.5,
        executor="serial",
        retune=True,
    )
    assert run.retuned is not None and run.retuned.configuration == "re-tuned"
    document = json.loads((tmp_path / "report.json").read_text())
    jsonschema.validate(document, REPORT_SCHEMA)
    retuned = document["retuned"]["scenarios"][0]
    assert {s["scale"] for s in retuned["scales"]} >= {0.5, 1.0}


@pytest.mark.parametrize(
    "spec",
    [
        "nodes=24,memory-mb=8192,vcores=8",
        "map-slots=30,reduce-slots=10",
        "hosts=/r1/h1;/r1/h2;/r2/h3,map-slots=6,reduce-slots=3",
    ],
)
def test_the_recorded_cluster_is_read_from_the_notes_in_every_spec_form(spec):
    """A note naming the cluster the trace was recorded on gives its SPEC, hosts form too."""
    from tempo.whatif import recorded_cluster

    assert recorded_cluster(["a sample", f"recorded on {spec}, 2 pools"]) == spec
    assert recorded_cluster(["no cluster here"]) is None
