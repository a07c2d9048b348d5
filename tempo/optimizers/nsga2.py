"""NSGA-II (pymoo) as the evolutionary reference, confined to the risk radius.

pymoo's NSGA-II is driven through its own ask/tell loop. Its objectives are the
normalized QS (`Problem.normalize`), its inequality constraints ``g_i - r_i <= 0`` for
every QS with a threshold. The initial population is the configuration in force plus
points drawn uniformly in the risk radius, and every offspring is repaired with the
problem's projector, so no candidate leaves the box or the radius. A failed
evaluation is given a very large QS and constraint violation.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from tempo.optimizers._params import Interval
from tempo.optimizers.base import Batch, Optimizer, sample_in_radius, start_and_samples
from tempo.optimizers.problem import Evaluation

logger = logging.getLogger(__name__)

_FAILED = 1e12


@dataclass(kw_only=True, eq=False, repr=False)
class NSGA2(Optimizer):
    """pymoo's NSGA-II with ``pop_size`` individuals per generation (one ask per generation).

    Learned: ``algorithm_`` (the pymoo algorithm).
    """

    name = "nsga2"
    _parameter_constraints = {"pop_size": Interval(int, 2)}

    pop_size: int = 8

    def _initialize(self) -> None:
        # pymoo takes half a second to import: only when NSGA-II actually runs.
        from pymoo.algorithms.moo.nsga2 import NSGA2 as _PymooNSGA2
        from pymoo.core.problem import Problem as _PymooProblem

        from tempo.optimizers._pymoo_repair import ProjectRepair

        problem = self.problem_
        n_constraints = int(problem.constrained.sum())
        self._pymoo_problem = _PymooProblem(
            n_var=problem.dim,
            n_obj=problem.n_qs,
            n_ieq_constr=n_constraints,
            xl=np.zeros(problem.dim),
            xu=np.ones(problem.dim),
        )
        initial = start_and_samples(problem, self.rng_, self.pop_size)
        self.algorithm_ = _PymooNSGA2(
            pop_size=self.pop_size,
            sampling=initial,
            repair=ProjectRepair(problem),
            eliminate_duplicates=True,
        )
        self.algorithm_.setup(
            self._pymoo_problem,
            termination=("n_gen", 2**31 - 1),
            seed=int(self.rng_.integers(2**31 - 1)),
            verbose=False,
        )
        self._population: Any = None  # a pymoo Population (untyped) between ask and tell
        self.finished_ = False

    def _converged(self) -> bool:
        return self.finished_

    def _ask(self, n_max: int) -> Batch:
        population = self.algorithm_.ask()
        if population is None or len(population) == 0:
            # pymoo found no new (non-duplicate) offspring: fall back to fresh samples.
            logger.info("nsga2: no new offspring; sampling in the radius instead")
            points = sample_in_radius(self.problem_, self.rng_, min(self.pop_size, n_max))
            population = None
        else:
            population = population[:n_max]
            points = self.problem_.project(np.asarray(population.get("X"), dtype=float))
            if self.n_batches_ == 0:  # pymoo repaired the initial population: keep the start exact
                points[0] = self.problem_.start
        self._population = population
        return Batch(points=points, roles=("sample",) * len(points))

    def _tell(self, X: np.ndarray, evaluation: Evaluation) -> None:
        from pymoo.core.evaluator import Evaluator
        from pymoo.core.population import Population
        from pymoo.problems.static import StaticProblem

        problem = self.problem_
        g = problem.normalize(evaluation.mean)
        failed = np.isnan(g).any(axis=1)
        F = np.where(failed[:, None], _FAILED, g)
        G = (F - problem.normalized_thresholds)[:, problem.constrained]
        if self._population is None:
            self._population = Population.new("X", X)
        self._population.set("X", X)
        values = {"F": F} if G.shape[1] == 0 else {"F": F, "G": G}
        Evaluator().eval(StaticProblem(self._pymoo_problem, **values), self._population)
        self.algorithm_.tell(infills=self._population)
        self._population = None
