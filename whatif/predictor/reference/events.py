"""The event queue (a heap of (time, sequence) events) and the clock's grids and
timeouts.

The pure-Python twin of ``whatif/predictor/kernel/events.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

import heapq
import math

from whatif.predictor.reference.protocol import EngineState


def _expired(waited: float, timeout: float) -> bool:
    """Whether a Hadoop 1/2 starvation timer acts: once strictly past the timeout
    (Hadoop 1 tasksToPreempt, Hadoop 2 resToPreempt: curTime - lastTime > timeout)."""
    return waited > timeout


def _grid_at_or_after(x: float, interval: float) -> float:
    k = math.floor(x / interval)
    g = k * interval
    return g if g >= x else (k + 1) * interval


def _grid_after(x: float, interval: float) -> float:
    k = math.floor(x / interval)
    g = k * interval
    return g if g > x else (k + 1) * interval


class Events(EngineState):
    """The event queue (twin of ``kernel/events.py``)."""

    def _push(self, time: float, kind: int, ident: int) -> None:
        heapq.heappush(self.heap, (time, self.seq, kind, ident))
        self.seq += 1
