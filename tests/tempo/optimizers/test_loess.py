"""LOESS: local linear regression recovers values and Jacobians."""

import numpy as np
import pytest

from tempo.optimizers import local_linear_fit
from tempo.optimizers.loess import kernel_weights


def test_linear_map_is_recovered_exactly_without_noise():
    """With ridge 0 and enough points, the Jacobian and value of a linear map are exact."""
    rng = np.random.default_rng(1)
    A = rng.normal(size=(3, 4))
    b = rng.normal(size=3)
    x0 = np.full(4, 0.5)
    X = x0 + 0.05 * rng.normal(size=(12, 4))
    fit = local_linear_fit(X, X @ A.T + b, x0, bandwidth=0.1, ridge=0.0)
    np.testing.assert_allclose(fit.jacobian, A, atol=1e-9)
    np.testing.assert_allclose(fit.value, x0 @ A.T + b, atol=1e-9)
    assert fit.n_used == 12


def test_noisy_linear_map_is_recovered_approximately():
    """With noise, many points give the Jacobian to within a few per cent."""
    rng = np.random.default_rng(2)
    A = np.array([[1.0, -2.0], [0.5, 3.0]])
    x0 = np.array([0.3, 0.6])
    X = x0 + 0.1 * rng.normal(size=(400, 2))
    F = X @ A.T + 0.01 * rng.normal(size=(400, 2))
    fit = local_linear_fit(X, F, x0, bandwidth=0.2, ridge=1e-6)
    np.testing.assert_allclose(fit.jacobian, A, atol=0.1)


def test_quadratic_gradient_is_local():
    """On f = |x|^2 the fit at x0 approximates the gradient 2 x0 when the kernel is narrow."""
    rng = np.random.default_rng(3)
    x0 = np.array([0.2, 0.7])
    X = x0 + 0.01 * rng.normal(size=(30, 2))
    fit = local_linear_fit(X, (X**2).sum(1, keepdims=True), x0, bandwidth=0.02, ridge=0.0)
    np.testing.assert_allclose(fit.jacobian[0], 2 * x0, atol=1e-2)


def test_failed_rows_are_ignored_and_all_failed_raises():
    """NaN rows do not enter the fit; with no usable row the fit raises ValueError."""
    x0 = np.zeros(1)
    X = np.array([[0.0], [0.1], [0.2], [0.3]])
    F = np.array([[0.0], [np.nan], [0.4], [0.6]])
    fit = local_linear_fit(X, F, x0, bandwidth=1.0, ridge=0.0)
    assert fit.n_used == 3
    np.testing.assert_allclose(fit.jacobian, [[2.0]])
    with pytest.raises(ValueError, match="no evaluated point"):
        local_linear_fit(X, np.full((4, 1), np.nan), x0, bandwidth=1.0, ridge=0.0)


def test_ridge_shrinks_slopes_and_handles_too_few_points():
    """With fewer points than dimensions the ridge fit is finite and shrinks towards zero."""
    X = np.array([[0.0, 0.0], [0.1, 0.0]])
    F = np.array([[0.0], [0.1]])
    plain = local_linear_fit(X, F, X[0], bandwidth=1.0, ridge=0.0).jacobian
    ridged = local_linear_fit(X, F, X[0], bandwidth=1.0, ridge=1.0).jacobian
    assert np.isfinite(ridged).all()
    assert abs(ridged[0, 0]) < abs(plain[0, 0])


def test_kernel_weights_are_gaussian():
    """Weights are exp(-|dx|^2 / 2 tau^2)."""
    w = kernel_weights(np.array([[0.0], [1.0], [2.0]]), np.zeros(1), 1.0)
    np.testing.assert_allclose(w, np.exp([0.0, -0.5, -2.0]))
