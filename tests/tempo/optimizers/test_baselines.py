"""The baselines: SCALAR, MSPD, random search and NSGA-II, and the registry."""

import numpy as np
import pytest
from analytic import TwoCentres, two_centres_problem

from tempo.optimizers import (
    MSPD,
    NSGA2,
    OPTIMIZERS,
    TPE,
    Problem,
    RandomSearch,
    Scalar,
    make_optimizer,
)
from tempo.optimizers.loess import LocalFit
from whatif.errors import ValidationError


def test_registry_maps_the_cli_names():
    """The CLI names map to the six optimizers; unknown names are a ValidationError."""
    assert list(OPTIMIZERS) == ["pald", "scalar", "mspd", "random", "nsga2", "tpe"]
    assert isinstance(make_optimizer("nsga2", pop_size=4), NSGA2)
    assert isinstance(make_optimizer("tpe", batch_size=4), TPE)
    with pytest.raises(ValidationError, match="pald, scalar, mspd, random, nsga2, tpe"):
        make_optimizer("bogus")


def test_scalar_descends_the_weighted_sum():
    """SCALAR's direction is the sum of the normalized QS gradients."""
    problem = two_centres_problem()
    optimizer = Scalar()
    optimizer.setup(problem, budget=8, seed=0)
    fit = LocalFit(value=np.zeros(2), jacobian=np.array([[1.0, 2.0], [3.0, -1.0]]), n_used=8)
    np.testing.assert_allclose(optimizer._direction(fit), [4.0, 1.0])


def test_mspd_raises_the_multiplier_of_a_violated_constraint():
    """MSPD optimizes the OPTIMIZE QS; a violated constraint's multiplier grows each fit."""
    problem = two_centres_problem(dim=2, start=0.9)  # f1 = 0.98 > 0.5
    # Small probes keep the second fit on the violated side of the constraint.
    optimizer = MSPD(dual_step=0.5, screen=False, width=0.05)
    optimizer.setup(problem, budget=40, seed=0)
    assert optimizer.primary_ == 1
    X = optimizer.ask()
    optimizer.tell(X, problem.evaluate(X))
    first = optimizer.multipliers_[0]
    X = optimizer.ask()
    optimizer.tell(X, problem.evaluate(X))
    assert 0 < first < optimizer.multipliers_[0]
    assert optimizer.multipliers_[1] == 0.0


def test_mspd_keeps_other_objectives_at_their_starting_level():
    """An objective that is not the primary one is held to its value at the start."""
    problem = Problem(
        dim=2,
        evaluate=TwoCentres(np.full(2, 0.2), np.full(2, 0.8)),
        thresholds=[np.inf, np.inf],
        start=[0.2, 0.8],
    )
    found = []
    for seed in range(4):
        optimizer = MSPD(objective=0)
        result = optimizer.run(problem, budget=160, seed=seed)
        np.testing.assert_allclose(optimizer.limits_, [0.36, 0.36], atol=0.01)
        assert result.evaluations == 160
        found.append(problem.evaluate(optimizer.best_point()[None, :]).mean[0])
    f0, f1 = np.array(found).T
    # Optimum: on the segment a-b at distance 0.6 from b, f1 = (0.6 sqrt(2) - 0.6)^2 = 0.062.
    assert np.median(f0) < 0.11 and f0.max() < 0.15
    assert (f1 < 0.36 + 0.02).all()


def test_mspd_rejects_an_objective_index_out_of_range():
    """objective >= k is reported at setup, naming the parameter."""
    with pytest.raises(ValidationError, match="'objective'"):
        MSPD(objective=5).setup(two_centres_problem(), budget=10, seed=0)


def test_random_search_samples_the_whole_risk_ball():
    """Random samples stay inside the radius and reach close to its edge."""
    problem = two_centres_problem(dim=3, start=0.5, radius=0.2)
    result = RandomSearch(batch_size=16).run(problem, budget=64, seed=0)
    assert result.history["distance"].max() <= 0.2 + 1e-12
    assert result.history["distance"].max() > 0.15
    assert result.evaluations == 64


def test_nsga2_improves_on_the_start_inside_the_radius():
    """NSGA-II's pick is feasible, inside the radius and better on the objective than the start."""
    problem = two_centres_problem(dim=2, start=0.9, radius=0.5)
    result = NSGA2(pop_size=8).run(problem, budget=64, seed=0)
    assert (result.history["distance"] <= 0.5 + 1e-9).all()
    assert result.feasible
    assert result.evaluations == 64
