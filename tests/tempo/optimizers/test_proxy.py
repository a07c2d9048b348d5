"""PALD's proxy model: the weight LP, the closed-form rho* and the paper's counterexample."""

import numpy as np
import pytest

from tempo.optimizers import choose_weights, optimal_rho, proxy_gradient, proxy_objective

NO_THRESHOLD = -np.inf


def test_lp_weights_favour_the_most_violated_constraint():
    """Orthogonal gradients, violations 2 and 1: c is proportional to (2, 1)."""
    choice = choose_weights(np.eye(2), np.array([2.0, 1.0]))
    np.testing.assert_allclose(choice.c, np.array([2.0, 1.0]) / np.sqrt(5), atol=1e-9)
    assert choice.z == pytest.approx(2 / 3)
    assert choice.active.tolist() == [0, 1]


def test_lp_weights_are_equal_for_equal_violations():
    """With equal violations this is the paper's LP: max-min rate, equal weights, unit norm."""
    choice = choose_weights(np.eye(2), np.array([1.0, 1.0]))
    np.testing.assert_allclose(choice.c, [np.sqrt(0.5), np.sqrt(0.5)], atol=1e-9)
    assert np.linalg.norm(choice.c) == pytest.approx(1.0)


def test_lp_balances_conflicting_constraints_by_improving_the_worst():
    """Opposite gradients cannot both improve (z = 0): the less violated is dropped, c = (1, 0)."""
    gram = np.array([[1.0, -1.0], [-1.0, 1.0]])
    choice = choose_weights(gram, np.array([2.0, 1.0]))
    np.testing.assert_allclose(choice.c, [1.0, 0.0], atol=1e-9)
    assert choice.z == pytest.approx(1.0)
    assert choice.active.tolist() == [0]
    flipped = choose_weights(gram, np.array([1.0, 3.0]))
    np.testing.assert_allclose(flipped.c, [0.0, 1.0], atol=1e-9)


def test_lp_drops_rows_whose_shared_rate_is_too_small():
    """Nearly opposite gradients share a tiny rate; min_shared_rate makes the worst go first."""
    J = np.array([[1.0, 0.0], [-1.0, 0.05]])
    gram = J @ J.T
    shared = choose_weights(gram, np.array([2.0, 1.0]))
    assert shared.active.tolist() == [0, 1]
    worst_first = choose_weights(gram, np.array([2.0, 1.0]), min_shared_rate=0.25)
    assert worst_first.active.tolist() == [0]
    np.testing.assert_allclose(worst_first.c, [1.0, 0.0], atol=1e-9)


def test_lp_may_use_objectives_that_help_and_respects_epsilon():
    """A QS without threshold gets weight only if it helps; z never exceeds epsilon."""
    gram = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    choice = choose_weights(gram, np.array([1.0, NO_THRESHOLD, -0.5]))
    np.testing.assert_allclose(choice.c, [1.0, 0.0, 0.0], atol=1e-9)
    capped = choose_weights(np.eye(2), np.array([1.0, 1.0]), epsilon=0.1)
    assert capped.z == pytest.approx(0.1)
    assert (capped.c >= 0).all()


def test_lp_without_violations_returns_zero_weights():
    """Nothing violated: no LP, zero weights and an infinite rate."""
    choice = choose_weights(np.eye(2), np.array([-1.0, NO_THRESHOLD]))
    assert choice.c.tolist() == [0.0, 0.0]
    assert choice.z == np.inf


def test_rho_star_matches_the_hand_computed_value():
    """G = [[4, -2], [-2, 2]], c = (1/2, 1/2), f1 violated: rho+ = 1/2, rho- = -1; rho- wins."""
    gram = np.array([[4.0, -2.0], [-2.0, 2.0]])
    c = np.array([0.5, 0.5])
    violated = np.array([True, False])
    # num = 1, pos = 2, neg = -1; objective 1 - 2 rho: 3 at rho = -1 against 0 at rho = 1/2.
    assert optimal_rho(gram, c, violated) == pytest.approx(-1.0)


def test_rho_star_is_clipped_to_the_safe_range():
    """The same case with bounds (-0.5, 0.9) gives -0.5; with no conflict rho- is -inf, clipped."""
    gram = np.array([[4.0, -2.0], [-2.0, 2.0]])
    c = np.array([0.5, 0.5])
    violated = np.array([True, False])
    assert optimal_rho(gram, c, violated, bounds=(-0.5, 0.9)) == pytest.approx(-0.5)
    assert optimal_rho(np.eye(2), np.array([1.0, 0.0]), violated) == pytest.approx(-9.0)


def test_rho_star_is_zero_without_violation_or_when_condition_9_fails():
    """No violated QS, a zero gradient, or sum_j c_j G_ij < 0: the bounds do not apply."""
    gram = np.array([[4.0, -2.0], [-2.0, 2.0]])
    assert optimal_rho(gram, np.array([0.5, 0.5]), np.array([False, False])) == 0.0
    assert optimal_rho(np.zeros((2, 2)), np.array([0.5, 0.5]), np.array([True, True])) == 0.0
    assert optimal_rho(gram, np.array([0.1, 0.9]), np.array([True, False])) == 0.0


def test_proxy_gradient_reweights_violated_qs_by_one_minus_rho():
    """grad s = sum_j c_j (1 - rho [violated_j]) grad f_j."""
    J = np.array([[1.0, 0.0], [0.0, 1.0]])
    grad = proxy_gradient(J, np.array([1.0, 2.0]), -3.0, np.array([True, False]))
    np.testing.assert_allclose(grad, [4.0, 2.0])


def test_scalarization_picks_the_wrong_point_of_the_paper_example():
    """(5, 5) vs (0, 7) with r = (6, 6): the equal-weight sum prefers the infeasible (0, 7)."""
    f = np.array([[5.0, 5.0], [0.0, 7.0]])
    r = np.array([6.0, 6.0])
    assert np.argmin(proxy_objective(f, r, np.ones(2), 0.0)) == 1


def test_proxy_with_negative_rho_prefers_the_feasible_point_of_the_paper_example():
    """The proxy with rho < -3 ranks the feasible (5, 5) first, for these equal weights."""
    f = np.array([[5.0, 5.0], [0.0, 7.0]])
    r = np.array([6.0, 6.0])
    # s(5, 5) = 10 - 12 rho and s(0, 7) = 7 - 13 rho.
    np.testing.assert_allclose(proxy_objective(f, r, np.ones(2), -4.0), [58.0, 59.0])
    assert np.argmin(proxy_objective(f, r, np.ones(2), -4.0)) == 0


def test_proxy_objective_drops_the_penalty_of_unconstrained_qs():
    """For r = +inf the max(f, r) term is constant and left out."""
    value = proxy_objective(np.array([2.0, 3.0]), np.array([np.inf, 1.0]), np.ones(2), 0.5)
    assert value == pytest.approx(2.0 + 3.0 - 0.5 * 3.0)
