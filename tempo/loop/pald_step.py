"""One PALD step on a window's workload: what `tempo tune` does with each window it observes.

`PALDStepper.step` builds the configuration space around the configuration in force
and calls `tempo.optimize.optimize` with a small per-window budget (``iterations``
batches of ``batch_size`` points: probes around the configuration in force, the LOESS
fit, points along the descent direction, all inside the risk radius). The optimizer's
pick among the points evaluated (feasible first, then best on the OPTIMIZE
objectives), written into the document through the space, is the candidate.
Predicted QS of the candidate and of the configuration in force come from the same
run (same workload, same seeds).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from pathlib import Path

import numpy as np

from tempo.errors import TempoError
from tempo.loop.observe import qs_entries, qs_labels
from tempo.loop.propose import Step
from tempo.optimize import optimize
from tempo.scheduler_file import SchedulerDocument, SchedulerSpace, scheduler_file
from tempo.space import ConfigurationSpace
from tempo.templates import QSTemplate
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.cluster import Cluster
from whatif.executors import Executor
from whatif.metrics import full_path
from whatif.predictor import SchedulerSettings
from whatif.whatif_model import WhatifModel
from whatif.workload import Workload

logger = logging.getLogger(__name__)


@dataclass(eq=False, repr=False)
class PALDStepper:
    """Proposes one PALD step inside the risk radius (a `tempo.loop.propose.Stepper`), and predicts
    a configuration's QS on a window (a `tempo.loop.propose.Predictor`, with the step's model).

    Parameters
    ----------
    templates : sequence of QSTemplate
    cluster : Cluster
        The cluster predicted on when a call does not name the window's own (`tempo.loop.tuner.
        Tuner` names it each window when it re-reads the RM's nodes).
    space_path : path, optional
        A space file (TOML); the default space of the configuration in force otherwise.
    overrides : sequence of str
        ``QUEUE.SETTING=LOW:HIGH`` overrides of the space.
    radius : float
        Risk radius: the largest normalized distance a step may move.
    replicates : int
        Seeded predictor runs per candidate.
    batch_size : int
        Points per PALD batch.
    iterations : int
        PALD batches per window: the step's search budget is ``iterations * batch_size``
        predictions (probes need a batch, the line along the direction another).
    settings : SchedulerSettings, optional
        The cluster's yarn-site knobs the predictions model (preemption...); Hadoop's
        defaults when None.
    executor : Executor, optional
        Where the What-if Model runs (in this process by default).
    engine : {"numba", "reference"}
        Predictor engine.
    seed : int
        Seed of the perturbations and of the replicates.
    known_queues : sequence of str
        Queues the templates may name beyond a window's prediction (those the loop
        checked at its start: a queue the Fair Scheduler creates only when its user
        submits, `tempo.loop.wiring.template_queues`).
    """

    templates: Sequence[QSTemplate]
    cluster: Cluster
    _: KW_ONLY
    space_path: str | Path | None = None
    overrides: Sequence[str] = ()
    radius: float = 0.1
    replicates: int = 1
    batch_size: int = 8
    iterations: int = 4
    settings: SchedulerSettings | None = None
    executor: Executor | None = None
    engine: str = "numba"
    seed: int = 0
    known_queues: Sequence[str] = ()

    def space(self, document: SchedulerDocument, cluster: Cluster | None = None) -> SchedulerSpace:
        """The configuration space around the document's effective values on `cluster` (None:
        the stepper's own; a capacity-scheduler.xml: the default Capacity Scheduler space, its
        preemption monitor tuned when preemption is on)."""
        cluster = cluster or self.cluster
        if not isinstance(document, AllocationDocument):
            if self.space_path is not None or self.overrides:
                raise TempoError(
                    "--space and --tune name allocation-file settings; a capacity-scheduler.xml "
                    "is tuned over the default Capacity Scheduler space"
                )
            preemption = self.settings is not None and self.settings.preemption
            return scheduler_file(document).space(document, cluster, preemption)
        allocation = effective_allocation(document)
        if self.space_path is not None:
            return ConfigurationSpace.from_file(
                self.space_path, allocation, cluster, overrides=self.overrides
            )
        return ConfigurationSpace.default(allocation, cluster)

    def predict(
        self, document: SchedulerDocument, workload: Workload, cluster: Cluster | None = None
    ) -> dict[str, float]:
        """The QS of `document` on `workload` and `cluster` (None: the stepper's own), predicted
        as a step predicts the configuration in force (same settings, replicates, seeds and
        engine)."""
        cluster = cluster or self.cluster
        entries = qs_entries(self.templates)
        model = WhatifModel(
            cluster,
            entries,
            settings=self.settings,
            replicates=self.replicates,
            seed=self.seed,
            engine=self.engine,
            executor=self.executor,
        )
        allocation = scheduler_file(document).allocation(document, cluster)
        mean = model.evaluate([allocation], workload).mean[0]
        return dict(zip(qs_labels(entries), (float(v) for v in mean), strict=True))

    def step(
        self, document: SchedulerDocument, workload: Workload, cluster: Cluster | None = None
    ) -> Step:
        """One PALD step from `document` on `workload` and `cluster` (None: the stepper's own);
        see the module docstring."""
        cluster = cluster or self.cluster
        outcome = optimize(
            document,
            workload,
            self.templates,
            cluster,
            space=self.space(document, cluster),
            algorithm="pald",
            radius=self.radius,
            iterations=self.iterations,
            batch_size=self.batch_size,
            settings=self.settings,
            replicates=self.replicates,
            executor=self.executor,
            engine=self.engine,
            seed=self.seed,
            known_queues=self.known_queues,
        )
        result = outcome.result
        logger.info(
            "PALD step: %d points evaluated (%d failed), picked %s at distance %.3f",
            result.evaluations,
            len(outcome.failures),
            result.history["role"].iloc[result.index],
            outcome.distance,
        )
        labels = qs_labels(qs_entries(self.templates))
        names = [f"{full_path(c.queue)}:{c.metric.label}" for c in outcome.components]
        return Step(
            candidate=outcome.document,
            predicted=_by_label(names, result.mean, labels),
            predicted_current=_by_label(names, result.start_mean, labels),
            distance=float(outcome.distance),
        )


def _by_label(names: list[str], values: np.ndarray, labels: list[str]) -> dict[str, float]:
    """The first value of each label, in `labels` order (NaN for a QS left out)."""
    found: dict[str, float] = {}
    for name, value in zip(names, values, strict=True):
        found.setdefault(name, float(value))
    return {label: found.get(label, math.nan) for label in labels}
