"""Scale benchmark: a large SLS job file through reading, the predictor, QS metrics and `tempo predict`.

    python benchmarks/scale.py                     # ~1M tasks (the issue 22 figure)
    python benchmarks/scale.py --tasks 200000      # quicker
    python benchmarks/scale.py --keep /tmp/big.json   # keep the generated file

The bundled ``traces/two-tenant`` sample (414 jobs, 6,359 tasks, its observed
schedule as each task's start and end) is replicated back to back in time, copy
``k`` shifted by ``k`` times the sample's span and its job ids suffixed ``-c<k>``,
until the file holds at least ``--tasks`` tasks. The file is written under /tmp (one
job object per line, as SLS generators write them; ``--pretty`` indents them) and
deleted at the end unless ``--keep`` names where to leave it.

Each stage runs in a fresh Python process that reports its seconds and its peak
resident memory (``ru_maxrss``, which includes the ~150 MB interpreter + numpy +
pandas baseline):

- ``json``: Python's stdlib ``json`` decoding every object of the file (the yardstick
  of issue 22: the whole ``tempo predict`` should take at most 4 times this);
- ``parse``: ``read_trace`` minus the time in the Workload/Schedule constructors;
- ``columns``: the Workload and Schedule constructors (normalize, validate, sort);
- ``predict``: ``whatif.predictor.predict`` on the read workload (numba engine, cache warm);
- ``metrics``: ``tempo.qs.qs_report`` of observed against predicted, all base metrics;
- ``tempo predict``: the whole CLI process, as a user runs it.

Peak RSS of parse/columns/predict/metrics is the process's peak at the end of that
stage (they run one after another in one process), so the stage that raised it shows.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "traces" / "two-tenant"
CONFIG = ROOT / "configs" / "two-tenant-expert.xml"
CLUSTER = "nodes=24,memory-mb=8192,vcores=8"
#: How the benchmark starts the CLI (the installed entry point, run by this Python).
TEMPO = (sys.executable, "-c", "import sys; from tempo.cli import main; sys.exit(main())")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def write_sls(path: Path, tasks: int, *, pretty: bool = False) -> tuple[int, int]:
    """Write the replicated sample as an SLS job file; returns (jobs, tasks) written."""
    import numpy as np

    from whatif.readers import read_trace

    trace = read_trace(SAMPLE)
    attempts = trace.observed.attempts
    done = attempts[attempts["state"] == "SUCCEEDED"].drop_duplicates("task_id", keep="last")
    times = done.set_index("task_id")[["start_s", "finish_s"]]
    t = trace.workload.tasks.join(times, on="task_id")
    t = t.assign(
        start_ms=np.round(t["start_s"].to_numpy() * 1000).astype(np.int64),
        end_ms=np.round(t["finish_s"].to_numpy() * 1000).astype(np.int64),
    )
    per_job: dict[str, list[tuple]] = {}
    for row in t[
        ["job_id", "stage", "start_ms", "end_ms", "memory_mb", "vcores", "priority"]
    ].itertuples(index=False):
        per_job.setdefault(row[0], []).append(row[1:])
    sjobs = trace.observed.jobs.set_index("job_id")
    span_ms = int(math.ceil(float(sjobs["finish_s"].max()) - float(sjobs["submit_s"].min()))) * 1000
    copies = max(1, math.ceil(tasks / len(t)))
    indent = 2 if pretty else None
    n_jobs = n_tasks = 0
    with open(path, "w", encoding="utf-8") as out:
        for copy in range(copies):
            shift = copy * span_ms
            for job in trace.workload.jobs.itertuples(index=False):
                rows = per_job[job.job_id]
                record = {
                    "am.type": "mapreduce",
                    "job.start.ms": int(round(job.submit_s * 1000)) + shift,
                    "job.end.ms": int(round(sjobs.at[job.job_id, "finish_s"] * 1000)) + shift,
                    "job.queue.name": job.queue,
                    "job.id": f"{job.job_id}-c{copy}",
                    "job.user": job.user,
                    "job.tasks": [
                        {
                            "container.host": f"/default-rack/node{(k % 24) + 1}",
                            "container.start.ms": int(s) + shift,
                            "container.end.ms": int(e) + shift,
                            "container.priority": int(p),
                            "container.type": stage,
                            "container.memory-mb": int(m),
                            "container.vcores": int(v),
                        }
                        for k, (stage, s, e, m, v, p) in enumerate(rows)
                    ],
                }
                out.write(json.dumps(record, indent=indent))
                out.write("\n")
                n_jobs += 1
                n_tasks += len(rows)
    return n_jobs, n_tasks


def stage_json(path: str) -> dict:
    """Decode every concatenated object with the stdlib (the issue's yardstick)."""
    begin = time.perf_counter()
    decoder = json.JSONDecoder()
    text = Path(path).read_text(encoding="utf-8")
    pos, n, end = 0, 0, len(text)
    while True:
        while pos < end and text[pos] in " \t\r\n":
            pos += 1
        if pos >= end:
            break
        _, pos = decoder.raw_decode(text, pos)
        n += 1
    return {"json": {"s": time.perf_counter() - begin, "peak_mb": _peak_mb(), "objects": n}}


def stage_pipeline(path: str) -> dict:
    """read (parse + columns), predict and metrics in one process, timed apart."""
    from tempo.qs import qs_report
    from whatif import Cluster
    from whatif.allocation import AllocationDocument
    from whatif.metrics import Window
    from whatif.predictor import predict
    from whatif.readers import read_trace
    from whatif.schedule import Schedule
    from whatif.workload import Workload

    constructors = [0.0]
    for cls in (Workload, Schedule):
        original = cls.__post_init__

        def timed(self, _original=original):
            begin = time.perf_counter()
            try:
                _original(self)
            finally:
                constructors[0] += time.perf_counter() - begin

        cls.__post_init__ = timed
    out: dict[str, dict] = {}
    begin = time.perf_counter()
    trace = read_trace(path, format="sls")
    read_s = time.perf_counter() - begin
    peak = _peak_mb()
    out["parse"] = {"s": read_s - constructors[0], "peak_mb": peak}
    out["columns"] = {"s": constructors[0], "peak_mb": peak}
    allocation = AllocationDocument.from_file(CONFIG).effective(hadoop_version=3)
    cluster = Cluster.parse(CLUSTER)
    begin = time.perf_counter()
    predicted = predict(trace.workload, allocation, cluster)
    out["predict"] = {"s": time.perf_counter() - begin, "peak_mb": _peak_mb()}
    begin = time.perf_counter()
    qs_report(
        trace.observed,
        [],
        window=Window.covering(trace.observed),
        cluster=cluster,
        workload=trace.workload,
        predicted=predicted,
    )
    out["metrics"] = {"s": time.perf_counter() - begin, "peak_mb": _peak_mb()}
    out["_tasks"] = {"n": trace.workload.n_tasks}
    return out


def stage_cli(path: str) -> dict:
    """The whole ``tempo predict`` process; this wrapper only waits for it."""
    command = [
        *TEMPO,
        "predict",
        "--trace",
        path,
        "--config",
        str(CONFIG),
        "--cluster",
        CLUSTER,
        "--json",
    ]
    begin = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - begin
    if done.returncode != 0:
        raise SystemExit(f"tempo predict failed ({done.returncode}): {done.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    return {"tempo predict": {"s": seconds, "peak_mb": peak}}


STAGES = {"json": stage_json, "pipeline": stage_pipeline, "cli": stage_cli}


def _run_stage(name: str, path: Path) -> dict:
    command = [sys.executable, __file__, "--stage", name, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"stage {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _warm_numba() -> None:
    """Compile (or load) the kernel once so that no stage pays for it."""
    subprocess.run(
        [
            *TEMPO,
            "predict",
            "--trace",
            str(SAMPLE),
            "--config",
            str(CONFIG),
            "--cluster",
            CLUSTER,
            "--json",
        ],
        capture_output=True,
        check=True,
        cwd=ROOT,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1_000_000)
    parser.add_argument("--pretty", action="store_true", help="Indent the job objects.")
    parser.add_argument("--keep", type=Path, help="Write the SLS file here and keep it.")
    parser.add_argument("--stage", choices=sorted(STAGES), help=argparse.SUPPRESS)
    parser.add_argument("file", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stage:
        print(json.dumps(STAGES[args.stage](args.file)))
        return
    with tempfile.TemporaryDirectory(prefix="tempo-scale-", dir="/tmp") as tmp:
        path = args.keep or Path(tmp) / "jobs.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        begin = time.perf_counter()
        n_jobs, n_tasks = write_sls(path, args.tasks, pretty=args.pretty)
        size_mb = os.path.getsize(path) / 1e6
        print(
            f"SLS file: {n_jobs:,} jobs, {n_tasks:,} tasks, {size_mb:,.0f} MB "
            f"(written in {time.perf_counter() - begin:.1f} s)"
        )
        _warm_numba()
        results: dict[str, dict] = {}
        for name in ("json", "pipeline", "cli"):
            results.update(_run_stage(name, path))
        results.pop("_tasks", None)
    print(f"{'stage':<16} {'seconds':>8} {'tasks/s':>12} {'peak MB':>9}")
    for name, r in results.items():
        rate = n_tasks / r["s"] if r["s"] > 0 else math.inf
        print(f"{name:<16} {r['s']:>8.2f} {rate:>12,.0f} {r['peak_mb']:>9,.0f}")
    ratio = results["tempo predict"]["s"] / results["json"]["s"]
    print(f"tempo predict / stdlib json parse: {ratio:.1f}x (issue 22 asks <= 4x)")


if __name__ == "__main__":
    main()
