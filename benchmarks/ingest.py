"""Ingest benchmark: how fast, and in how much memory, each reader loads a large trace.

    python benchmarks/ingest.py                    # 200,000 tasks (quick)
    python benchmarks/ingest.py --tasks 10000000   # the full 10-million-task run

A synthetic trace (`--tasks` tasks, `--tasks-per-job` per job, 80% maps and 20%
reduces, one attempt per task) is written in a temporary directory as a native
Parquet trace, an SLS file, a Rumen file and a directory of ``.jhist`` files
(`--formats` picks a subset). Each format is then read by ``read_trace`` in a fresh
Python process, which reports tasks/s and its peak resident memory (ru_maxrss,
so it includes the ~150 MB interpreter + numpy/pandas baseline).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ("native", "sls", "rumen", "jhist")
NS = "org.apache.hadoop.mapreduce.jobhistory."


def _plan(tasks: int, per_job: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per job: submit ms, number of maps, number of reduces."""
    rng = np.random.default_rng(seed)
    jobs = max(1, tasks // per_job)
    counts = np.full(jobs, tasks // jobs)
    counts[: tasks - counts.sum()] += 1
    maps = np.maximum(1, (counts * 0.8).astype(int))
    reduces = counts - maps
    submit = np.cumsum(rng.exponential(5000, size=jobs)).astype(np.int64) + 1_600_000_000_000
    return submit, maps, reduces


def _task_times(rng: np.random.Generator, start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    begin = start + rng.integers(1000, 60000, size=n)
    return begin, begin + rng.integers(5000, 120000, size=n)


def write_sls(path: Path, plan, seed: int) -> None:
    rng = np.random.default_rng(seed)
    with open(path, "w") as out:
        for j, (submit, maps, reduces) in enumerate(zip(*plan, strict=True)):
            begin, end = _task_times(rng, 0, maps + reduces)
            tasks = [
                {
                    "container.host": f"/r/n{k % 100}",
                    "container.start.ms": int(b),
                    "container.end.ms": int(e),
                    "container.priority": 20 if k < maps else 10,
                    "container.type": "map" if k < maps else "reduce",
                }
                for k, (b, e) in enumerate(zip(begin, end, strict=True))
            ]
            out.write(
                json.dumps(
                    {
                        "am.type": "mapreduce",
                        "job.start.ms": int(submit) - 1_600_000_000_000,
                        "job.end.ms": int(end.max()),
                        "job.queue.name": f"q{j % 4}",
                        "job.id": f"job_{j}",
                        "job.user": "u",
                        "job.tasks": tasks,
                    }
                )
                + "\n"
            )


def _rumen_task(j: int, k: int, kind: str, number: int, begin: int, end: int) -> dict:
    letter = "m" if kind == "MAP" else "r"
    tid = f"task_1_{j:07d}_{letter}_{number:06d}"
    attempt = {
        "attemptID": "attempt" + tid[4:] + "_0",
        "startTime": begin,
        "finishTime": end,
        "result": "SUCCESS",
        "hostName": f"/r/n{k % 100}",
    }
    return {
        "taskID": tid,
        "taskType": kind,
        "startTime": begin,
        "finishTime": end,
        "taskStatus": "SUCCESS",
        "attempts": [attempt],
    }


def write_rumen(path: Path, plan, seed: int) -> None:
    rng = np.random.default_rng(seed)
    with open(path, "w") as out:
        for j, (submit, maps, reduces) in enumerate(zip(*plan, strict=True)):
            begin, end = _task_times(rng, int(submit), maps + reduces)
            tasks = [
                _rumen_task(
                    j,
                    k,
                    "MAP" if k < maps else "REDUCE",
                    k if k < maps else k - maps,
                    int(begin[k]),
                    int(end[k]),
                )
                for k in range(maps + reduces)
            ]
            out.write(
                json.dumps(
                    {
                        "jobID": f"job_1_{j:07d}",
                        "user": "u",
                        "jobName": "bench",
                        "queue": f"q{j % 4}",
                        "submitTime": int(submit),
                        "launchTime": int(submit) + 500,
                        "finishTime": int(end.max()),
                        "outcome": "SUCCESS",
                        "jobMapMB": 1024,
                        "jobReduceMB": 2048,
                        "mapTasks": tasks[:maps],
                        "reduceTasks": tasks[maps:],
                    }
                )
                + "\n"
            )


def write_jhist(directory: Path, plan, seed: int) -> None:
    rng = np.random.default_rng(seed)
    directory.mkdir()
    schema = json.dumps({"type": "record", "name": "Event", "fields": []})

    def event(kind: str, record: str, **fields) -> str:
        return json.dumps({"type": kind, "event": {NS + record: fields}})

    for j, (submit, maps, reduces) in enumerate(zip(*plan, strict=True)):
        begin, end = _task_times(rng, int(submit), maps + reduces)
        job_id = f"job_1_{j:07d}"
        lines = [
            "Avro-Json",
            schema,
            event(
                "JOB_SUBMITTED",
                "JobSubmitted",
                jobid=job_id,
                jobName="bench",
                userName="u",
                submitTime=int(submit),
                jobQueueName=f"q{j % 4}",
            ),
        ]
        for k in range(maps + reduces):
            is_map = k < maps
            kind, letter, number = ("MAP", "m", k) if is_map else ("REDUCE", "r", k - maps)
            tid = f"task_1_{j:07d}_{letter}_{number:06d}"
            aid = "attempt" + tid[4:] + "_0"
            b, e = int(begin[k]), int(end[k])
            lines.append(
                event("TASK_STARTED", "TaskStarted", taskid=tid, taskType=kind, startTime=b)
            )
            lines.append(
                event(
                    f"{kind}_ATTEMPT_STARTED",
                    "TaskAttemptStarted",
                    taskid=tid,
                    taskType=kind,
                    attemptId=aid,
                    startTime=b,
                    trackerName=f"n{k % 100}",
                )
            )
            if is_map:
                lines.append(
                    event(
                        "MAP_ATTEMPT_FINISHED",
                        "MapAttemptFinished",
                        taskid=tid,
                        attemptId=aid,
                        taskType=kind,
                        taskStatus="SUCCEEDED",
                        finishTime=e,
                        hostname=f"n{k % 100}",
                    )
                )
            else:
                lines.append(
                    event(
                        "REDUCE_ATTEMPT_FINISHED",
                        "ReduceAttemptFinished",
                        taskid=tid,
                        attemptId=aid,
                        taskType=kind,
                        taskStatus="SUCCEEDED",
                        shuffleFinishTime=(b + e) // 2,
                        sortFinishTime=(b + e) // 2,
                        finishTime=e,
                        hostname=f"n{k % 100}",
                    )
                )
            lines.append(
                event(
                    "TASK_FINISHED",
                    "TaskFinished",
                    taskid=tid,
                    taskType=kind,
                    finishTime=e,
                    status="SUCCEEDED",
                )
            )
        lines.append(event("JOB_FINISHED", "JobFinished", jobid=job_id, finishTime=int(end.max())))
        (directory / f"{job_id}.jhist").write_text("\n".join(lines) + "\n")


def write_native_trace(path: Path, sls_path: Path | None, plan, seed: int) -> None:
    """The native trace: built column-wise (not via another reader) so it scales alone."""
    from whatif import Trace, Workload
    from whatif.readers import write_native

    submit, maps, reduces = plan
    counts = maps + reduces
    rng = np.random.default_rng(seed)
    owner = np.repeat(np.arange(len(counts)), counts)
    rank = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    is_map = rank < maps[owner]
    job_ids = np.array([f"job_{j}" for j in range(len(counts))], dtype=object)
    jobs = pd.DataFrame(
        {
            "job_id": pd.array(job_ids, dtype="string"),
            "queue": pd.array([f"root.q{j % 4}" for j in range(len(counts))], dtype="string"),
            "submit_s": submit / 1000.0,
        }
    )
    task_ids = np.char.add(
        np.char.add(job_ids[owner].astype(str), np.where(is_map, "_m_", "_r_")), rank.astype(str)
    )
    tasks = pd.DataFrame(
        {
            "job_id": pd.array(job_ids[owner], dtype="string"),
            "task_id": pd.array(task_ids, dtype="string"),
            "stage": pd.array(np.where(is_map, "map", "reduce"), dtype="string"),
            "duration_s": rng.uniform(5, 120, size=len(owner)),
            "memory_mb": np.where(is_map, 1024.0, 2048.0),
            "vcores": 1.0,
        }
    )
    write_native(Trace(workload=Workload(jobs=jobs, tasks=tasks)), path)


def read_one(fmt: str, path: str) -> None:
    """Child process: read one trace and print tasks, seconds and peak RSS as JSON."""
    from whatif.readers import read_trace

    start = time.perf_counter()
    trace = read_trace(path, format=fmt)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"tasks": trace.workload.n_tasks, "seconds": seconds, "peak_mb": peak_mb}))


