"""The operator's choice of tuned settings and bounds: a TOML space file plus CLI overrides.

A `SpaceSpec` describes; `tempo.space.space.ConfigurationSpace.from_spec` builds the
space from one (this module never imports the space, so the two read one way).

Grammar (see docs/space.md)::

    [space]
    settings = ["weight", "minResources"]   # tuned on every queue, default bounds
    queues = ["root.etl", "root.bi"]         # optional: only these queues

    [queue."root.etl"]
    weight = "0.5:8"                          # LOW:HIGH, either side may be empty
    minResources.memory = "0:50%"             # resources: per component, % of the cluster
    fairSharePreemptionTimeout = { low = 30, high = 1800, scale = "log", off = true }
    maxRunningApps = true                     # tuned with default bounds
    minSharePreemptionTimeout = false         # not tuned

An override is ``QUEUE.SETTING[.COMPONENT]=VALUE`` where VALUE is ``LOW:HIGH``,
``default`` (tuned with default bounds) or ``fixed`` (not tuned).

Settings are those of the file's dialect (`tempo.space.dialect`): a Hadoop 1 file
tunes ``minMaps = "0:50%"`` (percentages of the map slots), ``maxRunningJobs``,
``schedulingMode`` and ``root.fairSharePreemptionTimeout`` (its one top-level
timeout); a YARN file ``minResources.memory``, ``maxRunningApps``,
``schedulingPolicy``... Without ``settings`` the dialect's defaults are tuned.
"""

from __future__ import annotations

import logging
import math
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from os import PathLike
from pathlib import Path

