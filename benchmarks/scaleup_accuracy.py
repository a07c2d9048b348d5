"""The paper's provisioning check (section 8.2.5) on the bundled traces: prints the errors.

    python benchmarks/scaleup_accuracy.py [--replicates 3] [--executor local]

For each sample trace, the SLOs of its 100-node cluster are predicted from traces
recorded on 100, 50 and 25 nodes (factors 1, 2, 4) and compared with direct noisy
runs on 100 nodes (definitions in whatif/scaleup_check.py). Prints every QS's
predicted and direct value and, per factor, the median and largest relative error.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tempo.templates import constraints, load_templates, objectives
from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.executors import make_executor
from whatif.predictor import SchedulerSettings
from whatif.readers import read_trace
from whatif.scaleup_check import scale_up_check

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=3)
    parser.add_argument("--executor", default="local")
    args = parser.parse_args()
    cluster = Cluster.parse("nodes=100,memory-mb=8192,vcores=8")
    with make_executor(args.executor) as executor:
        for name in ("two-tenant", "six-tenant"):
            workload = read_trace(REPO / "traces" / name).workload
            allocation = effective_allocation(
                AllocationDocument.from_file(REPO / "configs" / f"{name}-expert.xml")
            )
            templates = load_templates(REPO / "templates" / name)
            qs = list(
                dict.fromkeys(
                    [(q, m) for q, m, _ in constraints(templates)]
                    + [(q, m) for q, m, _ in objectives(templates)]
                )
            )
            started = time.perf_counter()
            check = scale_up_check(
                workload,
                allocation,
                cluster,
                qs,
                factors=(1.0, 2.0, 4.0),
                replicates=args.replicates,
                settings=SchedulerSettings(preemption=True),
                executor=executor,
            )
            print(f"== {name} ({time.perf_counter() - started:.1f} s)")
            print(
                check.table.drop(columns=["abs_error"]).to_string(index=False, float_format="%.4g")
            )
            for k in (1.0, 2.0, 4.0):
                print(
                    f"{name} {k:g}x: median error {100 * check.median_rel_error(k):.1f}%, "
                    f"max {100 * check.max_rel_error(k):.1f}%"
                )


if __name__ == "__main__":
    main()
