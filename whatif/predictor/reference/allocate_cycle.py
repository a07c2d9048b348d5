"""The MapReduce ApplicationMaster's allocate cycle (YARN): when the RM sees an app's
requests, and when the app gets the containers the RM allocated to it.

The pure-Python twin of ``whatif/predictor/kernel/allocate_cycle.py`` (which describes
the rules): the same steps with Python objects, on the `ReferenceEngine`'s state (a mixin
of it; see ``loop.py``).
"""

from __future__ import annotations

from whatif.predictor.grid import on_grid
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.state import AM_KILLED, FAILED


class AllocateCycle(EngineState):
    """The AM's allocate calls (twin of ``kernel/allocate_cycle.py``)."""

    def _cycles(self, j: int) -> bool:
        """Whether job `j` talks to the RM on an allocate cycle (an AM, interval > 0)."""
        return self.s.am_heartbeat_interval_s > 0 and bool(self.p.job_has_am[j])

    def _am_call(self, j: int, t: float, at: bool) -> float:
        """Job `j`'s AM's first allocate call after `t` (at or after it with `at`)."""
        return on_grid(self.job_am_t0[j], self.s.am_heartbeat_interval_s, t, at)

    def _reask_call(self, j: int, state: int) -> float:
        """When job `j`'s AM asks again for a task whose attempt ends now in `state` (see
        the kernel's): now, or at a later call."""
        if state == AM_KILLED or not self._cycles(j) or self.job_am_state[j] != 3:
            return self.now
        if state == FAILED:
            return self._am_call(j, self.now, True)
        return self._am_call(j, self._am_call(j, self.now, False), False)

    def _run_start(self, j: int, t: float) -> float:
        """When the work of a task container allocated to job `j` at `t` starts: the AM
        takes it at its next allocate call (with a cycle), then launches it."""
        if self._cycles(j):
            t = self._am_call(j, t, False)
        return t + self.s.container_launch_latency_s
