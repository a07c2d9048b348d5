"""Soak: `tempo tune` for hundreds of windows against a separately started emulated RM.

    python benchmarks/soak.py                         # 500 windows (about 45 minutes)
    python benchmarks/soak.py --iterations 40         # a quick look

The contended sample is tiled end to end into a trace long enough for every window
(``--window`` of trace time each), and ``tempo emulate-rm`` replays it with a
``--shift`` every ``--shift-every`` trace hours: the tasks of one tenant, then the
other, get twice as long and later half as long again, so a configuration tuned for
one regime meets another. ``tempo tune --rm`` runs in its own process, on the RM's
clock, reloading through ``tempo emulate-rm refresh``. The script samples both
processes' resident memory while they run and reads the journal afterwards:

- memory of the tuner over the iterations (first and last tenth, and the growth);
- whether the tuner kept up with the cluster (a window every ``--window`` of RM
  time) and how many windows had jobs to judge;
- steps applied, rollbacks and the other decisions;
- every step whose next observed window did not dominate the window before it
  (within the tuner's tolerance), and whether that very window rolled it back;
- journal entries: one per iteration, none lost, no apply left open.

Exit status 1 when memory grew more than ``--max-growth-mb``, a non-dominating
step was not rolled back within one window, a journal entry is missing, or the
tuner fell behind the cluster.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "traces" / "contended"
CONFIG = ROOT / "configs" / "contended-expert.xml"
TEMPLATES = ROOT / "templates" / "contended"
CLUSTER = "nodes=5,memory-mb=8192,vcores=8"
QUEUES = ("root.besteffort", "root.deadline")
#: The `tempo` command, run with this interpreter.
TEMPO = (sys.executable, "-c", "from tempo.cli import main; main()")


def tiled_trace(directory: Path, span_s: float) -> tuple[Path, float, int]:
    """The contended sample repeated end to end (a quarter hour apart) to cover `span_s`.

    Returns the native trace's path, its first submission and the number of copies.
    """
    from whatif import Trace, Workload
    from whatif.readers import read_trace, write_native

    workload = read_trace(TRACE).workload
    period = (math.ceil(float(workload.jobs["submit_s"].max()) / 900.0) + 1) * 900.0
    copies = math.ceil(span_s / period) + 1
    jobs, tasks = [], []
    for k in range(copies):
        j = workload.jobs.copy()
        j["submit_s"] = j["submit_s"] + k * period
        j["job_id"] = j["job_id"] + f"-{k}"
        j["name"] = j["name"] + f"-{k}"
        t = workload.tasks.copy()
        t["job_id"] = t["job_id"] + f"-{k}"
        t["task_id"] = t["task_id"] + f"-{k}"
        for column in ("observed_start_s", "observed_finish_s", "shuffle_finish_s"):
            t[column] = np.nan
        t["sort_finish_s"] = np.nan
        jobs.append(j)
        tasks.append(t)
    tiled = Workload(
        jobs=pd.concat(jobs, ignore_index=True), tasks=pd.concat(tasks, ignore_index=True)
    )
    path = write_native(Trace(tiled), directory / "trace", overwrite=True)
    return path, float(workload.jobs["submit_s"].min()), copies


def shifts(start_s: float, end_s: float, every_h: float) -> list[str]:
    """``--shift`` values: one tenant's tasks x2, the other's x2, the first's back, ..."""
    out, k = [], 0
    at = start_s + every_h * 3600.0
    while at < end_s:
        queue = QUEUES[k % 2]
        factor = 2.0 if (k // 2) % 2 == 0 else 0.5
        out.append(f"from={at:g},queue={queue},duration={factor:g}")
        at += every_h * 3600.0
        k += 1
    return out


def rss_mb(pid: int) -> float | None:
    """Resident memory of `pid` in MB (Linux /proc), None once it has exited."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


class Sampler(threading.Thread):
    """Samples (seconds, tuner RSS, emulator RSS, iterations journalled) every `every_s`."""

    def __init__(self, tuner: int, emulator: int, journal: Path, every_s: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.tuner, self.emulator, self.journal, self.every_s = tuner, emulator, journal, every_s
        self.samples: list[tuple[float, float, float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        started = time.monotonic()
        while not self.stop.wait(self.every_s):
            tuner = rss_mb(self.tuner)
            if tuner is None:
                return
            self.samples.append(
                (
                    time.monotonic() - started,
                    tuner,
                    rss_mb(self.emulator) or math.nan,
                    _count(self.journal),
                )
            )


def _count(journal: Path) -> int:
    if not journal.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=1.0) as db:
            return int(db.execute("SELECT count(*) FROM iterations").fetchone()[0])
    except sqlite3.Error:
        return -1


def judge(journal: Path, tolerance: float) -> dict:
    """Decisions, and for every applied step whether a non-dominating next window rolled it back."""
    from tempo.journal import SQLiteJournal
    from tempo.loop import Tolerance, regressions

    with SQLiteJournal(journal, readonly=True) as j:
        items = j.iterations()
        applies = j.applies()
    decisions = {d: sum(i.decision == d for i in items) for d in {i.decision for i in items}}
    tol = Tolerance(relative=tolerance)
    non_dominating, rolled_back, late = 0, 0, []
    for index, item in enumerate(items):
        if item.decision != "accepted" or not item.observed_qs:
            continue
        baseline = {k: math.nan if v is None else float(v) for k, v in item.observed_qs.items()}
        nxt = next(
            (
                later
                for later in items[index + 1 :]
                if later.observed_qs
                and any(v is not None for v in later.observed_qs.values())
                and not later.reason.startswith("cannot observe")
            ),
            None,
        )
        if nxt is None:
            continue
        observed = {k: math.nan if v is None else float(v) for k, v in nxt.observed_qs.items()}
        if regressions(baseline, observed, tol):
            non_dominating += 1
            if nxt.decision == "rolled_back" and nxt.id == item.id + 1:
                rolled_back += 1
            else:
                late.append((item.id, nxt.id, nxt.decision, nxt.reason[:160]))
    return {
        "iterations": len(items),
        "ids_consecutive": [i.id for i in items] == list(range(1, len(items) + 1)),
        "unfinished": sum(i.decision is None for i in items),
        "open_applies": sum(a.outcome is None for a in applies),
        "applies": len(applies),
        "decisions": decisions,
        "last_decision": items[-1].decision if items else None,
        "non_dominating": non_dominating,
        "rolled_back_next_window": rolled_back,
        "not_rolled_back": late,
    }


_WINDOW_LINE = re.compile(
    r"^iteration (\d+): window (\S+ \S+) \.\. (\S+ \S+) UTC, (\d+) job\(s\)", re.MULTILINE
)


def windows(log: Path) -> list[tuple[float, float, int]]:
    """(begin, end, jobs) of every window `tempo tune` printed (RM epoch seconds)."""
    from datetime import UTC, datetime

    def epoch(text: str) -> float:
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()

    return [(epoch(m[2]), epoch(m[3]), int(m[4])) for m in _WINDOW_LINE.finditer(log.read_text())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--window", type=float, default=300.0, help="trace seconds per window")
    parser.add_argument("--speed", type=float, default=60.0, help="trace seconds per second")
    parser.add_argument("--shift-every", type=float, default=3.0, help="trace hours")
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument(
        "--min-gain", type=float, default=0.0, help="0: any predicted gain is a step to judge"
    )
    parser.add_argument("--engine", default="numba", choices=["numba", "reference"])
    parser.add_argument("--max-growth-mb", type=float, default=25.0)
    parser.add_argument("--keep", type=Path, help="keep the run's files in this directory")
    args = parser.parse_args()

    work = Path(args.keep or tempfile.mkdtemp(prefix="tempo-soak-"))
    work.mkdir(parents=True, exist_ok=True)
    needed_s = (args.iterations + 2) * args.window
    trace, start_s, copies = tiled_trace(work, needed_s)
    config = work / "fair-scheduler.xml"
    shutil.copyfile(CONFIG, config)
    journal = work / "journal.sqlite"
    journal.unlink(missing_ok=True)
    shift_args = [
        a for s in shifts(start_s, start_s + needed_s, args.shift_every) for a in ("--shift", s)
    ]
    print(
        f"work directory {work}: {copies} copies of the contended sample, {len(shift_args) // 2} shifts"
    )

    emulator = subprocess.Popen(
        [
            *TEMPO,
            "emulate-rm",
            "--trace",
            str(trace),
            "--config",
            str(config),
            "--cluster",
            CLUSTER,
            "--speed",
            f"{args.speed:g}",
            "--engine",
            args.engine,
            *shift_args,
        ],
        stdout=subprocess.PIPE,
        stderr=open(work / "emulator.log", "w"),  # noqa: SIM115 (closed with the process)
        text=True,
    )
    try:
        line = emulator.stdout.readline()
        url = line.split(" at ", 1)[1].split()[0]
        script = Path(sys.executable).with_name("tempo")
        refresh = f"{script if script.exists() else 'tempo'} emulate-rm refresh --rm {url}"
        command = [
            *TEMPO,
            "tune",
            "--rm",
            url,
            "--history-server",
            url,
            "--config",
            str(config),
            "--templates",
            str(TEMPLATES),
            "--cluster",
            CLUSTER,
            "--window",
            f"{args.window:g}s",
            "--interval",
            f"{args.window:g}s",
            "--max-iterations",
            str(args.iterations),
            "--journal",
            str(journal),
            "--reload-command",
            refresh,
            "--engine",
            args.engine,
            "--tolerance",
            f"{args.tolerance:g}",
            "--min-gain",
            f"{args.min_gain:g}",
            *(("--min-gain-abs", "0s", "--min-gain-abs", "0%") if args.min_gain == 0 else ()),
        ]
        time.sleep(args.window / args.speed)  # let one window of the replay pass
        started = time.monotonic()
        with open(work / "tune.log", "w") as log:
            tuner = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
            sampler = Sampler(tuner.pid, emulator.pid, journal)
            sampler.start()
            status = tuner.wait()
            sampler.stop.set()
            sampler.join()
        wall = time.monotonic() - started
    finally:
        emulator.terminate()
        emulator.wait(timeout=30)

    verdict = judge(journal, args.tolerance)
    samples = [s for s in sampler.samples if s[3] > 0]
    tenth = max(1, len(samples) // 10)
    first = float(np.median([s[1] for s in samples[:tenth]])) if samples else math.nan
    last = float(np.median([s[1] for s in samples[-tenth:]])) if samples else math.nan
    peak = max((s[1] for s in samples), default=math.nan)
    print(f"tempo tune exited {status} after {wall / 60:.1f} min; log {work / 'tune.log'}")
    print(
        f"iterations {verdict['iterations']} (ids consecutive: {verdict['ids_consecutive']}, "
        f"unfinished {verdict['unfinished']}, applies {verdict['applies']}, "
        f"open {verdict['open_applies']})"
    )
    print("decisions " + ", ".join(f"{k} {v}" for k, v in sorted(verdict["decisions"].items())))
    print(
        f"steps applied {verdict['decisions'].get('accepted', 0)}, rollbacks "
        f"{verdict['decisions'].get('rolled_back', 0)}; non-dominating steps "
        f"{verdict['non_dominating']}, rolled back within one window "
        f"{verdict['rolled_back_next_window']}"
    )
    seen = windows(work / "tune.log")
    gaps = [b[0] - a[0] for a, b in zip(seen, seen[1:], strict=False)]
    with_jobs = sum(jobs > 0 for _, _, jobs in seen)
    print(
        f"windows with finished jobs {with_jobs} of {len(seen)}; a window every "
        f"{np.median(gaps) if gaps else math.nan:.0f} s of RM time (median; window "
        f"{args.window:g} s), at most {max(gaps, default=math.nan):.0f} s"
    )
    for item in verdict["not_rolled_back"]:
        print(f"  NOT rolled back: step {item[0]}, judged by {item[1]} ({item[2]}): {item[3]}")
    print("tuner memory (MB) by iteration:")
    for mark in np.linspace(0, len(samples) - 1, num=min(11, len(samples))).astype(int):
        t, tuner_mb, emulator_mb, done = samples[mark]
        print(
            f"  iteration {done:>4}  {t / 60:6.1f} min  tuner {tuner_mb:7.1f}  emulator {emulator_mb:7.1f}"
        )
    growth = last - first
    print(
        f"tuner RSS median first tenth {first:.1f} MB, last tenth {last:.1f} MB "
        f"(growth {growth:+.1f} MB), peak {peak:.1f} MB"
    )
    (work / "soak.json").write_text(
        json.dumps({**verdict, "rss_first_mb": first, "rss_last_mb": last, "samples": samples})
    )
    last = verdict["last_decision"]
    ok = (
        (status == 0 or (status == 1 and last == "rolled_back"))  # 1: the last window rolled back
        and verdict["iterations"] == args.iterations
        and verdict["ids_consecutive"]
        and not verdict["unfinished"]
        and not verdict["open_applies"]
        and not verdict["not_rolled_back"]
        and growth <= args.max_growth_mb
        and bool(gaps)
        and float(np.median(gaps)) <= 1.1 * args.window  # the tuner kept up
    )
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
