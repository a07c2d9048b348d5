"""`run_whatif`: the provisioning report of ``tempo whatif``, from files to a written report.

Reads the trace, the scheduler configuration (an allocation file, or a
``capacity-scheduler.xml`` predicted in the predictor's Capacity Scheduler mode:
`tempo.scheduler_file`) and the QS templates, turns every template
constraint into a (queue, metric, threshold, op) SLO for
`whatif.provisioning.analyze_provisioning` (the OPTIMIZE metrics are reported
too), runs the scenarios, optionally again with the configuration re-tuned by
PALD for every cluster size and the paper's scale-up check, and writes
``report.json`` and ``report.html``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tempo.errors import TempoError
from tempo.optimize import optimize
from tempo.qs import warn_window_longer
from tempo.scheduler_file import SchedulerDocument, read_scheduler_document, scheduler_file
from tempo.space import hadoop_version_for
from tempo.templates import (
    QSTemplate,
    check_predicted_queues,
    check_trace_deadlines,
    check_trace_queues,
    load_templates,
    objectives,
)
from whatif.allocation import AllocationDocument, EffectiveAllocation, Resources, validate
from whatif.capacity.model import queue_tree, read_capacity
from whatif.cluster import Cluster
from whatif.durations import format_duration
from whatif.errors import ValidationError
from whatif.executors import Executor, make_executor
from whatif.forecast import WorkloadForecast, forecast_workload
from whatif.metrics import Metric, Window, metric_spec
from whatif.predictor import NoiseModel, SchedulerSettings
from whatif.provisioning import (
    Configure,
    Progress,
    ProvisioningAnalysis,
    WorkloadScenario,
    analyze_provisioning,
    scenario_workloads,
)
from whatif.readers import read_trace
from whatif.report import ReportFiles, write_report
from whatif.scaleup_check import ScaleUpCheck, scale_up_check
from whatif.workload import Workload
from whatif.workload_model import WorkloadModel

logger = logging.getLogger(__name__)

#: How a trace's notes name the cluster its observed schedule was recorded on
#: (``... on nodes=24,memory-mb=8192,vcores=8, ...``; the bundled samples say so), or a
#: Hadoop 1 cluster by slot counts, optionally with its trackers named
#: (``hosts=/rack/host;...,map-slots=N,reduce-slots=N``, as `tempo trace inspect` prints).
_RECORDED_ON = re.compile(
    r"\bon ((?:nodes=\d+,)?memory-mb=[\d.]+,vcores=[\d.]+"
    r"|(?:hosts=[^\s,]+,)?map-slots=\d+,reduce-slots=\d+)"
)


def recorded_cluster(notes: Sequence[str]) -> str | None:
    """The cluster SPEC a trace's notes say it was recorded on, or None."""
    for note in notes:
        found = _RECORDED_ON.search(note)
        if found:
            return found.group(1)
    return None


#: Noise of the replicates when there is more than one: 10% duration jitter,
#: 2% stragglers running 3x longer, 1% failed attempts.
REPLICATE_NOISE = NoiseModel(
    failure_probability=0.01, straggler_probability=0.02, straggler_factor=3.0, jitter_cv=0.1
)

#: Re-tuning budget per cluster size: iterations x batch size (+1) What-if predictions,
#: inside a risk radius wider than the control loop's (a new cluster is a fresh start).
RETUNE_ITERATIONS = 3
RETUNE_BATCH_SIZE = 4
RETUNE_RADIUS = 0.5


@dataclass(frozen=True, eq=False)
class WhatifRun:
    """What `run_whatif` computed and where it wrote the report."""

    analysis: ProvisioningAnalysis
    retuned: ProvisioningAnalysis | None
    check: ScaleUpCheck | None
    files: ReportFiles
    forecast: WorkloadForecast | None = None


def workload_scenarios(growth: float | None, arrival_scale: float | None) -> list[WorkloadScenario]:
    """The baseline, then each change alone, then both together."""
    growths = [1.0] + ([growth] if growth not in (None, 1.0) else [])
    arrivals = [1.0] + ([arrival_scale] if arrival_scale not in (None, 1.0) else [])
    return [WorkloadScenario(g, a) for a in arrivals for g in growths]


