"""How far apart two allocations are in the tunable space (what `tempo config diff` reports)."""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike

from tempo.space.dialect import dialect_of, hadoop_version_for
from tempo.space.settings import SETTINGS
from tempo.space.space import ConfigurationSpace
from tempo.space.spec import SpaceSpec
from whatif.allocation.effective import EffectiveAllocation
from whatif.cluster import Cluster
from whatif.errors import ValidationError


@dataclass(frozen=True)
class SpaceDistance:
    """The normalized distance between two allocations and the space it was measured in."""

    distance: float
    space: ConfigurationSpace
    source: str

    def describe(self) -> str:
        """One line: the distance, the number of dimensions and where the space came from."""
        return (
            f"distance: {self.distance:.4f} (normalized l2 over {len(self.space)} tunable "
            f"dimensions; {self.source})"
        )


def space_distance(
    a: EffectiveAllocation,
    b: EffectiveAllocation,
    *,
    cluster: Cluster | None = None,
    space_file: str | PathLike[str] | None = None,
) -> SpaceDistance:
    """The normalized l2 distance from `a` to `b` over a tunable space.

    Without `space_file`, the default space of the queues both allocations have,
    bounded from `a` and widened to cover `b`, weights included even where minimum
    shares make them change nothing (a weight edit is still a change). Resource
    and slot settings need `cluster` (a slot cluster measures in Hadoop 1's
    settings); without one the default space leaves them out. A space file is
    built from `a`; values of `b` outside its bounds are clipped (and logged).
    """
    if space_file is not None:
        space = ConfigurationSpace.from_spec(SpaceSpec.from_file(space_file), a, cluster)
        source = f"space {space_file}"
    else:
        common = common_queues(a, b)
        version = hadoop_version_for(None, cluster=cluster)
        settings = tuple(
            s
            for s in dialect_of(version).defaults
            if cluster is not None or not (SETTINGS[s].is_resource or SETTINGS[s].slot)
        )
        if not common:
            raise ValidationError("space distance: expected queues both allocations have, got none")
        space = ConfigurationSpace.default(
            a,
            cluster,
            settings=settings,
            queues=common,
            cover=(b,),
            hadoop_version=version,
            keep_flat_weights=True,
        )
        source = "default space" + ("" if cluster else " without resources (no --cluster)")
    distance = space.distance(space.encode(a, clip=True), space.encode(b, clip=True))
    return SpaceDistance(float(distance), space, source)


def common_queues(a: EffectiveAllocation, b: EffectiveAllocation) -> list[str]:
    """The queues, root aside, that both `a` and `b` define (in `a`'s order): what the
    default space measures the distance over."""
    return [q.name for q in a.queues() if q.name != "root" and _has(b, q.name)]


def _has(allocation: EffectiveAllocation, name: str) -> bool:
    return any(q.name == name for q in allocation.queues())
