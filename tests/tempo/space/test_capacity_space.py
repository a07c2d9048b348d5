"""The Capacity Scheduler configuration space (issue 26): simplex capacities, valid writes, round trips."""

from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import CAPACITY_PREFIX as P
from samples import capacity_document as document

from tempo.space.capacity_space import CapacitySpace, capacity_distance
from whatif.capacity import ConfigurationDocument, effective_queues, validate

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = [
    ROOT / "configs" / "two-tenant-capacity.xml",
    ROOT / "configs" / "six-tenant-capacity.xml",
    ROOT / "configs" / "capacity-hadoop-sls-sample.xml",
]


#: Nested percentages (one untuned-able single child), and a weight-mode parent with a
#: maximum-capacity the weights must respect.
NESTED = {
    "root.queues": "a,b,c",
    "root.a.capacity": "50",
    "root.a.maximum-capacity": "80",
    "root.b.capacity": "30.5",
    "root.c.capacity": "19.5",
    "root.c.maximum-capacity": "40",
    "root.a.queues": "x,y",
    "root.a.x.capacity": "70",
    "root.a.y.capacity": "30",
    "root.a.y.ordering-policy": "fair",
    "root.b.queues": "only",
    "root.b.only.capacity": "100",
}
WEIGHTS = {
    "root.queues": "p,q,r",
    "root.p.capacity": "3w",
    "root.q.capacity": "1w",
    "root.r.capacity": "1w",
    "root.r.maximum-capacity": "30",
}


def spaces():
    for path in SAMPLES:
        doc = ConfigurationDocument.from_file(path)
        yield doc, CapacitySpace.default(doc, preemption=True)
    for props in (NESTED, WEIGHTS):
        doc = document(props)
        yield doc, CapacitySpace.default(doc, preemption=True)
        yield doc, CapacitySpace.default(doc, settings=("capacity",))


CASES = list(spaces())


def check_point(doc, space, point):
    written = space.apply(doc, point)
    errors = [i for i in validate(written) if i.severity == "error"]
    assert not errors, errors
    assert np.allclose(space.encode(written), point, rtol=0, atol=1e-9)
    return written


@settings(max_examples=40, deadline=None)
@given(
    case=st.integers(0, len(CASES) - 1),
    seed=st.integers(0, 2**32 - 1),
    radius=st.floats(0.0, 1.0),
)
def test_random_points_in_the_radius_write_valid_files_that_read_back_as_the_point(
    case, seed, radius
):
    doc, space = CASES[case]
    center = space.project(space.encode(doc))
    rng = np.random.default_rng(seed)
    for point in space.sample(rng, 4, center=center, radius=radius):
        assert space.distance(point, center) <= radius + 1e-9
        check_point(doc, space, point)
    for point in space.project(rng.random((4, len(space)))):
        check_point(doc, space, point)


def test_siblings_keep_summing_to_100_and_maximum_stays_above_capacity():
    doc = document(NESTED)
    space = CapacitySpace.default(doc)
    names = space.names
    assert "root.b.only.capacity" not in names  # a single child has no freedom
    vector = space.encode(doc)
    vector[names.index("root.a.capacity")] = 1.0  # ask for everything
    vector[names.index("root.a.maximum-capacity")] = 0.0  # and a tiny maximum
    written = check_point(doc, space, space.project(vector))
    queues = effective_queues(written)
    top = [Decimal(written.value(f"{P}root.{q}.capacity")) for q in "abc"]
    assert sum(top) == 100  # exactly, in the written decimals
    # the nearest point of the simplex: a grows (never past its maximum, 80), b and c shrink
    assert 50 < queues["root.a"].capacity <= 80
    assert queues["root.b"].capacity < 30.5 and queues["root.c"].capacity < 19.5
    assert queues["root.a"].maximum_capacity >= queues["root.a"].capacity


def test_weights_move_freely_but_not_past_an_untuned_maximum():
    doc = document(WEIGHTS)
    space = CapacitySpace.default(doc, settings=("capacity",))
    vector = space.encode(doc)
    vector[space.names.index("root.r.capacity")] = 1.0
    written = check_point(doc, space, space.project(vector))
    r = effective_queues(written)["root.r"]
    assert r.absolute_capacity <= 0.30 + 1e-4
    assert written.value(P + "root.r.capacity").endswith("w")


def test_an_unchanged_point_changes_no_byte():
    for path in SAMPLES:
        doc = ConfigurationDocument.from_file(path)
        space = CapacitySpace.default(doc, preemption=True)
        assert space.apply(doc, space.encode(doc)).to_bytes() == doc.to_bytes()


def test_one_move_writes_only_its_property():
    doc = ConfigurationDocument.from_file(SAMPLES[0])
    space = CapacitySpace.default(doc)
    vector = space.encode(doc)
    i = space.names.index("root.engineer.ordering-policy")
    vector[i] = 0.25  # fifo
    assert space.changes(doc, vector) == ((P + "root.engineer.ordering-policy", "fifo"),)


def test_preemption_properties_only_with_preemption_on():
    doc = ConfigurationDocument.from_file(SAMPLES[0])
    off = CapacitySpace.default(doc)
    assert not any(n.startswith("preemption.") for n in off.names)
    assert any("preemption is off" in note for note in off.notes)
    on = CapacitySpace.default(doc, preemption=True)
    assert "preemption.total_preemption_per_round" in on.names
    steps = on.steps
    assert steps[on.names.index("root.prod.ordering-policy")] == pytest.approx(0.5)
    assert steps[on.names.index("preemption.max_wait_before_kill")] > 0
    assert steps[on.names.index("root.prod.capacity")] == 0


