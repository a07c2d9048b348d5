"""PALD on analytic problems with known Pareto sets, against the scalarization baseline."""

import numpy as np
import pytest
from analytic import FailingTwoCentres, Segment, TwoCentres, two_centres_problem

from tempo.optimizers import PALD, Problem, Scalar


def _segment(start: float) -> Problem:
    return Problem(
        dim=1,
        evaluate=Segment(),
        thresholds=[6.0, 6.0],
        optimize_mask=[True, True],
        start=[start],
    )


def test_pald_meets_both_thresholds_where_scalarization_does_not():
    """On the line from (5, 5) to (0, 7) with r = (6, 6), SCALAR's descent ends at the paper's
    (0, 7), breaking f2 <= 6, while PALD's iterates settle around the constraint f2 = 6."""
    scalar = Scalar(step_size=0.3).run(_segment(0.0), budget=80, seed=0)
    pald = PALD(step_size=0.3).run(_segment(0.0), budget=80, seed=0)
    scalar_last = scalar.history[scalar.history.role == "iterate"].iloc[-1]
    np.testing.assert_allclose(scalar_last[["mean:f0", "mean:f1"]].to_numpy(float), [0.0, 7.0])
    pald_iterates = pald.history.loc[pald.history.role == "iterate", "x0"].to_numpy()
    assert abs(pald_iterates[-6:].mean() - 0.5) < 0.03
    assert np.abs(pald_iterates[-6:] - 0.5).max() < 0.15
    assert pald.feasible
    assert pald.mean[1] <= 6.0 and pald.mean[0] < 5.0


def test_pald_recovers_feasibility_from_the_wrong_point():
    """Started at (0, 7), which breaks f2 <= 6, PALD returns a point meeting both thresholds."""
    result = PALD(step_size=0.3).run(_segment(1.0), budget=40, seed=0)
    assert result.feasible
    assert result.mean[1] <= 6.0
    assert result.mean[0] < 3.0


def test_pald_reaches_the_constrained_pareto_point():
    """min |x - b|^2 s.t. |x - a|^2 <= 0.5 from an infeasible start: feasible, near optimal."""
    problem = two_centres_problem(dim=3, start=0.9)
    result = PALD().run(problem, budget=120, seed=0)
    # The optimum lies on the segment a-b where |x - a|^2 = 0.5: f2 = (sqrt(1.08) - sqrt(0.5))^2.
    optimum = (np.sqrt(3 * 0.6**2) - np.sqrt(0.5)) ** 2
    assert result.feasible
    assert result.mean[1] < optimum + 0.02
    assert result.mean[0] <= 0.5


def test_pald_result_dominates_a_dominated_start_under_noise():
    """Both QS OPTIMIZE, f1 <= 0.5, noisy QS: from (0.2, 0.8), off the Pareto segment, PALD's
    pick is feasible and dominates the start (the equal-weight optimum is the midpoint)."""
    problem = Problem(
        dim=2,
        evaluate=TwoCentres(np.full(2, 0.2), np.full(2, 0.8), noise=0.01, seed=7),
        thresholds=[0.5, np.inf],
        optimize_mask=[True, True],
        scales=[1.0, 1.0],
        start=[0.2, 0.8],
    )
    result = PALD().run(problem, budget=80, seed=3)
    assert result.feasible
    assert result.dominates_start
    assert result.mean.sum() < 0.42


def test_pald_balances_constraints_that_cannot_all_be_met():
    """r = (0.1, 0.1) cannot both hold; PALD ends near the max-min point (violations 0.8 each)
    instead of failing."""
    problem = Problem(
        dim=2,
        evaluate=TwoCentres(np.full(2, 0.2), np.full(2, 0.8)),
        thresholds=[0.1, 0.1],
        start=[0.2, 0.2],
    )
    result = PALD().run(problem, budget=100, seed=0)
    assert not result.feasible
    violations = result.mean / 0.1 - 1
    assert violations.max() < 0.9
    assert abs(violations[0] - violations[1]) < 0.2


def test_pald_stays_inside_the_risk_radius():
    """With a small radius every evaluated point is within it and the optimizer ends on its edge."""
    problem = two_centres_problem(dim=3, start=0.9, radius=0.1)
    result = PALD().run(problem, budget=60, seed=0)
    assert (result.history["distance"] <= 0.1 + 1e-9).all()
    assert result.distance == pytest.approx(0.1, abs=0.02)
    assert result.mean[0] < result.start_mean[0]


def test_convergence_test_ends_a_start_pinned_at_the_radius_and_frees_the_budget():
    """Pinned at the radius, a start stops early; with one start the run ends under budget."""
    problem = two_centres_problem(dim=2, start=0.9, radius=0.02)
    optimizer = PALD(tol=1e-3)
    result = optimizer.run(problem, budget=400, seed=0)
    assert result.evaluations < 400
    assert optimizer.done


def test_multiple_starts_share_the_budget():
    """n_starts = 3 runs from the configuration in force, then from two points in the radius."""
    problem = two_centres_problem(dim=2, start=0.9, radius=0.3)
    result = PALD(n_starts=3).run(problem, budget=60, seed=0)
    history = result.history
    assert sorted(history["start"].unique().tolist()) == [0, 1, 2]
    assert history.groupby("start").size().max() <= 20
    firsts = history.groupby("start").head(1)
    assert np.allclose(firsts.iloc[0][["x0", "x1"]].to_numpy(float), 0.9)
    assert not np.allclose(firsts.iloc[1][["x0", "x1"]].to_numpy(float), 0.9)


def test_more_starts_than_budget_still_evaluates_the_start():
    """A budget smaller than n_starts still runs: the configuration in force is evaluated."""
    result = PALD(n_starts=3).run(two_centres_problem(), budget=2, seed=0)
    assert result.evaluations == 2
    np.testing.assert_array_equal(result.history.loc[0, ["x0", "x1"]].to_numpy(float), [0.9, 0.9])


def test_failed_evaluations_are_recorded_and_survived():
    """Points whose evaluation fails (NaN) stay in the history as infeasible; the run goes on."""
    problem = Problem(
        dim=2,
        evaluate=FailingTwoCentres(np.full(2, 0.2), np.full(2, 0.8)),
        thresholds=[0.5, np.inf],
        start=[0.6, 0.6],
    )
    result = PALD().run(problem, budget=40, seed=0)
    failed = result.history["violation"] == np.inf
    assert failed.any()
    assert not result.history.loc[failed, "feasible"].any()
    assert result.feasible
    assert np.isfinite(result.mean).all()


def test_diagnostics_record_the_lp_weights_while_infeasible():
    """After a step from an infeasible point, weights_ favour the violated constraint."""
    problem = two_centres_problem(dim=2, start=0.9)
    optimizer = PALD()
    optimizer.setup(problem, budget=16, seed=0)
    X = optimizer.ask()
    optimizer.tell(X, problem.evaluate(X))
    assert optimizer.active_.tolist() == [True, False]
    assert optimizer.weights_[0] > 0.5
    assert optimizer.rho_ <= 0
