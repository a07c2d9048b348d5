"""Units of QS template quantities: percentages for fractions, s/min/h for durations."""

from __future__ import annotations

import re

from tempo.errors import TempoError

#: Duration unit (lower case) -> seconds.
DURATION_UNITS: dict[str, float] = {
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hrs": 3600.0,
    "hour": 3600.0,
    "hours": 3600.0,
}

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\s*$")


def parse_duration(text: str) -> float:
    """Seconds in a duration such as ``45min``, ``2h``, ``90s`` or ``600`` (seconds).

    Raises
    ------
    TempoError
        If `text` is not a non-negative number with an optional duration unit.
    """
    match = _DURATION.match(str(text))
    unit = match.group(2).lower() if match else ""
    if match is None or (unit and unit not in DURATION_UNITS):
        raise TempoError(
            f"duration: expected a number with an optional unit s, min or h (e.g. 45min), got {text!r}"
        )
    return float(match.group(1)) * DURATION_UNITS.get(unit, 1.0)
