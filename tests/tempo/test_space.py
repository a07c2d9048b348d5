"""The configuration space: encoding, integer and off domains, projection, distance, defaults."""

from __future__ import annotations

import difflib
import math
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from samples import flat_tree

from tempo.space import OFF_BAND, SETTINGS, YARN, Configuration, ConfigurationSpace, Dimension
from whatif import (
    Cluster,
    EffectiveAllocation,
    EffectiveQueue,
    QueueDefaults,
    ResourceLimit,
    Resources,
)
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.errors import ValidationError

CLUSTER = Cluster.parse("memory-mb=102400,vcores=100")


def two_queue() -> EffectiveAllocation:
    return flat_tree(
        prod={"weight": 2.0, "min_resources": Resources(20480, 10)},
        engineer={
            "weight": 1.0,
            "fair_share_preemption_timeout_s": 60,
            "max_resources": ResourceLimit(percent=(50.0, 50.0)),
        },
    )


def nested() -> EffectiveAllocation:
    return EffectiveAllocation(
        root=EffectiveQueue(
            "root",
            children=(
                EffectiveQueue(
                    "root.a",
                    scheduling_policy="drf",
                    children=(EffectiveQueue("root.a.x"), EffectiveQueue("root.a.y", weight=3.0)),
                ),
                EffectiveQueue("root.b", min_share_preemption_timeout_s=30),
            ),
        )
    )


def full_space() -> ConfigurationSpace:
    """Every YARN setting on the two-queue tree, vcores included."""
    space = ConfigurationSpace.default(two_queue(), CLUSTER, settings=YARN.settings)
    extra = [
        Dimension("root.prod", "minResources", "vcores", 0, 50, "integer", "linear"),
        Dimension("root.prod", "maxResources", "vcores", 50, 100, "integer", "linear", "high"),
    ]
    return ConfigurationSpace(space.dimensions + tuple(extra), cluster=CLUSTER)


SPACE = full_space()
D = len(SPACE)
unit_vectors = arrays(np.float64, D, elements=st.floats(0, 1))
any_vectors = arrays(np.float64, D, elements=st.floats(-2, 3))


def test_default_space_covers_every_setting_and_names_dimensions():
    """The full default space has one dimension per setting and component, named by override key."""
    names = SPACE.names
    assert "root.prod.weight" in names
    assert "root.prod.minResources.memory" in names
    assert "root.engineer.fairSharePreemptionTimeout" in names
    assert "root.engineer.maxAMShare" in names
    assert SPACE.index("root.prod.maxRunningApps") == names.index("root.prod.maxRunningApps")
    assert len({d.name for d in SPACE.dimensions}) == D


def test_encode_decode_returns_the_effective_values():
    """Decoding the encoding of an allocation gives back its effective values in Hadoop units."""
    allocation = two_queue()
    configuration = SPACE.decode(SPACE.encode(allocation))
    assert configuration.value("root.prod", "weight") == 2.0
    assert configuration.value("root.prod", "minResources.memory") == 20480
    assert configuration.value("root.prod", "minResources.vcores") == 10
    assert configuration.value("root.engineer", "fairSharePreemptionTimeout") == 60
    assert configuration.value("root.prod", "fairSharePreemptionTimeout") == math.inf
    assert configuration.value("root.engineer", "maxResources.memory") == 51200
    assert configuration.value("root.prod", "maxResources.memory") == math.inf
    assert configuration.value("root.prod", "maxRunningApps") == math.inf
    assert configuration.value("root.prod", "fairSharePreemptionThreshold") == 0.5


@settings(max_examples=200, deadline=None)
@given(unit_vectors)
def test_decode_encode_round_trip_is_stable(vector):
    """decode . encode . decode == decode, and encode . decode is the projection (to 6 digits)."""
    configuration = SPACE.decode(vector)
    again = SPACE.encode(configuration)
    assert SPACE.decode(again) == configuration
    np.testing.assert_allclose(again, SPACE.project(vector), rtol=0, atol=1e-5)


@settings(max_examples=200, deadline=None)
@given(any_vectors)
def test_projection_is_idempotent_and_decodes_integers(vector):
    """Projecting twice changes nothing, and integer settings decode to whole numbers."""
    once = SPACE.project(vector)
    np.testing.assert_array_equal(SPACE.project(once), once)
    for d, (_, _, value) in zip(SPACE.dimensions, SPACE.decode(once), strict=True):
        if d.domain == "integer" and math.isfinite(value):
            assert isinstance(value, int)
            assert d.low <= value <= d.high


