"""The Capacity Scheduler's delay scheduling: containers for requests naming hosts (a
MapReduce map's split hosts and their racks) placed node-local, rack-local or off-switch
as ``RegularContainerAllocator`` allows.

The reference engine's ``reference/capacity_locality.py`` is this module's pure-Python twin;
it follows the same steps.

A located map stage (its tasks' split hosts are NodeManagers of the cluster, ``locality.py``
of the predictor) is one scheduler key of its app. Each time the app is offered a node for
the stage past the queue and user checks (``RegularContainerAllocator.tryAllocateOnNode``:
``addSchedulingOpportunity``), the stage's missed opportunities grow by one, and then
(``assignContainersOnNode``, ``canAssign``), with N the cluster's nodes
(``getNumClusterNodes``):

- NODE_LOCAL, always, when an unassigned task of the stage has a split on the node: the
  AM runs the stage's lowest such task (``RMContainerAllocator.assignMapsWithLocality``,
  by host first);
- else RACK_LOCAL, when an unassigned task has a split in the node's rack and missed >
  min(N, ``node-locality-delay``) (``getActualNodeLocalityDelay``): the lowest such task;
- else OFF_SWITCH when, with ``rack-locality-additional-delay`` d >= 0, missed > min(N,
  ``node-locality-delay`` + d) (``getActualRackLocalityDelay``), or with d = -1, min(N,
  pending x min((asks - 1) / N, 1)) < missed in Java float arithmetic (``getLocalityWaitFactor``;
  asks: the stage's unique location asks, pending: its unassigned tasks); the AM runs a
  rack-local task if one is unassigned (the RM's type is still OFF_SWITCH), else the
  stage's next task;
- else the app is skipped (APP_SKIPPED): the leaf offers the node to its next app.

A container (or a reservation, `_cs_assign_leaf` 2: ``doAllocation`` runs for both) resets
the missed opportunities when NODE_LOCAL, or RACK_LOCAL with ``rack-locality-full-reset``
(true); OFF_SWITCH keeps them. An app whose requests name no hosts (every AM, reduce and
unlocated stage: ``getUniqueLocationAsks() == 1``) never waits and is placed OFF_SWITCH. Only
OFF_SWITCH containers count toward ``per-node-heartbeat.maximum-offswitch-assignments``
(``CapacityScheduler.allocateContainersToNode``); the type of the pass's container is left
in GI_CS_TYPE. A scheduling opportunity changes what the next heartbeats do, so it counts as
a change for `heartbeats._wake` (every node with room keeps heartbeating while an app waits).
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.locality import _loc_first, _loc_group
from whatif.predictor.kernel.requests import _head_task


@kernel_jit
def _cs_offswitch_ok(W, s, missed):
    """RegularContainerAllocator.canAssign(OFF_SWITCH) for located stage `s`."""
    cfg, ss, si = W[25], W[12], W[14]
    nodes = cfg[S.C_CS_NODES]
    if cfg[S.C_CS_RLAD] > -1.0:
        return missed > min(nodes, cfg[S.C_CS_NLD] + cfg[S.C_CS_RLAD])
    asks = ss[s, S.SS_LOC_ASKS]
    factor = min(np.float32(max(asks - 1, 0)) / np.float32(nodes), np.float32(1.0))
    wait = min(np.float32(nodes), np.float32(si[s, S.SI_PENDING]) * factor)
    return wait < np.float32(missed)


@kernel_jit
def _cs_loc_pick(W, s, n):
    """A scheduling opportunity of located stage `s` on node `n`: the task the AM would
    run and the container's type (0 node-local, 1 rack-local, 2 off-switch), or (-1, -1)
    when the app is skipped."""
    si, cfg = W[14], W[25]
    si[s, S.SI_CS_MISSED] += 1
    missed = si[s, S.SI_CS_MISSED]
    W[24][S.GI_CHANGED] = 1  # the next heartbeats see one more missed opportunity
    task = _loc_first(W, _loc_group(W, s, n))
    if task >= 0:
        return task, 0
    task = _loc_first(W, _loc_group(W, s, W[40].shape[0] + W[49][n]))
    if task >= 0 and missed > min(cfg[S.C_CS_NODES], cfg[S.C_CS_NLD]):
        return task, 1
    if _cs_offswitch_ok(W, s, missed):
        return (task if task >= 0 else _head_task(W, s)), 2
    return -1, -1


@kernel_jit
def _cs_loc_done(W, s, kind):
    """A container (or reservation) of type `kind` for located stage `s`: the missed
    opportunities are reset unless it is off-switch (rack-local: with full reset)."""
    if kind == 0 or (kind == 1 and W[25][S.C_CS_RESET] != 0.0):
        W[14][s, S.SI_CS_MISSED] = 0
    W[24][S.GI_CS_TYPE] = kind
