"""The cluster a recorded schedule ran on, as far as its attempts show it.

A TaskTracker holds a fixed number of map slots and reduce slots
(``mapred.tasktracker.map.tasks.maximum`` / ``.reduce.tasks.maximum``); job history
does not record them, but every attempt names its tracker. `observed_slots` counts
the distinct trackers and, per tracker, the most map and reduce attempts that ran
on it at once (a setup or cleanup attempt takes a map or reduce slot as its task id
says: ``_m_`` or ``_r_``). Taking the busiest tracker's peaks for every tracker
gives the ``--cluster`` spec: a lower bound on the real slot counts when the run
never filled the cluster, exact when it did. Where every tracker's host is known
(Hadoop 1 history: the attempts' ``host`` and ``rack`` columns, from ``HOSTNAME``; a node
named ``/rack/host``, as Rumen's ``hostName``) and no two trackers share one, the spec names
the trackers (``hosts=/rack/host;...``) with the same slot totals, so that Hadoop 1 delay
scheduling can match the trace's split locations to them (`whatif.predictor.locality`).

YARN (jhist, Rumen, SLS, REST) records the NodeManager of every container but not
the node's size (``yarn.nodemanager.resource.*``). `observed_nodes` counts the
distinct nodes and, per node, the most memory and vcores its containers
(ApplicationMasters included) held at once, each container counted at the size the
ResourceManager allocates for its request (at least the minimum allocation, rounded
up to the increment: 1024 MB and 1 vcore each by default, as
``whatif.predictor.pack.normalize_requests``). The busiest node's peaks give every
node of the ``--cluster`` spec: a lower bound unless the run filled its nodes (the
memory and vcore peaks may fall at different times).
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.readers.hadoop_ids import TASK_LETTERS


class _ObservedCluster(ABC):
    """What `ObservedSlots` and `ObservedNodes` both derive from their ``--cluster`` spec."""

    @property
    @abstractmethod
    def spec(self) -> str:
        """The ``--cluster`` SPEC of what the trace shows."""

    @property
    def cluster(self) -> Cluster:
        """The cluster of `spec`."""
        return Cluster.parse(self.spec)


@dataclass(frozen=True)
class ObservedSlots(_ObservedCluster):
    """Trackers seen and the most concurrent attempts per tracker and slot kind."""

    trackers: int
    map_slots: int
    reduce_slots: int
    per_tracker: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: (rack, host) of each tracker in `per_tracker` order ("" rack: unknown); empty
    #: when a tracker's host is unknown or two trackers share a host.
    hosts: tuple[tuple[str, str], ...] = ()

    @property
    def spec(self) -> str:
        """A ``--cluster`` SPEC: every tracker with the busiest tracker's peaks (at least 1),
        the trackers named by rack and host where `hosts` knows them."""
        maps = self.trackers * max(self.map_slots, 1)
        reduces = self.trackers * max(self.reduce_slots, 1)
        pools = f"map-slots={maps},reduce-slots={reduces}"
        if not self.hosts:
            return pools
        names = ";".join(f"{rack}/{host}" if rack else host for rack, host in self.hosts)
        return f"hosts={names},{pools}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "trackers": self.trackers,
            "map_slots_per_tracker": self.map_slots,
            "reduce_slots_per_tracker": self.reduce_slots,
            "named_by_host": bool(self.hosts),
            "cluster": self.spec,
        }


def slot_kind(task_id: str, stage: str) -> str:
    """``map`` or ``reduce``: the slot an attempt of `task_id` takes."""
    parts = task_id.split("_")
    letter = parts[-2] if len(parts) >= 2 else ""
    if letter in ("m", "r"):
        return "map" if letter == "m" else "reduce"
    return "reduce" if stage == "reduce" or TASK_LETTERS.get(letter) == "reduce" else "map"


def _peak(starts: np.ndarray, finishes: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Largest total weight (default 1 each) of intervals open at once.

    One interval ending when another starts does not overlap it.
    """
    if starts.size == 0:
        return 0.0
    w = np.ones(starts.size) if weights is None else weights
    times = np.concatenate([finishes, starts])
    steps = np.concatenate([-w, w])
    opens = np.concatenate([np.zeros(finishes.size), np.ones(starts.size)])
    order = np.lexsort((opens, times))  # at equal times, finishes first
    return max(float(np.cumsum(steps[order]).max()), 0.0)


