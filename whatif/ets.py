"""Exponential smoothing for `whatif.forecast`: the model of least AICc, and bagged paths.

`choose` fits every `CANDIDATES` model (statsmodels' ``ExponentialSmoothing``,
additive errors) and keeps the one of least AICc. `bagged_paths` adds the
uncertainty of that choice and of the fitted parameters (a linear trend's slope,
notably), which the simulated paths of one fit leave out: the remainder of the
series around its smooth part is resampled in moving blocks (a season, or a
week of days, long, so that autocorrelation within a block is kept), added back
to the smooth part, the model chosen and fitted again on each resampled series,
and a few paths simulated from each fit (Bergmeir, Hyndman and Benitez, "Bagging
exponential smoothing methods using STL decomposition and Box-Cox
transformation", IJF 2016, with simulated paths instead of point forecasts).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

#: The models tried on each series, by name: (trend, damped, fixed smoothing
#: parameters). The one of least AICc is used.
CANDIDATES: dict[str, tuple[str | None, bool, dict[str, float]]] = {
    "ETS(A,N,N)": (None, False, {}),
    "ETS(A,A,N)": ("add", False, {}),
    "ETS(A,Ad,N)": ("add", True, {}),
    "linear trend": ("add", False, {"smoothing_level": 0.0, "smoothing_trend": 0.0}),
}


def choose(series: pd.Series) -> tuple[str, Any]:
    """(name, fitted results) of the `CANDIDATES` model of least AICc on `series`.

    The results are statsmodels' HoltWintersResults (statsmodels has no type hints).
    """
    from statsmodels.tools.sm_exceptions import ConvergenceWarning
    from statsmodels.tsa.holtwinters import ExponentialSmoothing

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        fits = {
            name: ExponentialSmoothing(
                series, trend=trend, damped_trend=damped, initialization_method="estimated"
            ).fit(**fixed)
            for name, (trend, damped, fixed) in CANDIDATES.items()
        }
    return min(fits.items(), key=lambda item: item[1].aicc)


def simulate(fitted: Any, steps: int, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """(steps, repetitions) paths simulated from `fitted` after the series' end."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        paths = fitted.simulate(steps, anchor="end", repetitions=repetitions, rng=rng)
    return np.asarray(paths, dtype=float).reshape(steps, repetitions)


def block_resample(remainder: np.ndarray, block: int, rng: np.random.Generator) -> np.ndarray:
    """`remainder` rebuilt from moving blocks of `block` values drawn at random, same length."""
    n = remainder.size
    block = max(1, min(block, n))
    starts = rng.integers(0, n - block + 1, size=-(-n // block))
    return np.concatenate([remainder[s : s + block] for s in starts])[:n]


def bagged_paths(
    smooth: np.ndarray,
    remainder: np.ndarray,
    steps: int,
    *,
    block: int,
    replicates: int,
    per_replicate: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, dict[str, int]]:
    """(steps, replicates * per_replicate) paths, and how often each model was chosen.

    Each replicate is ``smooth + block_resample(remainder)``, forecast by the model
    `choose` picks on it. BLAS runs on one thread meanwhile: the optimizer's vectors
    are a few numbers long, and threads waiting on each other made it 6x slower.
    """
    from threadpoolctl import threadpool_limits

    paths, chosen = [], dict.fromkeys(CANDIDATES, 0)
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(replicates):
            resampled = pd.Series(smooth + block_resample(remainder, block, rng))
            name, fitted = choose(resampled)
            chosen[name] += 1
            paths.append(simulate(fitted, steps, per_replicate, rng))
    return np.concatenate(paths, axis=1), chosen
