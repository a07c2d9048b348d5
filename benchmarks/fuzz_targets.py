"""Fuzz targets: every parser tempo runs on a user's file or text, with seeds and mutations.

Shared by the CI property tests (``tests/fuzz/test_fuzz.py``: hypothesis, a fixed
budget, a saved example database) and the long run (``benchmarks/fuzz.py``: counts
of clean errors, tracebacks and hangs per parser).

An input is a *seed* (a valid file: the bundled samples, Hadoop's own examples in
``../shared/data``) with a list of `Mutation` applied: spans deleted, duplicated or
truncated, bytes flipped, and tokens inserted or swapped in, from a dictionary of
the seed's own tokens plus values that break parsers (huge, negative and special
numbers, quotes, brackets, NUL, invalid UTF-8). A target passes an input when the
parser accepts it or refuses it with tempo's own error (`whatif.WhatifError` or
`tempo.TempoError`) in one non-empty line; anything else is a traceback.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tempo.space import ConfigurationSpace
from whatif.allocation import effective_allocation

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
HADOOP = DATA / "hadoop"

#: Values that break parsers, inserted or swapped in by mutations.
INTERESTING: tuple[bytes, ...] = (
    b"99999999999999999999999",
    b"9223372036854775808",
    b"-9223372036854775809",
    b"2147483648",
    b"1e309",
    b"-1e309",
    b"1.7976931348623157e308",
    b"5e-324",
    b"-1",
    b"-0",
    b"0",
    b"0.5",
    b"NaN",
    b"nan",
    b"inf",
    b"-Infinity",
    b"null",
    b"true",
    b"",
    b" ",
    b"\t",
    b"\n",
    b"\r\n",
    b"\x00",
    b"\xff\xfe",
    b"\xc3\x28",
    "\u2028".encode(),
    "\U0001f600".encode(),
    b'"',
    b"'",
    b"\\",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b";",
    b"=",
    b"%",
    b"<",
    b">",
    b"</",
    b"/>",
    b"<!--",
    b"-->",
    b"&amp;",
    b"&#0;",
    b"<![CDATA[",
    b"{}",
    b"[]",
    b'""',
)

#: Numbers in a seed, for the ``number`` mutation.
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_.-]*|-?\d+(?:\.\d+)?|[^\sA-Za-z0-9]")

#: The mutation kinds, by index.
KINDS = ("delete", "insert", "replace", "duplicate", "truncate", "flip", "number")

#: Largest input a mutation may grow to (bytes).
MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class Mutation:
    """One edit of an input: `kind` (an index of `KINDS`) at fraction `at` of its length,
    over `length` bytes, with token number `token` (modulo the dictionary) or `byte`."""

    kind: int
    at: float
    length: int
    token: int
    byte: int = 0


@dataclass(frozen=True)
class Seed:
    """A valid input: its file name (the reader may use the suffix) and bytes."""

    name: str
    data: bytes


@dataclass(frozen=True)
class Target:
    """A parser: its name, seeds, and `parse(data, seed, work_dir)`, which raises to refuse."""

    name: str
    seeds: tuple[Seed, ...]
    parse: Callable[[bytes, Seed, Path], object]

    @functools.cached_property
    def tokens(self) -> tuple[bytes, ...]:
        """`INTERESTING` and up to 200 distinct tokens of the seeds (the format's words)."""
        found: dict[bytes, None] = {}
        for seed in self.seeds:
            for token in _TOKEN.findall(seed.data):
                found.setdefault(token, None)
                if len(found) >= 200:
                    break
        return INTERESTING + tuple(found)


def mutate(data: bytes, mutations: Sequence[Mutation], tokens: Sequence[bytes]) -> bytes:
    """`data` with `mutations` applied in order (see `KINDS`)."""
    out = bytes(data)
    for m in mutations:
        size = len(out)
        at = min(size, int(m.at * (size + 1)))
        end = min(size, at + max(1, m.length))
        token = tokens[m.token % len(tokens)]
        kind = KINDS[m.kind % len(KINDS)]
        if kind == "delete":
            out = out[:at] + out[end:]
        elif kind == "insert":
            out = out[:at] + token + out[at:]
        elif kind == "replace":
            out = out[:at] + token + out[end:]
        elif kind == "duplicate":
            out = out[:end] + out[at:end] + out[end:]
        elif kind == "truncate":
            out = out[:at]
        elif kind == "flip" and size:
            position = min(at, size - 1)
            out = out[:position] + bytes([m.byte & 0xFF]) + out[position + 1 :]
        elif kind == "number":
            numbers = list(_NUMBER.finditer(out))
            if numbers:
                match = numbers[int(m.at * len(numbers)) % len(numbers)]
                number = INTERESTING[m.token % 12]  # the numeric ones
                out = out[: match.start()] + number + out[match.end() :]
        out = out[:MAX_BYTES]
    return out


#: What a parser may raise to refuse an input.
def clean_errors() -> tuple[type[BaseException], ...]:
    from tempo.errors import TempoError
    from whatif.errors import WhatifError

    return (WhatifError, TempoError)


def verdict(target: Target, data: bytes, seed: Seed, work: Path) -> tuple[str, str]:
    """``("ok", "")``, ``("clean", error class)`` or ``("traceback", type: message)``."""
    try:
        target.parse(data, seed, work)
    except clean_errors() as error:
        text = str(error)
        if not text.strip() or "\n" in text.strip():
            return (
                "traceback",
                f"{type(error).__name__} with a message of {len(text.splitlines())} lines",
            )
        return "clean", type(error).__name__
    except RecursionError:
        return "traceback", "RecursionError"
    except Exception as error:  # noqa: BLE001 (what the fuzzers look for)
        return "traceback", f"{type(error).__name__}: {error}"[:300]
    return "ok", ""


# -- the parsers ----------------------------------------------------------------------


def _file(work: Path, seed: Seed, data: bytes) -> Path:
    path = work / seed.name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _reader(name: str) -> Callable[[bytes, Seed, Path], object]:
    def parse(data: bytes, seed: Seed, work: Path) -> object:
        from whatif.readers import read_trace

        return read_trace(_file(work, seed, data), format=name)

    return parse


def _jhist_fast(data: bytes, seed: Seed, work: Path) -> object:
    """The jhist reader with every file on the columnar fast path: the seeds are below
    `SMALL_FILE_BYTES`, so the plain ``jhist`` target only reaches the precise reader."""
    from whatif.readers import jhist_columns, read_trace

    small, jhist_columns.SMALL_FILE_BYTES = jhist_columns.SMALL_FILE_BYTES, 0
    try:
        return read_trace(_file(work, seed, data), format="jhist")
    finally:
        jhist_columns.SMALL_FILE_BYTES = small


def _allocation(data: bytes, seed: Seed, work: Path) -> object:
    from whatif.allocation import AllocationDocument, validate
    from whatif.allocation.summary import queue_table

    document = AllocationDocument.from_bytes(data, source=seed.name)
    validate(document, hadoop_version=3)
    table = queue_table(document)
    validate(document, hadoop_version=1)
    effective_allocation(document, hadoop_version=1)
    return table


def _site(data: bytes, seed: Seed, work: Path) -> object:
    """A yarn-site.xml or mapred-site.xml as each Hadoop version reads it, and what it
    says of the settings the predictor leaves out (`whatif.predictor.unmodelled`). The
    seeds are not named yarn-site.xml or mapred-site.xml, so no earlier input is read as
    a sibling (`read_site`) and each verdict depends on its input alone."""
    from whatif.predictor.site import preemption_source, read_site

    path = _file(work, seed, data)
    for version in (1, 3):
        site = read_site(path, hadoop_version=version)
        site.scheduler_mismatch(capacity=False)
        site.scheduler_mismatch(capacity=True)
        preemption_source(site, version, None)
        [str(setting) for setting in site.unmodelled]
    return site


def _capacity(data: bytes, seed: Seed, work: Path) -> object:
    """A capacity-scheduler.xml: validated (its unmodelled settings included) and, when
    Hadoop would load it, the predictor's view of it."""
    from whatif.capacity import ConfigurationDocument, validate
    from whatif.cluster import Cluster
    from whatif.predictor.capacity import capacity_allocation

    document = ConfigurationDocument.from_bytes(data, source=seed.name)
    issues = validate(document)
    if any(issue.severity == "error" for issue in issues):
        return issues
    return capacity_allocation(document, Cluster.parse("nodes=4,memory-mb=8192,vcores=8"))


def _templates(data: bytes, seed: Seed, work: Path) -> object:
    from tempo.templates import load_templates

    return load_templates(_file(work, seed, data))


def _space(data: bytes, seed: Seed, work: Path) -> object:
    from tempo.space import SpaceSpec
    from whatif.allocation import AllocationDocument
    from whatif.cluster import Cluster

    spec = SpaceSpec.from_file(_file(work, seed, data))
    allocation = AllocationDocument.from_file(ROOT / "configs" / "two-tenant-expert.xml")
    return ConfigurationSpace.from_spec(
        spec, effective_allocation(allocation), Cluster.parse("nodes=24,memory-mb=8192,vcores=8")
    )


def _text(parse: Callable[[str], object]) -> Callable[[bytes, Seed, Path], object]:
    def run(data: bytes, seed: Seed, work: Path) -> object:
        return parse(data.decode("utf-8", "surrogateescape"))

    return run


def _cluster(text: str) -> object:
    from whatif.cluster import Cluster

    return Cluster.parse(text)


def _duration(text: str) -> object:
    from tempo.templates import parse_duration

    return parse_duration(text)


def _shift(text: str) -> object:
    from tempo.rm.workload_shift import WorkloadShift

    return WorkloadShift.parse(text)


def _deadlines(data: bytes, seed: Seed, work: Path) -> object:
    from tempo.loop.deadlines import read_deadlines

    return read_deadlines(_file(work, seed, data))


def _rm_json(data: bytes, seed: Seed, work: Path) -> object:
    from tempo.errors import RMError
    from tempo.rm import parse_cluster_metrics, parse_scheduler
    from whatif.readers.lenient_json import loads_lenient

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:  # what the transport reports for such a body
        raise RMError(f"{seed.name}: response is not UTF-8 JSON: {error}") from None
    body = loads_lenient(text, source=seed.name)
    parse = parse_cluster_metrics if "metrics" in seed.name else parse_scheduler
    return parse(body)


def _cluster_file(data: bytes, seed: Seed, work: Path) -> object:
    from whatif.readers.cluster_files import read_cluster_file

    return read_cluster_file(_file(work, seed, data))


#: An RM /ws/v1/cluster/nodes response: two node sizes (Hadoop 2 and 3 fields), a LOST node.
RM_NODES = (
    b'{"nodes": {"node": ['
    b'{"rack": "/r1", "state": "RUNNING", "id": "h1:45454", "nodeHostName": "h1", '
    b'"usedMemoryMB": 2048, "availMemoryMB": 6144, "usedVirtualCores": 2, '
    b'"availableVirtualCores": 6}, '
    b'{"rack": "/r2", "state": "RUNNING", "id": "h2:45454", "nodeHostName": "h2", '
    b'"totalResource": {"memory": 16384, "vCores": 16}}, '
    b'{"rack": "/r2", "state": "LOST", "id": "h3:45454", "nodeHostName": "h3"}]}}'
)


def _workload_model(data: bytes, seed: Seed, work: Path) -> object:
    from whatif.workload_model import WorkloadModel

    return WorkloadModel.from_json(_file(work, seed, data))


def _native(data: bytes, seed: Seed, work: Path) -> object:
    """A native CSV trace directory with one of its files replaced by `data`."""
    import shutil

    from whatif.readers import read_trace

    directory = work / "native"
    if directory.exists():
        shutil.rmtree(directory)
    shutil.copytree(_native_dir(), directory)
    (directory / seed.name).write_bytes(data)
    return read_trace(directory, format="native")


@functools.cache
def _scratch() -> Path:
    """A directory for generated seeds, removed when the interpreter exits."""
    import tempfile

    directory = tempfile.TemporaryDirectory(prefix="tempo-fuzz-seeds-")
    _SCRATCH.append(directory)  # kept alive (and cleaned up) with the module
    return Path(directory.name)


_SCRATCH: list = []


@functools.cache
def _native_dir() -> Path:

    from whatif.readers import read_trace, write_native

    directory = _scratch() / "native-trace"
    write_native(read_trace(HADOOP / "sls" / "inputsls.json"), directory, kind="csv")
    return directory


@functools.cache
def _rumen_seed() -> bytes:
    """A small Rumen trace (two jobs of three tasks) written by the ingest benchmark."""

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import ingest
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    path = _scratch() / "rumen.json"
    ingest.write_rumen(path, ingest._plan(6, 3, 0), 0)
    return path.read_bytes()


@functools.cache
def _model_seed() -> bytes:
    """A workload model fitted to the SLS example, as `tempo workload fit` writes it."""

    from whatif.readers import read_trace
    from whatif.workload_model import WorkloadModel

    path = _scratch() / "model.json"
    WorkloadModel().fit(read_trace(HADOOP / "sls" / "inputsls.json").workload).to_json(path)
    return path.read_bytes()


#: A site file setting every property `whatif.predictor.unmodelled` judges.
SITE_WATCHED = b"""<configuration>
<property><name>yarn.resourcemanager.scheduler.class</name>
<value>org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler</value></property>
<property><name>yarn.scheduler.fair.locality.threshold.node</name><value>0.5</value></property>
<property><name>yarn.scheduler.fair.locality.threshold.rack</name><value>0.7</value></property>
<property><name>yarn.scheduler.fair.locality-delay-node-ms</name><value>2000</value></property>
<property><name>yarn.scheduler.fair.locality-delay-rack-ms</name><value>4000</value></property>
<property><name>mapred.jobtracker.taskScheduler</name>
<value>org.apache.hadoop.mapred.FairScheduler</value></property>
<property><name>mapred.fairscheduler.weightadjuster</name>
<value>org.apache.hadoop.mapred.NewJobWeightBooster</value></property>
<property><name>mapred.fairscheduler.preemption</name><value>true</value></property>
<property><name>mapred.fairscheduler.preemption.only.log</name><value>true</value></property>
</configuration>
"""


def _seeds(*paths: Path) -> tuple[Seed, ...]:
    return tuple(Seed(p.name, p.read_bytes()) for p in paths)


def _swim_head() -> tuple[Seed, ...]:
    lines = (DATA / "swim" / "FB-2009_samples_24_times_1hr_0.tsv").read_bytes().splitlines()
    return (Seed("fb2009-head.tsv", b"\n".join(lines[:40]) + b"\n"),)


@functools.cache
def targets() -> dict[str, Target]:
    """Every fuzz target by name (seeds read once)."""
    alloc = [
        p
        for p in sorted((ROOT / "configs").glob("*.xml")) + sorted((HADOOP / "alloc").glob("*.xml"))
        if b"<allocations" in p.read_bytes()
    ]
    native_files = ("jobs.csv", "tasks.csv", "trace.json")
    made = [
        Target("allocation", _seeds(*alloc), _allocation),
        Target("templates", _seeds(*sorted((ROOT / "templates").glob("*/*.qs"))), _templates),
        Target(
            "site",
            (
                Seed("site-yarn.xml", (ROOT / "configs" / "sample-yarn-site.xml").read_bytes()),
                Seed(
                    "mapred-site.xml",
                    (HADOOP / "yarn-site" / "sls-sample-fair-site.xml").read_bytes(),
                ),
                Seed("yarn-site.xml", SITE_WATCHED),
            ),
            _site,
        ),
        Target(
            "capacity",
            _seeds(
                *sorted((ROOT / "configs").glob("*capacity*.xml")),
                HADOOP / "alloc" / "sls-sample-capacity-scheduler.xml",
            ),
            _capacity,
        ),
        Target("space", _seeds(ROOT / "configs" / "space-two-tenant.toml"), _space),
        Target(
            "cluster-spec",
            tuple(
                Seed("spec", s)
                for s in (
                    b"nodes=24,memory-mb=8192,vcores=8",
                    b"map-slots=30,reduce-slots=10",
                    b"memory-mb=102400,vcores=100",
                    b"nodes=2,memory-mb=8192,vcores=8+hosts=/r2/h3,memory-mb=16384,vcores=16",
                )
            ),
            _text(_cluster),
        ),
        Target(
            "duration",
            tuple(Seed("duration", s) for s in (b"45min", b"1h30m", b"90 s", b"2.5h")),
            _text(_duration),
        ),
        Target(
            "workload-shift",
            (Seed("shift", b"from=300,queue=root.engineer,duration=3,arrival=1.5"),),
            _text(_shift),
        ),
        Target(
            "deadlines",
            (Seed("deadlines.csv", b"name,deadline_s\nnightly-etl,3600\nhourly, 600.5\n"),),
            _deadlines,
        ),
        Target(
            "rm-json",
            _seeds(
                HADOOP / "rest" / "rm-scheduler-fair.json",
                HADOOP / "rest" / "rm-metrics.json",
            ),
            _rm_json,
        ),
        Target(
            "cluster-file",
            (*_seeds(HADOOP / "sls" / "nodes.json"), Seed("rm-nodes.json", RM_NODES)),
            _cluster_file,
        ),
        Target("workload-model", (Seed("model.json", _model_seed()),), _workload_model),
        Target("sls", _seeds(HADOOP / "sls" / "inputsls.json"), _reader("sls")),
        Target("rumen", (Seed("rumen.json", _rumen_seed()),), _reader("rumen")),
        Target("jhist", _seeds(*sorted((HADOOP / "jhist").glob("*.jhist"))), _reader("jhist")),
        Target("jhist-fast", _seeds(*sorted((HADOOP / "jhist").glob("*.jhist"))), _jhist_fast),
        Target(
            "rest",
            _seeds(
                *(HADOOP / "rest" / n for n in ("rm-apps.json", "jhs-jobs.json", "jhs-tasks.json")),
                HADOOP / "rest" / "jhs-task-attempts.json",
            ),
            _reader("rest"),
        ),
        Target("swim", _swim_head(), _reader("swim")),
        Target(
            "native",
            tuple(Seed(n, (_native_dir() / n).read_bytes()) for n in native_files),
            _native,
        ),
    ]
    return {t.name: t for t in made}
