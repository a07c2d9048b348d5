"""Optimization benchmark: PALD against the expert configuration and the baselines.

Reproduces, on the bundled traces, the two experiments of the Tempo paper's section 8.2:

1. (8.2.1) ``traces/two-tenant`` with ``configs/two-tenant-expert.xml``: the deadlines of
   the deadline-driven ``root.prod`` are its jobs' finish times predicted under the
   expert configuration, r = 0 late jobs with 25% slack; the best-effort
   ``root.engineer`` optimizes its AJR, which must not exceed the expert's. PALD starts
   from the expert configuration. Printed per iteration and at the end: the best-effort
   AJR change, the deadline-violation fraction and the distance moved.
2. (8.2.3) ``traces/six-tenant`` with ``templates/six-tenant`` (AJR, DL and THR SLOs),
   starting from an arbitrary configuration (the expert file with every weight 1 and no
   minimum shares); one row per algorithm (same budget), every QS normalized to the
   expert configuration, and whether the result dominates the expert.
3. Every result is also evaluated on a held-out window: the optimizer sees only the
   jobs submitted in the first half of the trace; the second half is replayed under the
   result and under the expert configuration afterwards.

Scenario 1 replays on the 24 nodes (192 GB) ``configs/two-tenant-expert.xml`` is
written for, where the tenants contend. Scenario 2 uses the 100-node cluster.
Preemption is on (``yarn.scheduler.fair.preemption``), as the expert files assume.

Usage: ``python benchmarks/optimize.py [--out DIR] [--iterations N] [--iterations2 N] [--batch B]``.
The last line is machine-readable:
``scenario1 pald_dominates_expert=<true|false> best_effort_ajr_change=<fraction> deadline_violations=<fraction>``.
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tempo.optimize import component_table, optimize, qs_components  # noqa: E402
from tempo.space import SpaceSpec  # noqa: E402
from tempo.templates import load_templates, parse_templates  # noqa: E402
from whatif import Cluster  # noqa: E402
from whatif.allocation import AllocationDocument  # noqa: E402
from whatif.executors import make_executor  # noqa: E402
from whatif.predictor import SchedulerSettings, predict  # noqa: E402
from whatif.readers import read_trace  # noqa: E402
from whatif.whatif_model import WhatifModel  # noqa: E402
from whatif.workload import Workload  # noqa: E402

SETTINGS = SchedulerSettings(preemption=True)
ALGORITHMS = ("pald", "scalar", "mspd", "random", "nsga2")


def halves(workload: Workload) -> tuple[Workload, Workload]:
    """Jobs submitted in the first half of the trace's span, and the rest (held out)."""
    first, last = workload.span_s
    middle = (first + last) / 2
    early = workload.jobs["submit_s"].to_numpy() < middle
    return workload.select_jobs(early), workload.select_jobs(~early)


def with_expert_deadlines(
    workload: Workload, expert: AllocationDocument, cluster: Cluster, queue: str
) -> Workload:
    """`queue`'s jobs get ``deadline_s`` = their finish predicted under the expert configuration."""
    schedule = predict(workload, expert.effective(), cluster, settings=SETTINGS)
    finish = schedule.jobs.set_index("job_id")["finish_s"]
    jobs = workload.jobs.copy()
    mine = jobs["queue"] == queue
    jobs.loc[mine, "deadline_s"] = jobs.loc[mine, "job_id"].map(finish).astype(float).to_numpy()
    return Workload(jobs=jobs, tasks=workload.tasks)


def qs_of(documents, workload, templates, cluster, executor=None) -> np.ndarray:
    """The templates' full QS vector (objectives then constraints) of each document."""
    components = qs_components(templates)
    model = WhatifModel(
        cluster, [(c.queue, c.metric) for c in components], settings=SETTINGS, executor=executor
    )
    return model.evaluate([d.effective() for d in documents], workload).mean


def unfinished(document, workload, cluster) -> int:
    schedule = predict(workload, document.effective(), cluster, settings=SETTINGS)
    return int(schedule.jobs["finish_s"].isna().sum())


def dominates(a: np.ndarray, b: np.ndarray, tol: float = 1e-9) -> bool:
    """``a`` is no worse than ``b`` on every QS (lower is better) and better on one."""
    ok = ~(np.isnan(a) | np.isnan(b))
    return bool(np.all(a[ok] <= b[ok] + tol) and np.any(a[ok] < b[ok] - tol))


