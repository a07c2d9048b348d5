"""JSON Schemas of what ``--json`` prints, per command: the stable, documented output.

A field is added only with a new optional property; renaming or removing one
changes the schema name's version (``tempo.optimize/1`` -> ``/2``). Numbers that
could not be measured are ``null``, never NaN. The tests validate each command's
output against its schema; docs/cli.md ("CLI conventions") lists them.
"""

from __future__ import annotations

from typing import Any

_NUMBER = {"type": ["number", "null"]}
_STRING = {"type": "string"}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "required": sorted(required),
        "properties": {**required, **(optional or {})},
    }


def _array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


#: `tempo optimize --json`.
OPTIMIZE_SCHEMA = _object(
    {
        "schema": {"const": "tempo.optimize/1"},
        "config": _STRING,
        "output": _STRING,
        "preemption": {"type": "boolean"},
        "hadoop_version": {"enum": [1, 2, 3]},
        "tuned_settings": _array(_STRING),
        "notes": _array(_STRING),
        "iterations": _array(
            _object(
                {
                    "iteration": {"type": "integer"},
                    "final": {"type": "boolean"},
                    "evaluations": {"type": "integer"},
                    "budget": {"type": "integer"},
                    "failed": {"type": "integer"},
                    "best_feasible": {"type": "boolean"},
                    "best_distance": _NUMBER,
                }
            )
        ),
        "qs": _array(
            _object(
                {
                    "queue": _STRING,
                    "metric": _STRING,
                    "kind": {"enum": ["objective", "constraint"]},
                    "unit": _STRING,
                    "threshold": _NUMBER,
                    "in_force": _NUMBER,
                    "proposed": _NUMBER,
                }
            )
        ),
        "changes": _array(
            _object({"queue": _STRING, "element": _STRING, "old": _STRING, "new": _STRING})
        ),
        "distance": _NUMBER,
        "radius": {"type": "number"},
        "min_gain": _object(
            {
                "relative": {"type": "number"},
                "seconds": {"type": "number"},
                "fraction": {"type": "number"},
            }
        ),
        "held_back": {"type": ["string", "null"]},
        "feasible": {"type": "boolean"},
        "failures": _array(_object({"reason": _STRING, "count": {"type": "integer"}})),
    }
)

#: `tempo predict --json`.
PREDICT_SCHEMA = _object(
    {
        "jobs": {"type": "integer"},
        "attempts": {"type": "integer"},
        "killed_attempts": {"type": "integer"},
        "preemption": {"type": "boolean"},
        "queues": _array(
            _object(
                {
                    "queue": _STRING,
                    "jobs": {"type": "integer"},
                    "mean_response_s": _NUMBER,
                    "last_finish_s": _NUMBER,
                }
            )
        ),
        "errors": {"type": ["array", "null"]},
    }
)

_STATUS = {"type": ["boolean", "null"]}

#: `tempo qs --json`.
QS_SCHEMA = _object(
    {
        "window": _object(
            {
                "start_s": {"type": "number"},
                "end_s": {"type": "number"},
                "length_s": {"type": "number"},
            }
        ),
        "values": _array(
            _object(
                {"queue": _STRING, "metric": _STRING, "unit": _STRING},
                {"observed": _NUMBER, "predicted": _NUMBER},
            )
        ),
        "constraints": _array(
            _object(
                {
                    "queue": _STRING,
                    "constraint": _STRING,
                    "metric": _STRING,
                    "unit": _STRING,
                    "op": {"enum": ["<", "<="]},
                    "threshold": {"type": "number"},
                },
                {
                    "observed": _NUMBER,
                    "observed_met": _STATUS,
                    "predicted": _NUMBER,
                    "predicted_met": _STATUS,
                },
            )
        ),
    },
    {"observed_unfinished": {"type": "integer"}},
)

#: Every command's schema by its command line (``tempo history`` prints a list).
SCHEMAS: dict[str, dict[str, Any]] = {
    "optimize": OPTIMIZE_SCHEMA,
    "predict": PREDICT_SCHEMA,
    "qs": QS_SCHEMA,
}
