"""Declared hyperparameter constraints, checked once when an optimizer is set up.

Each optimizer lists ``_parameter_constraints = {name: constraint}``; `validate_params`
checks them and raises a ValidationError naming the optimizer, the parameter, what
is allowed and the value received.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import cast

from whatif.errors import ValidationError


@dataclass(frozen=True)
class Interval:
    """A number of ``kind`` (int or float) in an interval; ``None`` leaves a side open."""

    kind: type
    low: float | None = None
    high: float | None = None
    closed: str = "both"  # "both", "left", "right" or "neither"
    allow_none: bool = False

    def accepts(self, value: object) -> bool:
        """True when ``value`` has the right type and lies in the interval."""
        if value is None:
            return self.allow_none
        abstract = Integral if self.kind is int else Real
        if isinstance(value, bool) or not isinstance(value, abstract):
            return False
        if isinstance(value, float) and math.isnan(value):
            return False
        # mypy does not order the numbers ABCs; a Real compares as a float does.
        value = cast(float, value)
        low_ok = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low
        )
        high_ok = self.high is None or (
            value <= self.high if self.closed in ("both", "right") else value < self.high
        )
        return low_ok and high_ok

    def describe(self) -> str:
        """Human description, e.g. ``an int in [1, inf)``."""
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        low = "-inf" if self.low is None else self.low
        high = "inf" if self.high is None else self.high
        text = f"{'an int' if self.kind is int else 'a number'} in {left}{low}, {high}{right}"
        return text + (" or None" if self.allow_none else "")


@dataclass(frozen=True)
class Predicate:
    """Any other rule: a test and its description."""

    test: Callable[[object], bool]
    description: str

    def accepts(self, value: object) -> bool:
        """True when the test passes (exceptions count as failure)."""
        try:
            return bool(self.test(value))
        except (TypeError, ValueError):
            return False

    def describe(self) -> str:
        """The description given."""
        return self.description


Constraint = Interval | Predicate


def validate_params(
    owner: str, params: Mapping[str, object], constraints: Mapping[str, Constraint]
) -> None:
    """Raise ValidationError for the first parameter that breaks its declared constraint."""
    for name, constraint in constraints.items():
        value = params[name]
        if not constraint.accepts(value):
            raise ValidationError(
                f"{owner}: parameter {name!r} must be {constraint.describe()}, got {value!r}"
            )
