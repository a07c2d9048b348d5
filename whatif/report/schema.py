"""The JSON schema of ``report.json`` (format ``tempo-whatif-report``, version 1)."""

from __future__ import annotations

from typing import Any

#: Version of the report.json layout; bumped on any incompatible change.
REPORT_VERSION = 1

_NUMBER_OR_NULL = {"type": ["number", "null"]}
_SCALE = {"type": "number", "exclusiveMinimum": 0}
_STRING = {"type": "string"}
_NUMBER = {"type": "number"}
_COUNT = {"type": "integer", "minimum": 0}


def _object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """An object schema with `properties`, requiring `required` (by default all of them)."""
    names = list(properties) if required is None else required
    return {"type": "object", "required": names, "properties": properties}


def _array(items: dict[str, Any]) -> dict[str, Any]:
    """An array schema whose every item is `items`."""
    return {"type": "array", "items": items}


_SMALLEST = _object(
    {
        "status": {"enum": ["found", "below_min", "smallest_cluster", "above_max"]},
        "scale": _NUMBER_OR_NULL,
        "cluster": {"type": ["string", "null"]},
        "lower": _NUMBER_OR_NULL,
        "monotone": {"type": "boolean"},
        "flips": _array(_SCALE),
        "threshold_flips": _array(
            _object({"threshold_index": _COUNT, "scales": _array(_SCALE)}),
        ),
    }
)

_SCALES = _array(
    _object(
        {
            "scale": _SCALE,
            "cluster": _STRING,
            "on_grid": {"type": "boolean"},
            "unfinished": {"type": ["string", "null"]},
            "mean": _array(_NUMBER_OR_NULL),
            "spread": _array(_NUMBER_OR_NULL),
            "met": _array({"type": ["boolean", "null"]}),
            "feasible": {"type": "boolean"},
        }
    )
)

_WASTE = _array(
    _object(
        {
            "scale": _SCALE,
            "queue": _STRING,
            "gb_hours": {"type": "number", "minimum": 0},
            "fraction": {"type": "number", "minimum": 0},
            "preempted": _COUNT,
        }
    )
)

_SCENARIO_PROPERTIES: dict[str, Any] = {
    "growth": _NUMBER,
    "arrival_scale": _NUMBER,
    "name": _STRING,
    "per_queue": _array(_object({"queue": _STRING, "growth": _SCALE, "arrival_scale": _SCALE})),
    "workload_source": {"enum": ["trace", "model"]},
    "jobs": _COUNT,
    "smallest": _SMALLEST,
    "scales": _SCALES,
    "waste": _WASTE,
}

_SCENARIOS: dict[str, Any] = {
    **_array(
        _object(
            _SCENARIO_PROPERTIES,
            [name for name in _SCENARIO_PROPERTIES if name not in ("name", "per_queue")],
        )
    ),
    "minItems": 1,
}

_SERIES = _object(
    {"current": _NUMBER, "median": _NUMBER, "lower": _NUMBER, "upper": _NUMBER, "model": _STRING}
)

#: The forecast the scenarios came from (``--growth auto``), when there was one.
_FORECAST: dict[str, Any] = _object(
    {
        "horizon_s": _SCALE,
        "level": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "history_s": _SCALE,
        "series": _STRING,
        "reference_s": {**_array(_NUMBER), "minItems": 2, "maxItems": 2},
        "notes": _array(_STRING),
        "queues": _array(
            _object({"queue": _STRING, "jobs_per_day": _SERIES, "job_size_s": _SERIES})
        ),
    }
)

_INPUTS = _object(
    {
        "trace": {"type": ["string", "null"]},
        "config": {"type": ["string", "null"]},
        "templates": {"type": ["string", "null"]},
        "cluster": _STRING,
        "replicates": {"type": "integer", "minimum": 1},
        "seed": {"type": "integer"},
        "executor": {"type": ["string", "null"]},
        "window_s": _NUMBER_OR_NULL,
        "preemption": {"type": "boolean"},
    },
    ["cluster", "replicates", "seed"],
)

_THRESHOLDS = _array(
    _object(
        {
            "queue": _STRING,
            "metric": _STRING,
            "op": {"enum": ["<", "<="]},
            "threshold": _NUMBER,
            "qs_index": _COUNT,
        }
    )
)

_ACCURACY_ROWS = _array(
    _object(
        {
            "factor": _SCALE,
            "recording_cluster": _STRING,
            "qs": _STRING,
            "predicted": _NUMBER_OR_NULL,
            "direct": _NUMBER_OR_NULL,
            "direct_spread": _NUMBER_OR_NULL,
            "abs_error": _NUMBER_OR_NULL,
            "rel_error": _NUMBER_OR_NULL,
        }
    )
)

_ACCURACY = {
    **_object(
        {
            "cluster": _STRING,
            "replicates": {"type": "integer", "minimum": 1},
            "rows": _ACCURACY_ROWS,
            "max_rel_error": {"type": "object", "additionalProperties": _NUMBER_OR_NULL},
        }
    ),
    "type": ["object", "null"],
}

#: JSON Schema (draft 2020-12) of report.json.
REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tempo what-if and provisioning report",
    "type": "object",
    "required": [
        "format",
        "version",
        "inputs",
        "grid",
        "bisection",
        "qs",
        "thresholds",
        "scenarios",
        "accuracy",
    ],
    "additionalProperties": False,
    "properties": {
        "forecast": _FORECAST,
        "format": {"const": "tempo-whatif-report"},
        "version": {"const": REPORT_VERSION},
        "inputs": _INPUTS,
        "grid": {**_array(_SCALE), "minItems": 1},
        "bisection": _object({"rel_tol": _NUMBER, "assumption": _STRING}),
        "qs": _array(_object({"label": _STRING, "queue": _STRING, "metric": _STRING})),
        "thresholds": _THRESHOLDS,
        "scenarios": _SCENARIOS,
        "retuned": {**_object({"scenarios": _SCENARIOS}), "type": ["object", "null"]},
        "accuracy": _ACCURACY,
    },
}