from tempo.space.defaults import (
    default_components,
    default_dimension,
    default_dimensions,
    equal_splits,
    parent_policy,
    queue_path,
)
from tempo.space.dialect import Dialect, dialect_of, without_preemption
from tempo.space.dimension import Dimension
from tempo.space.flat import without_flat_weights
from tempo.space.key_lines import KeyLines
from tempo.space.rules import Rule, parse_override, string_list, table_rules, toml_table
from tempo.space.settings import COMPONENTS, SETTINGS
from whatif._validation import read_utf8
from whatif.allocation.effective import EffectiveAllocation, EffectiveQueue
from whatif.cluster import Cluster
from whatif.errors import ValidationError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SpaceSpec:
    """Which settings to tune and within which bounds, before an allocation gives it shape.

    ``settings`` (None: the dialect's defaults) are tuned on ``queues`` (None: every
    queue they suit) with default bounds; ``rules`` then add, re-bound or remove
    single queue settings, in order.
    """

    settings: tuple[str, ...] | None = None
    queues: tuple[str, ...] | None = None
    rules: tuple[Rule, ...] = ()
    source: str = "<defaults>"

    @classmethod
    def from_file(cls, path: str | PathLike[str]) -> SpaceSpec:
        """Read a TOML space file; errors name the file, line and field."""
        path = Path(path)
        return cls.from_toml(read_utf8(path, what="the space file"), path=str(path))

    @classmethod
    def from_toml(cls, text: str, *, path: str = "<string>") -> SpaceSpec:
        """Parse the text of a space file (`path` only names it in errors)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            found = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
            if found:
                where = f"{path}:{found[1]}:{found[2]}"
            else:  # "(at end of document)"
                where = f"{path}:{max(1, len(text.splitlines()))}"
            message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(error))
            raise ValidationError(f"{where}: invalid TOML: {message}") from error
        lines = KeyLines(text, path)
        for key in data:
            if key not in ("space", "queue"):
                raise ValidationError(
                    f'{lines.at((key,))}: {key}: expected a [space] or [queue."NAME"] table'
                )
        space = toml_table(data.get("space", {}), ("space",), lines)
        for key in space:
            if key not in ("settings", "queues"):
                raise ValidationError(
                    f"{lines.at(('space', key))}: space.{key}: expected 'settings' or 'queues'"
                )
        settings = None
        if "settings" in space:
            settings = string_list(space["settings"], ("space", "settings"), lines)
            for setting in settings:
                if setting not in SETTINGS:
                    raise ValidationError(
                        f"{lines.at(('space', 'settings'))}: space.settings: expected names from "
                        f"{', '.join(SETTINGS)}, got {setting!r}"
                    )
        queues = space.get("queues")
        rules: list[Rule] = []
        for queue, entries in toml_table(data.get("queue", {}), ("queue",), lines).items():
            for key, value in toml_table(entries, ("queue", queue), lines).items():
                rules.extend(table_rules(queue, key, value, lines))
        return cls(
            settings=None if settings is None else tuple(settings),
            queues=None
            if queues is None
            else tuple(string_list(queues, ("space", "queues"), lines)),
            rules=tuple(rules),
            source=lines.at(("space", "queues")) if queues is not None else path,
        )

    def with_overrides(self, overrides: Iterable[str]) -> SpaceSpec:
        """This spec with ``QUEUE.SETTING[.COMPONENT]=VALUE`` overrides applied after its rules."""
        if isinstance(overrides, str):
            raise ValidationError(
                f"overrides: expected a list of strings, got the string {overrides!r}"
            )
        return replace(self, rules=self.rules + tuple(parse_override(o) for o in overrides))

    def dimensions(
        self,
        allocation: EffectiveAllocation,
        cluster: Cluster | None,
        *,
        hadoop_version: int,
        preemption: bool = True,
    ) -> tuple[tuple[Dimension, ...], tuple[str, ...]]:
        """The dimensions this spec names for an allocation and cluster, in vector order,
        and notes on what was left out (`ConfigurationSpace.from_spec` builds the space).

        Every setting must be in `hadoop_version`'s dialect. Weights of queues whose
        minimum shares cover the cluster are left out of the default dimensions,
        with a note; a rule naming one tunes it anyway. Without `preemption` the
        default preemption timeouts and threshold are left out, with a note; ones the
        spec names stay, with a note that they change nothing.
        """
        dialect = dialect_of(hadoop_version)
        settings, notes = self._settings(dialect, preemption=preemption)
        try:
            queues = (
                None if self.queues is None else [queue_path(allocation, q) for q in self.queues]
            )
        except ValidationError as error:
            raise ValidationError(f"{self.source}: space.{error}") from error
        try:
            defaults = default_dimensions(
                allocation,
                cluster,
                settings=settings,
                queues=queues,
                cover=(),
                top_level=dialect.top_level,
            )
        except ValidationError as error:
            raise ValidationError(f"{self.source}: space.settings: {error}") from error
        dimensions = {(d.queue, d.key): d for d in defaults}
        splits = equal_splits(allocation)
        for rule in self.rules:
            try:
                _apply_rule(rule, dimensions, allocation, cluster, splits, dialect)
            except ValidationError as error:
                raise ValidationError(f"{rule.source}: {error}") from error
        named = {
            f"{queue_path(allocation, rule.queue)}.weight"
            for rule in self.rules
            if rule.tune and rule.setting == "weight"
        }
        kept, flat = without_flat_weights(
            list(dimensions.values()), allocation, cluster, dialect, keep=named
        )
        notes += flat
        ranked = _in_vector_order(kept, allocation)
        if not ranked:
            raise ValidationError(
                f"{self.source}: expected at least one setting to tune, got none"
                + (f" ({' '.join(notes)})" if notes else "")
            )
        return tuple(ranked), tuple(notes)

    def _settings(self, dialect: Dialect, *, preemption: bool) -> tuple[Sequence[str], list[str]]:
        """The settings tuned by default in `dialect`, and notes on preemption settings left
        out or kept without effect."""
        settings = dialect.defaults if self.settings is None else self.settings
        dialect.check_all(settings, f"{self.source}: space.settings")
        for rule in self.rules:
            dialect.check(rule.setting, f"{rule.source}: {rule.name}")
        settings, notes = without_preemption(
            settings, dialect, preemption=preemption, explicit=self.settings is not None
        )
        asked = [r.setting for r in self.rules if r.tune and r.setting not in settings]
        notes += without_preemption(
            dict.fromkeys(asked), dialect, preemption=preemption, explicit=True
        )[1]
        return settings, notes


def _in_vector_order(
    dimensions: Iterable[Dimension], allocation: EffectiveAllocation
) -> list[Dimension]:
    """Dimensions by queue (allocation order), setting (`SETTINGS` order), then component;
    the last one for each (queue, key) wins."""
    unique = {(d.queue, d.key): d for d in dimensions}
    order = {q.name: i for i, q in enumerate(allocation.queues())}
    settings = list(SETTINGS)
    return sorted(
        unique.values(),
        key=lambda d: (
            order[d.queue],
            settings.index(d.setting),
            COMPONENTS.index(d.component) if d.component else 0,
        ),
    )


def _apply_rule(
    rule: Rule,
    dimensions: dict[tuple[str, str], Dimension],
    allocation: EffectiveAllocation,
    cluster: Cluster | None,
    splits: dict[str, float],
    dialect: Dialect,
) -> None:
    """Add, re-bound or remove the dimensions a rule names (in place)."""
    queue = allocation.queue(queue_path(allocation, rule.queue))
    spec = SETTINGS[rule.setting]
    _check_level(rule, queue, dialect)
    if spec.is_resource:
        if rule.component is not None:
            components: tuple[str | None, ...] = (rule.component,)
        else:
            components = default_components(allocation, queue.name) if rule.tune else COMPONENTS
    else:
        components = (None,)
    if not rule.tune:
        for component in components:
            key = rule.setting if component is None else f"{rule.setting}.{component}"
            dimensions.pop((queue.name, key), None)
        return
    if spec.leaf_only and queue.is_parent:
        raise ValidationError(
            f"{rule.name}: expected a leaf queue ({rule.setting} applies to leaves only), "
            f"got the parent {queue.name}"
        )
    if spec.parent_only and not queue.is_parent:
        raise ValidationError(
            f"{rule.name}: expected a parent queue ({rule.setting} caps the queues created "
            f"on the fly under a parent), got the leaf {queue.name}"
        )
    for component in components:
        current = spec.current(queue, component, cluster)
        default = default_dimension(
            queue,
            rule.setting,
            component,
            values=[current],
            cluster=cluster,
            split=splits[queue.name],
            parent_policy=parent_policy(allocation, queue.name),
        )
        if spec.is_categorical:
            assert default is not None  # a categorical setting always has its choices
            if rule.low is not None or rule.high is not None or rule.scale or rule.off:
                raise ValidationError(
                    f"{rule.name}: expected true, false, default or fixed ({rule.setting} takes "
                    f"one of {', '.join(default.choices)}; it has no bounds)"
                )
            dimensions[(queue.name, default.key)] = default
            continue
        dimension = _bounded(rule, queue.name, component, default, cluster)
        dimensions[(queue.name, dimension.key)] = dimension


def _check_level(rule: Rule, queue: EffectiveQueue, dialect: Dialect) -> None:
    """A top-level setting (Hadoop 1) must be on root, and only those may be."""
    if dialect.top_level and (queue.name == "root") != (rule.setting in dialect.top_level):
        raise ValidationError(
            f"{rule.name}: expected "
            + (
                f"root.{rule.setting} ({dialect.title} reads {rule.setting} only at the top "
                "of the file)"
                if rule.setting in dialect.top_level
                else f"a pool ({dialect.title} has no root pool)"
            )
        )


def _bounded(
    rule: Rule,
    queue: str,
    component: str | None,
    default: Dimension | None,
    cluster: Cluster | None,
) -> Dimension:
    """The dimension of a numeric setting with the rule's bounds, scale and off state (the
    default dimension's where the rule leaves them out)."""
    spec = SETTINGS[rule.setting]
    total = spec.capacity(component, cluster)
    integer = spec.domain == "integer"
    low = rule.low.resolve(total, integer=integer, upper=False) if rule.low else None
    high = rule.high.resolve(total, integer=integer, upper=True) if rule.high else None
    if default is None and (low is None or high is None):
        raise ValidationError(
            f"{rule.name}: expected explicit LOW:HIGH (no room for a default range)"
        )
    if rule.off and spec.off == "none":
        raise ValidationError(
            f"{rule.name}: off: expected false ({rule.setting} has no off state), got true"
        )
    if low is None or high is None:
        assert default is not None  # checked above
        low = default.low if low is None else low
        high = default.high if high is None else high
    off = "none" if rule.off is False else spec.off
    if off == "high" and total is not None and high < math.floor(total):
        off = "none"  # a limit below the cluster size is a real limit
    dimension = Dimension(
        queue=queue,
        setting=rule.setting,
        component=component,
        low=low,
        high=high,
        domain=spec.domain,
        scale=rule.scale or (default.scale if default else spec.scale),
        off=off,
        off_value=spec.off_value,
    )
    if total is not None and dimension.high > total:
        raise ValidationError(
            f"{dimension.name}: high: expected at most the cluster's {total:g}, got {dimension.high:g}"
        )
    return dimension
