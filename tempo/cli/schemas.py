"""JSON Schemas of what ``--json`` prints, per command: the stable, documented output.

A field is added only with a new optional property; renaming or removing one
changes the schema name's version (``tempo.optimize/1`` -> ``/2``). Numbers that
could not be measured are ``null``, never NaN. Every command with ``--json`` has its
schema in `SCHEMAS` (tests/tempo/cli/test_conventions.py checks), and the tests
validate each command's output against it; docs/cli.md ("CLI conventions") lists them.
"""

from __future__ import annotations

from typing import Any

from whatif.report.schema import REPORT_SCHEMA

_NUMBER = {"type": ["number", "null"]}
_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "required": sorted(required),
        "properties": {**required, **(optional or {})},
    }


def _document(
    name: str, required: dict[str, Any], optional: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A command's ``--json`` document: `_object` with the ``schema`` name it starts with."""
    return _object({"schema": {"const": name}, **required}, optional)


def _array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


_BOOLEAN = {"type": "boolean"}
_OPTIONAL_INTEGER = {"type": ["integer", "null"]}

#: A changed setting in allocation-file syntax (`whatif.allocation.diff_rows`).
_CHANGE = _object({"queue": _STRING, "element": _STRING, "old": _STRING, "new": _STRING})

#: `tempo.gain.MinGain`: finite, >= 0.
_MIN_GAIN = _object({k: {"type": "number"} for k in ("relative", "seconds", "fraction")})

#: `tempo optimize --json`.
OPTIMIZE_SCHEMA = _document(
    "tempo.optimize/1",
    {
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
        "changes": _array(_CHANGE),
        "clipped_start": _array(_CHANGE),
        "distance": _NUMBER,
        "radius": {"type": "number"},
        "min_gain": _MIN_GAIN,
        "held_back": {"type": ["string", "null"]},
        "feasible": {"type": "boolean"},
        "failures": _array(_object({"reason": _STRING, "count": {"type": "integer"}})),
    },
)

#: `tempo predict --json`.
PREDICT_SCHEMA = _document(
    "tempo.predict/1",
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
    },
)

_STATUS = {"type": ["boolean", "null"]}

#: `tempo qs --json`.
QS_SCHEMA = _document(
    "tempo.qs/1",
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

_OPTIONAL_STRING = {"type": ["string", "null"]}
_OPTIONAL_OBJECT = {"type": ["object", "null"]}

#: `tempo history --json`: the journal's iterations, oldest first (`tempo.journal.Iteration`).
HISTORY_SCHEMA = _document(
    "tempo.history/1",
    {
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
                },
                # the cluster SPEC the iteration predicted on (absent from older journals)
                {"cluster": _OPTIONAL_STRING},
            )
        ),
    },
)

