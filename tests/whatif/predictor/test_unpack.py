"""The predicted schedule is built in the Schedule's normalized form without its checks:
the validating constructor, given the same tables, must leave them exactly as they are."""

import pandas as pd
from conftest import scenarios
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from whatif.predictor import Simulation, predict
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
