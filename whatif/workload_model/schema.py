"""The JSON file format of a fitted `WorkloadModel`, version 1.

Top level (an object)::

    format           "tempo-workload-model"
    version          1
    params           the model's constructor arguments
    window_s         [first, last] submission of the fitted trace (seconds)
    queues           list of queue objects (below)
    goodness_of_fit  list of rows of `WorkloadModel.goodness_of_fit_` (NaN as null)

A queue object::

    name, growth, arrival_scale
    arrivals    {profile, hourly_rate_per_h: [24 jobs/h, hour 0 UTC first],
                 weekday_factor: [7, Monday first], n_jobs, window_s}
    stages      list of {stage, stage_index, priority, duration, resources}
    shapes      {stages: [names], counts: [[tasks per stage], ...], weights: [...]}
    users       table of (user)
    am          table of (am_memory_mb, am_vcores)
    deadlines   null, or {fraction, relative: distribution}
    recurring   list of {key, period_s, phase_s, jitter_s, task_counts: [per stage],
                 user, name, relative_deadline_s (or null), n_seen}

A distribution is ``{"family": "lognormal", "mu": m, "sigma": s}`` or
``{"family": "empirical", "quantiles": [q0, ..., q1]}`` (sorted values, drawn with
equal probability: the sample, or its quantiles at evenly spaced probabilities). A table is ``{"columns": [...], "rows": [[...]],
"weights": [...]}`` with null for a missing value. Reading checks every field;
an error names the file and the field's path (``queues[0].stages[1].duration.mu``),
what was expected and what was found.

Why hand checks and not a schema library (issue 25, measured): the same reader
written as pydantic v2 models (strict and frozen, a discriminated union for the
distributions, model validators for the rules across fields) took 190 non-blank
lines against the 194 of `_Node` and the decoders below, and gave the same models
for a valid file. Its messages were as precise for a single field ("Input should be
greater than 0, got -1") but less so where it matters: a rule across fields (a
shape's task counts per stage, a table's weights) is reported at the enclosing
object (``queues[0]``, with the whole object as what was found), and an unknown
distribution family at ``duration`` rather than ``duration.family``. Getting those
right costs more code than the library saves, and it would make pydantic a runtime
dependency of the engine; jsonschema has the same trade and is a dev dependency only.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from whatif._validation import read_utf8
from whatif.allocation.java_values import JAVA_INT_MAX
from whatif.atomic import write_atomic
from whatif.errors import ValidationError
from whatif.readers.json_stream import json_problem
from whatif.workload_model.arrivals import PROFILES, ArrivalProcess
from whatif.workload_model.distributions import (
    LOG_MAX_DURATION,
    MAX_DURATION_S,
    DurationDistribution,
    EmpiricalTable,
)
from whatif.workload_model.limits import MAX_GENERATED_ROWS, MAX_GROWTH
from whatif.workload_model.queue import DeadlineModel, QueueModel, StageModel
from whatif.workload_model.recurring import RecurringJob
from whatif.workload_model.shapes import JobShapes

FORMAT = "tempo-workload-model"
#: Version written; files with another version are refused.
SCHEMA_VERSION = 1
#: Largest count of the fitted trace a file holds (a queue's ``arrivals.n_jobs``, a
#: recurring job's ``n_seen``, a report row's ``n``): int64's, the count of a table's rows.
MAX_COUNT = int(np.iinfo(np.int64).max)
#: Why a stage's ``priority`` is at most `JAVA_INT_MAX` (and its ``stage_index`` too).
_PRIORITY = "a container priority is a Java int, and the predictor packs it into int32"


# -- writing --


def encode(
    params: dict[str, object],
    queues: dict[str, QueueModel],
    goodness_of_fit: pd.DataFrame,
    window_s: tuple[float, float],
) -> dict[str, object]:
    """The JSON-ready document of a fitted model."""
    return {
        "format": FORMAT,
        "version": SCHEMA_VERSION,
        "params": dict(params),
        "window_s": [float(window_s[0]), float(window_s[1])],
        "queues": [_encode_queue(q) for q in queues.values()],
        "goodness_of_fit": [
            {k: _nullable(v) for k, v in row.items()}
            for row in goodness_of_fit.to_dict(orient="records")
        ],
    }


def write_json(document: dict[str, object], path: Path) -> None:
    """Write `document` to `path` atomically (`whatif.atomic.write_atomic`)."""
    write_atomic(path, json.dumps(document, indent=1, allow_nan=False) + "\n")


def _nullable(value: object) -> object:
    if isinstance(value, float | np.floating) and math.isnan(value):
        return None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _encode_distribution(d: DurationDistribution) -> dict[str, object]:
    if d.family == "lognormal":
        return {"family": "lognormal", "mu": d.mu, "sigma": d.sigma}
    return {"family": "empirical", "quantiles": list(d.quantiles)}


def _encode_table(t: EmpiricalTable) -> dict[str, object]:
    return {
        "columns": list(t.columns),
        "rows": [list(r) for r in t.rows],
        "weights": list(t.weights),
    }


def _encode_queue(q: QueueModel) -> dict[str, object]:
    return {
        "name": q.name,
        "growth": q.growth,
        "arrival_scale": q.arrival_scale,
        "arrivals": {
            "profile": q.arrivals.profile,
            "hourly_rate_per_h": list(q.arrivals.hourly_rate_per_h),
            "weekday_factor": list(q.arrivals.weekday_factor),
            "n_jobs": q.arrivals.n_jobs,
            "window_s": q.arrivals.window_s,
        },
        "stages": [
            {
                "stage": s.stage,
                "stage_index": s.stage_index,
                "priority": s.priority,
                "duration": _encode_distribution(s.duration),
                "resources": _encode_table(s.resources),
            }
            for s in q.stages
        ],
        "shapes": {
            "stages": list(q.shapes.stages),
            "counts": [list(row) for row in q.shapes.counts],
            "weights": list(q.shapes.weights),
        },
        "users": _encode_table(q.users),
        "am": _encode_table(q.am),
        "deadlines": None
        if q.deadlines is None
        else {
            "fraction": q.deadlines.fraction,
            "relative": _encode_distribution(q.deadlines.relative),
        },
        "recurring": [
            {
                "key": r.key,
                "period_s": r.period_s,
                "phase_s": r.phase_s,
                "jitter_s": r.jitter_s,
                "task_counts": list(r.task_counts),
                "user": r.user,
                "name": r.name,
                "relative_deadline_s": r.relative_deadline_s,
                "n_seen": r.n_seen,
            }
            for r in q.recurring
        ],
    }


# -- reading --


class _Node:
    """A value inside the document and its path, for checked access and clear errors."""

    def __init__(self, value: object, where: str, path: Path) -> None:
        self.value, self.where, self.path = value, where, path

    def fail(self, expected: str) -> ValidationError:
        got = json.dumps(self.value)
        got = got if len(got) <= 60 else got[:57] + "..."
        where = f" {self.where}:" if self.where else ""  # the document itself: the file
        return ValidationError(f"{self.path}:{where} expected {expected}, got {got}")

    def __getitem__(self, key: str) -> _Node:
        if not isinstance(self.value, dict):
            raise self.fail("an object")
        where = f"{self.where}.{key}" if self.where else key
        if key not in self.value:
            raise _missing(self.path, where)
        return _Node(self.value[key], where, self.path)

    def items(self) -> list[_Node]:
        if not isinstance(self.value, list):
            raise self.fail("a list")
        return [_Node(v, f"{self.where}[{i}]", self.path) for i, v in enumerate(self.value)]

    def number(
        self, *, low: float | None = None, high: float | None = None, positive: bool = False
    ) -> float:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise self.fail("a number")
        if positive and not v > 0:
            raise self.fail("a positive number")
        if (low is not None and v < low) or (high is not None and v > high):
            raise self.fail(
                f"a number in [{low}, {high}]" if high is not None else f"a number >= {low}"
            )
        return float(v)

    def integer(self, *, low: int, high: int, why: str = "") -> int:
        """An integer in [`low`, `high`] (`why`: the reason for the bounds, for the error)."""
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail("an integer")
        reason = f" ({why})" if why else ""
        if v < low:
            raise self.fail(f"an integer >= {low}{reason}")
        if v > high:
            raise self.fail(f"an integer <= {high:,}{reason}")
        return v

    def string(self, *, choices: tuple[str, ...] | None = None) -> str:
        if not isinstance(self.value, str):
            raise self.fail("a string")
        if choices is not None and self.value not in choices:
            raise self.fail(f"one of {', '.join(map(repr, choices))}")
        return self.value

    def numbers(
        self, *, length: int | None = None, low: float | None = None, high: float | None = None
    ) -> tuple[float, ...]:
        values = tuple(item.number(low=low, high=high) for item in self.items())
        if length is not None and len(values) != length:
            raise self.fail(f"a list of {length} numbers")
        return values

    def integers(self, *, length: int | None = None) -> tuple[int, ...]:
        """Task counts: each in [0, `MAX_GENERATED_ROWS`] (a larger one cannot be generated)."""
        values = tuple(item.integer(low=0, high=MAX_GENERATED_ROWS) for item in self.items())
        if length is not None and len(values) != length:
            raise self.fail(f"a list of {length} integers")
        return values


def _missing(path: Path, where: str) -> ValidationError:
    """Field `where` is missing from the model at `path`."""
    return ValidationError(
        f"{path}: {where}: missing field (expected in a {FORMAT} version {SCHEMA_VERSION} "
        "document, as tempo workload fit writes it)"
    )


def read_json(path: Path) -> object:
    """Load the JSON document at `path`, naming the file and place when it is not JSON."""
    text = read_utf8(path, what="workload model")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, huge ints, deep nesting
        line, column, problem = json_problem(text, whole=True)
        raise ValidationError(f"{path}:{line}:{column}: not valid JSON: {problem}") from error


def decode(
    document: object, path: Path
) -> tuple[dict[str, Any], dict[str, QueueModel], pd.DataFrame, tuple[float, float]]:
    """Check and convert a document: (params, queues, goodness of fit, window)."""
    root = _Node(document, "", path)
    if not isinstance(document, dict):
        raise root.fail("a JSON object (a tempo workload model)")
    if "format" not in document:
        raise root.fail(f"a tempo workload model (a JSON object with format {FORMAT!r})")
    if root["format"].value != FORMAT:
        raise root["format"].fail(repr(FORMAT))
    version = root["version"]
    if type(version.value) is not int or version.value != SCHEMA_VERSION:  # not 1.0, not true
        raise version.fail(f"schema version {SCHEMA_VERSION}")
    params_node = root["params"]
    if not isinstance(params_node.value, dict):
        raise params_node.fail("an object")
    window = root["window_s"].numbers(length=2)
    queues = {}
    if not root["queues"].items():
        raise root["queues"].fail("at least one queue (a model with none generates nothing)")
    for node in root["queues"].items():
        queue = _decode_queue(node)
        if queue.name in queues:
            raise node["name"].fail("a queue name not used before")
        queues[queue.name] = queue
    rows = []
    for node in root["goodness_of_fit"].items():
        if not isinstance(node.value, dict):
            raise node.fail("an object")
        missing = [c for c in _REPORT_KEYS if c not in node.value]
        if missing:
            raise _missing(path, f"{node.where}.{missing[0]}")
        rows.append(_decode_report_row(node))
    gof = pd.DataFrame(rows, columns=list(_REPORT_KEYS))
    return dict(params_node.value), queues, gof, (window[0], window[1])


_REPORT_KEYS = ("queue", "stage", "quantity", "family", "n", "ks_stat", "p_value", "mu", "sigma")


def _decode_report_row(node: _Node) -> dict[str, object]:
    """A goodness-of-fit row: its names strings, its count an integer, its statistic and
    p-value in [0, 1] and its lognormal parameters numbers, each null where not fitted
    (a string there was a TypeError when the report was printed)."""
    row: dict[str, object] = {k: node[k].string() for k in ("queue", "stage", "quantity", "family")}
    row["n"] = node["n"].integer(low=0, high=MAX_COUNT)
    for key, high in (("ks_stat", 1.0), ("p_value", 1.0), ("mu", None), ("sigma", None)):
        field = node[key]
        low = None if high is None else 0.0
        row[key] = np.nan if field.value is None else field.number(low=low, high=high)
    return row


def _decode_distribution(node: _Node, *, low: float = 0.0) -> DurationDistribution:
    """A duration distribution whose draws are finite: empirical values in [`low`,
    `MAX_DURATION_S`], a lognormal ``mu`` and ``sigma`` of at most ``log(MAX_DURATION_S)``
    (a larger ``mu`` puts most draws past the cap; its draws are capped there)."""
    family = node["family"].string(choices=("lognormal", "empirical"))
    if family == "lognormal":
        return DurationDistribution(
            "lognormal", mu=_log_parameter(node["mu"]), sigma=_log_parameter(node["sigma"], 0.0)
        )
    quantiles_node = node["quantiles"]
    quantiles = quantiles_node.numbers(low=low, high=MAX_DURATION_S)
    if not quantiles or np.any(np.diff(quantiles) < 0):
        raise quantiles_node.fail("a non-empty list of non-decreasing numbers")
    return DurationDistribution("empirical", quantiles=quantiles)


def _log_parameter(node: _Node, low: float | None = None) -> float:
    """A lognormal ``mu`` (or ``sigma``, `low` 0) in log seconds, <= `LOG_MAX_DURATION`."""
    value = node.number()
    if value > LOG_MAX_DURATION or (low is not None and value < low):
        bounds = f"<= {LOG_MAX_DURATION:.2f}" if low is None else f"in [0, {LOG_MAX_DURATION:.2f}]"
        raise node.fail(
            f"a number {bounds} (log seconds; durations are drawn up to {MAX_DURATION_S:.0f} s)"
        )
    return value


def _decode_table(node: _Node, columns: tuple[str, ...]) -> EmpiricalTable:
    if tuple(item.string() for item in node["columns"].items()) != columns:
        raise node["columns"].fail(json.dumps(list(columns)))
    rows = []
    for row in node["rows"].items():
        cells = row.items()
        if len(cells) != len(columns):
            raise row.fail(f"a list of {len(columns)} values")
        # a cell is a string, null, or a number (checked by number())
        rows.append(
            tuple(
                c.value if isinstance(c.value, str) or c.value is None else c.number()
                for c in cells
            )
        )
    weights = node["weights"].numbers(length=len(rows), low=0.0)
    if rows and not sum(weights) > 0:
        raise node["weights"].fail("weights with a positive sum")
    return EmpiricalTable(columns, tuple(rows), weights)


def _decode_stage(s: _Node) -> StageModel:
    return StageModel(
        stage=s["stage"].string(),
        stage_index=s["stage_index"].integer(
            low=0, high=JAVA_INT_MAX, why="a Java int, as a stage's priority"
        ),
        # below 0 a Workload reads a priority as not given and puts MapReduce's in its place
        priority=s["priority"].integer(low=0, high=JAVA_INT_MAX, why=_PRIORITY),
        duration=_decode_distribution(s["duration"]),
        resources=_decode_table(s["resources"], ("memory_mb", "vcores")),
    )


def _decode_recurring(r: _Node, n_stages: int) -> RecurringJob:
    return RecurringJob(
        key=r["key"].string(),
        period_s=r["period_s"].number(positive=True),
        phase_s=r["phase_s"].number(),
        jitter_s=r["jitter_s"].number(low=0.0),
        task_counts=r["task_counts"].integers(length=n_stages),
        user=r["user"].string(),
        name=r["name"].string(),
        relative_deadline_s=None
        if r["relative_deadline_s"].value is None
        else r["relative_deadline_s"].number(),
        n_seen=r["n_seen"].integer(low=0, high=MAX_COUNT),
    )


def _decode_queue(node: _Node) -> QueueModel:
    name = node["name"].string()
    arrivals = node["arrivals"]
    stages = tuple(_decode_stage(s) for s in node["stages"].items())
    names = tuple(s.stage for s in stages)
    shapes = node["shapes"]
    if tuple(item.string() for item in shapes["stages"].items()) != names:
        raise shapes["stages"].fail(f"the stage names {json.dumps(list(names))}")
    counts = tuple(row.integers(length=len(names)) for row in shapes["counts"].items())
    shape_weights = shapes["weights"].numbers(length=len(counts), low=0.0)
    if counts and not sum(shape_weights) > 0:
        raise shapes["weights"].fail("weights with a positive sum")
    hourly = arrivals["hourly_rate_per_h"].numbers(length=24, low=0.0)
    if not counts and any(hourly):
        raise shapes["counts"].fail("at least one job shape (the arrival rate is positive)")
    deadlines = node["deadlines"]
    recurring = tuple(_decode_recurring(r, len(names)) for r in node["recurring"].items())
    return QueueModel(
        name=name,
        arrivals=ArrivalProcess(
            profile=arrivals["profile"].string(choices=PROFILES),
            hourly_rate_per_h=hourly,
            weekday_factor=arrivals["weekday_factor"].numbers(length=7, low=0.0),
            n_jobs=arrivals["n_jobs"].integer(low=0, high=MAX_COUNT),
            window_s=arrivals["window_s"].number(low=0.0),
        ),
        stages=stages,
        shapes=JobShapes(names, counts, shape_weights),
        users=_decode_table(node["users"], ("user",)),
        am=_decode_table(node["am"], ("am_memory_mb", "am_vcores")),
        deadlines=None
        if deadlines.value is None
        else DeadlineModel(
            fraction=deadlines["fraction"].number(low=0.0, high=1.0),
            relative=_decode_distribution(deadlines["relative"], low=-MAX_DURATION_S),
        ),
        recurring=recurring,
        growth=_growth(node["growth"]),
        arrival_scale=node["arrival_scale"].number(positive=True),
    )


def _growth(node: _Node) -> float:
    """A queue's data growth factor: positive, at most `MAX_GROWTH`."""
    growth = node.number(positive=True)
    if growth > MAX_GROWTH:
        raise node.fail(f"a positive number <= {MAX_GROWTH:g} (MAX_GROWTH)")
    return growth
