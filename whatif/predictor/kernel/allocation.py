"""Assignment: containers (or slots) handed to apps, on the whole cluster or on one
heartbeating node.

The reference engine's ``reference/allocation.py`` is this module's pure-Python twin; it
follows the same steps.

Allocation (one container). At a parent, candidate children are those with
pending runnable demand in the pass's dimension whose usage fits within their
maxResources; the best untried candidate (by the parent's policy comparator,
scanning children in document order, a later child replacing the best only if it
compares strictly lower) is tried; a parent candidate is descended into, a leaf
candidate tries its apps the same way (apps in the order they became runnable).
An app offers its AM request while its AM is not allocated (subject to
maxAMShare: AM usage + request <= floor(leaf fair share * maxAMShare), a zero fair
share component replaced by min(free, maxShare)), otherwise its released stage with
unassigned tasks of the lowest priority number (ties: lower stage index), and in it
the lowest unassigned task index, else the oldest re-queued (killed/failed) task.
It gets the container if the request fits in the free cluster resources and every
queue from its leaf to the root stays within maxResources; otherwise the next app
or queue is tried, except that on a heartbeating node of Hadoop 2/3 an app whose request
fits its queues and the node's capacity but not its unallocated resources may reserve the
node, which then serves it first (`reservations.py`; not on the whole cluster without
heartbeats, and not in the Capacity Scheduler mode, which books no reservation).

A container or task is assigned only
on a heartbeat of the node it lands on, within that node's free resources: YARN
(FairScheduler.attemptScheduling) assigns one container per heartbeat, or with
assign-multiple until max.assign containers (Hadoop 3 dynamic.max.assign: until the
resources assigned exceed half the node's unallocated resources at the heartbeat's start,
the container that crosses it included); Hadoop 1 on a slot cluster
(FairScheduler.assignTasks) assigns one task per heartbeat, or with assign-multiple up to
the per-type caps (-1: the free slots), choosing maps while the tracker runs no more maps
than reduces (else reduces; a type is dropped once it has no pending task, reached its
cap, was not taken by any pool, or CapBasedLoadManager refuses it: a tracker runs at most
ceil(slots * min(1, (running + pending runnable tasks) / cluster slots)) of a type).

Hadoop 3 with preemption: before that, the apps holding claims on the node (on the cluster
without heartbeats) are offered containers on it first (`claims.py`). Hadoop 1 on a slot
cluster: a tracker with no free slot does not ask for tasks (TaskTracker's
askForNewTask), so neither the JobTracker nor the Fair Scheduler is called (which
matters to delay scheduling: every assignTasks call counts, `locality.py`); else,
before the Fair Scheduler, the JobTracker hands out a job's setup or cleanup task
(`jobtracker.py`); a heartbeat that gets one gets nothing else. A map of a stage whose
tasks carry split locations is taken as Hadoop 1's delay scheduling allows
(`locality.py`).
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.apptree import _retree, _tree_best_fit, _tree_put
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.capacity import (
    _cs_am_ok,
    _cs_best_child,
    _cs_headroom,
    _cs_next_app,
    _cs_user_ok,
)
from whatif.predictor.kernel.capacity_locality import _cs_loc_done, _cs_loc_pick
from whatif.predictor.kernel.claims import _claim_used, _claims_cleanup
from whatif.predictor.kernel.fair_locality import _fl_done, _fl_peek, _fl_pick
from whatif.predictor.kernel.jobtracker import _jt_pick, _jt_refresh, _start_task_cleanup
from whatif.predictor.kernel.locality import _loc_call, _loc_call_end, _loc_launched, _loc_pick
from whatif.predictor.kernel.ordering import _cmp_apps, _compare, _queue_key
from whatif.predictor.kernel.phases import _maps_assigned, _start_attempt
from whatif.predictor.kernel.queues import _am_fits, _avail, _demand, _fits, _fits_max
from whatif.predictor.kernel.requests import (
    _head_task,
    _next_stage,
    _take_head,
    _take_task,
    _tracker_task,
)
from whatif.predictor.kernel.reservations import (
    _booked_fits,
    _claims_on,
    _res_drop,
    _res_head,
    _res_head_big,
    _res_room,
    _res_sized,
    _res_starved,
    _res_valid,
    _reserve,
)
from whatif.predictor.kernel.resources import _loose
from whatif.predictor.kernel.resting import _node_room
from whatif.predictor.pack import RETRY_FIRST
from whatif.predictor.world import prefetch


@kernel_jit
def _has_room(W, d):
    cfg, minreq = W[25], W[27]
    if cfg[S.C_SLOT] != 0.0:
        return _avail(W, d) >= 1.0
    return _avail(W, 0) >= minreq[0] and _avail(W, 1) >= minreq[1]


@kernel_jit
def _allocate(W):
    """Assign containers until nothing more fits (one pass per slot pool on Hadoop 1);
    claims on the cluster (row 0) come first, then Hadoop 1's JobTracker tasks."""
    qf, cfg = W[3], W[25]
    if W[24][S.GI_CLAIM_LIVE] > 0:
        _assign_claimed(W, 0)
    while _assign_jobtracker(W):
        pass
    ndims = 2 if cfg[S.C_SLOT] != 0.0 else 1
    for d in range(ndims):
        while _has_room(W, d) and qf[0, S.QF_PRUN + d] > 0.0:
            if not _assign_one(W, d):
                break


