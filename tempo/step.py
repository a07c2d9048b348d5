"""One PALD step on a window's workload: what `tempo tune` does with each window it observes.

`PALDStepper.step` builds the configuration space around the configuration in force,
the What-if Model of the templates' QS on the window's workload, and runs ONE PALD
iteration (the iterate and its perturbations in one batch, the LOESS fit, the step,
then the stepped point evaluated): the optimizer's pick among the points evaluated
(`tempo.optimizers.select_best`: feasible first, then best on the OPTIMIZE
objectives), written into the document through the space, is the candidate.
Predicted QS of the candidate and of the configuration in force come from the same
batch (same workload, same seeds).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tempo.loop import Step, qs_entries, qs_labels
from tempo.optimizers import PALD, Evaluation, Problem
from tempo.space import ConfigurationSpace
from tempo.templates import QSTemplate, constraints, objectives
from whatif.allocation import AllocationDocument
from whatif.cluster import Cluster
from whatif.executors import Executor
from whatif.metrics import full_path
from whatif.whatif_model import WhatifModel
from whatif.workload import Workload

logger = logging.getLogger(__name__)


class PALDStepper:
    """Proposes one PALD step inside the risk radius (a `tempo.loop.Stepper`).

    Parameters
    ----------
    templates : sequence of QSTemplate
    cluster : Cluster
    space_path : path, optional
        A space file (TOML); the default space of the configuration in force otherwise.
    overrides : sequence of str
        ``QUEUE.SETTING=LOW:HIGH`` overrides of the space.
    radius : float
        Risk radius: the largest normalized distance a step may move.
    replicates : int
        Seeded predictor runs per candidate.
    batch_size : int
        Points per PALD iteration (the iterate and its perturbations).
    step_size : float
        PALD's first step length (normalized distance).
    executor : Executor, optional
        Where the What-if Model runs (in this process by default).
    engine : {"numba", "reference"}
        Predictor engine.
    seed : int
        Seed of the perturbations and of the replicates.
    """

    def __init__(
        self,
        templates: Sequence[QSTemplate],
        cluster: Cluster,
        *,
        space_path: str | Path | None = None,
        overrides: Sequence[str] = (),
        radius: float = 0.1,
        replicates: int = 1,
        batch_size: int = 8,
        step_size: float = 0.1,
        executor: Executor | None = None,
        engine: str = "numba",
        seed: int = 0,
    ) -> None:
        self.templates = templates
        self.cluster = cluster
        self.space_path = space_path
        self.overrides = overrides
        self.radius = radius
        self.replicates = replicates
        self.batch_size = batch_size
        self.step_size = step_size
        self.executor = executor
        self.engine = engine
        self.seed = seed

    def space(self, document: AllocationDocument) -> ConfigurationSpace:
        """The configuration space around the document's effective values."""
        allocation = document.effective()
        if self.space_path is not None:
            return ConfigurationSpace.from_file(
                self.space_path, allocation, self.cluster, overrides=self.overrides
            )
        return ConfigurationSpace.default(allocation, self.cluster)

    def step(self, document: AllocationDocument, workload: Workload) -> Step:
        """One PALD iteration from `document` on `workload`; see the module docstring."""
        space = self.space(document)
        goals = objectives(self.templates)
        limits = constraints(self.templates)
        entries = [(full_path(q), m) for q, m, _ in goals] + [
            (full_path(q), m) for q, m, _ in limits
        ]
        model = WhatifModel(
            self.cluster,
            entries,
            replicates=self.replicates,
            seed=self.seed,
            engine=self.engine,
            executor=self.executor,
        )

        def evaluate(points: np.ndarray) -> Evaluation:
            candidates = [space.apply(document, x).effective() for x in np.atleast_2d(points)]
            estimate = model.evaluate(candidates, workload)
            return Evaluation(estimate.mean, estimate.spread)

        start = space.encode(document.effective(), clip=True)
        thresholds = np.r_[np.full(len(goals), np.inf), [r for _, _, r in limits]]
        weights = np.r_[[p for _, _, p in goals], np.ones(len(limits))]
        at_start = evaluate(start[None, :]).mean[0]
        scales = np.where(
            np.isfinite(at_start) & (np.abs(at_start) > 0),
            np.abs(at_start),
            np.where(np.isfinite(thresholds) & (thresholds != 0), np.abs(thresholds), 1.0),
        )
        problem = Problem(
            dim=len(space),
            evaluate=evaluate,
            thresholds=thresholds,
            start=start,
            radius=self.radius,
            optimize_mask=np.r_[np.ones(len(goals), bool), np.zeros(len(limits), bool)],
            weights=weights,
            scales=scales,
            projector=space.project,
            distance=space.distance,
            names=tuple(f"{i}:{label}" for i, label in enumerate(qs_labels(entries))),
        )
        optimizer = PALD(batch_size=self.batch_size, step_size=self.step_size)
        result = optimizer.run(problem, budget=self.batch_size + 1, seed=self.seed)
        candidate = space.apply(document, result.x)
        logger.info(
            "PALD step: %d points evaluated, picked %s at distance %.3f",
            result.evaluations,
            result.history["role"].iloc[result.index],
            result.distance,
        )
        labels = qs_labels(qs_entries(self.templates))
        return Step(
            candidate=candidate,
            predicted=_by_label(entries, result.mean, labels),
            predicted_current=_by_label(entries, result.start_mean, labels),
            distance=float(result.distance),
            note=f"{result.evaluations} What-if predictions",
        )


def _by_label(entries, values: np.ndarray, labels: list[str]) -> dict[str, float]:
    """The first value of each label, in `labels` order."""
    found: dict[str, float] = {}
    for label, value in zip(qs_labels(entries), values, strict=True):
        found.setdefault(label, float(value))
    return {label: found[label] for label in labels}
