"""The Fair Scheduler's delay scheduling on YARN: its cost and effect on a synthetic trace.

100 NodeManagers over 10 racks, named by host; jobs of 50 maps, each map's split on three
random hosts, and 5 reduces, submitted every 3 s to two queues. Prints, with the
locality thresholds off (Hadoop's default) and at 0.5, the attempts, the predictor's
wall time and the mean response time.

    python benchmarks/fair_locality.py [--jobs 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from whatif import Cluster, EffectiveAllocation, EffectiveQueue, Workload
from whatif.predictor import SchedulerSettings, predict

NODES = 100
RACKS = 10


def trace(jobs: int, seed: int = 1) -> Workload:
    """The synthetic workload (see the module docstring)."""
    rng = np.random.default_rng(seed)
    job_rows, task_rows = [], []
    for j in range(jobs):
        job_id = f"j{j:05d}"
        job_rows.append({"job_id": job_id, "queue": f"root.{'ab'[j % 2]}", "submit_s": 3.0 * j})
        for i in range(55):
            split = ""
            if i < 50:
                hosts = rng.choice(NODES, 3, replace=False)
                split = ",".join(f"/r{h % RACKS}/h{h}" for h in hosts)
            task_rows.append(
                {
                    "job_id": job_id,
                    "task_id": f"{job_id}_{i:03d}",
                    "stage": "map" if i < 50 else "reduce",
                    "duration_s": float(rng.integers(5, 60)) if i < 50 else 30.0,
                    "memory_mb": 1024.0,
                    "vcores": 1.0,
                    "split_locations": split,
                }
            )
    return Workload(pd.DataFrame(job_rows), pd.DataFrame(task_rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2000)
    args = parser.parse_args()
    hosts = ";".join(f"/r{i % RACKS}/h{i}" for i in range(NODES))
    cluster = Cluster.parse(f"hosts={hosts},memory-mb=8192,vcores=8")
    tree = EffectiveAllocation(
        root=EffectiveQueue("root", children=(EffectiveQueue("root.a"), EffectiveQueue("root.b")))
    )
    workload = trace(args.jobs)
    predict(trace(5), tree, cluster)  # the kernel compiled or loaded before timing
    for node in (-1.0, 0.5):
        settings = SchedulerSettings(locality_threshold_node=node, locality_threshold_rack=0.5)
        start = time.perf_counter()
        schedule = predict(workload, tree, cluster, settings=settings)
        elapsed = time.perf_counter() - start
        response = (schedule.jobs["finish_s"] - schedule.jobs["submit_s"]).mean()
        print(
            f"threshold_node={node:g} attempts={schedule.n_attempts} predict_s={elapsed:.2f} "
            f"mean_response_s={response:.1f}"
        )


if __name__ == "__main__":
    main()