def test_projection_clips_to_bounds():
    """Coordinates outside [0, 1] clip to the nearest bound."""
    space = ConfigurationSpace(
        (
            Dimension("root.a", "weight", None, 0.5, 8, scale="log"),
            Dimension("root.a", "fairSharePreemptionThreshold", None, 0, 1),
        ),
    )
    np.testing.assert_array_equal(space.project(np.array([-0.5, 1.7])), [0.0, 1.0])
    assert space.decode(np.array([0.0, 1.0])).entries == (
        ("root.a", "weight", 0.5),
        ("root.a", "fairSharePreemptionThreshold", 1.0),
    )


def test_encode_rejects_values_outside_the_bounds_unless_clipping():
    """An effective value outside a dimension's bounds raises naming it, or clips on request."""
    space = ConfigurationSpace((Dimension("root.prod", "weight", None, 0.5, 1.5, scale="log"),))
    with pytest.raises(
        ValidationError, match=r"root\.prod\.weight: expected a value in \[0.5, 1.5\].*got 2"
    ):
        space.encode(two_queue())
    assert space.encode(two_queue(), clip=True).tolist() == [1.0]


def timeout_space() -> ConfigurationSpace:
    return ConfigurationSpace(
        (
            Dimension(
                "root.engineer",
                "fairSharePreemptionTimeout",
                None,
                5,
                3600,
                "integer",
                "log",
                "band",
            ),
        )
    )


def test_timeout_off_encodes_to_one_and_decodes_to_infinity():
    """A timeout that never fires encodes at the top of the cube and decodes back to inf."""
    space = timeout_space()
    allocation = EffectiveAllocation(
        root=EffectiveQueue("root", children=(EffectiveQueue("root.engineer"),))
    )
    assert space.encode(allocation).tolist() == [1.0]
    assert (
        space.decode(np.array([1.0])).value("root.engineer", "fairSharePreemptionTimeout")
        == math.inf
    )


def test_values_just_inside_the_on_region_decode_to_finite_seconds():
    """Just below the off band a timeout is finite, near its upper bound, in whole seconds."""
    space = timeout_space()
    top = 1.0 - OFF_BAND
    value = space.decode(np.array([top - 1e-6])).value(
        "root.engineer", "fairSharePreemptionTimeout"
    )
    assert isinstance(value, int) and 3500 < value <= 3600
    assert space.decode(np.array([top + OFF_BAND / 2 - 1e-6])).entries[0][2] == 3600
    assert space.decode(np.array([top + OFF_BAND / 2 + 1e-6])).entries[0][2] == math.inf


def test_projection_snaps_the_off_band_to_the_nearer_state():
    """A point inside the off band moves to off (1) or to the top of the on range, whichever is nearer."""
    space = timeout_space()
    top = 1.0 - OFF_BAND
    assert space.project(np.array([top + 0.01])).tolist() == [top]
    assert space.project(np.array([1.0 - 0.01])).tolist() == [1.0]


def test_max_resources_at_the_cluster_size_means_no_limit():
    """The top of a maxResources range decodes as no limit, just below it as a finite limit."""
    space = ConfigurationSpace(
        (Dimension("root.a", "maxResources", "memory", 1024, 102400, "integer", off="high"),),
        cluster=CLUSTER,
    )
    assert space.decode(np.array([1.0])).entries[0][2] == math.inf
    assert space.decode(np.array([0.99])).entries[0][2] == 101386  # 1024 + 0.99 * (102400 - 1024)
    assert space.encode(Configuration((("root.a", "maxResources.memory", math.inf),))).tolist() == [
        1.0
    ]


def test_max_am_share_off_is_minus_one():
    """A disabled maxAMShare (-1) is the off state of its dimension."""
    space = ConfigurationSpace(
        (Dimension("root.a", "maxAMShare", None, 0.1, 1.0, off="band", off_value=-1.0),)
    )
    assert space.decode(np.array([1.0])).entries[0][2] == -1.0
    assert space.encode(Configuration((("root.a", "maxAMShare", -1.0),))).tolist() == [1.0]


