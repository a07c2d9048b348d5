"""Write a multi-week trace with a known trend and weekly season, for ``tempo whatif --growth auto``.

The bundled samples are hours long; a forecast needs weeks. This fits the
workload model on a sample trace and generates one day at a time: day d at
``arrival_scale * (1 + growth_per_month * d / 30)`` times the fitted arrival rate
(weekends at ``weekend`` times that) and the same factor of data per job
(`WorkloadModel.with_growth`). Recurring jobs keep their schedule, as the
model's transformations do.

    python benchmarks/growing_history.py traces/two-tenant -o /tmp/history \\
        --days 56 --growth-per-month 0.2 --arrival-scale 0.02
"""

from __future__ import annotations

import argparse

import pandas as pd

from whatif.readers import read_trace, write_native
from whatif.trace import Trace
from whatif.workload import Workload
from whatif.workload_model import WorkloadModel

DAY_H = 24


def growing_history(
    model: WorkloadModel,
    *,
    days: int,
    growth_per_month: float,
    arrival_scale: float,
    weekend: float,
    seed: int,
) -> Workload:
    """`days` days generated from `model`, each scaled by the linear trend (see the module)."""
    jobs, tasks = [], []
    for day in range(days):
        trend = 1 + growth_per_month * day / 30
        season = weekend if day % 7 >= 5 else 1.0
        changed = model.with_arrival_scale(arrival_scale * trend * season).with_growth(trend)
        generated = changed.generate(hours=DAY_H, seed=seed + day, start_s=day * DAY_H * 3600.0)
        prefix = f"d{day:03d}_"
        jobs.append(generated.jobs.assign(job_id=prefix + generated.jobs["job_id"]))
        tasks.append(
            generated.tasks.assign(
                job_id=prefix + generated.tasks["job_id"],
                task_id=prefix + generated.tasks["task_id"],
            )
        )
    return Workload(
        jobs=pd.concat(jobs, ignore_index=True), tasks=pd.concat(tasks, ignore_index=True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", help="trace to fit the workload model on")
    parser.add_argument("-o", "--output", required=True, help="native trace directory to write")
    parser.add_argument("--days", type=int, default=56)
    parser.add_argument("--growth-per-month", type=float, default=0.2)
    parser.add_argument("--arrival-scale", type=float, default=1.0)
    parser.add_argument("--weekend", type=float, default=0.6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    model = WorkloadModel().fit(read_trace(args.trace).workload)
    workload = growing_history(
        model,
        days=args.days,
        growth_per_month=args.growth_per_month,
        arrival_scale=args.arrival_scale,
        weekend=args.weekend,
        seed=args.seed,
    )
    note = (
        f"growing history from {args.trace}: {args.days} days, +{100 * args.growth_per_month:g}% "
        f"per month (linear), arrivals x{args.arrival_scale:g}, weekends x{args.weekend:g}, "
        f"seed {args.seed} (benchmarks/growing_history.py)"
    )
    write_native(Trace(workload=workload, format="synthetic", notes=(note,)), args.output)
    print(f"{args.output}: {workload.n_jobs} jobs over {args.days} days")


if __name__ == "__main__":
    main()
