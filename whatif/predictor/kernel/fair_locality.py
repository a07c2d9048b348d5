"""The Fair Scheduler's delay scheduling on YARN: containers for requests naming hosts (a
MapReduce map's split hosts and their racks) placed node-local, rack-local or off-switch
as FSAppAttempt allows, by counting scheduling opportunities.

The reference engine's ``reference/fair_locality.py`` is this module's pure-Python twin;
it follows the same steps.

A located map stage (its tasks' split hosts are NodeManagers of the cluster, ``locality.py``
of the predictor) is one scheduler key of its app. Each time a leaf offers a node to the
app and the stage is the app's next request (FSAppAttempt.assignContainer), if the
stage's request fits the node's total capability and the queues' maxResources
(hasContainerForNode, fitsInMaxShare), the stage gets a scheduling opportunity
(addSchedulingOpportunity) and its allowed level is read (getAllowedLocalityLevel, with N
the cluster's nodes and the thresholds as Java floats capped at 1): NODE_LOCAL the first
time; from NODE_LOCAL, RACK_LOCAL once the opportunities exceed N x the node threshold,
and from RACK_LOCAL, OFF_SWITCH once they exceed N x the rack threshold, the count
starting again at 0 at each step. Then:

- NODE_LOCAL, always, when an unassigned task of the stage has a split on the node: the
  AM runs the stage's lowest such task (``RMContainerAllocator.assignMapsWithLocality``);
- else RACK_LOCAL when one has a split in the node's rack and the level allows it;
- else OFF_SWITCH when the level is OFF_SWITCH (the stage asks for hosts, so
  getUniqueLocationAsks > 1): the stage's next task;
- else nothing: the app is passed over and the leaf offers the node to its next app.

A container of a type more local than the allowed level brings the level back to it
(FSAppAttempt.allocate: resetAllowedLocalityLevel); the count is reset only when the level
relaxes. The opportunity counts even when the container then does not fit the node's
unallocated resources, so with delay scheduling the leaf offers the node to every app
whose request fits the node's capability (`allocation._offer_fitting`), as
FSLeafQueue.assignContainer does, not only to those it has room for, and a full node's
heartbeat asks the queues too (FairScheduler.attemptScheduling, `heartbeats.py`). With
node reservations on, a container of the type picked that does not fit the node's
unallocated resources reserves the node as any request does (FSAppAttempt.assignContainer,
`allocation._res_offer`), capped by type (reservationExceedsThreshold,
`reservations._res_room`): node-local not at all, rack-local by the app's reservations in
the node's rack, off-switch by all its reservations; at the reserved node's heartbeats
the stage counts an opportunity and takes the container its level then allows, if any
(the reservation stays until then). A scheduling opportunity changes what the next
heartbeats do, so it counts as a change for `heartbeats._wake`.
"""

from __future__ import annotations

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.locality import _loc_first, _loc_group
from whatif.predictor.kernel.requests import _head_task


@kernel_jit
def _fl_level_at(W, s, opp):
    """FSAppAttempt.getAllowedLocalityLevel for located stage `s` with `opp` opportunities
    counted: the level (0 node-local, 1 rack-local, 2 off-switch) and whether it relaxes
    there, past its threshold (which resets the count)."""
    si, cfg = W[14], W[25]
    level = si[s, S.SI_FLOC_LEVEL]
    if level < 0:
        return 0, False
    if level >= 2:
        return 2, False
    threshold = cfg[S.C_FLOC_NODE] if level == 0 else cfg[S.C_FLOC_RACK]
    if opp > cfg[S.C_FLOC_NODES] * threshold:
        return level + 1, True
    return level, False


@kernel_jit
def _fl_level(W, s):
    """`_fl_level_at` the stage's count, kept: its allowed level from now on."""
    si = W[14]
    level, relaxed = _fl_level_at(W, s, si[s, S.SI_FLOC_OPP])
    si[s, S.SI_FLOC_LEVEL] = level
    if relaxed:
        si[s, S.SI_FLOC_OPP] = 0
    return level


@kernel_jit
def _fl_pick(W, s, n):
    """A scheduling opportunity of located stage `s` on node `n`: the task the AM would run
    and the container's type (0 node-local, 1 rack-local, 2 off-switch), or (-1, -1)."""
    W[14][s, S.SI_FLOC_OPP] += 1
    W[24][S.GI_CHANGED] = 1  # the next heartbeats see one more opportunity
    return _fl_choose(W, s, n, _fl_level(W, s))


@kernel_jit
def _fl_peek(W, s, n):
    """What `_fl_pick` would answer, without counting the opportunity."""
    level, _ = _fl_level_at(W, s, W[14][s, S.SI_FLOC_OPP] + 1)
    return _fl_choose(W, s, n, level)


@kernel_jit
def _fl_choose(W, s, n, level):
    """The task of located stage `s` that a container on node `n` would run at allowed
    level `level`, and the container's type, or (-1, -1)."""
    task = _loc_first(W, _loc_group(W, s, n))
    if task >= 0:
        return task, 0
    task = _loc_first(W, _loc_group(W, s, W[40].shape[0] + W[49][n]))
    if task >= 0 and level >= 1:
        return task, 1
    if level == 2:
        return _head_task(W, s), 2
    return -1, -1


@kernel_jit
def _fl_done(W, s, kind):
    """FSAppAttempt.allocate: a container of type `kind` more local than stage `s`'s
    allowed level brings the level back to it."""
    si = W[14]
    if kind < si[s, S.SI_FLOC_LEVEL]:
        si[s, S.SI_FLOC_LEVEL] = kind
