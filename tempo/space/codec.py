"""Vectorized mapping between Hadoop-unit values and the unit cube, for many dimensions at once.

Each dimension's range [low, high] maps linearly (or linearly in log) onto [0, top],
where top is 1 - OFF_BAND for dimensions whose off state is a band and 1 otherwise.
For a band dimension the valid unit values are [0, top] and exactly 1 (off); a
unit value in the gap (top, 1) belongs to whichever of the two is nearer. A
categorical dimension of k choices (values are indices 0..k-1) cuts [0, 1] into k
equal cells and encodes choice i at its cell's centre, (i + 0.5) / k.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

import numpy as np

from tempo.space.dimension import OFF_BAND, Dimension
from tempo.space.sampling import in_ball
from whatif._validation import check_range
from whatif.errors import ValidationError

logger = logging.getLogger(__name__)


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_D = TypeVar("_D", bound=_Named)


def checked_dimensions(owner: str, dimensions: Iterable[_D]) -> tuple[_D, ...]:
    """`dimensions` as a tuple, refused (`ValidationError` naming ``owner.dimensions``) when
    empty or when two share a name: the check every space makes of its dimensions."""
    dims = tuple(dimensions)
    if not dims:
        raise ValidationError(f"{owner}.dimensions: expected at least one, got none")
    names = [d.name for d in dims]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValidationError(
            f"{owner}.dimensions: expected unique names, got {', '.join(repeated)} twice"
        )
    return dims


class Codec:
    """Column arrays describing a list of dimensions, and the maps over them.

    Every method takes and returns arrays of shape (n, d), float64.
    """

    def __init__(self, dimensions: Sequence[Dimension]) -> None:
        self.low = np.array([d.low for d in dimensions], dtype=float)
        self.high = np.array([d.high for d in dimensions], dtype=float)
        self.log = np.array([d.scale == "log" for d in dimensions], dtype=bool)
        self.integer = np.array([d.domain == "integer" for d in dimensions], dtype=bool)
        self.categorical = np.array([d.domain == "categorical" for d in dimensions], dtype=bool)
        self.cells = np.array([max(len(d.choices), 1) for d in dimensions], dtype=float)
        self.band = np.array([d.off == "band" for d in dimensions], dtype=bool)
        self.high_is_off = np.array([d.off == "high" for d in dimensions], dtype=bool)
        self.off_value = np.array([d.off_value for d in dimensions], dtype=float)
        self.top = np.where(self.band, 1.0 - OFF_BAND, 1.0)
        self._f_low = np.where(self.log, np.log(np.where(self.log, self.low, 1.0)), self.low)
        self._f_high = np.where(self.log, np.log(np.where(self.log, self.high, 1.0)), self.high)

    def is_off_value(self, values: np.ndarray) -> np.ndarray:
        """Which values are the off state (Hadoop units)."""
        off: np.ndarray = (self.band & (values == self.off_value)) | (
            self.high_is_off & (values >= self.high)
        )
        return off

    def to_unit(self, values: np.ndarray) -> np.ndarray:
        """Encode values; finite ones are clipped to [low, high] first."""
        off = self.is_off_value(values)
        clipped = np.clip(np.where(off, self.low, values), self.low, self.high)
        return np.where(off, 1.0, self._encode_on(clipped))

    def _encode_on(self, values: np.ndarray) -> np.ndarray:
        """Unit positions of in-range values."""
        f = np.where(self.log, np.log(np.where(self.log, values, 1.0)), values)
        units = (f - self._f_low) / (self._f_high - self._f_low) * self.top
        return np.asarray(np.where(self.categorical, (np.round(values) + 0.5) / self.cells, units))

    def _on_values(self, units: np.ndarray) -> np.ndarray:
        """Values for unit positions read as "on" (no off handling), rounded if integer."""
        t = np.clip(units / self.top, 0.0, 1.0)
        f = self._f_low + t * (self._f_high - self._f_low)
        values = np.where(self.log, np.exp(np.where(self.log, f, 0.0)), f)
        values = np.where(self.integer, np.round(values), values)
        cell = np.floor(np.clip(units, 0.0, 1.0) * self.cells)
        values = np.where(self.categorical, cell, values)
        return np.clip(values, self.low, self.high)

    def _off_units(self, units: np.ndarray) -> np.ndarray:
        """Which unit positions mean off (the nearer half of a band's gap, or the top)."""
        return (self.band & (units > 1.0 - OFF_BAND / 2)) | (self.high_is_off & (units >= 1.0))

    def to_values(self, units: np.ndarray) -> np.ndarray:
        """Decode unit positions (clipped to [0, 1]) to values, off as each ``off_value``."""
        units = np.clip(units, 0.0, 1.0)
        values = self._on_values(units)
        off = self._off_units(units) | (self.high_is_off & (values >= self.high))
        return np.where(off, self.off_value, values)

    def snap(self, units: np.ndarray) -> np.ndarray:
        """The nearest valid unit positions: clipped, off gaps resolved, integers rounded.

        Integer dimensions are rounded on their own (Hadoop) scale and re-encoded, and
        categorical ones moved to their cell's centre, so decoding the result and
        encoding it again gives the same positions.
        """
        units = np.clip(units, 0.0, 1.0)
        off = self._off_units(units)
        on_units = np.minimum(units, self.top)
        re_encoded = self._encode_on(self._on_values(on_units))
        on_units = np.where(self.integer | self.categorical, re_encoded, on_units)
        return np.where(off, 1.0, on_units)

    def steps(self, units: np.ndarray) -> np.ndarray:
        """Per point and dimension, the normalized move to the next setting value, shape (n, d).

        Integer dimensions: from the point's value to the next whole value up (down
        at the top of the range); from off, into the on part of the interval.
        Categorical: one cell, ``1 / k``. Continuous: 0.
        """
        units = self.snap(units)
        values = self._on_values(np.minimum(units, self.top))
        up = np.where(values + 1 <= self.high, values + 1, values - 1)
        unit_step = np.abs(
            self._encode_on(np.clip(up, self.low, self.high)) - np.minimum(units, self.top)
        )
        from_off = np.where(self.band, OFF_BAND / 2, unit_step)
        integer = np.where(self._off_units(units), from_off, unit_step)
        return np.where(self.categorical, 1.0 / self.cells, np.where(self.integer, integer, 0.0))


class CodedSpace(ABC):
    """What a space answers from its dimensions and their `Codec` alone, the same way for
    `ConfigurationSpace` and `CapacitySpace` (both inherit it): its size, names and steps,
    and `sample` (over the space's own `project` and check of a ball's `_center`)."""

    dimensions: tuple[Any, ...]
    _codec: Codec

    def __len__(self) -> int:
        return len(self.dimensions)

    @property
    def names(self) -> tuple[str, ...]:
        """Dimension names in vector order (``root.etl.weight``)."""
        return tuple(d.name for d in self.dimensions)

    def _unit_vector(
        self, values: np.ndarray, *, clip: bool, refusal: Callable[[Any, float], str]
    ) -> np.ndarray:
        """The unit vector of `values` (Hadoop units, shape (d,)). A value outside its
        dimension's bounds is clipped with a warning when `clip`, else refused with the
        message ``refusal(dimension, value)``."""
        for d, value in zip(self.dimensions, values, strict=True):
            if not d.contains(value):
                if not clip:
                    raise ValidationError(refusal(d, value))
                logger.warning("%s: %g is outside %s; clipped", d.name, value, d.describe())
        vector: np.ndarray = self._codec.to_unit(values[np.newaxis, :])[0]
        return vector

    @abstractmethod
    def project(
        self, vector: np.ndarray, *, center: np.ndarray | None = None, radius: float | None = None
    ) -> np.ndarray:
        """The valid point nearest `vector`, inside `radius` of `center` if given: each space's own."""

    @abstractmethod
    def _center(self, center: Any) -> np.ndarray:
        """`center` as a point of shape (d,), refused if it is not one: each space's own check."""

    def sample(
        self,
        rng: np.random.Generator,
        n: int,
        *,
        center: np.ndarray | None = None,
        radius: float | None = None,
    ) -> np.ndarray:
        """`n` random valid points, shape (n, d): uniform in the cube, or in the ball around `center`."""
        if not isinstance(rng, np.random.Generator):
            raise ValidationError(f"rng: expected numpy.random.Generator, got {type(rng).__name__}")
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
            raise ValidationError(f"n: expected an integer >= 0, got {n!r}")
        d = len(self.dimensions)
        if center is None and radius is None:
            return self.project(rng.random((int(n), d)))
        if center is None or radius is None:
            raise ValidationError("sample: center and radius: expected both or neither")
        center = self._center(center)
        points = in_ball(rng, int(n), center, self._radius(radius))
        return self.project(points, center=center, radius=radius)

    def _radius(self, radius: Any) -> float:
        """A risk radius: a number >= 0."""
        if isinstance(radius, bool) or not isinstance(radius, int | float | np.floating):
            raise ValidationError(f"radius: expected a number, got {radius!r}")
        check_range(float(radius), field="radius", low=0.0)
        return float(radius)

    @property
    def steps(self) -> np.ndarray:
        """Per coordinate, the normalized move that changes its setting from anywhere, shape (d,).

        Integer settings: one unit at the bottom of the range, the widest a unit
        step gets (on a log scale steps shrink as values grow; on a linear one they
        are all equal), so a move this long changes the value wherever it starts.
        Categorical: ``1 / len(choices)``. Continuous: 0. See ``steps_at`` for the
        step at one point.
        """
        bottom = self._codec.to_unit(self._codec.low[np.newaxis, :])
        steps: np.ndarray = self._codec.steps(bottom)[0]
        return steps
