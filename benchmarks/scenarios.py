"""The contended tuning scenarios of benchmarks/optimize.py (issue: the tuner must tune).

Each `Scenario` is a tuning problem a YARN operator has: an expert allocation file in
force, a contended workload split into a tuning window and a held-out window, QS
templates, the cluster and the dialect. All come from the bundled samples
(``traces/contended``: SWIM FB-2009 split by job size into a deadline and a
best-effort tenant; ``traces/six-tenant``: the paper's Table 1 shape), so every
figure is reproducible from this repository.

1. ``strict-h1``: the paper's 8.2.1 setting, strict. Hadoop 1 slots (30 map / 10
   reduce), the deadline tenant's deadlines are its completions under the expert
   file, slack 25%, no job may be late; best-effort AJR may not exceed the expert's.
2. ``slo-h1`` and ``slo-yarn``: deadlines a DBA would state (``deadline=+90min``) under
   an expert file that over-provisions the deadline tenant; Hadoop 1 and YARN.
3. ``preemption``: the expert reclaims shares after 5-10 s on a busy cluster;
   objectives the cluster's WASTE (work lost to preemption) and best-effort AJR, the
   deadline tenant's SLO as a constraint.
4. ``six-tenant``: the paper's 8.2.3 six tenants on 30 nodes, thresholds set from the
   expert's own values (expert x 1.05) so the expert is feasible and improvable; 24
   tuned settings, so every algorithm gets twice the budget (20 batches).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from tempo.optimize import qs_components
from tempo.space import ConfigurationSpace
from tempo.templates import QSTemplate, load_templates, parse_templates
from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.predictor import TYPICAL_NOISE, SchedulerSettings, predict
from whatif.readers import read_trace
from whatif.whatif_model import WhatifModel
from whatif.workload import Workload

REPO = Path(__file__).resolve().parents[1]

#: The contended sample's windows: tune on the first 90 minutes, hold out the next 90.
TUNING_S = (0.0, 5400.0)
HELD_OUT_S = (5400.0, 10800.0)
HADOOP1_CLUSTER = "map-slots=30,reduce-slots=10"
#: A real cluster's failures, stragglers and duration jitter: tuning predictions average
#: 3 replicates under it (seed 0), the held-out check 3 more (seed 1).
NOISE = TYPICAL_NOISE
REPLICATES = 3
YARN_CLUSTER = "nodes=5,memory-mb=8192,vcores=8"


@dataclass(frozen=True, eq=False)
class Scenario:
    """One tuning problem: start from `expert`, tune on `tuning`, check on `held_out`."""

    name: str
    title: str
    expert: AllocationDocument
    cluster: Cluster
    templates: tuple[QSTemplate, ...]
    tuning: Workload
    held_out: Workload
    hadoop_version: int
    settings: SchedulerSettings
    radius: float = 0.3
    #: Batches of 8 predictions every algorithm gets (the budget is ``8 iterations + 1``):
    #: 10, as `tempo optimize`'s default, for spaces of 8-9 settings; more for larger ones.
    iterations: int = 10
    #: Tune and check under the noise model (failures, stragglers, jitter). The strict
    #: scenario's deadlines are the expert's own noise-free completions, which noise
    #: would break under any configuration, so it replays without noise, as the paper's.
    noisy: bool = True
    #: Constraints stand for "no worse than the expert" (thresholds from the expert's own
    #: QS): on the held-out window a result violates one only where it is also worse
    #: than the expert's own held-out value (+5%, as on the tuning window).
    relative: bool = False

    def tuning_model(self) -> dict:
        """How the tuner predicts: replicates under the noise model when the scenario is noisy."""
        return {"replicates": REPLICATES, "noise": NOISE, "seed": 0} if self.noisy else {}

    def held_out_model(self) -> dict:
        """How the held-out window is replayed: the noise model on another seed."""
        return {"replicates": REPLICATES, "noise": NOISE, "seed": 1} if self.noisy else {}

    def space(self) -> ConfigurationSpace:
        """The default space of the expert file, in its own dialect."""
        allocation = effective_allocation(self.expert, hadoop_version=self.hadoop_version)
        return ConfigurationSpace.default(
            allocation, self.cluster, hadoop_version=self.hadoop_version
        )

    def model(self, *, replicates: int = 1, noise=None, seed: int = 0) -> WhatifModel:
        components = qs_components(self.templates)
        return WhatifModel(
            self.cluster,
            [(c.queue, c.metric) for c in components],
            settings=self.settings,
            replicates=replicates,
            noise=noise,
            seed=seed,
        )

    def qs(self, documents, workload: Workload, **model) -> np.ndarray:
        """``(n, k)`` QS vectors (templates' order) of each document on `workload`."""
        allocations = [
            effective_allocation(d, hadoop_version=self.hadoop_version) for d in documents
        ]
        return self.model(**model).evaluate(allocations, workload).mean

    def predict(self, document: AllocationDocument, workload: Workload):
        return predict(
            workload,
            effective_allocation(document, hadoop_version=self.hadoop_version),
            self.cluster,
            settings=self.settings,
        )


def windows(workload: Workload) -> tuple[Workload, Workload]:
    """Jobs submitted in the tuning window, and in the held-out window."""
    submit = workload.jobs["submit_s"].to_numpy()
    return (
        workload.select_jobs((submit >= TUNING_S[0]) & (submit < TUNING_S[1])),
        workload.select_jobs((submit >= HELD_OUT_S[0]) & (submit < HELD_OUT_S[1])),
    )


def contended() -> Workload:
    return read_trace(REPO / "traces" / "contended").workload


def _expert_deadlines(workload: Workload, scenario: Scenario, queue: str) -> Workload:
    """`queue`'s jobs get ``deadline_s`` = their completion predicted under the expert file."""
    finish = scenario.predict(scenario.expert, workload).jobs.set_index("job_id")["finish_s"]
    jobs = workload.jobs.copy()
    mine = (jobs["queue"] == queue).to_numpy()
    jobs.loc[mine, "deadline_s"] = jobs.loc[mine, "job_id"].map(finish).astype(float).to_numpy()
    return Workload(jobs=jobs, tasks=workload.tasks)


def _hadoop1(
    name: str, title: str, templates, expert: str = "contended-expert-hadoop1.xml"
) -> Scenario:
    tuning, held = windows(contended())
    return Scenario(
        name=name,
        title=title,
        expert=AllocationDocument.from_file(REPO / "configs" / expert),
        cluster=Cluster.parse(HADOOP1_CLUSTER),
        templates=tuple(templates),
        tuning=tuning,
        held_out=held,
        hadoop_version=1,
        settings=SchedulerSettings(preemption=True, hadoop_version=1),
    )


def strict_h1() -> Scenario:
    """Paper 8.2.1: deadlines = completion under the expert, slack 25%, r = 0."""
    deadline = "QUEUE root.deadline\nCONSTRAINT QS_DL(slack=25%, deadline=column) <= 0%;\n"
    probe = parse_templates(deadline + "QUEUE root.besteffort\nOPTIMIZE QS_AJR;\n", "strict")
    scenario = _hadoop1("strict-h1", "paper 8.2.1, strict (Hadoop 1)", probe)
    tuning = _expert_deadlines(scenario.tuning, scenario, "root.deadline")
    held = _expert_deadlines(scenario.held_out, scenario, "root.deadline")
    scenario = replace(scenario, tuning=tuning, held_out=held, noisy=False)
    expert_ajr = scenario.qs([scenario.expert], tuning)[0, 0]
    templates = parse_templates(
        deadline
        + f"QUEUE root.besteffort\nOPTIMIZE QS_AJR;\nCONSTRAINT QS_AJR <= {math.ceil(expert_ajr * 1000) / 1000:.3f}s;\n",
        "strict-h1.qs",
    )
    return replace(scenario, templates=tuple(templates))


def slo_h1() -> Scenario:
    templates = load_templates(REPO / "templates" / "contended")
    return _hadoop1("slo-h1", "SLO-driven, deadline=+90min (Hadoop 1)", templates)


def slo_yarn() -> Scenario:
    tuning, held = windows(contended())
    return Scenario(
        name="slo-yarn",
        title="SLO-driven, deadline=+90min (YARN)",
        expert=AllocationDocument.from_file(REPO / "configs" / "contended-expert.xml"),
        cluster=Cluster.parse(YARN_CLUSTER),
        templates=tuple(load_templates(REPO / "templates" / "contended")),
        tuning=tuning,
        held_out=held,
        hadoop_version=3,
        settings=SchedulerSettings(preemption=True),
    )


def preemption() -> Scenario:
    """Paper 8.2.2: eager preemption on a busy cluster wastes work; AJR and WASTE."""
    tuning, held = windows(contended())
    text = (
        "QUEUE root\nOPTIMIZE QS_WASTE;\n"
        "QUEUE root.deadline\nCONSTRAINT QS_DL(slack=0%, deadline=+90min) <= 0%;\n"
        "QUEUE root.besteffort\nOPTIMIZE QS_AJR;\n"
    )
    return Scenario(
        name="preemption",
        title="preemption waste (paper 8.2.2, YARN)",
        expert=AllocationDocument.from_file(REPO / "configs" / "preemption-expert.xml"),
        cluster=Cluster.parse(YARN_CLUSTER),
        templates=tuple(parse_templates(text, "preemption.qs")),
        tuning=tuning,
        held_out=held,
        hadoop_version=3,
        settings=SchedulerSettings(preemption=True),
    )


def six_tenant() -> Scenario:
    """Paper 8.2.3: six tenants; thresholds = the expert's own QS x 1.05 (feasible, improvable)."""
    workload = read_trace(REPO / "traces" / "six-tenant").workload
    first, last = workload.span_s
    middle = (first + last) / 2
    early = workload.jobs["submit_s"].to_numpy() < middle
    tuning, held = workload.select_jobs(early), workload.select_jobs(~early)
    probe = tuple(load_templates(REPO / "templates" / "six-tenant"))
    scenario = Scenario(
        name="six-tenant",
        title="six tenants (paper 8.2.3, YARN)",
        expert=AllocationDocument.from_file(REPO / "configs" / "six-tenant-expert.xml"),
        cluster=Cluster.parse("nodes=30,memory-mb=8192,vcores=8"),
        templates=probe,
        tuning=tuning,
        held_out=held,
        hadoop_version=3,
        settings=SchedulerSettings(preemption=True),
    )
    return replace(
        scenario, templates=tuple(_thresholds_from_expert(scenario)), relative=True, iterations=20
    )


def _thresholds_from_expert(scenario: Scenario) -> list[QSTemplate]:
    """The scenario's templates with every QS the expert's window measures constrained to
    5% worse than the expert's value, or the template's own threshold where looser."""
    components = qs_components(scenario.templates)
    expert = scenario.qs([scenario.expert], scenario.tuning, **scenario.tuning_model())[0]
    lines = []
    for queue in dict.fromkeys(c.queue for c in components):
        lines.append(f"QUEUE {queue}")
        bounds: dict[str, tuple[str, float]] = {}
        for c, value in zip(components, expert, strict=True):
            if c.queue != queue:
                continue
            metric = _template_text(c.metric)
            if c.kind == "objective":
                lines.append(f"OPTIMIZE {metric};")
            if np.isfinite(value):  # a QS the expert's window cannot measure gets none
                bound = _bound(c.metric.unit, value)
                if c.kind == "constraint":
                    bound = max(bound, c.threshold)
                old = bounds.get(metric, ("", math.inf))[1]
                bounds[metric] = (c.metric.unit, min(bound, old))
        lines += [f"CONSTRAINT {m} <= {_quantity(*ub)};" for m, ub in bounds.items()]
    return parse_templates("\n".join(lines) + "\n", "six-tenant-expert-thresholds.qs")


def _template_text(metric) -> str:
    """`metric` in template syntax: ``QS_DL(slack=25%)``."""
    params = []
    for key, value in metric.params:
        kind = metric.spec.params[key].kind
        text = (
            f"{value * 100:g}%"
            if kind == "fraction"
            else f"{value:g}s"
            if kind == "seconds"
            else str(value)
        )
        params.append(f"{key}={text}")
    return metric.name + (f"({', '.join(params)})" if params else "")


def held_out_thresholds(scenario: Scenario, components, thresholds, expert_held) -> np.ndarray:
    """The thresholds a held-out result is checked against (see `Scenario.relative`)."""
    if not scenario.relative:
        return np.asarray(thresholds, dtype=float)
    own = [
        _bound(c.metric.unit, v) if np.isfinite(v) else math.inf
        for c, v in zip(components, expert_held, strict=True)
    ]
    return np.maximum(np.asarray(thresholds, dtype=float), own)


def _bound(unit: str, value: float) -> float:
    """5% worse than `value` (fractions: at least one point worse)."""
    slack = 0.05 * abs(value)
    return value + (max(slack, 0.01) if unit == "fraction" else slack)


def _quantity(unit: str, value: float) -> str:
    value = math.ceil(value * 1e6) / 1e6  # never below the expert's own value
    return f"{value * 100:.4f}%" if unit == "fraction" else f"{value:.6f}"


SCENARIOS = {
    "strict-h1": strict_h1,
    "slo-h1": slo_h1,
    "slo-yarn": slo_yarn,
    "preemption": preemption,
    "six-tenant": six_tenant,
}
