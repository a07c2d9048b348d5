"""Turn a decoded configuration into the ``doc.set`` calls that write it into an allocation file.

Only settings whose value differs from the allocation's effective value are written.
"No limit" needs care because the allocation file cannot always say it: a removed
``maxRunningApps`` or ``maxResources`` element falls back to ``queueMaxAppsDefault``
or ``queueMaxResourcesDefault`` when the file sets one (Hadoop 1: a removed
``maxRunningJobs`` falls back to ``poolMaxJobsDefault``). In that case tempo writes
Java's ``Integer.MAX_VALUE`` apps, or the cluster's size, which Hadoop treats as
no limit; otherwise it removes the element (value ``None``). Hadoop 1 has no
default for ``maxMaps``/``maxReduces``: no limit removes them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tempo.space.configuration import Configuration
from tempo.space.dimension import Dimension
from tempo.space.settings import SETTINGS
from whatif.allocation.effective import EffectiveAllocation, EffectiveQueue, Resources
from whatif.allocation.fairshare import JAVA_INT_MAX
from whatif.cluster import Cluster


def setting_writes(
    dimensions: Sequence[Dimension],
    cluster: Cluster | None,
    allocation: EffectiveAllocation,
    configuration: Configuration,
) -> tuple[tuple[str, str, Any], ...]:
    """The ``(queue, setting, value)`` triples for ``AllocationDocument.set``, in dimension order.

    Values are Hadoop units: numbers (``math.inf`` for a timeout that never fires,
    -1 for a disabled ``maxAMShare``), policy names, `Resources` for resource
    settings (a component the space does not tune keeps its effective value), or
    ``None`` to remove an element so that "no limit" applies.
    """
    writes: dict[tuple[str, str], Any] = {}
    components: dict[tuple[str, str], dict[str, float]] = {}
    for d, (_, _, new) in zip(dimensions, configuration, strict=True):
        queue = allocation.queue(d.queue)
        if d.same(SETTINGS[d.setting].current(queue, d.component, cluster), new):
            continue
        writes[(d.queue, d.setting)] = new
        if d.component is not None:
            components.setdefault((d.queue, d.setting), {})[d.component] = float(new)
    for (queue_name, setting), changed in components.items():
        queue = allocation.queue(queue_name)
        memory = changed.get("memory", _current_number(setting, queue, "memory", cluster))
        vcores = changed.get("vcores", _current_number(setting, queue, "vcores", cluster))
        writes[(queue_name, setting)] = _resources(allocation, cluster, memory, vcores, setting)
    for key, value in writes.items():
        if key[1] in ("maxRunningApps", "maxRunningJobs") and math.isinf(value):
            writes[key] = None if allocation.defaults.max_running_apps is None else JAVA_INT_MAX
        elif key[1] in ("maxMaps", "maxReduces") and math.isinf(value):
            writes[key] = None
    return tuple((queue, setting, value) for (queue, setting), value in writes.items())


def _current_number(
    setting: str, queue: EffectiveQueue, component: str, cluster: Cluster | None
) -> float:
    """A resource setting's current value of one component (a resource is never a name)."""
    value = SETTINGS[setting].current(queue, component, cluster)
    assert not isinstance(value, str), f"{queue.name}.{setting}: {value!r}"
    return value


def _resources(
    allocation: EffectiveAllocation,
    cluster: Cluster | None,
    memory: float,
    vcores: float,
    setting: str,
) -> Resources | None:
    """A resource amount to write; unlimited components become the cluster's size. No
    limit at all removes the element where that means no limit: always for
    ``maxChildResources`` (without it a queue created on the fly takes
    ``queueMaxResourcesDefault``, as the predictor does), for ``maxResources`` unless the
    file sets ``queueMaxResourcesDefault``."""
    unlimited = math.isinf(memory) and math.isinf(vcores)
    if unlimited and (
        setting == "maxChildResources" or allocation.defaults.max_resources.is_unlimited
    ):
        return None
    if cluster is not None:
        memory = cluster.memory_mb if math.isinf(memory) else memory
        vcores = cluster.vcores if math.isinf(vcores) else vcores
    return Resources(memory_mb=float(memory), vcores=float(vcores))
