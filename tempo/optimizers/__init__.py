"""Optimizers over noisy vector QS on [0, 1]^d: PALD and the baselines it must beat.

``OPTIMIZERS`` maps the CLI names (``tempo optimize --algorithm``) to classes; every
class implements the `Optimizer` ask/tell interface and is driven with the same
budget of function evaluations.
"""

from tempo.optimizers.base import Optimizer, OptimizerError
from tempo.optimizers.loess import LocalFit, local_linear_fit
from tempo.optimizers.mspd import MSPD
from tempo.optimizers.nsga2 import NSGA2
from tempo.optimizers.pald import PALD
from tempo.optimizers.problem import (
    Evaluation,
    Problem,
    box_projector,
    normalized_distance,
)
from tempo.optimizers.proxy import choose_weights, optimal_rho, proxy_gradient, proxy_objective
from tempo.optimizers.random_search import RandomSearch
from tempo.optimizers.result import OptimizationResult, pareto_mask, select_best
from tempo.optimizers.scalar import Scalar
from tempo.optimizers.tpe import TPE

OPTIMIZERS: dict[str, type[Optimizer]] = {
    cls.name: cls for cls in (PALD, Scalar, MSPD, RandomSearch, NSGA2, TPE)
}


def make_optimizer(name: str, **params: object) -> Optimizer:
    """Instantiate the optimizer registered as ``name`` with keyword hyperparameters."""
    try:
        cls = OPTIMIZERS[name]
    except KeyError:
        from whatif.errors import ValidationError

        raise ValidationError(
            f"algorithm: expected one of {', '.join(OPTIMIZERS)}, got {name!r}"
        ) from None
    return cls(**params)


__all__ = [
    "MSPD",
    "NSGA2",
    "OPTIMIZERS",
    "PALD",
    "Evaluation",
    "LocalFit",
    "OptimizationResult",
    "Optimizer",
    "OptimizerError",
    "Problem",
    "RandomSearch",
    "Scalar",
    "TPE",
    "box_projector",
    "choose_weights",
    "local_linear_fit",
    "make_optimizer",
    "normalized_distance",
    "optimal_rho",
    "pareto_mask",
    "proxy_gradient",
    "proxy_objective",
    "select_best",
]
