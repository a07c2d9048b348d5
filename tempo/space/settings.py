"""The Fair Scheduler settings tempo can tune, and the facts the space needs about each.

A setting is named by its Hadoop allocation-file element. Resource settings have two
components, ``memory`` (MB) and ``vcores``, each its own dimension of the space.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from whatif.allocation.effective import EffectiveQueue, Resources
from whatif.cluster import Cluster
from whatif.fairshare import JAVA_INT_MAX

#: Value types of a dimension.
DOMAINS = ("continuous", "integer")

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

    ``minimum`` and ``maximum`` are what Hadoop accepts (for resources, the cluster
    size caps ``maximum``); ``off_value`` is the value "off" stands for in Hadoop
    units. ``default_on`` says which queues the setting is tuned on by default
    (``all`` non-root queues or only ``leaves``); ``leaf_only`` settings may not be
    tuned on a parent queue at all.
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

    @property
    def is_resource(self) -> bool:
        return self.name in ("minResources", "maxResources")

    def current(
        self, queue: EffectiveQueue, component: str | None, cluster: Cluster | None
    ) -> float:
        """The queue's effective value in Hadoop units (seconds, MB, vcores; off as ``off_value``)."""
        if self.name == "weight":
            return float(queue.weight)
        if self.name == "minResources":
            return _component(queue.min_resources, component)
        if self.name == "maxResources":
            if queue.max_resources.is_unlimited:
                return math.inf
            total = Resources(cluster.memory_mb, cluster.vcores) if cluster else Resources.zero()
            return _component(queue.max_resources.resolve(total), component)
        if self.name == "minSharePreemptionTimeout":
            return float(queue.min_share_preemption_timeout_s)
        if self.name == "fairSharePreemptionTimeout":
            return float(queue.fair_share_preemption_timeout_s)
        if self.name == "fairSharePreemptionThreshold":
            return float(queue.fair_share_preemption_threshold)
        if self.name == "maxRunningApps":
            apps = queue.max_running_apps
            return math.inf if apps is None or apps >= JAVA_INT_MAX else float(apps)
        return float(queue.max_am_share)  # maxAMShare: -1 disables the check


def _component(resources: Resources, component: str | None) -> float:
    return float(resources.memory_mb if component == "memory" else resources.vcores)


#: Every tunable setting, in the order dimensions are listed.
SETTINGS: dict[str, TunableSetting] = {
    s.name: s
    for s in (
        TunableSetting("weight", "continuous", "log", "none"),
        TunableSetting("minResources", "integer", "linear", "none"),
        TunableSetting("maxResources", "integer", "linear", "high"),
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
