"""Contract suite: every registered optimizer keeps the promises of `Optimizer`.

A new optimizer joins by being added to ``tempo.optimizers.OPTIMIZERS``.
"""

import pickle

import numpy as np
import pytest

from tempo.optimizers import OPTIMIZERS, Evaluation, Optimizer, OptimizerError, Problem
from whatif.errors import ValidationError

NAMES = sorted(OPTIMIZERS)
SMALL = {"batch_size": 4, "pop_size": 4}


class Bowl:
    """Two noisy quadratic QS, f1 constrained; noise drawn from the points, so it is pure."""

    def __call__(self, X: np.ndarray) -> Evaluation:
        X = np.atleast_2d(X)
        f1 = ((X - 0.1) ** 2).sum(1)
        f2 = ((X - 0.9) ** 2).sum(1) + 0.01 * np.sin(1e3 * X.sum(1))
        mean = np.c_[f1, f2]
        return Evaluation(mean, np.full(mean.shape, 0.01))


def _problem(radius: float = 0.15) -> Problem:
    return Problem(
        dim=3,
        evaluate=Bowl(),
        thresholds=[1.0, np.inf],
        start=[0.7, 0.2, 0.95],
        radius=radius,
    )


def _make(name: str) -> Optimizer:
    cls = OPTIMIZERS[name]
    params = {k: v for k, v in SMALL.items() if k in cls._param_names()}
    return cls(**params)


def _drive(optimizer: Optimizer, problem: Problem, budget: int, seed: int) -> list[np.ndarray]:
    optimizer.setup(problem, budget=budget, seed=seed)
    asked = []
    while not optimizer.done:
        X = optimizer.ask()
        asked.append(X)
        optimizer.tell(X, problem.evaluate(X))
    return asked


@pytest.mark.parametrize("name", NAMES)
def test_proposals_stay_in_the_box_and_the_risk_radius(name):
    """Every point asked is in [0, 1]^d and within the risk radius; the first is the start."""
    problem = _problem()
    asked = np.vstack(_drive(_make(name), problem, 30, 0))
    assert ((asked >= 0) & (asked <= 1)).all()
    assert (np.linalg.norm(asked - problem.start, axis=1) / np.sqrt(3) <= 0.15 + 1e-9).all()
    np.testing.assert_array_equal(asked[0], problem.start)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("budget", [1, 7, 30])
def test_the_budget_is_respected(name, budget):
    """No optimizer evaluates more points than its budget, even a budget of one."""
    optimizer = _make(name)
    result = optimizer.run(_problem(), budget=budget, seed=0)
    assert 1 <= result.evaluations <= budget
    assert len(result.history) == result.evaluations


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_proposals(name):
    """Two runs with the same seed ask for identical points; another seed asks differently."""
    first = np.vstack(_drive(_make(name), _problem(), 24, 5))
    second = np.vstack(_drive(_make(name), _problem(), 24, 5))
    other = np.vstack(_drive(_make(name), _problem(), 24, 6))
    np.testing.assert_array_equal(first, second)
    assert first.shape != other.shape or not np.array_equal(first, other)


@pytest.mark.parametrize("name", NAMES)
def test_the_optimizer_pickles_mid_run_and_continues_identically(name):
    """A pickled copy taken between tell and ask proposes exactly what the original proposes."""
    problem = _problem()
    optimizer = _make(name)
    optimizer.setup(problem, budget=24, seed=1)
    X = optimizer.ask()
    optimizer.tell(X, problem.evaluate(X))
    clone = pickle.loads(pickle.dumps(optimizer))
    np.testing.assert_array_equal(clone.ask(), optimizer.ask())
    assert pickle.loads(pickle.dumps(_make(name))).get_params() == _make(name).get_params()


@pytest.mark.parametrize("name", NAMES)
def test_constructor_stores_hyperparameters_and_validates_at_setup(name):
    """The constructor only stores; a bad value is reported by setup, naming the parameter."""
    cls = OPTIMIZERS[name]
    optimizer = cls()
    assert set(optimizer.get_params()) == set(cls._param_names())
    assert repr(optimizer).startswith(cls.__name__ + "(")
    param = next(iter(cls._parameter_constraints))
    broken = cls(**{param: -1})
    with pytest.raises(ValidationError, match=repr(param)):
        broken.setup(_problem(), budget=10, seed=0)


@pytest.mark.parametrize("name", NAMES)
def test_out_of_order_calls_are_refused(name):
    """ask before setup, tell without ask, or tell with other points raise clear errors."""
    optimizer = _make(name)
    with pytest.raises(OptimizerError, match="setup"):
        optimizer.ask()
    problem = _problem()
    optimizer.setup(problem, budget=10, seed=0)
    with pytest.raises(OptimizerError, match="without a pending ask"):
        optimizer.tell(problem.start[None, :], problem.evaluate(problem.start[None, :]))
    X = optimizer.ask()
    with pytest.raises(ValidationError, match="not the batch"):
        optimizer.tell(X + 0.01, problem.evaluate(X))


@pytest.mark.parametrize("name", NAMES)
def test_result_picks_a_recorded_feasible_point(name):
    """The result is a row of the history, feasible here, and its Pareto set is feasible."""
    result = _make(name).run(_problem(radius=0.4), budget=30, seed=0)
    row = result.history.iloc[result.index]
    np.testing.assert_array_equal(row[["x0", "x1", "x2"]].to_numpy(float), result.x)
    assert result.feasible and row["feasible"]
    assert result.history.loc[result.pareto, "feasible"].all()
    assert result.algorithm == name