# ---------------------------------------------------------------- scenario 1 --------
def scenario1(out: Path, iterations: int, batch: int) -> dict[str, float | bool]:
    print("== Scenario 1 (paper 8.2.1): two tenants, deadlines from the expert configuration")
    cluster = Cluster.parse("nodes=24,memory-mb=8192,vcores=8")
    expert = AllocationDocument.from_file(REPO / "configs" / "two-tenant-expert.xml")
    train, held = halves(read_trace(REPO / "traces" / "two-tenant").workload)
    train = with_expert_deadlines(train, expert, cluster, "root.prod")
    held = with_expert_deadlines(held, expert, cluster, "root.prod")
    deadline_template = "QUEUE root.prod\nCONSTRAINT QS_DL(slack=25%, deadline=column) <= 0%;\n"
    probe = parse_templates(deadline_template + "QUEUE root.engineer\nOPTIMIZE QS_AJR;\n", "s1")
    expert_train = qs_of([expert], train, probe, cluster)[0]
    expert_held = qs_of([expert], held, probe, cluster)[0]
    templates = parse_templates(
        deadline_template
        + f"QUEUE root.engineer\nOPTIMIZE QS_AJR;\nCONSTRAINT QS_AJR <= {expert_train[0]:.3f}s;\n",
        "scenario1.qs",
    )
    space = (
        SpaceSpec(
            settings=(
                "weight",
                "minResources",
                "minSharePreemptionTimeout",
                "fairSharePreemptionTimeout",
                "fairSharePreemptionThreshold",
                "maxRunningApps",
            )
        )
        .with_overrides(["root.prod.minResources.memory=0:100%"])
        .build(expert.effective(), cluster)
    )
    print(
        f"tuning window: {train.n_jobs} jobs ({train.tasks.shape[0]} tasks); held out: "
        f"{held.n_jobs} jobs; {len(space)} tuned settings; cluster {cluster.spec()}"
    )
    print(
        f"expert: engineer AJR {expert_train[0]:.1f} s, prod late {expert_train[1]:.3f} "
        f"(held out: {expert_held[0]:.1f} s, {expert_held[1]:.3f})"
    )
    rows = []

    def progress(record) -> None:
        ajr, late = record.best_mean[0], record.best_mean[1]
        rows.append(
            {
                "iteration": record.iteration,
                "evaluations": record.evaluations,
                "ajr_change": ajr / expert_train[0] - 1,
                "deadline_violations": late,
                "distance": record.best_distance,
            }
        )

    started = time.perf_counter()
    outcome = optimize(
        expert,
        train,
        templates,
        cluster,
        space=space,
        algorithm="pald",
        radius=0.3,
        iterations=iterations,
        batch_size=batch,
        settings=SETTINGS,
        seed=0,
        callback=progress,
    )
    elapsed = time.perf_counter() - started
    table = pd.DataFrame(rows)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    tuned_train = qs_of([outcome.document], train, probe, cluster)[0]
    tuned_held = qs_of([outcome.document], held, probe, cluster)[0]
    result = {
        "dominates": dominates(tuned_train, expert_train),
        "ajr_change": tuned_train[0] / expert_train[0] - 1,
        "violations": tuned_train[1],
        "held_ajr_change": tuned_held[0] / expert_held[0] - 1,
        "held_violations": tuned_held[1],
        "distance": outcome.distance,
    }
    summary = pd.DataFrame(
        [
            ["tuning window", expert_train[0], tuned_train[0], result["ajr_change"],
             expert_train[1], tuned_train[1], unfinished(outcome.document, train, cluster)],
            ["held-out window", expert_held[0], tuned_held[0], result["held_ajr_change"],
             expert_held[1], tuned_held[1], unfinished(outcome.document, held, cluster)],
        ],
        columns=["window", "expert AJR s", "PALD AJR s", "AJR change", "expert late",
                 "PALD late", "PALD unfinished"],
    )  # fmt: skip
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"distance moved {outcome.distance:.3f} (radius 0.3); {elapsed:.1f} s; changes:")
    for d in outcome.diff:
        print(f"  {d.queue}  {d.setting}: {d.old} -> {d.new}")
    _plot_scenario1(table, out / "scenario1_pald.png")
    return result


