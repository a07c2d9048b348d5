"""SCALAR: weighted-sum scalarization (the paper's first baseline, section 6.3 and 8.2.3).

Minimizes ``sum_i w_i f_i / s_i`` (priorities over units, `Problem.normalize`) over
every QS with the same LOESS local descent as PALD, ignoring the thresholds while
searching (its line search and moves compare points by that sum too). With the
paper's QS vectors (5, 5) and (0, 7) and equal weights it prefers (0, 7), which
violates r = (6, 6): the reason PALD exists. Only the final pick (see
`tempo.optimizers.result`) looks at the constraints.
"""

from __future__ import annotations

import numpy as np

from tempo.optimizers.descent import LocalDescent
from tempo.optimizers.loess import LocalFit


class Scalar(LocalDescent):
    """Weighted-sum local descent; parameters are those of `LocalDescent`."""

    name = "scalar"

    def _direction(self, fit: LocalFit) -> np.ndarray:
        return np.asarray(fit.jacobian.sum(axis=0))

    def _merit(self, g: np.ndarray) -> np.ndarray:
        """The weighted sum alone decides which point is better."""
        return np.column_stack([np.zeros(len(g)), g.sum(axis=1)])