def main() -> None:
    parser = argparse.ArgumentParser(description="Trace ingest benchmark")
    parser.add_argument("--tasks", type=int, default=200_000)
    parser.add_argument("--tasks-per-job", type=int, default=200)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--read", nargs=2, metavar=("FORMAT", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.read:
        read_one(*args.read)
        return
    formats = [f for f in args.formats.split(",") if f]
    plan = _plan(args.tasks, args.tasks_per_job, args.seed)
    print(f"{args.tasks:,} tasks in {len(plan[0]):,} jobs")
    with tempfile.TemporaryDirectory(prefix="tempo-ingest-") as tmp:
        paths = {
            "native": Path(tmp) / "native",
            "sls": Path(tmp) / "sls.json",
            "rumen": Path(tmp) / "rumen.json",
            "jhist": Path(tmp) / "jhist",
        }
        writers = {
            "native": lambda p: write_native_trace(p, None, plan, args.seed),
            "sls": lambda p: write_sls(p, plan, args.seed),
            "rumen": lambda p: write_rumen(p, plan, args.seed),
            "jhist": lambda p: write_jhist(p, plan, args.seed),
        }
        print(
            f"{'format':<8} {'write s':>8} {'size MB':>9} {'read s':>8} {'tasks/s':>10} {'peak MB':>9}"
        )
        for fmt in formats:
            start = time.perf_counter()
            writers[fmt](paths[fmt])
            written = time.perf_counter() - start
            target = paths[fmt]
            size = (
                sum(p.stat().st_size for p in target.rglob("*"))
                if target.is_dir()
                else target.stat().st_size
            )
            result = subprocess.run(
                [sys.executable, __file__, "--read", fmt, str(target)],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            )
            r = json.loads(result.stdout.strip().splitlines()[-1])
            assert r["tasks"] == args.tasks, r
            print(
                f"{fmt:<8} {written:>8.1f} {size / 2**20:>9.1f} {r['seconds']:>8.2f} "
                f"{r['tasks'] / r['seconds']:>10,.0f} {r['peak_mb']:>9,.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
