"""The self-contained ``report.html``: rendered from a Jinja2 template (``templates/report.html.j2``)
with tables and figures embedded as base64 PNG, nothing external.

This module computes the page's values (formatted numbers, CSS classes, images); the
template lays them out. Autoescaping is on and an undefined variable is an error, so
no ``{{ ... }}`` can be left unrendered and no label can inject markup.
"""

from __future__ import annotations

import base64
import math
from functools import cache
from typing import Any

from whatif.durations import format_duration
from whatif.forecast import WorkloadForecast
from whatif.provisioning import ProvisioningAnalysis, ScenarioResult
from whatif.report import plots
from whatif.report.text import forecast_rows, render_forecast, render_text, scaleup_rows
from whatif.scaleup_check import ScaleUpCheck

#: The page template, in the package (``whatif/report/templates``).
TEMPLATE = "report.html.j2"


@cache
def environment(package: str = "whatif.report") -> Any:
    """The Jinja2 environment of `package`'s ``templates`` folder, with this package's
    (``base.html.j2``, ``macros.html.j2``) behind it, so another package's report pages
    extend the same base and share its macros. Autoescaping on, undefined is an error."""
    import jinja2

    packages = dict.fromkeys([package, "whatif.report"])
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.PackageLoader(p, "templates") for p in packages]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def image(png: bytes, alt: str, id: str) -> dict[str, str]:  # noqa: A002 (the HTML id)
    """A PNG as the ``figure`` macro (``macros.html.j2``) embeds it: base64, alt text, id."""
    return {"id": id, "alt": alt, "data": base64.b64encode(png).decode("ascii")}


def _fmt(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4g}"


def _summary_row(s: ScenarioResult) -> dict[str, Any]:
    b = s.bisection
    return {
        "label": s.scenario.label,
        "source": s.source,
        "jobs": s.n_jobs,
        "scale": "none" if b.scale is None else f"{b.scale:.4g}",
        "cluster": s.smallest.cluster.describe() if s.smallest is not None else "none",
        "status": b.status,
        "monotone": "yes" if b.monotone else "NO: " + ", ".join(f"{f:g}" for f in b.flips),
    }


def _scenario_table(analysis: ProvisioningAnalysis, index: int) -> dict[str, Any]:
    s = analysis.scenarios[index]
    met_of = {j: i for i, (*_, j) in enumerate(analysis.thresholds)}
    rows = []
    for r in s.scales:
        cells = []
        for j in range(len(analysis.labels)):
            met = r.met[met_of[j]] if j in met_of else None
            css = {True: "good", False: "bad", None: "bad" if j in met_of else ""}[met]
            spread = f" ± {r.spread[j]:.3g}" if r.spread[j] > 0 else ""
            cells.append({"css": css, "text": f"{_fmt(float(r.mean[j]))}{spread}"})
        probe = "" if r.on_grid else " (probe)"
        rows.append(
            {"scale": f"{r.scale:g}{probe}", "cluster": r.cluster.describe(), "cells": cells}
        )
    return {"labels": list(analysis.labels), "rows": rows}


def _scenarios(analysis: ProvisioningAnalysis) -> list[dict[str, Any]]:
    return [
        {"label": s.scenario.label, "table": _scenario_table(analysis, i)}
        for i, s in enumerate(analysis.scenarios)
    ]


def _check(check: ScaleUpCheck) -> dict[str, Any]:
    rows = [
        {
            "factor": f"{row.factor:g}x",
            "recorded_on": row.recording_cluster,
            "qs": row.qs,
            "predicted": _fmt(row.predicted),
            "direct": _fmt(row.direct),
            "error": "n/a" if math.isnan(row.rel_error) else f"{100 * row.rel_error:.1f}%",
        }
        for row in scaleup_rows(check)
    ]
    return {"cluster": check.cluster.describe(), "replicates": check.replicates, "rows": rows}


def _forecast(forecast: WorkloadForecast) -> dict[str, Any]:
    header, rows = forecast_rows(forecast)
    return {
        "horizon": format_duration(forecast.horizon_s),
        "days": f"{forecast.history_s / 86400:.1f}",
        "model": forecast.plan.model,
        "reference": format_duration(forecast.plan.reference_s),
        "header": header,
        "rows": rows,
        "notes": list(forecast.notes),
    }


def render_html(
    analysis: ProvisioningAnalysis,
    *,
    retuned: ProvisioningAnalysis | None = None,
    check: ScaleUpCheck | None = None,
    title: str = "tempo what-if report",
    forecast: WorkloadForecast | None = None,
) -> str:
    """The whole report as one HTML page with no external resource (with the `forecast`
    the scenarios came from, if any)."""
    details = None
    if any(s.details for s in analysis.scenarios):
        details = {
            "timeline": image(plots.usage_timeline(analysis), "utilization timeline", "timeline"),
            "cdfs": image(plots.response_cdfs(analysis), "response-time CDFs", "cdfs"),
            "waste": image(plots.preemption_waste(analysis), "preemption waste", "waste"),
        }
    context = {
        "title": title,
        "cluster": analysis.cluster.describe(),
        "replicates": analysis.replicates,
        "seed": analysis.seed,
        "tolerance": f"{100 * analysis.rel_tol:g}",
        "summary": [_summary_row(s) for s in analysis.scenarios],
        "qs_plot": image(plots.qs_versus_scale(analysis), "QS versus cluster scale", "qs"),
        "scenarios": _scenarios(analysis),
        "details": details,
        "retuned": None
        if retuned is None
        else {
            "summary": [_summary_row(s) for s in retuned.scenarios],
            "qs_plot": image(
                plots.qs_versus_scale(retuned), "QS versus cluster scale, re-tuned", "qs-retuned"
            ),
            "scenarios": _scenarios(retuned),
        },
        "check": None if check is None else _check(check),
        "forecast": None if forecast is None else _forecast(forecast),
        "text": (render_forecast(forecast) if forecast is not None else "")
        + render_text(analysis, retuned=retuned, check=check),
    }
    result: str = environment().get_template(TEMPLATE).render(**context)
    return result
