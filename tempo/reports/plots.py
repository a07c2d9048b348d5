"""The tuning report's figure: each QS along the search (optimize) or the windows (tune),
one panel per QS in its unit, with its SLO threshold dashed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.ticker import MaxNLocator

from whatif.report.plots import figure, png

#: How a unit reads on an axis, and the factor from the stored value.
_AXES = {"s": ("seconds", 1.0), "fraction": ("%", 100.0), "jobs": ("jobs", 1.0)}


def _xy(points: list[list[Any]], factor: float) -> tuple[list[float], list[float]]:
    kept = [(x, y * factor) for x, y in points if y is not None]
    return [x for x, _ in kept], [y for _, y in kept]


def trajectory(document: Mapping[str, Any]) -> bytes:
    """One panel per QS series of ``document["trajectory"]``: observed or best-so-far as a
    line with markers, the prediction (tune) dashed, the threshold in red."""
    series = document["trajectory"]["series"]
    fig, axes = figure(max(1, len(series)), columns=2, width=5.0, height=3.2)
    for ax, s in zip(axes, series, strict=False):
        unit, factor = _AXES.get(s["unit"], (s["unit"], 1.0))
        tune = document["kind"] == "tune"
        x, y = _xy(s["points"], factor)
        ax.plot(x, y, marker="o", ms=4, color="C0", label="observed" if tune else "best so far")
        if s.get("predicted"):
            px, py = _xy(s["predicted"], factor)
            ax.plot(px, py, marker="s", ms=3, ls="--", color="C1", label="predicted for the step")
        if s["threshold"] is not None:
            limit = s["threshold"] * factor
            ax.axhline(limit, color="red", ls="--", lw=1.2, label=f"SLO <= {limit:g} {unit}")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(document["trajectory"]["x"])
        ax.set_ylabel(unit or "value")
        ax.set_title(s["label"], fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    if not series:
        axes[0].set_title("no QS recorded", fontsize=9)
    return png(fig)
