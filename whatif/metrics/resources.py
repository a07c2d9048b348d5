"""Resource-time QS metrics: utilization, fairness and preemption waste.

Resource-time is an attempt's share of the cluster (dominant share over memory
and vcores, or one slot on a Hadoop 1 cluster) times the seconds it held its
container inside the window; attempts still running count until the window
ends. Every attempt of a queue's jobs counts, AM containers included, whatever
job it belongs to: this measures the resources the queue held during the window.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from whatif.metrics.scope import Scope

Params = Mapping[str, float | str]


def _resource_time(scope: Scope, params: Params) -> np.ndarray:
    result: np.ndarray = scope.attempt_shares(str(params["stage"])) * scope.attempt_seconds
    return result


def utilization(scope: Scope, params: Params) -> np.ndarray:
    """QS_UTIL: -(1/L) * sum of resource-time, minus the queue's mean share of the cluster."""
    return 0.0 - scope.attempt_sum(_resource_time(scope, params)) / scope.window.length_s


def utilization_without_preempted(scope: Scope, params: Params) -> np.ndarray:
    """QS_UTIL_NOPREEMPT: QS_UTIL counting only attempts that were not preempted."""
    kept = ~scope.schedule.attempts["preempted"].to_numpy(dtype=bool)
    used = scope.attempt_sum(_resource_time(scope, params), kept)
    return 0.0 - used / scope.window.length_s


def fairness(scope: Scope, params: Params) -> np.ndarray:
    """QS_FAIR: |c + QS_UTIL|, how far the queue's mean share is from its desired share c."""
    return np.abs(float(params["share"]) + utilization(scope, params))


def preemption_waste(scope: Scope, params: Params) -> np.ndarray:
    """QS_WASTE: resource-time of killed attempts over all resource-time (NaN when none ran)."""
    used = _resource_time(scope, params)
    killed = (scope.schedule.attempts["state"] == "KILLED").to_numpy()
    total = scope.attempt_sum(used)
    wasted = scope.attempt_sum(used, killed)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, wasted / np.where(total > 0, total, 1.0), np.nan)
