"""Scale benchmark: a large trace file through reading, the predictor, QS metrics and `tempo predict`.

    python benchmarks/scale.py                     # ~1M tasks of SLS (the issue 22 figure)
    python benchmarks/scale.py --tasks 200000      # quicker
    python benchmarks/scale.py --keep /tmp/big.json   # keep the generated file
    python benchmarks/scale.py --keep /tmp/big.json --reuse   # time it again, not rewritten
    python benchmarks/scale.py --tasks 35000000 --keep F --write-only   # only write F
    python benchmarks/scale.py --format rumen      # 200k tasks of Rumen (~420 MB)
    python benchmarks/scale.py --format jhist      # 100k tasks of jhist (~700 MB, 100 files)

The bundled ``traces/two-tenant`` sample (414 jobs, 6,359 tasks, its observed
schedule as each task's start and end) is replicated back to back in time, copy
``k`` shifted by ``k`` times the sample's span and its job ids suffixed ``-c<k>``,
until the file holds at least ``--tasks`` tasks. The file is written under /tmp (one
job object per line, as SLS generators write them; ``--pretty`` indents them) and
deleted at the end unless ``--keep`` names where to leave it.

``--format rumen`` replicates the bundled Rumen sample (``2jobs2min-rumen-jh.json``,
2 TeraGen jobs of 96 tasks, pretty-printed, with each job's configuration, CDFs and
per-attempt usage) the same way: copy ``k``'s times shifted by ``k`` spans, its ids'
cluster timestamp increased by ``k``. ``--format jhist`` writes a directory of
``.jhist`` files, one job of ``--job-tasks`` map tasks each, made from the bundled
TeraGen file (newer schema, full counters): its first task's four events repeated
with new ids, times staggered, jobs a minute apart. Both are larger a task than SLS
(about 2 KB and 7 KB), hence the smaller default sizes.

Each stage runs in a fresh Python process that reports its seconds, wall and CPU
(user + system: on a shared machine the CPU time varies less), and its peak resident
memory (``ru_maxrss``). That includes a fixed part, measured in a ``tempo predict``
process (1M tasks, issue 22): about 110 MB once the CLI is imported (the interpreter, numpy,
pandas and pyarrow, which pandas 3 imports), about 70 MB more with the predict command
(numba, which its engine choice imports, 55 MB: llvmlite's LLVM library and numba's modules),
about 65 MB more when the first compiled function is loaded from numba's cache (LLVM's JIT
and numba's target context: as much for a one-line function, so numba's floor is about
120 MB) and 15-20 MB for the kernel's own code, so about 270 MB before any trace, with
what reading leaves behind. On top of that at the simulation's peak: the kernel's arrays,
about 150 MB at 1M tasks (task rows 54, the reduces' replay rows among them, attempt
records 33 (live attempts' rows only for the containers held at once), job and stage rows
50; the app trees hold only the apps live at once, under 1 MB); the task ids are held
compressed (2 MB) and the predicted attempts as the engine's codes
(``Schedule.deferred``). Reading and packing, before numba is loaded, now peak as high.

- ``json``: Python's stdlib ``json`` decoding every object of the file (the yardstick
  of issue 22: the whole ``tempo predict`` should take at most 4 times this);
- ``parse``: ``read_trace`` minus the time in the Workload/Schedule constructors;
- ``columns``: the Workload and Schedule constructors (normalize, validate, sort);
- ``predict``: ``whatif.predictor.predict`` on the read workload (numba engine, cache warm);
- ``metrics``: ``tempo.qs.qs_report`` of observed against predicted, all base metrics;
- ``tempo predict``: the whole CLI process, as a user runs it (it reads the trace
  without its observed schedule, `whatif.readers.read_workload_trace`, and hands the
  workload to the predictor alone, `whatif.predictor.predict_taking`).

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

from whatif.allocation import effective_allocation

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "traces" / "two-tenant"
CONFIG = ROOT / "configs" / "two-tenant-expert.xml"
CLUSTER = "nodes=24,memory-mb=8192,vcores=8"
HADOOP = ROOT.parent / "shared" / "data" / "hadoop"
RUMEN_SAMPLE = HADOOP / "rumen" / "2jobs2min-rumen-jh.json"
JHIST_SAMPLE = HADOOP / "jhist" / "teragen-succeeded.jhist"
#: Per format: the allocation file `tempo predict` runs with, and the default size.
CONFIGS = {
    "sls": CONFIG,
    "rumen": HADOOP / "alloc" / "sls-test-allocation.xml",
    "jhist": HADOOP / "alloc" / "sls-test-allocation.xml",
}
DEFAULT_TASKS = {"sls": 1_000_000, "rumen": 200_000, "jhist": 100_000}
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


def _shifter(text: str, pattern: str) -> tuple[list[str], list[int]]:
    """`text` split around the numbers `pattern` matches: (the texts between, the numbers)."""
    import re

    pieces, numbers, last = [], [], 0
    for match in re.finditer(pattern, text):
        pieces.append(text[last : match.start()])
        numbers.append(int(match.group()))
        last = match.end()
    pieces.append(text[last:])
    return pieces, numbers


def _shifted(pieces: list[str], numbers: list[int], shift: int) -> str:
    out = [pieces[0]]
    for number, piece in zip(numbers, pieces[1:], strict=True):
        out.append(str(number + shift))
        out.append(piece)
    return "".join(out)


def write_rumen(path: Path, tasks: int) -> tuple[int, int]:
    """Write the replicated Rumen sample; returns (jobs, tasks) written."""
    text = RUMEN_SAMPLE.read_text(encoding="utf-8")
    cluster = "1369942127770"
    decoder, jobs, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        job, at = decoder.raw_decode(text, len(text) - len(text[at:].lstrip()))
        jobs.append(job)
    per_copy = sum(len(j["mapTasks"]) + len(j["reduceTasks"]) + len(j["otherTasks"]) for j in jobs)
    span_ms = max(j["finishTime"] for j in jobs) - min(j["submitTime"] for j in jobs) + 1000
    # Times are the 13-digit numbers after a colon (Jackson writes "key" : value).
    pieces, numbers = _shifter(text.replace(cluster, "\x00"), r"(?<=: )13712\d{8}\b")
    copies = max(1, math.ceil(tasks / per_copy))
    with open(path, "w", encoding="utf-8") as out:
        for copy in range(copies):
            out.write(
                _shifted(pieces, numbers, copy * span_ms).replace("\x00", str(int(cluster) + copy))
            )
            out.write("\n")
    return copies * len(jobs), copies * per_copy


def write_jhist(directory: Path, tasks: int, job_tasks: int) -> tuple[int, int]:
    """Write a directory of jhist files made from the TeraGen sample; returns (jobs, tasks)."""
    lines = JHIST_SAMPLE.read_text(encoding="utf-8").splitlines()
    head, events = lines[:2], [line for line in lines[2:] if line.strip()]
    job, task = "1416424547277_0002", "_m_000000"
    task_lines = [e for e in events if task in e]  # its 4 events
    job_lines = [e for e in events if "_m_00000" not in e]
    first, last = job_lines[:-1], job_lines[-1]  # JOB_FINISHED closes the file
    time = r"(?<=:)14164247\d{5}\b"
    task_template = _shifter("\n\n".join(task_lines).replace(task, "_m_\x01"), time)
    n_jobs = max(1, math.ceil(tasks / job_tasks))
    directory.mkdir(parents=True, exist_ok=True)
    for j in range(n_jobs):
        shift = j * 60_000
        name = f"1416424547277_{j + 1:04d}"
        body = [_shifted(*_shifter("\n\n".join(first), time), shift)]
        for t in range(job_tasks):
            text = _shifted(*task_template, shift + (t % 64) * 250)
            body.append(text.replace("\x01", f"{t:06d}"))
        body.append(_shifted(*_shifter(last, time), shift + 64 * 250))
        text = "\n".join(head) + "\n" + "\n\n".join(body).replace(job, name) + "\n"
        (directory / f"job_{name}.jhist").write_text(text, encoding="utf-8")
    return n_jobs, n_jobs * job_tasks


def _cpu_s(who: int = resource.RUSAGE_SELF) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def stage_json(path: str) -> dict:
    """Decode every concatenated object with the stdlib (the issue's yardstick)."""
    begin, cpu = time.perf_counter(), time.process_time()
    if Path(path).is_dir():  # jhist: every event line of every file
        n = 0
        for file in sorted(Path(path).glob("*.jhist")):
            with open(file, encoding="utf-8") as lines:
                for number, line in enumerate(lines):
                    if number and line.strip():
                        json.loads(line)
                        n += 1
        return {"json": _timed(begin, cpu, objects=n)}
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
    return {"json": _timed(begin, cpu, objects=n)}


def _timed(begin: float, cpu: float, **more: object) -> dict:
    """Wall and CPU seconds since `begin` and `cpu`, and the peak RSS so far."""
    return {
        "s": time.perf_counter() - begin,
        "cpu_s": time.process_time() - cpu,
        "peak_mb": _peak_mb(),
        **more,
    }


def stage_pipeline(path: str, format: str) -> dict:
    """read (parse + columns), predict and metrics in one process, timed apart."""
    from tempo.qs import qs_report
    from whatif import Cluster
    from whatif.allocation import AllocationDocument
    from whatif.metrics import Window
    from whatif.predictor import predict
    from whatif.readers import read_trace
    from whatif.schedule import Schedule
    from whatif.workload import Workload

    constructors = [0.0, 0.0]
    for cls in (Workload, Schedule):
        original = cls.__post_init__

        def timed(self, _original=original):
            begin, cpu = time.perf_counter(), time.process_time()
            try:
                _original(self)
            finally:
                constructors[0] += time.perf_counter() - begin
                constructors[1] += time.process_time() - cpu

        cls.__post_init__ = timed
    out: dict[str, dict] = {}
    begin, cpu = time.perf_counter(), time.process_time()
    trace = read_trace(path, format=format)
    read = _timed(begin, cpu)
    out["parse"] = {
        "s": read["s"] - constructors[0],
        "cpu_s": read["cpu_s"] - constructors[1],
        "peak_mb": read["peak_mb"],
    }
    out["columns"] = {"s": constructors[0], "cpu_s": constructors[1], "peak_mb": read["peak_mb"]}
    allocation = effective_allocation(
        AllocationDocument.from_file(CONFIGS[format]), hadoop_version=3
    )
    cluster = Cluster.parse(CLUSTER)
    begin, cpu = time.perf_counter(), time.process_time()
    predicted = predict(trace.workload, allocation, cluster)
    out["predict"] = _timed(begin, cpu)
    begin, cpu = time.perf_counter(), time.process_time()
    qs_report(
        trace.observed,
        [],
        window=Window.covering(trace.observed),
        cluster=cluster,
        workload=trace.workload,
        predicted=predicted,
    )
    out["metrics"] = _timed(begin, cpu)
    out["_tasks"] = {"n": trace.workload.n_tasks}
    return out


def stage_cli(path: str, format: str) -> dict:
    """The whole ``tempo predict`` process; this wrapper only waits for it."""
    command = [
        *TEMPO,
        "predict",
        "--trace",
        str(path),
        "--config",
        str(CONFIGS[format]),
        "--cluster",
        CLUSTER,
        "--json",
    ]
    begin = time.perf_counter()
    # Run outside the checkout, so that a PYTHONPATH (e.g. an older tree) picks the library.
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd="/")
    seconds = time.perf_counter() - begin
    if done.returncode != 0:
        raise SystemExit(f"tempo predict failed ({done.returncode}): {done.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    return {
        "tempo predict": {"s": seconds, "cpu_s": _cpu_s(resource.RUSAGE_CHILDREN), "peak_mb": peak}
    }


