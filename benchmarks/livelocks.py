"""How often a random preemption scenario ends in a livelock the predictor detects.

    python benchmarks/livelocks.py                  # 9,000 draws, about 1,300 on Hadoop 3
    python benchmarks/livelocks.py --version 2 --draws 3000

Draws the random scenarios of the predictor's agreement tests
(``tests/whatif/predictor/predictor_cases.scenarios``: queue trees, workloads, clusters and
scheduler settings), derandomized so that a run prints the same figures, and keeps those
of the chosen Hadoop version with preemption on. For each it runs the compiled engine to
the end and counts the runs with unfinished jobs, and among them those the livelock
search ended (the compiled engine's ``GI_LIVELOCK``, read from its state: no public API
says it; a check whose state repeats with nothing finished in between, docs/predictor.md,
"Jobs that can never finish"). The other unfinished runs are
jobs that can never run (a task larger than any node or queue maximum, AMs holding what
their tasks need).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "whatif" / "predictor"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from predictor_cases import scenarios  # noqa: E402

from whatif.predictor import Simulation  # noqa: E402
from whatif.predictor import kernel as K  # noqa: E402


def count(draws: int, version: int) -> collections.Counter[str]:
    """Runs, unfinished runs and detected livelocks over `draws` derandomized draws."""
    counts: collections.Counter[str] = collections.Counter()

    @settings(
        max_examples=draws,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(scenarios())
    def run(scenario: tuple[Any, ...]) -> None:
        workload, allocation, cluster, sched, noise = scenario
        if sched.hadoop_version != version or not sched.preemption:
            return
        sim = Simulation(workload, allocation, cluster, settings=sched, noise=noise)
        schedule = sim.run_to_end()
        counts["runs"] += 1
        if schedule.jobs["finish_s"].isna().any():
            counts["unfinished"] += 1
            counts["livelock"] += int(sim._engine.state["gi"][K.GI_LIVELOCK] != 0)

    run()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=9000)
    parser.add_argument("--version", type=int, choices=[1, 2, 3], default=3)
    args = parser.parse_args()
    if args.draws < 1:
        parser.error(f"--draws: expected a positive number of draws, got {args.draws}")
    c = count(args.draws, args.version)
    share = c["livelock"] / max(c["runs"], 1)
    print(f"hadoop_version={args.version} preemption runs={c['runs']}")
    print(f"unfinished={c['unfinished']} livelock_detected={c['livelock']} ({share:.1%})")


if __name__ == "__main__":
    main()
