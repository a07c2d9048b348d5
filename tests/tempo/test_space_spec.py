"""Space files (TOML) and CLI-style overrides: grammar, precedence and line-numbered errors."""

from __future__ import annotations

import pytest
from samples import REPO

from tempo.space import ConfigurationSpace, SpaceSpec, parse_override
from whatif import Cluster, EffectiveAllocation, EffectiveQueue
from whatif.errors import ValidationError

CLUSTER = Cluster.parse("memory-mb=102400,vcores=100")


def two_tenant() -> EffectiveAllocation:
    return EffectiveAllocation(
        root=EffectiveQueue(
            "root",
            children=(
                EffectiveQueue("root.prod", weight=2.0),
                EffectiveQueue("root.engineer", fair_share_preemption_timeout_s=60),
                EffectiveQueue(
                    "root.batch", is_parent=True, children=(EffectiveQueue("root.batch.nightly"),)
                ),
            ),
        )
    )


def build(text: str, overrides: tuple[str, ...] = ()) -> ConfigurationSpace:
    return ConfigurationSpace.from_spec(
        SpaceSpec.from_toml(text, path="space.toml").with_overrides(overrides),
        two_tenant(),
        CLUSTER,
    )


def bounds(space: ConfigurationSpace, name: str) -> tuple[float, float, str, str]:
    d = space.dimensions[space.index(name)]
    return d.low, d.high, d.scale, d.off


def test_shipped_example_file_builds():
    """configs/space-two-tenant.toml parses and gives the bounds it states."""
    space = ConfigurationSpace.from_file(
        REPO / "configs" / "space-two-tenant.toml", two_tenant(), CLUSTER
    )
    assert bounds(space, "root.prod.weight") == (0.5, 8.0, "log", "none")
    assert bounds(space, "root.prod.minResources.memory") == (0, 61440, "linear", "none")
    assert bounds(space, "root.prod.minSharePreemptionTimeout") == (10, 600, "log", "band")
    assert bounds(space, "root.engineer.fairSharePreemptionThreshold") == (
        0.2,
        1.0,
        "linear",
        "none",
    )
    assert "root.engineer.minSharePreemptionTimeout" not in space.names
    space.encode(two_tenant())


def test_settings_and_queues_choose_the_default_dimensions():
    """[space] settings are tuned with default bounds on the listed queues only."""
    space = build(
        '[space]\nsettings = ["weight", "maxRunningApps"]\nqueues = ["root.engineer", "batch"]\n'
    )
    assert space.names == (
        "root.engineer.weight",
        "root.engineer.maxRunningApps",
        "root.batch.weight",
    )


def test_queue_tables_add_rebound_and_remove_dimensions():
    """A queue table adds a setting (true or bounds), re-bounds a default one, or removes it (false)."""
    text = """
[space]
settings = ["weight", "minResources"]

[queue."root.prod"]
weight = ":20"
minResources.vcores = "10%:50%"
minResources.memory = false
maxRunningApps = true
fairSharePreemptionTimeout = { low = 30, high = 900, off = false, scale = "linear" }
maxResources.memory = { low = "25%" }
"""
    space = build(text)
    assert bounds(space, "root.prod.weight") == (0.1, 20.0, "log", "none")
    assert bounds(space, "root.prod.minResources.vcores") == (10, 50, "linear", "none")
    assert "root.prod.minResources.memory" not in space.names
    assert bounds(space, "root.prod.maxRunningApps") == (1, 100, "log", "band")
    assert bounds(space, "root.prod.fairSharePreemptionTimeout") == (30, 900, "linear", "none")
    assert bounds(space, "root.prod.maxResources.memory") == (25600, 102400, "linear", "high")
    capped = build('[queue."root.prod"]\nmaxResources.memory = "1024:50%"\n')
    assert bounds(capped, "root.prod.maxResources.memory") == (1024, 51200, "linear", "none")
    assert "root.engineer.weight" in space.names


def test_overrides_apply_after_the_file():
    """CLI overrides re-bound, add and fix settings, taking precedence over the file."""
    space = build(
        '[queue."root.prod"]\nweight = "1:4"\n',
        overrides=(
            "root.prod.weight=0.5:8",
            "root.engineer.minResources.memory=0:50%",
            "root.engineer.weight=fixed",
            "root.batch.nightly.maxAMShare=default",
        ),
    )
    assert bounds(space, "root.prod.weight") == (0.5, 8.0, "log", "none")
    assert bounds(space, "root.engineer.minResources.memory") == (0, 51200, "linear", "none")
    assert "root.engineer.weight" not in space.names
    assert bounds(space, "root.batch.nightly.maxAMShare") == (0.1, 1.0, "linear", "band")


def test_parse_override_splits_queue_setting_and_component():
    """Queue names may contain setting-like words; the setting is read from the end."""
    rule = parse_override("root.weight.minResources.memory=0:50%")
    assert (rule.queue, rule.setting, rule.component) == ("root.weight", "minResources", "memory")
    assert (rule.low.value, rule.low.percent, rule.high.value, rule.high.percent) == (
        0.0,
        False,
        50.0,
        True,
    )
    assert parse_override("root.a.weight=fixed").tune is False


