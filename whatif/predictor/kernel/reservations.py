"""Hadoop 2/3 Fair Scheduler node reservations: a node whose heartbeat's chosen app asks
for a container that does not fit its unallocated resources is reserved for that app, and
serves nobody else until the reservation is fulfilled or dropped.

The reference engine's ``reference/reservations.py`` is this module's pure-Python twin; it
follows the same steps.

Reservations (Hadoop 2.8 and 3.x source; docs/predictor.md, "Reservations (Hadoop 2/3)").
At a node's update (FairScheduler.attemptScheduling: its heartbeat or a continuous
scheduling pass; never without heartbeats, where the cluster is one pool and there are no
nodes to reserve), after Hadoop 3's claims (`claims.py`), a reserved node first offers
itself to its reserved app (FSAppAttempt.assignReservedContainer):

- the reservation is dropped (and the node then scheduled as usual) when it is no longer
  valid (isValidReservation: the app has finished, or has no outstanding request of the
  reserved priority, here the reserved stage (or the AM) has no unassigned task the
  scheduler sees, or that request no longer fits its queues' maxResources
  (hasContainerForNode, fitsInMaxShare), or its AM is waiting and over maxAMShare
  (isOverAMShareLimit));
- else, if the booked resources fit the node's unallocated resources, the app takes the
  next task of the reserved stage (or its AM) there and the reservation is dropped; and
  either way nothing else is assigned on that update.

An unreserved node is scheduled as before, except that the loop runs while the node is not
reserved (`while (node.getReservedContainer() == null)`), room or not: the first app the
descent offers the node to whose next request fits its queues' maxResources and the node's
total capability, and whose waiting AM fits maxAMShare, takes it if it fits the node's
unallocated resources; otherwise it reserves the node when the request is reservable
(FSAppAttempt.assignContainer, isReservable, reserve): at least
``yarn.scheduler.reservation-threshold.increment-multiple`` times the increment allocation
under the leaf's resource calculator (memory for fair and fifo leaves, dominant share for
drf), the app holds fewer than ``ceil(nodes * yarn.scheduler.fair.reservable-nodes)``
reserved nodes (reservationExceedsThreshold, for an off-switch request; a located
stage's under delay scheduling is capped by its type, `_res_room`), and on
Hadoop 3 it is starved (isStarved: usage below its fair share, or a min-share starvation
from its last check) and claims nothing on the node (isPreemptedForApp). A reservation ends
the node's update; otherwise the next app is tried. Reserved resources count in no app's or
queue's usage or demand (getCurrentConsumption is the allocated containers only), so fair
shares, ordering and preemption do not see them.

Heartbeats that would do nothing are still skipped (`heartbeats.py`): with reservations on
(`C_RES`: heartbeats, Hadoop 2/3 without the Capacity Scheduler, and some request at least
the threshold) a node without a heartbeat scheduled stays parked even without room; a
reserved node wants a heartbeat when its reservation is invalid or the booked resources
fit; an unreserved node when it has room for pending demand, or, without room, when apps
could still reserve nodes (`_res_slots`, counted once per settling pass and only as far
as needed: it leaves out node capacity and claims): of the parked ones only as many as there are such slots, the
earliest heartbeats first (`heartbeats._wake_parked_res`), and one that then finds nothing
is a change. Dropping a reservation, a claim or a change of min-share starvation is a
change too.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.apptree import _retree
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.fairshare import _app_fair, _app_shares
from whatif.predictor.kernel.queues import _am_fits, _fits_max
from whatif.predictor.kernel.requests import _head_task, _next_stage
from whatif.predictor.kernel.resources import _below, res_compare
from whatif.predictor.kernel.resting import _park_again


@kernel_jit
def _res_head(W, j):
    """App `j`'s next request in the memory pool: (stage, memory, vcores), stage -1 for its
    AM, -2 when it asks for nothing (or is not runnable)."""
    return _res_head_big(W, j, -1)


@kernel_jit
def _res_head_big(W, j, leaf):
    """`_res_head` for apps that may reserve in `leaf` (-1: any request): also -2 for a
    stage whose largest task request is below the threshold under a leaf policy comparing
    memory (`_res_sized` fails for any of its requests), without reading its head task."""
    jsf, ji, tsf, cfg = W[7], W[9], W[17], W[25]
    if ji[j, S.JI_STATE] != 2:
        return -2, 0.0, 0.0
    if ji[j, S.JI_AM_STATE] == 1:
        return -1, jsf[j, S.JSF_AM], jsf[j, S.JSF_AM + 1]
    s = _next_stage(W, j, 0)
    if s < 0:
        return -2, 0.0, 0.0
    if leaf >= 0 and W[0][leaf, S.QS_POLICY] != 2 and W[13][s, S.SSF_MAX] < cfg[S.C_RES_THR]:
        return -2, 0.0, 0.0
    t = _head_task(W, s)
    return s, tsf[t, S.TSF_REQ], tsf[t, S.TSF_REQ + 1]


@kernel_jit
def _starved(W, j, leaf):
    """FSAppAttempt.isStarved: a min-share starvation from its last check, or usage below
    its fair share now."""
    jf = W[8]
    if jf[j, S.JF_MSTARV] != 0.0 or jf[j, S.JF_MSTARV + 1] != 0.0:
        return True
    _app_shares(W, leaf)
    return _below(
        W, W[0][leaf, S.QS_POLICY], jf[j, S.JF_USE], jf[j, S.JF_USE + 1], _app_fair(W, j, 0),
        _app_fair(W, j, 1),
    )  # fmt: skip


@kernel_jit
def _claims_on(W, n, j):
    """FSSchedulerNode.isPreemptedForApp: app `j` claims resources on node `n`."""
    if W[9][j, S.JI_CLAIMS] == 0:
        return False
    cli = W[44]
    e = W[41][n, S.NI_CL_HEAD]
    while e >= 0:
        if cli[e, S.CL_APP] == j:
            return True
        e = cli[e, S.CL_NEXT]
    return False


@kernel_jit
def _res_sized(W, j, leaf, r0, r1):
    """isReservable's cheap part: the request at least the threshold (the cap on the
    app's reserved nodes is `_res_room`'s)."""
    cfg, cluster = W[25], W[26]
    policy = W[0][leaf, S.QS_POLICY]
    thr0 = cfg[S.C_RES_THR]
    thr1 = cfg[S.C_RES_THR + 1]
    return res_compare(policy, r0, r1, thr0, thr1, cluster[0], cluster[1]) >= 0


@kernel_jit
def _res_starved(W, j, leaf):
    """isReservable's last part: starved on Hadoop 3 (`_starved`, which may bring the
    leaf's app shares up to date), any app on Hadoop 2."""
    return W[25][S.C_VERSION] != 3.0 or _starved(W, j, leaf)


