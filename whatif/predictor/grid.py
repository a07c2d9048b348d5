"""Times on a clock's grid (``phase + k * interval``), one function for both engines.

Node heartbeats and the MapReduce AM's allocate calls happen on such grids. Each time is
computed as ``phase + k * interval`` by this one function, which the kernel compiles
(`kernel.events._on_grid`) and the reference engine calls, so that equal times compare
equal in both.
"""

from __future__ import annotations

import math


def on_grid(phase: float, interval: float, t: float, at: bool) -> float:
    """The first time of the grid ``phase + k * interval`` after `t` (at or after it with
    `at`)."""
    k = math.floor((t - phase) / interval)
    g = phase + k * interval
    while g < t or (g == t and not at):
        k += 1
        g = phase + k * interval
    return g
