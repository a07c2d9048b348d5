"""Weights that change nothing: sibling queues whose minimum shares already cover the cluster.

The Fair Scheduler gives a queue below its minimum share (and wanting more) the
next free container or slot before any queue at or above its own, and compares
``usage / weight`` only between queues at or above their minimum shares that still
want more; fair shares, likewise, are ``max(weight * R, minimum share)``. If any two
siblings' minimum shares add up to at least what they divide, two siblings can
never both be past their minimum shares with something left to hand out, and when
all active siblings' minimum shares cover the cluster, fair shares are the minimum
shares, whatever the weights. Their weights then change no schedule, and a search
over them only walks a plateau.

The test is per resource the parent shares by: map and reduce slots in Hadoop 1;
memory under a ``fair`` parent, memory and vcores under ``drf`` in YARN. The whole
cluster stands for what a parent divides (a parent below root divides less, so
the test is conservative there). It reads the minimum shares in force, or the
lowest a space lets them go (`lowest`): a space that may lower them makes the
weights matter again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tempo.space.dialect import Dialect
from tempo.space.dimension import Dimension
from whatif.allocation.effective import EffectiveAllocation, EffectiveQueue
from whatif.cluster import Cluster
from whatif.errors import ValidationError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FlatWeights:
    """Sibling queues whose weights change nothing, and why (one line per resource)."""

    queues: tuple[str, ...]
    reasons: tuple[str, ...]

    def _cover(self) -> str:
        which = "their two smallest" if len(self.queues) > 2 else "their"
        return f"{which} minimum shares cover the cluster ({'; '.join(self.reasons)})"

    def left_out(self) -> str:
        """The note for weights left out of a space: flat wherever the space goes."""
        return (
            f"weights of {', '.join(self.queues)} not tuned: {self._cover()} wherever the space "
            "goes, so fair shares come from minimum shares and weights change nothing (name "
            "QUEUE.weight in a space file or --tune to tune them anyway)"
        )

    def flat_at_start(self) -> str:
        """The note for weights kept because the space may lower the minimum shares."""
        return (
            f"weights of {', '.join(self.queues)} change nothing in the configuration in force: "
            f"{self._cover()}; they are kept because the space may lower those minimum shares, "
            "below which weights matter"
        )


def flat_weights(
    allocation: EffectiveAllocation,
    cluster: Cluster | None,
    dialect: Dialect,
    lowest: Mapping[tuple[str, str], float] | None = None,
) -> list[FlatWeights]:
    """Each group of two or more siblings whose weights change nothing (see the module docstring).

    `lowest` maps ``(queue, key)`` (``minMaps``, ``minResources.memory``...) to the
    lowest minimum share to assume instead of the one in force.
    """
    lowest = lowest or {}
    if cluster is None:
        return []
    found = []
    for parent in allocation.queues():
        children = parent.children
        if len(children) < 2:
            continue
        reasons: list[str] = []
        for setting, unit, total in _resources(parent, cluster, dialect):
            smallest = sorted(
                lowest.get((child.name, setting), _minimum(child, setting)) for child in children
            )[:2]
            if total <= 0:
                continue  # nothing of this type to share
            if sum(smallest) < total:
                reasons = []
                break
            reasons.append(f"{setting} {smallest[0]:g} + {smallest[1]:g} >= {total:g} {unit}")
        if reasons:
            found.append(FlatWeights(tuple(c.name for c in children), tuple(reasons)))
    return found


def _resources(
    parent: EffectiveQueue, cluster: Cluster, dialect: Dialect
) -> Sequence[tuple[str, str, float]]:
    """(minimum-share setting, unit, cluster total) for each resource `parent` shares by."""
    if dialect.name == "mrv1":
        pools = cluster.slot_pools
        return [
            ("minMaps", "map slots", float(pools.get("map", 0))),
            ("minReduces", "reduce slots", float(pools.get("reduce", 0))),
        ]
    memory = [("minResources.memory", "MB", float(cluster.memory_mb))]
    if parent.scheduling_policy == "drf":
        return memory + [("minResources.vcores", "vcores", float(cluster.vcores))]
    return memory


def _minimum(queue: EffectiveQueue, setting: str) -> float:
    if setting == "minMaps":
        return float(queue.min_maps or 0)
    if setting == "minReduces":
        return float(queue.min_reduces or 0)
    if setting == "minResources.vcores":
        return float(queue.min_resources.vcores)
    return float(queue.min_resources.memory_mb)


def without_flat_weights(
    dimensions: Sequence[Dimension],
    allocation: EffectiveAllocation,
    cluster: Cluster | None,
    dialect: Dialect,
    *,
    cover: Sequence[EffectiveAllocation] = (),
    keep: Iterable[str] = (),
) -> tuple[list[Dimension], list[str]]:
    """`dimensions` less the weights that change nothing anywhere in them, and notes saying so.

    A group of siblings' weights (`tempo.space.flat`) is left out when their minimum
    shares cover the cluster at the lowest the dimensions let them go, in
    `allocation` and in every `cover` allocation; weight dimensions named in `keep`
    (operator's rules) stay. A group whose weights are flat only in `allocation` (the
    dimensions may lower its minimum shares) keeps them, with a note. Notes are logged.
    """
    lowest = {(d.queue, d.key): d.low for d in dimensions if d.setting in _MIN_SHARES}
    everywhere = flat_weights(allocation, cluster, dialect, lowest)
    for other in cover:
        elsewhere = {g.queues for g in flat_weights(other, cluster, dialect, lowest)}
        everywhere = [g for g in everywhere if g.queues in elsewhere]
    keep = set(keep)
    tuned = {d.queue for d in dimensions if d.setting == "weight" and d.name not in keep}
    dropped = {q for g in everywhere for q in g.queues} & tuned
    notes = [g.left_out() for g in everywhere if tuned.intersection(g.queues)]
    gone = {g.queues for g in everywhere}
    notes += [
        g.flat_at_start()
        for g in flat_weights(allocation, cluster, dialect)
        if g.queues not in gone and tuned.intersection(g.queues)
    ]
    kept = [d for d in dimensions if not (d.setting == "weight" and d.queue in dropped)]
    if dimensions and not kept:
        raise ValidationError(f"nothing left to tune: {' '.join(notes)}")
    for note in notes:
        logger.info("%s", note)
    return kept, notes


#: The settings that hold minimum shares (their dimensions' lows bound `flat_weights`).
_MIN_SHARES = ("minResources", "minMaps", "minReduces")