def test_radius_projection_on_a_continuous_space_lands_on_the_sphere_along_the_step():
    """A far point moves back along the step from the center to exactly the radius."""
    space = ConfigurationSpace(
        (
            Dimension("root.a", "weight", None, 0.1, 10, scale="log"),
            Dimension("root.a", "fairSharePreemptionThreshold", None, 0, 1),
        )
    )
    center = np.array([0.5, 0.5])
    result = space.project(np.array([1.0, 0.0]), center=center, radius=0.1)
    assert space.distance(result, center) == pytest.approx(0.1, abs=1e-12)
    step = np.array([0.5, -0.5])
    np.testing.assert_allclose(result, center + step * 0.1 / space.distance(center + step, center))


def test_radius_projection_on_an_integer_grid_takes_the_farthest_grid_point_inside():
    """With rounding, the result is the farthest rounded point along the step still inside the radius."""
    space = ConfigurationSpace((Dimension("root.a", "maxRunningApps", None, 0, 10, "integer"),))
    result = space.project(np.array([1.0]), center=np.array([0.0]), radius=0.35)
    assert result.tolist() == [pytest.approx(0.3)]
    assert space.decode(result).entries[0][2] == 3


@settings(max_examples=150, deadline=None)
@given(any_vectors, unit_vectors, st.floats(0.0, 0.6))
def test_radius_projection_stays_within_the_radius(vector, raw_center, radius):
    """Whatever the vector, its projection lies within the radius of a valid center."""
    center = SPACE.project(raw_center)
    result = SPACE.project(vector, center=center, radius=radius)
    assert SPACE.distance(result, center) <= radius + 1e-9
    np.testing.assert_array_equal(SPACE.project(result), result)
    if SPACE.distance(SPACE.project(vector), center) <= radius:
        np.testing.assert_array_equal(result, SPACE.project(vector))


@settings(max_examples=100, deadline=None)
@given(unit_vectors, unit_vectors, unit_vectors)
def test_distance_is_a_normalized_metric(a, b, c):
    """Distance is symmetric, zero on equal points, in [0, 1], and obeys the triangle inequality."""
    assert SPACE.distance(a, a) == 0.0
    assert SPACE.distance(a, b) == pytest.approx(SPACE.distance(b, a))
    assert 0.0 <= SPACE.distance(a, b) <= 1.0 + 1e-12
    assert SPACE.distance(a, c) <= SPACE.distance(a, b) + SPACE.distance(b, c) + 1e-12


def test_distance_between_opposite_corners_is_one_and_batches():
    """Opposite corners of the cube are at distance 1; (n, d) inputs give n distances."""
    assert SPACE.distance(np.zeros(D), np.ones(D)) == pytest.approx(1.0)
    rows = SPACE.distance(np.zeros((3, D)), np.ones(D))
    np.testing.assert_allclose(rows, [1.0, 1.0, 1.0])


def test_sample_gives_valid_points_inside_the_radius_reproducibly():
    """Samples are valid points, inside the radius around the center, and repeat under a seed."""
    center = SPACE.encode(two_queue())
    points = SPACE.sample(np.random.default_rng(7), 64, center=center, radius=0.2)
    assert points.shape == (64, D)
    assert (SPACE.distance(points, center) <= 0.2 + 1e-9).all()
    np.testing.assert_array_equal(SPACE.project(points), points)
    again = SPACE.sample(np.random.default_rng(7), 64, center=center, radius=0.2)
    np.testing.assert_array_equal(points, again)
    free = SPACE.sample(np.random.default_rng(1), 16)
    assert free.shape == (16, D) and ((free >= 0) & (free <= 1)).all()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: SPACE.decode(np.zeros(D + 1)), rf"decode: vector: expected shape \({D},\)"),
        (
            lambda: SPACE.decode(np.full(D, 1.5)),
            r"decode: vector: expected values in \[0, 1\], got 1.5",
        ),
        (lambda: SPACE.decode(np.full(D, np.nan)), r"expected finite values"),
        (
            lambda: SPACE.project(np.zeros(D), center=np.zeros(D)),
            r"center and radius: expected both",
        ),
        (
            lambda: SPACE.project(np.zeros(D), center=SPACE.project(np.zeros(D)), radius=-0.1),
            r"radius: expected a value in \[0.0, inf\], got -0.1",
        ),
        (
            lambda: SPACE.project(np.zeros(D), center=np.full(D, 0.95), radius=0.1),
            r"center: expected a valid point",
        ),
        (lambda: SPACE.sample(np.random, 3), r"rng: expected numpy.random.Generator"),
        (
            lambda: SPACE.sample(np.random.default_rng(0), -1),
            r"n: expected an integer >= 0, got -1",
        ),
    ],
)
def test_bad_arguments_raise_naming_the_field(call, match):
    """Bad vectors, centers, radii and generators raise ValidationError naming the argument."""
    with pytest.raises(ValidationError, match=match):
        call()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"low": 2, "high": 1}, r"root.a.weight: bounds: expected finite low < high, got \[2, 1\]"),
        (
            {"low": 0, "high": 1, "scale": "log"},
            r"root.a.weight: low: expected > 0 on a log scale, got 0",
        ),
        (
            {"low": 1, "high": 2, "scale": "cubic"},
            r"root.a.weight: scale: expected one of 'linear', 'log', got 'cubic'",
        ),
        (
            {"setting": "fairSharePreemptionThreshold", "low": 0, "high": 2},
            r"bounds: expected within \[0, 1\], got \[0, 2\]",
        ),
        (
            {"setting": "maxRunningApps", "low": 0.5, "high": 2, "domain": "integer"},
            r"expected whole numbers",
        ),
        (
            {"setting": "minResources", "low": 0, "high": 2},
            r"root.a.minResources: component: expected one of 'memory', 'vcores', got None",
        ),
        ({"setting": "colour"}, r"root.a: setting: expected one of 'weight'"),
    ],
)
def test_dimension_validates_its_fields(kwargs, match):
    """A Dimension with bad bounds, scale, domain or component names the field and value."""
    arguments = {
        "queue": "root.a",
        "setting": "weight",
        "component": None,
        "low": 0.1,
        "high": 10.0,
    } | kwargs
    with pytest.raises(ValidationError, match=match):
        Dimension(**arguments)


