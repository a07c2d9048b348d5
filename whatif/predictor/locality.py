"""Split locations matched to the predicted cluster's nodes, for delay scheduling: Hadoop 1's
Fair Scheduler (``kernel/locality.py``) and the Capacity Scheduler mode
(``kernel/capacity_locality.py``).

Readers keep a map's split locations where the trace records them, in the task column
``split_locations``: comma-separated ``/rack/host`` (or bare ``host``) entries, as
Hadoop 1's job history writes ``SPLITS``. Hadoop 1's Fair Scheduler prefers, and waits a
while for, maps whose split is on the heartbeating tracker's host or rack
(``kernel/locality.py``); the predictor can do that only on a Hadoop 1 slot cluster with
heartbeats whose trackers are named by host (``Cluster.parse("...,hosts=/rack1/h1;...")``),
so that a split's host is one of them. `locality_layout` builds the engines' arrays:
per located map stage (one with a task that has split locations), its tasks grouped by
node and by rack, each group sorted by task. A split host that is no tracker still makes
its task located (Hadoop resolves it into its topology: the task is local to no tracker,
or only to its rack). When the trace has split locations but none names a tracker of the
cluster (a cluster given by counts, ``map-slots=...``), locality is skipped and a warning
says so; the schedule is then the one without delay scheduling.

The Fair Scheduler on YARN uses it when its delay scheduling is on
(``yarn.scheduler.fair.locality.threshold.node`` and ``.rack`` at least 0, without
continuous scheduling: ``kernel/fair_locality.py``), and the Capacity Scheduler mode uses
the same layout on a container cluster with heartbeats
whose NodeManagers are named by host (``hosts=`` in the cluster spec): a MapReduce AM asks
for each map on its split hosts, their racks and ANY (``RMContainerAllocator``), and the
Capacity Scheduler's ``RegularContainerAllocator`` delays such requests. Its off-switch
wait reads the scheduler key's unique location asks (``getUniqueLocationAsks``: the size of
the key's resource-request map, its hosts, racks and ANY), kept per located stage in
``stage_asks``: the AM sends every host and rack it ever asked for again with a count of 0
once it is satisfied (``RMContainerRequestor.decResourceRequest``), and the RM keeps such
entries (``LocalityAppPlacementAllocator.updatePendingAsk``), so the count is the stage's
distinct split hosts and racks, plus one.
"""

from __future__ import annotations

import functools
import logging
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from whatif.cluster import Cluster
from whatif.predictor.settings import SchedulerSettings

logger = logging.getLogger(__name__)

#: The task column holding a map's split locations (``/rack/host`` entries, comma-separated).
LOCATION_COLUMN = "split_locations"
#: Hadoop's rack for a host its topology does not place (``NetworkTopology.DEFAULT_RACK``).
DEFAULT_RACK = "/default-rack"
#: Hadoop 1 FairScheduler.MAX_AUTOCOMPUTED_LOCALITY_DELAY (15 s).
MAX_AUTO_DELAY_S = 15.0


@dataclass(frozen=True, eq=False)
class LocalityLayout:
    """The engines' locality arrays (see the module docstring).

    ``groups`` (ng, 3) int64: key (node ``n``, or rack ``r`` as ``nodes + r``) and the
    range ``[lo, hi)`` of ``tasks`` (ne,) int32 it holds, ascending; a stage's groups are
    ``stage_groups[s]`` (ns, 2), sorted by key. ``stage_located`` (ns,) int64: 1 for a
    located map stage; ``task_located`` (nt,) int8: 1 for a task with split locations;
    ``node_rack`` (nn,) int64; ``delay_s``: the locality delay (Hadoop 1);
    ``stage_asks`` (ns,) int64: a located stage's distinct split hosts and racks plus one
    (ANY), 0 for other stages (the Capacity Scheduler's ``getUniqueLocationAsks``)."""

    groups: np.ndarray
    tasks: np.ndarray
    stage_groups: np.ndarray
    stage_located: np.ndarray
    task_located: np.ndarray
    node_rack: np.ndarray
    delay_s: float
    stage_asks: np.ndarray


@functools.cache
def _warn_unmatched(spec: str) -> None:
    """Say once per cluster (not at every prediction of an optimizer's run) that locality
    is skipped, and why."""
    logger.warning(
        "the trace records split locations, but no split host is a node (TaskTracker or "
        "NodeManager) of the cluster (%s): delay scheduling is skipped; name the nodes by "
        "host (hosts=/rack/host;... in --cluster) to model it",
        spec,
    )


def locality_delay_s(settings: SchedulerSettings, interval_s: float) -> float:
    """``mapred.fairscheduler.locality.delay``, or (-1, its default) Hadoop 1's
    ``min(15 s, 1.5 x the heartbeat interval)``, the interval in whole milliseconds."""
    if settings.locality_delay_s >= 0:
        return float(settings.locality_delay_s)
    return min(MAX_AUTO_DELAY_S, math.floor(1.5 * interval_s * 1000.0) / 1000.0)


def split_location(entry: str) -> tuple[str, str]:
    """(rack, host) of one split location: ``/rack/host`` or a bare ``host`` (rack "")."""
    rack, _, host = entry.strip().rpartition("/")
    return rack, host


def _entries(
    tasks: pd.DataFrame, task_stage: np.ndarray, map_stage: np.ndarray
) -> pd.DataFrame | None:
    """One row per (task, split location) of the map stages' tasks: task, rack, host."""
    if LOCATION_COLUMN not in tasks:
        return None
    text = tasks[LOCATION_COLUMN].astype("string").fillna("").to_numpy(dtype=object)
    wanted = np.flatnonzero((text != "") & map_stage[task_stage])
    if wanted.size == 0:
        return None
    rows = [(int(t), *split_location(e)) for t in wanted for e in str(text[t]).split(",") if e]
    return pd.DataFrame(rows, columns=["task", "rack", "host"])


