"""Optimization benchmark: PALD against an oracle and every baseline on contended scenarios.

For each scenario of `benchmarks/scenarios.py` (Hadoop 1 and YARN, from the bundled
samples), starting from the expert allocation file:

1. the expert's contention: cluster utilization and each tenant's mean queueing delay
   (submission to first task) on the tuning window;
2. an **oracle**: the best point found by a search of ``ORACLE_FACTOR`` x the budget
   (a uniform sample of the risk radius, then local refinement around its best point);
3. PALD, SCALAR, MSPD, random search, NSGA-II and optuna's TPE, each at the same
   budget (``--iterations`` x ``--batch`` + 1 predictions; iterations default to the
   scenario's: 10, 20 for the 24 settings of six-tenant), with ``--seeds`` seeds;
   every prediction averages 3 replicates under the noise model (task failures,
   stragglers, duration jitter; seed 0), as `tempo optimize --replicates` would;
4. every result (and the expert) re-evaluated on the **held-out** window (the next 90
   minutes) under the noise model on another seed (3 replicates), as it would run on
   a real cluster. (The strict scenario replays both windows without noise: its
   deadlines are the expert's own noise-free completions.)

Gain is the priority-weighted mean relative change of the OPTIMIZE QS from the
expert's (negative is better); "viol" counts results that break a constraint;
"unfin" counts results with a job that never finishes (never averaged away). Printed
per scenario: oracle gain; per algorithm the mean gain and 95% CI (Student t over
seeds) on the tuning and held-out windows, the share of the oracle's gain reached,
how many results dominate the expert on the tuning window (feasible, no OPTIMIZE QS
worse, one better), violations, unfinished, seconds. Plots in the style of the paper's Fig. 4 (best gain
by evaluations) and Fig. 8 (each QS normalized to the expert) go to ``--out``.

Usage::

    python benchmarks/optimize.py [--scenarios a,b] [--algorithms a,b] [--seeds 5]
        [--iterations N] [--batch 8] [--out DIR]
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from scenarios import SCENARIOS, Scenario, held_out_thresholds  # noqa: E402

from tempo.optimize import build_problem  # noqa: E402
from tempo.optimizers import Optimizer, make_optimizer  # noqa: E402
from tempo.optimizers.base import Batch, sample_in_radius  # noqa: E402
from tempo.optimizers.result import select_best  # noqa: E402

ALGORITHMS = ("pald", "scalar", "mspd", "random", "nsga2", "tpe")
#: The oracle searches this many times the algorithms' budget.
ORACLE_FACTOR = 20


class Oracle(Optimizer):
    """A large uniform sample of the risk radius, then Gaussian refinement around the best.

    Not a practical tuner (it spends ``ORACLE_FACTOR`` times the budget): it estimates
    the best gain the radius holds, the yardstick the algorithms are measured against.
    """

    name = "oracle"
    _parameter_constraints: dict = {}

    def __init__(self, *, batch_size: int = 32, sample_fraction: float = 0.6) -> None:
        self.batch_size = batch_size
        self.sample_fraction = sample_fraction

    def _initialize(self) -> None:
        self.n_sample_ = int(self.budget_ * self.sample_fraction)
        self.width_ = self.problem_.radius / 2

    def _ask(self, n_max: int) -> Batch:
        problem = self.problem_
        m = max(1, min(self.batch_size, n_max))
        if self.n_batches_ == 0:
            points = np.vstack(
                [problem.start[None, :], sample_in_radius(problem, self.rng_, m - 1)]
            )
        elif len(self.evaluated()[0]) < self.n_sample_:
            points = sample_in_radius(problem, self.rng_, m)
        else:
            X, mean, _ = self.evaluated()
            best = X[select_best(problem, mean)]
            noise = self.rng_.standard_normal((m, problem.dim)) * self.width_
            points = problem.project(best[None, :] + noise)
            self.width_ = max(self.width_ * 0.7, 1e-3)
        return Batch(points=points, roles=("sample",) * len(points))

    def _tell(self, X: np.ndarray, evaluation) -> None:
        return None


@dataclass(frozen=True)
class Run:
    """One algorithm's result on one scenario and seed."""

    algorithm: str
    seed: int
    document: object
    tuning_qs: np.ndarray
    held_qs: np.ndarray
    curve: np.ndarray  # best gain so far after each evaluation
    distance: float
    seconds: float
    unfinished: int


