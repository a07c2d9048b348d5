"""The predicted schedule is built in the Schedule's normalized form without its checks:
the validating constructor, given the same tables, must leave them exactly as they are."""

import dataclasses
import pickle

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from predictor_cases import replayed, scenarios

from whatif.errors import ValidationError
from whatif.predictor import Simulation, predict, predict_taking
from whatif.schedule import Schedule


def _assert_normalized(schedule: Schedule) -> None:
    checked = Schedule(jobs=schedule.jobs, attempts=schedule.attempts)
    pd.testing.assert_frame_equal(schedule.attempts, checked.attempts)
    pd.testing.assert_frame_equal(schedule.jobs, checked.jobs)


@replayed(25)
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


@settings(max_examples=8, deadline=None, derandomize=True, database=None)
@given(scenarios(), st.integers(0, 3))
def test_predicted_attempts_are_built_on_first_read(scenario, seed):
    """`predict` leaves the attempts as the engine's codes (`Schedule.deferred`): the counts
    do not build the table; the table built, pickled or replaced, is the one a running
    simulation unpacks."""
    workload, allocation, cluster, sched, noise = scenario
    expected = Simulation(
        workload, allocation, cluster, settings=sched, seed=seed, noise=noise
    ).run_to_end()
    runs = [predict(workload, allocation, cluster, settings=sched, seed=seed, noise=noise)]
    runs.append(predict(workload, allocation, cluster, settings=sched, seed=seed, noise=noise))
    got = runs[0]
    assert (got.n_attempts, got.count_attempts("KILLED")) == (
        expected.n_attempts,
        expected.count_attempts("KILLED"),
    )
    assert "_pending" in vars(got), "the counts built the table"
    pd.testing.assert_frame_equal(got.jobs, expected.jobs)
    pd.testing.assert_frame_equal(got.attempts, expected.attempts)
    assert "_pending" not in vars(got), "the codes are held beside the table"
    assert got.count_attempts("KILLED") == expected.count_attempts("KILLED")
    unpickled = pickle.loads(pickle.dumps(runs[1]))  # not built before
    assert type(unpickled) is Schedule
    pd.testing.assert_frame_equal(unpickled.attempts, expected.attempts)
    replaced = dataclasses.replace(got, jobs=got.jobs)
    pd.testing.assert_frame_equal(replaced.attempts, expected.attempts)
