"""The configuration space of a Capacity Scheduler configuration: properties as a unit-cube vector.

`CapacitySpace` is the Capacity Scheduler's counterpart of `ConfigurationSpace`, with
the same maps (``encode``, ``decode``, ``project``, ``distance``, ``steps``,
``sample``, ``apply``) over `tempo.space.capacity_dims` dimensions. Each coordinate
encodes one property as `tempo.space.codec.Codec` does; on top, `project` keeps
what Hadoop requires across properties, so that every projected point written back
validates (`whatif.capacity.validate`):

* a percentage sibling group sums to 100: the vector is projected (Euclidean, in
  the unit cube) onto the group's hyperplane inside its bounds, then rounded to
  3 decimals with the remainder on the member with the most room (as fs2cs's
  ``WeightToPercentConverter`` does); untuned siblings keep their share;
* ``maximum-capacity`` is never below the queue's share of its parent (raised to
  it); a weight whose share would pass an untuned ``maximum-capacity`` is lowered;
* continuous values keep 6 significant digits (Java floats re-read them exactly).

A projected point's file reads back as the same point (`encode` of `apply`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from tempo.space.capacity_dims import (
    PREEMPTION_PREFIX,
    CapacityDimension,
    current_value,
    default_dimensions,
    untuned_settings,
)
from tempo.space.codec import Codec, CodedSpace, checked_dimensions
from whatif.capacity.document import ConfigurationDocument
from whatif.capacity.model import child_names, effective_queues, read_capacity, read_maximum
from whatif.errors import ValidationError

logger = logging.getLogger(__name__)

_MILLI = Decimal("0.001")
#: Bisection rounds for the simplex shift and for pulling a point inside the radius.
ROUNDS = 60


@dataclass(frozen=True)
class CapacitySpace(CodedSpace):
    """Tuned Capacity Scheduler properties of one configuration (`base`), and the maps over them."""

    dimensions: tuple[CapacityDimension, ...]
    base: ConfigurationDocument = field(compare=False, repr=False)
    notes: tuple[str, ...] = field(default=(), compare=False)
    _codec: Codec = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        dims = checked_dimensions("CapacitySpace", self.dimensions)
        object.__setattr__(self, "dimensions", dims)
        object.__setattr__(self, "_codec", Codec(dims))  # type: ignore[arg-type]

    @classmethod
    def default(
        cls,
        doc: ConfigurationDocument,
        *,
        settings: Sequence[str] | None = None,
        preemption: bool = False,
        cover: Sequence[ConfigurationDocument] = (),
    ) -> CapacitySpace:
        """The default space around `doc` (see `tempo.space.capacity_dims.default_dimensions`)."""
        dims, notes = default_dimensions(doc, settings=settings, preemption=preemption, cover=cover)
        if not dims:
            raise ValidationError(
                f"{doc.source}: expected at least one setting to tune, got none ({' '.join(notes)})"
            )
        return cls(tuple(dims), doc, tuple(notes))

    def steps_at(self, vector: np.ndarray) -> np.ndarray:
        """Per coordinate, the move from `vector` to the next setting value (0: continuous)."""
        steps: np.ndarray = self._codec.steps(self._points(vector)[:1])[0]
        return steps

    # -- values <-> vectors --------------------------------------------------------

    def values(self, doc: ConfigurationDocument) -> np.ndarray:
        """`doc`'s value of every dimension (categorical ones as indices), shape (d,)."""
        queues = effective_queues(doc)
        return np.array([current_value(doc, queues, d) for d in self.dimensions], dtype=float)

    def encode(self, doc: ConfigurationDocument, *, clip: bool = False) -> np.ndarray:
        """The vector of `doc`'s values; one outside its bounds is an error, or clipped with `clip`."""
        return self._unit_vector(
            self.values(doc),
            clip=clip,
            refusal=lambda d, value: (
                f"{doc.source}: {d.property}: expected a value in {d.describe()}, got {value:g}"
            ),
        )

    def decode(self, vector: np.ndarray) -> tuple[tuple[str, str], ...]:
        """The ``(property, value text)`` pairs a vector stands for, after `project`."""
        values = self._codec.to_values(self.project(vector)[np.newaxis, :])[0]
        return tuple(
            (d.property, _text(d, v)) for d, v in zip(self.dimensions, values, strict=True)
        )

    # -- geometry --------------------------------------------------------------------

    def distance(self, a: np.ndarray, b: np.ndarray) -> float | np.ndarray:
        """Normalized l2 distance ``||a - b||_2 / sqrt(d)``: in [0, 1] inside the cube."""
        a, b = self._points(a, clip=False), self._points(b, clip=False)
        result = np.linalg.norm(a - b, axis=-1) / math.sqrt(len(self.dimensions))
        return float(result[0]) if len(result) == 1 else result

    def project(
        self, vector: np.ndarray, *, center: np.ndarray | None = None, radius: float | None = None
    ) -> np.ndarray:
        """The valid point nearest `vector` (see the module), inside `radius` of `center` if given.

        A point farther than `radius` moves back along the line from `center` (a valid
        point) to the farthest point whose projection is inside. (d,) or (n, d).
        """
        points = self._points(vector)
        single = np.ndim(vector) == 1
        repaired = np.array([self._repair(p) for p in points])
        if (center is None) != (radius is None):
            raise ValidationError("project: center and radius: expected both or neither")
        if center is not None:
            c = self._points(center)[0]
            assert radius is not None  # both or neither, checked above
            repaired = np.array([self._into_radius(p, c, float(radius)) for p in repaired])
        return repaired[0] if single else repaired

    # -- writing -----------------------------------------------------------------------

    def changes(
        self, doc: ConfigurationDocument, vector: np.ndarray
    ) -> tuple[tuple[str, str], ...]:
        """The ``(property, value)`` writes that turn `doc` into `vector` (changed values only)."""
        old = self._codec.to_values(self.encode(doc, clip=True)[np.newaxis, :])[0]
        new = self._codec.to_values(self.project(vector)[np.newaxis, :])[0]
        pairs = self.decode(vector)
        return tuple(
            pair
            for pair, d, a, b in zip(pairs, self.dimensions, old, new, strict=True)
            if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
        )

    def apply(self, doc: ConfigurationDocument, vector: np.ndarray) -> ConfigurationDocument:
        """`doc` with every property `vector` changes set (one ``doc.set`` each; the rest byte for byte)."""
        for name, value in self.changes(doc, vector):
            logger.debug("set %s = %s", name, value)
            doc = doc.set(name, value)
        return doc

    # -- internals ---------------------------------------------------------------------

    def _center(self, center: Any) -> np.ndarray:
        center_point: np.ndarray = self._points(center, clip=False)[0]
        return center_point

    def _points(self, vector: Any, *, clip: bool = True) -> np.ndarray:
        try:
            array = np.atleast_2d(np.asarray(vector, dtype=float))
        except (TypeError, ValueError):
            raise ValidationError(f"expected an array of numbers, got {vector!r}") from None
        if array.ndim != 2 or array.shape[1] != len(self.dimensions):
            raise ValidationError(
                f"expected shape ({len(self.dimensions)},) or (n, {len(self.dimensions)}), "
                f"got {np.shape(vector)}"
            )
        if not np.isfinite(array).all():
            raise ValidationError("expected finite values")
        return np.clip(array, 0.0, 1.0) if clip else array

    def _into_radius(self, point: np.ndarray, center: np.ndarray, radius: float) -> np.ndarray:
        scale = math.sqrt(len(self.dimensions))
        limit = radius + 1e-12
        if np.linalg.norm(point - center) / scale <= limit:
            return point
        step = point - center
        lo, hi = 0.0, radius / float(np.linalg.norm(step) / scale)
        best = center
        for _ in range(ROUNDS):
            mid = (lo + hi) / 2
            candidate = self._repair(center + mid * step)
            if np.linalg.norm(candidate - center) / scale <= limit:
                lo, best = mid, candidate
            else:
                hi = mid
        return best

    def _repair(self, units: np.ndarray) -> np.ndarray:
        """One point made valid: snapped, simplex groups summed, maxima raised, values rounded."""
        codec, dims = self._codec, self.dimensions
        units = codec.snap(units[np.newaxis, :])[0]
        values = codec.to_values(units[np.newaxis, :])[0].copy()
        for i, d in enumerate(dims):
            if d.setting == "maximum-capacity":
                rounded = Decimal(repr(float(values[i]))).quantize(_MILLI, ROUND_HALF_UP)
                values[i] = float(min(max(rounded, _ceil(d.low)), _floor(d.high)))
            elif d.domain == "continuous" and d.mode != "percentage":
                values[i] = min(max(float(f"{values[i]:.6g}"), d.low), d.high)
        groups: dict[str, list[int]] = {}
        for i, d in enumerate(dims):
            if d.setting == "capacity":
                groups.setdefault(d.group or "", []).append(i)
        index = {d.name: i for i, d in enumerate(dims)}
        for parent, members in groups.items():
            if dims[members[0]].mode == "percentage":
                self._simplex(parent, members, units, values)
            else:
                self._weights_within_maxima(parent, members, values, index)
        for i, d in enumerate(dims):
            if d.setting == "maximum-capacity":
                share = self._share(d.queue, values, index)
                need = float(Decimal(repr(share)).quantize(_MILLI, rounding="ROUND_CEILING"))
                values[i] = min(100.0, max(values[i], need))
        vector: np.ndarray = codec.to_unit(values[np.newaxis, :])[0]
        return vector

    def _simplex(
        self, parent: str, members: list[int], units: np.ndarray, values: np.ndarray
    ) -> None:
        """Members' percentages summing with their untuned siblings to 100, 3 decimals each."""
        tuned = {self.dimensions[i].queue for i in members}
        fixed = sum(
            (
                _decimal(read_capacity(self.base, f"{parent}.{c}"))
                for c in child_names(self.base, parent)
                if f"{parent}.{c}" not in tuned
            ),
            Decimal(0),
        )
        target = (Decimal(100) - fixed).quantize(_MILLI)
        low = np.array([self.dimensions[i].low for i in members])
        high = np.array([self.dimensions[i].high for i in members])
        width = high - low
        y = units[members]

        def total(shift: float) -> float:
            return float((low + np.clip(y - shift * width, 0.0, 1.0) * width).sum())

        lo, hi = -2.0 / width.min(), 2.0 / width.min()
        for _ in range(ROUNDS):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if total(mid) > float(target) else (lo, mid)
        exact = low + np.clip(y - (lo + hi) / 2 * width, 0.0, 1.0) * width
        rounded = [Decimal(repr(float(v))).quantize(_MILLI, ROUND_HALF_UP) for v in exact]
        rounded = [
            min(max(r, _ceil(lw)), _floor(hg)) for r, lw, hg in zip(rounded, low, high, strict=True)
        ]
        missing = target - sum(rounded)
        order = sorted(range(len(members)), key=lambda k: -float(rounded[k]))
        while missing != 0:
            moved = False
            for k in order:
                room = (
                    (_floor(high[k]) - rounded[k]) if missing > 0 else (rounded[k] - _ceil(low[k]))
                )
                take = min(abs(missing), max(room, Decimal(0)))
                if take > 0:
                    rounded[k] += take if missing > 0 else -take
                    missing += -take if missing > 0 else take
                    moved = True
                if missing == 0:
                    break
            if not moved:
                break
        for k, i in enumerate(members):
            values[i] = float(rounded[k])

    def _share(self, queue: str, values: np.ndarray, index: dict[str, int]) -> float:
        """`queue`'s share of its parent in percent, from the tuned values and the base file."""
        parent = queue.rpartition(".")[0]
        own = read_capacity(self.base, queue)
        if own is None or own.mode not in ("percentage", "weight"):
            return 0.0

        def number(path: str) -> float:
            if f"{path}.capacity" in index:
                return float(values[index[f"{path}.capacity"]])
            value = read_capacity(self.base, path)
            if value is None:
                return 0.0
            return value.weight if value.mode == "weight" else value.percent

        if own.mode == "percentage":
            return number(queue)
        weights = [number(f"{parent}.{c}") for c in child_names(self.base, parent)]
        return 100.0 * number(queue) / sum(weights) if sum(weights) > 0 else 0.0

    def _weights_within_maxima(
        self, parent: str, members: list[int], values: np.ndarray, index: dict[str, int]
    ) -> None:
        """Lower weights whose share would pass an untuned ``maximum-capacity``."""
        for _ in range(ROUNDS):
            changed = False
            for i in members:
                d = self.dimensions[i]
                if f"{d.queue}.maximum-capacity" in index:
                    continue
                limit = read_maximum(self.base, d.queue).percent
                if limit >= 100.0 or self._share(d.queue, values, index) <= limit - 1e-4:
                    continue
                others = self._share_total(parent, values, index) - values[i]
                allowed = float(f"{others * limit / (100.0 - limit) * 0.9999:.6g}")
                values[i] = max(d.low, min(values[i], allowed))
                changed = True
            if not changed:
                return

    def _share_total(self, parent: str, values: np.ndarray, index: dict[str, int]) -> float:
        total = 0.0
        for c in child_names(self.base, parent):
            path = f"{parent}.{c}"
            if f"{path}.capacity" in index:
                total += float(values[index[f"{path}.capacity"]])
            else:
                value = read_capacity(self.base, path)
                total += value.weight if value is not None and value.mode == "weight" else 0.0
        return total


