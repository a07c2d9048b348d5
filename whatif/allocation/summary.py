"""The effective queue tree as a table, one row per queue, for display and inspection."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from whatif.allocation.created import created_queue_max, with_startup_queues
from whatif.allocation.effective import EffectiveAllocation, ResourceLimit, Resources
from whatif.allocation.fairshare import fair_shares, pool_slot_shares
from whatif.allocation.model import AllocationDocument
from whatif.allocation.resolve import effective_allocation


def _limit(limit: ResourceLimit) -> str:
    if limit.is_unlimited:
        return "unlimited"
    if limit.percent is not None:
        return f"{limit.percent[0]:g}% mem, {limit.percent[1]:g}% vcores"
    absolute = limit.absolute
    assert absolute is not None  # neither unlimited nor a percentage
    return f"{absolute.memory_mb:.0f} MB, {absolute.vcores:.0f} vcores"


def queue_table(
    allocation: AllocationDocument | EffectiveAllocation,
    *,
    cluster: Resources | None = None,
    hadoop_version: int = 3,
    slots: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """One row per queue (depth first) with its effective settings.

    For Hadoop 1 the table is `pool_table` (slots, not memory and vcores; `slots`
    instead of `cluster`).

    Columns: ``queue``, ``leaf``, ``weight``, ``min_memory_mb``, ``min_vcores``, ``max``
    (text), ``max_child`` (the max a queue created on the fly under a parent takes: its
    ``maxChildResources``, else ``queueMaxResourcesDefault``; None for a leaf), ``max_running_apps`` (``<NA>`` for no limit), ``max_am_share``, ``policy``,
    ``min_share_timeout_s`` and ``fair_share_timeout_s`` (``inf`` for never),
    ``fair_share_threshold``, ``preemptable``; with `cluster`, the steady fair share
    ``fair_memory_mb`` and ``fair_vcores`` (Hadoop's ComputeFairShares over every queue).
    The queues are those the RM holds at start: under Hadoop 2 with ``root.default`` when
    the file does not declare it (`with_startup_queues`), as the RM shows them.
    """
    effective = (
        effective_allocation(allocation, hadoop_version=hadoop_version)
        if isinstance(allocation, AllocationDocument)
        else allocation
    )
    if hadoop_version == 1:
        return pool_table(effective, slots=slots)
    effective = with_startup_queues(effective, hadoop_version)
    queues = list(effective.queues())
    table = pd.DataFrame(
        {
            "queue": [q.name for q in queues],
            "leaf": [not q.is_parent for q in queues],
            "weight": [q.weight for q in queues],
            "min_memory_mb": [q.min_resources.memory_mb for q in queues],
            "min_vcores": [q.min_resources.vcores for q in queues],
            "max": [_limit(q.max_resources) for q in queues],
            "max_child": [
                _limit(created_queue_max(q, effective.defaults)) if q.is_parent else None
                for q in queues
            ],
            "max_running_apps": pd.array([q.max_running_apps for q in queues], dtype="Int64"),
            "max_am_share": [q.max_am_share for q in queues],
            "policy": [q.scheduling_policy for q in queues],
            "min_share_timeout_s": [q.min_share_preemption_timeout_s for q in queues],
            "fair_share_timeout_s": [q.fair_share_preemption_timeout_s for q in queues],
            "fair_share_threshold": [q.fair_share_preemption_threshold for q in queues],
            "preemptable": [q.allow_preemption_from for q in queues],
        }
    )
    if cluster is not None:
        shares = fair_shares(effective, cluster, hadoop_version=hadoop_version)
        table["fair_memory_mb"] = [shares[q.name].memory_mb for q in queues]
        table["fair_vcores"] = [shares[q.name].vcores for q in queues]
    return table


def _count(value: int | None) -> int | None:
    return None if value is None else int(value)


def pool_table(
    effective: EffectiveAllocation, *, slots: Mapping[str, int] | None = None
) -> pd.DataFrame:
    """Hadoop 1: one row per pool (root first) with the settings ``PoolManager`` reads.

    Columns: ``queue``, ``leaf``, ``weight``, ``min_maps``, ``min_reduces`` (the min
    shares, 0 when unset), ``max_maps``, ``max_reduces`` and ``max_running_jobs``
    (``<NA>`` for no limit), ``policy`` (the pool's schedulingMode),
    ``min_share_timeout_s`` and ``fair_share_timeout_s`` (``inf`` for never); with
    `slots` (``{"map": 30, "reduce": 10}``), the steady fair shares ``fair_maps`` and
    ``fair_reduces`` (`pool_slot_shares`, rounded to 0.01 slot).
    """
    queues = list(effective.queues())
    table = pd.DataFrame(
        {
            "queue": [q.name for q in queues],
            "leaf": [not q.is_parent for q in queues],
            "weight": [q.weight for q in queues],
            "min_maps": [q.min_maps or 0 for q in queues],
            "min_reduces": [q.min_reduces or 0 for q in queues],
            "max_maps": pd.array([_count(q.max_maps) for q in queues], dtype="Int64"),
            "max_reduces": pd.array([_count(q.max_reduces) for q in queues], dtype="Int64"),
            "max_running_jobs": pd.array(
                [_count(q.max_running_apps) for q in queues], dtype="Int64"
            ),
            "policy": [q.scheduling_policy for q in queues],
            "min_share_timeout_s": [q.min_share_preemption_timeout_s for q in queues],
            "fair_share_timeout_s": [q.fair_share_preemption_timeout_s for q in queues],
        }
    )
    if slots:
        shares = pool_slot_shares(effective, dict(slots))
        for stage in slots:
            table[f"fair_{stage}s"] = [
                float(slots[stage]) if q.is_parent else round(shares[q.name][stage], 2)
                for q in queues
            ]
    return table