#: `tempo trace inspect --json` (`whatif.readers.summary.TraceSummary`).
TRACE_INSPECT_SCHEMA = _document(
    "tempo.trace.inspect/1",
    {
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

_CAPACITY = {"scheduler": {"const": "capacity"}}


def _by_scheduler(fair: dict[str, Any], capacity: dict[str, Any]) -> dict[str, Any]:
    """A ``tempo config`` document's variants: `capacity` when it says ``"scheduler":
    "capacity"`` (a capacity-scheduler.xml), else `fair` (an allocation file)."""
    return {"if": {"required": ["scheduler"]}, "then": capacity, "else": fair}


def _queues(*rows: dict[str, Any]) -> dict[str, Any]:
    """``queues``: every row of one of the `rows` shapes."""
    variants = [{"properties": {"queues": _array(row)}} for row in rows]
    return variants[0] if len(variants) == 1 else {"anyOf": variants}


#: `tempo config validate --json` (`tempo.cli.options.report_issues`).
CONFIG_VALIDATE_SCHEMA = _document(
    "tempo.config.validate/1",
    {
        "file": _STRING,
        "valid": _BOOLEAN,
        "issues": _array(
            _object(
                {
                    "line": _INTEGER,
                    "severity": {"enum": ["error", "warning"]},
                    "message": _STRING,
                }
            )
        ),
    },
    _CAPACITY,
)

#: What `config show` says of every Fair Scheduler queue, Hadoop 2/3 queue or Hadoop 1 pool.
_FAIR_ROW = {
    "queue": _STRING,
    "leaf": _BOOLEAN,
    "weight": _NUMBER,
    "policy": _STRING,
    "min_share_timeout_s": _NUMBER,
    "fair_share_timeout_s": _NUMBER,
}

#: A Fair Scheduler queue of `config show` (`whatif.allocation.summary.queue_table`).
_FAIR_QUEUE = _object(
    {
        **_FAIR_ROW,
        "min_memory_mb": _NUMBER,
        "min_vcores": _NUMBER,
        "max": _STRING,
        "max_running_apps": _OPTIONAL_INTEGER,
        "max_am_share": _NUMBER,
        "fair_share_threshold": _NUMBER,
        "preemptable": _BOOLEAN,
    },
    {
        "fair_memory_mb": _NUMBER,
        "fair_vcores": _NUMBER,
        "max_child": {"type": ["string", "null"]},
    },
)

#: A Hadoop 1 pool of `config show` (`whatif.allocation.summary.pool_table`).
_POOL = _object(
    {
        **_FAIR_ROW,
        "min_maps": _INTEGER,
        "min_reduces": _INTEGER,
        "max_maps": _OPTIONAL_INTEGER,
        "max_reduces": _OPTIONAL_INTEGER,
        "max_running_jobs": _OPTIONAL_INTEGER,
    },
    {"fair_maps": _NUMBER, "fair_reduces": _NUMBER},
)

#: A Capacity Scheduler queue of `config show` (`tempo.cli.config_capacity.show_file`):
#: ``capacity`` is a percentage, ``"3w"`` (weight mode) or ``"N mb, M vc"`` (absolute);
#: ``max_am_share`` is ``maximum-am-resource-percent``, a fraction of the queue (0.1).
_CAPACITY_QUEUE = _object(
    {
        "queue": _STRING,
        "mode": {"enum": ["percentage", "absolute", "weight", "vector"]},
        "capacity": {"type": ["number", "string", "null"]},
        "maximum_capacity": _NUMBER,
        "absolute_capacity_percent": _NUMBER,
        "absolute_maximum_capacity_percent": _NUMBER,
        "state": _STRING,
        "policy": _STRING,
        "user_limit_factor": _NUMBER,
        "minimum_user_limit_percent": _NUMBER,
        "max_am_share": _NUMBER,
        "max_applications": _OPTIONAL_INTEGER,
    }
)

#: `tempo config show --json`: Fair Scheduler queues (Hadoop 2/3) or pools (Hadoop 1),
#: or, with ``"scheduler": "capacity"``, Capacity Scheduler queues.
CONFIG_SHOW_SCHEMA = {
    **_document(
        "tempo.config.show/2",
        {
            "file": _STRING,
            "queues": _array({"type": "object"}),
        },
        _CAPACITY,
    ),
    **_by_scheduler(_queues(_FAIR_QUEUE, _POOL), _queues(_CAPACITY_QUEUE)),
}

#: `tempo config set --json` (either scheduler).
CONFIG_SET_SCHEMA = _document("tempo.config.set/1", {"output": _STRING, "changed": _INTEGER})

#: A changed property of a capacity-scheduler.xml (``null``: unset).
_PROPERTY_CHANGE = _object({"property": _STRING, "old": _OPTIONAL_STRING, "new": _OPTIONAL_STRING})

#: `tempo config diff --json`: ``changes`` are settings (`_CHANGE`) or, with
#: ``"scheduler": "capacity"``, properties; ``distance`` is null when the two allocation
#: files share no queue (``dimensions`` 0).
CONFIG_DIFF_SCHEMA = {
    **_document(
        "tempo.config.diff/1",
        {
            "a": _STRING,
            "b": _STRING,
            "changes": _array({"type": "object"}),
            "distance": _NUMBER,
            "dimensions": _INTEGER,
        },
        _CAPACITY,
    ),
    **_by_scheduler(
        {"properties": {"changes": _array(_CHANGE)}},
        {"properties": {"changes": _array(_PROPERTY_CHANGE)}},
    ),
}

#: `tempo config convert --json`: Fair -> Capacity counts the ``properties`` written,
#: Capacity -> Fair the ``queues``.
CONFIG_CONVERT_SCHEMA = {
    **_document(
        "tempo.config.convert/1",
        {
            "file": _STRING,
            "output": _STRING,
            "direction": {"enum": ["fair-to-capacity", "capacity-to-fair"]},
            "not_carried": _array(_STRING),
            "notes": _array(_STRING),
        },
        {"properties": _INTEGER, "queues": _INTEGER},
    ),
    "if": {"properties": {"direction": {"const": "fair-to-capacity"}}},
    "then": {"required": ["properties"]},
    "else": {"required": ["queues"]},
}

#: `tempo trace convert --json`: ``output`` is the native trace directory written.
TRACE_CONVERT_SCHEMA = _document("tempo.trace.convert/1", {"source": _STRING, "output": _STRING})

#: `tempo workload fit --json`: the goodness-of-fit rows
#: (`whatif.workload_model.model.REPORT_COLUMNS`; NaN as null).
WORKLOAD_FIT_SCHEMA = _document(
    "tempo.workload.fit/1",
    {
        "output": _STRING,
        "goodness_of_fit": _array(
            _object(
                {
                    "queue": _STRING,
                    "stage": _STRING,
                    "quantity": _STRING,
                    "family": _STRING,
                    "n": _INTEGER,
                    **{k: _NUMBER for k in ("ks_stat", "p_value", "mu", "sigma")},
                }
            )
        ),
    },
)

#: `tempo workload generate --json`.
WORKLOAD_GENERATE_SCHEMA = _document(
    "tempo.workload.generate/1",
    {
        "output": _STRING,
        "jobs": _INTEGER,
        "tasks": _INTEGER,
        "queues": _array(_STRING),
    },
)

#: QS values by ``queue:metric`` label (`tempo.loop.report.QS`), or null.
_QS_BY_LABEL = {"type": ["object", "null"], "additionalProperties": _NUMBER}

#: `tempo tune --json`: the run and each iteration (`tempo.loop.report.IterationReport`).
TUNE_SCHEMA = _document(
    "tempo.tune/1",
    {
        "config": _STRING,
        "journal": _STRING,
        "emulated": _BOOLEAN,
        "preemption": _BOOLEAN,
        "min_gain": _MIN_GAIN,
        "resumed": _STRING,
        "interrupted": _BOOLEAN,
        "iterations": _array(
            _object(
                {
                    "id": _INTEGER,
                    "begin_s": {"type": "number"},
                    "end_s": {"type": "number"},
                    "jobs": _INTEGER,
                    "decision": {"enum": ["accepted", "rolled_back", "rejected", "dry_run"]},
                    "reason": _STRING,
                    "observed": {**_QS_BY_LABEL, "type": "object"},
                    "baseline": _QS_BY_LABEL,
                    "reference": _QS_BY_LABEL,
                    "predicted_current": _QS_BY_LABEL,
                    "predicted": _QS_BY_LABEL,
                    "changes": _array(_CHANGE),
                    "distance": _NUMBER,
                    "rm_error": _OPTIONAL_STRING,
                    "write_error": _OPTIONAL_STRING,
                },
                # the window's cluster SPEC; "before -> after" when the RM's nodes changed
                {"cluster": _OPTIONAL_STRING, "cluster_change": _OPTIONAL_STRING},
            )
        ),
    },
)

#: Every schema of this module by the command that prints it.
SCHEMAS: dict[str, dict[str, Any]] = {
    "optimize": OPTIMIZE_SCHEMA,
    "predict": PREDICT_SCHEMA,
    "qs": QS_SCHEMA,
    "history": HISTORY_SCHEMA,
    "trace inspect": TRACE_INSPECT_SCHEMA,
    "trace convert": TRACE_CONVERT_SCHEMA,
    "config validate": CONFIG_VALIDATE_SCHEMA,
    "config show": CONFIG_SHOW_SCHEMA,
    "config set": CONFIG_SET_SCHEMA,
    "config diff": CONFIG_DIFF_SCHEMA,
    "config convert": CONFIG_CONVERT_SCHEMA,
    "workload fit": WORKLOAD_FIT_SCHEMA,
    "workload generate": WORKLOAD_GENERATE_SCHEMA,
    "tune": TUNE_SCHEMA,
    "whatif": REPORT_SCHEMA,
}
