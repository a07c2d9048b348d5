"""The minimum meaningful gain: below it, `tempo optimize` proposes no change and `tempo tune` applies none.

A predicted improvement of a QS from ``before`` to ``after`` counts when it is at
least ``relative * |before|`` AND at least the absolute floor of the metric's unit
(seconds for response times, fractions for rates). Seven settings moved for a
predicted 0.01 s is noise in the predictor, not a gain; a change that brings a
violated constraint back within its threshold always counts.

Defaults (`MinGain()`): 1% relative, and 1 s or 0.5 percentage points absolute.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from tempo.errors import TempoError

#: Units whose absolute floor is `MinGain.seconds` / `MinGain.fraction`.
SECONDS, FRACTION = "s", "fraction"


@dataclass(frozen=True)
class MinGain:
    """The smallest predicted improvement worth a change (see the module docstring)."""

    relative: float = 0.01
    seconds: float = 1.0
    fraction: float = 0.005

    def __post_init__(self) -> None:
        for name in ("relative", "seconds", "fraction"):
            value = getattr(self, name)
            if isinstance(value, bool) or not (
                isinstance(value, int | float) and math.isfinite(value) and value >= 0
            ):
                raise TempoError(f"MinGain.{name}: expected a finite number >= 0, got {value!r}")

    def absolute(self, unit: str) -> float:
        """The absolute floor for a QS measured in `unit` (0 for other units)."""
        return {SECONDS: self.seconds, FRACTION: self.fraction}.get(unit, 0.0)

    def needed(self, before: float, unit: str) -> float:
        """How much better than `before` a QS must be predicted to count."""
        return max(self.relative * abs(before), self.absolute(unit))

    def is_gain(self, before: float, after: float, unit: str) -> bool:
        """Whether `after` improves on `before` (lower is better) by at least `needed`."""
        if math.isnan(before) or math.isnan(after):
            return False
        change = before - after
        return change > 0 and change >= self.needed(before, unit)

    def __str__(self) -> str:
        return (
            f"{self.relative:.3g} relative ({self.relative * 100:g}%) and at least "
            f"{self.seconds:g} s or {self.fraction * 100:g} percentage points"
        )


@dataclass(frozen=True)
class QSChange:
    """One QS before and after a change: its label, unit, threshold (inf for an objective)."""

    label: str
    unit: str
    threshold: float
    before: float
    after: float


def meaningful_gains(changes: Iterable[QSChange], min_gain: MinGain) -> list[QSChange]:
    """The changes that are gains worth a configuration change.

    An objective (infinite threshold) or a violated constraint counts when it is
    better by `min_gain`; a violated constraint predicted met again always counts.
    """
    found = []
    for c in changes:
        if math.isnan(c.before) or math.isnan(c.after):
            continue
        objective = math.isinf(c.threshold)
        violated = not objective and c.before > c.threshold
        if violated and c.after <= c.threshold:
            found.append(c)
        elif (objective or violated) and min_gain.is_gain(c.before, c.after, c.unit):
            found.append(c)
    return found
