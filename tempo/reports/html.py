"""The tuning report's ``report.html``: `whatif.report`'s base page and macros, this
package's ``tuning.html.j2``, values formatted here (units as `tempo qs` prints them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tempo.qs import format_value
from tempo.reports import plots
from whatif.cluster import spec_totals
from whatif.durations import format_instant
from whatif.report.html import environment, image

TEMPLATE = "tuning.html.j2"


def _value(value: float | None, unit: str) -> str:
    return "-" if value is None else format_value(value, unit)


def _qs_rows(document: Mapping[str, Any]) -> list[dict[str, str]]:
    rows = []
    for q in document["qs"]:
        before, after = q["before"], q["after"]
        change = ""
        if before is not None and after is not None and before != 0:
            change = f"{100 * (after - before) / abs(before):+.1f}%"
        met = ""
        if q["threshold"] is not None and after is not None:
            met = "good" if after <= q["threshold"] else "bad"
        rows.append(
            {
                "queue": q["queue"],
                "metric": q["metric"],
                "kind": q["kind"],
                "threshold": "-"
                if q["threshold"] is None
                else f"<= {_value(q['threshold'], q['unit'])}",
                "before": _value(before, q["unit"]),
                "after": _value(after, q["unit"]),
                "change": change,
                "css": met,
            }
        )
    return rows


def _windows(document: Mapping[str, Any]) -> dict[str, Any] | None:
    if not document["windows"]:
        return None
    units = {s["label"]: s["unit"] for s in document["trajectory"]["series"]}
    labels = list(units)
    return {
        "labels": labels,
        "clusters": any(w.get("cluster") for w in document["windows"]),
        "rows": [
            {
                "iteration": w["iteration"],
                "started": format_instant(w["started_s"]),
                "decision": w["decision"],
                "css": {"accepted": "good", "rolled_back": "bad"}.get(w["decision"], ""),
                "observed": [_value(w["observed"][k], units[k]) for k in labels],
                "predicted": [_value(w["predicted"][k], units[k]) for k in labels],
                "reason": w["reason"],
                "cluster": spec_totals(w.get("cluster")),
                "cluster_spec": w.get("cluster") or "",
            }
            for w in document["windows"]
        ],
    }


def render_tuning_html(document: Mapping[str, Any]) -> str:
    """The whole report (a `tempo.reports.document` dict) as one self-contained page."""
    context = {
        "title": document["title"],
        "kind": document["kind"],
        "inputs": document["inputs"],
        "before_label": document["before_label"],
        "after_label": document["after_label"],
        "qs": _qs_rows(document),
        "windows": _windows(document),
        "steps": document["steps"],
        "x_label": document["trajectory"]["x"],
        "trajectory": image(
            plots.trajectory(document),
            "QS along the " + ("windows" if document["kind"] == "tune" else "search"),
            "trajectory",
        ),
    }
    page: str = environment("tempo.reports").get_template(TEMPLATE).render(**context)
    return page
