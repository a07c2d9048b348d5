"""The DBA's pick: feasible first, then the best on the OPTIMIZE objectives; Pareto sets."""

import numpy as np
from analytic import TwoCentres

from tempo.optimizers import Problem, pareto_mask, select_best
from tempo.optimizers.result import pareto_set


def _problem(thresholds, optimize_mask=None, weights=None):
    k = len(thresholds)
    return Problem(
        dim=1,
        evaluate=TwoCentres(np.zeros(1), np.ones(1)),
        thresholds=thresholds,
        optimize_mask=optimize_mask,
        weights=weights,
        start=[0.0],
        names=tuple(f"q{i}" for i in range(k)),
    )


def test_pareto_mask_keeps_exactly_the_non_dominated_rows():
    """(1, 3), (2, 2), (3, 1) are non-dominated; (2, 3) and a worse copy are dominated."""
    values = np.array([[1, 3], [2, 2], [3, 1], [2, 3], [3, 3], [2, 2]], dtype=float)
    assert pareto_mask(values).tolist() == [True, True, True, False, False, True]


def test_feasible_beats_a_better_infeasible_point():
    """The paper's example: (0, 7) is better on the objective but breaks r = 6; (5, 5) is picked."""
    problem = _problem([6.0, 6.0], optimize_mask=[True, True])
    assert select_best(problem, np.array([[0.0, 7.0], [5.0, 5.0]])) == 1


def test_best_objective_among_feasible_points():
    """Among feasible points, the smallest OPTIMIZE QS wins; constraint-only QS do not count."""
    problem = _problem([1.0, np.inf], optimize_mask=[False, True])
    mean = np.array([[0.1, 5.0], [0.9, 2.0], [2.0, 0.0]])
    assert select_best(problem, mean) == 1


def test_weights_break_trade_offs_between_objectives():
    """Two Pareto-optimal points: the priority-weighted sum decides."""
    mean = np.array([[1.0, 3.0], [3.0, 2.0]])
    assert select_best(_problem([np.inf, np.inf]), mean) == 0
    assert select_best(_problem([np.inf, np.inf], weights=[1.0, 10.0]), mean) == 1


def test_infeasible_case_picks_the_smallest_worst_violation():
    """No feasible point: the one whose largest normalized violation is smallest (max-min)."""
    problem = _problem([1.0, 1.0])
    mean = np.array([[3.0, 1.5], [2.0, 2.0], [1.2, 4.0], [np.nan, np.nan]])
    assert select_best(problem, mean) == 1


def test_pareto_set_is_taken_among_feasible_points():
    """The Pareto set ignores infeasible points even when they dominate."""
    problem = _problem([2.0, np.inf])
    mean = np.array([[3.0, 0.0], [1.0, 3.0], [1.5, 2.0], [1.8, 4.0]])
    assert pareto_set(problem, mean).tolist() == [1, 2]