@kernel_jit
def _assign_one(W, d):
    """Descend from the root to one container assignment; False if nothing fits.

    The Capacity Scheduler mode (CapacityScheduler.allocateContainerOnSingleNode,
    ParentQueue.assignContainers) descends by `_cs_best_child` the same way (a parent
    whose children give nothing passes the node to its next sibling); the first container
    ends the pass, and so does a leaf that would reserve the node (`_cs_assign_leaf` 2)."""
    qs, qi, gi = W[0], W[4], W[24]
    cs = W[25][S.C_CS] != 0.0
    gi[S.GI_EPOCH] += 1
    epoch = gi[S.GI_EPOCH]
    q = 0
    while q >= 0:
        if cs:
            best = _cs_best_child(W, q, d, epoch)
        elif qs[q, S.QS_FAIR_POSITIVE] == 1:
            best = _best_child_fair(W, q, d, epoch)
        else:
            best = _best_child(W, q, d, epoch)
        if best < 0:
            qi[q, S.QI_TRIED] = epoch
            q = qs[q, S.QS_PARENT]  # back up and try the parent's next child
            continue
        if qs[best, S.QS_LEAF] == 1:
            r = _cs_assign_leaf(W, best, d) if cs else _assign_leaf(W, best, d)
            if r == 1:
                return True
            if r == 2:
                return False
            qi[best, S.QI_TRIED] = epoch
        else:
            q = best
    return False


@kernel_jit
def _cs_assign_leaf(W, leaf, d):
    """LeafQueue.assignContainers: the leaf's apps in policy order (`_cs_next_app`); an app
    whose user is above its limit (`_cs_user_ok`), whose AM does not fit the AM limits
    (`_cs_am_ok`: in Hadoop the app is not yet active), with nothing to ask in `d`, or
    whose request exceeds the node's total memory is skipped, and so is an app whose located
    map stage may not take this node yet (`capacity_locality._cs_loc_pick`, on a heartbeat).
    The first other app decides: a request above the leaf's headroom ends the leaf
    (QUEUE_LIMIT, 0: the parent offers the next child), one above the node's free memory
    ends the pass (2: Hadoop reserves the node for it; reservations are not modeled:
    nothing is booked), else it is allocated (1). GI_CS_TYPE is left at the container's
    locality (2, off-switch, unless a located stage's pick says otherwise)."""
    qs, jsf, ji, ss, tsf, gi, cluster, nodef = (
        W[0], W[7], W[9], W[12], W[17], W[24], W[26], W[40]
    )  # fmt: skip
    _retree(W)
    fair = qs[leaf, S.QS_POLICY] == 0
    headroom = _cs_headroom(W, leaf)
    n = gi[S.GI_CUR_NODE]
    total = nodef[n, S.NF_CAP] if n >= 0 else cluster[0]
    j = -1
    k0 = -1.0
    k1 = -math.inf
    while True:
        j, k0, k1 = _cs_next_app(W, leaf, d, k0, k1, j, fair)
        if j < 0:
            return 0
        if not _cs_user_ok(W, j, leaf):
            continue
        s = -1
        if ji[j, S.JI_AM_STATE] == 1:
            if not _cs_am_ok(W, j, leaf):
                continue
            r0 = jsf[j, S.JSF_AM]
        else:
            s = _next_stage(W, j, d)
            if s < 0:
                continue
            r0 = tsf[_head_task(W, s), S.TSF_REQ]
        if r0 > headroom:
            return 0
        task = -1
        kind = 2
        if s >= 0 and n >= 0 and ss[s, S.SS_LOC] != 0:
            task, kind = _cs_loc_pick(W, s, n)
            if task < 0:
                continue  # APP_SKIPPED: the node is not local enough yet
            r0 = tsf[task, S.TSF_REQ]
        if r0 > total:
            continue
        if r0 > _avail(W, 0):
            if task >= 0:
                _cs_loc_done(W, s, kind)  # doAllocation runs for a reservation too
            return 2
        if task >= 0:
            return 1 if _cs_try_located(W, j, leaf, s, task, kind) else 0
        gi[S.GI_CS_TYPE] = 2
        return 1 if _try_app(W, j, leaf, d) else 0


