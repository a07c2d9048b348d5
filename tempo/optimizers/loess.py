"""Local linear regression (LOESS) for the value and Jacobian of a noisy vector function.

PALD, SCALAR and MSPD never see derivatives: they evaluate the QS vector at points
around the iterate ``x0`` and fit ``F(x) ~ f0 + J (x - x0)`` by weighted least squares,
with Gaussian kernel weights ``exp(-|x - x0|^2 / 2 tau^2)`` and a ridge term ``lambda``
on the slopes (paper section 6.3.1 cites LOESS [13])::

    J^T = (dX^T D dX + lambda I)^-1 dX^T D dF

where ``dX`` and ``dF`` are centred on their kernel-weighted means, so the intercept
``f0`` is not penalized and is the smoothed value at ``x0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class LocalFit:
    """A local linear model at a point: ``value (k,)``, ``jacobian (k, d)``, ``n_used``."""

    value: np.ndarray
    jacobian: np.ndarray
    n_used: int


def kernel_weights(X: np.ndarray, x0: np.ndarray, bandwidth: float) -> np.ndarray:
    """Gaussian weights ``exp(-|x - x0|^2 / 2 tau^2)`` of the rows of ``X (n, d)``."""
    sq = np.sum((np.asarray(X, dtype=float) - x0) ** 2, axis=1)
    return np.asarray(np.exp(-sq / (2.0 * bandwidth**2)))


def local_linear_fit(
    X: np.ndarray, F: np.ndarray, x0: np.ndarray, *, bandwidth: float, ridge: float
) -> LocalFit:
    """Fit value and Jacobian of ``F`` at ``x0`` from samples ``X (n, d)``, ``F (n, k)``.

    Rows with a NaN in ``F`` (failed evaluations) and rows whose weight underflows are
    ignored. With ``ridge = 0`` and at least ``d + 1`` points in general position, a
    linear ``F`` is recovered exactly; with fewer points the minimum-norm slopes are
    returned. Raises ValueError when no usable row is left.
    """
    X = np.asarray(X, dtype=float)
    F = np.asarray(F, dtype=float)
    x0 = np.asarray(x0, dtype=float)
    w = kernel_weights(X, x0, bandwidth)
    keep = (w > 1e-12) & ~np.isnan(F).any(axis=1)
    if not keep.any():
        raise ValueError("local_linear_fit: no evaluated point within the kernel bandwidth")
    X, F, w = X[keep], F[keep], w[keep]
    w = w / w.sum()
    x_bar = w @ X
    f_bar = w @ F
    sw = np.sqrt(w)[:, None]
    dX = (X - x_bar) * sw
    dF = (F - f_bar) * sw
    d = X.shape[1]
    if ridge > 0:
        # Ridge as an augmented least-squares system: rows sqrt(lambda) I with zero targets.
        dX = np.vstack([dX, np.sqrt(ridge) * np.eye(d)])
        dF = np.vstack([dF, np.zeros((d, F.shape[1]))])
    slopes, *_ = np.linalg.lstsq(dX, dF, rcond=None)  # (d, k)
    jacobian = slopes.T
    value = f_bar + jacobian @ (x0 - x_bar)
    return LocalFit(value=value, jacobian=jacobian, n_used=int(keep.sum()))
