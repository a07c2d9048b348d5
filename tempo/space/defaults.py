"""Safe default bounds for each tunable setting, derived from the allocation and the cluster.

The rules (documented in docs/space.md):

- ``weight``: log scale over [0.1, 10], widened to include the current value (a
  linear [0, 10] when a weight is 0, which a log scale cannot hold).
- ``minResources``: [0, the queue's equal split of the cluster] (the cluster divided
  evenly among siblings at every level), so siblings' minimum shares can never add
  up to more than their parent's; widened to the current value, never past the
  cluster.
- ``maxResources``: [the queue's equal split, the cluster]; the top means no limit.
- ``maxChildResources`` (parents only): [a tenth of the parent's equal split, the
  cluster]; the top means no limit (no element: a queue created on the fly under the
  parent then takes ``queueMaxResourcesDefault``).
- preemption timeouts: whole seconds on a log scale over [5 s, 1 h] plus "off",
  widened to include the current value.
- ``fairSharePreemptionThreshold``: [0, 1].
- ``maxRunningApps`` (Hadoop 1: ``maxRunningJobs``): [1, max(100, twice the
  current)] on a log scale plus "no limit".
- ``maxAMShare``: [0.1, 1] plus "disabled" (-1).
- Hadoop 1 slots, ``minMaps``/``minReduces`` and ``maxMaps``/``maxReduces``: as
  ``minResources`` and ``maxResources``, in the cluster's map or reduce slots.
- ``schedulingPolicy``: fair or fifo on a leaf, plus drf under a ``drf`` parent
  (Hadoop 3 refuses a drf queue under a fair parent); ``schedulingMode`` (Hadoop 1):
  fair or fifo. The current policy is always a choice.
- Hadoop 1's ``fairSharePreemptionTimeout`` is one top-level element: one
  dimension on ``root``, bounded like the other timeouts.

The ``vcores`` component of a resource setting is tuned by default only on queues
whose parent uses ``drf``; under ``fair`` shares are computed on memory alone.
Values from the ``cover`` allocations widen the bounds the same way the current
value does, so that several configurations can be compared in one space.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from functools import partial

from tempo.space.dimension import Dimension
from tempo.space.settings import SETTINGS
from whatif.allocation.effective import EffectiveAllocation, EffectiveQueue
from whatif.cluster import Cluster
from whatif.errors import ValidationError

logger = logging.getLogger(__name__)


def queue_path(allocation: EffectiveAllocation, name: str) -> str:
    """The full path of a queue named by full path or unique leaf name."""
    try:
        return allocation.queue(name).name
    except KeyError:
        known = ", ".join(q.name for q in allocation.queues())
        raise ValidationError(f"queue: expected one of {known}, got {name!r}") from None


def equal_splits(allocation: EffectiveAllocation) -> dict[str, float]:
    """Each queue's fraction of the cluster when every parent splits its own evenly."""
    splits = {"root": 1.0}
    for queue in allocation.queues():
        for child in queue.children:
            splits[child.name] = splits[queue.name] / len(queue.children)
    return splits


def parent_policy(allocation: EffectiveAllocation, queue: str) -> str:
    """The scheduling policy of the queue's parent (``fair`` for root, which has none)."""
    if "." not in queue:
        return "fair"
    return allocation.queue(queue.rsplit(".", 1)[0]).scheduling_policy


def default_components(allocation: EffectiveAllocation, queue: str) -> tuple[str, ...]:
    """Resource components tuned by default: memory, plus vcores under a ``drf`` parent."""
    if parent_policy(allocation, queue) == "drf":
        return ("memory", "vcores")
    return ("memory",)


def default_dimension(
    queue: EffectiveQueue,
    setting: str,
    component: str | None,
    *,
    values: Sequence[float | str],
    cluster: Cluster | None,
    split: float,
    parent_policy: str = "fair",
) -> Dimension | None:
    """The default dimension for one queue setting, covering `values` (Hadoop units).

    Returns None when the setting has no room to move (a resource or slot type the
    cluster has none of). `parent_policy` decides whether ``drf`` is a choice of
    ``schedulingPolicy``.
    """
    spec = SETTINGS[setting]
    make = partial(
        Dimension,
        queue=queue.name,
        setting=setting,
        component=component,
        domain=spec.domain,
        off=spec.off,
        off_value=spec.off_value,
    )
    if spec.is_categorical:
        choices = [c for c in spec.choices if c != "drf" or parent_policy == "drf"]
        choices += [str(v) for v in values if v not in choices]
        return make(low=0.0, high=float(len(choices) - 1), choices=tuple(choices))
    numbers = [_number(v, f"{queue.name}.{setting}") for v in values]
    finite = [v for v in numbers if math.isfinite(v) and v != spec.off_value]
    if spec.is_resource or spec.slot:
        bounds = _capacity_bounds(queue, setting, component, finite, cluster=cluster, split=split)
        if bounds is None:
            return None
        return make(low=bounds[0], high=bounds[1], scale="linear")
    low, high, scale = _setting_bounds(setting, numbers, finite)
    return make(low=low, high=high, scale=scale)