@kernel_jit
def _offerable(W, c, d, epoch):
    """Whether child queue `c` can be offered a container of pool `d` in this descent:
    not tried yet, runnable demand in `d`, usage within its maxResources."""
    qsf, qf, qi = W[1], W[3], W[4]
    if qi[c, S.QI_TRIED] == epoch or qf[c, S.QF_PRUN + d] <= 0.0:
        return False
    return qf[c, S.QF_USE] <= qsf[c, S.QSF_MAX] and qf[c, S.QF_USE + 1] <= qsf[c, S.QSF_MAX + 1]


@kernel_jit
def _best_child(W, q, d, epoch):
    """The child of `q` to offer the container to, by the parent's comparator (-1: none);
    children in document order, a later one winning only if it compares strictly lower."""
    qs, children = W[0], W[2]
    policy = qs[q, S.QS_POLICY]
    best = -1
    # the best child's key, read once per child
    ub, db, mb, wb, sb, rb = (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), 0.0, 0.0, 0
    for k in range(qs[q, S.QS_CH_LO], qs[q, S.QS_CH_HI]):
        c = children[k]
        if not _offerable(W, c, d, epoch):
            continue
        uc, dc, mc, wc, sc, rc = _queue_key(W, c, False)
        if best < 0 or _compare(W, policy, d, uc, dc, mc, wc, sc, rc, ub, db, mb, wb, sb, rb) < 0:
            best = c
            ub, db, mb, wb, sb, rb = uc, dc, mc, wc, sc, rc
    return best


@kernel_jit
def _best_child_fair(W, q, d, epoch):
    """`_best_child` for a `fair` parent whose children all weigh more than zero.

    `_compare_fair` then reads as a key compared column by column: a class (Hadoop 3's
    demand-zero rule, then needy first), the needy ratio or usage / weight, then the name
    rank (queues all start at 0). The ratios are finite, so comparing them equals the
    sign of their difference."""
    qs, qsf, children, qf, cfg = W[0], W[1], W[2], W[3], W[25]
    v3 = cfg[S.C_VERSION] == 3.0
    best = -1
    best_cls = 0
    best_ratio = 0.0
    best_rank = 0
    for k in range(qs[q, S.QS_CH_LO], qs[q, S.QS_CH_HI]):
        c = children[k]
        if not _offerable(W, c, d, epoch):
            continue
        u = qf[c, S.QF_USE + d]
        m = qsf[c, S.QSF_MIN + d]
        demand = 0.0
        if qs[c, S.QS_LEAF] == 1:  # `_demand` of a leaf, in `d` only
            demand = min(u + qf[c, S.QF_PALL + d], qsf[c, S.QSF_MAX + d])
        elif v3 or qsf[c, S.QSF_MIN] > 0.0 or qsf[c, S.QSF_MIN + 1] > 0.0:
            demand = _demand(W, c)[d]
        needy_min = min(m, demand)
        needy = u < needy_min
        cls = (2 if v3 and demand == 0.0 else 0) + (0 if needy else 1)
        ratio = u / (max(needy_min, 1.0) if needy else qsf[c, S.QSF_WEIGHT])
        rank = qs[c, S.QS_RANK]
        # which child wins is unpredictable: `&`, `|` and selects, no branches
        wins = (best < 0) | (
            (cls < best_cls)
            | (
                (cls == best_cls)
                & ((ratio < best_ratio) | ((ratio == best_ratio) & (rank < best_rank)))
            )
        )
        best = c if wins else best
        best_cls = cls if wins else best_cls
        best_ratio = ratio if wins else best_ratio
        best_rank = rank if wins else best_rank
    return best