def _named(attempts: pd.DataFrame) -> pd.DataFrame:
    """The attempts that name their node."""
    return attempts[attempts["node"].astype(str) != ""]


def observed_slots(attempts: pd.DataFrame) -> ObservedSlots | None:
    """Trackers and per-tracker slot peaks from an observed schedule's attempts.

    None when no attempt names its node. Attempts still running (no finish) count
    as running to the end.
    """
    frame = _named(attempts)
    if "is_am" in frame:
        frame = frame[~frame["is_am"].to_numpy(bool)]
    if frame.empty:
        return None
    kinds = np.array(
        [slot_kind(t, s) for t, s in zip(frame["task_id"], frame["stage"], strict=True)]
    )
    starts = frame["start_s"].to_numpy(float)
    finishes = np.nan_to_num(frame["finish_s"].to_numpy(float), nan=np.inf)
    nodes = frame["node"].astype(str).to_numpy()
    per_tracker: dict[str, tuple[int, int]] = {}
    for node in sorted(set(nodes.tolist())):
        mine = nodes == node
        peaks = tuple(
            int(_peak(starts[mine & (kinds == kind)], finishes[mine & (kinds == kind)]))
            for kind in ("map", "reduce")
        )
        per_tracker[node] = (peaks[0], peaks[1])
    return ObservedSlots(
        trackers=len(per_tracker),
        map_slots=max(p[0] for p in per_tracker.values()),
        reduce_slots=max(p[1] for p in per_tracker.values()),
        per_tracker=per_tracker,
        hosts=_tracker_hosts(frame, list(per_tracker)),
    )


#: What a SPEC's ``hosts=`` cannot hold in a name (its separators, and spaces).
_UNSAFE = re.compile(r"[;,=\s]")


def _rack_host(text: str) -> tuple[str, str]:
    """(rack, host) of ``/rack/host`` (or a bare ``host``: rack "")."""
    rack, _, host = text.strip().rstrip("/").rpartition("/")
    return rack, host


def _tracker_hosts(frame: pd.DataFrame, trackers: list[str]) -> tuple[tuple[str, str], ...]:
    """Each tracker's (rack, host): its attempts' ``host`` and ``rack`` columns where the
    reader keeps them, else its own name where that is ``/rack/host``; () when a tracker's
    host is unknown or two trackers share a host (their split locations could not tell
    them apart)."""
    nodes = frame["node"].astype(str)
    if "host" in frame:
        racks = frame["rack"].astype(str) if "rack" in frame else pd.Series("", frame.index)
        named = pd.DataFrame({"node": nodes, "host": frame["host"].astype(str), "rack": racks})
        named = named[named["host"] != ""].drop_duplicates("node").set_index("node")
        found = {n: (str(named.at[n, "rack"]), str(named.at[n, "host"])) for n in named.index}
    else:
        found = {n: _rack_host(n) for n in trackers if n.startswith("/")}
    pairs = tuple(found.get(n, ("", "")) for n in trackers)
    hosts = [host for _, host in pairs]
    unsafe = any(_UNSAFE.search(rack + host) for rack, host in pairs)
    if unsafe or "" in hosts or len(set(hosts)) != len(hosts):
        return ()
    return pairs


#: ``yarn.scheduler.minimum-allocation-mb`` / ``-vcores`` defaults.
DEFAULT_MINIMUM_MB = 1024.0
DEFAULT_MINIMUM_VCORES = 1.0
#: ``yarn.scheduler.increment-allocation-mb`` / ``-vcores`` defaults (Fair Scheduler).
DEFAULT_INCREMENT_MB = 1024.0
DEFAULT_INCREMENT_VCORES = 1.0


