"""Workload scenarios with per-queue factors (a forecast's), whatif.provisioning."""

from pathlib import Path

import pytest

from whatif.errors import ValidationError
from whatif.provisioning import WorkloadScenario, scenario_workloads
from whatif.readers import read_trace

REPO = Path(__file__).resolve().parents[2]


def test_per_queue_factors_change_only_their_queue():
    """Arrivals x3 on root.engineer: its ad-hoc jobs about triple, root.prod's are identical."""
    workload = read_trace(REPO / "traces" / "two-tenant").workload
    scenarios = [
        WorkloadScenario(name="now"),
        WorkloadScenario(per_queue=(("root.engineer", 1.0, 3.0),), name="engineer x3"),
    ]
    (_, now), (_, grown) = scenario_workloads(workload, scenarios, seed=1)
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