@kernel_jit
def _assign_leaf(W, leaf, d):
    """Offer the container to the leaf's apps in policy order: 1 one took it, 0 none did,
    2 one reserved the node (with reservations on, `_assign_leaf_res`)."""
    if W[25][S.C_RES] != 0.0:
        return _assign_leaf_res(W, leaf, d)
    lim0, lim1 = _fit_limits(W, leaf)
    return _offer_fitting(W, leaf, d, lim0, lim1, -1)


@kernel_jit
def _assign_leaf_res(W, leaf, d):
    """`_assign_leaf` with reservations (`reservations.py`): the first app in order whose
    request fits the node's unallocated resources takes it, unless an app before it whose
    request fits only the node's capacity may reserve the node (2); apps that may not
    are passed over."""
    lim0, lim1 = _fit_limits(W, leaf)
    r = _res_best(W, leaf, d)  # the best app that would reserve the node rather than take it
    found = _offer_fitting(W, leaf, d, lim0, lim1, r)
    if found == 0 and r >= 0 and _res_offer(W, r, leaf):
        found = 2
    return found


@kernel_jit
def _fit_limits(W, leaf):
    """The largest request an app of the leaf could take now: the free resources (with the
    Fair Scheduler's delay scheduling, the node's capability), within every maxResources
    up the tree (the leaf's app trees refreshed first)."""
    qs, qsf, qf = W[0], W[1], W[3]
    _retree(W)
    lim0 = _avail(W, 0)
    lim1 = _avail(W, 1)
    if W[25][S.C_FLOC] != 0.0:
        # delay scheduling: every app the node could hold is offered it (`fair_locality.py`)
        n = W[24][S.GI_CUR_NODE]
        lim0 = W[40][n, S.NF_CAP]
        lim1 = W[40][n, S.NF_CAP + 1]
    q = leaf
    while q >= 0:
        lim0 = min(lim0, _loose(qsf[q, S.QSF_MAX] - qf[q, S.QF_USE]))
        lim1 = min(lim1, _loose(qsf[q, S.QSF_MAX + 1] - qf[q, S.QF_USE + 1]))
        q = qs[q, S.QS_PARENT]
    return lim0, lim1


@kernel_jit
def _offer_fitting(W, leaf, d, lim0, lim1, r):
    """Offer the container to the leaf's apps whose next request is within (lim0, lim1),
    in policy order, until one takes it (1) or app `r` (-1: none) comes first (0)."""
    excl = W[32]
    policy = W[0][leaf, S.QS_POLICY]
    k = 0
    found = 0
    while True:
        best = _tree_best_fit(W, leaf, d, lim0, lim1)
        if best < 0 or best == r or (r >= 0 and _cmp_apps(W, policy, d, r, best, False) < 0):
            break
        if _try_app(W, best, leaf, d):
            found = 1
            break
        _tree_put(W, best, d, -1)
        excl[k] = best
        k += 1
    for i in range(k):
        _tree_put(W, excl[i], d, excl[i])  # a failed offer changes nothing
    return found


