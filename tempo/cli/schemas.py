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
_INTEGER = {"type": "integer"}


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
        "schema": {"const": "tempo.predict/1"},
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
        "schema": {"const": "tempo.qs/1"},
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

_OPTIONAL_STRING = {"type": ["string", "null"]}
_OPTIONAL_OBJECT = {"type": ["object", "null"]}

#: `tempo history --json`: the journal's iterations, oldest first (`tempo.journal.Iteration`).
HISTORY_SCHEMA = _object(
    {
        "schema": {"const": "tempo.history/1"},
        "journal": _STRING,
        "iterations": _array(
            _object(
                {
                    "id": {"type": "integer"},
                    "started_s": {"type": "number"},
                    "finished_s": _NUMBER,
                    "config_path": _STRING,
                    "config_sha256": _STRING,
                    "decision": _OPTIONAL_STRING,
                    "reason": _STRING,
                    "candidate_sha256": _OPTIONAL_STRING,
                    "backup_path": _OPTIONAL_STRING,
                    "observed_qs": _OPTIONAL_OBJECT,
                    "predicted_qs": _OPTIONAL_OBJECT,
                }
            )
        ),
    }
)

#: `tempo trace inspect --json` (`whatif.readers.summary.TraceSummary`).
TRACE_INSPECT_SCHEMA = _object(
    {
        "schema": {"const": "tempo.trace.inspect/1"},
        "source": _STRING,
        "format": _STRING,
        "jobs": _INTEGER,
        "tasks": _INTEGER,
        "attempts": _INTEGER,
        "am_containers": _INTEGER,
        "killed_attempts": _INTEGER,
        "failed_attempts": _INTEGER,
        "preempted_attempts": _INTEGER,
        "queues": _array(_STRING),
        "first_submit_s": _NUMBER,
        "last_submit_s": _NUMBER,
        "last_finish_s": _NUMBER,
        "per_queue": _array({"type": "object"}),
        "durations": _array(
            _object(
                {
                    "stage": _STRING,
                    "tasks": _INTEGER,
                    **{k: _NUMBER for k in ("mean_s", "p50_s", "p90_s", "p99_s", "max_s")},
                }
            )
        ),
        "notes": _array(_STRING),
    },
    {"slots": _OPTIONAL_OBJECT, "nodes": _OPTIONAL_OBJECT},
)

#: Every schema of this module by the command that prints it.
SCHEMAS: dict[str, dict[str, Any]] = {
    "optimize": OPTIMIZE_SCHEMA,
    "predict": PREDICT_SCHEMA,
    "qs": QS_SCHEMA,
    "history": HISTORY_SCHEMA,
    "trace inspect": TRACE_INSPECT_SCHEMA,
}
