"""The Hadoop 1 cluster a recorded schedule ran on, as far as its attempts show it.

A TaskTracker holds a fixed number of map slots and reduce slots
(``mapred.tasktracker.map.tasks.maximum`` / ``.reduce.tasks.maximum``); job history
does not record them, but every attempt names its tracker. `observed_slots` counts
the distinct trackers and, per tracker, the most map and reduce attempts that ran
on it at once (a setup or cleanup attempt takes a map or reduce slot as its task id
says: ``_m_`` or ``_r_``). Taking the busiest tracker's peaks for every tracker
gives the ``--cluster`` spec: a lower bound on the real slot counts when the run
never filled the cluster, exact when it did.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from whatif.cluster import Cluster
from whatif.readers.hadoop_ids import TASK_LETTERS


@dataclass(frozen=True)
class ObservedSlots:
    """Trackers seen and the most concurrent attempts per tracker and slot kind."""

    trackers: int
    map_slots: int
    reduce_slots: int
    per_tracker: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def spec(self) -> str:
        """A ``--cluster`` SPEC: every tracker with the busiest tracker's peaks (at least 1)."""
        maps = self.trackers * max(self.map_slots, 1)
        reduces = self.trackers * max(self.reduce_slots, 1)
        return f"map-slots={maps},reduce-slots={reduces}"

    @property
    def cluster(self) -> Cluster:
        return Cluster.parse(self.spec)

    def to_dict(self) -> dict:
        return {
            "trackers": self.trackers,
            "map_slots_per_tracker": self.map_slots,
            "reduce_slots_per_tracker": self.reduce_slots,
            "cluster": self.spec,
        }


def slot_kind(task_id: str, stage: str) -> str:
    """``map`` or ``reduce``: the slot an attempt of `task_id` takes."""
    parts = task_id.split("_")
    letter = parts[-2] if len(parts) >= 2 else ""
    if letter in ("m", "r"):
        return "map" if letter == "m" else "reduce"
    return "reduce" if stage == "reduce" or TASK_LETTERS.get(letter) == "reduce" else "map"


def _peak(starts: np.ndarray, finishes: np.ndarray) -> int:
    """Most intervals open at once; one ending when another starts does not overlap it."""
    if starts.size == 0:
        return 0
    times = np.concatenate([finishes, starts])
    steps = np.concatenate([-np.ones(finishes.size), np.ones(starts.size)])
    order = np.lexsort((steps, times))  # at equal times, finishes (-1) first
    return int(np.cumsum(steps[order]).max())


def observed_slots(attempts: pd.DataFrame) -> ObservedSlots | None:
    """Trackers and per-tracker slot peaks from an observed schedule's attempts.

    None when no attempt names its node. Attempts still running (no finish) count
    as running to the end.
    """
    frame = attempts[attempts["node"].astype(str) != ""]
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
            _peak(starts[mine & (kinds == kind)], finishes[mine & (kinds == kind)])
            for kind in ("map", "reduce")
        )
        per_tracker[node] = (peaks[0], peaks[1])
    return ObservedSlots(
        trackers=len(per_tracker),
        map_slots=max(p[0] for p in per_tracker.values()),
        reduce_slots=max(p[1] for p in per_tracker.values()),
        per_tracker=per_tracker,
    )