def _number(value: float | str, where: str) -> float:
    """A numeric setting's value (only a categorical setting holds names)."""
    if isinstance(value, str):
        raise TypeError(f"{where}: expected a number, got {value!r}")
    return value


def _capacity_bounds(
    queue: EffectiveQueue,
    setting: str,
    component: str | None,
    finite: list[float],
    *,
    cluster: Cluster | None,
    split: float,
) -> tuple[float, float] | None:
    """(low, high) of a resource or slot setting within the cluster; None when there is no
    room between them."""
    spec = SETTINGS[setting]
    if cluster is None:
        raise ValidationError(
            f"{queue.name}.{setting}: cluster: required to bound {setting}: give the cluster (--cluster SPEC)"
        )
    if spec.slot and not cluster.slots:
        raise ValidationError(
            f"{queue.name}.{setting}: cluster: expected Hadoop 1 slots "
            f"(map-slots=N,reduce-slots=M) to bound {setting}, got {cluster.spec()}"
        )
    capacity = spec.capacity(component, cluster)
    assert capacity is not None  # a resource or slot setting on a given cluster
    total = math.floor(capacity)
    share = math.floor(split * total)
    if setting == "maxChildResources":
        share //= 10  # a queue per user under the parent: a cap well below the parent's
    if setting.startswith("min"):
        high = min(total, max([share] + [math.ceil(v) for v in finite]))
        low = 0
    else:
        high = total
        low = min([max(1, share)] + [math.floor(v) for v in finite])
    if high <= low:
        logger.debug(
            "%s.%s.%s: no room between %s and %s", queue.name, setting, component, low, high
        )
        return None
    return float(low), float(high)


def _setting_bounds(
    setting: str, numbers: list[float], finite: list[float]
) -> tuple[float, float, str]:
    """(low, high, scale) of a setting that is neither categorical nor a resource."""
    if setting == "weight":
        if min(numbers) <= 0:
            return 0.0, max([10.0] + finite), "linear"
        return min([0.1] + finite), max([10.0] + finite), "log"
    if setting in ("minSharePreemptionTimeout", "fairSharePreemptionTimeout"):
        high = float(max([3600] + [math.ceil(v) for v in finite]))
        if finite and min(finite) < 1:
            return 0.0, high, "linear"
        return float(min([5] + [math.floor(v) for v in finite])), high, "log"
    if setting == "fairSharePreemptionThreshold":
        return 0.0, 1.0, "linear"
    if setting in ("maxRunningApps", "maxRunningJobs"):
        low = float(min([1] + [math.floor(v) for v in finite]))
        high = float(max([100] + [2 * math.ceil(v) for v in finite]))
        return low, high, "log" if low > 0 else "linear"
    # maxAMShare
    return min([0.1] + [v for v in finite if v >= 0]), 1.0, "linear"


def default_dimensions(
    allocation: EffectiveAllocation,
    cluster: Cluster | None,
    *,
    settings: Sequence[str],
    queues: Sequence[str] | None,
    cover: Sequence[EffectiveAllocation],
    top_level: Sequence[str] = (),
) -> list[Dimension]:
    """Default dimensions for `settings` on `queues` (None: every non-root queue).

    Settings tuned on leaves by default (timeouts, threshold, maxRunningApps,
    maxAMShare, policies) skip parent queues even when `queues` names them, and
    ``maxChildResources`` skips leaves.
    `top_level` settings (Hadoop 1's ``fairSharePreemptionTimeout``) are one
    dimension on root, whatever `queues` says, and none on the other queues.
    """
    splits = equal_splits(allocation)
    chosen = None if queues is None else set(queues)
    dimensions = []
    for queue in allocation.queues():
        is_root = queue.name == "root"
        if not is_root and chosen is not None and queue.name not in chosen:
            continue
        for setting in settings:
            spec = SETTINGS[setting]
            if is_root != (setting in top_level):
                continue
            if queue.is_parent and spec.default_on == "leaves" and not is_root:
                continue
            if not queue.is_parent and spec.default_on == "parents":
                continue
            components = default_components(allocation, queue.name) if spec.is_resource else (None,)
            for component in components:
                values = [spec.current(queue, component, cluster)]
                values += [
                    spec.current(other.queue(queue.name), component, cluster)
                    for other in cover
                    if _has_queue(other, queue.name)
                ]
                dimension = default_dimension(
                    queue,
                    setting,
                    component,
                    values=values,
                    cluster=cluster,
                    split=splits[queue.name],
                    parent_policy=parent_policy(allocation, queue.name),
                )
                if dimension is not None:
                    dimensions.append(dimension)
    return dimensions


def _has_queue(allocation: EffectiveAllocation, name: str) -> bool:
    return any(q.name == name for q in allocation.queues())