def test_distance_between_capacity_files():
    a = ConfigurationDocument.from_file(SAMPLES[0])
    assert capacity_distance(a, a).distance == 0
    b = a.set(P + "root.prod.capacity", "60").set(P + "root.engineer.capacity", "40")
    near = capacity_distance(a, b).distance
    c = a.set(P + "root.prod.capacity", "30").set(P + "root.engineer.capacity", "70")
    assert 0 < near < capacity_distance(a, c).distance <= 1
    other = document(WEIGHTS)
    assert capacity_distance(a, other) is None  # nothing in common: no distance


#: Two leaves at 60 % / 40 %: the space has 11 tunable dimensions (no preemption).
TWO_LEAVES = {"root.queues": "a,b", "root.a.capacity": "60", "root.b.capacity": "40"}
#: The distance of one untuned setting changed and nothing else: 1 over 12 coordinates.
ONE_CHANGE = (1 / 12) ** 0.5


@pytest.mark.parametrize(
    ("setting", "value_a", "value_b", "expected"),
    [
        ("root.a.user-limit-factor", "1.0", "1e400", ONE_CHANGE),  # Float.parseFloat: Infinity
        ("root.a.user-limit-factor", "Infinity", "1e400", 0.0),  # the same Java float
        ("root.a.user-limit-factor", "NaN", "NaN", 0.0),  # the same, as every other setting
        ("root.a.user-limit-factor", "1.0", "NaN", ONE_CHANGE),
        ("root.a.user-limit-factor", "-1", "Infinity", ONE_CHANGE),  # both no limit, not equal
        ("root.a.maximum-am-resource-percent", "0.1", "NaN", ONE_CHANGE),
        ("root.a.minimum-user-limit-percent", "Infinity", "50", ONE_CHANGE),
        ("root.a.ordering-policy", "fifo", "fifo-with-partitions", ONE_CHANGE),
        ("root.a.ordering-policy", "fifo-with-partitions", "fifo-with-partitions", 0.0),
    ],
)
def test_an_untuned_setting_counts_where_the_files_differ(setting, value_a, value_b, expected):
    """A leaf setting the space leaves untuned (a user-limit-factor of Infinity or NaN, ...)
    is one more coordinate, 1 where the files differ and 0 where not: 1.0 -> Infinity was
    distance 0, and a leaf of a policy other than fifo or fair was a ValidationError."""
    a = document({**TWO_LEAVES, setting: value_a})
    b = document({**TWO_LEAVES, setting: value_b})
    distance = capacity_distance(a, b)
    assert distance.distance == pytest.approx(expected, abs=1e-12)
    assert distance.untuned == (setting,) and distance.dimensions == 12 == len(distance.space) + 1
    assert "and 1 untuned setting(s); default" in distance.describe()
    assert capacity_distance(b, a).distance == pytest.approx(expected, abs=1e-12)


#: Two leaves with absolute capacities: the space has 8 tunable dimensions.
ABSOLUTE = {
    "root.queues": "a,b",
    "root.a.capacity": "[memory=4096,vcores=4]",
    "root.b.capacity": "[memory=2048,vcores=2]",
}


@pytest.mark.parametrize(
    ("changes", "untuned", "expected"),
    [
        ({"root.a.capacity": "[memory=6144,vcores=6]"}, ["a", "b"], (1 / 10) ** 0.5),
        ({}, ["a", "b"], 0.0),
        (
            {"root.b.maximum-capacity": "[memory=8192,vcores=8]"},
            ["a", "b", "b.max"],
            (1 / 11) ** 0.5,
        ),
    ],
)
def test_an_absolute_capacity_counts_where_the_files_differ(changes, untuned, expected):
    """A capacity or maximum-capacity in absolute resources (which the space does not
    tune) is one more coordinate, 1 where the files differ: over the 8 tunable dimensions
    and these, a changed absolute capacity was distance 0."""
    names = {"a": "root.a.capacity", "b": "root.b.capacity", "b.max": "root.b.maximum-capacity"}
    distance = capacity_distance(document(ABSOLUTE), document({**ABSOLUTE, **changes}))
    assert distance.untuned == tuple(names[u] for u in untuned)
    assert len(distance.space) == 8
    assert distance.distance == pytest.approx(expected, abs=1e-12)


def test_a_capacity_switched_to_absolute_counts():
    """A percentage capacity made absolute leaves its dimension (the other file cannot give
    it a percentage) and counts as an untuned coordinate instead."""
    distance = capacity_distance(
        document(TWO_LEAVES), document({**TWO_LEAVES, "root.a.capacity": "[memory=4096,vcores=4]"})
    )
    assert distance.untuned == ("root.a.capacity",) and distance.distance > 0


def test_a_preemption_property_that_is_not_finite_is_untuned_not_an_error():
    """A monitor property of NaN or Infinity was a ValidationError (its bounds or vector
    not finite): it is left untuned, with a note, and counts 1 where the files differ."""
    name = "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round"
    a = document({**TWO_LEAVES, name: "0.1"})
    for value in ("NaN", "1e400"):
        distance = capacity_distance(a, document({**TWO_LEAVES, name: value}))
        assert distance.untuned == ("preemption.total_preemption_per_round",)
        assert np.isfinite(distance.distance) and distance.distance > 0
        same = capacity_distance(document({**TWO_LEAVES, name: value}), a.set(name, value))
        assert same.distance == 0
    space = CapacitySpace.default(document({**TWO_LEAVES, name: "NaN"}), preemption=True)
    assert "preemption.total_preemption_per_round nan is not tuned" in space.notes
