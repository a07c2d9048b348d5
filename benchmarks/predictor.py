"""Predictor speed: synthetic workload over 6 queues with preemption on.

Prints the cold start (JIT compile or cache load), packing, simulation and
unpacking times, ``tasks_per_s=<number>`` for the simulation itself, the end-to-end
rate, and the peak resident memory of the process, overall and as it stood at the end
of each phase (so the phase that raised it shows).

    python benchmarks/predictor.py [--tasks 1000000] [--engine numba|reference] [--nodes 250]
    python benchmarks/predictor.py --repeat 3    # also the simulation's CPU rate, 3 runs

``--repeat N`` simulates the same workload N more times in the process and prints each
run's rate in CPU time (``process_time``) and their median and best: the first run of a
process also pays for first touching the attempt arrays, and on a shared machine CPU time
varies less than wall time.

``--nodes N`` splits the cluster into N equal nodes, so node heartbeats are simulated
(without it the cluster is one pool of resources, scheduled at every event).
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from whatif import Cluster, EffectiveAllocation, EffectiveQueue, Resources, Schedule, Workload
from whatif.predictor import SchedulerSettings, Simulation


def _padded(numbers: np.ndarray, width: int) -> pa.Array:
    """Zero-padded decimal strings of `numbers`, as an Arrow array."""
    return pc.utf8_lpad(pa.array(numbers).cast(pa.string()), width, padding="0")


def synthetic(
    n_tasks: int, seed: int = 7, nodes: int = 0
) -> tuple[Workload, EffectiveAllocation, Cluster]:
    """Jobs of ~100 tasks (80 % maps, 20 % reduces) arriving to 6 queues at ~90 % load."""
    rng = np.random.default_rng(seed)
    per_job = 100
    n_jobs = max(1, n_tasks // per_job)
    containers = 2000
    mean_task_s = 20.0
    # Offered load 90 % of the cluster's memory: a reduce asks for two containers' worth.
    mean_task_mb = 0.8 * 1024.0 + 0.2 * 2048.0
    span = n_jobs * per_job * mean_task_s * mean_task_mb / (0.9 * containers * 1024.0)
    submit = np.sort(rng.uniform(0, span, n_jobs)).round(1)
    queues = np.array([f"root.q{i}" for i in range(6)])
    # Ids are built as Arrow strings: no Python object per task on the way in.
    job_ids = pc.binary_join_element_wise("job_", _padded(np.arange(n_jobs), 8), "")
    jobs = pd.DataFrame(
        {
            "job_id": pd.array(job_ids, dtype="string"),
            "queue": queues[rng.integers(0, 6, n_jobs)],
            "submit_s": submit,
            "user": np.char.add("u", rng.integers(0, 20, n_jobs).astype(str)),
        }
    )
    n = n_jobs * per_job
    job_of = pa.array(np.repeat(np.arange(n_jobs), per_job))
    k = np.tile(np.arange(per_job), n_jobs)
    is_map = k < 80
    task_job_ids = job_ids.take(job_of)
    task_ids = pc.binary_join_element_wise(task_job_ids, _padded(k, 3), "_")
    del job_of
    tasks = pd.DataFrame(
        {
            "job_id": pd.array(task_job_ids, dtype="string"),
            "task_id": pd.array(task_ids, dtype="string"),
            "stage": pd.array(
                pa.array(["map", "reduce"]).take((~is_map).view(np.int8)), dtype="string"
            ),
            "stage_index": np.where(is_map, 1, 2),
            "priority": np.where(is_map, 20, 10),
            "duration_s": rng.lognormal(np.log(mean_task_s) - 0.5, 1.0, n).round(1),
            "memory_mb": np.where(is_map, 1024.0, 2048.0),
            "vcores": np.ones(n),
        }
    )
    del task_job_ids, task_ids, k, is_map
    leaves = tuple(
        EffectiveQueue(
            str(q),
            weight=float(1 + i % 3),
            min_resources=Resources(200 * 1024.0, 200.0) if i < 2 else Resources(0.0, 0.0),
            min_share_preemption_timeout_s=15.0,
            fair_share_preemption_timeout_s=30.0,
        )
        for i, q in enumerate(queues)
    )
    allocation = EffectiveAllocation(root=EffectiveQueue("root", children=leaves))
    cluster = Cluster(memory_mb=containers * 1024.0, vcores=float(containers))
    if nodes:
        per = containers / nodes
        cluster = Cluster.parse(f"nodes={nodes},memory-mb={per * 1024.0:g},vcores={per:g}")
    return Workload(jobs=jobs, tasks=tasks), allocation, cluster


def _peak_mib() -> float:
    """The process's peak resident memory so far, MiB (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1_000_000)
    parser.add_argument("--engine", choices=["numba", "reference"], default="numba")
    parser.add_argument("--hadoop-version", type=int, choices=[1, 2, 3], default=3)
    parser.add_argument("--nodes", type=int, default=0, help="split the cluster into N nodes")
    parser.add_argument("--repeat", type=int, default=0, help="N more runs, CPU rates")
    parser.add_argument(
        "--digest", action="store_true", help="print a SHA-256 of the whole predicted schedule"
    )
    args = parser.parse_args(argv)
    settings = SchedulerSettings(preemption=True, hadoop_version=args.hadoop_version)

    t0 = time.perf_counter()
    if args.engine == "numba":
        # Cold start: JIT compile, or load the cache, by running a tiny workload.
        small, alloc_small, cluster_small = synthetic(200)
        Simulation(small, alloc_small, cluster_small, settings=settings).run_to_end()
    cold = time.perf_counter() - t0
    peaks = {"cold_start": _peak_mib()}
    t0 = time.perf_counter()
    workload, allocation, cluster = synthetic(args.tasks, nodes=args.nodes)
    build = time.perf_counter() - t0
    peaks["build_workload"] = _peak_mib()
    t0 = time.perf_counter()
    sim = Simulation(workload, allocation, cluster, settings=settings, engine=args.engine)
    packing = time.perf_counter() - t0
    peaks["pack"] = _peak_mib()
    t0 = time.perf_counter()
    sim.advance_to(float("inf"))
    simulate = time.perf_counter() - t0
    peaks["simulate"] = _peak_mib()
    t0 = time.perf_counter()
    # As predict() does: the run is over, so the engine's arrays go before the table is built.
    schedule = sim._final_schedule()
    unpack = time.perf_counter() - t0
    peaks["unpack"] = _peak_mib()
    killed = int(schedule.attempts["preempted"].sum())
    n = workload.n_tasks
    print(
        f"engine={args.engine} hadoop_version={args.hadoop_version} tasks={n} jobs={workload.n_jobs}"
        f" nodes={len(cluster.nodes)}"
    )
    print(
        f"attempts={schedule.n_attempts} preempted={killed} unfinished_jobs={int(schedule.jobs['finish_s'].isna().sum())}"
    )
    print(
        f"cold_start_s={cold:.2f} build_workload_s={build:.2f} pack_s={packing:.2f} simulate_s={simulate:.2f} unpack_s={unpack:.2f}"
    )
    print(f"tasks_per_s={n / simulate:.0f}")
    print(f"end_to_end_tasks_per_s={n / (packing + simulate + unpack):.0f}")
    print(f"peak_rss_mib={_peak_mib():.0f}")
    print("peak_rss_mib_by_phase_end " + " ".join(f"{k}={v:.0f}" for k, v in peaks.items()))
    if args.digest:
        print(f"schedule_sha256={_digest(schedule)}")
    if args.repeat > 0:
        del schedule
        rates = _cpu_rates(workload, allocation, cluster, settings, args.engine, args.repeat)
        print("tasks_per_s_cpu_runs=" + ",".join(f"{r:.0f}" for r in rates))
        print(f"tasks_per_s_cpu_median={float(np.median(rates)):.0f} best={max(rates):.0f}")
    sys.stdout.flush()


def _digest(schedule: Schedule) -> str:
    """SHA-256 of every column of the schedule's attempts and jobs: equal digests, equal
    schedules, which is how a kernel change shows it kept every decision."""
    sha = hashlib.sha256()
    for table in (schedule.attempts, schedule.jobs):
        for name in table.columns:
            sha.update(name.encode())
            values = table[name].to_numpy()
            if values.dtype == object:
                sha.update("\x00".join(map(str, values)).encode())
            else:
                sha.update(np.ascontiguousarray(values).tobytes())
    return sha.hexdigest()


def _cpu_rates(
    workload: Workload,
    allocation: EffectiveAllocation,
    cluster: Cluster,
    settings: SchedulerSettings,
    engine: str,
    runs: int,
) -> list[float]:
    """Tasks per CPU second of `runs` more simulations of the same workload."""
    rates = []
    for _ in range(runs):
        sim = Simulation(workload, allocation, cluster, settings=settings, engine=engine)
        t0 = time.process_time()
        sim.advance_to(float("inf"))
        rates.append(workload.n_tasks / (time.process_time() - t0))
        del sim
    return rates


if __name__ == "__main__":
    main()