def _decimal(value: Any) -> Decimal:
    if value is None:
        return Decimal(0)
    return Decimal(repr(value.percent)).quantize(_MILLI, ROUND_HALF_UP)


def _floor(x: float) -> Decimal:
    return Decimal(repr(float(x))).quantize(_MILLI, rounding="ROUND_FLOOR")


def _ceil(x: float) -> Decimal:
    return Decimal(repr(float(x))).quantize(_MILLI, rounding="ROUND_CEILING")


def _text(d: CapacityDimension, value: float) -> str:
    """A dimension's value as written into the file."""
    if d.domain == "categorical":
        return d.choices[int(value)]
    if d.domain == "integer":
        return str(int(round(value)))
    if d.setting in ("capacity", "maximum-capacity") and d.mode != "weight":
        text = f"{value:.3f}".rstrip("0").rstrip(".")
        return text
    text = f"{value:.6g}"
    return text + ("w" if d.mode == "weight" else "")


@dataclass(frozen=True)
class CapacityDistance:
    """The normalized distance between two Capacity Scheduler files, the space it was
    measured in, and the `untuned` settings both files have that it compared outside it."""

    distance: float
    space: CapacitySpace
    untuned: tuple[str, ...] = ()

    @property
    def dimensions(self) -> int:
        """Coordinates of the distance: the space's, and one per untuned setting."""
        return len(self.space) + len(self.untuned)

    def describe(self) -> str:
        untuned = f" and {len(self.untuned)} untuned setting(s)" if self.untuned else ""
        return (
            f"distance: {self.distance:.4f} (normalized l2 over {len(self.space)} tunable "
            f"dimensions{untuned}; default Capacity Scheduler space)"
        )


