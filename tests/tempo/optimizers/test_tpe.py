"""optuna's TPE as the practitioner's baseline: budget, seeds, radius, constraints, failures."""

import numpy as np
import pytest
from analytic import FailingTwoCentres, TwoCentres, two_centres_problem
from optuna.trial import TrialState

from tempo.optimizers import TPE, Problem
from tempo.optimizers.tpe import ball_point


def test_ball_point_maps_the_cube_onto_the_risk_ball():
    """u = 0.5 is the start; a point's distance is radius * max|2u - 1|, so faces reach the surface."""
    problem = two_centres_problem(dim=4, start=0.5, radius=0.1)
    np.testing.assert_array_equal(ball_point(problem, np.full(4, 0.5)), problem.start)
    rng = np.random.default_rng(0)
    for u in rng.random((50, 4)):
        distance = problem.distance(ball_point(problem, u), problem.start)
        assert distance == pytest.approx(0.1 * np.abs(2 * u - 1).max())
    corner = ball_point(problem, np.array([1.0, 0.5, 0.5, 0.5]))
    np.testing.assert_allclose(
        corner, [0.5 + 0.1 * 2, 0.5, 0.5, 0.5]
    )  # radius * sqrt(d) on one axis


def test_the_budget_is_spent_exactly_and_every_point_is_told():
    """A budget that is not a multiple of the batch is used to the last evaluation."""
    optimizer = TPE(batch_size=4, n_startup_trials=3)
    result = optimizer.run(two_centres_problem(dim=3, start=0.5), budget=13, seed=0)
    assert result.evaluations == 13 and optimizer.n_batches_ == 4
    trials = optimizer.study_.trials
    assert len(trials) == 13 and {t.state for t in trials} == {TrialState.COMPLETE}
    np.testing.assert_array_equal(result.history[["x0", "x1", "x2"]].iloc[0], np.full(3, 0.5))


def test_the_same_seed_gives_the_same_run():
    """Two runs with one seed evaluate identical points; another seed evaluates others."""
    runs = [
        TPE(batch_size=4, n_startup_trials=4).run(
            two_centres_problem(dim=3, start=0.5), budget=20, seed=seed
        )
        for seed in (3, 3, 4)
    ]
    columns = ["x0", "x1", "x2"]
    np.testing.assert_array_equal(runs[0].history[columns], runs[1].history[columns])
    assert not np.array_equal(runs[0].history[columns], runs[2].history[columns])


def test_points_fill_the_risk_ball_and_never_leave_it():
    """With a small radius in 6 dimensions, points stay inside yet reach in and near the surface."""
    problem = two_centres_problem(dim=6, start=0.5, radius=0.08)
    result = TPE(batch_size=8).run(problem, budget=64, seed=0)
    distance = result.history["distance"].to_numpy()
    assert distance.max() <= 0.08 + 1e-12
    assert distance.max() > 0.07  # reaches close to the surface
    assert (distance[1:] < 0.06).sum() >= 8  # nor pushed onto the surface, as box + projection is


def _two_centres(threshold: float, evaluate=None) -> Problem:
    """Minimize |x - 0.8|^2 subject to |x - 0.2|^2 <= threshold, from (0.5, 0.5)."""
    return Problem(
        dim=2,
        evaluate=evaluate or TwoCentres(np.full(2, 0.2), np.full(2, 0.8)),
        thresholds=np.array([threshold, np.inf]),
        optimize_mask=np.array([False, True]),
        start=np.full(2, 0.5),
        radius=1.0,
        names=("dist_a", "dist_b"),
    )


def test_constraints_steer_tpe_to_a_feasible_improvement():
    """The optimum of f2 alone breaks f1 <= 0.5; TPE finds a feasible point well below the start."""
    optimizer = TPE(batch_size=4, n_startup_trials=8)
    result = optimizer.run(_two_centres(0.5), budget=60, seed=0)  # start: f1 = f2 = 0.18
    assert result.feasible and result.mean[1] < 0.09
    # Constraint values reach optuna as g - r (normalized by the threshold), <= 0 when feasible.
    x = result.history[["x0", "x1"]].iloc[5].to_numpy()
    f1 = ((x - 0.2) ** 2).sum()
    assert optimizer.study_.trials[5].constraints == {"dist_a": pytest.approx(f1 / 0.5 - 1.0)}
    # Told the constraint, TPE samples its feasible side far more than when it never binds.
    loose = TPE(batch_size=4, n_startup_trials=8).run(_two_centres(10.0), budget=60, seed=0)

    def late_inside(run):
        return (run.history["mean:dist_a"].iloc[30:] <= 0.5).mean()

    assert late_inside(result) > 1.5 * late_inside(loose)


def test_failed_evaluations_are_told_as_failed_and_never_picked():
    """NaN rows become FAIL trials; the run still spends its budget and picks a real point."""
    problem = _two_centres(0.5, FailingTwoCentres(np.full(2, 0.2), np.full(2, 0.8)))
    optimizer = TPE(batch_size=4, n_startup_trials=6)
    result = optimizer.run(problem, budget=40, seed=1)
    failed = result.history["mean:dist_a"].isna().to_numpy()
    states = np.array([t.state == TrialState.FAIL for t in optimizer.study_.trials])
    assert failed.any() and (failed == states).all()
    assert result.evaluations == 40
    assert result.feasible and result.x[0] <= 0.7 and result.mean[1] < 0.18