def _plot_scenario1(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(11, 3.2))
    axes[0].plot(table["iteration"], 100 * table["ajr_change"], marker="o")
    axes[0].set(xlabel="iteration", ylabel="best-effort AJR change (%)")
    axes[1].plot(table["iteration"], 100 * table["deadline_violations"], marker="o", color="C3")
    axes[1].set(xlabel="iteration", ylabel="deadline violations (%)")
    axes[2].plot(table["iteration"], table["distance"], marker="o", color="C2")
    axes[2].set(xlabel="iteration", ylabel="distance moved")
    fig.suptitle("PALD on the two-tenant trace, relative to the expert (cf. paper Fig. 4)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------- scenario 2 --------
def scenario2(out: Path, iterations: int, batch: int) -> pd.DataFrame:
    print("\n== Scenario 2 (paper 8.2.3): six tenants, AJR / DL / THR SLOs, same budget")
    cluster = Cluster.parse("nodes=100,memory-mb=8192,vcores=8")
    expert = AllocationDocument.from_file(REPO / "configs" / "six-tenant-expert.xml")
    start = expert
    for queue in expert.effective().queues():
        if queue.name != "root" and not queue.children:
            start = start.set(queue.name, "weight", 1.0).set(queue.name, "minResources", None)
    workload = read_trace(REPO / "traces" / "six-tenant").workload
    # root.app's "hourly deadlines" are not in the trace: give each app job 5 minutes
    # (its template's p95 bound); mv and etl use the next run of the same job (auto).
    jobs = workload.jobs.copy()
    app = jobs["queue"] == "root.app"
    jobs.loc[app, "deadline_s"] = jobs.loc[app, "submit_s"] + 300.0
    train, held = halves(Workload(jobs=jobs, tasks=workload.tasks))
    templates = load_templates(REPO / "templates" / "six-tenant")
    components = qs_components(templates)
    space = SpaceSpec(settings=("weight", "minResources", "fairSharePreemptionTimeout")).build(
        start.effective(), cluster
    )
    labels = [c.label for c in components]
    print(
        f"tuning window: {train.n_jobs} jobs; held out: {held.n_jobs} jobs; "
        f"{len(space)} tuned settings; budget {iterations * batch + 1} predictions per algorithm"
    )
    rows = []
    with make_executor("local:2") as executor:
        expert_train, start_train = qs_of([expert, start], train, templates, cluster, executor)
        expert_held, start_held = qs_of([expert, start], held, templates, cluster, executor)
        rows.append(("start", "tuning", start_train, 0.0, math.nan))
        rows.append(("start", "held-out", start_held, 0.0, math.nan))
        for algorithm in ALGORITHMS:
            began = time.perf_counter()
            outcome = optimize(
                start,
                train,
                templates,
                cluster,
                space=space,
                algorithm=algorithm,
                radius=0.3,
                iterations=iterations,
                batch_size=batch,
                settings=SETTINGS,
                executor=executor,
                seed=0,
            )
            seconds = time.perf_counter() - began
            tuned_train, tuned_held = (
                qs_of([outcome.document], w, templates, cluster, executor)[0] for w in (train, held)
            )
            rows.append((algorithm, "tuning", tuned_train, outcome.distance, seconds))
            rows.append((algorithm, "held-out", tuned_held, outcome.distance, seconds))
    reference = {"tuning": expert_train, "held-out": expert_held}
    records = []
    for name, window, values, distance, seconds in rows:
        base = reference[window]
        scale = np.where(np.abs(base) > 1e-12, np.abs(base), 1.0)
        record = {"algorithm": name, "window": window}
        record.update({label: v for label, v in zip(labels, values / scale, strict=True)})
        record["dominates_expert"] = dominates(values, base)
        record["meets_constraints"] = _meets(components, values)
        record["distance"] = distance
        record["seconds"] = seconds
        records.append(record)
    table = pd.DataFrame(records)
    expert_row = component_table(components, tuning=expert_train, held_out=expert_held)
    print("expert configuration (the reference, raw QS):")
    print(expert_row.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print("QS normalized to the expert (value / |expert|; lower is better; expert = +-1,")
    print("or the raw value where the expert's is 0):")
    short = {label: f"q{i}" for i, label in enumerate(labels)}
    print(table.rename(columns=short).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print("columns: " + "; ".join(f"{short[label]} = {label}" for label in labels))
    _plot_scenario2(table, labels, out / "scenario2_algorithms.png")
    return table


def _meets(components, values) -> bool:
    for component, value in zip(components, values, strict=True):
        if component.kind == "constraint" and not value <= component.threshold:
            return False
    return True


def _plot_scenario2(table: pd.DataFrame, labels: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(12, 7), sharex=True)
    for ax, window in zip(axes, ("tuning", "held-out"), strict=True):
        part = table[table["window"] == window]
        width = 0.8 / len(part)
        for i, (_, row) in enumerate(part.iterrows()):
            values = [row[label] for label in labels]
            ax.bar(np.arange(len(labels)) + i * width, values, width, label=row["algorithm"])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(-1.0, color="black", linewidth=0.8)
        ax.set_ylabel(f"QS / |expert| ({window})")
        ax.legend(ncol=len(part), fontsize=8)
    axes[1].set_xticks(np.arange(len(labels)) + 0.4)
    axes[1].set_xticklabels(labels, rotation=40, ha="right", fontsize=7)
    fig.suptitle("Six tenants: each algorithm's result normalized to the expert (cf. paper Fig. 8)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="optimize-benchmark", help="directory for the PNG plots")
    parser.add_argument("--iterations", type=int, default=12, help="scenario 1 iterations")
    parser.add_argument("--iterations2", type=int, default=10, help="scenario 2 iterations")
    parser.add_argument("--batch", type=int, default=8, help="predictions per iteration")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    first = scenario1(out, args.iterations, args.batch)
    scenario2(out, args.iterations2, args.batch)
    print(f"\nplots in {out}/; total {time.perf_counter() - began:.0f} s")
    print(
        f"held-out scenario 1: best_effort_ajr_change={first['held_ajr_change']:.3f} "
        f"deadline_violations={first['held_violations']:.3f}"
    )
    print(
        f"scenario1 pald_dominates_expert={str(first['dominates']).lower()} "
        f"best_effort_ajr_change={first['ajr_change']:.3f} "
        f"deadline_violations={first['violations']:.3f}"
    )


if __name__ == "__main__":
    main()
