"""The configuration space PALD searches: tuned settings as a vector in the unit cube.

A point of the space is a vector with one coordinate in [0, 1] per `Dimension`.
`ConfigurationSpace.encode` maps an allocation's effective values to a vector,
`decode` maps a vector back to setting values, `project` turns any vector into a
valid one (inside the bounds, on the integer grid, off or on, and inside a risk
radius around the configuration in force), and `distance` is the normalized l2
distance the risk radius is measured in: ``||a - b||_2 / sqrt(d)``, which lies in
[0, 1] for points of the cube. `steps` and `steps_at` give each coordinate's
smallest move that changes its setting (integer and categorical settings move in
steps; continuous ones do not).

A space speaks one allocation-file dialect (`tempo.space.dialect`), set by its
``hadoop_version``: it holds only settings that version's scheduler reads, and
`apply` writes them as that scheduler reads them (Hadoop 1's
``fairSharePreemptionTimeout`` at the top of the file).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING, Any

import numpy as np

from tempo.space.codec import Codec, CodedSpace, checked_dimensions
from tempo.space.configuration import Configuration
from tempo.space.defaults import default_dimensions, queue_path
from tempo.space.dialect import Dialect, dialect_of, hadoop_version_for, without_preemption
from tempo.space.dimension import Dimension
from tempo.space.flat import without_flat_weights
from tempo.space.settings import SETTINGS
from tempo.space.spec import SpaceSpec
from tempo.space.writes import setting_writes
from whatif.allocation import effective_allocation
from whatif.allocation.effective import EffectiveAllocation
from whatif.cluster import Cluster
from whatif.errors import ValidationError

if TYPE_CHECKING:
    from whatif.allocation import AllocationDocument

logger = logging.getLogger(__name__)

#: Bisection rounds used to pull a rounded point back inside the risk radius.
RADIUS_BISECTION_ROUNDS = 60

#: Slack allowed on the radius for floating-point noise.
RADIUS_TOLERANCE = 1e-12

#: Significant digits kept when decoding continuous values. Hadoop reads weights,
#: thresholds and shares as Java floats (about 7 digits); 6 digits survive that
#: exactly, so a written value re-parses to the value decoded.
SIGNIFICANT_DIGITS = 6


@dataclass(frozen=True)
class ConfigurationSpace(CodedSpace):
    """The tunable settings, their bounds and encodings, and the maps between values and vectors.

    Parameters
    ----------
    dimensions
        The tuned settings, in vector order; names must be unique.
    cluster
        The cluster resources and slots are bounded by and percentages resolve
        against; required when any dimension is a resource or slot setting.
    hadoop_version
        The Hadoop version (1, 2 or 3) whose dialect the dimensions are in.
    notes
        What the operator should know about how the space was built (settings left
        out because they change nothing); `tempo optimize` prints them.
    """

    dimensions: tuple[Dimension, ...]
    cluster: Cluster | None = None
    hadoop_version: int = 3
    notes: tuple[str, ...] = field(default=(), compare=False)
    _codec: Codec = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        dimensions = tuple(self.dimensions)
        dialect = dialect_of(self.hadoop_version)
        for dimension in dimensions:
            if not isinstance(dimension, Dimension):
                raise ValidationError(
                    f"ConfigurationSpace.dimensions: expected Dimension, got {type(dimension).__name__}"
                )
            dialect.check(dimension.setting, dimension.name)
            top = dimension.setting in dialect.top_level
            if top != (dimension.queue == "root") and dialect.top_level:
                raise ValidationError(
                    f"{dimension.name}: expected "
                    + (
                        f"root.{dimension.setting} ({dialect.title} reads {dimension.setting} "
                        "only at the top of the file)"
                        if top
                        else f"a pool ({dialect.title} has no root pool)"
                    )
                )
            total = SETTINGS[dimension.setting].capacity(dimension.component, self.cluster)
            if total is not None:
                self._check_within_cluster(dimension, total)
            elif SETTINGS[dimension.setting].is_resource or SETTINGS[dimension.setting].slot:
                raise ValidationError(
                    f"{dimension.name}: cluster: required to bound {dimension.setting}, got None"
                )
        dimensions = checked_dimensions("ConfigurationSpace", dimensions)
        object.__setattr__(self, "dimensions", dimensions)
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "_codec", Codec(dimensions))

    @property
    def dialect(self) -> Dialect:
        """The allocation-file dialect of `hadoop_version`."""
        return dialect_of(self.hadoop_version)

    def _check_within_cluster(self, dimension: Dimension, total: float) -> None:
        if dimension.high > total:
            raise ValidationError(
                f"{dimension.name}: high: expected at most the cluster's {total:g}, "
                f"got {dimension.high:g}"
            )
        if dimension.off == "high" and dimension.high < math.floor(total):
            raise ValidationError(
                f"{dimension.name}: high: expected the cluster's {math.floor(total)} when the "
                f"top of the range means no limit (off='high'), got {dimension.high:g}"
            )

    # -- construction -------------------------------------------------------------

    @classmethod
    def default(
        cls,
        allocation: EffectiveAllocation,
        cluster: Cluster | None,
        *,
        settings: Sequence[str] | None = None,
        queues: Sequence[str] | None = None,
        cover: Sequence[EffectiveAllocation] = (),
        hadoop_version: int | None = None,
        keep_flat_weights: bool = False,
        preemption: bool = True,
    ) -> ConfigurationSpace:
        """The space of `settings` on `queues` with safe default bounds.

        Parameters
        ----------
        allocation
            The configuration in force, resolved for `hadoop_version`; its values lie
            inside the bounds.
        cluster
            Resource and slot bounds are fractions of it; may be None only when no
            resource or slot setting is asked for.
        settings
            Element names of the dialect (`tempo.space.dialect`); None: the
            dialect's defaults (weights, minimum shares, preemption timeouts).
        queues
            Full queue paths (or unique leaf names) to tune; None tunes every
            non-root queue (settings that only make sense on leaves skip parents).
        cover
            Other allocations whose values the bounds must also include.
        hadoop_version
            1, 2 or 3; None: 1 on a slot cluster, else 3.
        keep_flat_weights
            Keep the weights of queues whose minimum shares cover the cluster
            (`tempo.space.flat`); by default they are left out, with a note.
        preemption
            Whether the cluster preempts; when not, the default preemption timeouts
            and threshold are left out (they change nothing), with a note.
        """
        version = hadoop_version_for(hadoop_version, cluster=cluster)
        dialect = dialect_of(version)
        explicit = settings is not None
        settings = dialect.defaults if settings is None else tuple(settings)
        dialect.check_all(settings, "ConfigurationSpace.default: settings")
        settings, notes = without_preemption(
            settings, dialect, preemption=preemption, explicit=explicit
        )
        names = None if queues is None else [queue_path(allocation, q) for q in queues]
        dimensions = default_dimensions(
            allocation,
            cluster,
            settings=settings,
            queues=names,
            cover=tuple(cover),
            top_level=dialect.top_level,
        )
        if "weight" in settings and not keep_flat_weights:
            dimensions, flat = without_flat_weights(
                dimensions, allocation, cluster, dialect, cover=tuple(cover)
            )
            notes += flat
        return cls(tuple(dimensions), cluster=cluster, hadoop_version=version, notes=tuple(notes))

    @classmethod
    def from_file(
        cls,
        path: str | PathLike[str],
        allocation: EffectiveAllocation,
        cluster: Cluster | None,
        *,
        overrides: Iterable[str] = (),
        hadoop_version: int | None = None,
        preemption: bool = True,
    ) -> ConfigurationSpace:
        """The space a TOML space file describes, with CLI-style overrides applied on top."""
        spec = SpaceSpec.from_file(path).with_overrides(overrides)
        return cls.from_spec(
            spec, allocation, cluster, hadoop_version=hadoop_version, preemption=preemption
        )

    @classmethod
    def from_spec(
        cls,
        spec: SpaceSpec,
        allocation: EffectiveAllocation,
        cluster: Cluster | None,
        *,
        hadoop_version: int | None = None,
        preemption: bool = True,
    ) -> ConfigurationSpace:
        """The space `spec` describes, shaped by this allocation and cluster.

        `allocation` is resolved for `hadoop_version` (None: 1 on a slot cluster,
        else 3), whose dialect every setting must be in (`SpaceSpec.dimensions` tells
        which dimensions, and why some are left out, in the space's ``notes``). A
        current value outside its dimension's bounds is logged as a warning.
        """
        version = hadoop_version_for(hadoop_version, cluster=cluster)
        dimensions, notes = spec.dimensions(
            allocation, cluster, hadoop_version=version, preemption=preemption
        )
        space = cls(dimensions, cluster=cluster, hadoop_version=version, notes=notes)
        for d, value in zip(space.dimensions, space.values(allocation), strict=True):
            if not d.contains(value):
                logger.warning(
                    "%s: the current value %g is outside %s", d.name, value, d.describe()
                )
        return space

    # -- description --------------------------------------------------------------

    def index(self, name: str) -> int:
        """The vector position of a dimension by name."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(name) from None

    def to_records(self) -> list[dict[str, object]]:
        """One dict per dimension (name, queue, setting, component, bounds, encoding)."""
        return [
            {
                "name": d.name,
                "queue": d.queue,
                "setting": d.setting,
                "component": d.component,
                "low": d.low,
                "high": d.high,
                "domain": d.domain,
                "scale": d.scale,
                "off": d.off,
                "choices": d.choices,
            }
            for d in self.dimensions
        ]

    def steps_at(self, vector: np.ndarray) -> np.ndarray:
        """Per coordinate, the normalized move from `vector` to the next setting value, shape (d,).

        Integer settings: from the point's value to the next whole value up (down at
        the top of the range; from off, into the on part of an off band).
        Categorical: ``1 / len(choices)``. Continuous: 0. Local searches probe at
        least this far, so that a probe changes the configuration.
        """
        units = self._vector(vector, "steps_at: vector", unit=True)
        steps: np.ndarray = self._codec.steps(units[np.newaxis, :])[0]
        return steps

    # -- values <-> vectors ----------------------------------------------------------

    def values(self, allocation: EffectiveAllocation) -> np.ndarray:
        """The allocation's effective value of every dimension, in Hadoop units, shape (d,)."""
        out = np.empty(len(self.dimensions))
        for i, d in enumerate(self.dimensions):
            queue = allocation.queue(queue_path(allocation, d.queue))
            value = SETTINGS[d.setting].current(queue, d.component, self.cluster)
            if d.domain == "categorical" and value not in d.choices:
                raise ValidationError(
                    f"{d.name}: expected one of {', '.join(d.choices)}, got {value!r}"
                )
            out[i] = d.number(value)
        return out

    def encode(
        self, source: EffectiveAllocation | Configuration, *, clip: bool = False
    ) -> np.ndarray:
        """The vector in [0, 1]^d of an allocation's effective values (or of a Configuration).

        A value outside its dimension's bounds raises `ValidationError`, or with
        ``clip=True`` is clipped to the nearer bound (and logged).
        """
        if isinstance(source, Configuration):
            values = self._configuration_values(source)
        elif isinstance(source, EffectiveAllocation):
            values = self.values(source)
        else:
            raise ValidationError(
                "encode: source: expected EffectiveAllocation or Configuration, "
                f"got {type(source).__name__}"
            )
        return self._unit_vector(
            values,
            clip=clip,
            refusal=lambda d, value: (
                f"{d.name}: expected a value in {d.describe()}, got {value:g} "
                "(widen the bounds or encode with clip=True)"
            ),
        )

    def _configuration_values(self, configuration: Configuration) -> np.ndarray:
        keys = [(q, k) for q, k, _ in configuration]
        expected = [(d.queue, d.key) for d in self.dimensions]
        if keys != expected:
            raise ValidationError(
                f"encode: configuration: expected the space's {len(expected)} settings in order, "
                f"got {len(keys)} ({', '.join(f'{q}.{k}' for q, k in keys[:3])}...)"
            )
        return np.array(
            [d.number(v) for d, (_, _, v) in zip(self.dimensions, configuration, strict=True)],
            dtype=float,
        )

    def decode(self, vector: np.ndarray) -> Configuration:
        """The setting values a vector stands for (snapped to the nearest valid point)."""
        units = self._vector(vector, "decode: vector", unit=True)
        values = self._codec.to_values(units[np.newaxis, :])[0]
        entries = []
        for d, value in zip(self.dimensions, values.tolist(), strict=True):
            if d.domain == "categorical":
                clean: float | int | str = d.choices[int(value)]
            elif d.is_off(value) or not math.isfinite(value):
                clean = d.off_value
            elif d.domain == "integer":
                clean = int(value)
            else:
                clean = float(f"{value:.{SIGNIFICANT_DIGITS}g}")
            entries.append((d.queue, d.key, clean))
        return Configuration(tuple(entries))

    # -- geometry -----------------------------------------------------------------

    def distance(self, a: np.ndarray, b: np.ndarray) -> float | np.ndarray:
        """Normalized l2 distance ``||a - b||_2 / sqrt(d)``: in [0, 1] inside the cube.

        For (n, d) arrays, the n row distances.
        """
        a = self._vector(a, "distance: a", batch=True)
        b = self._vector(b, "distance: b", batch=True)
        result = np.linalg.norm(a - b, axis=-1) / math.sqrt(len(self.dimensions))
        return float(result) if np.ndim(result) == 0 else result

    def project(
        self,
        vector: np.ndarray,
        *,
        center: np.ndarray | None = None,
        radius: float | None = None,
    ) -> np.ndarray:
        """The valid point nearest to `vector`, pulled inside the risk radius if one is given.

        Clips to [0, 1], resolves each off band to off or on (whichever is nearer),
        rounds integer settings on their own scale and re-encodes them. With `center`
        (a valid point, normally the configuration in force) and `radius` (normalized
        distance), a point farther than `radius` moves back along the step from the
        center to the farthest point on that line whose rounded version lies within
        the radius. Accepts (d,) or (n, d) and returns the same shape.
        """
        points = self._vector(vector, "project: vector", batch=True)
        single = points.ndim == 1
        points = np.atleast_2d(points)
        snapped = self._codec.snap(points)
        if (center is None) != (radius is None):
            raise ValidationError("project: center and radius: expected both or neither")
        if center is not None:
            snapped = self._into_radius(snapped, self._center(center), self._radius(radius))
        return snapped[0] if single else snapped

    def _center(self, center: np.ndarray) -> np.ndarray:
        center = self._vector(center, "center", unit=True)
        if not np.allclose(self._codec.snap(center[np.newaxis, :])[0], center, rtol=0, atol=1e-9):
            raise ValidationError(
                "center: expected a valid point of the space (an encoded configuration "
                "or a projected vector), got one off the integer grid or inside an off band"
            )
        return center

    def _into_radius(self, points: np.ndarray, center: np.ndarray, radius: float) -> np.ndarray:
        scale = math.sqrt(len(self.dimensions))
        limit = radius + RADIUS_TOLERANCE

        def dist(p: np.ndarray) -> np.ndarray:
            return np.asarray(np.linalg.norm(p - center, axis=1) / scale)

        far = dist(points) > limit
        if not far.any():
            return points
        steps = points[far] - center
        hi = radius / (np.linalg.norm(steps, axis=1) / scale)
        # Rounding can push the scaled point out again: bisect for the farthest fraction of
        # the step whose rounded point is inside (fraction 0 is the center itself).
        lo = np.where(dist(self._codec.snap(center + hi[:, np.newaxis] * steps)) <= limit, hi, 0.0)
        for _ in range(RADIUS_BISECTION_ROUNDS):
            if (lo == hi).all():
                break
            mid = (lo + hi) / 2
            ok = dist(self._codec.snap(center + mid[:, np.newaxis] * steps)) <= limit
            lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
        result = points.copy()
        result[far] = self._codec.snap(center + lo[:, np.newaxis] * steps)
        return result

    # -- writing --------------------------------------------------------------------

    def changes(
        self, allocation: EffectiveAllocation, vector: np.ndarray
    ) -> tuple[tuple[str, str, Any], ...]:
        """The ``(queue, setting, value)`` writes that turn `allocation` into `vector`.

        Only settings whose decoded value differs from the effective one appear; see
        `tempo.space.writes.setting_writes` for the values (``None`` removes an
        element so that "no limit" applies).
        """
        return setting_writes(self.dimensions, self.cluster, allocation, self.decode(vector))

    def apply(self, document: AllocationDocument, vector: np.ndarray) -> AllocationDocument:
        """The document with every dimension that `vector` changes written through ``doc.set``.

        Settings whose decoded value equals the document's effective value are not
        touched, so an unchanged vector returns an identical document. The
        document's effective values are read for this space's Hadoop version; a
        dialect's top-level setting on root (Hadoop 1's ``fairSharePreemptionTimeout``)
        is written at the top of the file.
        """
        effective = effective_allocation(document, hadoop_version=self.hadoop_version)
        top_level = self.dialect.top_level
        for queue, setting, value in self.changes(effective, vector):
            logger.debug("set %s %s = %s", queue, setting, value)
            if queue == "root" and setting in top_level:
                document = document.set_default(setting, value, hadoop_version=self.hadoop_version)
            else:
                document = document.set(queue, setting, value, hadoop_version=self.hadoop_version)
        return document

    # -- input checks ---------------------------------------------------------------

    def _vector(
        self, vector: Any, name: str, *, unit: bool = False, batch: bool = False
    ) -> np.ndarray:
        try:
            array = np.asarray(vector, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError(f"{name}: expected an array of numbers, got {vector!r}") from None
        d = len(self.dimensions)
        shapes = f"({d},)" + (f" or (n, {d})" if batch else "")
        if array.shape[-1:] != (d,) or array.ndim > (2 if batch else 1):
            raise ValidationError(f"{name}: expected shape {shapes}, got {array.shape}")
        if not np.isfinite(array).all():
            raise ValidationError(
                f"{name}: expected finite values, got {float(array[~np.isfinite(array)][0])!r}"
            )
        if unit and ((array < -1e-9).any() or (array > 1 + 1e-9).any()):
            bad = float(array[(array < -1e-9) | (array > 1 + 1e-9)][0])
            raise ValidationError(f"{name}: expected values in [0, 1], got {bad!r}")
        return np.clip(array, 0.0, 1.0) if unit else array