@pytest.mark.parametrize(
    ("override", "match"),
    [
        (
            "root.a.weight",
            r"override 'root.a.weight': expected QUEUE.SETTING\[.COMPONENT\]=LOW:HIGH",
        ),
        ("root.a.priority=1:2", r"expected QUEUE.SETTING.*SETTING one of weight"),
        (
            "root.a.weight=1-2",
            r"root.a.weight: expected LOW:HIGH \(e.g. 0.5:8 or 0:50%\), got '1-2'",
        ),
        (
            "root.a.weight=0:50%",
            r"root.a.weight: expected a number \(percentages are for resources\), got '50%'",
        ),
        ("root.a.minResources.memory=0:150%", r"expected a percentage in \[0, 100\], got '150%'"),
        ("root.a.minResources=0:10", r"minResources: expected bounds per component"),
        ("root.a.weight=x:2", r"expected a number or N%, got 'x'"),
    ],
)
def test_bad_overrides_name_the_override_and_what_was_expected(override, match):
    """A malformed override raises naming it and the expected form."""
    with pytest.raises(ValidationError, match=match):
        parse_override(override)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('[space]\nsettings = ["weight",\n', r"^space.toml:2: invalid TOML: Invalid value$"),
        ("[space]\nsettings = [weight]\n", r"^space.toml:2:13: invalid TOML: Invalid value$"),
        (
            '[space]\nsettings = "weight"\n',
            r"^space.toml:2: space.settings: expected a list of strings",
        ),
        (
            '[space]\nsettings = ["weight", "colour"]\n',
            r"^space.toml:2: space.settings: expected names from .*got 'colour'",
        ),
        ("[space]\nqueue = []\n", r"^space.toml:2: space.queue: expected 'settings' or 'queues'"),
        ("[spaces]\n", r"^space.toml:1: spaces: expected a \[space\] or \[queue.\"NAME\"\] table"),
        (
            '\n[queue."root.prod"]\nweight = "0.5:8"\ncolour = true\n',
            r"^space.toml:4: root.prod.colour: expected a setting",
        ),
        (
            '[queue."root.prod"]\n\nweight = "8"\n',
            r"^space.toml:3: root.prod.weight: expected LOW:HIGH",
        ),
        (
            '[queue."root.prod"]\nweight = { low = 1, hi = 2 }\n',
            r"^space.toml:2: root.prod.weight.hi: expected one of low, high, scale, off",
        ),
        (
            '[queue."root.prod"]\nweight = { scale = "cubic" }\n',
            r"^space.toml:2: root.prod.weight.scale: expected one of linear, log, got 'cubic'",
        ),
        (
            '[queue."root.prod"]\nweight = 3\n',
            r"^space.toml:2: root.prod.weight: expected true, false",
        ),
        (
            '[queue."root.prod"]\nminResources = "0:50%"\n',
            r"^space.toml:2: root.prod.minResources: expected true, false or bounds per component",
        ),
        (
            '[queue."root.prod"]\nminResources.disk = "0:5"\n',
            r"^space.toml:2: root.prod.minResources.disk: expected memory or vcores",
        ),
        ("[queue.root.prod]\nweight = true\n", r"quote dotted queue names"),
    ],
)
def test_file_errors_name_the_file_line_and_field(text, match):
    """Syntax and grammar errors in a space file give file:line, the field and what was expected."""
    with pytest.raises(ValidationError, match=match):
        SpaceSpec.from_toml(text, path="space.toml")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            '[space]\nsettings = ["weight"]\nqueues = ["root.etl"]\n',
            r"^space.toml:3: space.queue: expected one of root, .*got 'root.etl'",
        ),
        (
            '[queue."root.etl"]\nweight = true\n',
            r"^space.toml:2: queue: expected one of root,.*got 'root.etl'",
        ),
        (
            '[queue."root.batch"]\n\nmaxAMShare = true\n',
            r"^space.toml:3: root.batch.maxAMShare: expected a leaf queue",
        ),
        (
            '[queue."root.prod"]\nweight = { off = true }\n',
            r"^space.toml:2: root.prod.weight: off: expected false",
        ),
        (
            '[queue."root.prod"]\nweight = "0:4"\n',
            r"^space.toml:2: root.prod.weight: low: expected > 0 on a log scale, got 0",
        ),
        (
            '[queue."root.prod"]\nweight = "-1:4"\n',
            r"^space.toml:2: root.prod.weight: bounds: expected within \[0, inf\], got \[-1, 4\]",
        ),
        (
            '[queue."root.prod"]\nminResources.memory = "0:200000"\n',
            r"^space.toml:2: root.prod.minResources.memory: high: expected at most the cluster's 102400, got 200000",
        ),
        (
            '[queue."root.prod"]\nfairSharePreemptionThreshold = "0:1.5"\n',
            r"^space.toml:2: .*bounds: expected within \[0, 1\], got \[0, 1.5\]",
        ),
    ],
)
def test_build_errors_name_the_line_of_the_rule(text, match):
    """Rules that do not fit the allocation or cluster raise naming the file line they came from."""
    with pytest.raises(ValidationError, match=match):
        build(text)


def test_override_errors_at_build_name_the_override():
    """A rule from an override that does not fit names the override."""
    with pytest.raises(
        ValidationError,
        match=r"^override 'root.prod.weight=0:3': root.prod.weight: low: expected > 0",
    ):
        build("", overrides=("root.prod.weight=0:3",))


def test_unreadable_file_is_reported_with_its_path(tmp_path):
    """A missing space file raises naming the path."""
    with pytest.raises(ValidationError, match=r"nope.toml: cannot read the space file"):
        SpaceSpec.from_file(tmp_path / "nope.toml")


@pytest.mark.parametrize("settings", [("weight", "bogus"), ("priority",)])
def test_an_unknown_setting_names_itself_and_the_settings_known(settings):
    """SpaceSpec(settings=...) with a name tempo does not know is a ValidationError listing
    the settings it knows, never a bare KeyError (issue 24)."""
    with pytest.raises(ValidationError) as error:
        ConfigurationSpace.from_spec(SpaceSpec(settings=settings), two_tenant(), CLUSTER)
    message = str(error.value)
    assert f"got {settings[-1]!r}" in message
    assert "expected one of weight, minResources" in message and "schedulingPolicy" in message
