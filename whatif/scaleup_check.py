"""The paper's provisioning check: predict a larger cluster's SLOs from a trace recorded on a smaller one.

Tempo (VLDB 2016, section 8.2.5) ran one workload on clusters of 100%, 50% and
25% of a size, and predicted the SLOs on the 100% cluster from each trace: the
error stayed within 20% from the 50% trace (a 2x larger target) and 35% from the
25% trace (4x). Here the "real" clusters are the predictor with a noise model
(jitter, stragglers, failures), and for each factor k:

- **recorded trace**: the true workload run once on ``cluster.scaled(1 / k)``
  with the noise model and the recording seed; each task's duration becomes its
  successful attempt's observed run time (as a JobHistory trace records it:
  stragglers and jitter baked in, failed attempts lost).
- **predicted**: the What-if Model replays that recorded trace, noise-free (the
  recorded durations already carry one draw of the noise), on ``cluster``.
- **direct**: the true workload run on ``cluster`` with the noise model: the
  mean over `replicates` seeds different from the recording seed (the same
  direct runs for every k).
- **error**: ``|predicted - direct| / |direct|`` per QS (NaN when ``|direct|``
  is below ``1e-9``; the absolute error is reported too).

k = 1 measures the noise alone (trace recorded on the target cluster itself).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from whatif.allocation.effective import EffectiveAllocation
from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.executors import Executor
from whatif.metrics import Metric, Window
from whatif.predictor import NoiseModel, SchedulerSettings, predict
from whatif.schedule import Schedule
from whatif.whatif_model import WhatifModel
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: The check's default "real cluster" noise: 10% duration jitter, 2% stragglers
#: running 3x longer, 1% failed attempts.
DEFAULT_NOISE = NoiseModel(
    failure_probability=0.01, straggler_probability=0.02, straggler_factor=3.0, jitter_cv=0.1
)

#: Seeds of the direct runs start here; the recording uses `seed` itself.
_DIRECT_SEED_OFFSET = 1000


@dataclass(frozen=True, eq=False)
class ScaleUpCheck:
    """Predicted versus direct QS per scale factor.

    ``table`` has one row per (factor, QS label) with columns ``factor``,
    ``recording_cluster``, ``qs``, ``predicted``, ``direct``, ``direct_spread``, ``abs_error`` and
    ``rel_error``.
    """

    table: pd.DataFrame
    cluster: Cluster
    replicates: int

    def max_rel_error(self, factor: float) -> float:
        """The largest relative error at `factor` over QS with a defined one (NaN if none)."""
        errors = self.table.loc[self.table["factor"] == factor, "rel_error"].to_numpy(dtype=float)
        errors = errors[np.isfinite(errors)]
        return float(errors.max()) if errors.size else float("nan")

    def median_rel_error(self, factor: float) -> float:
        """The median relative error at `factor` (NaN if none is defined)."""
        errors = self.table.loc[self.table["factor"] == factor, "rel_error"].to_numpy(dtype=float)
        errors = errors[np.isfinite(errors)]
        return float(np.median(errors)) if errors.size else float("nan")


def recorded_workload(workload: Workload, schedule: Schedule) -> Workload:
    """`workload` with each task's duration replaced by its successful attempt's run time.

    Tasks without a successful attempt in `schedule` keep their duration.
    """
    attempts = schedule.attempts
    ok = attempts[(attempts["state"] == "SUCCEEDED") & ~attempts["is_am"].to_numpy(dtype=bool)]
    observed = (ok["finish_s"] - ok["start_s"]).groupby(ok["task_id"].astype(str)).last()
    tasks = workload.tasks.copy()
    seen = tasks["task_id"].astype(str).map(observed).to_numpy(dtype=float)
    tasks["duration_s"] = np.where(np.isfinite(seen), seen, tasks["duration_s"].to_numpy(float))
    return Workload(jobs=workload.jobs, tasks=tasks)


def scale_up_check(
    workload: Workload,
    allocation: EffectiveAllocation,
    cluster: Cluster,
    qs: Sequence[tuple[str, Metric]],
    *,
    factors: Sequence[float] = (1.0, 2.0, 4.0),
    noise: NoiseModel = DEFAULT_NOISE,
    replicates: int = 3,
    settings: SchedulerSettings | None = None,
    seed: int = 0,
    window: Window | None = None,
    engine: str = "numba",
    executor: Executor | None = None,
) -> ScaleUpCheck:
    """Record `workload` on each ``cluster.scaled(1 / k)``, predict `cluster` from it, compare with direct runs.

    See the module docstring for the exact definitions of both sides.
    """
    if not factors or any(not k > 0 for k in factors):
        raise ValidationError(f"scale-up factors: expected numbers > 0, got {list(factors)!r}")
    settings = settings if settings is not None else SchedulerSettings()
    common: dict[str, Any] = dict(
        settings=settings, window=window, engine=engine, executor=executor
    )
    with warnings.catch_warnings():
        # A QS with nothing to measure in every replicate is NaN: its error is NaN too.
        warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
        warnings.filterwarnings("ignore", "Degrees of freedom", RuntimeWarning)
        direct = WhatifModel(
            cluster,
            qs,
            replicates=replicates,
            noise=noise,
            seed=seed + _DIRECT_SEED_OFFSET,
            **common,
        ).evaluate([allocation], workload)
        predictor = WhatifModel(cluster, qs, replicates=1, noise=None, seed=seed, **common)
        rows = []
        for k in factors:
            recording_cluster = cluster.scaled(1.0 / k)
            recording = predict(
                workload,
                allocation,
                recording_cluster,
                settings=settings,
                engine=engine,
                seed=seed,
                noise=noise,
            )
            predicted = predictor.evaluate([allocation], recorded_workload(workload, recording))
            for j, label in enumerate(predicted.labels):
                pv, dv = float(predicted.mean[0, j]), float(direct.mean[0, j])
                abs_error = abs(pv - dv)
                rel = abs_error / abs(dv) if abs(dv) > 1e-9 else float("nan")
                rows.append(
                    {
                        "factor": float(k),
                        "recording_cluster": recording_cluster.spec(),
                        "qs": label,
                        "predicted": pv,
                        "direct": dv,
                        "direct_spread": float(direct.spread[0, j]),
                        "abs_error": abs_error,
                        "rel_error": rel,
                    }
                )
            logger.info("scale-up check: trace recorded at 1/%g of the cluster done", k)
    return ScaleUpCheck(pd.DataFrame(rows), cluster, replicates)
