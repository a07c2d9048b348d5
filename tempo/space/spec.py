"""The operator's choice of tuned settings and bounds: a TOML space file plus CLI overrides.

Grammar (see the README, section "Tunable configuration space")::

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
"""

from __future__ import annotations

import logging
import math
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from os import PathLike
from pathlib import Path
from typing import Any

from tempo.space.defaults import (
    default_components,
    default_dimension,
    default_dimensions,
    equal_splits,
)
from tempo.space.dimension import Dimension
from tempo.space.settings import COMPONENTS, DEFAULT_SETTINGS, SCALES, SETTINGS
from tempo.space.space import ConfigurationSpace, _queue_name
from whatif.allocation.effective import EffectiveAllocation
from whatif.cluster import Cluster
from whatif.errors import ValidationError

logger = logging.getLogger(__name__)

_TABLE_FIELDS = ("low", "high", "scale", "off")


@dataclass(frozen=True)
class Bound:
    """One end of a range as written: a number, or a percentage of the cluster."""

    value: float
    percent: bool = False

    def resolve(self, total: float | None, *, integer: bool, upper: bool) -> float:
        """The bound in Hadoop units; an integer bound rounds inward."""
        if not self.percent:
            return self.value
        if total is None:
            raise ValidationError(
                f"bound {self.value:g}%: expected a cluster to resolve it, got None"
            )
        value = total * self.value / 100.0
        if integer:
            return float(math.floor(value) if upper else math.ceil(value))
        return value


@dataclass(frozen=True)
class Rule:
    """What the operator said about one queue setting; ``source`` says where."""

    queue: str
    setting: str
    component: str | None
    tune: bool
    low: Bound | None = None
    high: Bound | None = None
    scale: str | None = None
    off: bool | None = None
    source: str = "<override>"

    @property
    def name(self) -> str:
        key = self.setting if self.component is None else f"{self.setting}.{self.component}"
        return f"{self.queue}.{key}"


