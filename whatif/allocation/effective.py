"""The effective Fair Scheduler configuration: every queue's settings after defaults
and inheritance are resolved, as Hadoop resolves them.

This is what the schedule predictor and fair-share computation consume. The
allocation-file parser (``whatif.allocation``) builds it from a document; tests and
the workload tools may also build it directly.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from whatif.errors import ValidationError
from whatif.queues import QueueTree

INFINITY = math.inf

SCHEDULING_POLICIES = ("fair", "fifo", "drf")


@dataclass(frozen=True)
class Resources:
    """An amount of memory (MB) and virtual cores."""

    memory_mb: float
    vcores: float

    @classmethod
    def unlimited(cls) -> Resources:
        return cls(INFINITY, INFINITY)

    @classmethod
    def zero(cls) -> Resources:
        return cls(0.0, 0.0)


@dataclass(frozen=True)
class ResourceLimit:
    """A resource amount as written: absolute, or a percentage of the cluster per type.

    ``absolute`` and ``percent`` are exclusive; neither means unlimited. ``percent``
    is (memory %, vcores %), each in [0, 100].
    """

    absolute: Resources | None = None
    percent: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.absolute is not None and self.percent is not None:
            raise ValidationError("ResourceLimit: give absolute or percent, not both")

    @property
    def is_unlimited(self) -> bool:
        return self.absolute is None and self.percent is None

    def resolve(self, cluster: Resources) -> Resources:
        """The limit in absolute terms on a cluster of the given size."""
        if self.absolute is not None:
            return self.absolute
        if self.percent is not None:
            return Resources(
                cluster.memory_mb * self.percent[0] / 100.0,
                cluster.vcores * self.percent[1] / 100.0,
            )
        return Resources.unlimited()


@dataclass(frozen=True)
class EffectiveQueue(QueueTree):
    """One queue with the settings in force for it.

    Times are seconds; ``INFINITY`` means "never" (preemption timeouts) and
    ``None`` means "no limit" (``max_running_apps``). ``max_am_share`` of -1
    disables the AM share check. MRv1 slot limits are ``None`` unless written.
    ``reservable`` marks a queue with ``<reservation>`` (a plan queue of the
    reservation system); ``max_container_allocation`` caps a single container.
    """

    name: str
    children: tuple[EffectiveQueue, ...] = ()
    is_parent: bool = False
    weight: float = 1.0
    min_resources: Resources = Resources(0.0, 0.0)
    max_resources: ResourceLimit = ResourceLimit()
    max_child_resources: ResourceLimit = ResourceLimit()
    max_running_apps: int | None = None
    max_am_share: float = 0.5
    scheduling_policy: str = "fair"
    min_share_preemption_timeout_s: float = INFINITY
    fair_share_preemption_timeout_s: float = INFINITY
    fair_share_preemption_threshold: float = 0.5
    allow_preemption_from: bool = True
    min_maps: int | None = None
    min_reduces: int | None = None
    max_maps: int | None = None
    max_reduces: int | None = None
    reservable: bool = False
    max_container_allocation: ResourceLimit = ResourceLimit()

    def __post_init__(self) -> None:
        if self.scheduling_policy not in SCHEDULING_POLICIES:
            raise ValidationError(
                f"queue {self.name}: schedulingPolicy expected one of {', '.join(SCHEDULING_POLICIES)}, "
                f"got {self.scheduling_policy!r}"
            )
        if self.children and not self.is_parent:
            object.__setattr__(self, "is_parent", True)

    @property
    def leaf_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    def max_share(self, cluster: Resources, hadoop_version: int) -> Resources:
        """The maximum Hadoop `hadoop_version` enforces on a cluster of `cluster`:
        maxResources resolved, and from Hadoop 3 on at least minResources, resource by
        resource (FSQueue.getMaxShare: componentwiseMax, with a warning); Hadoop 2 takes
        maxResources as written."""
        limit = self.max_resources.resolve(cluster)
        if hadoop_version < 3:
            return limit
        low = self.min_resources
        return Resources(max(limit.memory_mb, low.memory_mb), max(limit.vcores, low.vcores))


@dataclass(frozen=True)
class QueueDefaults:
    """Settings a queue gets when neither it nor its ancestors say otherwise.

    Used for queues that are created on the fly (``allow-undeclared-pools``).
    """

    max_running_apps: int | None = None
    max_resources: ResourceLimit = ResourceLimit()
    max_am_share: float = 0.5
    scheduling_policy: str = "fair"
    min_share_preemption_timeout_s: float = INFINITY
    fair_share_preemption_timeout_s: float = INFINITY
    fair_share_preemption_threshold: float = 0.5


@dataclass(frozen=True)
class EffectiveAllocation:
    """The whole effective configuration: the queue tree and the per-user limits."""

    root: EffectiveQueue
    defaults: QueueDefaults = QueueDefaults()
    user_max_apps: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    user_max_apps_default: int | None = None

    def __post_init__(self) -> None:
        if self.root.name != "root":
            raise ValidationError(
                f"EffectiveAllocation: the top queue must be named 'root', got {self.root.name!r}"
            )
        object.__setattr__(self, "user_max_apps", MappingProxyType(dict(self.user_max_apps)))

    def __reduce__(self) -> tuple[Any, ...]:
        # A mappingproxy does not pickle; rebuild the same class (a subclass's fields
        # too) from plain values, so that allocations travel to worker processes and
        # Dask workers.
        values = {
            f.name: dict(v) if isinstance(v, MappingProxyType) else v
            for f in fields(self)
            for v in (getattr(self, f.name),)
        }
        return (_rebuild_allocation, (type(self), values))

    def queues(self) -> Iterator[EffectiveQueue]:
        return self.root.walk()

    def leaves(self) -> list[EffectiveQueue]:
        return [q for q in self.root.walk() if not q.is_parent]

    def queue(self, path: str) -> EffectiveQueue:
        """The queue at a full path (``root.a.b``) or, if unique, a leaf name."""
        full = path if path == "root" or path.startswith("root.") else f"root.{path}"
        for queue in self.root.walk():
            if queue.name == full:
                return queue
        raise KeyError(path)

    def max_apps_for_user(self, user: str) -> int | None:
        return self.user_max_apps.get(user, self.user_max_apps_default)


def _rebuild_allocation(
    cls: type[EffectiveAllocation], values: dict[str, Any]
) -> EffectiveAllocation:
    return cls(**values)
