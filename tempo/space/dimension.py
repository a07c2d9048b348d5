"""One axis of the configuration space: a setting of one queue and the range it may take."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tempo.space.settings import COMPONENTS, DOMAINS, OFF_MODES, SCALES, SETTINGS
from whatif._validation import check_choice
from whatif.errors import ValidationError

#: Width of the band at the top of [0, 1] that means "off" for ``off="band"`` dimensions.
OFF_BAND = 0.1


@dataclass(frozen=True)
class Dimension:
    """A tunable setting of one queue, its bounds in Hadoop units and its encoding.

    The value range [``low``, ``high``] maps onto [0, 1] (onto [0, 1 - OFF_BAND]
    when ``off`` is ``band``), linearly or on a log scale. ``integer`` dimensions
    take whole values. ``off`` says how the "off" state (``off_value``: ``math.inf``
    for a timeout that never fires or no limit, -1 for a disabled ``maxAMShare``)
    is encoded: ``band`` reserves the top of the unit interval for it, ``high``
    reads the top of the range as no limit (a limit at the cluster size).

    A ``categorical`` dimension takes one of ``choices`` (policy names); its values
    in the space's arrays are indices into ``choices`` (``low`` 0, ``high`` the last
    index), and [0, 1] is cut into one equal cell per choice, each choice encoded at
    its cell's centre, so moving to the next choice is a step of ``1 / len(choices)``.
    """

    queue: str
    setting: str
    component: str | None = None
    low: float = 0.0
    high: float = 1.0
    domain: str = "continuous"
    scale: str = "linear"
    off: str = "none"
    off_value: float = math.inf
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_choice(self.setting, SETTINGS, field=f"{self.queue}: setting")
        check_choice(self.domain, DOMAINS, field=f"{self.name}: domain")
        check_choice(self.scale, SCALES, field=f"{self.name}: scale")
        check_choice(self.off, OFF_MODES, field=f"{self.name}: off")
        if SETTINGS[self.setting].is_resource:
            check_choice(self.component, COMPONENTS, field=f"{self.name}: component")
        elif self.component is not None:
            raise ValidationError(f"{self.name}: component: expected None, got {self.component!r}")
        if self.domain == "categorical":
            self._check_choices()
        elif self.choices:
            raise ValidationError(
                f"{self.name}: choices: expected none for a {self.domain} domain, got {self.choices!r}"
            )
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
            raise ValidationError(
                f"{self.name}: bounds: expected finite low < high, got [{self.low!r}, {self.high!r}]"
            )
        setting = SETTINGS[self.setting]
        if self.low < setting.minimum or self.high > setting.maximum:
            raise ValidationError(
                f"{self.name}: bounds: expected within [{setting.minimum:g}, {setting.maximum:g}], "
                f"got [{self.low:g}, {self.high:g}]"
            )
        if self.scale == "log" and self.low <= 0:
            raise ValidationError(
                f"{self.name}: low: expected > 0 on a log scale, got {self.low!r}"
            )
        if self.domain == "integer" and not (
            float(self.low).is_integer() and float(self.high).is_integer()
        ):
            raise ValidationError(
                f"{self.name}: bounds: expected whole numbers for an integer domain, "
                f"got [{self.low!r}, {self.high!r}]"
            )

    def _check_choices(self) -> None:
        choices = tuple(self.choices)
        if len(choices) < 2 or len(set(choices)) != len(choices):
            raise ValidationError(
                f"{self.name}: choices: expected at least two distinct names, got {choices!r}"
            )
        allowed = SETTINGS[self.setting].choices
        for choice in choices:
            check_choice(choice, allowed, field=f"{self.name}: choices")
        if (self.low, self.high, self.scale, self.off) != (0.0, len(choices) - 1, "linear", "none"):
            raise ValidationError(
                f"{self.name}: expected low=0, high={len(choices) - 1} (the last choice's index), "
                f"scale='linear' and off='none' for a categorical dimension, got "
                f"low={self.low!r}, high={self.high!r}, scale={self.scale!r}, off={self.off!r}"
            )
        object.__setattr__(self, "choices", choices)

    def number(self, value: float | str) -> float:
        """`value` as the space's arrays hold it: a categorical name as its index, numbers as float."""
        if self.domain != "categorical":
            return float(value)
        if isinstance(value, str):
            if value not in self.choices:
                raise ValidationError(
                    f"{self.name}: expected one of {', '.join(self.choices)}, got {value!r}"
                )
            return float(self.choices.index(value))
        return float(value)

    @property
    def key(self) -> str:
        """The setting and component: ``weight``, ``minResources.memory``."""
        return self.setting if self.component is None else f"{self.setting}.{self.component}"

    @property
    def name(self) -> str:
        """The full name used in overrides: ``root.etl.minResources.memory``."""
        return f"{self.queue}.{self.key}"

    def is_off(self, value: float | str) -> bool:
        """Whether `value` (Hadoop units) is this dimension's off state."""
        if isinstance(value, str):
            return False
        if self.off == "band":
            return value == self.off_value
        if self.off == "high":
            return value >= self.high
        return False

    def contains(self, value: float | str) -> bool:
        """Whether `value` can be encoded without clipping."""
        if self.domain == "categorical":
            return (
                value in self.choices if isinstance(value, str) else self.low <= value <= self.high
            )
        if isinstance(value, str):
            raise TypeError(f"{self.name}: expected a number, got {value!r}")
        return self.is_off(value) or self.low <= value <= self.high

    def canonical(self, value: float | str) -> float:
        """`value` as this dimension represents it: rounded if integer or categorical (an index),
        off as ``off_value``."""
        value = self.number(value)
        if self.is_off(value):
            return self.off_value
        if self.domain != "continuous" and math.isfinite(value):
            return float(round(value))
        return float(value)

    def same(self, a: float | str, b: float | str) -> bool:
        """Whether two values are the same setting (up to rounding noise)."""
        a, b = self.canonical(a), self.canonical(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)

    def describe(self) -> str:
        """The range as text, e.g. ``[30, 3600] integer log or off`` or ``fair | fifo categorical``."""
        if self.domain == "categorical":
            return f"{' | '.join(self.choices)} categorical"
        off = {"none": "", "band": " or off", "high": f" (>= {self.high:g} is no limit)"}[self.off]
        return f"[{self.low:g}, {self.high:g}] {self.domain} {self.scale}{off}"