@dataclass(frozen=True)
class SpaceSpec:
    """Which settings to tune and within which bounds, before an allocation gives it shape.

    ``settings`` are tuned on ``queues`` (None: every queue they suit) with default
    bounds; ``rules`` then add, re-bound or remove single queue settings, in order.
    """

    settings: tuple[str, ...] = DEFAULT_SETTINGS
    queues: tuple[str, ...] | None = None
    rules: tuple[Rule, ...] = ()
    source: str = "<defaults>"

    @classmethod
    def from_file(cls, path: str | PathLike[str]) -> SpaceSpec:
        """Read a TOML space file; errors name the file, line and field."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ValidationError(
                f"{path}: cannot read the space file: {error.strerror}"
            ) from error
        return cls.from_toml(text, path=str(path))

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
        lines = _KeyLines(text, path)
        for key in data:
            if key not in ("space", "queue"):
                raise ValidationError(
                    f'{lines.at((key,))}: {key}: expected a [space] or [queue."NAME"] table'
                )
        space = _table(data.get("space", {}), ("space",), lines)
        for key in space:
            if key not in ("settings", "queues"):
                raise ValidationError(
                    f"{lines.at(('space', key))}: space.{key}: expected 'settings' or 'queues'"
                )
        settings = _names(
            space.get("settings", list(DEFAULT_SETTINGS)), ("space", "settings"), lines
        )
        for setting in settings:
            if setting not in SETTINGS:
                raise ValidationError(
                    f"{lines.at(('space', 'settings'))}: space.settings: expected names from "
                    f"{', '.join(SETTINGS)}, got {setting!r}"
                )
        queues = space.get("queues")
        rules: list[Rule] = []
        for queue, table in _table(data.get("queue", {}), ("queue",), lines).items():
            for key, value in _table(table, ("queue", queue), lines).items():
                rules.extend(_rules(queue, key, value, lines))
        return cls(
            settings=tuple(settings),
            queues=None if queues is None else tuple(_names(queues, ("space", "queues"), lines)),
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

    def build(self, allocation: EffectiveAllocation, cluster: Cluster | None) -> ConfigurationSpace:
        """The configuration space for this allocation and cluster."""
        try:
            queues = (
                None if self.queues is None else [_queue_name(allocation, q) for q in self.queues]
            )
        except ValidationError as error:
            raise ValidationError(f"{self.source}: space.{error}") from error
        dimensions = {
            (d.queue, d.key): d
            for d in default_dimensions(
                allocation, cluster, settings=self.settings, queues=queues, cover=()
            )
        }
        splits = equal_splits(allocation)
        for rule in self.rules:
            try:
                _apply_rule(rule, dimensions, allocation, cluster, splits)
            except ValidationError as error:
                raise ValidationError(f"{rule.source}: {error}") from error
        order = {q.name: i for i, q in enumerate(allocation.queues())}
        settings = list(SETTINGS)
        ranked = sorted(
            dimensions.values(),
            key=lambda d: (
                order[d.queue],
                settings.index(d.setting),
                COMPONENTS.index(d.component) if d.component else 0,
            ),
        )
        space = ConfigurationSpace(tuple(ranked), cluster=cluster)
        for d, value in zip(space.dimensions, space.values(allocation), strict=True):
            if not d.contains(value):
                logger.warning(
                    "%s: the current value %g is outside %s", d.name, value, d.describe()
                )
        return space


def parse_override(text: str) -> Rule:
    """A rule from ``QUEUE.SETTING[.COMPONENT]=LOW:HIGH`` (or ``=default``, ``=fixed``)."""
    if not isinstance(text, str):
        raise ValidationError(f"override: expected a string, got {text!r}")
    source = f"override {text!r}"
    name, sep, value = text.partition("=")
    parts = name.strip().split(".")
    if sep and len(parts) >= 3 and parts[-1] in COMPONENTS and parts[-2] in SETTINGS:
        queue, setting, component = ".".join(parts[:-2]), parts[-2], parts[-1]
    elif sep and len(parts) >= 2 and parts[-1] in SETTINGS:
        queue, setting, component = ".".join(parts[:-1]), parts[-1], None
    else:
        raise ValidationError(
            f"{source}: expected QUEUE.SETTING[.COMPONENT]=LOW:HIGH|default|fixed with SETTING "
            f"one of {', '.join(SETTINGS)}"
        )
    value = value.strip()
    if value in ("default", "fixed"):
        return Rule(queue, setting, component, value == "default", source=source)
    low, high = _range(value, f"{source}: {name.strip()}", setting)
    if SETTINGS[setting].is_resource and component is None:
        raise ValidationError(
            f"{source}: {setting}: expected bounds per component ({setting}.memory or {setting}.vcores)"
        )
    return Rule(queue, setting, component, True, low=low, high=high, source=source)


def _apply_rule(
    rule: Rule,
    dimensions: dict[tuple[str, str], Dimension],
    allocation: EffectiveAllocation,
    cluster: Cluster | None,
    splits: dict[str, float],
) -> None:
    """Add, re-bound or remove the dimensions a rule names (in place)."""
    queue = allocation.queue(_queue_name(allocation, rule.queue))
    spec = SETTINGS[rule.setting]
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
    for component in components:
        current = spec.current(queue, component, cluster)
        default = default_dimension(
            queue,
            rule.setting,
            component,
            values=[current],
            cluster=cluster,
            split=splits[queue.name],
        )
        total = None
        if spec.is_resource and cluster is not None:
            total = cluster.memory_mb if component == "memory" else cluster.vcores
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
        dimension = Dimension(
            queue=queue.name,
            setting=rule.setting,
            component=component,
            low=default.low if low is None else low,
            high=default.high if high is None else high,
            domain=spec.domain,
            scale=rule.scale or (default.scale if default else spec.scale),
            off="none" if rule.off is False else spec.off,
            off_value=spec.off_value,
        )
        if total is not None and dimension.high > total:
            raise ValidationError(
                f"{dimension.name}: high: expected at most the cluster's {total:g}, got {dimension.high:g}"
            )
        dimensions[(queue.name, dimension.key)] = dimension


def _range(text: str, field: str, setting: str) -> tuple[Bound | None, Bound | None]:
    low, sep, high = text.partition(":")
    if not sep or ":" in high:
        raise ValidationError(f"{field}: expected LOW:HIGH (e.g. 0.5:8 or 0:50%), got {text!r}")
    return _bound(low, field, setting), _bound(high, field, setting)


def _bound(value: Any, field: str, setting: str) -> Bound | None:
    """A bound from a number or a string ``12``, ``50%`` or empty (None: the default)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValidationError(f"{field}: expected a number or a string like '50%', got {value!r}")
    if isinstance(value, str):
        value = value.strip()
        if not value:
            return None
        percent = value.endswith("%")
        try:
            number = float(value[:-1] if percent else value)
        except ValueError:
            raise ValidationError(f"{field}: expected a number or N%, got {value!r}") from None
    else:
        number, percent = float(value), False
    if not math.isfinite(number):
        raise ValidationError(f"{field}: expected a finite number, got {value!r}")
    if percent and not SETTINGS[setting].is_resource:
        raise ValidationError(
            f"{field}: expected a number (percentages are for resources), got {value!r}"
        )
    if percent and not 0 <= number <= 100:
        raise ValidationError(f"{field}: expected a percentage in [0, 100], got {value!r}")
    return Bound(number, percent)