def test_space_rejects_resource_bounds_beyond_the_cluster():
    """No resource dimension may let a queue exceed the cluster."""
    with pytest.raises(
        ValidationError,
        match=r"root.a.minResources.memory: high: expected at most the cluster's 102400, got 204800",
    ):
        ConfigurationSpace(
            (Dimension("root.a", "minResources", "memory", 0, 204800, "integer"),), cluster=CLUSTER
        )
    with pytest.raises(ValidationError, match=r"high: expected the cluster's 102400 when the top"):
        ConfigurationSpace(
            (Dimension("root.a", "maxResources", "memory", 0, 2048, "integer", off="high"),),
            cluster=CLUSTER,
        )
    with pytest.raises(ValidationError, match=r"cluster: required"):
        ConfigurationSpace((Dimension("root.a", "minResources", "memory", 0, 1024, "integer"),))


def test_defaults_for_a_two_queue_tree_are_safe_and_cover_the_current_values():
    """Default bounds contain the current values; minimum shares split the cluster evenly."""
    space = ConfigurationSpace.default(two_queue(), CLUSTER)
    assert space.names == (
        "root.prod.weight",
        "root.prod.minResources.memory",
        "root.prod.minSharePreemptionTimeout",
        "root.prod.fairSharePreemptionTimeout",
        "root.engineer.weight",
        "root.engineer.minResources.memory",
        "root.engineer.minSharePreemptionTimeout",
        "root.engineer.fairSharePreemptionTimeout",
    )
    by_name = dict(zip(space.names, space.dimensions, strict=True))
    assert (
        by_name["root.prod.minResources.memory"].low,
        by_name["root.prod.minResources.memory"].high,
    ) == (0, 51200)
    weight = by_name["root.prod.weight"]
    assert (weight.low, weight.high, weight.scale) == (0.1, 10.0, "log")
    timeout = by_name["root.engineer.fairSharePreemptionTimeout"]
    assert (timeout.low, timeout.high, timeout.domain, timeout.off) == (5, 3600, "integer", "band")
    space.encode(two_queue())  # every current value lies inside its bounds


def test_defaults_for_a_nested_tree_split_the_cluster_down_the_tree():
    """Parents get weight and minimum share only; children of a drf parent also tune vcores."""
    space = ConfigurationSpace.default(
        nested(),
        CLUSTER,
        settings=("weight", "minResources", "maxResources", "minSharePreemptionTimeout"),
    )
    by_name = dict(zip(space.names, space.dimensions, strict=True))
    assert by_name["root.a.minResources.memory"].high == 51200
    assert by_name["root.a.x.minResources.memory"].high == 25600
    assert by_name["root.a.x.minResources.vcores"].high == 25
    assert "root.b.minResources.vcores" not in by_name
    assert "root.a.minSharePreemptionTimeout" not in by_name
    assert by_name["root.b.minSharePreemptionTimeout"].low == 5
    max_memory = by_name["root.a.x.maxResources.memory"]
    assert (max_memory.low, max_memory.high, max_memory.off) == (25600, 102400, "high")
    for d in space.dimensions:
        if SETTINGS[d.setting].is_resource:
            assert 0 <= d.low and d.high <= (
                CLUSTER.memory_mb if d.component == "memory" else CLUSTER.vcores
            )
    space.encode(nested())