def gain(qs: np.ndarray, expert: np.ndarray, objective: np.ndarray, weights: np.ndarray) -> float:
    """Priority-weighted mean relative change of the OPTIMIZE QS (negative is better)."""
    scale = np.where(np.abs(expert) > 1e-12, np.abs(expert), 1.0)
    change = (qs - expert) / scale
    w = weights[objective]
    return float((change[objective] * w).sum() / w.sum())


def dominates(qs: np.ndarray, expert: np.ndarray, objective: np.ndarray, thresholds) -> bool:
    """Feasible, no OPTIMIZE QS worse than the expert's and one better (relative 1e-9)."""
    if violated(qs, thresholds, expert):
        return False
    a, b = qs[objective], expert[objective]
    margin = 1e-9 * np.maximum(np.abs(b), 1.0)
    return bool((a <= b + margin).all() and (a < b - margin).any())


def violated(qs: np.ndarray, thresholds: np.ndarray, reference: np.ndarray | None = None) -> bool:
    """Some constraint is broken; a constrained QS that cannot be measured counts as broken
    unless it cannot be measured under `reference` (the expert) either."""
    constrained = np.isfinite(thresholds)
    missing = np.isnan(qs) & (True if reference is None else ~np.isnan(reference))
    return bool((constrained & (missing | (qs > thresholds + 1e-9))).any())


def unfinished_jobs(scenario: Scenario, document, workload) -> int:
    return int(scenario.predict(document, workload).jobs["finish_s"].isna().sum())


def contention(scenario: Scenario) -> str:
    """The expert's utilization and each tenant's mean queueing delay on the tuning window:
    from submission to the job's first map or reduce (not its AM, nor a Hadoop 1 setup task,
    which the JobTracker starts at once)."""
    schedule = scenario.predict(scenario.expert, scenario.tuning)
    jobs = schedule.jobs
    attempts = schedule.attempts
    work = attempts[attempts["stage"].isin(["map", "reduce"])]
    first = work.groupby("job_id")["start_s"].min()
    waited = first.reindex(jobs["job_id"]).to_numpy() - jobs["submit_s"].to_numpy()
    delay = pd.Series(waited, index=jobs.index).groupby(jobs["queue"]).mean()
    busy = float((attempts["finish_s"] - attempts["start_s"]).sum())
    span = float(jobs["finish_s"].max() - jobs["submit_s"].min())
    slots = sum(scenario.cluster.slot_pools.values())
    capacity = slots if slots else scenario.cluster.vcores
    util = busy / (span * capacity) if span > 0 and capacity else math.nan
    delays = ", ".join(f"{q} {d:.0f} s" for q, d in delay.items())
    return f"utilization {util:.0%} of {capacity:g} slots/containers; mean queueing delay: {delays}"


def tune(scenario: Scenario, algorithm: str, seed: int, budget: int, batch: int):
    """Run `algorithm` on the scenario's tuning window; (document, curve, distance, seconds)."""
    problem, context = build_problem(
        scenario.expert,
        scenario.tuning,
        list(scenario.templates),
        scenario.cluster,
        space=scenario.space(),
        model={"settings": scenario.settings, **scenario.tuning_model()},
        radius=scenario.radius,
        hadoop_version=scenario.hadoop_version,
    )
    if algorithm == "oracle":
        optimizer: Optimizer = Oracle()
    else:
        size = "pop_size" if algorithm == "nsga2" else "batch_size"
        optimizer = make_optimizer(algorithm, **{size: batch})
    started = time.perf_counter()
    result = optimizer.run(problem, budget=budget, seed=seed)
    seconds = time.perf_counter() - started
    _, mean, _ = optimizer.evaluated()
    at_start = np.array_equal(result.x, problem.start)
    document = scenario.expert if at_start else context.evaluator.candidate(result.x)
    return document, problem, context, mean, float(result.distance), seconds


