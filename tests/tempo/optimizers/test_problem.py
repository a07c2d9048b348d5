"""The Problem protocol: validation, normalization, feasibility and the default projector."""

import numpy as np
import pytest
from analytic import TwoCentres, two_centres_problem

from tempo.optimizers import Evaluation, Problem, box_projector, normalized_distance
from whatif.errors import ValidationError


def test_normalized_distance_makes_the_box_diagonal_one():
    """The distance is ||a - b|| / sqrt(d): opposite corners are 1 apart in any dimension."""
    for d in (1, 4, 9):
        assert normalized_distance(np.zeros(d), np.ones(d)) == pytest.approx(1.0)
    rows = normalized_distance(np.zeros((3, 4)), np.ones(4))
    assert rows.shape == (3,)


def test_box_projector_never_leaves_the_box_or_the_radius():
    """Random far points land in [0, 1]^d and within the radius of the centre."""
    rng = np.random.default_rng(0)
    center = np.array([0.1, 0.9, 0.5])
    points = rng.normal(0.5, 2.0, size=(500, 3))
    projected = box_projector(points, center=center, radius=0.2)
    assert ((projected >= 0) & (projected <= 1)).all()
    assert (normalized_distance(projected, center) <= 0.2 + 1e-12).all()


def test_box_projector_leaves_valid_points_alone_and_is_idempotent():
    """A point already inside the box and the radius is unchanged; projecting twice changes nothing."""
    center = np.full(2, 0.5)
    inside = np.array([0.55, 0.45])
    np.testing.assert_array_equal(box_projector(inside, center=center, radius=0.3), inside)
    once = box_projector(np.array([3.0, -1.0]), center=center, radius=0.3)
    np.testing.assert_allclose(box_projector(once, center=center, radius=0.3), once)


def test_box_projector_scales_the_step_along_its_direction():
    """A step too long is shortened along the same direction to exactly the radius."""
    center = np.array([0.5, 0.5])
    out = box_projector(np.array([0.9, 0.5]), center=center, radius=0.1)
    np.testing.assert_allclose(out, [0.5 + 0.1 * np.sqrt(2), 0.5])


def test_problem_project_goes_row_by_row_through_the_projector():
    """Problem.project accepts a batch and calls a one-vector projector with keywords."""
    calls = []

    def projector(x, *, center, radius):
        calls.append(x.shape)
        return box_projector(x, center=center, radius=radius)

    problem = Problem(
        dim=2,
        evaluate=TwoCentres(np.zeros(2), np.ones(2)),
        thresholds=[np.inf, np.inf],
        start=[0.5, 0.5],
        radius=0.1,
        projector=projector,
    )
    out = problem.project(np.array([[2.0, 2.0], [0.5, 0.5]]))
    assert calls == [(2,), (2,)]
    assert out.shape == (2, 2)


def test_feasibility_and_violation_use_normalized_thresholds():
    """Violation is the largest (f - r) / scale over constraints; NaN rows are infeasible."""
    problem = Problem(
        dim=1,
        evaluate=TwoCentres(np.zeros(1), np.ones(1)),
        thresholds=[2.0, np.inf, 0.0],
        start=[0.0],
        optimize_mask=[False, True, False],
    )
    mean = np.array([[1.0, 9.0, 0.0], [3.0, 0.0, -1.0], [1.0, 0.0, 0.5], [np.nan, 0, 0]])
    np.testing.assert_allclose(problem.violation(mean), [0.0, 0.5, 0.5, np.inf])
    assert problem.feasible(mean).tolist() == [True, False, False, False]


def test_default_optimize_mask_is_the_unconstrained_qs():
    """Without optimize_mask, every QS without a finite threshold is an objective."""
    problem = two_centres_problem()
    assert Problem(
        dim=2, evaluate=problem.evaluate, thresholds=[0.5, np.inf], start=[0.9, 0.9]
    ).optimize_mask.tolist() == [False, True]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"dim": 0}, "Problem.dim"),
        ({"thresholds": []}, "Problem.thresholds"),
        ({"thresholds": [1.0, -np.inf]}, "Problem.thresholds"),
        ({"start": [0.5, 1.5]}, "Problem.start"),
        ({"start": [0.5]}, "Problem.start"),
        ({"radius": 0.0}, "Problem.radius"),
        ({"optimize_mask": [True]}, "Problem.optimize_mask"),
        ({"optimize_mask": [True, False]}, "Problem.optimize_mask"),
        ({"weights": [1.0, -1.0]}, "Problem.weights"),
        ({"scales": [1.0, 0.0]}, "Problem.scales"),
        ({"names": ("a", "a")}, "Problem.names"),
    ],
)
def test_problem_rejects_bad_fields_by_name(changes, field):
    """Each malformed field raises a ValidationError naming it."""
    fields = {
        "dim": 2,
        "evaluate": TwoCentres(np.zeros(2), np.ones(2)),
        "thresholds": [1.0, np.inf],
        "start": [0.5, 0.5],
    } | changes
    with pytest.raises(ValidationError, match=field):
        Problem(**fields)


def test_evaluation_requires_matching_shapes():
    """An Evaluation whose spread does not match its mean is rejected."""
    with pytest.raises(ValidationError, match="Evaluation.spread"):
        Evaluation(np.zeros((3, 2)), np.zeros((3, 1)))
    assert len(Evaluation(np.zeros((3, 2)), np.zeros((3, 2)))) == 3
