"""Capacity Scheduler property values, read as Hadoop 3.x's ``CapacitySchedulerConfiguration`` reads them.

A queue's ``capacity`` takes one of three modes:

* percentage: ``40`` or ``12.5`` (``Float.parseFloat``; [0, 100] of the parent),
* absolute: ``[memory=10240,vcores=12]`` (matched by Hadoop's
  ``PATTERN_FOR_ABSOLUTE_RESOURCE``, ``^\\[[\\w\\.,\\-_=\\ /]+\\]$``, on the untrimmed
  value; memory in MB unless a unit such as ``Gi`` follows the number),
* weight: ``3w`` (a value ending in ``w``; the number before it in [0, 10000]).

``maximum-capacity`` is a percentage (``-1`` means 100) or absolute resources.
Hadoop 3.4's capacity vectors (``[memory=50%,vcores=2w]``) are recognised but not
modelled (mode ``vector``). Each parser raises ``ValueError`` in Hadoop's words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from whatif.allocation.java_values import parse_float, parse_int

Mode = Literal["percentage", "absolute", "weight", "vector"]

#: Hadoop's ``PATTERN_FOR_ABSOLUTE_RESOURCE``.
ABSOLUTE_PATTERN = re.compile(r"^\[[\w.,\-_= /]+\]$")
_ENTRY_VALUE = re.compile(r"\s*([0-9]+)\s*([A-Za-z]*)\s*")

#: Units Hadoop's ``UnitsConversionUtil`` knows, as multiples of one byte-less unit.
_UNITS = {
    "": None,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
}
MAX_WEIGHT = 10000.0


@dataclass(frozen=True)
class AbsoluteResources:
    """Resources written as ``[memory=...,vcores=...]``; None where a type is not given."""

    memory_mb: float | None = None
    vcores: float | None = None
    others: tuple[tuple[str, float], ...] = ()

    def render(self) -> str:
        parts = []
        if self.memory_mb is not None:
            parts.append(f"memory={_number(self.memory_mb)}")
        if self.vcores is not None:
            parts.append(f"vcores={_number(self.vcores)}")
        parts += [f"{name}={_number(value)}" for name, value in self.others]
        return "[" + ",".join(parts) + "]"


@dataclass(frozen=True)
class CapacityValue:
    """A parsed ``capacity``: its mode and the number (percent, weight) or resources."""

    mode: Mode
    percent: float = 0.0
    weight: float = -1.0
    resources: AbsoluteResources | None = None


@dataclass(frozen=True)
class MaximumCapacity:
    """A parsed ``maximum-capacity``: a percentage of the parent, or absolute resources."""

    percent: float = 100.0
    resources: AbsoluteResources | None = None


def is_vector(raw: str) -> bool:
    """Hadoop 3.4's capacity-vector format: bracketed entries with ``%`` or ``w`` values."""
    text = raw.strip()
    return text.startswith("[") and text.endswith("]") and not ABSOLUTE_PATTERN.match(raw)


def parse_capacity(raw: str, queue: str) -> CapacityValue:
    """``capacity`` of `queue` as Hadoop reads it; ``ValueError`` when Hadoop would refuse it."""
    if ABSOLUTE_PATTERN.match(raw):
        return CapacityValue("absolute", resources=parse_absolute(raw, queue))
    if raw.endswith("w"):
        number = raw[: raw.index("w")]
        weight = parse_float(number)
        if (weight < -1e-6 and abs(weight + 1) > 1e-6) or weight > MAX_WEIGHT or math.isnan(weight):
            raise ValueError(
                f"Illegal weight={_number(weight)} for queue={queue}. "
                "Acceptable values: [0, 10000], -1 is same as not set"
            )
        return CapacityValue("weight", weight=weight)
    if is_vector(raw):
        return CapacityValue("vector")
    percent = parse_float(raw)
    if not 0.0 <= percent <= 100.0:
        raise ValueError(f"Illegal capacity of {_number(percent)} for queue {queue}")
    return CapacityValue("percentage", percent=percent)


def parse_maximum_capacity(raw: str, queue: str) -> MaximumCapacity:
    """``maximum-capacity`` of `queue`: ``-1`` is 100; [0, 100] or absolute resources."""
    if ABSOLUTE_PATTERN.match(raw):
        return MaximumCapacity(100.0, parse_absolute(raw, queue))
    if is_vector(raw):
        return MaximumCapacity(100.0)
    percent = parse_float(raw)
    if percent == -1.0:
        return MaximumCapacity(100.0)
    if not 0.0 <= percent <= 100.0:
        raise ValueError(
            f"Illegal value of maximumCapacity {_number(percent / 100)} used in call to "
            f"setMaxCapacity for queue {queue} (expected 0 to 100, or -1 for 100)"
        )
    return MaximumCapacity(percent)


def parse_absolute(raw: str, queue: str) -> AbsoluteResources:
    """``[memory=10240,vcores=12]``: memory in MB (or with a unit), vcores a count."""
    memory = vcores = None
    others: list[tuple[str, float]] = []
    for entry in raw.strip()[1:-1].split(","):
        if not entry.strip():
            continue
        key, sep, text = entry.partition("=")
        key = key.strip()
        match = _ENTRY_VALUE.fullmatch(text)
        if not sep or not key or match is None:
            raise ValueError(
                f"queue {queue}: cannot read resource entry {entry.strip()!r} in {raw.strip()!r} "
                "(expected NAME=NUMBER, e.g. memory=10240 or vcores=12)"
            )
        number, unit = int(match.group(1)), match.group(2)
        if unit not in _UNITS:
            raise ValueError(f"queue {queue}: unknown unit {unit!r} in {entry.strip()!r}")
        if key in ("memory", "memory-mb"):
            factor = _UNITS[unit]
            memory = float(number if factor is None else (number * factor) // 2**20)
        elif key == "vcores":
            vcores = float(number)
        else:
            others.append((key, float(number)))
    if memory is None and vcores is None and not others:
        raise ValueError(f"queue {queue}: no resources in {raw.strip()!r}")
    return AbsoluteResources(memory, vcores, tuple(others))


#: A parsed number: int or float.
N = TypeVar("N", int, float)


def parse_or(raw: str | None, parse: Callable[[str], N], default: N) -> N:
    """`raw` through `parse` (``parse_java_int`` or ``parse_java_float``), or `default`
    when the property is unset or malformed, as ``Configuration.getInt`` falls back."""
    if raw is None:
        return default
    try:
        return parse(raw)
    except ValueError:
        return default


def java_boolean(raw: str | None, default: bool) -> bool:
    """``Configuration.getBoolean``: the trimmed text ``true`` or ``false`` in any case, else
    (unset or anything other) `default`."""
    text = "" if raw is None else raw.strip().lower()
    return text == "true" if text in ("true", "false") else default


def parse_java_float(raw: str) -> float:
    """``Configuration.getFloat``: the trimmed text through ``Float.parseFloat``."""
    return parse_float(raw.strip())


def parse_java_int(raw: str) -> int:
    """``Configuration.getInt``: trimmed, decimal or ``0x`` hexadecimal, 32-bit."""
    text = raw.strip()
    sign = "-" if text.startswith("-") else ""
    body = text.lstrip("+-") if text[:1] in "+-" else text
    if body.lower().startswith("0x"):
        try:
            value = int(sign + body[2:], 16)
        except ValueError:
            raise ValueError(f'For input string: "{raw}"') from None
        if not -(2**31) <= value < 2**31:
            raise ValueError(f'For input string: "{raw}" (out of range)')
        return value
    return parse_int(text)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