@kernel_jit
def _res_best(W, leaf, d):
    """The leaf's best app (policy order) whose next request fits its queues' maxResources
    and the heartbeating node's capacity but not its unallocated resources, and which may
    reserve the node (`_res_offer`); -1 if none: at once on a node whose unallocated
    resources fit every request (C_REQ_MAX), else a scan of the leaf's apps that ask for
    at least the reservation threshold (`apptree._list_big`; `_fit_limits`, called first,
    brought the trees and the list up to date), each tested
    cheapest part first (its reserved nodes and request size before the comparison, its
    starvation test after it, for the same apps as before). A located
    stage under delay scheduling is asked for the container its level would allow now
    (`_res_pick`)."""
    qi, ji, nodef, cfg = W[4], W[9], W[40], W[25]
    n = W[24][S.GI_CUR_NODE]
    if nodef[n, S.NF_FREE] >= cfg[S.C_REQ_MAX] and nodef[n, S.NF_FREE + 1] >= cfg[S.C_REQ_MAX + 1]:
        return -1  # every request fits the node's unallocated resources
    policy = W[0][leaf, S.QS_POLICY]
    floc = cfg[S.C_FLOC] != 0.0  # a located stage's cap depends on its type
    best = -1
    j = qi[leaf, S.QI_BIG_HEAD]
    while j >= 0:
        if floc or ji[j, S.JI_RES] < cfg[S.C_RES_CAP]:
            s, r0, r1 = _res_head_big(W, j, leaf)
            if (
                s > -2
                and (floc or r0 > nodef[n, S.NF_FREE] or r1 > nodef[n, S.NF_FREE + 1])
                and r0 <= nodef[n, S.NF_CAP]
                and r1 <= nodef[n, S.NF_CAP + 1]
                and (floc or _res_sized(W, j, leaf, r0, r1))
                and (best < 0 or _cmp_apps(W, policy, d, j, best, False) < 0)
                and _res_starved(W, j, leaf)
                and _res_offerable(W, j, leaf, n, s, r0, r1)
                and _res_pick(W, j, leaf, s, n, r0, r1, False)[0]
            ):
                best = j
        j = ji[j, S.JI_BIG_NEXT]
    return best


@kernel_jit
def _res_pick(W, j, leaf, s, n, r0, r1, count):
    """Whether app `j`'s next request, of stage `s` (-1: its AM) asking (r0, r1), would
    reserve heartbeating node `n`, and the resources it would book: it does not fit the
    node's unallocated resources, reaches the threshold (`_res_sized`), and the app's
    reserved nodes leave room for one more of its type (`_res_room`). A located stage under
    delay scheduling asks for the container its allowed level picks, that task's request
    (none: it reserves nothing), counting the opportunity if `count`
    (`fair_locality._fl_pick`)."""
    nodef, tsf = W[40], W[17]
    kind = 2
    if s >= 0 and W[25][S.C_FLOC] != 0.0 and W[12][s, S.SS_LOC] != 0:
        task, kind = _fl_pick(W, s, n) if count else _fl_peek(W, s, n)
        if task < 0:
            return False, r0, r1
        r0 = tsf[task, S.TSF_REQ]
        r1 = tsf[task, S.TSF_REQ + 1]
    if r0 <= nodef[n, S.NF_FREE] and r1 <= nodef[n, S.NF_FREE + 1]:
        return False, r0, r1
    return _res_sized(W, j, leaf, r0, r1) and _res_room(W, j, kind, n), r0, r1


@kernel_jit
def _res_offerable(W, j, leaf, n, s, r0, r1):
    """The node's and queues' part of `_res_offer`: maxResources, maxAMShare for a
    waiting AM, no claim on the node (Hadoop 3)."""
    if not _fits_max(W, leaf, r0, r1):
        return False
    if s == -1 and not _am_fits(W, leaf, r0, r1):
        return False
    return W[24][S.GI_CLAIM_LIVE] == 0 or not _claims_on(W, n, j)


@kernel_jit
def _try_app(W, j, leaf, d):
    jsf, ji = W[7], W[9]
    if ji[np.uint64(j), S.JI_AM_STATE] == 1:
        r0 = jsf[j, S.JSF_AM]
        r1 = jsf[j, S.JSF_AM + 1]
        if not _fits(W, leaf, r0, r1):
            return False
        if W[25][S.C_CS] == 0.0 and not _am_fits(W, leaf, r0, r1):
            return False  # the Capacity Scheduler's AM limit is checked in `_cs_assign_leaf`
        _start_attempt(W, j, -1 - j, r0, r1)
        _claim_used(W, j, r0, r1)
        return True
    s = _next_stage(W, j, d)
    if s < 0:
        return False
    return _try_stage(W, j, leaf, s)