def test_defaults_widen_to_cover_other_allocations_and_zero_weights():
    """Bounds stretch to other configurations' values; a zero weight gets a linear range from 0."""
    other = EffectiveAllocation(
        root=EffectiveQueue(
            "root",
            children=(
                EffectiveQueue("root.prod", weight=40.0),
                EffectiveQueue("root.engineer", weight=0.0),
            ),
        )
    )
    space = ConfigurationSpace.default(two_queue(), CLUSTER, settings=("weight",), cover=(other,))
    prod, engineer = space.dimensions
    assert (prod.low, prod.high, prod.scale) == (0.1, 40.0, "log")
    assert (engineer.low, engineer.high, engineer.scale) == (0.0, 10.0, "linear")
    assert space.decode(space.encode(other)).entries == (
        ("root.prod", "weight", 40.0),
        ("root.engineer", "weight", 0.0),
    )


def test_defaults_restrict_to_named_queues_and_reject_unknown_ones():
    """`queues` limits the space to those queues; an unknown queue or setting is an error."""
    space = ConfigurationSpace.default(two_queue(), CLUSTER, queues=["engineer"])
    assert {d.queue for d in space.dimensions} == {"root.engineer"}
    with pytest.raises(
        ValidationError, match=r"queue: expected one of root, root.prod, root.engineer, got 'etl'"
    ):
        ConfigurationSpace.default(two_queue(), CLUSTER, queues=["etl"])
    with pytest.raises(ValidationError, match=r"settings: expected one of .*got 'priority'"):
        ConfigurationSpace.default(two_queue(), CLUSTER, settings=("priority",))
    with pytest.raises(ValidationError, match=r"cluster: required"):
        ConfigurationSpace.default(two_queue(), None)
    assert len(ConfigurationSpace.default(two_queue(), None, settings=("weight",))) == 2


def test_changes_lists_only_the_settings_a_vector_moves():
    """An allocation's own vector changes nothing; moving one dimension writes only that setting."""
    allocation = two_queue()
    vector = SPACE.encode(allocation)
    assert SPACE.changes(allocation, vector) == ()
    moved = vector.copy()
    moved[SPACE.index("root.engineer.weight")] = SPACE.encode(
        Configuration(
            tuple(
                (q, k, 4.0 if (q, k) == ("root.engineer", "weight") else v)
                for q, k, v in SPACE.decode(vector)
            )
        )
    )[SPACE.index("root.engineer.weight")]
    moved[SPACE.index("root.prod.minResources.memory")] = 0.5
    moved[SPACE.index("root.prod.fairSharePreemptionTimeout")] = 0.0
    assert SPACE.changes(allocation, moved) == (
        ("root.prod", "minResources", Resources(25600.0, 10.0)),
        ("root.prod", "fairSharePreemptionTimeout", 5),
        ("root.engineer", "weight", 4.0),
    )


def test_to_records_describes_dimensions_and_configurations():
    """Records give each dimension's bounds and encoding, and each configuration entry's value."""
    record = SPACE.to_records()[0]
    assert record == {
        "name": "root.prod.weight",
        "queue": "root.prod",
        "setting": "weight",
        "component": None,
        "low": 0.1,
        "high": 10.0,
        "domain": "continuous",
        "scale": "log",
        "off": "none",
        "choices": (),
    }
    assert SPACE.decode(SPACE.encode(two_queue())).to_records()[0] == {
        "queue": "root.prod",
        "setting": "weight",
        "value": 2.0,
    }


def unlimited_space() -> ConfigurationSpace:
    return ConfigurationSpace(
        (
            Dimension("root.a", "maxResources", "memory", 1024, 102400, "integer", off="high"),
            Dimension("root.a", "maxResources", "vcores", 1, 100, "integer", off="high"),
            Dimension("root.a", "maxRunningApps", None, 1, 100, "integer", "log", "band"),
        ),
        cluster=CLUSTER,
    )