def stage_read(path: str, format: str) -> dict:
    """The whole read (constructors included) by the reader's fast path (`read`)."""
    return _read(path, format, precise=False)


def stage_precise(path: str, format: str) -> dict:
    """The same by its precise path alone (`read_precise`, as before issue 22's fast paths)."""
    return _read(path, format, precise=True)


def _read(path: str, format: str, *, precise: bool) -> dict:
    from whatif.readers import READERS

    reader = READERS[format]()
    begin, cpu = time.perf_counter(), time.process_time()
    (reader.read_precise if precise else reader.read)(Path(path))
    name = "read, precise path" if precise else "read, fast path"
    return {name: _timed(begin, cpu)}


STAGES = {
    "json": stage_json,
    "pipeline": stage_pipeline,
    "cli": stage_cli,
    "read": stage_read,
    "precise": stage_precise,
}


def _run_stage(name: str, path: Path, format: str) -> dict:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--stage",
        name,
        "--format",
        format,
        str(path),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd="/")
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
        cwd="/",
    )


def _write(path: Path, args: argparse.Namespace, tasks: int) -> tuple[int, int]:
    """Write the trace `args` ask for at `path`; returns (jobs, tasks) written."""
    if args.format == "sls":
        return write_sls(path, tasks, pretty=args.pretty)
    if args.format == "rumen":
        return write_rumen(path, tasks)
    return write_jhist(path, tasks, args.job_tasks)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=sorted(CONFIGS), default="sls")
    parser.add_argument("--tasks", type=int, help="Tasks to write (default: per format).")
    parser.add_argument("--job-tasks", type=int, default=1000, help="jhist: tasks per job file.")
    parser.add_argument("--pretty", action="store_true", help="SLS: indent the job objects.")
    parser.add_argument("--keep", type=Path, help="Write the trace here and keep it.")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="With --keep: time the file already there (written by an earlier --keep run).",
    )
    parser.add_argument(
        "--write-only",
        action="store_true",
        help="With --keep: write the trace and stop (for a run too large to time every stage).",
    )
    parser.add_argument(
        "--compare-precise",
        action="store_true",
        help="Also time the reader's fast and precise paths alone, alternately, 3 times each.",
    )
    parser.add_argument("--stage", choices=sorted(STAGES), help=argparse.SUPPRESS)
    parser.add_argument("file", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stage:
        stage = STAGES[args.stage]
        out = stage(args.file) if args.stage == "json" else stage(args.file, args.format)
        print(json.dumps(out))
        return
    tasks = args.tasks if args.tasks is not None else DEFAULT_TASKS[args.format]
    if args.write_only and not args.keep:
        parser.error("--write-only: expected --keep FILE to say where to write the trace")
    with tempfile.TemporaryDirectory(prefix="tempo-scale-", dir="/tmp") as tmp:
        path = (args.keep or Path(tmp) / "trace").resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        begin = time.perf_counter()
        counts = path.with_name(path.name + ".counts.json")  # (jobs, tasks) of a kept file
        if args.reuse and args.keep and path.exists() and counts.exists():
            n_jobs, n_tasks = json.loads(counts.read_text())
        else:
            n_jobs, n_tasks = _write(path, args, tasks)
            if args.keep:
                counts.write_text(json.dumps([n_jobs, n_tasks]))
        files = sorted(path.iterdir()) if path.is_dir() else [path]
        size_mb = sum(os.path.getsize(f) for f in files) / 1e6
        print(
            f"{args.format} trace: {n_jobs:,} jobs, {n_tasks:,} tasks, {size_mb:,.0f} MB "
            f"in {len(files):,} file(s) (written in {time.perf_counter() - begin:.1f} s)"
        )
        if args.write_only:
            return
        _warm_numba()
        results: dict[str, dict] = {}
        for name in ("json", "pipeline", "cli"):
            results.update(_run_stage(name, path, args.format))
        if args.compare_precise:  # alternately, so both see the same machine load
            runs = [_run_stage(n, path, args.format) for _ in range(3) for n in ("read", "precise")]
            for name in ("read, fast path", "read, precise path"):
                mine = sorted((r[name] for r in runs if name in r), key=lambda r: r["s"])
                results[name + " (median of 3)"] = mine[1]
        results.pop("_tasks", None)
    print(f"{'stage':<34} {'seconds':>8} {'CPU s':>7} {'tasks/s':>12} {'peak MB':>9}")
    for name, r in results.items():
        rate = n_tasks / r["s"] if r["s"] > 0 else math.inf
        print(f"{name:<34} {r['s']:>8.2f} {r['cpu_s']:>7.2f} {rate:>12,.0f} {r['peak_mb']:>9,.0f}")
    ratio = results["tempo predict"]["s"] / results["json"]["s"]
    cpu_ratio = results["tempo predict"]["cpu_s"] / results["json"]["cpu_s"]
    print(
        f"tempo predict / stdlib json parse: {ratio:.1f}x, CPU time {cpu_ratio:.1f}x "
        "(issue 22 asks <= 4x)"
    )
    print(
        f"tempo predict peak RSS: {results['tempo predict']['peak_mb']:,.0f} MB "
        f"for {n_tasks:,} tasks (issue 22 asks <= 500 MB at 1M tasks)"
    )


if __name__ == "__main__":
    main()
