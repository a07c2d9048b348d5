"""Property-based fuzzing of every parser and of `tempo config set` round trips.

Every parser of ``benchmarks/fuzz_targets.py`` (allocation files, site files,
capacity-scheduler.xml files, QS templates, space files, cluster specs, durations,
workload shifts, deadlines, RM responses, workload models, and the SLS, Rumen, jhist,
REST, SWIM and native trace readers)
gets hypothesis-drawn mutations of its seeds and must accept the input or refuse
it with tempo's own error in one line. The SLS and Rumen seeds go through the
readers' columnar fast paths (a mutation they decline reaches the precise path);
jhist files under 2 MB go to the precise reader, so ``jhist-fast`` fuzzes the same
seeds with the fast path forced. The budget is fixed (``TEMPO_FUZZ_EXAMPLES``
per parser, 25 by default) and the example database under
``tests/fuzz/hypothesis-db`` is replayed read-only, so CI stays fast; set
``TEMPO_FUZZ_RECORD=1`` to let a longer local run save what it finds there.
Every input that ever broke a parser (``tests/fuzz/regressions``, also filled by
``benchmarks/fuzz.py --save``) is replayed on each run.
"""

from __future__ import annotations

import math
import os
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ReadOnlyDatabase

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from fuzz_targets import KINDS, Mutation, mutate, targets, verdict  # noqa: E402

from whatif.allocation import AllocationDocument, write_allocation  # noqa: E402
from whatif.allocation.assign import apply_assignments, parse_assignment  # noqa: E402
from whatif.allocation.model import (  # noqa: E402
    ALIASES,
    MRV1_QUEUE_SETTINGS,
    QUEUE_SETTINGS,
    read_value,
)
from whatif.allocation.resource_string import parse_resource  # noqa: E402
from whatif.errors import AllocationError, WhatifError  # noqa: E402

