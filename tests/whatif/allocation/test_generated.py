"""Generated allocation files: round trips through the writer and random edits stay faithful."""

import math
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whatif.allocation import (
    AllocationDocument,
    Resources,
    effective_allocation,
    validate,
    write_allocation,
)
from whatif.allocation.java_values import to_java_float
from whatif.allocation.model import NEVER_TIMEOUT_S

RESOURCE_FORMS = [
    "{m} mb, {v} vcores",
    "{m}mb,{v}vcores",
    "memory-mb={m}, vcores={v}",
    "vcores={v},memory-mb={m}",
]
NUMBER = st.floats(0, 1000, allow_nan=False).map(lambda x: round(x, 3))
SHARE = st.floats(0, 1, allow_nan=False).map(lambda x: round(x, 3))
TIMEOUT = st.integers(0, 10**6)


def setting_values(leaf: bool):
    values = {
        "weight": NUMBER.map(repr),
        "minResources": st.tuples(
            st.integers(0, 10**6), st.integers(0, 500), st.sampled_from(RESOURCE_FORMS)
        ).map(lambda t: t[2].format(m=t[0], v=t[1])),
        "maxResources": st.one_of(
            st.tuples(
                st.integers(0, 10**7), st.integers(0, 5000), st.sampled_from(RESOURCE_FORMS)
            ).map(lambda t: t[2].format(m=t[0], v=t[1])),
            st.integers(0, 100).map(lambda p: f"{p}%"),
        ),
        "maxRunningApps": st.integers(0, 10**4).map(str),
        "minSharePreemptionTimeout": TIMEOUT.map(str),
        "fairSharePreemptionTimeout": TIMEOUT.map(str),
        "fairSharePreemptionThreshold": SHARE.map(repr),
        "allowPreemptionFrom": st.sampled_from(["true", "false"]),
        "schedulingPolicy": st.sampled_from(["fair", "fifo", "drf"] if leaf else ["fair", "drf"]),
    }
    if leaf:
        values["maxAMShare"] = st.one_of(SHARE.map(repr), st.just("-1.0"))
    return values


@st.composite
def queue(draw, name: str, depth: int):
    children_names = draw(
        st.lists(
            st.text("abcdefgh", min_size=1, max_size=4), max_size=3 if depth < 3 else 0, unique=True
        )
    )
    leaf = not children_names
    choices = setting_values(leaf)
    chosen = draw(st.lists(st.sampled_from(sorted(choices)), unique=True, max_size=5))
    settings_ = [(s, draw(choices[s])) for s in chosen]
    children = [draw(queue(child, depth + 1)) for child in children_names]
    return name, settings_, children


@st.composite
def allocation_files(draw) -> bytes:
    indent = draw(st.sampled_from(["  ", "    ", "\t"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    top = draw(
        st.lists(st.text("abcdefgh", min_size=1, max_size=4), min_size=1, max_size=4, unique=True)
    )
    queues = [draw(queue(name, 1)) for name in top]
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<!-- generated -->", "<allocations>"]

    def render(node, level):
        name, settings_, children = node
        pad = indent * level
        if draw(st.booleans()):
            lines.append(f"{pad}<!-- queue {name} -->")
        if not settings_ and not children and draw(st.booleans()):
            lines.append(f'{pad}<queue name="{name}"/>')
            return
        lines.append(f'{pad}<queue name="{name}">')
        for setting, value in settings_:
            lines.append(f"{pad}{indent}<{setting}>{value}</{setting}>")
        for child in children:
            render(child, level + 1)
        lines.append(f"{pad}</queue>")

    for node in queues:
        render(node, 1)
    for element, strategy in [
        ("queueMaxAppsDefault", st.integers(1, 500).map(str)),
        ("defaultMinSharePreemptionTimeout", TIMEOUT.map(str)),
        ("defaultFairSharePreemptionThreshold", SHARE.map(repr)),
        ("queueMaxAMShareDefault", SHARE.map(repr)),
    ]:
        if draw(st.booleans()):
            lines.append(f"{indent}<{element}>{draw(strategy)}</{element}>")
    lines.append("</allocations>")
    return (newline.join(lines) + newline).encode()


def written(doc: AllocationDocument) -> dict:
    return {(q.path, s.name): s.value for q in doc.iter_queues() for s in q.settings} | {
        ("", s.name): s.value for s in doc.defaults
    }


FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(allocation_files())
def test_parse_write_parse_equals_parse(data):
    """parse(write(parse(f))) equals parse(f): same bytes, same written values, same effective tree."""
    doc = AllocationDocument.from_bytes(data)
    assert doc.to_bytes() == data
    assert [i for i in validate(doc) if i.severity == "error"] == []
    with tempfile.TemporaryDirectory() as folder:
        path = write_allocation(doc, Path(folder) / "fair-scheduler.xml")
        again = AllocationDocument.from_file(path)
    assert again.to_bytes() == data
    assert written(again) == written(doc)
    assert effective_allocation(again) == effective_allocation(doc)


def expected_value(setting: str, value):
    if value is None:
        return None
    if isinstance(value, Resources):
        return (math.floor(value.memory_mb), math.floor(value.vcores))
    if setting in ("maxAMShare", "fairSharePreemptionThreshold"):
        return to_java_float(value)
    if setting == "weight":
        return float(value)
    return value


EDITS = {
    "weight": NUMBER,
    "maxRunningApps": st.integers(0, 10**4),
    "minResources": st.builds(
        Resources, st.integers(0, 10**6).map(float), st.integers(0, 500).map(float)
    ),
    "maxResources": st.builds(
        Resources, st.integers(0, 10**7).map(float), st.integers(0, 5000).map(float)
    ),
    "minSharePreemptionTimeout": st.one_of(TIMEOUT, st.just(math.inf)),
    "fairSharePreemptionTimeout": st.one_of(TIMEOUT, st.just(math.inf)),
    "fairSharePreemptionThreshold": SHARE,
    "maxAMShare": SHARE,
    "allowPreemptionFrom": st.booleans(),
}


@FAST
@given(allocation_files(), st.data())
def test_random_edits_validate_and_read_back(data, draw):
    """After random set calls the file still validates and reads back the values set, nothing else changed."""
    doc = AllocationDocument.from_bytes(data)
    for _ in range(draw.draw(st.integers(1, 4))):
        target = draw.draw(st.sampled_from([q for q in doc.iter_queues()]))
        names = [n for n in sorted(EDITS) if not (n == "maxAMShare" and target.is_parent)]
        setting = draw.draw(st.sampled_from(names))
        value = draw.draw(st.one_of(st.none(), EDITS[setting]))
        before = written(doc)
        doc = doc.set(target.path, setting, value)
        doc = AllocationDocument.from_bytes(doc.to_bytes())
        after = written(doc)
        got = doc.queue(target.path).get(setting)
        if isinstance(value, float) and math.isinf(value):
            assert got is None or got.value == NEVER_TIMEOUT_S
            assert (
                getattr(
                    effective_allocation(doc).queue(target.path),
                    {
                        "minSharePreemptionTimeout": "min_share_preemption_timeout_s",
                        "fairSharePreemptionTimeout": "fair_share_preemption_timeout_s",
                    }[setting],
                )
                == math.inf
            )
        elif value is None:
            assert got is None
        else:
            read = got.value
            if isinstance(value, Resources):
                read = (read.memory, read.vcores)
            assert read == expected_value(setting, value)
        key = (target.path, setting)
        assert {k: v for k, v in before.items() if k != key} == {
            k: v for k, v in after.items() if k != key
        }
        assert [i for i in validate(doc) if i.severity == "error"] == []
