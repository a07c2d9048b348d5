"""Which allocation-file dialect a space speaks: Hadoop 1 (MRv1 pools, slots) or Hadoop 2/3 (YARN).

The two schedulers read different elements. Hadoop 1 pools take ``minMaps``,
``minReduces``, ``maxMaps``, ``maxReduces``, ``maxRunningJobs``, ``weight``,
``minSharePreemptionTimeout`` and ``schedulingMode``, and ``fairSharePreemptionTimeout``
is one top-level element; a ``maxRunningApps`` or ``minResources`` written into a
``<pool>`` is ignored. YARN queues take resources (and a parent ``maxChildResources``),
``maxRunningApps``, ``maxAMShare``,
``schedulingPolicy``, both preemption timeouts and the threshold, and ignore the
Hadoop 1 elements. A space tunes only what its dialect's scheduler reads, so a
predicted gain is one the cluster can have.

The dialect follows the Hadoop version: the one the user chose, else a slot cluster
(``map-slots=...``) or a file with ``<pool>`` elements means Hadoop 1, else 3.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from whatif.allocation import AllocationDocument
from whatif.allocation.resolve import HADOOP_VERSIONS
from whatif.cluster import Cluster
from whatif.errors import ValidationError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Dialect:
    """The tunable settings of one allocation-file dialect.

    ``settings`` are the settings its scheduler reads (in dimension order),
    ``defaults`` those tuned unless told otherwise (the Tempo paper's weights,
    minimum shares and preemption timeouts), ``top_level`` those written once at the
    top of the file and tuned as one dimension on ``root``.
    """

    name: str
    title: str
    settings: tuple[str, ...]
    defaults: tuple[str, ...]
    top_level: tuple[str, ...] = ()

    def check(self, setting: str, where: str) -> None:
        """Raise `ValidationError` unless this dialect tunes `setting`; `where` prefixes the message."""
        if setting in self.settings:
            return
        other = next((d for d in DIALECTS.values() if setting in d.settings), None)
        why = f" ({setting} is a {other.title} setting)" if other is not None else ""
        raise ValidationError(
            f"{where}: expected one of {', '.join(self.settings)} (the {self.title} settings), "
            f"got {setting!r}{why}"
        )

    def check_all(self, settings: Iterable[str], where: str) -> None:
        for setting in settings:
            self.check(setting, where)


MRV1 = Dialect(
    name="mrv1",
    title="Hadoop 1 (MRv1)",
    settings=(
        "weight",
        "minMaps",
        "minReduces",
        "maxMaps",
        "maxReduces",
        "minSharePreemptionTimeout",
        "fairSharePreemptionTimeout",
        "maxRunningJobs",
        "schedulingMode",
    ),
    defaults=(
        "weight",
        "minMaps",
        "minReduces",
        "minSharePreemptionTimeout",
        "fairSharePreemptionTimeout",
    ),
    top_level=("fairSharePreemptionTimeout",),
)

YARN = Dialect(
    name="yarn",
    title="Hadoop 2/3 (YARN)",
    settings=(
        "weight",
        "minResources",
        "maxResources",
        "maxChildResources",
        "minSharePreemptionTimeout",
        "fairSharePreemptionTimeout",
        "fairSharePreemptionThreshold",
        "maxRunningApps",
        "maxAMShare",
        "schedulingPolicy",
    ),
    defaults=(
        "weight",
        "minResources",
        "minSharePreemptionTimeout",
        "fairSharePreemptionTimeout",
    ),
)

DIALECTS = {d.name: d for d in (MRV1, YARN)}

#: Settings that act only through preemption: with it off they change no schedule.
PREEMPTION_SETTINGS = (
    "minSharePreemptionTimeout",
    "fairSharePreemptionTimeout",
    "fairSharePreemptionThreshold",
)


def preemption_property(dialect: Dialect) -> str:
    """The site property that turns the dialect's preemption on."""
    return (
        "mapred.fairscheduler.preemption"
        if dialect.name == "mrv1"
        else ("yarn.scheduler.fair.preemption")
    )


def without_preemption(
    settings: Iterable[str], dialect: Dialect, *, preemption: bool, explicit: bool
) -> tuple[tuple[str, ...], list[str]]:
    """`settings` less the preemption ones when preemption is off, and a note saying so.

    Default settings (`explicit` False) are left out; settings the operator named are
    kept, with a note that they change nothing until preemption is turned on.
    """
    settings = tuple(settings)
    named = [s for s in settings if s in PREEMPTION_SETTINGS]
    if preemption or not named:
        return settings, []
    off = f"preemption is off ({preemption_property(dialect)}=false)"
    if explicit:
        return settings, [f"{off}: {', '.join(named)} are tuned as asked but change no prediction"]
    return tuple(s for s in settings if s not in PREEMPTION_SETTINGS), [
        f"{off}: {', '.join(named)} not tuned, they change nothing (give --site with "
        "preemption on, or --preemption, to tune them)"
    ]


def dialect_of(hadoop_version: int) -> Dialect:
    """The dialect Hadoop `hadoop_version` (1, 2 or 3) reads."""
    if isinstance(hadoop_version, bool) or hadoop_version not in HADOOP_VERSIONS:
        raise ValidationError(
            f"hadoop_version: expected one of {', '.join(map(str, HADOOP_VERSIONS))}, "
            f"got {hadoop_version!r}"
        )
    return MRV1 if hadoop_version == 1 else YARN


def uses_pools(document: AllocationDocument) -> bool:
    """Whether the file declares its queues as Hadoop 1 ``<pool>`` elements."""
    return any(q.tag == "pool" for q in document.iter_queues())


def hadoop_version_for(
    requested: int | None,
    *,
    cluster: Cluster | None = None,
    document: AllocationDocument | None = None,
) -> int:
    """The Hadoop version to tune for: `requested`, else what the cluster and file say.

    A slot cluster means Hadoop 1; a memory cluster means YARN (3), even for a file
    of ``<pool>`` elements, which YARN reads as queues; without a cluster, ``<pool>``
    elements mean Hadoop 1. An explicit version that contradicts the cluster (Hadoop 1
    without slots, YARN with slots) is a `ValidationError`.
    """
    slots = cluster is not None and bool(cluster.slots)
    if requested is not None:
        dialect_of(requested)  # a valid version
        version = requested
        if cluster is not None and (version == 1) != slots:
            raise ValidationError(
                f"hadoop_version {version}: expected a "
                + (
                    "slot cluster (map-slots=N,reduce-slots=M) for Hadoop 1"
                    if version == 1
                    else "memory/vcores cluster for Hadoop 2/3 (slots are Hadoop 1)"
                )
                + f", got the cluster {cluster.spec()}"
            )
        return version
    if slots:
        return 1
    if cluster is None and document is not None and uses_pools(document):
        return 1
    if document is not None and uses_pools(document):
        logger.info(
            "%s: <pool> elements on a memory cluster: tuning for YARN, which reads them as queues",
            document.source,
        )
    return 3
