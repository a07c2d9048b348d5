"""Random points of a configuration space: the one sampler of both schedulers' spaces."""

from __future__ import annotations

import math

import numpy as np


def in_ball(rng: np.random.Generator, n: int, center: np.ndarray, radius: float) -> np.ndarray:
    """`n` points uniform in the ball of normalized radius `radius` around `center`
    (l2 radius ``radius * sqrt(d)``, the risk radius of `distance`), shape (n, d).

    Not clipped to the unit cube nor snapped to the grid: the space's ``project`` does
    that. Draws the directions, then the lengths, so a seed gives the same points.
    """
    d = len(center)
    directions = rng.standard_normal((n, d))
    directions /= np.maximum(np.linalg.norm(directions, axis=1, keepdims=True), 1e-300)
    lengths = float(radius) * math.sqrt(d) * rng.random(n) ** (1.0 / d)
    return np.asarray(center, dtype=float) + directions * lengths[:, np.newaxis]
