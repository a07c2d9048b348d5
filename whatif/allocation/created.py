"""Queues the Fair Scheduler creates that the allocation file does not declare
(Hadoop's ``QueueManager``): the queue a job names, with its missing parents
(`with_undeclared_queues`, ``allow-undeclared-pools``), and ``root.default``, which a
Hadoop 2 ResourceManager creates at start whether or not anything runs there
(`with_startup_queues`). Predictions, the steady fair shares ``tempo config show``
prints and the check that the RM took a file all build the tree the RM holds.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from whatif.allocation.effective import (
    EffectiveAllocation,
    EffectiveQueue,
    QueueDefaults,
    ResourceLimit,
)
from whatif.errors import ValidationError
from whatif.queues import normalize_queue

logger = logging.getLogger(__name__)

#: The queue Hadoop 2's QueueManager.initialize creates at start (YARN-7769 stopped
#: that in 3.1: a Hadoop 3 RM creates it when an app is placed there).
DEFAULT_QUEUE = "root.default"


def with_startup_queues(
    allocation: EffectiveAllocation, hadoop_version: int
) -> EffectiveAllocation:
    """The tree a Hadoop `hadoop_version` RM holds before any app arrives: under Hadoop 2
    with ``root.default`` created (`with_undeclared_queues`) when the file does not
    declare it; it takes a steady fair share of its own (weight 1) beside the declared
    queues. Unchanged otherwise."""
    if hadoop_version != 2 or any(q.name == DEFAULT_QUEUE for q in allocation.queues()):
        return allocation
    return with_undeclared_queues(allocation, [DEFAULT_QUEUE])


def with_undeclared_queues(
    allocation: EffectiveAllocation, queue_names: list[str]
) -> EffectiveAllocation:
    """The tree with a leaf (and missing parents) created for every unknown queue name."""
    tree = _mutable(allocation.root)
    by_name = {q["q"].name: q for q in _walk_mutable(tree)}
    defaults = allocation.defaults
    for raw in queue_names:
        name = normalize_queue(raw)
        if name in by_name:
            if by_name[name]["children"]:
                raise ValidationError(
                    f"jobs.queue: {raw!r} is a parent queue; apps can only be submitted to leaves"
                )
            continue
        parts = name.split(".")
        for depth in range(1, len(parts)):
            path = ".".join(parts[: depth + 1])
            if path in by_name:
                continue
            parent = by_name[".".join(parts[:depth])]
            if parent["q"].scheduling_policy == "fifo" or (
                not parent["q"].is_parent and not parent["children"] and parent is not tree
            ):
                raise ValidationError(
                    f"jobs.queue: cannot create {path!r} under leaf queue {parent['q'].name!r}"
                )
            leaf = depth == len(parts) - 1
            policy = (
                defaults.scheduling_policy
                if leaf or defaults.scheduling_policy != "fifo"
                else "fair"
            )
            queue = EffectiveQueue(
                path,
                is_parent=not leaf,
                max_running_apps=defaults.max_running_apps,
                max_resources=created_queue_max(parent["q"], defaults),
                max_am_share=defaults.max_am_share,
                scheduling_policy=policy,
                min_share_preemption_timeout_s=parent["q"].min_share_preemption_timeout_s,
                fair_share_preemption_timeout_s=parent["q"].fair_share_preemption_timeout_s,
                fair_share_preemption_threshold=parent["q"].fair_share_preemption_threshold,
                allow_preemption_from=parent["q"].allow_preemption_from,
            )
            node = {"q": queue, "children": []}
            parent["children"].append(node)
            by_name[path] = node
            logger.info("created undeclared queue %s", path)
    return replace(allocation, root=_frozen(tree))


def created_queue_max(parent: EffectiveQueue, defaults: QueueDefaults) -> ResourceLimit:
    """The maxResources of a queue created on the fly under `parent`: the parent's
    ``maxChildResources`` where it sets one (QueueManager.setChildResourceLimits, again at
    every reload: FairScheduler.applyChildDefaults), else ``queueMaxResourcesDefault``. A
    parent created on the fly sets none, so only the first created level takes it."""
    if parent.max_child_resources.is_unlimited:
        return defaults.max_resources
    return parent.max_child_resources


def _mutable(queue: EffectiveQueue) -> dict[str, Any]:
    return {"q": queue, "children": [_mutable(c) for c in queue.children]}


def _walk_mutable(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node["children"]:
        yield from _walk_mutable(child)


def _frozen(node: dict[str, Any]) -> EffectiveQueue:
    children = tuple(_frozen(c) for c in node["children"])
    queue: EffectiveQueue = node["q"]
    return replace(queue, children=children, is_parent=queue.is_parent or bool(children))