def forecast_scenarios(
    forecast: WorkloadForecast, queues: Sequence[str] | None = None
) -> list[WorkloadScenario]:
    """Now (the reference window as it is), the forecast's median and its upper bound.

    `queues` limits the per-queue factors to those (the queues with jobs in the
    reference window: a queue without any is not in the model the scenarios use).
    """
    horizon = format_duration(forecast.horizon_s)
    now = f"now (the last {format_duration(forecast.plan.reference_s)})"
    bounds = (
        ("median", f"forecast median at {horizon}"),
        ("upper", f"forecast upper bound ({100 * forecast.level:g}% interval) at {horizon}"),
    )
    return [WorkloadScenario(name=now)] + [
        WorkloadScenario(
            per_queue=tuple(
                (q.queue, *q.factors(bound))
                for q in forecast.queues
                if queues is None or q.queue in queues
            ),
            name=name,
        )
        for bound, name in bounds
    ]


def _forecast(
    workload: Workload,
    trace: str | Path,
    horizon_s: float,
    level: float,
    seed: int,
    executor: Executor,
) -> tuple[WorkloadForecast, Workload]:
    """The forecast of `workload` and its reference window, the workload the scenarios scale."""
    try:
        forecast = forecast_workload(workload, horizon_s, level=level, seed=seed, executor=executor)
    except ValidationError as error:
        raise TempoError(f"{trace}: --growth auto: {error}") from None
    start, end = forecast.reference
    submit = workload.jobs["submit_s"]
    return forecast, workload.select_jobs((submit >= start) & (submit < end))


def _analyses(
    workload: Workload,
    document: SchedulerDocument,
    base: Cluster,
    thresholds: Sequence[tuple[str, Metric, float, str]],
    extra: Sequence[tuple[str, Metric]],
    templates: Sequence[QSTemplate],
    *,
    executor: str | None,
    settings: SchedulerSettings,
    replicates: int,
    seed: int,
    window: Window | None,
    check: bool,
    retune: bool,
    scales: Sequence[float],
    scenarios: Sequence[WorkloadScenario],
    model: WorkloadModel | None,
    rel_tol: float,
    progress: Progress | None,
) -> tuple[ProvisioningAnalysis, ProvisioningAnalysis | None, ScaleUpCheck | None]:
    """The provisioning analysis, the one with the configuration re-tuned per cluster
    (`retune`) and the scale-up check (`check`), on one executor; generated scenarios
    come from `model`, fitted once for all of them."""
    allocation = scheduler_file(document).allocation(document, base)
    noise = REPLICATE_NOISE if replicates > 1 else None
    with make_executor(executor or "serial") as pool:
        analyze = partial(
            analyze_provisioning,
            workload,
            allocation,
            base,
            thresholds,
            scales=scales,
            scenarios=scenarios,
            model=model,
            metrics=extra,
            replicates=replicates,
            noise=noise,
            settings=settings,
            seed=seed,
            window=window,
            executor=pool,
            rel_tol=rel_tol,
            progress=progress,
        )
        analysis = analyze()
        retuned = None
        if retune:
            configure = retuner(
                document,
                templates,
                executor=pool,
                settings=settings,
                replicates=replicates,
                noise=noise,
                seed=seed,
            )
            retuned = analyze(configure=configure)
        scale_check = None
        if check:
            scale_check = scale_up_check(
                workload,
                allocation,
                base,
                list(dict.fromkeys([(q, m) for q, m, *_ in thresholds] + list(extra))),
                factors=(1.0, 2.0, 4.0),
                settings=settings,
                seed=seed,
                window=window,
                executor=pool,
            )
    return analysis, retuned, scale_check


def _scenarios(
    workload: Workload,
    trace: str | Path,
    growth: float | None,
    arrival_scale: float | None,
    horizon_s: float | None,
    level: float,
    seed: int,
    executor: str | None,
) -> tuple[Workload, list[WorkloadScenario], WorkloadForecast | None]:
    """The workload the scenarios scale, the scenarios, and the forecast they come from
    (``--growth auto``, a `horizon_s`, its series forecast on `executor`) or None
    (`growth` and `arrival_scale` as given)."""
    if horizon_s is None:
        return workload, workload_scenarios(growth, arrival_scale), None
    with make_executor(executor or "serial") as pool:
        forecast, reference = _forecast(workload, trace, horizon_s, level, seed, pool)
    return reference, forecast_scenarios(forecast, reference.queues), forecast