@kernel_jit
def _res_room(W, j, kind, n):
    """Not FSAppAttempt.reservationExceedsThreshold: app `j` may reserve node `n` for a
    container of type `kind` (0 node-local, 1 rack-local, 2 off-switch). Node-local
    reservations are not capped; rack-local ones count the app's reserved nodes in `n`'s
    rack against `_allowed` of the rack's nodes, off-switch ones all its reserved nodes
    against `_allowed` of the cluster's (C_RES_CAP)."""
    if kind == 0:
        return True
    if kind == 2:
        return W[9][j, S.JI_RES] < W[25][S.C_RES_CAP]
    rack, nodei = W[49], W[41]
    nodes = 0
    held = 0
    for m in range(rack.shape[0]):
        if rack[m] == rack[n]:
            nodes += 1
            if nodei[m, S.NI_RES_APP] == j:
                held += 1
    return held < _allowed(nodes, W[25][S.C_RES_RATIO])


@kernel_jit
def _allowed(nodes, ratio):
    """``(int) Math.ceil(nodes * ratio)`` in Java float arithmetic (`nodes.allowed_reservations`)."""
    return math.ceil(np.float32(nodes) * np.float32(ratio))


@kernel_jit
def _reserve(W, n, j, s, r0, r1):
    """FSAppAttempt.reserve / FSSchedulerNode.reserveResource: node `n` reserved for app
    `j`'s stage `s` (-1: its AM), booking (r0, r1)."""
    nodef, nodei, gi = W[40], W[41], W[24]
    nodei[n, S.NI_RES_APP] = j
    nodei[n, S.NI_RES_STAGE] = s
    nodef[n, S.NF_RES] = r0
    nodef[n, S.NF_RES + 1] = r1
    W[9][j, S.JI_RES] += 1
    gi[S.GI_RES_MADE] += 1
    _park_again(W, n)


