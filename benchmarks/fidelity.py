"""How faithfully the predictor replays the real traces in the repository: prints the errors.

    python benchmarks/fidelity.py [--engine numba|reference] [--site FILE] [--trace NAME ...]
                                  [--allocation NAME=FILE ...]

For every real trace under ``traces/`` (``hadoop/jhist``, ``hadoop/sls``,
``hadoop/rumen``, ``hadoop/rest``, ``hadoop1``) and every Hadoop version that
applies to its format (a Hadoop 1 history: 1; the YARN formats: 2 and 3), the
trace's workload is predicted on the cluster its directory's saved RM
``/ws/v1/cluster/metrics`` response (``cluster-metrics.json``) reports when it has
one (``hadoop/rest``: its apps without task records are replayed from their metered
containers, which no observed attempt shows), else on the cluster derived from its
own observed schedule (`whatif.readers.slots`: the trackers' slots or the
NodeManagers' peaks, a lower bound) under an allocation file of its queues (``--allocation NAME=FILE``, else the trace
directory's own ``fair-scheduler.xml`` when it has one, else every queue at weight
1; none of the bundled traces carries one), and the
predicted job finish times are compared with the observed ones per queue
(`whatif.accuracy.prediction_errors`): jobs, RAE, RSE, MAE (s) and the mean signed
error (bias, s). ``--site`` is a ``yarn-site.xml`` (``mapred-site.xml`` for
Hadoop 1) whose scheduler knobs the predictor models (`whatif.predictor.site`);
without it Hadoop's defaults apply. The simulated recordings (``two-tenant``,
``contended``, ``six-tenant``) are left out: their observed schedules come from
tempo's own predictor, so comparing with them measures nothing about Hadoop.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pandas as pd

from tempo.rm.metrics import parse_cluster_metrics
from whatif import Cluster
from whatif.accuracy import prediction_errors
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.metrics import unfinished_jobs
from whatif.predictor import SchedulerSettings, predict
from whatif.predictor.site import read_site
from whatif.readers import read_trace
from whatif.readers.slots import observed_nodes, observed_slots
from whatif.trace import Trace

REPO = Path(__file__).resolve().parents[1]
#: The real traces (recorded on Hadoop clusters), relative to traces/.
REAL_TRACES = ("hadoop/jhist", "hadoop/sls", "hadoop/rumen", "hadoop/rest", "hadoop1")
#: Simulated recordings: named in the output, never compared.
SIMULATED = ("two-tenant", "contended", "six-tenant")
#: An allocation file a trace directory may carry, used instead of equal weights.
OWN_ALLOCATION = "fair-scheduler.xml"
#: A saved ``/ws/v1/cluster/metrics`` response a trace directory may carry: the cluster
#: it ran on, used instead of the one its observed attempts show.
OWN_METRICS = "cluster-metrics.json"


@dataclass(frozen=True)
class Case:
    """One trace under one Hadoop version: what was predicted and how far off it was."""

    trace: str
    hadoop_version: int
    cluster: str
    allocation: str
    errors: pd.DataFrame | None
    note: str
    seconds: float


def versions(trace: Trace) -> tuple[int, ...]:
    """Hadoop versions whose scheduler could have produced `trace`: 1 for MRv1 history."""
    return (1,) if trace.format == "hadoop1" else (2, 3)


def derived_cluster(trace: Trace, settings: SchedulerSettings) -> Cluster:
    """The cluster the trace's observed attempts show (`whatif.readers.slots`)."""
    attempts = trace.observed.attempts
    if settings.hadoop_version == 1:
        seen = observed_slots(attempts)
    else:
        seen = observed_nodes(
            attempts,
            minimum_mb=settings.min_allocation_mb,
            minimum_vcores=settings.min_allocation_vcores,
            increment_mb=settings.increment_mb,
            increment_vcores=settings.increment_vcores,
        )
    if seen is None:
        raise ValueError(f"{trace.source}: no observed attempt names its node or tracker")
    return seen.cluster


def trace_cluster(trace: Trace, path: Path, settings: SchedulerSettings) -> tuple[Cluster, str]:
    """The cluster the trace directory's own RM metrics report (its nodes, each an equal
    share of the total), else the one its observed attempts show; and which it was.

    The attempts show a lower bound: a trace whose apps were replayed from their metered
    containers (REST) records no attempt for them, so it shows less than they held."""
    metrics = path / OWN_METRICS
    if not metrics.is_file():
        return derived_cluster(trace, settings), ""
    seen = parse_cluster_metrics(json.loads(metrics.read_text(encoding="utf-8")))
    nodes = max(1, seen.total_nodes)
    spec = f"nodes={nodes},memory-mb={seen.total_mb / nodes:g},vcores={seen.total_vcores / nodes:g}"
    return Cluster.parse(spec), f"the RM's {OWN_METRICS}"


def equal_weights_xml(queues: Sequence[str], hadoop_version: int) -> bytes:
    """An allocation file with every queue of `queues` at weight 1.

    Hadoop 1 pools do not nest: a pool per leaf name. YARN queues nest as named.
    """
    if hadoop_version == 1:
        body = "".join(
            f"  <pool name={quoteattr(q.split('.')[-1])}><weight>1</weight></pool>\n"
            for q in queues
        )
        return f"<allocations>\n{body}</allocations>\n".encode()
    tree: dict = {}
    for q in queues:
        node = tree
        for part in q.removeprefix("root.").split("."):
            node = node.setdefault(part, {})

    def render(children: dict, depth: int) -> str:
        pad = "  " * depth
        return "".join(
            f"{pad}<queue name={quoteattr(name)}>\n{pad}  <weight>1</weight>\n"
            f"{render(sub, depth + 1)}{pad}</queue>\n"
            for name, sub in children.items()
        )

    return f"<allocations>\n{render(tree, 1)}</allocations>\n".encode()