def _node_racks(cluster: Cluster, entries: pd.DataFrame) -> tuple[dict[str, int], list[str]]:
    """Tracker index by host, and each tracker's rack: its own, else the rack the splits
    give its host, else Hadoop's default rack."""
    by_host = {node.name: i for i, node in enumerate(cluster.nodes)}
    seen = entries[entries["rack"] != ""].drop_duplicates("host").set_index("host")["rack"]
    racks = [node.rack or str(seen.get(node.name, DEFAULT_RACK)) for node in cluster.nodes]
    return by_host, racks


def locality_layout(
    tasks: pd.DataFrame,
    task_stage: np.ndarray,
    map_stage: np.ndarray,
    cluster: Cluster,
    node_count: int,
    settings: SchedulerSettings,
    interval_s: float,
    capacity: bool = False,
) -> LocalityLayout | None:
    """The locality arrays, or None when delay scheduling does not apply: neither Hadoop 1
    on a slot cluster, nor the Capacity Scheduler mode (`capacity`) or the Fair
    Scheduler's delay scheduling (`SchedulerSettings.fair_locality`) on a container
    cluster, no heartbeats, no split locations in the trace, or none naming a node of
    `cluster` (a warning says so). Otherwise the Fair Scheduler on YARN places every
    container as if its requests asked for ANY only."""
    hadoop1 = settings.hadoop_version == 1 and bool(cluster.slots) and not capacity
    yarn = not cluster.slots and (capacity or settings.fair_locality is not None)
    if not (hadoop1 or yarn):
        return None
    entries = _entries(tasks, task_stage, map_stage)
    if entries is None:
        return None
    if (
        node_count == 0
        or node_count != len(cluster.nodes)
        or not entries["host"].isin([n.name for n in cluster.nodes]).any()
    ):
        _warn_unmatched(cluster.describe())
        return None
    by_host, racks = _node_racks(cluster, entries)
    rack_names = sorted(set(racks))
    rack_index = {r: i for i, r in enumerate(rack_names)}
    node = entries["host"].map(by_host).fillna(-1).to_numpy(dtype=np.int64)
    located_rack = entries["rack"].where(entries["rack"] != "", None)
    host_rack = pd.Series([racks[n] if n >= 0 else DEFAULT_RACK for n in node])
    rack = located_rack.fillna(host_rack).map(rack_index).fillna(-1).to_numpy(dtype=np.int64)
    task = entries["task"].to_numpy(dtype=np.int64)
    keys = np.concatenate([node[node >= 0], node_count + rack[rack >= 0]])
    owner = np.concatenate([task[node >= 0], task[rack >= 0]])
    asks = _stage_asks(
        task_stage[task], entries["host"], located_rack.fillna(host_rack), len(map_stage)
    )
    return _grouped(
        task_stage, map_stage, task, keys, owner, np.array([rack_index[r] for r in racks]),
        locality_delay_s(settings, interval_s), asks,
    )  # fmt: skip


def _stage_asks(stage: np.ndarray, hosts: pd.Series, racks: pd.Series, ns: int) -> np.ndarray:
    """Per stage, its distinct split hosts plus its distinct racks, plus one (ANY); 0 for a
    stage without split locations."""
    names = pd.concat(
        [
            pd.DataFrame({"stage": stage, "name": "h:" + hosts.to_numpy(dtype=object)}),
            pd.DataFrame({"stage": stage, "name": "r:" + racks.to_numpy(dtype=object)}),
        ]
    )
    counts = names.drop_duplicates().groupby("stage").size()
    asks = np.zeros(ns, dtype=np.int64)
    asks[counts.index.to_numpy(dtype=np.int64)] = counts.to_numpy() + 1
    return asks


def _grouped(
    task_stage: np.ndarray,
    map_stage: np.ndarray,
    located: np.ndarray,
    keys: np.ndarray,
    owner: np.ndarray,
    node_rack: np.ndarray,
    delay_s: float,
    stage_asks: np.ndarray,
) -> LocalityLayout:
    """Groups of (stage, key) over the (key, task) pairs, unique and sorted."""
    stage = task_stage[owner]
    table = np.unique(np.column_stack([stage, keys, owner]), axis=0)
    new = np.ones(len(table), dtype=bool)
    new[1:] = (table[1:, 0] != table[:-1, 0]) | (table[1:, 1] != table[:-1, 1])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], len(table))
    groups = np.column_stack([table[starts, 1], starts, ends]).astype(np.int64)
    ns = len(map_stage)
    group_stage = table[starts, 0]
    stage_groups = np.column_stack(
        [
            np.searchsorted(group_stage, np.arange(ns)),
            np.searchsorted(group_stage, np.arange(ns), "right"),
        ]
    ).astype(np.int64)
    task_located = np.zeros(len(task_stage), dtype=np.int8)
    task_located[located] = 1
    stage_located = np.zeros(ns, dtype=np.int64)
    stage_located[task_stage[located]] = 1
    return LocalityLayout(
        groups=groups,
        tasks=table[:, 2].astype(np.int32),
        stage_groups=stage_groups,
        stage_located=stage_located,
        task_located=task_located,
        node_rack=node_rack.astype(np.int64),
        delay_s=delay_s,
        stage_asks=stage_asks,
    )
