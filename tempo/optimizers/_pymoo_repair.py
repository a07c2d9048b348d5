"""pymoo repair operator that keeps NSGA-II's offspring inside the risk radius.

Its own module so pymoo is imported only when NSGA-II runs, while the class stays
importable by name (the optimizer pickles).
"""

from __future__ import annotations

import numpy as np
from pymoo.core.repair import Repair

from tempo.optimizers.problem import Problem


class ProjectRepair(Repair):  # type: ignore[misc]  # pymoo ships no type information
    """Apply the problem's projector (box, domains, risk radius) to every offspring."""

    def __init__(self, problem: Problem) -> None:
        super().__init__()
        self.target = problem

    def _do(self, problem: object, X: np.ndarray, **kwargs: object) -> np.ndarray:
        return self.target.project(np.asarray(X, dtype=float))