def capacity_distance(
    a: ConfigurationDocument, b: ConfigurationDocument
) -> CapacityDistance | None:
    """How far `b` is from `a`: the default space of `a`, widened to cover `b`, over what both have.

    Dimensions `b` cannot give a value (a queue it does not declare, a capacity in
    another mode) are left out; the preemption monitor counts when either file sets it.
    A setting both files have that the space does not tune because a value is one it
    cannot hold (`tempo.space.capacity_dims.untuned_settings`: a ``user-limit-factor`` of
    Infinity or NaN, ...) is one more coordinate, 1 where the files differ (1.0 and
    Infinity; the width of a tuned setting's whole range) and 0 where they do not (Infinity
    and Infinity; NaN and NaN, the same value, as for every other setting), so the distance
    stays finite. None when no tunable setting is left (as `space_distance` is not asked
    for allocation files without a common queue): files that share nothing have no distance.
    """
    preemption = any(name.startswith(PREEMPTION_PREFIX) for doc in (a, b) for name in doc.names())
    space = CapacitySpace.default(a, preemption=preemption, cover=(b,))
    queues_b = effective_queues(b)
    kept = []
    for d in space.dimensions:
        try:
            current_value(b, queues_b, d)
        except ValidationError:
            continue
        kept.append(d)
    if not kept:
        return None
    common = CapacitySpace(tuple(kept), a, space.notes)
    tuned = float(common.distance(common.encode(a, clip=True), common.encode(b, clip=True)))
    untuned = untuned_settings(a, b, {d.name for d in kept}, preemption=preemption)
    squares = tuned**2 * len(kept) + sum(untuned.values())
    distance = math.sqrt(squares / (len(kept) + len(untuned)))
    return CapacityDistance(distance, common, tuple(untuned))
