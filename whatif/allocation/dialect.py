"""Which elements each Hadoop version reads, and what it reads instead of the others.

Hadoop 1's contrib Fair Scheduler (``PoolManager.reloadAllocs``, 1.0.x-1.2.x) reads
only top-level ``<pool>`` elements with ``minMaps``, ``minReduces``, ``maxMaps``,
``maxReduces``, ``maxRunningJobs``, ``weight``, ``minSharePreemptionTimeout`` and
``schedulingMode`` (``fair`` or ``fifo``; anything else fails the reload); ``<user>``
elements with ``maxRunningJobs``; and the top-level ``userMaxJobsDefault``,
``poolMaxJobsDefault``, ``fairSharePreemptionTimeout``,
``defaultMinSharePreemptionTimeout`` and ``defaultPoolSchedulingMode``. Any other
top-level element (``<queue>`` included) is logged as "Bad element" and ignored;
other elements inside a pool are ignored without a word, and pools do not nest.

Hadoop 2/3 read ``<queue>`` and ``<pool>`` alike and ignore the MRv1-only elements.
Used by `validate` (a warning per ignored element) and by `AllocationDocument.set`
(which refuses to write an element the file's version would not read); it knows no
document, so both can import it (`whatif.allocation.model.file_hadoop_version` tells
a file's version).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

Place = Literal["pool", "top", "user"]

#: Elements Hadoop 1 reads inside a top-level ``<pool>``.
HADOOP1_POOL: frozenset[str] = frozenset(
    {
        "minMaps",
        "minReduces",
        "maxMaps",
        "maxReduces",
        "maxRunningJobs",
        "weight",
        "minSharePreemptionTimeout",
        "schedulingMode",
    }
)
#: Top-level elements Hadoop 1 reads (besides ``pool`` and ``user``).
HADOOP1_TOP: frozenset[str] = frozenset(
    {
        "userMaxJobsDefault",
        "poolMaxJobsDefault",
        "fairSharePreemptionTimeout",
        "defaultMinSharePreemptionTimeout",
        "defaultPoolSchedulingMode",
    }
)
#: Elements Hadoop 1 reads inside ``<user>``.
HADOOP1_USER: frozenset[str] = frozenset({"maxRunningJobs"})
#: Scheduling modes Hadoop 1 accepts (``PoolManager.parseSchedulingMode``, lower-cased).
HADOOP1_MODES = ("fair", "fifo")

#: Elements only Hadoop 1 reads (YARN ignores them), by place.
MRV1_ONLY: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "pool": frozenset({"minMaps", "minReduces", "maxMaps", "maxReduces", "maxRunningJobs"}),
        "top": frozenset({"userMaxJobsDefault", "poolMaxJobsDefault", "defaultPoolSchedulingMode"}),
        "user": frozenset({"maxRunningJobs"}),
    }
)

#: What Hadoop 1 reads instead of a YARN element.
HADOOP1_INSTEAD: Mapping[str, str] = MappingProxyType(
    {
        "queue": "<pool>",
        "minResources": "minMaps and minReduces (slots)",
        "maxResources": "maxMaps and maxReduces (slots)",
        "maxRunningApps": "maxRunningJobs",
        "schedulingPolicy": "schedulingMode",
        "fairSharePreemptionTimeout": "the top-level <fairSharePreemptionTimeout> (one for all pools)",
        "userMaxAppsDefault": "userMaxJobsDefault",
        "queueMaxAppsDefault": "poolMaxJobsDefault",
        "defaultQueueSchedulingPolicy": "defaultPoolSchedulingMode",
        "defaultQueueSchedulingMode": "defaultPoolSchedulingMode",
        "defaultFairSharePreemptionTimeout": "fairSharePreemptionTimeout",
    }
)
#: What YARN reads instead of a Hadoop 1 element.
YARN_INSTEAD: Mapping[str, str] = MappingProxyType(
    {
        "minMaps": "minResources",
        "minReduces": "minResources",
        "maxMaps": "maxResources",
        "maxReduces": "maxResources",
        "maxRunningJobs": "maxRunningApps",
        "userMaxJobsDefault": "userMaxAppsDefault",
        "poolMaxJobsDefault": "queueMaxAppsDefault",
        "defaultPoolSchedulingMode": "defaultQueueSchedulingPolicy",
    }
)


#: Queue elements Hadoop 3 added, which Hadoop 2 ignores: the release that reads them.
YARN3_ONLY: Mapping[str, str] = MappingProxyType({"maxContainerAllocation": "3.2 (YARN-8468)"})


def reads(hadoop_version: int, tag: str, place: Place) -> bool:
    """Whether Hadoop `hadoop_version` reads element `tag` (as written) at `place`.

    For Hadoop 2/3 only the MRv1-only elements, and for Hadoop 2 Hadoop 3's additions,
    are answered False; whether a YARN element exists at all is the document model's
    business.
    """
    if hadoop_version == 1:
        return tag in {"pool": HADOOP1_POOL, "top": HADOOP1_TOP, "user": HADOOP1_USER}[place]
    if hadoop_version == 2 and place == "pool" and tag in YARN3_ONLY:
        return False
    return tag not in MRV1_ONLY[place]


def ignored_message(hadoop_version: int, tag: str, where: str) -> str:
    """Why `tag` at `where` does nothing under `hadoop_version`, and what it reads instead."""
    if hadoop_version == 1:
        instead = HADOOP1_INSTEAD.get(tag)
        hint = f"; it reads {instead}" if instead else ""
        return f"{where}: Hadoop 1 ignores <{tag}>{hint}"
    if tag in YARN3_ONLY:
        return (
            f"{where}: Hadoop {hadoop_version} ignores <{tag}> (read from Hadoop {YARN3_ONLY[tag]})"
        )
    instead = YARN_INSTEAD.get(tag)
    hint = f"; it reads {instead}" if instead else ""
    return f"{where}: <{tag}> is a Hadoop 1 (MRv1) element; YARN ignores it{hint}"


__all__ = [
    "HADOOP1_INSTEAD",
    "HADOOP1_MODES",
    "HADOOP1_POOL",
    "HADOOP1_TOP",
    "HADOOP1_USER",
    "MRV1_ONLY",
    "YARN3_ONLY",
    "YARN_INSTEAD",
    "ignored_message",
    "reads",
]