def _rules(queue: str, key: str, value: Any, lines: _KeyLines) -> list[Rule]:
    """The rules one key of a ``[queue."NAME"]`` table states."""
    path = ("queue", queue, key)
    if key not in SETTINGS:
        raise ValidationError(
            f"{lines.at(path)}: {queue}.{key}: expected a setting from {', '.join(SETTINGS)} "
            f'(quote dotted queue names: [queue."root.etl"])'
        )
    spec = SETTINGS[key]
    if spec.is_resource and isinstance(value, dict):
        rules = []
        for component, inner in value.items():
            if component not in COMPONENTS:
                raise ValidationError(
                    f"{lines.at(path + (component,))}: {queue}.{key}.{component}: expected memory or vcores"
                )
            rules.append(_rule(queue, key, component, inner, path + (component,), lines))
        return rules
    return [_rule(queue, key, None, value, path, lines)]


def _rule(
    queue: str,
    setting: str,
    component: str | None,
    value: Any,
    path: tuple[str, ...],
    lines: _KeyLines,
) -> Rule:
    source = lines.at(path)
    name = ".".join((queue,) + path[2:])
    if isinstance(value, bool):
        return Rule(queue, setting, component, value, source=source)
    if SETTINGS[setting].is_resource and component is None:
        raise ValidationError(
            f"{source}: {name}: expected true, false or bounds per component "
            f"({setting}.memory, {setting}.vcores), got {value!r}"
        )
    if isinstance(value, str):
        low, high = _range(value, f"{source}: {name}", setting)
        return Rule(queue, setting, component, True, low=low, high=high, source=source)
    if not isinstance(value, dict):
        raise ValidationError(
            f'{source}: {name}: expected true, false, "LOW:HIGH" or a table, got {value!r}'
        )
    for field in value:
        if field not in _TABLE_FIELDS:
            raise ValidationError(
                f"{source}: {name}.{field}: expected one of {', '.join(_TABLE_FIELDS)}"
            )
    scale = value.get("scale")
    if scale is not None and scale not in SCALES:
        raise ValidationError(
            f"{source}: {name}.scale: expected one of {', '.join(SCALES)}, got {scale!r}"
        )
    off = value.get("off")
    if off is not None and not isinstance(off, bool):
        raise ValidationError(f"{source}: {name}.off: expected true or false, got {off!r}")
    return Rule(
        queue,
        setting,
        component,
        True,
        low=_bound(value["low"], f"{source}: {name}.low", setting) if "low" in value else None,
        high=_bound(value["high"], f"{source}: {name}.high", setting) if "high" in value else None,
        scale=scale,
        off=off,
        source=source,
    )


def _table(value: Any, path: tuple[str, ...], lines: _KeyLines) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValidationError(
            f"{lines.at(path)}: {'.'.join(path)}: expected a table, got {value!r}"
        )
    return value


def _names(value: Any, path: tuple[str, ...], lines: _KeyLines) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(
            f"{lines.at(path)}: {'.'.join(path)}: expected a list of strings, got {value!r}"
        )
    return value


_KEY_PART = r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+'
_HEADER = re.compile(rf"^\s*\[\s*((?:{_KEY_PART})(?:\s*\.\s*(?:{_KEY_PART}))*)\s*\]")
_KEY = re.compile(rf"^\s*((?:{_KEY_PART})(?:\s*\.\s*(?:{_KEY_PART}))*)\s*=")


class _KeyLines:
    """Where each key of a TOML text is defined, so errors can name the line.

    tomllib reports lines only for syntax errors; this index covers the keys of
    valid files (table headers and ``key = value`` lines, dotted keys included).
    """

    def __init__(self, text: str, path: str) -> None:
        self.path = path
        self.lines: dict[tuple[str, ...], int] = {}
        table: tuple[str, ...] = ()
        for number, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header and not line.lstrip().startswith("[["):
                table = _split(header[1])
                self.lines.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key:
                self.lines.setdefault(table + _split(key[1]), number)

    def at(self, path: tuple[str, ...]) -> str:
        """``file:line`` of the innermost key of `path` that the text defines (``file`` if none)."""
        for end in range(len(path), 0, -1):
            if path[:end] in self.lines:
                return f"{self.path}:{self.lines[path[:end]]}"
        return self.path


def _split(dotted: str) -> tuple[str, ...]:
    parts = re.findall(_KEY_PART, dotted)
    return tuple(p[1:-1] if p[:1] in ("'", '"') else p for p in parts)
