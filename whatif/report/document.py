"""The report as a JSON-ready dict (``report.json``, schema in `whatif.report.schema`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from whatif.forecast import SeriesForecast, WorkloadForecast
from whatif.provisioning import ProvisioningAnalysis
from whatif.report.schema import REPORT_VERSION
from whatif.scaleup_check import ScaleUpCheck

#: Stated in every report: what the bisection on the cluster scale assumes.
BISECTION_ASSUMPTION = (
    "feasibility is monotone in the cluster scale (a larger cluster never breaks an SLO a "
    "smaller one meets); flips list the scales that contradict it"
)


def _num(value: float) -> float | None:
    value = float(value)
    return None if math.isnan(value) or math.isinf(value) else value


def _scenarios(analysis: ProvisioningAnalysis) -> list[dict[str, Any]]:
    scenarios = []
    for s in analysis.scenarios:
        smallest = s.smallest
        scenarios.append(
            {
                "growth": s.scenario.growth,
                "arrival_scale": s.scenario.arrival_scale,
                "name": s.scenario.label,
                "per_queue": [
                    {"queue": q, "growth": g, "arrival_scale": a}
                    for q, g, a in s.scenario.per_queue
                ],
                "workload_source": s.source,
                "jobs": int(s.n_jobs),
                "smallest": {
                    "status": s.bisection.status,
                    "scale": s.bisection.scale,
                    "cluster": smallest.cluster.spec() if smallest is not None else None,
                    "lower": s.bisection.lower,
                    "monotone": s.bisection.monotone,
                    "flips": list(s.bisection.flips),
                    "threshold_flips": [
                        {"threshold_index": i, "scales": list(f)}
                        for i, f in sorted(s.threshold_flips.items())
                    ],
                },
                "scales": [
                    {
                        "scale": r.scale,
                        "cluster": r.cluster.spec(),
                        "on_grid": r.on_grid,
                        "unfinished": r.unfinished,
                        "mean": [_num(v) for v in r.mean],
                        "spread": [_num(v) for v in r.spread],
                        "met": list(r.met),
                        "feasible": r.feasible,
                    }
                    for r in s.scales
                ],
                "waste": [
                    {
                        "scale": scale,
                        "queue": queue,
                        "gb_hours": float(summary.waste_gb_h[queue]),
                        "fraction": float(summary.waste_fraction[queue]),
                        "preempted": int(summary.preempted[queue]),
                    }
                    for scale, summary in sorted(s.details.items())
                    for queue in sorted(summary.waste_gb_h)
                ],
            }
        )
    return scenarios


def _series(series: SeriesForecast) -> dict[str, Any]:
    """current, median, lower, upper and model: the dataclass's fields, in their order."""
    return dataclasses.asdict(series)


def forecast_dict(forecast: WorkloadForecast) -> dict[str, Any]:
    """The ``forecast`` entry of report.json: horizon, interval level, model and per-queue series."""
    return {
        "horizon_s": forecast.horizon_s,
        "level": forecast.level,
        "history_s": forecast.history_s,
        "series": forecast.plan.model,
        "reference_s": list(forecast.reference),
        "notes": list(forecast.notes),
        "queues": [
            {
                "queue": q.queue,
                "jobs_per_day": _series(q.jobs_per_day),
                "job_size_s": _series(q.job_size_s),
            }
            for q in forecast.queues
        ],
    }


def report_dict(
    analysis: ProvisioningAnalysis,
    *,
    retuned: ProvisioningAnalysis | None = None,
    check: ScaleUpCheck | None = None,
    inputs: Mapping[str, object] | None = None,
    forecast: WorkloadForecast | None = None,
) -> dict[str, Any]:
    """The report.json document of `analysis`, the `retuned` one, the scale-up `check`, if run,
    and the `forecast` the scenarios came from (``--growth auto``)."""
    given = dict(inputs or {})
    scenarios = _scenarios(analysis)
    accuracy = None
    if check is not None:
        accuracy = {
            "cluster": check.cluster.spec(),
            "replicates": check.replicates,
            "rows": [
                {k: (v if k in ("qs", "recording_cluster") else _num(v)) for k, v in row.items()}
                for row in check.table.to_dict("records")
            ],
            "max_rel_error": {
                f"{k:g}": _num(check.max_rel_error(k)) for k in sorted(set(check.table["factor"]))
            },
        }
    return {
        "format": "tempo-whatif-report",
        "version": REPORT_VERSION,
        "inputs": {
            "trace": given.get("trace"),
            "config": given.get("config"),
            "templates": given.get("templates"),
            "cluster": analysis.cluster.spec(),
            "replicates": analysis.replicates,
            "seed": analysis.seed,
            "executor": given.get("executor"),
            "window_s": given.get("window_s"),
            **({"preemption": given["preemption"]} if "preemption" in given else {}),
        },
        "grid": list(analysis.grid),
        "bisection": {"rel_tol": analysis.rel_tol, "assumption": BISECTION_ASSUMPTION},
        "qs": [
            {"label": label, "queue": label.split(":", 1)[0], "metric": label.split(":", 1)[1]}
            for label in analysis.labels
        ],
        "thresholds": [
            {"queue": q, "metric": m, "op": op, "threshold": t, "qs_index": j}
            for q, m, t, op, j in analysis.thresholds
        ],
        "scenarios": scenarios,
        "retuned": None if retuned is None else {"scenarios": _scenarios(retuned)},
        "accuracy": accuracy,
        **({"forecast": forecast_dict(forecast)} if forecast is not None else {}),
    }
