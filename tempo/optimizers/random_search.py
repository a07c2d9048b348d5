"""Random search inside the risk radius: the floor every optimizer must beat.

The first batch starts with the configuration in force; every other point is drawn
uniformly from the risk ball around it, then projected (box, domains).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tempo.optimizers._params import Interval
from tempo.optimizers.base import Batch, Optimizer, sample_in_radius, start_and_samples
from tempo.optimizers.problem import Evaluation


@dataclass(kw_only=True, eq=False, repr=False)
class RandomSearch(Optimizer):
    """Uniform sampling in the risk radius, ``batch_size`` points per ask."""

    name = "random"
    _parameter_constraints = {"batch_size": Interval(int, 1)}

    batch_size: int = 8

    def _initialize(self) -> None:
        pass

    def _ask(self, n_max: int) -> Batch:
        problem = self.problem_
        n = min(self.batch_size, n_max)
        if self.n_batches_ == 0:
            points = start_and_samples(problem, self.rng_, n)
        else:
            points = sample_in_radius(problem, self.rng_, n)
        return Batch(points=points, roles=("sample",) * n)

    def _tell(self, X: np.ndarray, evaluation: Evaluation) -> None:
        pass