def best_curve(problem, mean: np.ndarray, expert: np.ndarray, objective, weights) -> np.ndarray:
    """After each evaluation, the gain of the best point so far (feasible first)."""
    curve = np.empty(len(mean))
    for i in range(len(mean)):
        best = select_best(problem, mean[: i + 1])
        curve[i] = gain(mean[best], expert, objective, weights)
    return curve


def run_scenario(scenario: Scenario, algorithms, seeds: int, budget: int, batch: int, out: Path):
    print(f"\n== {scenario.name}: {scenario.title}")
    print(
        f"tuning window {scenario.tuning.n_jobs} jobs ({len(scenario.tuning.tasks)} tasks), "
        f"held out {scenario.held_out.n_jobs} jobs; cluster {scenario.cluster.spec()}; "
        f"Hadoop {scenario.hadoop_version}; {len(scenario.space())} tuned settings; radius "
        f"{scenario.radius}; budget {budget} predictions"
    )
    print("expert: " + contention(scenario))
    held_model = scenario.held_out_model()
    tuning_model_ = scenario.tuning_model()
    expert_tuning = scenario.qs([scenario.expert], scenario.tuning, **tuning_model_)[0]
    expert_held = scenario.qs([scenario.expert], scenario.held_out, **held_model)[0]
    runs: list[Run] = []
    for algorithm in ("oracle", *algorithms):
        for seed in range(1 if algorithm == "oracle" else seeds):
            b = budget * ORACLE_FACTOR if algorithm == "oracle" else budget
            document, problem, context, mean, distance, seconds = tune(
                scenario, algorithm, seed, b, batch
            )
            objective = problem.optimize_mask
            weights = problem.weights
            thresholds = problem.thresholds
            columns = context.evaluator.columns
            tuning_qs = scenario.qs([document], scenario.tuning, **tuning_model_)[0]
            held_qs = scenario.qs([document], scenario.held_out, **held_model)[0]
            if columns is not None:
                tuning_qs, held_qs = tuning_qs[columns], held_qs[columns]
            curve = best_curve(problem, mean, _cols(expert_tuning, columns), objective, weights)
            runs.append(
                Run(algorithm, seed, document, tuning_qs, held_qs, curve, distance, seconds,
                    unfinished_jobs(scenario, document, scenario.tuning)
                    + unfinished_jobs(scenario, document, scenario.held_out))
            )  # fmt: skip
    labels = problem.names
    e_tuning, e_held = _cols(expert_tuning, columns), _cols(expert_held, columns)
    held_thresholds = held_out_thresholds(scenario, context.components, thresholds, e_held)
    table = summarize(runs, e_tuning, e_held, objective, weights, thresholds, held_thresholds)
    print(
        "expert QS (tuning): "
        + ", ".join(f"{label}={v:.4g}" for label, v in zip(labels, e_tuning, strict=True))
    )
    print(table.to_string(index=False))
    plot(scenario, runs, e_tuning, e_held, labels, out)
    return table


def _cols(qs: np.ndarray, columns) -> np.ndarray:
    return qs if columns is None else qs[columns]


def _ci(values: list[float]) -> str:
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if len(values) < 2:
        return f"{mean:+.1%}"
    half = float(stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values)))
    return f"{mean:+.1%} ± {half:.1%}"