@kernel_jit
def _res_drop(W, n):
    """FSAppAttempt.unreserve: node `n` is no longer reserved (its app may reserve another
    node now: a change)."""
    nodei = W[41]
    j = nodei[n, S.NI_RES_APP]
    W[9][j, S.JI_RES] -= 1
    nodei[n, S.NI_RES_APP] = -1
    nodei[n, S.NI_RES_STAGE] = -1
    W[24][S.GI_CHANGED] = 1
    _park_again(W, n)


@kernel_jit
def _stage_asks(W, s):
    """The stage's tasks are requested: released to the scheduler, not held, unassigned."""
    si = W[14]
    if si[s, S.SI_RELEASED] != 1 or si[s, S.SI_HELD] != 0 or si[s, S.SI_ASKED] == 0:
        return False
    return si[s, S.SI_PENDING] > 0


@kernel_jit
def _res_valid(W, n):
    """FSAppAttempt.isValidReservation for node `n`'s reservation."""
    ji, nodei = W[9], W[41]
    j = nodei[n, S.NI_RES_APP]
    s = nodei[n, S.NI_RES_STAGE]
    if ji[j, S.JI_STATE] != 2:
        return False
    leaf = W[6][j, S.JS_QUEUE]
    if s < 0:
        if ji[j, S.JI_AM_STATE] != 1:
            return False
        r0 = W[7][j, S.JSF_AM]
        r1 = W[7][j, S.JSF_AM + 1]
        return _fits_max(W, leaf, r0, r1) and _am_fits(W, leaf, r0, r1)
    if ji[j, S.JI_AM_STATE] == 1 or not _stage_asks(W, s):
        return False
    t = _head_task(W, s)
    return _fits_max(W, leaf, W[17][t, S.TSF_REQ], W[17][t, S.TSF_REQ + 1])


@kernel_jit
def _booked_fits(W, n):
    nodef = W[40]
    return (
        nodef[n, S.NF_FREE] >= nodef[n, S.NF_RES]
        and nodef[n, S.NF_FREE + 1] >= nodef[n, S.NF_RES + 1]
    )


@kernel_jit
def _res_slots(W, need):
    """How many more nodes runnable apps could reserve now: over the apps that may
    reserve (isReservable: `_res_sized`, `_res_starved`; their request within their
    queues' maxResources, a waiting AM
    within maxAMShare), the nodes each may still hold reserved. A scan of every leaf's
    apps that ask for at least the reservation threshold (`apptree._list_big`, with the
    trees brought up to date first); node capacity and claims are left out (an upper bound).

    The scan stops once the count reaches `need` (the callers only compare it with what
    they need) and the next call in the same settling pass resumes it where it stopped
    (GI_RES_LEAF, GI_RES_NEXT; `heartbeats._res_scan` starts it over): the apps' state
    does not change in a settling pass, so the count is the full scan's whenever it is
    below `need`. Each app is tested cheapest part first (its reserved nodes, then its
    request's size, then whether it is starved), the starvation test for the same apps as
    `allocation._res_offer` tests it."""
    qs, qi, ji, gi, cfg = W[0], W[4], W[9], W[24], W[25]
    _retree(W)  # the lists of apps that may reserve are brought up to date with the trees
    cap = cfg[S.C_RES_CAP]
    total = gi[S.GI_RES_ANY]
    leaf = gi[S.GI_RES_LEAF]
    j = gi[S.GI_RES_NEXT]
    while total < need:
        if j < 0:
            leaf += 1
            if leaf >= qs.shape[0]:
                break
            if qs[leaf, S.QS_LEAF] == 1:
                j = qi[leaf, S.QI_BIG_HEAD]
            continue
        if ji[j, S.JI_RES] < cap:
            s, r0, r1 = _res_head_big(W, j, leaf)
            if (
                s > -2
                and _res_sized(W, j, leaf, r0, r1)
                and _res_starved(W, j, leaf)
                and _fits_max(W, leaf, r0, r1)
                and (s >= 0 or _am_fits(W, leaf, r0, r1))
            ):
                total += int(cap) - ji[j, S.JI_RES]
        j = ji[j, S.JI_BIG_NEXT]
    gi[S.GI_RES_ANY] = total
    gi[S.GI_RES_LEAF] = leaf
    gi[S.GI_RES_NEXT] = j
    return total
