"""Tuning a scheduler configuration against QS templates: the step `tempo optimize` and `tempo tune` take.

`build_problem` turns a scheduler configuration (a Fair Scheduler allocation document or a
Capacity Scheduler ``capacity-scheduler.xml``, each read through its
`tempo.scheduler_file.SchedulerFile`), a workload, QS templates, a cluster and a
configuration space into the optimizers' `Problem`:

- the QS vector is every template's OPTIMIZE metric (template order), then every
  CONSTRAINT (template order, then as written);
- thresholds ``r`` are the constraints' (``+inf`` for objectives), ``optimize_mask``
  marks the objectives, ``weights`` are the templates' priorities;
- ``scales`` are the absolute QS under the configuration in force (a zero or NaN one
  falls back to ``|r|`` when that is finite and non-zero, else 1), so a 10% change
  weighs the same on every QS;
- ``start`` is the configuration in force, encoded in the space (clipped to it), and
  the projector and distance are the space's; ``steps`` are the space's steps at
  the start (`ConfigurationSpace.steps_at`: one unit of an integer setting, one
  category of a categorical one), so probes change the configuration;
- the Hadoop version (validation, effective values, the predictor's rules) is the
  space's unless given, and must speak the space's dialect;
- ``evaluate(X)`` decodes each row, writes it into the document (``space.apply``),
  takes the predictor's view of it (`SchedulerFile.allocation`) and sends the whole
  batch through the What-if Model (one executor round). A candidate that cannot be written, is refused by validation
  or makes the predictor fail (including a replayed job that never finishes,
  `whatif.errors.UnfinishedJobsError`) gets a NaN row, is logged and kept in
  ``CandidateEvaluator.failures``: never dropped, never averaged, never fatal.

`optimize` drives any registered optimizer (``pald``, ``scalar``, ``mspd``, ``random``,
``nsga2``, ``tpe``) over that problem, one batch per iteration, and returns an
`OptimizeOutcome`: the new document, the `OptimizationResult`, the semantic diff and the
distance moved, and one `IterationRecord` per batch.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from tempo.errors import TempoError
from tempo.gain import MinGain, QSChange, meaningful_gains
from tempo.optimizers import Evaluation, OptimizationResult, Optimizer, Problem, make_optimizer
from tempo.optimizers.result import select_best
from tempo.scheduler_file import (
    SchedulerDocument,
    SchedulerFile,
    SchedulerSpace,
    scheduler_file,
)
from tempo.space import CapacitySpace, ConfigurationSpace, dialect_of
from tempo.templates import QSTemplate, check_predicted_queues, constraints, objectives
from whatif._validation import check_count
from whatif.allocation import AllocationDocument, SettingDiff
from whatif.allocation.effective import EffectiveAllocation
from whatif.capacity import ConfigurationDocument
from whatif.cluster import Cluster
from whatif.errors import UnfinishedJobsError, ValidationError, WhatifError
from whatif.executors import Executor, make_executor
from whatif.metrics import Metric, full_path
from whatif.predictor import NoiseModel, SchedulerSettings
from whatif.whatif_model import WhatifModel
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: Extra evaluations after the last iteration: the final iterate of a local descent is
#: evaluated before it can be picked, so nothing unpredicted is ever applied.
FINAL_EVALUATIONS = 1


@dataclass(frozen=True)
class QSComponent:
    """One entry of the QS vector: a queue's metric, as objective or constraint."""

    queue: str
    metric: Metric
    kind: str  # "objective" or "constraint"
    threshold: float  # +inf for an objective
    priority: float

    @property
    def label(self) -> str:
        """``queue:metric`` (unique within a problem: constraints add ``<= r``)."""
        base = f"{self.queue}:{self.metric.label}"
        return base if self.kind == "objective" else f"{base}<={self.threshold:g}"


@dataclass(frozen=True)
class CandidateFailure:
    """A candidate that could not be evaluated: its vector and why."""

    vector: np.ndarray = field(compare=False)
    reason: str
    # the prediction's error, when it raised one (jobs that never finish: the answer "no")
    error: Exception | None = field(default=None, compare=False)