def summarize(runs, e_tuning, e_held, objective, weights, thresholds, held_thresholds):
    oracle = next(r for r in runs if r.algorithm == "oracle")
    oracle_gain = gain(oracle.tuning_qs, e_tuning, objective, weights)
    rows = [
        {
            "algorithm": "expert",
            "seeds": 1,
            "tuning gain (95% CI)": "+0.0%",
            "of oracle": "0%",
            "held-out gain (95% CI)": "+0.0%",
            "dominates": "",
            "viol tuning": int(violated(e_tuning, thresholds)),
            "viol held": int(violated(e_held, held_thresholds)),
            "unfin": 0,
            "distance": "0.00",
            "s/run": "",
        }
    ]
    for algorithm in dict.fromkeys(r.algorithm for r in runs):
        mine = [r for r in runs if r.algorithm == algorithm]
        tuning = [gain(r.tuning_qs, e_tuning, objective, weights) for r in mine]
        held = [gain(r.held_qs, e_held, objective, weights) for r in mine]
        share = np.mean(tuning) / oracle_gain if oracle_gain < 0 else math.nan
        rows.append(
            {
                "algorithm": algorithm,
                "seeds": len(mine),
                "tuning gain (95% CI)": _ci(tuning),
                "of oracle": f"{share:.0%}" if np.isfinite(share) else "n/a",
                "held-out gain (95% CI)": _ci(held),
                "dominates": sum(
                    dominates(r.tuning_qs, e_tuning, objective, thresholds) for r in mine
                ),
                "viol tuning": sum(violated(r.tuning_qs, thresholds, e_tuning) for r in mine),
                "viol held": sum(violated(r.held_qs, held_thresholds, e_held) for r in mine),
                "unfin": sum(r.unfinished for r in mine),
                "distance": f"{np.mean([r.distance for r in mine]):.2f}",
                "s/run": f"{np.mean([r.seconds for r in mine]):.1f}",
            }
        )
    return pd.DataFrame(rows)


def plot(scenario, runs, e_tuning, e_held, labels, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    algorithms = [a for a in dict.fromkeys(r.algorithm for r in runs) if a != "oracle"]
    oracle = next(r for r in runs if r.algorithm == "oracle")
    fig, ax = plt.subplots(figsize=(6, 4))
    for algorithm in algorithms:
        curves = np.array([r.curve for r in runs if r.algorithm == algorithm])
        ax.plot(np.arange(1, curves.shape[1] + 1), curves.mean(axis=0) * 100, label=algorithm)
    ax.axhline(oracle.curve[-1] * 100, color="k", linestyle="--", label="oracle")
    ax.set(xlabel="predictions", ylabel="best gain vs expert (%)")
    ax.set_title(f"{scenario.name}: best point so far (mean over seeds)")
    ax.legend(fontsize=8)
    _save(fig, out / f"{scenario.name}_convergence.png")

    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(labels) + 3), 4))
    width = 0.8 / (len(algorithms) + 1)
    scale = np.where(np.abs(e_held) > 1e-12, np.abs(e_held), 1.0)
    x = np.arange(len(labels))
    ax.bar(x, np.sign(e_held) * np.where(np.abs(e_held) > 1e-12, 1.0, 0.0), width, label="expert")
    for k, algorithm in enumerate(algorithms, start=1):
        held = np.array([r.held_qs for r in runs if r.algorithm == algorithm]).mean(axis=0)
        ax.bar(x + k * width, held / scale, width, label=algorithm)
    ax.set_xticks(x + width * len(algorithms) / 2)
    ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=7)
    ax.set_ylabel("QS / |expert QS| (held out)")
    ax.set_title(f"{scenario.name}: held-out QS normalized to the expert")
    ax.legend(fontsize=7)
    _save(fig, out / f"{scenario.name}_qs.png")


def _save(fig, path: Path) -> None:
    """Write a figure as a PNG and free it."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--iterations", type=int, default=None, help="batches per run [default: the scenario's]"
    )
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out" / "optimize")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    warnings.filterwarnings("ignore")
    algorithms = [a for a in args.algorithms.split(",") if a]
    started = time.perf_counter()
    for name in args.scenarios.split(","):
        scenario = SCENARIOS[name]()
        budget = (args.iterations or scenario.iterations) * args.batch + 1
        run_scenario(scenario, algorithms, args.seeds, budget, args.batch, args.out)
    print(f"\ntotal {time.perf_counter() - started:.0f} s; plots in {args.out}")


if __name__ == "__main__":
    main()
