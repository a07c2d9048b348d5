"""Provisioning analysis: predicted SLOs per cluster size and workload scenario.

For every scenario (cluster scale x data growth x arrival scale) the What-if
Model predicts the QS of each queue (mean and spread over seeded replicates),
each SLO threshold is checked, and the smallest cluster scale meeting all of
them is found by bisection on the scale (Tempo paper, section 8.2.5).

Workload scenarios. The baseline (growth 1, arrival scale 1) alone replays the
trace, as the paper does. As soon as one scenario changes the workload, every
scenario, the baseline included, is generated from a `WorkloadModel` fitted on
the trace and transformed by ``with_growth`` and ``with_arrival_scale``, with
the same seed: scenarios then differ only by the what-if change (common random
numbers), not by the model's departure from the trace.

Bisection. Feasibility (every threshold met by the mean QS; a QS with nothing
to measure is never met: an SLO that cannot be evaluated is not an SLO kept) is
assumed monotone in the cluster scale: a larger
cluster never breaks an SLO a smaller one meets. The grid is evaluated first;
the bracket is [largest infeasible scale, the next feasible one above it],
widened by halving or doubling when the grid is all feasible or all infeasible
(down to ``min_scale``, up to ``max_scale``). The bracket is then halved in log
scale until ``hi / lo <= 1 + rel_tol`` or both ends give the same cluster
(whole nodes); the widening, too, does not simulate a scale that gives the cluster of the
one before again (doubling steps over it, halving stops). Points that contradict monotonicity (feasible below an
infeasible larger scale) are reported as ``flips``; the answer is then the
conservative one, above the largest infeasible scale seen.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from whatif._validation import check_choice
from whatif.allocation.effective import EffectiveAllocation
from whatif.cluster import Cluster
from whatif.errors import UnfinishedJobsError, ValidationError
from whatif.executors import Executor, SerialExecutor
from whatif.metrics import Metric, Window, full_path
from whatif.nested import nested_workloads, per_queue_factors
from whatif.predictor import NoiseModel, SchedulerSettings
from whatif.schedule_summary import ScheduleSummary, summarize_finished
from whatif.whatif_model import WhatifModel
from whatif.workload import Workload
from whatif.workload_model import WorkloadModel

logger = logging.getLogger(__name__)

#: An SLO threshold: (queue, metric, threshold[, op]); met when ``value op threshold``
#: with op ``"<="`` (the default) or ``"<"``.
Threshold = tuple[Any, ...]

#: Called after every evaluation with (evaluations done, estimated total, message).
Progress = Callable[[int, int, str], None]

#: Returns the configuration to use on a cluster for a workload (e.g. re-tuned for it).
Configure = Callable[[Cluster, Workload], EffectiveAllocation]

#: Bisection steps budgeted in progress estimates (the true count depends on the bracket).
_ESTIMATED_BISECTION_STEPS = 6


@dataclass(frozen=True)
class BisectionResult:
    """The smallest scale at which a monotone predicate holds.

    ``status``: ``"found"`` (``lower < scale``, within tolerance), ``"below_min"``
    (the predicate holds at ``min_scale``; ``scale`` is that), ``"smallest_cluster"``
    (it holds at the smallest cluster the scaling builds, one node, so there is no
    smaller one to try; ``scale`` is the smallest scale tried there), ``"above_max"`` (it
    fails up to ``max_scale``; ``scale`` is None). ``points`` are every evaluated
    (scale, holds) pair in increasing scale; ``flips`` the scales where it holds
    although it fails at some larger evaluated scale (empty when monotone).
    """

    scale: float | None
    lower: float | None
    status: str
    points: tuple[tuple[float, bool], ...]
    flips: tuple[float, ...] = ()

    @property
    def monotone(self) -> bool:
        return not self.flips


def smallest_scale(
    holds: Callable[[float], bool],
    grid: Sequence[float],
    *,
    rel_tol: float = 0.02,
    min_scale: float = 1 / 64,
    max_scale: float = 64.0,
    key: Callable[[float], Hashable] | None = None,
) -> BisectionResult:
    """Bisect (in log scale) for the smallest scale where `holds` is true.

    Parameters
    ----------
    holds : callable
        The predicate, assumed monotone (false below a threshold, true above).
    grid : sequence of float
        Scales evaluated first (any order, > 0).
    rel_tol : float
        Stop when ``hi / lo <= 1 + rel_tol``.
    min_scale, max_scale : float
        How far the bracket may be widened beyond the grid.
    key : callable, optional
        Maps a scale to what it actually builds (a cluster spec); bisection stops
        when the midpoint builds the same thing as an end.
    """
    grid = sorted({float(s) for s in grid})
    if not grid or grid[0] <= 0:
        raise ValidationError(f"cluster scales: expected scales > 0, got {grid!r}")
    if not rel_tol > 0:
        raise ValidationError(f"bisection rel_tol: expected a number > 0, got {rel_tol!r}")
    if not 0 < min_scale <= grid[0] or not max_scale >= grid[-1]:
        raise ValidationError(
            f"bisection bounds: expected min_scale <= {grid[0]} <= {grid[-1]} <= max_scale, "
            f"got {min_scale!r}, {max_scale!r}"
        )
    seen: dict[float, bool] = {}

    def probe(scale: float) -> bool:
        if scale not in seen:
            seen[scale] = bool(holds(scale))
        return seen[scale]

    def same(a: float, b: float) -> bool:
        """Whether scales `a` and `b` give one cluster: doubling steps over such a scale
        without simulating it again (its answer is `b`'s), halving stops there (the
        smallest cluster; the answer stays a simulated scale)."""
        return key is not None and key(a) == key(b)

    for scale in grid:
        probe(scale)
    infeasible = [s for s, ok in seen.items() if not ok]
    lo: float | None
    hi: float | None
    if not infeasible:
        lo, hi = None, grid[0]
        while lo is None and hi / 2 >= min_scale and not same(hi / 2, hi):  # (one node)
            if probe(hi / 2):
                hi = hi / 2
            else:
                lo = hi / 2
        if lo is None:
            smallest = hi / 2 >= min_scale  # halving stopped at the smallest cluster
            return _result(hi, None, "smallest_cluster" if smallest else "below_min", seen)
    else:
        lo = max(infeasible)
        above = [s for s, ok in seen.items() if ok and s > lo]
        hi = min(above) if above else None
        while hi is None and lo * 2 <= max_scale:
            if not same(lo * 2, lo) and probe(lo * 2):
                hi = lo * 2
            else:
                lo = lo * 2
        if hi is None:
            return _result(None, lo, "above_max", seen)
    while hi / lo > 1 + rel_tol:
        mid = math.sqrt(lo * hi)
        if key is not None and key(mid) in (key(lo), key(hi)):
            break
        if probe(mid):
            hi = mid
        else:
            lo = mid
    return _result(hi, lo, "found", seen)


def _result(
    scale: float | None, lower: float | None, status: str, seen: dict[float, bool]
) -> BisectionResult:
    points = tuple(sorted(seen.items()))
    flips = monotonicity_flips(points)
    if flips:
        logger.warning(
            "feasibility is not monotone in the cluster scale: met at %s but not at a larger scale",
            ", ".join(f"{s:g}" for s in flips),
        )
    return BisectionResult(scale, lower, status, points, flips)


def monotonicity_flips(points: Sequence[tuple[float, bool]]) -> tuple[float, ...]:
    """Scales where the predicate holds although it fails at some larger scale."""
    points = sorted(points)
    flips = []
    failing_above = False
    for scale, ok in reversed(points):
        if not ok:
            failing_above = True
        elif failing_above:
            flips.append(scale)
    return tuple(sorted(flips))


@dataclass(frozen=True)
class WorkloadScenario:
    """A what-if change of the workload: data per job times `growth`, arrivals times `arrival_scale`.

    ``per_queue`` holds (queue, growth, arrival scale) entries applied to those
    queues on top (a forecast's factors, `whatif.forecast`); ``name``, when given,
    is the label shown in reports.
    """

    growth: float = 1.0
    arrival_scale: float = 1.0
    per_queue: tuple[tuple[str, float, float], ...] = ()
    name: str = ""

    def __post_init__(self) -> None:
        for name in ("growth", "arrival_scale"):
            _check_scenario_factor(getattr(self, name), name)
        for i, entry in enumerate(self.per_queue):
            if not (isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[0], str)):
                raise ValidationError(
                    f"workload scenario per_queue[{i}]: expected (queue, growth, arrival_scale), "
                    f"got {entry!r}"
                )
            _check_scenario_factor(entry[1], f"per_queue[{i}] growth")
            _check_scenario_factor(entry[2], f"per_queue[{i}] arrival_scale")

    @property
    def is_baseline(self) -> bool:
        return (
            self.growth == 1.0
            and self.arrival_scale == 1.0
            and all(g == 1.0 and a == 1.0 for _, g, a in self.per_queue)
        )

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        return f"growth {self.growth:g}, arrivals x{self.arrival_scale:g}"


def _check_scenario_factor(value: object, name: str) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise ValidationError(f"workload scenario {name}: expected a number > 0, got {value!r}")


@dataclass(frozen=True, eq=False)
class ScaleResult:
    """Predicted QS of one workload scenario on one cluster scale.

    ``mean`` and ``spread`` follow the analysis' ``labels``; ``met`` holds one
    entry per threshold: True, False, or None when there was nothing to measure.
    A scale is feasible only when every threshold is met: None is not met.
    ``unfinished`` says why jobs never finished there (a preemption livelock, a task
    no node holds): no QS is measured (NaN) and no threshold is met.
    """

    scale: float
    cluster: Cluster
    mean: np.ndarray
    spread: np.ndarray
    met: tuple[bool | None, ...]
    on_grid: bool
    unfinished: str | None = None

    @property
    def feasible(self) -> bool:
        return self.unfinished is None and all(m is True for m in self.met)


@dataclass(frozen=True, eq=False)
class ScenarioResult:
    """Everything predicted for one workload scenario: per scale, the bisection, run details."""

    scenario: WorkloadScenario
    source: str
    n_jobs: int
    scales: tuple[ScaleResult, ...]
    bisection: BisectionResult
    details: dict[float, ScheduleSummary] = field(default_factory=dict)

    @property
    def smallest(self) -> ScaleResult | None:
        """The evaluated scale the bisection settled on (None if no scale meets the SLOs)."""
        if self.bisection.scale is None:
            return None
        return next(r for r in self.scales if r.scale == self.bisection.scale)

    def at(self, scale: float) -> ScaleResult:
        return next(r for r in self.scales if r.scale == scale)

    @property
    def threshold_flips(self) -> dict[int, tuple[float, ...]]:
        """Per threshold index, the scales where it is met but missed at a larger scale.

        Non-empty entries are SLOs that more resources make worse (a utilization
        floor, waste that appears once preemption starts): the monotonicity
        assumption fails for them even where overall feasibility looks monotone.
        """
        n = len(self.scales[0].met) if self.scales else 0
        out = {}
        for i in range(n):
            points = [(r.scale, met) for r in self.scales if (met := r.met[i]) is not None]
            flips = monotonicity_flips(points)
            if flips:
                out[i] = flips
        return out


@dataclass(frozen=True, eq=False)
class ProvisioningAnalysis:
    """The result of `analyze_provisioning`: one `ScenarioResult` per workload scenario.

    ``labels[j]`` is ``"queue:metric"`` of QS column j; ``thresholds[i]`` is
    ``(queue, metric label, threshold, op, column)``.
    """

    cluster: Cluster
    grid: tuple[float, ...]
    labels: tuple[str, ...]
    thresholds: tuple[tuple[str, str, float, str, int], ...]
    scenarios: tuple[ScenarioResult, ...]
    replicates: int
    seed: int
    rel_tol: float
    configuration: str = "in force"


def _normalize_thresholds(thresholds: Sequence[Threshold]) -> list[tuple[str, Metric, float, str]]:
    out = []
    for i, entry in enumerate(thresholds):
        if not isinstance(entry, tuple | list) or len(entry) not in (3, 4):
            raise ValidationError(
                f"thresholds[{i}]: expected (queue, Metric, threshold[, op]), got {entry!r}"
            )
        queue, metric, threshold, *rest = entry
        op = rest[0] if rest else "<="
        check_choice(op, ("<", "<="), field=f"thresholds[{i}] op")
        if not isinstance(metric, Metric):
            raise ValidationError(f"thresholds[{i}]: expected a Metric, got {metric!r}")
        try:
            value = float(threshold)
        except (TypeError, ValueError):
            raise ValidationError(
                f"thresholds[{i}] threshold: expected a number, got {threshold!r}"
            ) from None
        out.append((full_path(str(queue)), metric, value, op))
    return out


def _met(value: float, threshold: float, op: str) -> bool | None:
    if math.isnan(value):
        return None
    return bool(value < threshold if op == "<" else value <= threshold)


def scenario_workloads(
    workload: Workload,
    scenarios: Sequence[WorkloadScenario],
    *,
    seed: int = 0,
    model: WorkloadModel | None = None,
) -> list[tuple[str, Workload]]:
    """The workload of each scenario and its source (``"trace"`` or ``"model"``).

    All scenarios baseline: the trace itself. Otherwise each is generated, over the
    trace's submission span and from its first submission, by `model` (fitted on
    the trace when not given) with the scenario's growth and arrival scale and the
    same `seed`. When a scenario has per-queue factors (a forecast's), the
    workloads are nested instead (`whatif.nested`): one generation, thinned and
    grown per scenario, so scenarios differ only by their factors and a scenario
    with larger factors holds every job and task of a smaller one.
    """
    if all(s.is_baseline for s in scenarios):
        return [("trace", workload) for _ in scenarios]
    if model is None:
        model = WorkloadModel().fit(workload)
    first, last = workload.span_s
    hours = max(last - first, 1.0) / 3600.0
    if any(s.per_queue for s in scenarios):
        queues = list(model.queues_)
        factors = [
            per_queue_factors(queues, s.growth, s.arrival_scale, s.per_queue) for s in scenarios
        ]
        nested = nested_workloads(model, factors, hours=hours, seed=seed, start_s=first)
        return [("model", w) for w in nested]
    out = []
    for scenario in scenarios:
        changed = model.with_growth(scenario.growth).with_arrival_scale(scenario.arrival_scale)
        out.append(("model", changed.generate(hours=hours, seed=seed, start_s=first)))
    return out


def analyze_provisioning(
    workload: Workload,
    allocation: EffectiveAllocation,
    cluster: Cluster,
    thresholds: Sequence[Threshold],
    *,
    scales: Sequence[float] = (0.25, 0.5, 1.0, 2.0, 4.0),
    scenarios: Sequence[WorkloadScenario] = (WorkloadScenario(),),
    metrics: Sequence[tuple[str, Metric]] = (),
    replicates: int = 1,
    noise: NoiseModel | None = None,
    settings: SchedulerSettings | None = None,
    seed: int = 0,
    window: Window | None = None,
    engine: str = "numba",
    executor: Executor | None = None,
    rel_tol: float = 0.02,
    min_scale: float = 1 / 16,
    max_scale: float = 16.0,
    model: WorkloadModel | None = None,
    details: bool = True,
    configure: Configure | None = None,
    progress: Progress | None = None,
) -> ProvisioningAnalysis:
    """Predict the SLOs of every scenario and find the smallest cluster meeting them.

    Parameters
    ----------
    workload, allocation, cluster
        The trace's workload, the configuration in force, the cluster at scale 1.
    thresholds : sequence of (queue, Metric, threshold[, op])
        The SLOs; met when ``value op threshold`` (op ``"<="`` by default).
    scales : sequence of float
        The grid of cluster scales (`Cluster.scaled` factors).
    scenarios : sequence of WorkloadScenario
        Workload changes; see `scenario_workloads` for how workloads are made.
    metrics : sequence of (queue, Metric)
        Further QS to report (OPTIMIZE objectives), not constrained.
    replicates, noise, settings, seed, window, engine, executor
        Passed to the `WhatifModel` of each cluster scale.
    rel_tol, min_scale, max_scale
        Bisection tolerance and bracket limits (see `smallest_scale`).
    model : WorkloadModel, optional
        A fitted model for generated scenarios (fitted on `workload` if needed).
    details : bool
        Also run one replicate per grid scale and scenario for the report's
        timelines, response-time CDFs and waste (`ScheduleSummary`).
    configure : callable, optional
        ``configure(cluster, workload)`` returns the configuration to evaluate on
        that cluster (e.g. one re-tuned for it); `allocation` everywhere by default.
    progress : callable, optional
        Called after each evaluation with (done, estimated total, message).
    """
    normalized = _normalize_thresholds(thresholds)
    scenarios = list(scenarios)
    if not scenarios:
        raise ValidationError("scenarios: expected at least one workload scenario, got none")
    grid = tuple(sorted({float(s) for s in scales}))
    if not grid or grid[0] <= 0:
        raise ValidationError(f"cluster scales: expected numbers > 0, got {list(scales)!r}")
    entries = list(
        dict.fromkeys(
            [(q, m) for q, m, _, _ in normalized] + [(full_path(str(q)), m) for q, m in metrics]
        )
    )
    column = {entry: j for j, entry in enumerate(entries)}
    executor = executor if executor is not None else SerialExecutor()
    settings = settings if settings is not None else SchedulerSettings()
    what_if = partial(
        WhatifModel,
        settings=settings,
        replicates=replicates,
        noise=noise,
        seed=seed,
        window=window,
        engine=engine,
        executor=executor,
    )
    per_scenario = len(grid) + _ESTIMATED_BISECTION_STEPS
    total = len(scenarios) * per_scenario + (len(scenarios) * len(grid) if details else 0)
    study = _Study(
        allocation=allocation,
        cluster=cluster,
        grid=grid,
        entries=tuple(entries),
        column=column,
        normalized=tuple(normalized),
        what_if=what_if,
        settings=settings,
        noise=noise,
        seed=seed,
        engine=engine,
        executor=executor,
        configure=configure,
        tick=_Ticker(total, progress),
    )
    workloads = scenario_workloads(workload, scenarios, seed=seed, model=model)
    bracket = (rel_tol, min(min_scale, grid[0]), max(max_scale, grid[-1]))
    results = [
        _ScenarioRun(study, scenario, scenario_workload).result(source, bracket, details=details)
        for scenario, (source, scenario_workload) in zip(scenarios, workloads, strict=True)
    ]
    return ProvisioningAnalysis(
        cluster=cluster,
        grid=grid,
        labels=tuple(f"{q}:{m.label}" for q, m in entries),
        thresholds=tuple((q, m.label, t, op, column[(q, m)]) for q, m, t, op in normalized),
        scenarios=tuple(results),
        replicates=replicates,
        seed=seed,
        rel_tol=rel_tol,
        configuration="in force" if configure is None else "re-tuned",
    )


class _Ticker:
    """Counts evaluations and reports each to `progress` as (done, estimated total, message)."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total = total
        self.progress = progress
        self.done = 0

    def __call__(self, message: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, max(self.total, self.done), message)


@dataclass(frozen=True, eq=False)
class _Study:
    """What every scenario of one `analyze_provisioning` call shares: the configuration,
    the cluster at scale 1 and its grid, the QS columns and thresholds, how to predict
    (`what_if`: a What-if Model of a cluster and QS entries, the call's other options bound)."""

    allocation: EffectiveAllocation
    cluster: Cluster
    grid: tuple[float, ...]
    entries: tuple[tuple[str, Metric], ...]
    column: dict[tuple[str, Metric], int]
    normalized: tuple[tuple[str, Metric, float, str], ...]
    what_if: Callable[[Cluster, list[tuple[str, Metric]]], WhatifModel]
    settings: SchedulerSettings
    noise: NoiseModel | None
    seed: int
    engine: str
    executor: Executor
    configure: Configure | None
    tick: _Ticker


class _ScenarioRun:
    """One scenario's evaluations: each cluster scale predicted once (cached), the
    configuration at each scale made once, then the bisection and the grid's details."""

    def __init__(self, study: _Study, scenario: WorkloadScenario, workload: Workload) -> None:
        self.study = study
        self.scenario = scenario
        self.workload = workload
        self.cache: dict[float, ScaleResult] = {}
        self.configured: dict[float, EffectiveAllocation] = {}

    def allocation_at(self, scale: float) -> EffectiveAllocation:
        """The configuration evaluated at `scale`: the one in force, or `configure`'s."""
        configure = self.study.configure
        if configure is None:
            return self.study.allocation
        if scale not in self.configured:
            self.configured[scale] = configure(self.study.cluster.scaled(scale), self.workload)
        return self.configured[scale]

    def evaluate_at(self, scale: float, *, on_grid: bool) -> ScaleResult:
        """Predict the QS at `scale` with the What-if Model and check every threshold."""
        study = self.study
        scaled = study.cluster.scaled(scale)
        model_at = study.what_if(scaled, list(study.entries))
        unfinished = None
        try:
            with warnings.catch_warnings():
                # A QS with nothing to measure in every replicate is NaN: n/a, and not met.
                warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
                warnings.filterwarnings("ignore", "Degrees of freedom", RuntimeWarning)
                estimate = model_at.evaluate([self.allocation_at(scale)], self.workload)
                mean, spread = estimate.mean[0], estimate.spread[0]
            met = tuple(
                _met(float(mean[study.column[(q, m)]]), t, op) for q, m, t, op in study.normalized
            )
        except UnfinishedJobsError as error:
            # one scale whose jobs never finish answers "no" there; the analysis goes on
            unfinished = str(error)
            logger.warning(
                "%s: scale %g (%s): %s; counted as missing every SLO",
                self.scenario.label, scale, scaled.spec(), unfinished,
            )  # fmt: skip
            mean = np.full(len(study.entries), np.nan)
            spread, met = mean.copy(), tuple(False for _ in study.normalized)
        result = ScaleResult(scale, scaled, mean, spread, met, on_grid, unfinished)
        self.cache[scale] = result
        verdict = "meets" if result.feasible else "misses"
        study.tick(f"{self.scenario.label}: scale {scale:g} {verdict} the SLOs")
        return result

    def holds(self, scale: float) -> bool:
        """Whether the SLOs hold at `scale` (evaluated once, then cached)."""
        if scale in self.cache:
            return self.cache[scale].feasible
        return self.evaluate_at(scale, on_grid=scale in self.study.grid).feasible

    def details(self) -> dict[float, ScheduleSummary]:
        """One replicate per grid scale, summarized for the report (`ScheduleSummary`)."""
        study = self.study
        runs = study.executor.map(
            summarize_finished,
            [
                (
                    self.workload,
                    self.allocation_at(s),
                    study.cluster.scaled(s),
                    study.settings,
                    study.noise,
                    study.seed,
                    study.engine,
                )
                for s in study.grid
            ],
        )
        summaries = {s: run for s, run in zip(study.grid, runs, strict=True) if run is not None}
        for s in study.grid:
            study.tick(f"{self.scenario.label}: schedule details at scale {s:g}")
        return summaries

    def result(
        self, source: str, bracket: tuple[float, float, float], *, details: bool
    ) -> ScenarioResult:
        """Bisect for the smallest scale meeting the SLOs (`bracket`: relative tolerance,
        smallest and largest scale), then the details when asked."""
        rel_tol, min_scale, max_scale = bracket
        cluster = self.study.cluster
        bisection = smallest_scale(
            self.holds,
            self.study.grid,
            rel_tol=rel_tol,
            min_scale=min_scale,
            max_scale=max_scale,
            key=lambda s: cluster.scaled(s).spec(),
        )
        label = self.scenario.label
        logger.info("%s: smallest scale %s (%s)", label, bisection.scale, bisection.status)
        summaries = self.details() if details else {}
        return ScenarioResult(
            self.scenario,
            source,
            self.workload.n_jobs,
            tuple(self.cache[s] for s in sorted(self.cache)),
            bisection,
            summaries,
        )
