"""Workload scenarios with per-queue factors (a forecast's), whatif.provisioning."""

import pytest
from samples import REPO

from whatif.errors import ValidationError
from whatif.provisioning import WorkloadScenario, scenario_workloads
from whatif.readers import read_trace
from whatif.workload_model import WorkloadModel


def _now_and_grown(per_queue, *, name, seed):
    """The two-tenant sample's workload, the scenarios "now" and `per_queue` (named `name`),
    and the workloads of the two."""
    workload = read_trace(REPO / "traces" / "two-tenant").workload
    scenarios = [WorkloadScenario(name="now"), WorkloadScenario(per_queue=per_queue, name=name)]
    (_, now), (_, grown) = scenario_workloads(workload, scenarios, seed=seed)
    return workload, scenarios, now, grown


def test_per_queue_factors_change_only_their_queue():
    """Arrivals x3 on root.engineer: its ad-hoc jobs about triple, root.prod's are identical."""
    _, scenarios, now, grown = _now_and_grown(
        (("root.engineer", 1.0, 3.0),), name="engineer x3", seed=1
    )
    count = lambda w, q: int((w.jobs["queue"] == q).sum())  # noqa: E731
    assert count(grown, "root.prod") == count(now, "root.prod")
    assert count(grown, "root.engineer") == pytest.approx(3 * count(now, "root.engineer"), rel=0.2)
    assert scenarios[1].label == "engineer x3" and not scenarios[1].is_baseline
    assert WorkloadScenario(per_queue=(("root.prod", 1.0, 1.0),)).is_baseline


@pytest.mark.parametrize(
    "per_queue", [(("root.prod", 0.0, 1.0),), (("root.prod", 1.0),), ((1, 1.0, 1.0),)]
)
def test_bad_per_queue_entries_are_refused(per_queue):
    with pytest.raises(ValidationError, match=r"per_queue\[0\]"):
        WorkloadScenario(per_queue=per_queue)


def test_per_queue_scenarios_are_nested_and_plain_ones_are_not_changed():
    """A per-queue scenario's workload holds every task of the workload now; a plain
    growth scenario is the workload model's own, seed for seed."""
    workload, _, now, grown = _now_and_grown((("root.prod", 1.5, 1.2),), name="median", seed=2)
    assert set(now.tasks["task_id"]) < set(grown.tasks["task_id"])
    plain = scenario_workloads(workload, [WorkloadScenario(), WorkloadScenario(1.3)], seed=2)
    generated = WorkloadModel().fit(workload).with_growth(1.3)
    first, last = workload.span_s
    again = generated.generate(hours=(last - first) / 3600, seed=2, start_s=first)
    assert plain[1][1].tasks["task_id"].tolist() == again.tasks["task_id"].tolist()