def _check_generated_deadlines(
    templates: Sequence[QSTemplate],
    workload: Workload,
    scenarios: Sequence[WorkloadScenario],
    trace: str | Path,
    seed: int,
    model: WorkloadModel | None,
) -> None:
    """Raise, naming the template line, if a generated scenario's workload has none of the
    deadlines a template takes from it (the workload model keeps deadline_s values and
    recurring jobs on a period, not a trace's bursty repeats: docs/workload-model.md)."""
    if not any(metric_spec(m.name).needs_deadlines for t in templates for m in t.metrics):
        return
    for source, generated in scenario_workloads(workload, scenarios, seed=seed, model=model):
        if source == "model":
            check_trace_deadlines(
                templates, generated, f"{trace} as its workload model generates it"
            )


def _recorded_cluster(notes: Sequence[str], trace: str | Path) -> str:
    """The cluster SPEC the trace's notes say it was recorded on; an error when they do not."""
    cluster = recorded_cluster(notes)
    if cluster is None:
        raise TempoError(
            f"{trace}: the trace does not say which cluster it was recorded on; "
            "give the cluster SPEC (--cluster)"
        )
    return cluster


def retuner(
    document: SchedulerDocument,
    templates: Sequence[QSTemplate],
    *,
    executor: Executor,
    settings: SchedulerSettings,
    replicates: int = 1,
    noise: NoiseModel | None = None,
    seed: int = 0,
    iterations: int = RETUNE_ITERATIONS,
    batch_size: int = RETUNE_BATCH_SIZE,
    radius: float = RETUNE_RADIUS,
) -> Configure:
    """A `Configure` hook: `document` re-tuned by PALD (`tempo.optimize.optimize`) for each cluster."""

    def configure(cluster: Cluster, workload: Workload) -> EffectiveAllocation:
        file = scheduler_file(document, hadoop_version_for(None, cluster=cluster))
        outcome = optimize(
            document,
            workload,
            templates,
            cluster,
            space=file.space(document, cluster, settings.preemption),
            algorithm="pald",
            radius=radius,
            iterations=iterations,
            batch_size=batch_size,
            replicates=replicates,
            noise=noise,
            executor=executor,
            settings=settings,
            seed=seed,
        )
        logger.info("re-tuned for %s: %d settings changed", cluster.spec(), len(outcome.diff))
        return file.allocation(outcome.document, cluster)

    return configure


def _log_warnings(document: SchedulerDocument, cluster: Cluster, config: str | Path) -> None:
    """Log what `validate` warns of in the allocation file on `cluster`; refuse a
    capacity-scheduler.xml Hadoop would refuse, and say that its absolute capacities keep
    their share of `cluster` at every scale."""
    if not isinstance(document, AllocationDocument):
        scheduler_file(document).check(document, str(config))
        fixed = [
            node.path
            for node in queue_tree(document).walk()
            if (value := read_capacity(document, node.path)) is not None
            and value.mode == "absolute"
        ]
        if fixed:
            logger.warning(
                "%s: absolute capacities (%s) are taken as their share of %s at every cluster "
                "scale, not as fixed resources",
                config,
                ", ".join(fixed),
                cluster.spec(),
            )
        return
    total = Resources(cluster.memory_mb, cluster.vcores)
    for issue in validate(document, cluster=total):
        if issue.severity == "warning":
            logger.warning("%s: line %d: %s", config, issue.line, issue.message)


