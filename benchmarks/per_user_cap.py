"""What ``maxChildResources`` buys on a cluster of per-user queues, swept and then tuned.

Most YARN clusters put each user's jobs in a queue of their own, created on the fly
under a parent (a placement rule's ``root.users.<user>``). Fair sharing splits the
parent between the users who ask, but only as containers free up: a user whose burst
took the whole cluster while it was idle holds it for as long as its tasks run, and
the small jobs of the users who come next wait. ``maxChildResources`` on the parent
caps every such queue.

The workload (seeded): user ``etl`` submits four jobs of 160 maps of 5-7 minutes at
the start; five analysts submit jobs of 8 maps of 20-40 s every few minutes for an
hour. Cluster: 5 nodes of 8 GB, 8 vcores (40 containers of 1 GB). The script prints
the predicted mean response time of each side under caps from none to a quarter of
the cluster, then tunes the cap from "none" with PALD (templates: each analyst's mean
response time as low as possible; etl's at most 10% above what it is uncapped),
finds the oracle's cap (every 1 GB step, the analysts' best with etl within +10%),
and applies both to the workload tuned on and to four held-out ones (the next seeds).

    python benchmarks/per_user_cap.py [--seed 0] [--iterations 8] [--engine numba]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from tempo.optimize import optimize
from tempo.space import ConfigurationSpace, SpaceSpec
from tempo.templates import parse_templates
from whatif import Cluster, Workload
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.predictor import SchedulerSettings, predict

CLUSTER = Cluster.parse("nodes=5,memory-mb=8192,vcores=8")
ANALYSTS = ("ana", "bo", "cy", "dee", "eli")

FILE = """<allocations>
  <queue name="users" type="parent">{cap}
  </queue>
</allocations>
"""


def workload(seed: int) -> Workload:
    """etl's burst at the start and the analysts' small jobs for an hour (module docstring)."""
    rng = np.random.default_rng(seed)
    jobs, tasks = [], []

    def job(job_id: str, user: str, submit: float, maps: int, low: float, high: float) -> None:
        jobs.append({"job_id": job_id, "queue": f"root.users.{user}", "user": user,
                     "submit_s": submit})  # fmt: skip
        for i, duration in enumerate(rng.uniform(low, high, maps)):
            tasks.append({"job_id": job_id, "task_id": f"{job_id}_m{i:03d}", "stage": "map",
                          "duration_s": float(duration), "memory_mb": 1024.0, "vcores": 1.0})  # fmt: skip

    for k in range(4):
        job(f"etl{k}", "etl", 10.0 * k, 160, 300.0, 420.0)
    n = 0
    for user in ANALYSTS:
        t = float(rng.uniform(30, 240))
        while t < 3600:
            job(f"a{n:03d}", user, t, 8, 20.0, 40.0)
            n += 1
            t += float(rng.exponential(300))
    return Workload(pd.DataFrame(jobs), pd.DataFrame(tasks))


def document(cap_mb: float | None) -> AllocationDocument:
    cap = (
        ""
        if cap_mb is None
        else f"\n    <maxChildResources>{cap_mb:g} mb,40vcores</maxChildResources>"
    )
    return AllocationDocument.from_bytes(FILE.format(cap=cap).encode(), source="per-user.xml")


def mean_responses(work: Workload, doc: AllocationDocument, engine: str) -> tuple[float, float]:
    """(analysts' mean response time, etl's) predicted under `doc`, in seconds."""
    schedule = predict(work, effective_allocation(doc), CLUSTER,
                       settings=SchedulerSettings(), engine=engine)  # fmt: skip
    jobs = schedule.jobs
    response = jobs["finish_s"] - jobs["submit_s"]
    etl = jobs["queue"] == "root.users.etl"
    return float(response[~etl].mean()), float(response[etl].mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--engine", default="numba", choices=("numba", "reference"))
    args = parser.parse_args()
    work = workload(args.seed)
    print(f"jobs={work.n_jobs} tasks={work.n_tasks} cluster={CLUSTER.spec()}")
    print(f"{'maxChildResources':>18} {'analysts AJR s':>15} {'etl AJR s':>10}")
    free_analysts, free_etl = mean_responses(work, document(None), args.engine)
    print(f"{'none':>18} {free_analysts:>15.1f} {free_etl:>10.1f}")
    for cap in (32768, 28672, 24576, 20480, 16384, 10240):
        analysts, etl = mean_responses(work, document(cap), args.engine)
        print(f"{f'{cap} MB':>18} {analysts:>15.1f} {etl:>10.1f}")

    limit = 1.1 * free_etl
    templates = parse_templates(
        "".join(f"QUEUE root.users.{u}\nOPTIMIZE QS_AJR;\n" for u in ANALYSTS)
        + f"QUEUE root.users.etl\nCONSTRAINT QS_AJR <= {limit:.0f}s;\n",
        path="per-user.qs",
    )
    start = document(None)
    space = ConfigurationSpace.from_spec(
        SpaceSpec(settings=("maxChildResources",)), effective_allocation(start), CLUSTER
    )
    began = time.perf_counter()
    outcome = optimize(start, work, templates, CLUSTER, space=space, iterations=args.iterations,
                       radius=0.5, engine=args.engine, seed=args.seed)  # fmt: skip
    seconds = time.perf_counter() - began
    tuned = effective_allocation(outcome.document).queue("root.users").max_child_resources
    cap = None if tuned.absolute is None else tuned.absolute.memory_mb
    oracle = _oracle(work, limit, args.engine)
    print(f"PALD, {args.iterations} iterations: maxChildResources "
          f"{'none' if cap is None else f'{cap:.0f} MB'}; the oracle (every 1024 MB step, "
          f"etl within +10%): {oracle:.0f} MB")  # fmt: skip
    print(f"PALD took {seconds:.1f} s")  # apart: the line above is the page's, to the digit
    print(
        f"{'workload seed':>14} {'analysts AJR: none -> PALD (oracle)':>36} {'etl AJR: none -> PALD':>24}"
    )
    for seed in range(args.seed, args.seed + 5):
        w = work if seed == args.seed else workload(seed)
        a0, e0 = mean_responses(w, document(None), args.engine)
        a1, e1 = mean_responses(w, document(cap), args.engine)
        a2, _ = mean_responses(w, document(oracle), args.engine)
        label = f"{seed}{'' if seed != args.seed else ' (tuned on)'}"
        print(f"{label:>14} {f'{a0:.1f} -> {a1:.1f} s ({a1 / a0 - 1:+.0%}) ({a2 / a0 - 1:+.0%})':>36} "
              f"{f'{e0:.0f} -> {e1:.0f} s ({e1 / e0 - 1:+.0%})':>24}")  # fmt: skip


def _oracle(work: Workload, etl_limit: float, engine: str) -> float:
    """The cap, in whole GB, with the analysts' lowest mean response time whose etl mean
    response time stays within `etl_limit`."""
    best, best_cap = float("inf"), float(CLUSTER.memory_mb)
    for cap in range(1024, int(CLUSTER.memory_mb) + 1, 1024):
        analysts, etl = mean_responses(work, document(float(cap)), engine)
        if etl <= etl_limit and analysts < best:
            best, best_cap = analysts, float(cap)
    return best_cap


if __name__ == "__main__":
    main()
