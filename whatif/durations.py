"""Durations as people write them: ``45min``, ``2h``, ``90s``, ``1d`` or ``600`` (seconds),
and trace times as people read them (`format_instant`).

The one duration syntax of the project: QS templates, relative deadlines
(``deadline=+1h``) and the CLI's ``--window`` all read durations here.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

from whatif.errors import ValidationError

#: Seconds in a minute, an hour, a day and a week.
MINUTE_S = 60.0
HOUR_S = 60 * MINUTE_S
DAY_S = 24 * HOUR_S
WEEK_S = 7 * DAY_S

#: Duration unit (lower case) -> seconds.
DURATION_UNITS: dict[str, float] = {
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "m": MINUTE_S,
    "min": MINUTE_S,
    "mins": MINUTE_S,
    "minute": MINUTE_S,
    "minutes": MINUTE_S,
    "h": HOUR_S,
    "hr": HOUR_S,
    "hrs": HOUR_S,
    "hour": HOUR_S,
    "hours": HOUR_S,
    "d": DAY_S,
    "day": DAY_S,
    "days": DAY_S,
}

#: Trace times at or above this many seconds are epoch times (1973 on), below it offsets
#: from a trace's own zero (SLS, SWIM and generated workloads start at 0).
EPOCH_FROM_S = 1e8
#: The last trace time a date shows: 9999-12-31 23:59:59 UTC in epoch seconds, where
#: Python's datetime ends (`format_instant` shows a later time in seconds).
LAST_INSTANT_S = 253402300799.0

#: How a duration is written back, largest unit first (see `format_duration`).
_CANONICAL = (("d", DAY_S), ("h", HOUR_S), ("min", MINUTE_S))

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\s*$")


def parse_duration(text: str, *, field: str = "duration") -> float:
    """Seconds in a duration such as ``45min``, ``2h``, ``90s``, ``1d`` or ``600`` (seconds).

    Raises
    ------
    ValidationError
        Naming `field`, if `text` is not a non-negative number with an optional unit.
    """
    match = _DURATION.match(str(text))
    unit = match.group(2).lower() if match else ""
    if match is None or (unit and unit not in DURATION_UNITS):
        raise ValidationError(
            f"{field}: expected a number with an optional unit s, m/min, h or d (e.g. 45min), "
            f"got {text!r}"
        )
    return float(match.group(1)) * DURATION_UNITS.get(unit, 1.0)


def format_duration(seconds: float) -> str:
    """`seconds` in the largest unit that writes it exactly: 3600 -> ``1h``, 5400 -> ``90min``."""
    if not math.isfinite(seconds):
        raise ValidationError(f"duration: expected a finite number of seconds, got {seconds!r}")
    for unit, size in _CANONICAL:
        count = seconds / size
        if seconds and count == round(count):
            return f"{count:g}{unit}"
    return f"{seconds:g}s"


def format_instant(seconds: float | None, *, zone: bool = False) -> str:
    """A trace time as text: an epoch time as ``2012-01-17 15:56:29`` (UTC; with `zone`,
    `` UTC`` after it), an offset from the trace's zero as ``1,234.5 s``, none as ``-``.
    A time past `LAST_INSTANT_S` (a predicted end far beyond any date) is shown in seconds."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    if seconds > LAST_INSTANT_S:
        return f"{seconds:.6g} s"
    if seconds < EPOCH_FROM_S:
        return f"{seconds:,.1f} s"
    text = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")
    return f"{text} UTC" if zone else text
