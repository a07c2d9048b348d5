"""Rules: what the operator says about single queue settings, from a space file or an override.

An override is ``QUEUE.SETTING[.COMPONENT]=VALUE`` with VALUE ``LOW:HIGH`` (either
side may be empty, resources and slots may use ``N%`` of the cluster), ``default`` (tuned
with default bounds) or ``fixed`` (not tuned). In a space file the same rules are
the keys of a ``[queue."NAME"]`` table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tempo.space.key_lines import KeyLines
from tempo.space.settings import COMPONENTS, SCALES, SETTINGS
from whatif.errors import ValidationError

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
    if percent and not (SETTINGS[setting].is_resource or SETTINGS[setting].slot):
        raise ValidationError(
            f"{field}: expected a number (percentages are for resources), got {value!r}"
        )
    if percent and not 0 <= number <= 100:
        raise ValidationError(f"{field}: expected a percentage in [0, 100], got {value!r}")
    return Bound(number, percent)


def table_rules(queue: str, key: str, value: Any, lines: KeyLines) -> list[Rule]:
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
    lines: KeyLines,
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


def toml_table(value: Any, path: tuple[str, ...], lines: KeyLines) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValidationError(
            f"{lines.at(path)}: {'.'.join(path)}: expected a table, got {value!r}"
        )
    return value


def string_list(value: Any, path: tuple[str, ...], lines: KeyLines) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(
            f"{lines.at(path)}: {'.'.join(path)}: expected a list of strings, got {value!r}"
        )
    return value
