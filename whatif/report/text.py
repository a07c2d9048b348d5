"""The report as terminal text: per scenario, QS per cluster scale and the smallest cluster."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from whatif.durations import format_duration
from whatif.forecast import SeriesForecast, WorkloadForecast
from whatif.provisioning import ProvisioningAnalysis
from whatif.scaleup_check import ScaleUpCheck
from whatif.table_blocks import column_blocks


def _cell(mean: float, spread: float, met: bool | None, *, slo: bool = False) -> str:
    if math.isnan(mean):
        return "n/a NOT MET" if slo else "n/a"
    mark = {True: " ok", False: " VIOLATED", None: ""}[met]
    plus = f"±{spread:.3g}" if spread > 0 else ""
    return f"{mean:.4g}{plus}{mark}"


def _table(
    header: list[str], rows: list[list[str]], width: int | None = None, keys: int = 2
) -> list[str]:
    """`rows` under `header`, columns two spaces apart. Wider than `width` (None: never
    split), the columns go into blocks stacked one under the other, each at most `width`
    wide where it can be and each repeating the first `keys` columns (what names a row)."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str], cols: list[int]) -> str:
        return "  ".join(r[i].ljust(widths[i]) for i in cols).rstrip()

    def fits(cols: list[int]) -> bool:
        return width is None or sum(widths[j] + 2 for j in cols) - 2 <= width

    dashes = ["-" * w for w in widths]
    lines: list[str] = []
    for cols in column_blocks(len(widths), keys, fits):
        lines.extend([""] if lines else [])
        lines.extend(line(r, cols) for r in [header, dashes, *rows])
    return lines


def render_text(
    analysis: ProvisioningAnalysis,
    *,
    retuned: ProvisioningAnalysis | None = None,
    check: ScaleUpCheck | None = None,
    width: int | None = None,
) -> str:
    """A plain-text report: one table per scenario (in force, then re-tuned), then the scale-up
    check; a table wider than `width` is split into blocks of columns (`_table`)."""
    lines = _scenario_lines(analysis, width)
    if retuned is not None:
        lines.append("Re-tuned configuration (tempo optimize at each cluster size):")
        lines.extend(_scenario_lines(retuned, width))
    if check is not None:
        lines.extend(_check_lines(check, width))
    return "\n".join(lines).rstrip() + "\n"


def _scenario_lines(analysis: ProvisioningAnalysis, width: int | None) -> list[str]:
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
        lines.extend(_table(header, rows, width))
        lines.extend(
            f"At scale {r.scale:g} jobs never finish ({r.unfinished}): no SLO is met there."
            for r in s.scales
            if r.unfinished is not None
        )
        b = s.bisection
        smallest = s.smallest
        if b.status == "found":
            assert smallest is not None  # the bisection found a scale
            answer = f"{b.scale:.4g} ({smallest.cluster.describe()}); {b.lower:.4g} is not enough"
        elif b.status == "below_min":
            assert smallest is not None
            answer = f"at most {b.scale:.4g} ({smallest.cluster.describe()}): every scale tried meets them"
        elif b.status == "smallest_cluster":
            assert smallest is not None
            answer = (
                f"{b.scale:.4g} ({smallest.cluster.describe()}): the smallest cluster meets them"
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


def render_forecast(forecast: WorkloadForecast, width: int | None = None) -> str:
    """The forecast per queue: now (the reference window), median and interval at the horizon;
    wider than `width`, split into blocks of columns that repeat the queue and series."""
    horizon = format_duration(forecast.horizon_s)
    percent = f"{100 * forecast.level:g}%"
    lines = [
        f"Forecast at {horizon} from {forecast.history_s / 86400:.1f} days of history "
        f"({forecast.plan.model}; now = the last {format_duration(forecast.plan.reference_s)}, "
        f"{percent} interval):"
    ]
    header, rows = forecast_rows(forecast)
    lines.extend(_table(header, rows, width))
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


def _check_lines(check: ScaleUpCheck, width: int | None) -> list[str]:
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
    header = ["factor", "recorded on", "qs", "predicted", "direct", "error"]
    lines.extend(_table(header, rows, width, keys=3))
    return lines