@kernel_jit
def _try_stage(W, j, leaf, s):
    """App `j` takes the next task of its stage `s` if it fits (`_try_app`)."""
    ss, si, tsf, ti = W[12], W[14], W[17], W[18]
    us = np.uint64(s)  # unsigned rows: no negative-index wraparound
    n = W[24][S.GI_CUR_NODE]
    if ss[us, S.SS_LOC] != 0 and n >= 0:
        if W[25][S.C_FLOC] != 0.0:
            return _fl_try_located(W, j, leaf, s, n)
        return _try_located(W, j, leaf, s, n)
    if ss[us, S.SS_RETRY] == RETRY_FIRST and n >= 0 and si[us, S.SI_FRONT_N] > 0:
        task = _tracker_task(W, s, n)  # Hadoop 1: not a task that failed on this tracker
        return task >= 0 and _run_task(W, j, leaf, s, task)
    task = _head_task(W, s)
    ut = np.uint64(task)
    r0 = tsf[ut, S.TSF_REQ]
    r1 = tsf[ut, S.TSF_REQ + 1]
    if not _fits(W, leaf, r0, r1):
        return False
    hi = ss[us, S.SS_HI]
    fresh = si[us, S.SI_NEXT] < hi
    _take_head(W, s)
    if fresh:
        # the stage's next tasks: the next head request (read when the app is re-ranked)
        # and the one after (read when it starts)
        if task + 1 < hi:
            prefetch(tsf, task + 1)
        if task + 2 < hi:
            prefetch(tsf, task + 2)
            prefetch(W[16], task + 2)
            prefetch(ti, task + 2)
    _start_attempt(W, j, task, r0, r1)
    _claim_used(W, j, r0, r1)
    _maps_assigned(W, j, s)
    return True


@kernel_jit
def _res_offer(W, j, leaf):
    """App `j`'s next request does not fit the heartbeating node's unallocated resources:
    it reserves the node if it may (`reservations.py`); False if not."""
    n = W[24][S.GI_CUR_NODE]
    s, r0, r1 = _res_head(W, j)
    if s < -1 or not _res_offerable(W, j, leaf, n, s, r0, r1):
        return False
    if not _res_starved(W, j, leaf):
        return False
    ok, b0, b1 = _res_pick(W, j, leaf, s, n, r0, r1, True)
    if ok:
        _reserve(W, n, j, s, b0, b1)
    return ok


@kernel_jit
def _res_turn(W, n):
    """FSAppAttempt.assignReservedContainer on node `n`: False if the reservation was
    dropped as invalid (the node is then scheduled as usual); else the reserved app takes
    its container if the booked resources fit, and nothing else is assigned."""
    if not _res_valid(W, n):
        _res_drop(W, n)
        return False
    if _booked_fits(W, n):
        j = W[41][n, S.NI_RES_APP]
        s = W[41][n, S.NI_RES_STAGE]
        leaf = W[6][j, S.JS_QUEUE]
        if _try_app(W, j, leaf, 0) if s < 0 else _try_stage(W, j, leaf, s):
            _res_drop(W, n)
    return True


@kernel_jit
def _try_located(W, j, leaf, s, n):
    """`_try_app` for a located map stage on tracker `n`: the map delay scheduling allows
    (`locality.py`), which sets the job's locality level once launched."""
    task, level = _loc_pick(W, j, s, n)
    if task < 0 or not _run_task(W, j, leaf, s, task):
        return False
    _loc_launched(W, j, level)
    return True