def run_whatif(
    trace: str | Path,
    config: str | Path,
    templates: str | Path,
    output: str | Path,
    *,
    cluster: str | None = None,
    scales: Sequence[float] = (0.25, 0.5, 1.0, 2.0, 4.0),
    growth: float | None = None,
    arrival_scale: float | None = None,
    horizon_s: float | None = None,
    level: float = 0.9,
    replicates: int = 1,
    executor: str | None = "local",
    window_s: float | None = None,
    seed: int = 0,
    rel_tol: float = 0.02,
    check: bool = False,
    retune: bool = False,
    settings: SchedulerSettings | None = None,
    progress: Progress | None = None,
) -> WhatifRun:
    """Predict the SLOs per scenario, find the smallest cluster meeting them, and write the report.

    With ``replicates > 1`` the replicates differ by `REPLICATE_NOISE`. ``window_s``
    measures every QS over the last ``window_s`` seconds of the trace's submission
    span instead of the whole predicted schedule. ``check`` adds the scale-up check
    (the cluster's SLOs predicted from traces recorded on a half and a quarter of
    it). ``retune`` repeats the analysis with the configuration re-tuned by PALD for
    every cluster size evaluated (`retuner`). `cluster` is the SPEC at scale 1; None:
    the cluster the trace's notes say it was recorded on (`recorded_cluster`).
    `settings` are the scheduler knobs (Hadoop's defaults, preemption off, when None).
    ``horizon_s`` (``--growth auto``) forecasts each queue `horizon_s` ahead from the
    trace (`whatif.forecast.forecast_workload`, `level` interval) and replaces the
    scenarios by `forecast_scenarios`, all generated from the last week (or day) of
    the trace; `growth` and `arrival_scale` must then be None.

    Template queues missing from the trace or from the allocation file are errors
    (`tempo.templates.check_trace_queues`, `check_predicted_queues`).
    """
    if horizon_s is not None and (growth is not None or arrival_scale is not None):
        raise TempoError(
            "--growth auto: the forecast sets growth and arrivals; drop --arrival-scale"
        )
    recorded = read_trace(trace)
    check_workload = recorded.workload
    workload, scenarios, forecast = _scenarios(
        recorded.workload, trace, growth, arrival_scale, horizon_s, level, seed, executor
    )
    cluster = cluster if cluster is not None else _recorded_cluster(recorded.notes, trace)
    base = Cluster.parse(cluster)
    document = read_scheduler_document(config)
    _log_warnings(document, base, config)
    allocation = scheduler_file(document).allocation(document, base)
    template_list = load_templates(templates)
    check_trace_queues(template_list, check_workload, str(trace))
    model = None if all(s.is_baseline for s in scenarios) else WorkloadModel().fit(workload)
    _check_generated_deadlines(template_list, workload, scenarios, trace, seed, model)
    check_predicted_queues(template_list, allocation, workload, where=str(config))
    thresholds = [
        (t.queue, c.metric, c.threshold, c.op) for t in template_list for c in t.constraints
    ]
    if not thresholds:
        raise TempoError(f"{templates}: the templates state no CONSTRAINT to provision for")
    extra = [(queue, metric) for queue, metric, _ in objectives(template_list)]
    window = Window.ending_at(workload.span_s[1], window_s) if window_s is not None else None
    if window is not None:
        warn_window_longer(window, workload, f"--window {format_duration(window.length_s)}")
    settings = settings if settings is not None else SchedulerSettings()
    analysis, retuned, scale_check = _analyses(
        workload,
        document,
        base,
        thresholds,
        extra,
        template_list,
        executor=executor,
        settings=settings,
        replicates=replicates,
        seed=seed,
        window=window,
        check=check,
        retune=retune,
        scales=scales,
        scenarios=scenarios,
        model=model,
        rel_tol=rel_tol,
        progress=progress,
    )
    inputs = _report_inputs(trace, config, templates, executor, window_s, settings)
    files = write_report(
        analysis, output, retuned=retuned, check=scale_check, inputs=inputs, forecast=forecast
    )
    return WhatifRun(analysis, retuned, scale_check, files, forecast)


def _report_inputs(
    trace: str | Path,
    config: str | Path,
    templates: str | Path,
    executor: str | None,
    window_s: float | None,
    settings: SchedulerSettings,
) -> dict[str, object]:
    """What the report says the run was made from."""
    return {
        "trace": str(trace),
        "config": str(config),
        "templates": str(templates),
        "executor": executor,
        "window_s": window_s,
        "preemption": settings.preemption,
    }
