"""Node heartbeats: each node's grid, when a node's next heartbeat is scheduled, and
when a finished attempt is reported.

The reference engine's ``reference/heartbeats.py`` is this module's pure-Python twin; it
follows the same steps.

Heartbeats (when the packed cluster has nodes, ``nodes.py``). Node ``i`` of ``n``
heartbeats on the grid ``i * interval / n + k * interval`` (computed as phase + k *
interval everywhere, so equal times compare equal). A task attempt that ends at ``e``
(success or noise failure) has its end event at its node's first heartbeat strictly
after ``e``, where it is reported: its resources come back and its job moves on then
(stage completion, slowstart, job end), and the attempt's recorded finish is ``e``.
Kills (preemption, reduce ramp-down) and an AM's release at its job's end free resources
at once.

Heartbeats that would assign nothing are not simulated: after each event time, a node
without a heartbeat scheduled gets its next one (strictly after ``t``) when it has room
for the smallest request, there is runnable pending demand, and either it heartbeated or
had resources freed at ``t`` and something an allocation depends on changed, or it is
parked (room, nothing scheduled) and anything changed (an allocation, a release, pending
demand, runnable apps, a new queue tree); otherwise it is parked while it has room.
Before the first allocation at a time ``t``, a node without a heartbeat scheduled whose
grid has ``t`` heartbeats at ``t`` under the same conditions (the events at ``t`` come
before the heartbeats' assignments). This gives exactly the schedule of every node
heartbeating on its whole grid (a test compares them), except in a run that livelocks:
there each simulated heartbeat is an event and a preemption check follows it, so the
livelock search, which counts checks, stops the run at another time. The MapReduce AM's
reduce ramp-down runs once per iteration then, and what it frees is assigned at the next
heartbeats. Without heartbeats (no nodes, or switched off), the loop's step 4 allocates
on the whole cluster at every event time. With the Fair Scheduler's delay scheduling
(`fair_locality.py`) a node's heartbeat may count scheduling opportunities whatever its
room (FairScheduler.attemptScheduling asks the queues on every heartbeat), so while there
is runnable pending demand every unreserved node wants its heartbeats, full ones too;
one that counted nothing is a heartbeat like any other that found nothing.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.claims import _claimed_demand
from whatif.predictor.kernel.events import _on_grid, heap_push
from whatif.predictor.kernel.reservations import _booked_fits, _res_slots, _res_valid
from whatif.predictor.kernel.resting import _may_rest, _node_room, _park, _rest


@kernel_jit
def _next_heartbeat(W, n, t, at):
    """Node `n`'s first heartbeat after `t`, or at or after it with `at`
    (`nodes.next_heartbeat`: phase + k * interval, so equal times compare equal)."""
    interval = W[25][S.C_HB_INTERVAL]
    return _on_grid(n * interval / W[40].shape[0], interval, t, at)


@kernel_jit
def _on_grid_now(W, n, t):
    """Whether node `n`'s heartbeat grid has `t` (`_next_heartbeat(W, n, t, True) == t`):
    its first grid time at or after the last time asked (NF_GRID) is also the first at or
    after `t` while it is not before `t`, as times only grow."""
    nodef = W[40]
    if nodef[n, S.NF_GRID] < t:
        nodef[n, S.NF_GRID] = _next_heartbeat(W, n, t, True)
    return nodef[n, S.NF_GRID] == t


@kernel_jit
def _push_end(W, a, time, task, j):
    """The end event of attempt `a`, which ends at `time`: with heartbeats its node reports
    it (and frees its resources) at its next heartbeat."""
    lf, li = W[52], W[51]
    live = W[20][a, S.AI_LIVE]
    n = li[live, S.LI_NODE]
    if n >= 0:
        lf[live, S.LF_END] = time
        time = _next_heartbeat(W, n, time, False)
        lf[live, S.LF_DUE] = time
    heap_push(W[21], W[22], W[24], time, S.END, a, task, j)


@kernel_jit
def _touch_node(W, n):
    """List node `n` as touched now (heartbeating or freed), once."""
    nodei, nlist, gi = W[41], W[42], W[24]
    if nodei[n, S.NI_TOUCH] != gi[S.GI_ITER]:
        nodei[n, S.NI_TOUCH] = gi[S.GI_ITER]
        nlist[W[40].shape[0] + gi[S.GI_TOUCH_N]] = n
        gi[S.GI_TOUCH_N] += 1


@kernel_jit
def _beat(W, n):
    """Node `n` heartbeats now: it is offered containers after this time's events (a
    resting node is parked: an allocation may change its reservation, `resting.py`)."""
    nodei, nlist, gi = W[41], W[42], W[24]
    if nodei[n, S.NI_PARK] == S.REST:
        _park(W, n, True)
    if nodei[n, S.NI_BEAT] != gi[S.GI_ITER]:
        nodei[n, S.NI_BEAT] = gi[S.GI_ITER]
        nlist[gi[S.GI_BEAT_N]] = n
        gi[S.GI_BEAT_N] += 1
    _touch_node(W, n)


@kernel_jit
def _node_wants(W, n):
    """Whether node `n` has room for some runnable pending demand (or, Hadoop 1, a free
    slot for a JobTracker task, or any free slot while a job waits for a local map: its
    wait grows at every tracker's assignTasks call, `locality.py`)."""
    nodef, qf, cfg = W[40], W[3], W[25]
    if cfg[S.C_SLOT] != 0.0:
        return (
            (nodef[n, S.NF_FREE] >= 1.0 and qf[0, S.QF_PRUN] > 0.0)
            or (nodef[n, S.NF_FREE + 1] >= 1.0 and qf[0, S.QF_PRUN + 1] > 0.0)
            or (W[24][S.GI_JT_HEAD] >= 0 and _node_room(W, n))
            or (W[24][S.GI_LSKIP_N] > 0 and _node_room(W, n))
        )
    if cfg[S.C_FLOC] != 0.0 and qf[0, S.QF_PRUN] > 0.0 and W[41][n, S.NI_RES_APP] < 0:
        return True  # room or not, its heartbeat may count opportunities (`fair_locality.py`)
    if cfg[S.C_RES] != 0.0:
        return _res_wants(W, n)
    return _node_room(W, n) and qf[0, S.QF_PRUN] > 0.0


@kernel_jit
def _res_wants(W, n):
    """`_node_wants` with reservations (`reservations.py`): a reserved node when its
    reservation is to be dropped, the booked resources fit, or it has room for an app with
    a claim on it (`claims._claimed_demand`: claims come before the reservation); another
    when it has room for pending demand or some app could reserve a node (`_res_open`)."""
    if W[41][n, S.NI_RES_APP] >= 0:
        claimed = _node_room(W, n) and _claimed_demand(W, n)
        return _booked_fits(W, n) or not _res_valid_now(W, n) or claimed
    if W[3][0, S.QF_PRUN] <= 0.0:
        return False
    if _node_room(W, n):
        return True
    return _res_open(W, 1) > 0


@kernel_jit
def _res_valid_now(W, n):
    """`_res_valid` for node `n` in a settling pass, found once per app and stage: the
    apps' state does not change in a pass, and an app may hold many nodes reserved."""
    ji, nodei = W[9], W[41]
    j = nodei[n, S.NI_RES_APP]
    s = nodei[n, S.NI_RES_STAGE]
    stamp = W[24][S.GI_PASS] & 0x7FFFFFFF
    if ji[j, S.JI_RV_PASS] != stamp or ji[j, S.JI_RV_STAGE] != s:
        ji[j, S.JI_RV_PASS] = stamp
        ji[j, S.JI_RV_STAGE] = s
        ji[j, S.JI_RV_OK] = 1 if _res_valid(W, n) else 0
    return ji[j, S.JI_RV_OK] == 1


@kernel_jit
def _res_open(W, need):
    """`_res_slots` of this settling pass, counted only as far as `need` (at least `need`,
    or the full count below it): the scan runs when first needed, and on only when a
    caller needs more than it has counted."""
    gi = W[24]
    if gi[S.GI_RES_ANY] >= need:
        return gi[S.GI_RES_ANY]
    return _res_slots(W, need)


@kernel_jit
def _res_scan(W):
    """Before settling nodes: how many nodes apps could reserve is not counted yet."""
    gi = W[24]
    gi[S.GI_RES_ANY] = 0
    gi[S.GI_RES_LEAF] = -1
    gi[S.GI_RES_NEXT] = -1


@kernel_jit
def _settle(W, n, t, wake):
    """Node `n` without a heartbeat scheduled: schedule its next one if it may assign
    (`wake`: something changed since it last found nothing) and has room for pending
    demand; else park it while it has room (a node without room waits for a release), or
    rest it on its reservation's app (`resting.py`)."""
    nodef = W[40]
    if nodef[n, S.NF_HB] != S.INF:
        return
    if wake:
        if _node_wants(W, n):
            _schedule_beat(W, n, t)
            return
        if _may_rest(W, n):
            if W[41][n, S.NI_PARK] != S.REST:
                _rest(W, n)
            return
    # with reservations on a node without room may still be reserved; with delay scheduling
    # its heartbeats may count opportunities
    _park(W, n, _node_room(W, n) or W[25][S.C_RES] != 0.0 or W[25][S.C_FLOC] != 0.0)


@kernel_jit
def _schedule_beat(W, n, t):
    """Node `n`'s next heartbeat (strictly after `t`) is scheduled; it is not parked."""
    nodef = W[40]
    nodef[n, S.NF_HB] = _next_heartbeat(W, n, t, False)
    heap_push(W[21], W[22], W[24], nodef[n, S.NF_HB], S.HEARTBEAT, n, -1, 0)
    _park(W, n, False)


@kernel_jit
def _wake_parked_res(W, t):
    """`_wake`'s pass over the parked nodes with reservations on. A bare node (no room,
    no reservation: `resting._bare`) can only be reserved, and each heartbeat of one
    reserves it for at most one app: of those nodes only as many as apps could still
    reserve (`_res_open`) get their next heartbeat, the earliest (ties: parked order). If
    one of them finds nothing, that is a change and the next pass wakes the next ones; a
    node beyond them would find the apps at their caps. Without runnable pending demand a
    bare node wants nothing. The bare nodes are a list of their own, so a pass in which no
    app could reserve more does not visit them."""
    nodef, nlist, gi = W[40], W[42], W[24]
    nn = nodef.shape[0]
    _wake_resting(W, t, False)
    _settle_parked(W, t, False)
    m = gi[S.GI_BARE_N]
    if m == 0 or W[3][0, S.QF_PRUN] <= 0.0:
        return
    # with delay scheduling every bare node's heartbeat may count opportunities
    k = m if W[25][S.C_FLOC] != 0.0 else _res_open(W, m)
    if k <= 0:
        return
    bare = 3 * nn
    if k >= m:
        while gi[S.GI_BARE_N] > 0:
            _schedule_beat(W, nlist[bare + gi[S.GI_BARE_N] - 1], t)
        return
    times = np.empty(m)
    for i in range(m):
        times[i] = _next_heartbeat(W, nlist[bare + i], t, False)
    # the k earliest, ties in parked order: those before the k-th time, then those at it
    kth = np.partition(times, k - 1)[k - 1]
    first = np.flatnonzero(times < kth)
    first = np.concatenate((first, np.flatnonzero(times == kth)[: k - len(first)]))
    for n in nlist[bare + first]:
        _schedule_beat(W, n, t)


@kernel_jit
def _settle_parked(W, t, bare):
    """Settle (with a change: `_settle`) every parked node, the bare ones too if `bare`."""
    nlist, gi = W[42], W[24]
    nn = W[40].shape[0]
    for count, at in ((S.GI_PARK_N, 2 * nn), (S.GI_BARE_N, 3 * nn)):
        if count == S.GI_BARE_N and not bare:
            break
        i = 0
        while i < gi[count]:
            before = gi[count]
            _settle(W, nlist[at + i], t, True)
            if gi[count] == before:
                i += 1


@kernel_jit
def _wake_resting(W, t, now):
    """The resting nodes (`resting.py`) of each app whose reservation is no longer valid
    are settled (`now`: `_catch_up`'s test, whether each heartbeats at `t`); the others'
    still want nothing."""
    ji, nodei = W[9], W[41]
    j = W[24][S.GI_REST_HEAD]
    while j >= 0:
        nxt = ji[j, S.JI_REST_NEXT]
        n = ji[j, S.JI_REST_HEAD]
        if not _res_valid_now(W, n):
            while n >= 0:
                after = nodei[n, S.NI_REST_NEXT]
                if now:
                    _beats_now(W, n, t)
                else:
                    _settle(W, n, t, True)
                n = after
        j = nxt


@kernel_jit
def _beats_now(W, n, t):
    """`_catch_up` for node `n`; True if it heartbeats now. Whether its grid has `t` is
    asked first: that is mostly one comparison (`_on_grid_now`), and `_node_wants` may
    test a reservation or scan the apps (`_res_open`)."""
    nodef, nodei, gi = W[40], W[41], W[24]
    if (
        nodei[n, S.NI_BEAT] != gi[S.GI_ITER]
        and nodef[n, S.NF_HB] == S.INF
        and _on_grid_now(W, n, t)
        and _node_wants(W, n)
    ):
        _beat(W, n)
        _park(W, n, False)
        return True
    return False


@kernel_jit
def _catch_up(W, t):
    """Before the first allocation at `t`: a node without a heartbeat scheduled whose
    heartbeat grid has `t` heartbeats now if it has room for pending demand and was freed
    now or anything changed (what it would have seen had its heartbeat at `t` been
    scheduled, as the events at `t` come before the heartbeats' assignments)."""
    nlist, gi = W[42], W[24]
    nn = W[40].shape[0]
    _res_scan(W)
    gi[S.GI_PASS] += 1
    for i in range(gi[S.GI_TOUCH_N]):
        _beats_now(W, nlist[nn + i], t)
    if gi[S.GI_CHANGED] != 0:
        _wake_resting(W, t, True)
        for n in _parked_on_grid(W, t):
            _beats_now(W, n, t)


@kernel_jit
def _parked_on_grid(W, t):
    """The parked nodes whose heartbeat grid has `t`, in the parked lists' order, found
    from `t`, not by a walk over the parked nodes: node n's grid is n * interval / nodes
    plus whole intervals (`_next_heartbeat`), so only the nodes next to (t mod interval)
    * nodes / interval can have `t`, and two nodes never share a grid time."""
    nodei = W[41]
    nn = W[40].shape[0]
    x = t / W[25][S.C_HB_INTERVAL]
    c = int(round((x - math.floor(x)) * nn))
    lo, hi = (c - 2, c + 3) if nn > 5 else (0, nn)
    found = np.empty(hi - lo, np.int64)
    m = 0
    for i in range(lo, hi):
        n = i % nn
        if nodei[n, S.NI_PARK] >= 0 and _on_grid_now(W, n, t):
            found[m] = n
            m += 1
    found = found[:m]
    return found[np.argsort(nodei[found, S.NI_PARK])]


@kernel_jit
def _wake(W, t):
    """After an event time: the nodes that heartbeated or had resources freed, and, if
    anything an allocation depends on changed, every parked node, get their next
    heartbeat scheduled when they may assign something. A node's heartbeats in between
    would find what its last one found, nothing, so they are skipped."""
    nodef, nlist, qf, cfg, gi = W[40], W[42], W[3], W[25], W[24]
    nn = nodef.shape[0]
    changed = gi[S.GI_CHANGED] != 0
    if changed:
        _res_scan(W)
    gi[S.GI_PASS] += 1
    for i in range(gi[S.GI_TOUCH_N]):
        _settle(W, nlist[nn + i], t, changed)
    demand = qf[0, S.QF_PRUN] > 0.0 or (
        cfg[S.C_SLOT] != 0.0
        and (qf[0, S.QF_PRUN + 1] > 0.0 or gi[S.GI_JT_HEAD] >= 0 or gi[S.GI_LSKIP_N] > 0)
    )
    if changed and cfg[S.C_RES] != 0.0:
        # with or without demand: a reserved node whose reservation is no longer valid
        # drops it at its next heartbeat (`_res_wants`), which is not to be skipped
        _wake_parked_res(W, t)
    elif changed and demand:
        _settle_parked(W, t, True)
    gi[S.GI_CHANGED] = 0
    gi[S.GI_TOUCH_N] = 0
