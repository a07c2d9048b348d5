"""Reading setting values exactly as Hadoop's Java code reads them.

Hadoop parses allocation-file numbers with ``Integer.parseInt``, ``Long.parseLong``,
``Float.parseFloat`` and ``Double.parseDouble``; these accept a little more (``0.5f``,
``+3``, ``Infinity``) and a little less (``1e3`` for an int) than Python does, so
the allocation model uses these twins to decide what Hadoop would accept.
Each function raises ``ValueError`` with Java's exception text when Java would throw.
"""

from __future__ import annotations

import math
import re

import numpy as np

JAVA_INT_MIN, JAVA_INT_MAX = -(2**31), 2**31 - 1
JAVA_LONG_MIN, JAVA_LONG_MAX = -(2**63), 2**63 - 1

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)"
)
_HEX = re.compile(r"([+-]?)0[xX]([0-9a-fA-F]*\.?[0-9a-fA-F]*)[pP]([+-]?[0-9]+)[fFdD]?")


def _java_integer(text: str, low: int, high: int) -> int:
    if not _INTEGER.fullmatch(text):
        raise ValueError(f'For input string: "{text}"')
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f'For input string: "{text}" (out of range)')
    return value


def parse_int(text: str) -> int:
    """``Integer.parseInt``: optional sign and decimal digits, 32-bit range."""
    return _java_integer(text, JAVA_INT_MIN, JAVA_INT_MAX)


def parse_long(text: str) -> int:
    """``Long.parseLong``: optional sign and decimal digits, 64-bit range."""
    return _java_integer(text, JAVA_LONG_MIN, JAVA_LONG_MAX)


def parse_double(text: str) -> float:
    """``Double.parseDouble``: Java's float grammar (suffix ``f``/``d``, ``Infinity``, hex)."""
    stripped = text.strip(" \t\n\r\x0b\x0c\x00")
    hex_match = _HEX.fullmatch(stripped)
    if hex_match:
        sign, digits, exponent = hex_match.groups()
        mantissa = digits if "." in digits else digits + "."
        return float.fromhex(f"{sign}0x{mantissa}0p{exponent}")
    if not _DECIMAL.fullmatch(stripped):
        raise ValueError(f'For input string: "{text}"')
    body = stripped.rstrip("fFdD") if not stripped.endswith("Infinity") else stripped
    if body.lstrip("+-") == "NaN":
        return math.nan
    if body.lstrip("+-") == "Infinity":
        return -math.inf if body.startswith("-") else math.inf
    return float(body)


def parse_float(text: str) -> float:
    """``Float.parseFloat``: as `parse_double`, rounded to a 32-bit float."""
    return to_java_float(parse_double(text))


def to_java_float(value: float) -> float:
    """The value a Java ``float`` holds for `value` (round to 32 bits, widen back)."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


def java_float_json(value: float) -> float:
    """`value` as a Java ``float`` prints (``Float.toString``: the shortest decimal that
    reads back as the same 32-bit float), so a JSON document says 0.3, not the
    0.30000001192092896 the float widens to."""
    return float(str(np.float32(value)))


def java_int_cast(value: float) -> int:
    """Java's ``(int) value`` narrowing: NaN is 0, and values beyond the 32-bit range
    (infinities too) saturate at ``Integer.MIN_VALUE`` / ``MAX_VALUE``."""
    if math.isnan(value):
        return 0
    if value >= JAVA_INT_MAX:
        return JAVA_INT_MAX
    if value <= JAVA_INT_MIN:
        return JAVA_INT_MIN
    return int(value)


def parse_boolean(text: str) -> bool:
    """``Boolean.parseBoolean``: true only for ``true`` in any case; anything else is false."""
    return text.lower() == "true"