@dataclass(eq=False, repr=False)
class CandidateEvaluator:
    """``evaluate(X)`` of the tuning `Problem`: vectors to predicted QS, failures as NaN rows.

    Parameters
    ----------
    document : the configuration in force (candidates are written into it): an allocation
        file or a capacity-scheduler.xml.
    workload : what the What-if Model replays.
    space : the configuration space the vectors belong to.
    model : the What-if Model, whose QS entries are the problem's components.
    hadoop_version : the dialect allocation files are validated for.

    ``failures`` lists every failed candidate, in evaluation order. ``columns`` (indices
    into the model's QS entries, None for all) selects the QS returned. Results are
    memoized per vector, so re-asking a point (the configuration in force) is free.
    """

    document: SchedulerDocument
    workload: Workload
    space: SchedulerSpace
    model: WhatifModel
    _: KW_ONLY
    hadoop_version: int = 3
    file: SchedulerFile = field(init=False)
    failures: list[CandidateFailure] = field(init=False, default_factory=list)
    columns: np.ndarray | None = field(init=False, default=None)
    n_predicted: int = field(init=False, default=0)
    _cache: dict[bytes, tuple[np.ndarray, np.ndarray]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.file = scheduler_file(self.document, self.hadoop_version)

    def candidate(self, vector: np.ndarray) -> SchedulerDocument:
        """The document with `vector` written in; raises if Hadoop would refuse it."""
        document: SchedulerDocument = self.space.apply(self.document, vector)  # type: ignore[arg-type]
        self.file.check(document, f"candidate {self.file.name}")
        return document

    def __call__(self, X: np.ndarray) -> Evaluation:
        X = np.atleast_2d(np.asarray(X, dtype=float))
        k = len(self.model.qs)
        mean = np.full((len(X), k), np.nan)
        spread = np.full((len(X), k), np.nan)
        todo: dict[bytes, list[int]] = {}
        for i, row in enumerate(X):
            key = row.tobytes()
            if key in self._cache:
                mean[i], spread[i] = self._cache[key]
            else:
                todo.setdefault(key, []).append(i)
        vectors: list[np.ndarray] = []
        allocations: list[EffectiveAllocation] = []
        rows: list[list[int]] = []
        for indices in todo.values():
            vector = X[indices[0]]
            try:
                allocation = self.file.allocation(self.candidate(vector), self.model.cluster)
            except (WhatifError, TempoError, ValueError) as error:
                self._fail(vector, f"cannot write the candidate: {error}")
                continue
            vectors.append(vector)
            allocations.append(allocation)
            rows.append(indices)
        if allocations:
            results = self._predict(vectors, allocations)
            for indices, vector, (m, s) in zip(rows, vectors, results, strict=True):
                mean[indices], spread[indices] = m, s
                self._cache[vector.tobytes()] = (m, s)
        if self.columns is not None:
            mean, spread = mean[:, self.columns], spread[:, self.columns]
        return Evaluation(mean, spread)

    def _predict(
        self, vectors: list[np.ndarray], allocations: list[EffectiveAllocation]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """QS of the allocations in one batch; if the batch fails, one by one to find the culprit."""
        try:
            estimate = self.model.evaluate(allocations, self.workload)
        except (WhatifError, TempoError, ValueError, ArithmeticError) as error:
            if len(allocations) == 1:
                self._fail(vectors[0], f"prediction failed: {error}", error)
                k = len(self.model.qs)
                return [(np.full(k, np.nan), np.full(k, np.nan))]
            logger.warning(
                "a batch of %d candidates failed (%s); evaluating them one by one",
                len(allocations),
                error,
            )
            return [self._predict([v], [a])[0] for v, a in zip(vectors, allocations, strict=True)]
        self.n_predicted += len(allocations)
        return list(zip(estimate.mean, estimate.spread, strict=True))

    def document_qs(self, document: SchedulerDocument) -> np.ndarray:
        """The QS (means, in `columns`) of `document` itself: the configuration in force
        where the space cannot encode it (a value outside its bounds), so no vector is it."""
        allocation = self.file.allocation(document, self.model.cluster)
        try:
            mean: np.ndarray = self.model.evaluate([allocation], self.workload).mean[0]
        except UnfinishedJobsError as error:
            raise UnfinishedJobsError(
                f"the configuration in force cannot be evaluated: {error}",
                count=error.count, job_ids=error.job_ids, queues=error.queues,
            ) from error  # fmt: skip
        return mean if self.columns is None else mean[self.columns]

    def _fail(self, vector: np.ndarray, reason: str, error: Exception | None = None) -> None:
        logger.warning("candidate %s failed: %s", np.round(vector, 4).tolist(), reason)
        self.failures.append(CandidateFailure(vector.copy(), reason, error))


def check_loadable(document: SchedulerDocument, hadoop_version: int, what: str) -> None:
    """Raise `ValidationError` naming the first error for which Hadoop would refuse `document`."""
    scheduler_file(document, hadoop_version).check(document, what)


@dataclass(frozen=True, eq=False)
class TuningContext:
    """What `build_problem` knows besides the `Problem`: the pieces to decode a result."""

    document: SchedulerDocument
    space: SchedulerSpace
    components: tuple[QSComponent, ...]
    evaluator: CandidateEvaluator
    start_qs: np.ndarray
    hadoop_version: int = 3
    clipped: tuple[SettingDiff, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.components)

    def qs_table(self, **columns: np.ndarray) -> pd.DataFrame:
        """One row per QS (queue, metric, kind, threshold) plus the given value columns."""
        return component_table(self.components, **columns)


def component_table(components: Sequence[QSComponent], **columns: np.ndarray) -> pd.DataFrame:
    """One row per QS component (queue, metric, kind, unit, threshold) plus the given value columns."""
    frame = pd.DataFrame(
        {
            "queue": [c.queue for c in components],
            "metric": [c.metric.label for c in components],
            "kind": [c.kind for c in components],
            "unit": [c.metric.unit for c in components],
            "threshold": [c.threshold for c in components],
        }
    )
    for name, values in columns.items():
        frame[name] = np.asarray(values, dtype=float)
    return frame


def qs_components(templates: Sequence[QSTemplate]) -> tuple[QSComponent, ...]:
    """The QS vector's entries: the templates' OPTIMIZE metrics, then their constraints."""
    result = [
        QSComponent(queue, metric, "objective", math.inf, float(priority))
        for queue, metric, priority in objectives(templates)
    ]
    priorities = {t.queue: float(t.priority) for t in templates}
    result += [
        QSComponent(queue, metric, "constraint", float(threshold), priorities[queue])
        for queue, metric, threshold in constraints(templates)
    ]
    if not result:
        raise TempoError("templates: expected at least one OPTIMIZE or CONSTRAINT clause, got none")
    return tuple(result)


def _what_if_model(
    model: WhatifModel | Mapping[str, Any] | None,
    cluster: Cluster,
    components: Sequence[QSComponent],
    settings: SchedulerSettings,
) -> WhatifModel:
    """A What-if Model predicting ``components``: `model`'s parameters with those QS entries."""
    qs = [(c.queue, c.metric) for c in components]
    if isinstance(model, WhatifModel):
        if list(model.qs) == [(full_path(q), m) for q, m in qs]:
            return model
        params = {
            name: getattr(model, name)
            for name in ("settings", "replicates", "noise", "seed", "window", "engine", "executor")
        }
        return WhatifModel(model.cluster, qs, **params)
    params = {"settings": settings or SchedulerSettings(), **dict(model or {})}
    return WhatifModel(cluster, qs, **params)


def build_problem(
    document: SchedulerDocument,
    workload: Workload,
    templates: Sequence[QSTemplate],
    cluster: Cluster,
    *,
    space: SchedulerSpace,
    model: WhatifModel | Mapping[str, Any] | None = None,
    radius: float,
    hadoop_version: int | None = None,
    settings: SchedulerSettings | None = None,
    known_queues: Sequence[str] = (),
) -> tuple[Problem, TuningContext]:
    """The optimization problem of tuning `document` for `templates` on `workload`.

    Parameters
    ----------
    document : the configuration in force: an `AllocationDocument`, or a
        `whatif.capacity.ConfigurationDocument` (a capacity-scheduler.xml: the candidates
        are predicted in the predictor's Capacity Scheduler mode).
    workload : the jobs to replay (e.g. the last control window).
    templates : the QS templates (their queues must exist in `document`).
    cluster : the cluster the predictor replays on.
    space : the tuned settings (built for `document`'s effective allocation), a
        `CapacitySpace` for a capacity-scheduler.xml.
    model : a `WhatifModel` (its QS entries are replaced by the templates'), or keyword
        arguments for one (``replicates``, ``noise``, ``seed``, ``engine``, ``executor``,
        ``window``...); None: one replicate in this process with the numba engine.
    radius : risk radius, normalized distance from the configuration in force.
    hadoop_version : dialect for validation and effective values; None: the space's
        (`ConfigurationSpace.hadoop_version`). One of another dialect than the space's
        is a `ValidationError` (its settings would be written where Hadoop ignores them).
    settings : the yarn-site knobs the predictor models (when `model` does not give them);
        Hadoop's defaults for that version when None.

    Evaluates the configuration in force once (for the scales); the optimizer's first
    evaluation of it is then served from the evaluator's memo. A QS that is NaN under the
    configuration in force (nothing to measure: no finished job of its queue in the
    workload, no deadlines) is left out of the problem, with a warning; if every QS is,
    or the configuration in force cannot be evaluated, `TempoError` (`UnfinishedJobsError`
    when its predicted jobs never finish).
    """
    _check_kinds(document, space)
    templates = list(templates)
    hadoop_version = space_hadoop_version(space, hadoop_version)
    file = scheduler_file(document, hadoop_version)
    file.check(document, f"{document.source}")
    current = file.allocation(document, cluster)
    check_predicted_queues(templates, current, workload, also=known_queues)
    components = qs_components(templates)
    what_if = _what_if_model(
        model, cluster, components, settings or SchedulerSettings(hadoop_version=hadoop_version)
    )
    start = file.start(space, document, True)
    evaluator = CandidateEvaluator(
        document, workload, space, what_if, hadoop_version=hadoop_version
    )
    start_qs, components = _measurable_start(evaluator, start, components)
    clipped = _clipped(file, space, document, evaluator, start)
    thresholds = np.array([c.threshold for c in components])
    problem = Problem(
        dim=len(space),
        evaluate=evaluator,
        thresholds=thresholds,
        start=start,
        radius=radius,
        optimize_mask=np.array([c.kind == "objective" for c in components]),
        weights=np.array([c.priority for c in components]),
        scales=_scales(start_qs, thresholds),
        projector=space.project,
        distance=space.distance,
        names=tuple(c.label for c in components),
        steps=space.steps_at(start),
    )
    in_force_qs = evaluator.document_qs(document) if clipped else start_qs
    context = TuningContext(
        document, space, components, evaluator, in_force_qs, hadoop_version, clipped
    )
    return problem, context


def _clipped(
    file: SchedulerFile,
    space: SchedulerSpace,
    document: SchedulerDocument,
    evaluator: CandidateEvaluator,
    start: np.ndarray,
) -> tuple[SettingDiff, ...]:
    """What the search's start changes from `document`, where a value in force is outside
    its dimension's bounds (the start is then clipped into them); () when none is."""
    try:
        file.start(space, document, False)
    except ValidationError:
        return file.diff(document, evaluator.candidate(start))
    return ()


def _check_kinds(document: SchedulerDocument, space: SchedulerSpace) -> None:
    """`ValidationError` unless `document` and `space` are an allocation file and a
    `ConfigurationSpace`, or a capacity-scheduler.xml and a `CapacitySpace`."""
    pairs = ((AllocationDocument, ConfigurationSpace), (ConfigurationDocument, CapacitySpace))
    for kind, space_kind in pairs:
        if isinstance(document, kind):
            if not isinstance(space, space_kind):
                raise ValidationError(
                    f"build_problem space: expected a {space_kind.__name__} for a "
                    f"{kind.__name__}, got {type(space).__name__}"
                )
            return
    raise ValidationError(
        "build_problem document: expected an AllocationDocument or a ConfigurationDocument, "
        f"got {type(document).__name__}"
    )


def _measurable_start(
    evaluator: CandidateEvaluator, start: np.ndarray, components: tuple[QSComponent, ...]
) -> tuple[np.ndarray, tuple[QSComponent, ...]]:
    """The QS of the configuration in force, and the components measurable there: a QS
    that is NaN is left out (with a warning, and from the evaluator's columns)."""
    start_qs = evaluator(start[None, :]).mean[0]
    if evaluator.failures:
        failure = evaluator.failures[-1]
        message = f"the configuration in force cannot be evaluated: {failure.reason}"
        if isinstance(failure.error, UnfinishedJobsError):  # an answer, "no", as predict's
            error = failure.error
            raise UnfinishedJobsError(
                message, count=error.count, job_ids=error.job_ids, queues=error.queues
            )
        raise TempoError(message)
    measurable = ~np.isnan(start_qs)
    if not measurable.any():
        raise TempoError(
            "no QS of the templates can be measured on this workload under the configuration "
            "in force (no job of their queues finished, or no deadlines)"
        )
    if not measurable.all():
        logger.warning(
            "left out of the optimization, nothing to measure under the configuration in force: %s",
            ", ".join(c.label for c, ok in zip(components, measurable, strict=True) if not ok),
        )
        evaluator.columns = np.flatnonzero(measurable)
        components = tuple(c for c, ok in zip(components, measurable, strict=True) if ok)
        start_qs = start_qs[measurable]
    return start_qs, components


def space_hadoop_version(space: SchedulerSpace, hadoop_version: int | None) -> int:
    """`hadoop_version`, or the space's when None; `ValidationError` if the dialects differ.
    A `CapacitySpace` is Hadoop 3's (the Capacity Scheduler's rules are 3.x's)."""
    if isinstance(space, CapacitySpace):
        return 3 if hadoop_version is None else hadoop_version
    if hadoop_version is None:
        return space.hadoop_version
    if dialect_of(hadoop_version) != space.dialect:
        raise ValidationError(
            f"hadoop_version {hadoop_version}: the space tunes {space.dialect.title} settings "
            f"(built for Hadoop {space.hadoop_version}), which Hadoop {hadoop_version} does not "
            "read; build the space with the same hadoop_version"
        )
    return hadoop_version


def _scales(start_qs: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """``|QS in force|``; where that is 0 or NaN, ``|r|`` if finite and non-zero, else 1."""
    scales = np.abs(start_qs)
    fallback = np.where(np.isfinite(thresholds) & (thresholds != 0), np.abs(thresholds), 1.0)
    usable = np.isfinite(scales) & (scales > 1e-12)
    return np.where(usable, scales, fallback)


@dataclass(frozen=True, eq=False)
class IterationRecord:
    """One batch of an optimization run, as the CLI shows it and the loop journals it.

    ``x``/``mean``: the batch's first point (a local descent's iterate) and its QS;
    ``best_x``/``best_mean``: the point a DBA would pick among everything evaluated so far
    (`tempo.optimizers.result.select_best`), its feasibility and distance from the start.
    ``failed`` counts the batch's failed candidates. ``table`` has one row per QS.
    """

    iteration: int
    evaluations: int
    budget: int
    failed: int
    x: np.ndarray
    mean: np.ndarray
    best_x: np.ndarray
    best_mean: np.ndarray
    best_feasible: bool
    best_distance: float
    table: pd.DataFrame


@dataclass(frozen=True, eq=False)
class OptimizeOutcome:
    """The result of `optimize`.

    ``document`` is the tuned configuration (the one in force with only the tuned settings
    changed; identical to it when nothing better was found), ``result`` the optimizer's
    `OptimizationResult`, ``diff`` the semantic differences from the one in force,
    ``distance`` the normalized distance moved, ``iterations`` one record per batch,
    ``components`` the QS vector's entries and ``failures`` the failed candidates.
    ``gains`` are the predicted improvements that count under the run's `MinGain`;
    ``held_back`` says why the best point found was not proposed (its gain is below
    the minimum), empty when it was (or when it is the configuration in force).
    ``clipped`` lists what the search's start changed from the file in force, where a
    value in force is outside the space's bounds: the answer is then always a point
    inside them, and ``result.start_mean`` the QS of the file in force itself.
    """

    document: SchedulerDocument
    result: OptimizationResult
    diff: tuple[SettingDiff, ...]
    distance: float
    iterations: tuple[IterationRecord, ...]
    components: tuple[QSComponent, ...]
    failures: tuple[CandidateFailure, ...]
    gains: tuple[QSChange, ...] = ()
    held_back: str = ""
    clipped: tuple[SettingDiff, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.diff)

    def qs_table(self) -> pd.DataFrame:
        """Per QS: queue, metric, kind, threshold, ``start`` (in force) and ``tuned`` values."""
        return component_table(
            self.components, start=self.result.start_mean, tuned=self.result.mean
        )


def optimize(
    document: SchedulerDocument,
    workload: Workload,
    templates: Sequence[QSTemplate],
    cluster: Cluster,
    *,
    space: SchedulerSpace,
    algorithm: str = "pald",
    radius: float = 0.2,
    iterations: int = 10,
    batch_size: int = 8,
    algorithm_params: Mapping[str, Any] | None = None,
    replicates: int = 1,
    noise: NoiseModel | None = None,
    executor: Executor | str | None = None,
    engine: str = "numba",
    settings: SchedulerSettings | None = None,
    hadoop_version: int | None = None,
    seed: int = 0,
    callback: Callable[[IterationRecord], None] | None = None,
    min_gain: MinGain | None = None,
    known_queues: Sequence[str] = (),
) -> OptimizeOutcome:
    """Tune `document` (an allocation file, or a capacity-scheduler.xml with a `CapacitySpace`)
    for `templates` on `workload`, inside the risk `radius`.

    Runs `algorithm` for `iterations` batches of `batch_size` predictions each (a local
    descent's iterate plus its perturbations; NSGA-II's population; random samples),
    then evaluates the final iterate (`FINAL_EVALUATIONS`), so the budget is
    ``iterations * batch_size + 1`` What-if predictions (x `replicates` predictor runs).
    The configuration in force is the first point evaluated; the point picked is the
    one a DBA would apply among all evaluated (feasible first, then best on the OPTIMIZE
    objectives), so the outcome never has a predicted QS vector the optimizer did not see
    (when the pick is the configuration in force, its document is returned unchanged;
    where a value in force is outside the space's bounds, the search starts from it
    clipped into them and the answer is a point inside them, compared with the file in
    force: `OptimizeOutcome.clipped`).

    ``iterations=1`` is one PALD step of the control loop: one batch around the
    configuration in force plus the step's point.

    `hadoop_version` (None: the space's) decides validation, effective values and,
    when `settings` is None, the predictor's rules.

    `executor` is an `Executor`, a spec for `whatif.executors.make_executor`
    (``local``, ``local:N``, ``serial``, ``dask://host:port``; closed at the end), or
    None (in this process). `callback` receives each `IterationRecord` as it is made.

    With `min_gain` (`tempo.gain.MinGain`), a point whose predicted improvements over
    the configuration in force are all below it is not proposed: the document in
    force is returned unchanged and ``held_back`` says why. None proposes any gain
    (the control loop judges its steps itself). `known_queues` are queues templates may
    name beyond the prediction's (`tempo.templates.check_predicted_queues`'s ``also``).
    """
    optimizer = _optimizer(algorithm, iterations, batch_size, algorithm_params)
    hadoop_version = space_hadoop_version(space, hadoop_version)
    owned = isinstance(executor, str)
    pool = make_executor(executor) if isinstance(executor, str) else executor
    try:
        problem, context = build_problem(
            document,
            workload,
            templates,
            cluster,
            space=space,
            model={
                "settings": settings or SchedulerSettings(hadoop_version=hadoop_version),
                "replicates": replicates,
                "noise": noise,
                "engine": engine,
                "executor": pool,
            },
            radius=radius,
            hadoop_version=hadoop_version,
            known_queues=known_queues,
        )
        budget = iterations * batch_size + FINAL_EVALUATIONS
        optimizer.setup(problem, budget=budget, seed=seed)
        records = _run(optimizer, problem, context, algorithm, budget, callback)
        result = optimizer.result()
    finally:
        if owned and pool is not None:
            pool.close()
    return _outcome(document, problem, context, result, records, min_gain, hadoop_version)


def _optimizer(
    algorithm: str,
    iterations: int,
    batch_size: int,
    algorithm_params: Mapping[str, Any] | None,
) -> Optimizer:
    """The optimizer `algorithm` with `algorithm_params`, its batch (NSGA-II: population) of
    `batch_size`; a ValidationError for a bad budget or parameter."""
    check_count(iterations, field="optimize iterations", minimum=1)
    check_count(batch_size, field="optimize batch_size", minimum=1)
    params = dict(algorithm_params or {})
    size_key = "pop_size" if algorithm == "nsga2" else "batch_size"
    params.setdefault(size_key, max(batch_size, 2) if algorithm == "nsga2" else batch_size)
    try:
        return make_optimizer(algorithm, **params)
    except TypeError as error:
        raise ValidationError(f"optimize algorithm_params for {algorithm}: {error}") from error


def _run(
    optimizer: Optimizer,
    problem: Problem,
    context: TuningContext,
    algorithm: str,
    budget: int,
    callback: Callable[[IterationRecord], None] | None,
) -> list[IterationRecord]:
    """Ask, evaluate and tell until the optimizer is done; one record per batch."""
    records: list[IterationRecord] = []
    while not optimizer.done:
        X = optimizer.ask()
        evaluation = problem.evaluate(X)
        optimizer.tell(X, evaluation)
        record = _record(len(records) + 1, optimizer, problem, context, X, evaluation)
        records.append(record)
        logger.info(
            "%s iteration %d: %d/%d evaluations, best distance %.3f",
            algorithm,
            record.iteration,
            record.evaluations,
            budget,
            record.best_distance,
        )
        if callback is not None:
            callback(record)
    return records


def _outcome(
    document: SchedulerDocument,
    problem: Problem,
    context: TuningContext,
    result: OptimizationResult,
    records: list[IterationRecord],
    min_gain: MinGain | None,
    hadoop_version: int,
) -> OptimizeOutcome:
    """The tuned document (or the one in force when nothing better, or nothing worth
    `min_gain`, was found), its diff and the predicted gains."""
    # The configuration in force stays byte-identical when nothing better was found. Where
    # a value in force is outside the space's bounds (`TuningContext.clipped`), the answer
    # stays inside them, as the space asks, and is compared with the file in force.
    if context.clipped:
        result = replace(result, start_mean=context.start_qs)
    at_start = np.array_equal(result.x, problem.start) and not context.clipped
    changes = [
        QSChange(c.label, c.metric.unit, c.threshold, float(before), float(after))
        for c, before, after in zip(context.components, result.start_mean, result.mean, strict=True)
    ]
    gains = meaningful_gains(changes, min_gain or MinGain(0.0, 0.0, 0.0))
    held_back = ""
    if not at_start and min_gain is not None and not gains and not context.clipped:
        held_back = (
            f"no change proposed: the best point found (distance {result.distance:.3f}) "
            f"predicts no gain of at least {min_gain}"
        )
        logger.info("%s", held_back)
        at_start = True
    tuned = document if at_start else context.evaluator.candidate(result.x)
    return OptimizeOutcome(
        document=tuned,
        result=result,
        diff=context.evaluator.file.diff(document, tuned),
        distance=0.0 if held_back else result.distance,
        iterations=tuple(records),
        components=context.components,
        failures=tuple(context.evaluator.failures),
        gains=tuple(gains) if not at_start else (),
        held_back=held_back,
        clipped=context.clipped,
    )


def _record(
    iteration: int,
    optimizer: Any,
    problem: Problem,
    context: TuningContext,
    X: np.ndarray,
    evaluation: Evaluation,
) -> IterationRecord:
    all_X, all_mean, _ = optimizer.evaluated()
    best = select_best(problem, all_mean)
    best_mean = all_mean[best]
    return IterationRecord(
        iteration=iteration,
        evaluations=len(all_X),
        budget=optimizer.budget_,
        failed=int(np.isnan(evaluation.mean).any(axis=1).sum()),
        x=X[0].copy(),
        mean=evaluation.mean[0].copy(),
        best_x=all_X[best].copy(),
        best_mean=best_mean.copy(),
        best_feasible=bool(problem.feasible(best_mean[None, :])[0]),
        best_distance=float(problem.distance(all_X[best], problem.start)),
        table=context.qs_table(start=context.start_qs, iterate=evaluation.mean[0], best=best_mean),
    )


def last_window(workload: Workload, length_s: float) -> Workload:
    """The jobs submitted in the last `length_s` seconds of `workload` (by submission time)."""
    if not length_s > 0:
        raise ValidationError(f"window: expected a length > 0 seconds, got {length_s!r}")
    _, last = workload.span_s
    return workload.select_jobs(workload.jobs["submit_s"].to_numpy() >= last - length_s)


__all__ = [
    "FINAL_EVALUATIONS",
    "CandidateEvaluator",
    "CandidateFailure",
    "IterationRecord",
    "OptimizeOutcome",
    "QSComponent",
    "TuningContext",
    "build_problem",
    "check_loadable",
    "component_table",
    "last_window",
    "optimize",
    "qs_components",
    "space_hadoop_version",
]
