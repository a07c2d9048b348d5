"""Units of QS template quantities: percentages for fractions, s/min/h/d for durations.

Durations are read by `whatif.durations`, the project's one duration syntax;
`parse_duration` only reports a bad one as a `TempoError`, as the tuner's callers expect.
"""

from __future__ import annotations

from tempo.errors import TempoError
from whatif.durations import DURATION_UNITS
from whatif.durations import parse_duration as _parse_duration
from whatif.errors import ValidationError

__all__ = ["DURATION_UNITS", "parse_duration"]


def parse_duration(text: str) -> float:
    """Seconds in a duration such as ``45min``, ``2h``, ``90s``, ``1d`` or ``600`` (seconds).

    Raises
    ------
    TempoError
        If `text` is not a non-negative number with an optional duration unit.
    """
    try:
        return _parse_duration(text)
    except ValidationError as error:
        raise TempoError(str(error)) from None