@dataclass(frozen=True)
class ObservedNodes(_ObservedCluster):
    """NodeManagers seen and the per-node size they imply (see the module docstring).

    ``memory_mb`` and ``vcores`` are the busiest node's peaks of allocated
    (normalized) container sizes, rounded up to the increments; ``per_node`` holds
    each node's (memory MB, vcores) peaks.
    """

    nodes: int
    memory_mb: float
    vcores: float
    peak_memory_mb: float
    peak_vcores: float
    increment_mb: float = DEFAULT_INCREMENT_MB
    increment_vcores: float = DEFAULT_INCREMENT_VCORES
    per_node: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def spec(self) -> str:
        """A ``--cluster`` SPEC: that many nodes of the rounded-up peaks."""
        return f"nodes={self.nodes},memory-mb={self.memory_mb:g},vcores={self.vcores:g}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "peak_memory_mb_per_node": self.peak_memory_mb,
            "peak_vcores_per_node": self.peak_vcores,
            "memory_mb_per_node": self.memory_mb,
            "vcores_per_node": self.vcores,
            "increment_mb": self.increment_mb,
            "increment_vcores": self.increment_vcores,
            "cluster": self.spec,
        }


def _round_up(value: np.ndarray | float, minimum: float, increment: float) -> np.ndarray:
    """At least `minimum`, then up to a multiple of `increment` (as the RM normalizes)."""
    return np.ceil(np.maximum(value, minimum) / increment - 1e-9) * increment


def observed_nodes(
    attempts: pd.DataFrame,
    *,
    minimum_mb: float = DEFAULT_MINIMUM_MB,
    minimum_vcores: float = DEFAULT_MINIMUM_VCORES,
    increment_mb: float = DEFAULT_INCREMENT_MB,
    increment_vcores: float = DEFAULT_INCREMENT_VCORES,
) -> ObservedNodes | None:
    """NodeManagers and per-node memory/vcore peaks from an observed YARN schedule.

    Every attempt that names its node counts, ApplicationMasters included (their
    containers hold node resources too), at its normalized size (a missing size
    counts as the minimum); an attempt still running (no finish) counts as running
    to the end. None when no attempt names its node.
    """
    for name, value in (
        ("minimum_mb", minimum_mb),
        ("minimum_vcores", minimum_vcores),
        ("increment_mb", increment_mb),
        ("increment_vcores", increment_vcores),
    ):
        if not (isinstance(value, int | float) and 0 < value < math.inf):
            raise ValidationError(f"observed_nodes {name}: expected a number > 0, got {value!r}")
    frame = _named(attempts)
    if frame.empty:
        return None
    starts = frame["start_s"].to_numpy(float)
    finishes = np.nan_to_num(frame["finish_s"].to_numpy(float), nan=np.inf)
    memory = _round_up(
        np.nan_to_num(frame["memory_mb"].to_numpy(float), nan=0.0), minimum_mb, increment_mb
    )
    vcores = _round_up(
        np.nan_to_num(frame["vcores"].to_numpy(float), nan=0.0), minimum_vcores, increment_vcores
    )
    nodes = frame["node"].astype(str).to_numpy()
    per_node: dict[str, tuple[float, float]] = {}
    for node in sorted(set(nodes.tolist())):
        mine = nodes == node
        per_node[node] = (
            _peak(starts[mine], finishes[mine], memory[mine]),
            _peak(starts[mine], finishes[mine], vcores[mine]),
        )
    peak_mb = max(p[0] for p in per_node.values())
    peak_vc = max(p[1] for p in per_node.values())
    return ObservedNodes(
        nodes=len(per_node),
        memory_mb=float(_round_up(peak_mb, minimum_mb, increment_mb)),
        vcores=float(_round_up(peak_vc, minimum_vcores, increment_vcores)),
        peak_memory_mb=peak_mb,
        peak_vcores=peak_vc,
        increment_mb=increment_mb,
        increment_vcores=increment_vcores,
        per_node=per_node,
    )