HERE = Path(__file__).resolve().parent
REGRESSIONS = HERE / "regressions"
_DB = DirectoryBasedExampleDatabase(HERE / "hypothesis-db")
FUZZ = settings(
    max_examples=int(os.environ.get("TEMPO_FUZZ_EXAMPLES", "25")),
    deadline=None,
    database=_DB if os.environ.get("TEMPO_FUZZ_RECORD") else ReadOnlyDatabase(_DB),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MUTATIONS = st.lists(
    st.builds(
        Mutation,
        kind=st.integers(0, len(KINDS) - 1),
        at=st.floats(0, 1, exclude_max=True),
        length=st.integers(1, 64),
        token=st.integers(0, 1 << 16),
        byte=st.integers(0, 255),
    ),
    min_size=1,
    max_size=8,
)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("name", list(targets()))
@FUZZ
@given(seed=st.integers(0, 1 << 10), mutations=MUTATIONS)
def test_a_mutated_input_is_accepted_or_refused_in_one_line(name, seed, mutations, work):
    """Whatever the mutation, the parser returns or raises tempo's own one-line error."""
    target = targets()[name]
    chosen = target.seeds[seed % len(target.seeds)]
    data = mutate(chosen.data, mutations, target.tokens)
    outcome, detail = verdict(target, data, chosen, work)
    assert outcome != "traceback", detail


def _regressions() -> list[Path]:
    return sorted(p for p in REGRESSIONS.glob("*/*") if p.is_file())


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


@pytest.mark.parametrize(
    "path", _regressions(), ids=lambda p: f"{p.parent.name}/{p.name.split('.', 1)[0]}"
)
def test_an_input_that_once_broke_a_parser_is_refused_cleanly(path, work):
    """Inputs that gave a traceback or a hang (saved by benchmarks/fuzz.py or by hand)."""
    target = targets()[path.parent.name]
    seed_name = path.name.split(".", 1)[1]
    seed = next(s for s in target.seeds if s.name == seed_name)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(20)
    try:
        outcome, detail = verdict(target, path.read_bytes(), seed, work)
    except _Hang:
        outcome, detail = "hang", "no answer within 20 s"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert outcome in ("ok", "clean"), detail


# -- tempo config set -----------------------------------------------------------------

ALLOCATION_SEEDS = [
    ROOT / "configs" / "contended-expert.xml",
    ROOT / "configs" / "contended-expert-hadoop1.xml",
    ROOT / "configs" / "two-tenant-expert.xml",
    ROOT / ".." / "shared" / "data" / "hadoop" / "alloc" / "fairscheduler-doc-example.xml",
]
SETTING_NAMES = sorted(
    ({*QUEUE_SETTINGS, *MRV1_QUEUE_SETTINGS, *ALIASES} - {"reservation", "pool"}) | {"bogus"}
)
VALUES = st.one_of(
    st.integers(-5, 2**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        [
            "default",
            "never",
            "off",
            "fair",
            "drf",
            "FIFO",
            "true",
            "false",
            "1024 mb, 1 vcores",
            "memory-mb=2048, vcores=2",
            "vcores=2,memory-mb=1",
            "50%",
            "50%, 20%",
            "-1",
            "0.5",
            "1e309",
            "",
            "*",
            "alice,bob admins",
            "<x/>",
            "a & b",
        ]
    ),
    st.text(max_size=20),
)


def _written(document: AllocationDocument) -> dict[tuple[str, str], str | None]:
    """Every queue setting as written: (queue, canonical setting) -> its text."""
    return {
        (queue.path, setting.name): setting.raw
        for queue in document.iter_queues()
        for setting in (*queue.settings, *queue.mrv1)
    }


def _reads_back(setting, value: object, canonical: str) -> bool:
    """Whether the written element holds `value` (as `parse_assignment` read it)."""
    kind = QUEUE_SETTINGS.get(canonical) or MRV1_QUEUE_SETTINGS.get(canonical)
    if kind == "resource":
        missing = 0.0 if canonical == "minResources" else math.inf
        return parse_resource(setting.text).as_limit(missing=missing) == value
    if kind == "long" and value == math.inf:
        return True  # "never": written as the largest timeout
    typed, problem = read_value(kind, setting.raw, setting.tag)
    if problem is not None:
        return False
    if kind == "policy":
        return typed == str(value).lower()
    if kind == "acl":
        return setting.raw == value
    expected, _ = read_value(kind, repr(value), setting.tag)  # as Java reads the value asked for
    return typed == expected


@FUZZ
@given(data=st.data())
def test_config_set_round_trips(data, work):
    """``tempo config set FILE --set root.Q.SETTING=VALUE``: a clean refusal, or a file that
    parses back with that one element holding the value, every other setting byte for
    byte, the same bytes when set again, and written as is (or refused as invalid)."""
    source = data.draw(st.sampled_from(ALLOCATION_SEEDS), label="file")
    document = AllocationDocument.from_file(source)
    queues = [q.path for q in document.iter_queues()] + ["root.nope", "root.a.b.c"]
    queue = data.draw(st.sampled_from(queues), label="queue")
    name = data.draw(st.sampled_from(SETTING_NAMES), label="setting")
    text = f"{queue}.{name}={data.draw(VALUES, label='value')}"
    try:
        changed = apply_assignments(document, [text])
    except WhatifError as error:
        assert isinstance(error, AllocationError) and "\n" not in str(error).strip()
        return
    _, _, value = parse_assignment(text)
    canonical = ALIASES.get(name, name)
    raw = changed.to_bytes()
    reread = AllocationDocument.from_bytes(raw)
    assert reread.to_bytes() == raw
    before, after = _written(document), _written(reread)
    key = (queue if queue != "root" or ("root", canonical) in after else queue, canonical)
    others = {k: v for k, v in after.items() if k[1] != canonical or k[0] != queue}
    assert others == {k: v for k, v in before.items() if k[1] != canonical or k[0] != queue}
    if value is None:
        assert key not in after
    elif key in after:
        assert _reads_back(reread.queue(queue).get(canonical), value, canonical), text
    else:  # "never" for a timeout that nothing above sets: the element is removed
        assert value == math.inf
    assert apply_assignments(reread, [text]).to_bytes() == raw
    target = work / "set.xml"
    try:
        write_allocation(changed, target)
    except AllocationError as error:
        assert "refusing to write an invalid allocation file" in str(error)
    else:
        assert target.read_bytes() == raw
