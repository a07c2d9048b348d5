"""The tunable configuration space: which settings tempo may change, and how PALD sees them.

A point of the space is a vector in [0, 1]^d, one coordinate per `Dimension` (a
setting of one queue). `ConfigurationSpace` encodes allocations, decodes vectors to
`Configuration` values, projects any vector back to a valid configuration inside a
risk radius, measures normalized distance and writes a vector into an allocation
document. `SpaceSpec` reads the operator's choice of settings and bounds (a TOML
file and ``QUEUE.SETTING=LOW:HIGH`` overrides). A space speaks the dialect of one
Hadoop version (`Dialect`: ``MRV1`` pools and slots, or ``YARN`` queues).
`CapacitySpace` is the same over a Capacity Scheduler configuration's properties.
"""

from tempo.space.capacity_space import CapacitySpace, capacity_distance
from tempo.space.compare import SpaceDistance, common_queues, space_distance
from tempo.space.configuration import Configuration
from tempo.space.dialect import MRV1, YARN, Dialect, dialect_of, hadoop_version_for
from tempo.space.dimension import OFF_BAND, Dimension
from tempo.space.rules import parse_override
from tempo.space.settings import DEFAULT_SETTINGS, SETTINGS, TunableSetting
from tempo.space.space import ConfigurationSpace
from tempo.space.spec import SpaceSpec

__all__ = [
    "CapacitySpace",
    "capacity_distance",
    "DEFAULT_SETTINGS",
    "MRV1",
    "OFF_BAND",
    "SETTINGS",
    "YARN",
    "Configuration",
    "ConfigurationSpace",
    "Dialect",
    "Dimension",
    "TunableSetting",
    "SpaceDistance",
    "common_queues",
    "SpaceSpec",
    "parse_override",
    "dialect_of",
    "hadoop_version_for",
    "space_distance",
]
