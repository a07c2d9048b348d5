"""The Capacity Scheduler settings tempo tunes, one `CapacityDimension` per setting and queue.

A Capacity Scheduler space (`tempo.space.capacity_space`) tunes properties of
``capacity-scheduler.xml`` directly (no allocation-file element names):

* ``capacity`` of every queue whose siblings share a parent in percentage mode
  (the group moves as a simplex: siblings keep summing to 100) or weight mode
  (weights ``Nw``, free, on a log scale); absolute-mode queues are left out;
* ``maximum-capacity`` (percent of the parent, never below the queue's share);
* on leaves: ``user-limit-factor`` (log scale), ``minimum-user-limit-percent``
  (whole percents), ``maximum-am-resource-percent`` and ``ordering-policy``
  (fifo or fair);
* with preemption on, the preemption monitor's scheduler-wide properties
  (``yarn.resourcemanager.monitor.capacity.preemption.*``, which Hadoop reads from
  the Capacity Scheduler's configuration).

A setting whose value the space cannot hold (a ``user-limit-factor`` of -1, Infinity or
NaN, a percentage out of its range, another ordering policy, a monitor property that is
not finite or, on a log scale, not positive) is not tuned, and a note says so;
`untuned_settings` lists those two files both have, for their distance.

Default bounds always contain the value in force, so the configuration in force is
a point of the space.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from whatif.capacity.document import ConfigurationDocument
from whatif.capacity.model import (
    EffectiveQueue,
    effective_queues,
    key,
    queue_tree,
    read_capacity,
    read_maximum,
)
from whatif.capacity.values import parse_java_float
from whatif.errors import ValidationError

#: The Capacity Scheduler's preemption monitor properties (``CapacitySchedulerConfiguration``).
PREEMPTION_PREFIX = "yarn.resourcemanager.monitor.capacity.preemption."

#: name -> (domain, scale, default, low, high) of the preemption monitor's tunables.
PREEMPTION: dict[str, tuple[str, str, float, float, float]] = {
    "total_preemption_per_round": ("continuous", "linear", 0.1, 0.01, 1.0),
    "natural_termination_factor": ("continuous", "linear", 0.2, 0.01, 1.0),
    "max_ignored_over_capacity": ("continuous", "linear", 0.1, 0.0, 1.0),
    "max_wait_before_kill": ("integer", "log", 15000.0, 1000.0, 600000.0),
    "monitoring_interval": ("integer", "log", 3000.0, 500.0, 60000.0),
}

#: Per-queue settings in dimension order.
QUEUE_SETTINGS = (
    "capacity",
    "maximum-capacity",
    "user-limit-factor",
    "minimum-user-limit-percent",
    "maximum-am-resource-percent",
    "ordering-policy",
)
#: Settings tuned only on leaves.
LEAF_SETTINGS = (
    "user-limit-factor",
    "minimum-user-limit-percent",
    "maximum-am-resource-percent",
    "ordering-policy",
)
#: The ordering policies a leaf is tuned between.
POLICIES = ("fifo", "fair")


@dataclass(frozen=True)
class CapacityDimension:
    """One tuned property: its queue (``""`` for a scheduler-wide one), bounds and encoding.

    ``mode`` is ``percentage`` or ``weight`` for a ``capacity`` (its siblings' mode),
    else None; ``group`` the parent path whose children's capacities move together.
    The encoding attributes (``low``, ``high``, ``domain``, ``scale``, ``choices``,
    ``off``, ``off_value``) are those `tempo.space.codec.Codec` reads; categorical
    values are indices into ``choices``.
    """

    queue: str
    setting: str
    low: float
    high: float
    domain: str = "continuous"
    scale: str = "linear"
    choices: tuple[str, ...] = ()
    mode: str | None = None
    group: str | None = None
    off: str = "none"
    off_value: float = math.inf

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
            raise ValidationError(
                f"{self.name}: bounds: expected finite low < high, got [{self.low!r}, {self.high!r}]"
            )
        if self.scale == "log" and self.low <= 0:
            raise ValidationError(
                f"{self.name}: low: expected > 0 on a log scale, got {self.low!r}"
            )

    @property
    def name(self) -> str:
        """``root.a.capacity``, or ``preemption.total_preemption_per_round``."""
        return f"{self.queue}.{self.setting}" if self.queue else f"preemption.{self.setting}"

    @property
    def property(self) -> str:
        """The full property name in ``capacity-scheduler.xml``."""
        return key(self.queue, self.setting) if self.queue else PREEMPTION_PREFIX + self.setting

    def contains(self, value: float) -> bool:
        """Whether `value` can be encoded without clipping (within 1e-9 of the bounds)."""
        return self.low - 1e-9 <= value <= self.high + 1e-9

    def describe(self) -> str:
        if self.domain == "categorical":
            return f"{' | '.join(self.choices)} categorical"
        unit = "w" if self.mode == "weight" else ""
        return f"[{self.low:g}{unit}, {self.high:g}{unit}] {self.domain} {self.scale}"


def preemption_value(doc: ConfigurationDocument, setting: str) -> float:
    """A preemption monitor property's value in `doc`, or Hadoop's default."""
    raw = doc.value(PREEMPTION_PREFIX + setting)
    default = PREEMPTION[setting][2]
    if raw is None:
        return default
    try:
        return parse_java_float(raw)
    except ValueError:
        prop = doc.get(PREEMPTION_PREFIX + setting)
        raise ValidationError(
            f"{doc.source}:{prop.line if prop is not None else '?'}: "
            f"{PREEMPTION_PREFIX + setting}: expected a number, got {raw.strip()!r}"
        ) from None


def current_value(
    doc: ConfigurationDocument, queues: dict[str, EffectiveQueue], d: CapacityDimension
) -> float:
    """The value `doc` gives dimension `d` (a categorical one as its choice's index).

    Hadoop reads numbers as Java floats; the value is given back at the precision
    tempo writes (6 significant digits, percentages to 3 decimals), so an unchanged
    property reads as the value written.
    """
    value = _raw_value(doc, queues, d)
    if d.domain == "categorical" or not math.isfinite(value):
        return value
    value = float(f"{value:.6g}")
    if d.setting == "maximum-capacity" or (d.setting == "capacity" and d.mode == "percentage"):
        value = round(value, 3)
    return value


def _raw_value(
    doc: ConfigurationDocument, queues: dict[str, EffectiveQueue], d: CapacityDimension
) -> float:
    if not d.queue:
        return preemption_value(doc, d.setting)
    queue = queues.get(d.queue)
    if queue is None:
        raise ValidationError(f"{doc.source}: queue {d.queue} ({d.name}) is not declared")
    if d.setting == "capacity":
        value = read_capacity(doc, d.queue)
        if value is None:
            return 0.0
        if value.mode != d.mode:
            raise ValidationError(
                f"{doc.source}: {d.property}: expected a {d.mode} capacity, got {value.mode}"
            )
        return value.weight if d.mode == "weight" else value.percent
    if d.setting == "maximum-capacity":
        return read_maximum(doc, d.queue).percent
    if d.setting == "ordering-policy":
        if queue.ordering_policy not in d.choices:
            raise ValidationError(
                f"{doc.source}: {d.property}: expected one of {', '.join(d.choices)}, "
                f"got {queue.ordering_policy!r}"
            )
        return float(d.choices.index(queue.ordering_policy))
    return float(
        {
            "user-limit-factor": queue.user_limit_factor,
            "minimum-user-limit-percent": queue.minimum_user_limit_percent,
            "maximum-am-resource-percent": queue.maximum_am_resource_percent,
        }[d.setting]
    )


class _Values(Protocol):
    """Every value a setting of a queue takes in the document and the cover files."""

    def __call__(self, setting: str, path: str, mode: str | None = None) -> list[float]: ...


def default_dimensions(
    doc: ConfigurationDocument,
    *,
    settings: Sequence[str] | None = None,
    preemption: bool = False,
    cover: Sequence[ConfigurationDocument] = (),
) -> tuple[list[CapacityDimension], list[str]]:
    """The default dimensions of `doc` (bounds widened to hold every `cover` file's values) and notes.

    `settings` (None: all of `QUEUE_SETTINGS`) picks the per-queue settings; the
    preemption monitor's are added when `preemption` is on.
    """
    settings = QUEUE_SETTINGS if settings is None else tuple(settings)
    for setting in settings:
        if setting not in QUEUE_SETTINGS:
            raise ValidationError(
                f"settings: expected names from {', '.join(QUEUE_SETTINGS)}, got {setting!r}"
            )
    queues = effective_queues(doc)
    others = [(other, effective_queues(other)) for other in cover]
    notes: list[str] = []

    def values(setting: str, path: str, mode: str | None = None) -> list[float]:
        probe = CapacityDimension(path, setting, 0.0, 1.0, mode=mode, choices=POLICIES)
        found = [current_value(doc, queues, probe)]
        for other, other_queues in others:
            if path in other_queues:
                try:
                    found.append(current_value(other, other_queues, probe))
                except ValidationError:
                    continue
        return found

    dims = _queue_dimensions(doc, queues, settings, values, notes)
    if preemption:
        dims += _preemption_dimensions(doc, queues, others, notes)
    else:
        notes.append(
            "preemption is off (yarn.resourcemanager.scheduler.monitor.enable=false): the "
            "preemption monitor's properties are not tuned"
        )
    return dims, notes


def _queue_dimensions(
    doc: ConfigurationDocument,
    queues: dict[str, EffectiveQueue],
    settings: Sequence[str],
    values: _Values,
    notes: list[str],
) -> list[CapacityDimension]:
    """The per-queue dimensions of `settings`, parents before children."""
    dims: list[CapacityDimension] = []
    for node in queue_tree(doc).walk():
        if node.children and "capacity" in settings:
            dims += _capacity_group(doc, node.path, [c.path for c in node.children], values, notes)
        if node.path == "root":
            continue
        queue = queues[node.path]
        if (
            "maximum-capacity" in settings
            and queue.max_resources is None
            and queue.mode != "absolute"
        ):
            seen = values("maximum-capacity", node.path)
            dims.append(CapacityDimension(node.path, "maximum-capacity", min(1.0, *seen), 100.0))
        if not node.is_leaf:
            continue
        for setting in LEAF_SETTINGS:
            if setting not in settings:
                continue
            made = _leaf_dimension(node.path, setting, queue, values, notes)
            if made is not None:
                dims.append(made)
    return dims


def _preemption_dimensions(
    doc: ConfigurationDocument,
    queues: dict[str, EffectiveQueue],
    others: list[tuple[ConfigurationDocument, dict[str, EffectiveQueue]]],
    notes: list[str],
) -> list[CapacityDimension]:
    """The preemption monitor's dimensions, widened to every file's values (a value that
    is not finite, or not positive on a log scale, leaves its property untuned)."""
    dims = []
    for setting, (domain, scale, _, low, high) in PREEMPTION.items():
        probe = CapacityDimension("", setting, low, high)
        seen = [current_value(doc, queues, probe)] + [
            current_value(other, other_queues, probe) for other, other_queues in others
        ]
        untuned = [v for v in seen if not math.isfinite(v) or (scale == "log" and v <= 0)]
        if untuned:
            notes.append(f"{probe.name} {untuned[0]:g} is not tuned")
            continue
        dims.append(
            CapacityDimension("", setting, min(low, *seen), max(high, *seen), domain, scale)
        )
    return dims


def _capacity_group(
    doc: ConfigurationDocument,
    parent: str,
    children: list[str],
    values: _Values,
    notes: list[str],
) -> list[CapacityDimension]:
    """The capacity dimensions of one parent's children (none when they cannot move)."""
    read = {c: read_capacity(doc, c) for c in children}
    modes = {v.mode for v in read.values() if v is not None}
    if len(children) < 2 or len(modes) != 1:
        if len(children) >= 2:
            notes.append(
                f"{parent}: children's capacities ({', '.join(sorted(modes)) or 'unset'}) not tuned"
            )
        return []
    mode = modes.pop()
    known = [v for v in read.values() if v is not None]
    if mode not in ("percentage", "weight") or len(known) < len(read):
        notes.append(f"{parent}: {mode} capacities of its children are not tuned")
        return []
    dims = []
    if mode == "percentage":
        if sum(v.percent for v in known) <= 0:
            notes.append(f"{parent}: children's capacities sum to 0; not tuned")
            return []
        for child in children:
            seen = values("capacity", child, "percentage")
            maximum = read_maximum(doc, child)
            low = min(1.0, *seen)
            high = max(min(100.0, maximum.percent), *seen) if maximum.resources is None else 100.0
            if low < high:
                dims.append(
                    CapacityDimension(child, "capacity", low, high, mode=mode, group=parent)
                )
    else:
        for child in children:
            seen = values("capacity", child, "weight")
            if min(seen) <= 0:
                notes.append(f"{child}: zero weight; its capacity is not tuned")
                continue
            dims.append(
                CapacityDimension(
                    child,
                    "capacity",
                    min(seen) / 10.0,
                    min(10000.0, max(max(seen) * 10.0, min(seen) / 10.0 * 2)),
                    scale="log",
                    mode=mode,
                    group=parent,
                )
            )
    if mode == "percentage" and len(dims) < 2:
        return []
    return dims


def _leaf_dimension(
    path: str, setting: str, queue: EffectiveQueue, values: _Values, notes: list[str]
) -> CapacityDimension | None:
    if setting == "ordering-policy":  # before `values`: another policy has no index in POLICIES
        if queue.ordering_policy not in POLICIES:
            notes.append(f"{path}: ordering-policy {queue.ordering_policy} is not tuned")
            return None
        return CapacityDimension(
            path, setting, 0.0, float(len(POLICIES) - 1), "categorical", choices=POLICIES
        )
    seen = values(setting, path)
    if setting == "user-limit-factor":
        untuned = [v for v in seen if not (0 < v < math.inf)]  # -1, Infinity: no limit; NaN
        if untuned:
            limit = " (no limit)" if untuned[0] in (-1, math.inf) else ""
            notes.append(f"{path}: user-limit-factor {untuned[0]:g}{limit} is not tuned")
            return None
        return CapacityDimension(path, setting, min(0.5, *seen), max(10.0, *seen), scale="log")
    if setting == "minimum-user-limit-percent":
        if any(not 1 <= v <= 100 or not float(v).is_integer() for v in seen):
            notes.append(f"{path}: minimum-user-limit-percent {seen[0]:g} is not tuned")
            return None
        return CapacityDimension(path, setting, 1.0, 100.0, "integer")
    if any(not 0 <= v <= 1 for v in seen):
        notes.append(f"{path}: maximum-am-resource-percent {seen[0]:g} is not tuned")
        return None
    return CapacityDimension(path, setting, min(0.05, *seen), 1.0)


def untuned_settings(
    a: ConfigurationDocument,
    b: ConfigurationDocument,
    tuned: Collection[str],
    *,
    preemption: bool,
) -> dict[str, bool]:
    """Settings of leaves of `a` that `b` declares (and, with `preemption`, the monitor's
    properties) that no dimension named in `tuned` measures, each with whether `a` and `b`
    differ in it: those left untuned because a value is one the space cannot hold (see the
    module; a ``user-limit-factor`` of Infinity, as ``Float.parseFloat`` reads 1e400, or NaN),
    and capacities in absolute resources or in another mode in `b` (`_capacity_pairs`).

    Values compare as Hadoop holds them, Java floats (1e400 and Infinity are the same), and
    NaN is the same as NaN, as for every setting `tempo config diff` lists (a property that
    reads the same in both files is no change) and as Java's ``Float.equals``.
    """
    queues_a, queues_b = effective_queues(a), effective_queues(b)
    pairs: dict[str, tuple[object, object]] = {}
    for node in queue_tree(a).walk():
        if node.is_leaf and node.path in queues_b:
            for setting in LEAF_SETTINGS:
                field = setting.replace("-", "_")  # user_limit_factor, ordering_policy, ...
                pairs[f"{node.path}.{setting}"] = (
                    getattr(queues_a[node.path], field),
                    getattr(queues_b[node.path], field),
                )
    pairs.update(_capacity_pairs(a, b))
    for setting in PREEMPTION if preemption else ():
        pairs[f"preemption.{setting}"] = (
            preemption_value(a, setting),
            preemption_value(b, setting),
        )
    return {name: not _same(*pair) for name, pair in pairs.items() if name not in tuned}


def _capacity_pairs(
    a: ConfigurationDocument, b: ConfigurationDocument
) -> dict[str, tuple[object, object]]:
    """The ``capacity`` and ``maximum-capacity`` of each queue both files declare where
    either gives a value no dimension can hold: absolute resources, or a capacity whose
    mode differs between the files (without them a change of absolute capacities was
    distance 0)."""
    declared_b = {node.path for node in queue_tree(b).walk()}
    pairs: dict[str, tuple[object, object]] = {}
    for node in queue_tree(a).walk():
        if node.path not in declared_b:
            continue
        capacities = (read_capacity(a, node.path), read_capacity(b, node.path))
        known = [v for v in capacities if v is not None]
        if any(v.resources is not None for v in known) or len({v.mode for v in known}) > 1:
            pairs[f"{node.path}.capacity"] = capacities
        maxima = (read_maximum(a, node.path), read_maximum(b, node.path))
        if any(v.resources is not None for v in maxima):
            pairs[f"{node.path}.maximum-capacity"] = maxima
    return pairs


def _same(x: object, y: object) -> bool:
    """`x` equals `y`, NaN equalling NaN."""
    both_nan = isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)
    return both_nan or x == y