@kernel_jit
def _fl_try_located(W, j, leaf, s, n):
    """`_try_app` for a located stage under the Fair Scheduler's delay scheduling
    (`fair_locality.py`): a scheduling opportunity where the stage's request fits the
    node's capability and the queues' maxResources (hasContainerForNode), then the task
    its allowed level lets the AM run on node `n`, if it fits."""
    tsf, nodef = W[17], W[40]
    head = _head_task(W, s)
    r0 = tsf[head, S.TSF_REQ]
    r1 = tsf[head, S.TSF_REQ + 1]
    if r0 > nodef[n, S.NF_CAP] or r1 > nodef[n, S.NF_CAP + 1] or not _fits_max(W, leaf, r0, r1):
        return False
    task, kind = _fl_pick(W, s, n)
    if task < 0 or not _run_task(W, j, leaf, s, task):
        return False
    _claim_used(W, j, tsf[task, S.TSF_REQ], tsf[task, S.TSF_REQ + 1])
    _fl_done(W, s, kind)
    return True


@kernel_jit
def _run_task(W, j, leaf, s, task):
    """Start `task` of stage `s` (any of its unassigned tasks, `_take_task`) if it fits
    the queues (False: it does not)."""
    tsf = W[17]
    r0 = tsf[task, S.TSF_REQ]
    r1 = tsf[task, S.TSF_REQ + 1]
    if not _fits(W, leaf, r0, r1):
        return False
    _take_task(W, s, task)
    _start_attempt(W, j, task, r0, r1)
    _maps_assigned(W, j, s)
    return True


@kernel_jit
def _cs_try_located(W, j, leaf, s, task, kind):
    """The Capacity Scheduler's container of type `kind` for `task` of located stage `s`
    (`capacity_locality.py`): the AM runs `task` in it."""
    if not _run_task(W, j, leaf, s, task):
        return False
    _cs_loc_done(W, s, kind)
    return True


@kernel_jit
def _load_ok(W, n, d):
    """Hadoop 1 CapBasedLoadManager: a tracker runs at most
    ceil(slots * min(1, runnable tasks / cluster slots)) tasks of a type."""
    nodef, qf, cluster = W[40], W[3], W[26]
    total = cluster[d]
    if total <= 0.0:
        return False
    runnable = qf[0, S.QF_USE + d] + qf[0, S.QF_PRUN + d]
    cap = math.ceil(nodef[n, S.NF_CAP + d] * min(1.0, runnable / total))
    return nodef[n, S.NF_CAP + d] - nodef[n, S.NF_FREE + d] < cap