def limited(**defaults) -> EffectiveAllocation:
    queue = EffectiveQueue(
        "root.a", max_resources=ResourceLimit(Resources(4096, 4)), max_running_apps=5
    )
    return EffectiveAllocation(
        root=EffectiveQueue("root", children=(queue,)), defaults=QueueDefaults(**defaults)
    )


def test_no_limit_removes_the_element_when_no_default_would_apply():
    """Moving a limit to "no limit" removes the element when the file has no queue default."""
    assert unlimited_space().changes(limited(), np.ones(3)) == (
        ("root.a", "maxResources", None),
        ("root.a", "maxRunningApps", None),
    )


def test_no_limit_is_written_explicitly_when_a_queue_default_would_apply():
    """With queue defaults in the file, no limit is written as the cluster size and Integer.MAX_VALUE."""
    allocation = limited(max_running_apps=10, max_resources=ResourceLimit(Resources(8192, 8)))
    assert unlimited_space().changes(allocation, np.ones(3)) == (
        ("root.a", "maxResources", Resources(102400.0, 100.0)),
        ("root.a", "maxRunningApps", 2**31 - 1),
    )
    written = EffectiveAllocation(
        root=EffectiveQueue(
            "root",
            children=(
                EffectiveQueue(
                    "root.a",
                    max_resources=ResourceLimit(Resources(102400, 100)),
                    max_running_apps=2**31 - 1,
                ),
            ),
        )
    )
    assert unlimited_space().encode(written).tolist() == [1.0, 1.0, 1.0]


def test_a_partly_unlimited_resource_writes_the_cluster_size_for_that_component():
    """Lifting one component's limit writes the cluster's size for it and keeps the other."""
    vector = unlimited_space().encode(limited())
    vector[0] = 1.0
    assert unlimited_space().changes(limited(), vector) == (
        ("root.a", "maxResources", Resources(102400.0, 4.0)),
    )


DOC_EXAMPLE = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "hadoop" / "alloc"
) / "fairscheduler-doc-example.xml"
TAG = re.compile(r"^\s*<(\w+)>[^<]*</\1>\s*$")


def test_apply_writes_only_the_tuned_elements_of_a_real_file():
    """Applying a vector to a real file changes only the moved settings, which re-parse as decoded."""
    document = AllocationDocument.from_file(DOC_EXAMPLE)
    cluster = Cluster.parse("memory-mb=204800,vcores=200")
    space = ConfigurationSpace.default(
        effective_allocation(document), cluster, settings=YARN.settings
    )
    center = space.encode(effective_allocation(document))
    vector = space.sample(np.random.default_rng(3), 1, center=center, radius=0.2)[0]
    vector[space.index("root.sample_queue.maxResources.memory")] = 1.0
    writes = space.changes(effective_allocation(document), vector)
    assert len(writes) >= 10
    changed = space.apply(document, vector)

    old_lines = document.to_bytes().decode().splitlines()
    new_lines = changed.to_bytes().decode().splitlines()
    edited = [line for line in difflib.ndiff(old_lines, new_lines) if line.startswith(("- ", "+ "))]
    tags = {TAG.match(line[2:])[1] for line in edited}
    assert tags <= {setting for _, setting, _ in writes}
    assert sum(line.startswith("+ ") for line in edited) == len(writes)
    assert "    <maxRunningApps>50</maxRunningApps>" in new_lines  # untouched setting
    assert (
        "    <maxResources>204800 mb,0vcores</maxResources>" in new_lines
    )  # no limit, default set

    reparsed = effective_allocation(changed)
    assert space.decode(space.encode(reparsed)) == space.decode(vector)
    assert space.changes(reparsed, vector) == ()


def test_apply_of_the_current_vector_leaves_the_file_byte_identical():
    """A vector that moves nothing writes nothing."""
    document = AllocationDocument.from_file(DOC_EXAMPLE)
    space = ConfigurationSpace.default(
        effective_allocation(document), Cluster.parse("memory-mb=204800,vcores=200")
    )
    changed = space.apply(document, space.encode(effective_allocation(document)))
    assert changed.to_bytes() == document.to_bytes()


def test_space_survives_a_pickle_round_trip():
    """A space pickles (optimizers holding one must) and behaves the same afterwards."""
    again = pickle.loads(pickle.dumps(SPACE))
    assert again == SPACE
    vector = np.linspace(0, 1, D)
    np.testing.assert_array_equal(again.project(vector), SPACE.project(vector))
