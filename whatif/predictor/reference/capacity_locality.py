"""The Capacity Scheduler's delay scheduling: located map stages placed node-local,
rack-local or off-switch as ``RegularContainerAllocator`` allows.

The pure-Python twin of ``whatif/predictor/kernel/capacity_locality.py`` (which describes
the rules): the same steps with Python objects, on the `ReferenceEngine`'s state (a mixin
of it; see ``loop.py``).
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.pack import Packed
from whatif.predictor.reference.protocol import EngineState


class CapacityLocality(EngineState):
    """Missed scheduling opportunities per located stage (twin of ``kernel/capacity_locality.py``)."""

    def init_capacity_locality(self, p: Packed) -> None:
        """Each stage's unique location asks and missed opportunities, and the pass's type."""
        ns = len(p.stage_task_start)
        loc = p.locality
        self.stage_asks = [0] * ns if loc is None else [int(x) for x in loc.stage_asks]
        self.stage_missed = [0] * ns
        self.cs_type = 2

    def _cs_offswitch_ok(self, s: int, missed: int) -> bool:
        """RegularContainerAllocator.canAssign(OFF_SWITCH) for located stage `s`."""
        c = self.q.capacity
        assert c is not None
        nodes = self.nn
        if c.rack_locality_additional_delay > -1:
            return missed > min(nodes, c.node_locality_delay + c.rack_locality_additional_delay)
        factor = min(
            np.float32(max(self.stage_asks[s] - 1, 0)) / np.float32(nodes), np.float32(1.0)
        )
        wait = min(np.float32(nodes), np.float32(self.stage_pending[s]) * factor)
        return bool(wait < np.float32(missed))

    def _cs_loc_pick(self, s: int, n: int) -> tuple[int, int]:
        """A scheduling opportunity of located stage `s` on node `n`: (task, type) or (-1, -1)."""
        c = self.q.capacity
        assert c is not None
        self.stage_missed[s] += 1
        missed = self.stage_missed[s]
        self.changed = True  # the next heartbeats see one more missed opportunity
        task = self._loc_first(s, n)
        if task >= 0:
            return task, 0
        task = self._loc_first(s, self.nn + self.node_rack[n])
        if task >= 0 and missed > min(self.nn, c.node_locality_delay):
            return task, 1
        if self._cs_offswitch_ok(s, missed):
            return (task if task >= 0 else self._head(s)), 2
        return -1, -1

    def _cs_loc_done(self, s: int, kind: int) -> None:
        """A container (or reservation) of type `kind`: reset unless off-switch."""
        c = self.q.capacity
        assert c is not None
        if kind == 0 or (kind == 1 and c.rack_locality_full_reset):
            self.stage_missed[s] = 0
        self.cs_type = kind

    def _cs_try_located(self, j: int, leaf: int, s: int, task: int, kind: int) -> bool:
        """The container of type `kind` for `task` of located stage `s`."""
        if not self._run_task(j, leaf, s, task):
            return False
        self._cs_loc_done(s, kind)
        return True
