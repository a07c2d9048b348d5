"""The ``report.json`` of a tuning run (schema ``tempo.tuning-report/1``), from a
`tempo optimize` outcome or from a `tempo tune` journal.

One document shape for both, so one template renders both:

- ``qs``: per QS, its value before and after (optimize: predicted under the file in
  force and the file written; tune: observed in the first and the last window);
- ``trajectory``: per QS, ``[x, value]`` points (optimize: the best so far against the
  number of predictions made; tune: observed and predicted per window);
- ``steps``: the changes made, each with its decision, the settings changed and the
  allocation file's unified diff (``diff`` is None, with ``diff_note`` saying why, when
  a file is no longer on disk).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from typing import Any

from tempo.journal import Iteration
from tempo.optimize import OptimizeOutcome, QSComponent
from tempo.qs import format_value
from whatif.allocation import diff_rows
from whatif.report.plots import label_unit

#: The ``schema`` of every tuning report.
SCHEMA = "tempo.tuning-report/1"


def _number(value: Any) -> float | None:
    """A JSON-safe number: None for NaN, infinities and missing values."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def unified_diff(before: str, after: str, before_name: str, after_name: str) -> str:
    """The allocation file's changes as a unified diff (empty when identical)."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=before_name,
            tofile=after_name,
        )
    )


def split_label(label: str) -> tuple[str, str, str]:
    """``queue:metric`` (as the journal keys QS) -> (queue, metric, unit)."""
    queue, _, metric = label.rpartition(":")
    return queue, metric, label_unit(label)


def optimize_report(
    outcome: OptimizeOutcome,
    *,
    before_text: str,
    after_text: str,
    config: str,
    output: str,
    inputs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report of a `tempo optimize` run: `before_text` is the file in force (`config`),
    `after_text` the file written (`output`)."""
    proposed = outcome.result.mean if outcome.diff else outcome.result.start_mean
    qs = [
        {
            "queue": c.queue,
            "metric": c.metric.label,
            "kind": c.kind,
            "unit": c.metric.unit,
            "threshold": _number(c.threshold),
            "before": _number(before),
            "after": _number(after),
        }
        for c, before, after in zip(
            outcome.components, outcome.result.start_mean, proposed, strict=True
        )
    ]
    decision = "proposed" if outcome.diff else "none"
    reason = "; ".join(
        f"predicted {g.label} {format_value(g.before, g.unit)} -> {format_value(g.after, g.unit)}"
        for g in outcome.gains
    ) or (outcome.held_back or "nothing predicted better within the radius")
    step = {
        "iteration": 1,
        "decision": decision,
        "reason": reason,
        "distance": _number(outcome.distance),
        "changes": diff_rows(outcome.diff),
        "diff": unified_diff(before_text, after_text, config, output),
        "diff_note": "",
    }
    return {
        "schema": SCHEMA,
        "kind": "optimize",
        "title": "tempo optimize report",
        "inputs": {k: str(v) for k, v in (inputs or {}).items()},
        "qs": qs,
        "before_label": "in force (predicted)",
        "after_label": "written (predicted)",
        "trajectory": {"x": "predictions made", "series": _optimize_series(outcome)},
        "windows": [],
        "steps": [step],
    }


def _optimize_series(outcome: OptimizeOutcome) -> list[dict[str, Any]]:
    """Per QS, the best predicted value after each batch of predictions (from the start)."""
    return [
        {
            "label": f"{c.queue}:{c.metric.label}",
            "unit": c.metric.unit,
            "threshold": _number(c.threshold),
            "points": [[0, _number(outcome.result.start_mean[j])]]
            + [[r.evaluations, _number(r.best_mean[j])] for r in outcome.iterations],
        }
        for j, c in enumerate(outcome.components)
    ]


def tune_report(
    iterations: Sequence[Iteration],
    steps: Sequence[Mapping[str, Any]],
    *,
    journal: str,
    components: Sequence[QSComponent] = (),
) -> dict[str, Any]:
    """The report of a `tempo tune` run from its journal's `iterations`
    (`tempo.journal.Iteration`) and the applied `steps` (`tempo.reports.journal`).
    `components` (the run's templates', `tempo.optimize.qs_components`) say which QS is
    an objective or a constraint and its threshold: the journal keeps only the values."""
    labels = sorted({k for i in iterations for k in (i.observed_qs or {})})
    known = {f"{c.queue}:{c.metric.label}": c for c in components}
    windows: list[dict[str, Any]] = [
        {
            "iteration": i.id,
            "started_s": i.started_s,
            "finished_s": i.finished_s,
            "decision": i.decision or "unfinished",
            "reason": i.reason,
            "cluster": i.cluster,
            "observed": {k: _number((i.observed_qs or {}).get(k)) for k in labels},
            "predicted": {k: _number((i.predicted_qs or {}).get(k)) for k in labels},
        }
        for i in iterations
    ]
    observed = [w for w in windows if any(v is not None for v in w["observed"].values())]
    qs = []
    series = []
    for label in labels:
        queue, metric, unit = split_label(label)
        first = observed[0]["observed"][label] if observed else None
        last = observed[-1]["observed"][label] if observed else None
        component = known.get(label)
        threshold = _number(component.threshold) if component is not None else None
        qs.append(
            {
                "queue": queue,
                "metric": metric,
                "kind": component.kind if component is not None else "",
                "unit": unit,
                "threshold": threshold,
                "before": first,
                "after": last,
            }
        )
        series.append(
            {
                "label": label,
                "unit": unit,
                "threshold": threshold,
                "points": [[w["iteration"], w["observed"][label]] for w in windows],
                "predicted": [[w["iteration"], w["predicted"][label]] for w in windows],
            }
        )
    return {
        "schema": SCHEMA,
        "kind": "tune",
        "title": "tempo tune report",
        "inputs": {"journal": journal},
        "qs": qs,
        "before_label": "first window (observed)",
        "after_label": "last window (observed)",
        "trajectory": {"x": "iteration (window)", "series": series},
        "windows": windows,
        "steps": list(steps),
    }
