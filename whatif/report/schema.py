"""The JSON schema of ``report.json`` (format ``tempo-whatif-report``, version 1)."""

from __future__ import annotations

from typing import Any

#: Version of the report.json layout; bumped on any incompatible change.
REPORT_VERSION = 1

_NUMBER_OR_NULL = {"type": ["number", "null"]}
_SCALE = {"type": "number", "exclusiveMinimum": 0}

_SCENARIOS: dict[str, Any] = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "required": [
            "growth",
            "arrival_scale",
            "workload_source",
            "jobs",
            "smallest",
            "scales",
            "waste",
        ],
        "properties": {
            "growth": {"type": "number"},
            "arrival_scale": {"type": "number"},
            "name": {"type": "string"},
            "per_queue": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["queue", "growth", "arrival_scale"],
                    "properties": {
                        "queue": {"type": "string"},
                        "growth": _SCALE,
                        "arrival_scale": _SCALE,
                    },
                },
            },
            "workload_source": {"enum": ["trace", "model"]},
            "jobs": {"type": "integer", "minimum": 0},
            "smallest": {
                "type": "object",
                "required": [
                    "status",
                    "scale",
                    "cluster",
                    "lower",
                    "monotone",
                    "flips",
                    "threshold_flips",
                ],
                "properties": {
                    "status": {"enum": ["found", "below_min", "above_max"]},
                    "scale": _NUMBER_OR_NULL,
                    "cluster": {"type": ["string", "null"]},
                    "lower": _NUMBER_OR_NULL,
                    "monotone": {"type": "boolean"},
                    "flips": {"type": "array", "items": _SCALE},
                    "threshold_flips": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["threshold_index", "scales"],
                            "properties": {
                                "threshold_index": {"type": "integer", "minimum": 0},
                                "scales": {"type": "array", "items": _SCALE},
                            },
                        },
                    },
                },
            },
            "scales": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": [
                        "scale",
                        "cluster",
                        "on_grid",
                        "mean",
                        "spread",
                        "met",
                        "feasible",
                    ],
                    "properties": {
                        "scale": _SCALE,
                        "cluster": {"type": "string"},
                        "on_grid": {"type": "boolean"},
                        "mean": {"type": "array", "items": _NUMBER_OR_NULL},
                        "spread": {"type": "array", "items": _NUMBER_OR_NULL},
                        "met": {"type": "array", "items": {"type": ["boolean", "null"]}},
                        "feasible": {"type": "boolean"},
                    },
                },
            },
            "waste": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["scale", "queue", "gb_hours", "fraction", "preempted"],
                    "properties": {
                        "scale": _SCALE,
                        "queue": {"type": "string"},
                        "gb_hours": {"type": "number", "minimum": 0},
                        "fraction": {"type": "number", "minimum": 0},
                        "preempted": {"type": "integer", "minimum": 0},
                    },
                },
            },
        },
    },
}

_SERIES = {
    "type": "object",
    "required": ["current", "median", "lower", "upper", "model"],
    "properties": {
        "current": {"type": "number"},
        "median": {"type": "number"},
        "lower": {"type": "number"},
        "upper": {"type": "number"},
        "model": {"type": "string"},
    },
}

#: The forecast the scenarios came from (``--growth auto``), when there was one.
_FORECAST: dict[str, Any] = {
    "type": "object",
    "required": ["horizon_s", "level", "history_s", "series", "reference_s", "notes", "queues"],
    "properties": {
        "horizon_s": _SCALE,
        "level": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "history_s": _SCALE,
        "series": {"type": "string"},
        "reference_s": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
        "notes": {"type": "array", "items": {"type": "string"}},
        "queues": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["queue", "jobs_per_day", "job_size_s"],
                "properties": {
                    "queue": {"type": "string"},
                    "jobs_per_day": _SERIES,
                    "job_size_s": _SERIES,
                },
            },
        },
    },
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
        "inputs": {
            "type": "object",
            "required": ["cluster", "replicates", "seed"],
            "properties": {
                "trace": {"type": ["string", "null"]},
                "config": {"type": ["string", "null"]},
                "templates": {"type": ["string", "null"]},
                "cluster": {"type": "string"},
                "replicates": {"type": "integer", "minimum": 1},
                "seed": {"type": "integer"},
                "executor": {"type": ["string", "null"]},
                "window_s": _NUMBER_OR_NULL,
                "preemption": {"type": "boolean"},
            },
        },
        "grid": {"type": "array", "items": _SCALE, "minItems": 1},
        "bisection": {
            "type": "object",
            "required": ["rel_tol", "assumption"],
            "properties": {"rel_tol": {"type": "number"}, "assumption": {"type": "string"}},
        },
        "qs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["label", "queue", "metric"],
                "properties": {
                    "label": {"type": "string"},
                    "queue": {"type": "string"},
                    "metric": {"type": "string"},
                },
            },
        },
        "thresholds": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["queue", "metric", "op", "threshold", "qs_index"],
                "properties": {
                    "queue": {"type": "string"},
                    "metric": {"type": "string"},
                    "op": {"enum": ["<", "<="]},
                    "threshold": {"type": "number"},
                    "qs_index": {"type": "integer", "minimum": 0},
                },
            },
        },
        "scenarios": _SCENARIOS,
        "retuned": {
            "type": ["object", "null"],
            "required": ["scenarios"],
            "properties": {"scenarios": _SCENARIOS},
        },
        "accuracy": {
            "type": ["object", "null"],
            "required": ["cluster", "replicates", "rows", "max_rel_error"],
            "properties": {
                "cluster": {"type": "string"},
                "replicates": {"type": "integer", "minimum": 1},
                "rows": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": [
                            "factor",
                            "recording_cluster",
                            "qs",
                            "predicted",
                            "direct",
                            "direct_spread",
                            "abs_error",
                            "rel_error",
                        ],
                        "properties": {
                            "factor": _SCALE,
                            "recording_cluster": {"type": "string"},
                            "qs": {"type": "string"},
                            "predicted": _NUMBER_OR_NULL,
                            "direct": _NUMBER_OR_NULL,
                            "direct_spread": _NUMBER_OR_NULL,
                            "abs_error": _NUMBER_OR_NULL,
                            "rel_error": _NUMBER_OR_NULL,
                        },
                    },
                },
                "max_rel_error": {"type": "object", "additionalProperties": _NUMBER_OR_NULL},
            },
        },
    },
}