@kernel_jit
def _node_allocate(W, n):
    """Assign containers on node `n`'s heartbeat: Hadoop 1 JobTracker.heartbeat on a slot
    cluster (a setup or cleanup task, else FairScheduler.assignTasks), else
    FairScheduler.attemptScheduling."""
    nodef, qf, gi, cfg = W[40], W[3], W[24], W[25]
    gi[S.GI_CUR_NODE] = n
    count = 0
    multi = cfg[S.C_MULTI] != 0.0
    if cfg[S.C_SLOT] != 0.0 and not _node_room(W, n):
        pass  # a full tracker does not ask for tasks (TaskTracker's askForNewTask)
    elif cfg[S.C_SLOT] != 0.0 and _assign_jobtracker(W):
        pass  # the tracker gets its one JobTracker task; the scheduler is not asked
    elif cfg[S.C_SLOT] != 0.0:
        loc = cfg[S.C_LOC] != 0.0
        if loc:
            _loc_call(W)
        cap0 = cfg[S.C_CAP_MAPS] if multi else 1.0
        cap1 = cfg[S.C_CAP_REDS] if multi else 1.0
        assigned0 = 0.0
        assigned1 = 0.0
        rej0 = False
        rej1 = False
        while True:
            if not rej0 and (assigned0 == cap0 or qf[0, S.QF_PRUN] <= 0.0 or not _load_ok(W, n, 0)):
                rej0 = True
            if not rej1 and (
                assigned1 == cap1 or qf[0, S.QF_PRUN + 1] <= 0.0 or not _load_ok(W, n, 1)
            ):
                rej1 = True
            if (rej0 and rej1) or (not multi and count > 0):
                break
            if rej0:
                d = 1
            elif rej1:
                d = 0
            else:
                used0 = nodef[n, S.NF_CAP] - nodef[n, S.NF_FREE]
                used1 = nodef[n, S.NF_CAP + 1] - nodef[n, S.NF_FREE + 1]
                d = 0 if used0 <= used1 else 1
            if _assign_one(W, d):
                count += 1
                if d == 0:
                    assigned0 += 1.0
                else:
                    assigned1 += 1.0
            elif d == 0:
                rej0 = True
            else:
                rej1 = True
        if loc:
            _loc_call_end(W)
    else:
        if gi[S.GI_CLAIM_LIVE] > 0:
            _assign_claimed(W, n)
        res = cfg[S.C_RES] != 0.0
        if res and W[41][n, S.NI_RES_APP] >= 0 and _res_turn(W, n):
            gi[S.GI_CUR_NODE] = -1
            return
        # a node woken to be reserved (`heartbeats._wake_parked_res`) that is not: a change
        unreserved_full = res and W[41][n, S.NI_RES_APP] < 0 and not _has_room(W, 0)
        start0 = nodef[n, S.NF_FREE]
        start1 = nodef[n, S.NF_FREE + 1]
        half0 = math.floor(start0 * 0.5)
        half1 = math.floor(start1 * 0.5)
        cs = cfg[S.C_CS] != 0.0
        offswitch = 0
        # with reservations a node without room may still be reserved: Hadoop loops
        # while the node is not reserved (`_assign_one` is False once it is); with the
        # Fair Scheduler's delay scheduling a pass over a full node counts opportunities
        # (FairScheduler.attemptScheduling asks the queues whatever the node's room)
        floc = cfg[S.C_FLOC] != 0.0
        while (_has_room(W, 0) or res or floc) and qf[0, S.QF_PRUN] > 0.0:
            if not _assign_one(W, 0):
                break
            count += 1
            if not multi:
                break
            if cs and gi[S.GI_CS_TYPE] == 2:
                # CapacityScheduler.canAllocateMore: off-switch containers are capped
                offswitch += 1
                if offswitch >= cfg[S.C_CS_OFFSWITCH]:
                    break
            if cfg[S.C_DYNAMIC] != 0.0:
                if not (
                    start0 - nodef[n, S.NF_FREE] <= half0
                    and start1 - nodef[n, S.NF_FREE + 1] <= half1
                ):
                    break
            elif cfg[S.C_MAX_ASSIGN] > 0.0 and count >= cfg[S.C_MAX_ASSIGN]:
                break
        if unreserved_full and W[41][n, S.NI_RES_APP] < 0:
            gi[S.GI_CHANGED] = 1
    gi[S.GI_CUR_NODE] = -1


@kernel_jit
def _assign_claimed(W, n):
    """FairScheduler.assignPreemptedContainers on node `n` (row 0 and the cluster's free
    resources without heartbeats): after dropping the claims of apps that finished or are
    no longer starved, each app in the node's list takes containers while its claim lasts,
    until one is refused (`claims.py`)."""
    js, nodei, clf, cli = W[6], W[41], W[43], W[44]
    _claims_cleanup(W, n)
    e = nodei[n, S.NI_CL_HEAD]
    while e >= 0:
        nxt = cli[e, S.CL_NEXT]
        j = cli[e, S.CL_APP]
        leaf = js[j, S.JS_QUEUE]
        # a claim brought to zero is dropped from the list (`_claim_used`)
        while _try_app(W, j, leaf, 0) and (clf[e, 0] != 0.0 or clf[e, 1] != 0.0):
            pass
        e = nxt


@kernel_jit
def _assign_jobtracker(W):
    """Hadoop 1 getSetupAndCleanupTasks (`jobtracker.py`): hand out one setup, cleanup or
    task-cleanup attempt on the node heartbeating (or the cluster), in a free map slot,
    else a free reduce slot. False if there is none to hand out or no slot is free."""
    if W[24][S.GI_JT_HEAD] < 0:
        return False
    for d in range(2):
        if _avail(W, d) < 1.0:
            continue
        j, s = _jt_pick(W, d)
        if j < 0:
            continue
        if s < 0:
            _start_task_cleanup(W, j, d)
        else:
            task = _take_head(W, s)
            W[14][s, S.SI_SLOT] = d
            _start_attempt(W, j, task, 1.0 - d, float(d))
        _jt_refresh(W, j)
        return True
    return False
