"""The predicted schedule is built in the Schedule's normalized form without its checks:
the validating constructor, given the same tables, must leave them exactly as they are."""

import pandas as pd
import pytest
from conftest import scenarios
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from whatif.errors import ValidationError
from whatif.predictor import Simulation, predict, predict_taking
from whatif.schedule import Schedule


def _assert_normalized(schedule: Schedule) -> None:
    checked = Schedule(jobs=schedule.jobs, attempts=schedule.attempts)
    pd.testing.assert_frame_equal(schedule.attempts, checked.attempts)
    pd.testing.assert_frame_equal(schedule.jobs, checked.jobs)


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow],
)
@given(scenarios(), st.integers(0, 3), st.floats(0, 60))
def test_predicted_schedule_is_what_the_checked_constructor_gives(scenario, seed, pause):
    """Columns, dtypes, row order and values: finished runs and a run stopped midway."""
    workload, allocation, cluster, sched, noise = scenario
    _assert_normalized(
        predict(workload, allocation, cluster, settings=sched, seed=seed, noise=noise)
    )
    sim = Simulation(workload, allocation, cluster, settings=sched, seed=seed, noise=noise)
    _assert_normalized(sim.advance_to(pause).schedule())


@settings(max_examples=5, deadline=None, derandomize=True, database=None)
@given(scenarios())
def test_predict_taking_empties_the_list_and_predicts_the_same(scenario):
    """`predict_taking` takes the workload out of its list (so that a caller holding it nowhere
    else has it freed once packed) and predicts what `predict` does; a run reconfigured
    after `Simulation.taking` still knows its jobs' queues."""
    workload, allocation, cluster, sched, noise = scenario
    expected = predict(workload, allocation, cluster, settings=sched, noise=noise)
    box = [workload]
    got = predict_taking(box, allocation, cluster, settings=sched, noise=noise)
    assert box == []
    pd.testing.assert_frame_equal(got.attempts, expected.attempts)
    pd.testing.assert_frame_equal(got.jobs, expected.jobs)
    sim = Simulation.taking([workload], allocation, cluster, settings=sched, noise=noise)
    whole = sim.reconfigure(allocation).run_to_end()
    pd.testing.assert_frame_equal(whole.jobs, expected.jobs)
    with pytest.raises(ValidationError, match="a list of one Workload"):
        predict_taking([], allocation, cluster)
