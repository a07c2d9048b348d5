"""QS metric names, their parameters and units, and the `Metric` value that names one.

A `Metric` is a name from `METRICS` plus parameters; it is validated and
canonical on construction (names upper-cased, parameters equal to their default
dropped, the rest sorted), so two metrics that compute the same thing compare
equal and have the same `label`, the column name in `evaluate`'s table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from whatif.errors import ValidationError
from whatif.metrics import jobs, resources
from whatif.metrics.deadlines import check_source
from whatif.metrics.scope import Scope

#: Parameter kinds: "fraction" (a float; templates write it in %), "seconds" (a
#: duration; templates write s, min or h), "deadline" (see whatif.metrics.deadlines),
#: "name" (a word, such as a stage).
PARAM_KINDS = ("fraction", "seconds", "deadline", "name")

#: Units of metric values: "s" (seconds), "fraction" (0..1, templates write %),
#: "jobs" (a count), "ratio" (dimensionless).
VALUE_UNITS = ("s", "fraction", "jobs", "ratio")


@dataclass(frozen=True)
class ParamSpec:
    """One metric parameter: its kind, default (None = required) and allowed range."""

    kind: str
    default: float | str | None
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    help: str = ""

    def check(self, value: object, *, field_name: str) -> float | str:
        """The value in canonical form, or a ValidationError naming `field_name`."""
        if self.kind in ("fraction", "seconds"):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise ValidationError(f"{field_name}: expected a number, got {value!r}")
            number = float(value)
            too_low = number <= self.low if self.low_open else number < self.low
            if not math.isfinite(number) or too_low or number > self.high:
                low = f"{'(' if self.low_open else '['}{self.low:g}"
                raise ValidationError(
                    f"{field_name}: expected a value in {low}, {self.high:g}], got {value!r}"
                )
            return number
        if not isinstance(value, str) or not value:
            raise ValidationError(f"{field_name}: expected a non-empty word, got {value!r}")
        if self.kind == "deadline":
            return check_source(value, field=field_name)
        return value


#: A metric's implementation: the attempts and jobs in scope and the parameters -> values.
Compute = Callable[[Scope, Mapping[str, float | str]], np.ndarray]


@dataclass(frozen=True)
class MetricSpec:
    """A QS metric: what it measures, its value unit, parameters and implementation."""

    name: str
    unit: str
    summary: str
    compute: Compute
    params: Mapping[str, ParamSpec] = field(default_factory=dict)
    needs_cluster: bool = False
    needs_deadlines: bool = False


_WINDOW = ParamSpec(
    "seconds",
    0.0,
    low=0.0,
    help="window length in seconds ending where the evaluation window ends; 0 = that window",
)
_STAGE = ParamSpec("name", "", help="count only attempts of this stage (e.g. map, reduce)")
_SLACK = ParamSpec(
    "fraction", 0.0, low=0.0, help="slack gamma: tolerated lateness as a fraction of t_f - t_l"
)
_DEADLINE = ParamSpec(
    "deadline", "auto", help="deadline source: auto, column, next, HH:MM or +DURATION (e.g. +1h)"
)


def _job_metric(
    name: str, unit: str, summary: str, compute: Compute, **params: ParamSpec
) -> MetricSpec:
    """A metric of the jobs' times, over a window (after `params`, if any)."""
    return MetricSpec(name, unit, summary, compute, {**params, "window": _WINDOW})


def _share_metric(name: str, summary: str, compute: Compute, **params: ParamSpec) -> MetricSpec:
    """A fraction of the cluster's resources: it needs the cluster's size and counts one
    stage's attempts over a window (after `params`, if any)."""
    params = {**params, "stage": _STAGE, "window": _WINDOW}
    return MetricSpec(name, "fraction", summary, compute, params, needs_cluster=True)


def _deadline_metric(name: str, summary: str, compute: Compute) -> MetricSpec:
    """A fraction of the jobs with deadlines: it needs their deadlines and takes a slack,
    a deadline source and a window."""
    params = {"slack": _SLACK, "deadline": _DEADLINE, "window": _WINDOW}
    return MetricSpec(name, "fraction", summary, compute, params, needs_deadlines=True)


