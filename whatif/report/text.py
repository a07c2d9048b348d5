"""The report as terminal text: per scenario, QS per cluster scale and the smallest cluster."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from whatif.durations import format_duration
from whatif.forecast import SeriesForecast, WorkloadForecast
from whatif.provisioning import ProvisioningAnalysis
from whatif.scaleup_check import ScaleUpCheck


def _cell(mean: float, spread: float, met: bool | None, *, slo: bool = False) -> str:
    if math.isnan(mean):
        return "n/a NOT MET" if slo else "n/a"
    mark = {True: " ok", False: " VIOLATED", None: ""}[met]
    plus = f"±{spread:.3g}" if spread > 0 else ""
    return f"{mean:.4g}{plus}{mark}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


def render_text(
    analysis: ProvisioningAnalysis,
    *,
    retuned: ProvisioningAnalysis | None = None,
    check: ScaleUpCheck | None = None,
) -> str:
    """A plain-text report: one table per scenario (in force, then re-tuned), then the scale-up check."""
    lines = _scenario_lines(analysis)
    if retuned is not None:
        lines.append("Re-tuned configuration (tempo optimize at each cluster size):")
        lines.extend(_scenario_lines(retuned))
    if check is not None:
        lines.extend(_check_lines(check))
    return "\n".join(lines).rstrip() + "\n"


def _scenario_lines(analysis: ProvisioningAnalysis) -> list[str]:
    met_of = {j: i for i, (*_, j) in enumerate(analysis.thresholds)}
    threshold_text = {j: f" {op} {t:g}" for _, _, t, op, j in analysis.thresholds}
    lines: list[str] = []
    for s in analysis.scenarios:
        lines.append(
            f"Scenario: {s.scenario.label} ({s.n_jobs} jobs, workload from the {s.source})"
        )
        header = ["scale", "cluster"] + [
            label + threshold_text.get(j, "") for j, label in enumerate(analysis.labels)
        ]
        rows = []
        for r in s.scales:
            cells = [
                _cell(
                    float(r.mean[j]),
                    float(r.spread[j]),
                    r.met[met_of[j]] if j in met_of else None,
                    slo=j in met_of,
                )
                for j in range(len(analysis.labels))
            ]
            rows.append([f"{r.scale:g}{'' if r.on_grid else '*'}", r.cluster.describe(), *cells])
        lines.extend(_table(header, rows))
        b = s.bisection
        smallest = s.smallest
        if b.status == "found":
            assert smallest is not None  # the bisection found a scale
            answer = f"{b.scale:.4g} ({smallest.cluster.describe()}); {b.lower:.4g} is not enough"
        elif b.status == "below_min":
            assert smallest is not None
            answer = (
                f"at most {b.scale:.4g} ({smallest.cluster.describe()}): every scale tried meets them"
            )
        else:
            answer = f"none up to {b.lower:g}: more resources alone do not meet the SLOs"
        lines.append(f"Smallest cluster scale meeting every SLO: {answer}")
        if not b.monotone:
            lines.append(
                "WARNING: not monotone: SLOs met at scale "
                + ", ".join(f"{f:g}" for f in b.flips)
                + " but missed at a larger one"
            )
        for i, flips in sorted(s.threshold_flips.items()):
            queue, metric, threshold, op, _ = analysis.thresholds[i]
            lines.append(
                f"WARNING: {queue}:{metric} {op} {threshold:g} is met at scale "
                + ", ".join(f"{f:g}" for f in flips)
                + " but missed at a larger one: more resources make it worse"
            )
        lines.append("(* = bisection probe off the grid)")
        lines.append("")
    return lines


def render_forecast(forecast: WorkloadForecast) -> str:
    """The forecast per queue: now (the reference window), median and interval at the horizon."""
    horizon = format_duration(forecast.horizon_s)
    percent = f"{100 * forecast.level:g}%"
    lines = [
        f"Forecast at {horizon} from {forecast.history_s / 86400:.1f} days of history "
        f"({forecast.plan.model}; now = the last {format_duration(forecast.plan.reference_s)}, "
        f"{percent} interval):"
    ]
    header, rows = forecast_rows(forecast)
    lines.extend(_table(header, rows))
    lines.extend(f"note: {note}" for note in forecast.notes)
    return "\n".join(lines) + "\n\n"


def forecast_rows(forecast: WorkloadForecast) -> tuple[list[str], list[list[str]]]:
    """The forecast table's header and rows (queue, series, now, median, interval, x now, model)."""
    rows = []
    for q in forecast.queues:
        for what, series, unit in (
            ("jobs/day", q.jobs_per_day, ""),
            ("job size", q.job_size_s, " task-s"),
        ):
            rows.append([q.queue, what, *_forecast_cells(series, unit), series.model])
    percent = f"{100 * forecast.level:g}%"
    return ["queue", "series", "now", "median", f"{percent} interval", "x now", "model"], rows


def _forecast_cells(series: SeriesForecast, unit: str) -> list[str]:
    return [
        f"{series.current:.4g}{unit}",
        f"{series.median:.4g}{unit}",
        f"{series.lower:.4g} .. {series.upper:.4g}",
        f"{series.factor(series.median):.2f} (upper {series.factor(series.upper):.2f})",
    ]


def scaleup_rows(check: ScaleUpCheck) -> Iterable[Any]:
    """The check's table rows (pandas-stubs cannot know a named tuple's columns)."""
    return check.table.itertuples()


def _check_lines(check: ScaleUpCheck) -> list[str]:
    lines = []
    lines.append(
        f"Scale-up check (SLOs of {check.cluster.describe()} predicted from traces recorded on 1/factor of it):"
    )
    rows = [
        [
            f"{row.factor:g}x",
            row.recording_cluster,
            row.qs,
            f"{row.predicted:.4g}",
            f"{row.direct:.4g}",
            "n/a" if math.isnan(row.rel_error) else f"{100 * row.rel_error:.1f}%",
        ]
        for row in scaleup_rows(check)
    ]
    lines.extend(_table(["factor", "recorded on", "qs", "predicted", "direct", "error"], rows))
    return lines
