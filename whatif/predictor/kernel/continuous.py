"""YARN Fair Scheduler continuous scheduling: a thread that offers every node a container
between heartbeats.

The reference engine's ``reference/continuous.py`` is this module's pure-Python twin; it
follows the same steps.

With ``yarn.scheduler.fair.continuous-scheduling-enabled`` (Hadoop 2.2 to 3, off by
default; deprecated in 3.x) the Fair Scheduler runs ``continuousSchedulingAttempt`` every
``continuous-scheduling-sleep-ms`` (5 ms): it sorts the nodes by unallocated memory,
most first (``nodeAvailableResourceComparator`` under the memory-only
``DefaultResourceCalculator``; ties keep node order here, where Hadoop's order is its node
map's), and calls ``attemptScheduling`` on each node with room for the minimum allocation:
the same assignment a heartbeat makes (claims first on Hadoop 3, then one container, or
several with assign-multiple). Node heartbeats still report finished containers; on
Hadoop 3 (and 2.9+) a heartbeat also calls ``attemptScheduling``, while Hadoop 2 before
2.9 (``hadoop_version=2``) does so only on a heartbeat that reported a finished container
(``FairScheduler.nodeUpdate``).

Passes fall on the grid ``k * sleep``; the pass at a grid time comes after the heartbeats
at that time. A pass runs at the first grid time at or after an event time at which
something an allocation depends on changed while runnable demand is pending (at that
time itself when it is on the grid), so passes that would find what the last one found,
nothing, are skipped (as heartbeats are, ``heartbeats.py``). Needs nodes: without them every event time already
assigns everything that fits.
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.allocation import _node_allocate
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.events import _grid_after, _grid_at_or_after, heap_push
from whatif.predictor.kernel.resting import _node_room


@kernel_jit
def _continuous_pass(W):
    """One `continuousSchedulingAttempt`: every node with room, most unallocated memory
    first, gets `attemptScheduling`."""
    nodef = W[40]
    order = np.argsort(-nodef[:, S.NF_FREE], kind="mergesort")
    for i in range(order.shape[0]):
        n = order[i]
        if _node_room(W, n):
            _node_allocate(W, n)


@kernel_jit
def _pass_now(W, t):
    """After the heartbeats at event time `t`: whether the pass at `t` is due, `t` being
    on the grid, something having changed and runnable demand pending."""
    gi, qf, cfg = W[24], W[3], W[25]
    if gi[S.GI_CHANGED] == 0 or qf[0, S.QF_PRUN] <= 0.0:
        return False
    return _grid_at_or_after(t, cfg[S.C_CONT_SLEEP]) == t


@kernel_jit
def _schedule_pass(W, t):
    """After event time `t`: the next pass, at the first grid time after `t`, if none is
    scheduled, something changed and runnable demand is pending."""
    gf, gi, qf, cfg = W[23], W[24], W[3], W[25]
    if gf[S.G_CONT] != S.INF or gi[S.GI_CHANGED] == 0 or qf[0, S.QF_PRUN] <= 0.0:
        return
    g = _grid_after(t, cfg[S.C_CONT_SLEEP])
    gf[S.G_CONT] = g
    heap_push(W[21], W[22], gi, g, S.CONTINUOUS, 0, -1, 0)
