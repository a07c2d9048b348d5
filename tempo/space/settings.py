"""The Fair Scheduler settings tempo can tune, and the facts the space needs about each.

A setting is named by its allocation-file element, in the dialect that reads it
(`tempo.space.dialect`): Hadoop 2/3 resource settings have two components,
``memory`` (MB) and ``vcores``, each its own dimension; Hadoop 1 slot settings
(``minMaps``...) count the slots of one task type; ``schedulingPolicy`` and
``schedulingMode`` are categorical (one of a few policy names).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from whatif.allocation.effective import EffectiveQueue, Resources
from whatif.allocation.fairshare import JAVA_INT_MAX
from whatif.cluster import Cluster

#: Value types of a dimension.
DOMAINS = ("continuous", "integer", "categorical")

#: How a dimension maps its range onto [0, 1].
SCALES = ("linear", "log")

#: How a dimension encodes its "off" state (a timeout that never fires, no limit):
#: ``none`` (no off state), ``band`` (the top ``OFF_BAND`` of [0, 1] means off) or
#: ``high`` (the top of the range means off: a limit at the cluster size is no limit).
OFF_MODES = ("none", "band", "high")

#: Components of a resource setting.
COMPONENTS = ("memory", "vcores")


@dataclass(frozen=True)
class TunableSetting:
    """What tempo knows about one tunable allocation-file element.

    ``minimum`` and ``maximum`` are what Hadoop accepts (for resources and slots,
    the cluster size caps ``maximum``); ``off_value`` is the value "off" stands for
    in Hadoop units. ``default_on`` says which queues the setting is tuned on by
    default (``all`` non-root queues, only ``leaves`` or only ``parents``);
    ``leaf_only`` settings may not be tuned on a parent queue at all, ``parent_only``
    ones not on a leaf. ``slot`` names the Hadoop 1 task type
    whose slots a slot setting counts (``map`` or ``reduce``); ``choices`` lists a
    categorical setting's values.
    """

    name: str
    domain: str
    scale: str
    off: str
    off_value: float = math.inf
    minimum: float = 0.0
    maximum: float = math.inf
    default_on: str = "all"
    leaf_only: bool = False
    parent_only: bool = False
    slot: str | None = None
    choices: tuple[str, ...] = ()

    @property
    def is_resource(self) -> bool:
        return self.name in ("minResources", "maxResources", "maxChildResources")

    @property
    def is_categorical(self) -> bool:
        return self.domain == "categorical"

    def capacity(self, component: str | None, cluster: Cluster | None) -> float | None:
        """What the cluster has of this setting's unit (MB, vcores or slots); None if unbounded."""
        if cluster is None or not (self.is_resource or self.slot):
            return None
        if self.slot:
            return float(cluster.slot_pools.get(self.slot, 0))
        return float(cluster.memory_mb if component == "memory" else cluster.vcores)

    def current(
        self, queue: EffectiveQueue, component: str | None, cluster: Cluster | None
    ) -> float | str:
        """The queue's effective value in Hadoop units (seconds, MB, vcores, slots; off as
        ``off_value``; a policy name for a categorical setting)."""
        if self.is_categorical:
            return queue.scheduling_policy
        if self.slot:
            value = getattr(queue, _SLOT_FIELDS[self.name])
            if value is None:
                return 0.0 if self.name.startswith("min") else math.inf
            return float(value)
        if self.name == "weight":
            return float(queue.weight)
        if self.name == "minResources":
            return _component(queue.min_resources, component)
        if self.name in ("maxResources", "maxChildResources"):
            limit = (
                queue.max_resources if self.name == "maxResources" else queue.max_child_resources
            )
            if limit.is_unlimited:
                return math.inf
            total = Resources(cluster.memory_mb, cluster.vcores) if cluster else Resources.zero()
            return _component(limit.resolve(total), component)
        if self.name == "minSharePreemptionTimeout":
            return float(queue.min_share_preemption_timeout_s)
        if self.name == "fairSharePreemptionTimeout":
            return float(queue.fair_share_preemption_timeout_s)
        if self.name == "fairSharePreemptionThreshold":
            return float(queue.fair_share_preemption_threshold)
        if self.name in ("maxRunningApps", "maxRunningJobs"):
            apps = queue.max_running_apps
            return math.inf if apps is None or apps >= JAVA_INT_MAX else float(apps)
        return float(queue.max_am_share)  # maxAMShare: -1 disables the check


def _component(resources: Resources, component: str | None) -> float:
    return float(resources.memory_mb if component == "memory" else resources.vcores)


#: The `EffectiveQueue` field of each Hadoop 1 slot setting.
_SLOT_FIELDS = {
    "minMaps": "min_maps",
    "minReduces": "min_reduces",
    "maxMaps": "max_maps",
    "maxReduces": "max_reduces",
}


#: Every tunable setting, in the order dimensions are listed.
SETTINGS: dict[str, TunableSetting] = {
    s.name: s
    for s in (
        TunableSetting("weight", "continuous", "log", "none"),
        TunableSetting("minResources", "integer", "linear", "none"),
        TunableSetting("maxResources", "integer", "linear", "high"),
        # the maxResources of each queue created on the fly under a parent (a placement
        # rule's queue per user): QueueManager.setChildResourceLimits
        TunableSetting(
            "maxChildResources",
            "integer",
            "linear",
            "high",
            default_on="parents",
            parent_only=True,
        ),
        TunableSetting("minMaps", "integer", "linear", "none", slot="map"),
        TunableSetting("minReduces", "integer", "linear", "none", slot="reduce"),
        TunableSetting("maxMaps", "integer", "linear", "high", slot="map"),
        TunableSetting("maxReduces", "integer", "linear", "high", slot="reduce"),
        TunableSetting("minSharePreemptionTimeout", "integer", "log", "band", default_on="leaves"),
        TunableSetting("fairSharePreemptionTimeout", "integer", "log", "band", default_on="leaves"),
        TunableSetting(
            "fairSharePreemptionThreshold",
            "continuous",
            "linear",
            "none",
            maximum=1.0,
            default_on="leaves",
        ),
        TunableSetting("maxRunningApps", "integer", "log", "band", default_on="leaves"),
        TunableSetting("maxRunningJobs", "integer", "log", "band", default_on="leaves"),
        TunableSetting(
            "maxAMShare",
            "continuous",
            "linear",
            "band",
            off_value=-1.0,
            maximum=1.0,
            default_on="leaves",
            leaf_only=True,
        ),
        TunableSetting(
            "schedulingPolicy",
            "categorical",
            "linear",
            "none",
            default_on="leaves",
            leaf_only=True,
            choices=("fair", "fifo", "drf"),
        ),
        TunableSetting(
            "schedulingMode",
            "categorical",
            "linear",
            "none",
            default_on="leaves",
            leaf_only=True,
            choices=("fair", "fifo"),
        ),
    )
}

#: What `ConfigurationSpace.default` tunes unless told otherwise: the settings the
#: Tempo paper tunes (weights, minimum shares, preemption timeouts).
DEFAULT_SETTINGS = (
    "weight",
    "minResources",
    "minSharePreemptionTimeout",
    "fairSharePreemptionTimeout",
)
