"""The report as a JSON-ready dict (``report.json``, schema in `whatif.report.schema`)."""

from __future__ import annotations

import math
from collections.abc import Mapping

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


def _scenarios(analysis: ProvisioningAnalysis) -> list[dict]:
    scenarios = []
    for s in analysis.scenarios:
        smallest = s.smallest
        scenarios.append(
            {
                "growth": s.scenario.growth,
                "arrival_scale": s.scenario.arrival_scale,
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


def report_dict(
    analysis: ProvisioningAnalysis,
    *,
    retuned: ProvisioningAnalysis | None = None,
    check: ScaleUpCheck | None = None,
    inputs: Mapping[str, object] | None = None,
) -> dict:
    """The report.json document of `analysis`, the `retuned` one and the scale-up `check`, if run."""
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
    }
