"""Propose: what the loop asks of an optimizer each window (one step) and of a predictor.

The concrete proposer is `tempo.loop.pald_step.PALDStepper`; these protocols keep
the loop free of the optimizer, so tests drive it with fakes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tempo.loop.observe import QS
from tempo.scheduler_file import SchedulerDocument
from whatif.cluster import Cluster
from whatif.workload import Workload


@dataclass(frozen=True, eq=False)
class Step:
    """One optimizer step proposed on a window's workload.

    ``predicted`` and ``predicted_current`` are the predicted QS (same labels as the
    observed ones) of the candidate and of the configuration in force, on the same
    workload and seeds; ``distance`` is the normalized distance moved.
    """

    candidate: SchedulerDocument
    predicted: QS
    predicted_current: QS
    distance: float


class Stepper(Protocol):
    """Proposes one step from the configuration in force on a workload (one PALD iteration),
    predicted on `cluster`: the window's cluster (None: the stepper's own)."""

    def step(
        self, document: SchedulerDocument, workload: Workload, cluster: Cluster | None = None
    ) -> Step: ...


class Predictor(Protocol):
    """Predicts a configuration's QS on a workload and `cluster` (None: the predictor's own),
    with the same labels as the observed ones."""

    def predict(
        self, document: SchedulerDocument, workload: Workload, cluster: Cluster | None = None
    ) -> QS: ...
