"""Build the sample traces in ``traces/`` (reproducible: fixed seeds, fixed inputs).

    python benchmarks/make_traces.py [--data ../shared/data] [--out traces]

- ``two-tenant/``: SWIM FB-2009 as the deadline-driven ``root.prod`` queue and a
  seeded 1-in-15 sample of SWIM FB-2010 as the best-effort ``root.engineer`` queue,
  both over the first 2 hours of their samples (see `two_tenant`).
- ``contended/``: SWIM FB-2009 split by job size into a deadline-driven and a
  best-effort tenant on a small cluster (see `contended`).
- ``six-tenant/``: a synthetic workload shaped like Table 1 of the Tempo paper
  (BI, DEV, APP, STR, MV, ETL; see `six_tenant`).
- Both samples carry a *recorded run* as their observed schedule: the workload
  simulated once under its expert allocation file on the cluster it is meant for, with
  preemption on and seeded task failures, stragglers and duration jitter (see
  `recorded_run` and `SAMPLES`). It is a simulated recording, not a real cluster run.
- ``hadoop/{jhist,sls,rumen,rest}/``: the Apache Hadoop samples in ../shared/data
  converted to native traces.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from whatif import Cluster, Schedule, Trace, Workload
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.predictor import TYPICAL_NOISE, SchedulerSettings, predict
from whatif.readers import read_trace, write_native

ROOT = Path(__file__).resolve().parents[1]

#: Two-tenant build parameters (documented in traces/README.md).
TWO_TENANT = {
    "seed": 2009,
    "window_s": (0.0, 2 * 3600.0),
    "engineer_fraction": 1 / 15,
    "block_size_mb": 512.0,
    "reduce_mb_per_task": 2048.0,
    "max_tasks_per_stage": 500,
    "max_job_bytes": 2 * 10**12,
}


#: Two-tenant queues in build order: (queue, SWIM sample file, job id prefix); the
#: k-th is expanded with seed ``seed + k``.
TWO_TENANT_SOURCES = (
    ("prod", "FB-2009_samples_24_times_1hr_0.tsv", "fb09-"),
    ("engineer", "FB-2010_samples_24_times_1hr_0.tsv", "fb10-"),
)


def swim_tenant(path: Path, queue: str, prefix: str, *, seed: int) -> Workload:
    """One tenant of the two-tenant sample: a SWIM file expanded into tasks as queue `queue`."""
    return read_trace(
        path,
        format="swim",
        seed=seed,
        queue=queue,
        job_prefix=prefix,
        user=queue,
        window_s=TWO_TENANT["window_s"],
        block_size_mb=TWO_TENANT["block_size_mb"],
        reduce_mb_per_task=TWO_TENANT["reduce_mb_per_task"],
        max_tasks_per_stage=TWO_TENANT["max_tasks_per_stage"],
    ).workload


def two_tenant(data: Path, *, seed: int = TWO_TENANT["seed"]) -> Trace:
    """root.prod from SWIM FB-2009 and a sample of FB-2010 as root.engineer, first 2 hours.

    Jobs moving more than ``max_job_bytes`` in total (input + shuffle + output; a few
    multi-terabyte jobs whose capped tasks would each run for days) are left out.
    """
    prod, engineer = (
        swim_tenant(data / "swim" / file, queue, prefix, seed=seed + k)
        for k, (queue, file, prefix) in enumerate(TWO_TENANT_SOURCES)
    )
    rng = np.random.default_rng(seed)
    engineer = engineer.select_jobs(rng.random(engineer.n_jobs) < TWO_TENANT["engineer_fraction"])
    prod, engineer = (
        w.select_jobs(
            (w.jobs["input_bytes"] + w.jobs["shuffle_bytes"] + w.jobs["output_bytes"]).to_numpy()
            <= TWO_TENANT["max_job_bytes"]
        )
        for w in (prod, engineer)
    )
    jobs = pd.concat([prod.jobs, engineer.jobs], ignore_index=True)
    # Recurring keys are per tenant: the same byte triple in two tenants is two job families.
    jobs["recurring_key"] = jobs["recurring_key"].where(
        jobs["recurring_key"] == "", jobs["queue"] + "/" + jobs["recurring_key"]
    )
    tasks = pd.concat([prod.tasks, engineer.tasks], ignore_index=True)
    note = (
        f"two-tenant SWIM sample: FB-2009 -> root.prod, 1/15 of FB-2010 -> root.engineer, "
        f"submits in [0, 2h), jobs over 2 TB left out, seed {seed}; deadlines not set yet"
    )
    return Trace(workload=Workload(jobs=jobs, tasks=tasks), format="swim", notes=(note,))


#: Contended sample build parameters (documented in traces/README.md).
CONTENDED = {
    "seed": 7,
    "window_s": (0.0, 3 * 3600.0),
    "max_job_bytes": 10**11,
    "map_mb_s": 5.0,
    "reduce_mb_s": 5.0,
    "deadline_fraction": 0.5,
}


def _by_size(jobs: pd.DataFrame) -> np.ndarray:
    """The larger half of the jobs by bytes read and shuffled is the deadline tenant."""
    size = (jobs["input_bytes"] + jobs["shuffle_bytes"]).rank(pct=True).to_numpy()
    return np.where(size > 1 - CONTENDED["deadline_fraction"], "deadline", "besteffort")


def contended(data: Path, *, seed: int = CONTENDED["seed"]) -> Trace:
    """SWIM FB-2009's first 3 hours split by job size into root.deadline and root.besteffort.

    Jobs moving more than 100 GB (1.6% of the file) are left out: each brings hours of
    capped tasks, and with them the two 90-minute halves (the tuning and the held-out
    window of benchmarks/scenarios.py) carry about the same load (24 busy slots).
    The heavy half of the jobs (by input + shuffle bytes) is the deadline-driven tenant,
    the rest best effort: on 40 slots/containers the deadline tenant alone keeps the
    cluster busy, so how much of it the allocation file reserves decides the best-effort
    tenant's response times (the paper's 8.2.1 mix, contended).
    """
    workload = read_trace(
        data / "swim" / "FB-2009_samples_24_times_1hr_0.tsv",
        format="swim",
        seed=seed,
        queue=_by_size,
        job_prefix="fb09-",
        window_s=CONTENDED["window_s"],
        map_mb_s=CONTENDED["map_mb_s"],
        reduce_mb_s=CONTENDED["reduce_mb_s"],
    ).workload
    moved = (workload.jobs["input_bytes"] + workload.jobs["shuffle_bytes"]
             + workload.jobs["output_bytes"]).to_numpy()  # fmt: skip
    workload = workload.select_jobs(moved <= CONTENDED["max_job_bytes"])
    jobs = workload.jobs.copy()
    jobs["user"] = jobs["queue"].str.removeprefix("root.")
    note = (
        f"contended SWIM sample: FB-2009 submits in [0, 3h), jobs over 100 GB left out (their "
        f"few hours-long tasks would make one window unlike the next), the larger half by input+shuffle "
        f"bytes -> root.deadline, the rest -> root.besteffort, map/reduce {CONTENDED['map_mb_s']:g} "
        f"MiB/s, seed {seed}; deadlines are stated in the templates (deadline=+1h)"
    )
    return Trace(workload=Workload(jobs=jobs, tasks=workload.tasks), format="swim", notes=(note,))


#: The fields of a `SIX_TENANTS` row, in the order the table below gives them.
_TENANT_FIELDS = ("rate", "maps", "reduces", "map_s", "reduce_s", "map_mb", "reduce_mb", "vcores")

#: Table 1 tenants: (jobs/hour, maps lognormal (median, sigma), reduce fraction of maps,
#: map s (median, sigma), reduce s (median, sigma), map MB, reduce MB, vcores).
SIX_TENANTS: dict[str, dict] = {
    name: dict(zip(_TENANT_FIELDS, row, strict=True))
    for name, row in {
        # I/O-intensive SQL: many maps that scan, short reduces, business-hours arrivals
        "bi": (30, (60, 0.8), 0.1, (25, 0.4), (40, 0.4), 1024, 2048, 1),
        # a mixture of job types: widest size spread
        "dev": (30, (20, 1.5), 0.25, (30, 0.9), (60, 0.9), 1024, 2048, 1),
        # small, lightweight jobs, often
        "app": (50, (3, 0.5), 0.3, (8, 0.3), (10, 0.3), 1024, 1024, 1),
        # Hadoop streaming: external processes make maps slower and hungrier
        "str": (15, (30, 0.7), 0.2, (90, 0.5), (120, 0.5), 2048, 2048, 1),
        # long-running, CPU-intensive materialized views: long tasks, heavy reduces
        "mv": (4, (80, 0.5), 0.5, (300, 0.4), (900, 0.4), 2048, 4096, 2),
        # I/O-intensive ETL, periodic but bursty: a burst of recurring jobs every 30 minutes
        "etl": (None, (100, 0.6), 0.2, (20, 0.4), (60, 0.4), 1024, 2048, 1),
    }.items()
}
SIX_TENANT_SPAN_S = 4 * 3600.0
SIX_TENANT_SEED = 2016
ETL_PERIOD_S = 1800.0
ETL_FAMILIES = 8


def six_tenant(*, seed: int = SIX_TENANT_SEED, span_s: float = SIX_TENANT_SPAN_S) -> Trace:
    """A seeded synthetic workload with the six tenants of the Tempo paper's Table 1.

    Arrivals are Poisson at each tenant's rate except ETL, which submits its
    ``ETL_FAMILIES`` recurring jobs in a burst (jittered by up to 2 minutes) every
    ``ETL_PERIOD_S``; MV and ETL jobs get recurring keys (their job family).
    Map counts are lognormal, reduces a fraction of the maps, task durations
    lognormal per stage; sizes per tenant are in `SIX_TENANTS`.
    """
    rng = np.random.default_rng(seed)
    job_rows: list[dict] = []
    task_frames: list[pd.DataFrame] = []
    for tenant, spec in SIX_TENANTS.items():
        if spec["rate"] is None:
            periods = np.arange(0.0, span_s, ETL_PERIOD_S)
            submits = (
                periods[:, None] + rng.uniform(0, 120, size=(len(periods), ETL_FAMILIES))
            ).ravel()
            families = np.tile(np.arange(ETL_FAMILIES), len(periods))
        else:
            count = rng.poisson(spec["rate"] * span_s / 3600.0)
            submits = np.sort(rng.uniform(0.0, span_s, size=count))
            families = rng.integers(0, 6, size=count) if tenant == "mv" else None
        # Recurring families reuse one size so their runs are alike.
        n = len(submits)
        family_maps = np.maximum(
            1, np.round(rng.lognormal(np.log(spec["maps"][0]), spec["maps"][1], size=n))
        )
        if families is not None:
            per_family = np.maximum(
                1,
                np.round(
                    rng.lognormal(np.log(spec["maps"][0]), spec["maps"][1], size=families.max() + 1)
                ),
            )
            family_maps = per_family[families]
        maps = np.minimum(family_maps, 400).astype(int)
        reduces = np.where(rng.random(n) < 0.8, np.ceil(maps * spec["reduces"]), 0).astype(int)
        for j in range(n):
            job_id = f"{tenant}-{j:04d}"
            key = "" if families is None else f"{tenant}-family-{families[j]}"
            job_rows.append(
                {
                    "job_id": job_id,
                    "queue": f"root.{tenant}",
                    "submit_s": float(submits[j]),
                    "user": tenant,
                    "name": key or job_id,
                    "recurring_key": key,
                }
            )
            stage = np.array(["map"] * maps[j] + ["reduce"] * reduces[j])
            is_map = stage == "map"
            med = np.where(is_map, spec["map_s"][0], spec["reduce_s"][0])
            sig = np.where(is_map, spec["map_s"][1], spec["reduce_s"][1])
            durations = rng.lognormal(np.log(med), sig)
            letters = np.where(is_map, "m", "r")
            numbers = np.where(is_map, np.arange(len(stage)), np.arange(len(stage)) - maps[j])
            task_frames.append(
                pd.DataFrame(
                    {
                        "job_id": job_id,
                        "task_id": [
                            f"{job_id}_{c}_{k:05d}" for c, k in zip(letters, numbers, strict=True)
                        ],
                        "stage": stage,
                        "duration_s": np.round(durations, 3),
                        "memory_mb": np.where(is_map, spec["map_mb"], spec["reduce_mb"]).astype(
                            float
                        ),
                        "vcores": float(spec["vcores"]),
                    }
                )
            )
    jobs = pd.DataFrame(job_rows)
    tasks = pd.concat(task_frames, ignore_index=True)
    note = f"six-tenant synthetic workload shaped like Tempo (VLDB 2016) Table 1, seed {seed}, {span_s / 3600:g} h"
    return Trace(workload=Workload(jobs=jobs, tasks=tasks), format="synthetic", notes=(note,))


#: The recorded run's scheduler: Hadoop 3 Fair Scheduler defaults with preemption on,
#: as the expert files assume.
RECORDED_SETTINGS = SchedulerSettings(preemption=True)
#: The recorded run's noise: 2% of attempts fail (retried, at most 4 attempts), 3% of
#: tasks straggle 3x longer, every duration gets a mean-1 lognormal factor with CV 0.2.
RECORDED_NOISE = TYPICAL_NOISE
#: Each sample: how its workload is built (from the data directory), and its recorded
#: run's expert allocation file (relative to the repository), the cluster it is meant
#: for (the one ``tempo tune``'s demo and benchmarks/optimize.py use) and noise seed.
SAMPLES: dict[str, dict[str, object]] = {
    "two-tenant": {
        "build": two_tenant,
        "config": "configs/two-tenant-expert.xml",
        "cluster": "nodes=24,memory-mb=8192,vcores=8",
        "seed": TWO_TENANT["seed"],
    },
    "contended": {
        "build": contended,
        "config": "configs/contended-expert.xml",
        "cluster": "nodes=5,memory-mb=8192,vcores=8",
        "seed": CONTENDED["seed"],
    },
    "six-tenant": {
        "build": lambda data: six_tenant(),
        "config": "configs/six-tenant-expert.xml",
        "cluster": "nodes=100,memory-mb=8192,vcores=8",
        "seed": SIX_TENANT_SEED,
    },
}


def _up_to_millisecond(seconds: np.ndarray) -> np.ndarray:
    """Each time rounded up to a whole millisecond (never below the time; NaN stays NaN)."""
    return np.maximum(np.ceil(seconds * 1000.0) / 1000.0, seconds)


def recorded_run(trace: Trace, config: Path, cluster: str, *, seed: int) -> Trace:
    """`trace` with a simulated recording as its observed schedule.

    The workload is replayed once by the predictor under allocation file `config` on
    `cluster`, with `RECORDED_SETTINGS` and `RECORDED_NOISE` seeded by `seed`, so the
    schedule has what a real run has and a noise-free prediction lacks: failed and
    retried attempts, stragglers, jittered durations, preempted containers. The
    workload (its nominal task durations) is unchanged.
    """
    schedule = predict(
        trace.workload,
        effective_allocation(AllocationDocument.from_file(config)),
        Cluster.parse(cluster),
        settings=RECORDED_SETTINGS,
        seed=seed,
        noise=RECORDED_NOISE,
    )
    # Millisecond timestamps, as YARN records them (and a smaller file). Rounding up is
    # monotone and never earlier than the simulated time, so no attempt starts before
    # its job's (exact) submission and no two attempts overlap that did not.
    jobs, attempts = schedule.jobs.copy(), schedule.attempts.copy()
    for frame, columns in ((jobs, ("launch_s", "finish_s")), (attempts, ("start_s", "finish_s"))):
        for column in columns:
            frame[column] = _up_to_millisecond(frame[column].to_numpy())
    schedule = Schedule(jobs=jobs, attempts=attempts)
    unfinished = schedule.jobs["finish_s"].isna().to_numpy()
    if unfinished.any():
        raise RuntimeError(
            f"recorded run of {config.name} on {cluster}: {int(unfinished.sum())} jobs never "
            "finish; a sample's recording must finish every job"
        )
    n = RECORDED_NOISE
    note = (
        f"observed schedule: a simulated recording, not a real cluster run: tempo's predictor "
        f"replayed this workload once under {config.name} on {cluster}, preemption on, "
        f"{n.failure_probability:.0%} attempt failures (at most {n.max_attempts} attempts), "
        f"{n.straggler_probability:.0%} stragglers x{n.straggler_factor:g}, "
        f"duration jitter CV {n.jitter_cv:g}, seed {seed} "
        "(benchmarks/make_traces.py recorded_run)"
    )
    return dataclasses.replace(trace, observed=schedule, notes=(*trace.notes, note))


def sample(name: str, data: Path) -> Trace:
    """The bundled sample `name` (a key of `SAMPLES`): its workload and its recorded run."""
    spec = SAMPLES[name]
    trace = spec["build"](data)
    return recorded_run(
        trace, ROOT / str(spec["config"]), str(spec["cluster"]), seed=int(spec["seed"])
    )


def hadoop_samples(data: Path) -> dict[str, Trace]:
    """The Apache Hadoop sample traces in ../shared/data, read with their readers."""
    hadoop = data / "hadoop"
    return {
        "jhist": read_trace(hadoop / "jhist"),
        "sls": read_trace(hadoop / "sls" / "inputsls.json"),
        "rumen": read_trace(hadoop / "rumen" / "2jobs2min-rumen-jh.json"),
        "rest": read_trace(hadoop / "rest"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "traces")
    args = parser.parse_args()
    out: Path = args.out
    for name in SAMPLES:
        trace = sample(name, args.data)
        path = write_native(trace, out / name, overwrite=True)
        print(f"{path}: {trace.workload} {trace.observed}")
    for name, trace in hadoop_samples(args.data).items():
        path = write_native(trace, out / "hadoop" / name, overwrite=True)
        print(f"{path}: {trace.workload} {trace.observed}")
    for notice in ("LICENSE.txt", "NOTICE.txt"):
        shutil.copyfile(args.data / "hadoop" / notice, out / "hadoop" / notice)


if __name__ == "__main__":
    main()
