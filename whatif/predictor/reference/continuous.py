"""YARN Fair Scheduler continuous scheduling: a thread that offers every node a container
between heartbeats.

The pure-Python twin of ``whatif/predictor/kernel/continuous.py`` (which describes the
rules): the same steps with Python objects, on the `ReferenceEngine`'s state (a mixin of
it; see ``loop.py``).
"""

from __future__ import annotations

from whatif.predictor.reference.events import _grid_after, _grid_at_or_after
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.state import CONTINUOUS, INF


class Continuous(EngineState):
    """Continuous scheduling passes (twin of ``kernel/continuous.py``)."""

    def _continuous_pass(self) -> None:
        """Every node with room, most unallocated memory first (ties in node order), gets
        `attemptScheduling`."""
        order = sorted(range(self.nn), key=lambda n: -self.node_free[n, 0])
        for n in order:
            if self._node_room(n):
                self._node_allocate(n)

    def _pass_now(self, t: float) -> bool:
        """After the heartbeats at event time `t`: whether the pass at `t` is due, `t` being
        on the grid, something having changed and runnable demand pending."""
        if not self.changed or self.q_pend_run[0, 0] <= 0:
            return False
        return _grid_at_or_after(t, self.s.continuous_scheduling_sleep_s) == t

    def _schedule_pass(self, t: float) -> None:
        """The next pass at the first grid time after `t`, if none is scheduled, something
        changed and runnable demand is pending."""
        if self.next_pass != INF or not self.changed or self.q_pend_run[0, 0] <= 0:
            return
        g = _grid_after(t, self.s.continuous_scheduling_sleep_s)
        self.next_pass: float = g
        self._push(g, CONTINUOUS, 0)
