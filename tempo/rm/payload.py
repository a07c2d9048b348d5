"""Reading fields out of a decoded RM REST payload, tolerant of version differences.

Hadoop versions disagree on shapes: a list may come wrapped (``{"queue": [...]}``),
bare (``[...]``), as a single object (old Jersey JSON for one-element lists), or as
``null`` when empty; numbers are sometimes strings; optional fields come and go.
These readers accept all of those and raise `tempo.RMError` naming the field path,
what was expected and what was received when a value is really unusable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from tempo.errors import RMError

#: Marker for "this field is required".
REQUIRED: Any = object()
_T = TypeVar("_T")


def mapping(value: object, *, where: str) -> Mapping[str, Any]:
    """`value` as a JSON object, or an error naming `where`."""
    if not isinstance(value, Mapping):
        raise RMError(f"{where}: expected a JSON object, got {_describe(value)}")
    return value


def member(obj: Mapping[str, Any], key: str, *, where: str) -> Mapping[str, Any]:
    """The JSON object under `key` (required)."""
    if key not in obj or obj[key] is None:
        raise RMError(f"{where}.{key}: missing (have {', '.join(map(str, obj)) or 'nothing'})")
    return mapping(obj[key], where=f"{where}.{key}")


def items(value: object, key: str, *, where: str) -> list[Mapping[str, Any]]:
    """The objects of a list that may be wrapped as ``{key: [...]}``, bare, single or null."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        if key in value:
            return items(value[key], key, where=f"{where}.{key}")
        if not value:
            return []
        return [value]
    if isinstance(value, list):
        for index, entry in enumerate(value):
            mapping(entry, where=f"{where}[{index}]")
        return list(value)
    raise RMError(f'{where}: expected a list or {{"{key}": [...]}}, got {_describe(value)}')


def listed(
    obj: Mapping[str, Any], key: str, item: str, *, where: str
) -> list[tuple[str, Mapping[str, Any]]]:
    """The objects of the list ``obj[key]`` (wrapped as ``{item: [...]}``, bare, single or
    null: `items`), each with its field path ``where.key[index]``: a queue's children."""
    at = f"{where}.{key}"
    return [
        (f"{at}[{index}]", entry) for index, entry in enumerate(items(obj.get(key), item, where=at))
    ]


def integer(obj: Mapping[str, Any], key: str, *, where: str, default: Any = REQUIRED) -> Any:
    """An integer field; numeric strings and integral floats are accepted."""
    return _field(obj, key, where, default, _integer)


def number(obj: Mapping[str, Any], key: str, *, where: str, default: Any = REQUIRED) -> Any:
    """A numeric field as a float; numeric strings are accepted."""
    return _field(obj, key, where, default, _number)


def text(obj: Mapping[str, Any], key: str, *, where: str, default: Any = REQUIRED) -> Any:
    """A string field; numbers are turned into their text."""
    return _field(obj, key, where, default, _text)


def flag(obj: Mapping[str, Any], key: str, *, where: str, default: Any = REQUIRED) -> Any:
    """A boolean field; ``"true"``/``"false"`` strings are accepted."""
    return _field(obj, key, where, default, _flag)


def _field(
    obj: Mapping[str, Any],
    key: str,
    where: str,
    default: Any,
    convert: Callable[[object, str], Any],
) -> Any:
    """``obj[key]`` converted by `convert` (given the value and the field's path); a missing
    or null field is `default`, or an error when it is `REQUIRED`."""
    value = obj.get(key)
    if value is None:
        if default is REQUIRED:
            raise RMError(f"{where}.{key}: missing")
        return default
    return convert(value, f"{where}.{key}")


def _integer(value: object, where: str) -> int:
    if isinstance(value, bool):
        raise RMError(f"{where}: expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return _from_text(value, int, where, "an integer")


def _number(value: object, where: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return _from_text(value, float, where, "a number")


def _from_text(value: object, parse: Callable[[str], _T], where: str, expected: str) -> _T:
    """A number sent as a string (trimmed), or `RMError` naming the field and the value."""
    if isinstance(value, str):
        try:
            return parse(value.strip())
        except ValueError:
            pass
    raise RMError(f"{where}: expected {expected}, got {_describe(value)}")


def _text(value: object, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise RMError(f"{where}: expected a string, got {_describe(value)}")


def _flag(value: object, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise RMError(f"{where}: expected true or false, got {_describe(value)}")


def _describe(value: object) -> str:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{type(value).__name__} {shown}"