def allocation_for(
    trace: Trace, path: Path, hadoop_version: int, given: Path | None = None
) -> tuple[AllocationDocument, str]:
    """`given`, else the trace directory's own allocation file, else equal weights."""
    own = path / OWN_ALLOCATION if path.is_dir() else path.parent / OWN_ALLOCATION
    for candidate in (given, own):
        if candidate is not None and candidate.is_file():
            return AllocationDocument.from_file(candidate), str(candidate)
    doc = AllocationDocument.from_bytes(equal_weights_xml(trace.workload.queues, hadoop_version))
    return doc, "equal weights"


def run_case(
    name: str,
    hadoop_version: int,
    *,
    engine: str,
    site: Path | None,
    allocation_file: Path | None = None,
    seed: int = 0,
) -> Case:
    """Predict trace `name` (under traces/) for one Hadoop version and compare with its record."""
    path = REPO / "traces" / name
    trace = read_trace(path)
    settings = (
        read_site(site, hadoop_version=hadoop_version).settings
        if site
        else SchedulerSettings(hadoop_version=hadoop_version)
    )
    cluster, cluster_source = trace_cluster(trace, path, settings)
    document, source = allocation_for(trace, path, hadoop_version, allocation_file)
    allocation = effective_allocation(document, hadoop_version=hadoop_version)
    started = time.perf_counter()
    schedule = predict(
        trace.workload, allocation, cluster, settings=settings, engine=engine, seed=seed
    )
    seconds = time.perf_counter() - started
    notes = [f"cluster from {cluster_source}"] if cluster_source else []
    stuck = len(unfinished_jobs(schedule))
    if stuck:
        notes.append(f"{stuck} predicted job(s) never finished (left out)")
    bare = len(set(trace.workload.jobs["job_id"]) - set(trace.workload.tasks["job_id"]))
    if bare:
        notes.append(
            f"{bare} job(s) have no tasks in the trace, so the prediction finishes them "
            "at submission"
        )
    note = "; ".join(notes)
    errors = prediction_errors(schedule, trace.observed)
    return Case(name, hadoop_version, cluster.spec(), source, errors, note, seconds)


def render(cases: Sequence[Case]) -> str:
    """The table docs/predictor.md shows: one row per trace, version and queue."""
    head = (
        f"{'trace':<14} {'hadoop':>6} {'queue':<18} {'jobs':>4} {'RAE':>7} {'RSE':>7} "
        f"{'MAE s':>8} {'bias s':>8}"
    )
    lines = [head, "-" * len(head)]
    single = False
    for case in cases:
        if case.errors is None:
            lines.append(f"{case.trace:<14} {case.hadoop_version:>6} {case.note}")
            continue
        for row in case.errors.itertuples(index=False):
            single |= row.jobs == 1
            lines.append(
                f"{case.trace:<14} {case.hadoop_version:>6} {row.queue:<18} {row.jobs:>4} "
                f"{_num(row.rae):>7} {_num(row.rse):>7} {row.mae_s:>8.1f} {row.bias_s:>+8.1f}"
            )
    lines.append("")
    for case in cases:
        extra = f"; {case.note}" if case.note else ""
        lines.append(
            f"{case.trace} (Hadoop {case.hadoop_version}): --cluster {case.cluster}, "
            f"allocation: {case.allocation}, predicted in {case.seconds:.2f} s{extra}"
        )
    if single:
        lines.append(
            "RAE and RSE are NaN for a queue of one job: one finish time has no spread to divide by."
        )
    lines.append(
        "Left out: " + ", ".join(SIMULATED) + " (simulated recordings: their observed "
        "schedules come from tempo's own predictor, not from a Hadoop cluster)."
    )
    return "\n".join(lines)


def _num(value: float) -> str:
    """Three decimals; a tiny nonzero error (jobs months apart) in scientific notation."""
    if math.isnan(value):
        return "nan"
    return f"{value:.3f}" if value == 0 or value >= 0.001 else f"{value:.1e}"


def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("numba", "reference"), default="numba")
    parser.add_argument(
        "--site",
        type=Path,
        help="yarn-site.xml (mapred-site.xml for Hadoop 1): the scheduler knobs "
        "[default: Hadoop's defaults]",
    )
    parser.add_argument(
        "--trace",
        action="append",
        choices=REAL_TRACES,
        help="only this trace (repeatable) [default: every real trace]",
    )
    parser.add_argument(
        "--allocation",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="predict trace NAME under allocation FILE (repeatable) [default: equal weights]",
    )
    args = parser.parse_args(argv)
    given = {}
    for item in args.allocation:
        name, sep, file = item.partition("=")
        if not sep or name not in REAL_TRACES or not Path(file).is_file():
            parser.error(
                f"--allocation {item!r}: expected NAME=FILE with NAME one of "
                f"{', '.join(REAL_TRACES)} and FILE an existing allocation file"
            )
        given[name] = Path(file)
    cases = []
    for name in args.trace or REAL_TRACES:
        for version in versions(read_trace(REPO / "traces" / name)):
            cases.append(
                run_case(
                    name,
                    version,
                    engine=args.engine,
                    site=args.site,
                    allocation_file=given.get(name),
                )
            )
    text = render(cases)
    print(text)  # noqa: T201 - a benchmark prints its figures
    return text


if __name__ == "__main__":
    main()