#: The metrics by name, in the order error messages list them.
METRICS: Mapping[str, MetricSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in (
            _job_metric("QS_AJR", "s", "mean response time t_f - t_s", jobs.average_response),
            _deadline_metric(
                "QS_DL",
                "fraction of deadline jobs that finished late (slack gamma)",
                jobs.deadline_misses,
            ),
            _share_metric(
                "QS_UTIL",
                "minus the mean dominant share of the cluster held",
                resources.utilization,
            ),
            _share_metric(
                "QS_UTIL_NOPREEMPT",
                "QS_UTIL without preempted attempts",
                resources.utilization_without_preempted,
            ),
            _job_metric(
                "QS_THR", "jobs", "minus the number of jobs submitted and finished", jobs.throughput
            ),
            _share_metric(
                "QS_FAIR",
                "|c + QS_UTIL|: distance of the mean share from the desired share c",
                resources.fairness,
                share=ParamSpec("fraction", None, low=0.0, high=1.0, help="desired share c"),
            ),
            _job_metric(
                "QS_PCT",
                "s",
                "p-th percentile of response time",
                jobs.response_percentile,
                p=ParamSpec("fraction", 0.95, low=0.0, high=1.0, help="percentile, 0..100%"),
            ),
            _job_metric(
                "QS_SLOWDOWN",
                "ratio",
                "mean response time over critical-path runtime",
                jobs.slowdown,
            ),
            _share_metric(
                "QS_WASTE",
                "resource-time of killed attempts over all resource-time",
                resources.preemption_waste,
            ),
            _deadline_metric(
                "QS_ATTAIN",
                "minus the fraction of jobs due in the window that met their deadline",
                jobs.deadline_attainment,
            ),
        )
    }
)


def metric_spec(name: str) -> MetricSpec:
    """The registry entry of `name` (case-insensitive), or a ValidationError listing the names."""
    spec = METRICS.get(str(name).upper())
    if spec is None:
        raise ValidationError(f"metric: expected one of {', '.join(METRICS)}, got {name!r}")
    return spec


@dataclass(frozen=True)
class Metric:
    """A QS metric and its parameters, e.g. ``Metric("QS_DL", {"slack": 0.25})``.

    Fractions are floats (0.25, not 25), durations seconds. Parameters left at
    their default are dropped, so ``Metric("QS_DL", {"slack": 0})`` equals
    ``Metric("QS_DL")``.
    """

    name: str
    params: tuple[tuple[str, float | str], ...] | Mapping[str, float | str] = ()

    def __post_init__(self) -> None:
        spec = metric_spec(self.name)
        given = dict(self.params)
        unknown = sorted(set(given) - set(spec.params))
        if unknown:
            allowed = ", ".join(spec.params) or "none"
            raise ValidationError(
                f"{spec.name}: unknown parameter {unknown[0]!r}; expected one of {allowed}"
            )
        canonical = []
        for key, param in spec.params.items():
            if key not in given:
                if param.default is None:
                    raise ValidationError(
                        f"{spec.name}: parameter {key!r} is required ({param.help})"
                    )
                continue
            value = param.check(given[key], field_name=f"{spec.name}({key})")
            if value != param.default:
                canonical.append((key, value))
        object.__setattr__(self, "name", spec.name)
        object.__setattr__(self, "params", tuple(sorted(canonical)))

    @classmethod
    def of(cls, name: str, **params: float | str) -> Metric:
        """``Metric.of("QS_PCT", p=0.99)``."""
        return cls(name, params)

    @property
    def spec(self) -> MetricSpec:
        return METRICS[self.name]

    @property
    def unit(self) -> str:
        return self.spec.unit

    def param(self, key: str) -> float | str:
        """The value of parameter `key`, its default when not given."""
        given = dict(self.params)
        return given[key] if key in given else self.spec.params[key].default  # type: ignore[return-value]

    def resolved(self) -> dict[str, float | str]:
        """Every parameter, defaults filled in."""
        return {key: self.param(key) for key in self.spec.params}

    @property
    def label(self) -> str:
        """``QS_DL(slack=0.25)``: the name and non-default parameters."""
        if not self.params:
            return self.name
        inner = ",".join(
            f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in dict(self.params).items()
        )
        return f"{self.name}({inner})"

    def __str__(self) -> str:
        return self.label
