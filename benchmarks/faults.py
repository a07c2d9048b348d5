"""Fault campaign: kill -9 at random apply steps, and a misbehaving RM, many times over.

    python benchmarks/faults.py                       # 200 kills, 200 RM faults (a few minutes)
    python benchmarks/faults.py --kills 50 --rm-faults 0

Two campaigns, with the machinery of the test suite (``tests/tempo/test_crash.py``
and ``tests/tempo/test_faults.py``):

- **kills**: a loop runs 0 to 3 ordinary iterations, then a forked copy of it is
  SIGKILLed at a random step of an apply (after the journal intent, the temporary
  file, the backups, the rename, the reload, the confirmation, the journal's
  completion); a restarted loop recovers and runs one more iteration;
- **RM faults**: the loop, wired as ``tempo tune`` wires it, runs against the
  emulated RM behind two fault-injecting proxies (an HA pair); each iteration draws
  a fault (HTTP 503, garbage JSON, an HTML login page, a stall past the read
  timeout, a reset connection, both RMs standby, a failover, or none) and where it
  strikes (every request, or only the confirmation of an apply).

After every fault it checks that the allocation file is valid and is a version the
journal knows (the original, or one an apply recorded), that no journal entry was
lost (one per iteration, ids consecutive, every iteration finished after
recovery), and that no apply is left open. It prints the faults injected and the
violations found; exit status 1 on any violation.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "tempo"), str(ROOT / "tests" / "tempo" / "rm")]

import pandas as pd  # noqa: E402
from emulated import tiny_trace  # noqa: E402
from test_crash import STEPS, XML, _killed_at, _loop  # noqa: E402
from test_faults import Cluster  # noqa: E402

from tempo.journal import SQLiteJournal, file_sha256  # noqa: E402
from whatif import Trace, Workload  # noqa: E402
from whatif.allocation import AllocationDocument, validate  # noqa: E402


def _valid(data: bytes) -> bool:
    try:
        issues = validate(AllocationDocument.from_bytes(data))
    except Exception:  # noqa: BLE001 (any failure to parse is what we count)
        return False
    return not [i for i in issues if i.severity == "error"]


def _known(path: Path, journal: SQLiteJournal, original: bytes) -> bool:
    """Whether the file on disk is the original or a version an apply recorded."""
    sha = file_sha256(path)
    versions = {hashlib.sha256(original).hexdigest()}
    for record in journal.applies():
        versions |= {record.sha256, record.previous_sha256}
    return sha in versions


def _journal_intact(journal: SQLiteJournal, expected: int) -> bool:
    items = journal.iterations()
    return (
        len(items) == expected
        and [i.id for i in items] == list(range(1, expected + 1))
        and all(i.decision is not None for i in items)
    )


def kills(count: int, rng: np.random.Generator, tally: Counter) -> None:
    """`count` SIGKILLs at random apply steps, each recovered by a restarted loop."""
    names = list(STEPS)
    for _ in range(count):
        with tempfile.TemporaryDirectory(prefix="tempo-kill-") as tmp:
            _kill_once(Path(tmp), names[int(rng.integers(len(names)))], rng, tally)


def _kill_once(work: Path, step: str, rng: np.random.Generator, tally: Counter) -> None:
    """Run 0 to 3 iterations in `work`, kill a forked loop at `step`, recover, check."""
    path, db = work / "fair-scheduler.xml", work / "journal.sqlite"
    path.write_bytes(XML)
    before = int(rng.integers(0, 4))
    with SQLiteJournal(db) as journal:
        loop = _loop(path, journal)
        for _ in range(before):
            loop.step()
    _killed_at(step, path, db)
    tally[f"kill {step}"] += 1
    tally["faults"] += 1
    data = path.read_bytes()
    with SQLiteJournal(db) as journal:
        tally["invalid files"] += not _valid(data)
        tally["unknown file versions"] += not _known(path, journal, XML)
        loop = _loop(path, journal)
        loop.resume()
        loop.step()
        tally["lost journal entries"] += not _journal_intact(journal, before + 2)
        tally["open applies"] += sum(a.dangling for a in journal.applies())
        tally["invalid files"] += not _valid(path.read_bytes())


def repeated(count: int, every_s: float) -> Trace:
    """The tests' tiny trace every `every_s` trace seconds, `count` times."""
    workload = tiny_trace().workload
    jobs, tasks = [], []
    for k in range(count):
        jobs.append(workload.jobs.assign(job_id=workload.jobs["job_id"] + f"-{k}"))
        jobs[-1]["submit_s"] += k * every_s
        tasks.append(
            workload.tasks.assign(
                job_id=workload.tasks["job_id"] + f"-{k}",
                task_id=workload.tasks["task_id"] + f"-{k}",
            )
        )
    return Trace(Workload(pd.concat(jobs, ignore_index=True), pd.concat(tasks, ignore_index=True)))


def rm_faults(count: int, rng: np.random.Generator, tally: Counter) -> None:
    """`count` loop iterations against the emulated RM, each under a random fault."""
    kinds = ("5xx", "garbage", "html", "stall", "reset", "standby", "failover", "none")
    with tempfile.TemporaryDirectory(prefix="tempo-rm-faults-") as tmp:
        cluster = Cluster(Path(tmp), repeated(count + 20, 300.0))
        original = cluster.config.read_bytes()
        loop = cluster.loop()
        active, standby = cluster.a, cluster.b
        try:
            for n in range(1, count + 1):
                kind = kinds[int(rng.integers(len(kinds)))]
                confirm_only = bool(rng.integers(2)) and kind not in ("failover", "none")
                if kind == "failover":
                    active, standby = standby, active
                    active.set("ok")
                    standby.set("standby", peer=active.url)
                elif kind == "none":
                    active.set("ok")
                else:
                    only = ("/ws/v1/cluster/scheduler",) if confirm_only else ()
                    active.set(kind, only=only)
                    if kind == "standby" and not confirm_only:
                        standby.set("standby")
                where = " (confirmation)" if confirm_only else ""
                tally[f"rm {kind}{where}"] += 1
                tally["faults"] += kind != "none"
                loop.step()
                cluster.clock.sleep(30.0)  # the next window: 300 trace seconds later
                tally["invalid files"] += not _valid(cluster.config.read_bytes())
                tally["unknown file versions"] += not _known(
                    cluster.config, cluster.journal, original
                )
                tally["lost journal entries"] += not _journal_intact(cluster.journal, n)
                tally["open applies"] += sum(a.dangling for a in cluster.journal.applies())
                active.set("ok")
                standby.set("standby", peer=active.url)
            decisions = Counter(i.decision for i in cluster.journal.iterations())
            for decision, number in sorted(decisions.items()):
                tally[f"decision {decision}"] += number
        finally:
            cluster.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--rm-faults", type=int, default=200)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the faults are expected; the tallies say what happened
    rng = np.random.default_rng(args.seed)
    tally: Counter = Counter()
    started = time.perf_counter()
    kills(args.kills, rng, tally)
    rm_faults(args.rm_faults, rng, tally)
    print(f"faults injected: {tally['faults']} in {time.perf_counter() - started:.0f} s")
    for key in sorted(k for k in tally if k.startswith(("kill ", "rm ", "decision "))):
        print(f"  {key:<32}{tally[key]:>6}")
    violations = ("invalid files", "unknown file versions", "lost journal entries", "open applies")
    for key in violations:
        print(f"{key:<34}{tally[key]:>6}")
    sys.exit(1 if any(tally[k] for k in violations) else 0)


if __name__ == "__main__":
    main()
