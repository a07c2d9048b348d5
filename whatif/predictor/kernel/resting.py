"""Parked nodes, and reserved ones resting on their app: a settling pass visits such an
app once, not each node it holds reserved.

The parked nodes are two lists in `nlist`: with reservations on, those without room and
not reserved (bare: only a reservation could take them, `heartbeats._wake_parked_res`
wakes as many as apps could still reserve) apart from the others (GI_BARE_N and
GI_PARK_N nodes; ``NI_PARK`` is a node's place, plus the node count in the bare list).
A parked node's room or reservation changes only at a container's start or end on it
or its reservation or release, each of which files it again (`_park_again`).

With reservations on (`reservations.py`), a parked node reserved for an app wants a
heartbeat only when the booked resources fit it, its reservation is no longer valid, or
an app with a claim on it has demand (`heartbeats._res_wants`). The first changes only
with the node's own free resources (a release touches the node, and it is settled
again), the last only with a claim on it (a node with claims does not rest, and one
that gets a claim leaves its rest, `_claimed`), and its reservation only at its own
heartbeat (a node that heartbeats leaves its rest, `heartbeats._beat`). So a reserved
parked node a settling pass
finds wanting nothing rests on its app's list (``NI_PARK`` = ``REST``, off the parked
list) while no claim is on it, and a pass tests the app's reservation once
(`_res_valid_now`): valid, its nodes still want nothing; not, each is settled. Apps
hold many nodes reserved at a time, the same stage's (a node reserved for another stage
than the app's resting ones stays parked). Off with continuous scheduling, whose passes
allocate on parked nodes. The reference engine keeps every parked node on one list; the
schedule is the same (the engines agree), as a node's heartbeats do not depend on where
it waited.
"""

from __future__ import annotations

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.lists import _append, _pack_add, _pack_remove, _remove


@kernel_jit
def _node_room(W, n):
    """Whether node `n` could take the smallest request (a slot of either pool)."""
    nodef, cfg, minreq = W[40], W[25], W[27]
    if cfg[S.C_SLOT] != 0.0:
        return nodef[n, S.NF_FREE] >= 1.0 or nodef[n, S.NF_FREE + 1] >= 1.0
    return nodef[n, S.NF_FREE] >= minreq[0] and nodef[n, S.NF_FREE + 1] >= minreq[1]


@kernel_jit
def _bare(W, n):
    """Whether node `n` could be taken by a reservation alone: reservations on, no room,
    not reserved."""
    return W[25][S.C_RES] != 0.0 and W[41][n, S.NI_RES_APP] < 0 and not _node_room(W, n)


@kernel_jit
def _park(W, n, parked):
    """Put node `n` on its parked list (parked: True; bare or not, `_bare`) or take it off
    (False); a resting node leaves its rest either way."""
    nodei, nlist, gi = W[41], W[42], W[24]
    nn = W[40].shape[0]
    if nodei[n, S.NI_PARK] == S.REST:
        _unrest(W, n)
    pos = nodei[n, S.NI_PARK]
    if parked:
        bare = _bare(W, n)
        if pos >= 0 and (pos >= nn) == bare:
            return
        if pos >= 0:
            _unpark(W, n)
        if bare:
            _pack_add(nlist[3 * nn :], nodei, S.NI_PARK, gi, S.GI_BARE_N, n, nn)
        else:
            _pack_add(nlist[2 * nn :], nodei, S.NI_PARK, gi, S.GI_PARK_N, n, 0)
    elif pos >= 0:
        _unpark(W, n)


@kernel_jit
def _unpark(W, n):
    """Parked node `n` leaves its list."""
    nodei, nlist, gi = W[41], W[42], W[24]
    nn = W[40].shape[0]
    if nodei[n, S.NI_PARK] >= nn:
        _pack_remove(nlist[3 * nn :], nodei, S.NI_PARK, gi, S.GI_BARE_N, n, nn)
    else:
        _pack_remove(nlist[2 * nn :], nodei, S.NI_PARK, gi, S.GI_PARK_N, n, 0)


@kernel_jit
def _park_again(W, n):
    """Node `n`'s room or reservation changed: if it is parked, it is filed again."""
    if W[41][n, S.NI_PARK] >= 0:
        _park(W, n, True)


@kernel_jit
def _may_rest(W, n):
    """Whether node `n`, found wanting nothing, may rest on its reservation's app."""
    nodei = W[41]
    j = nodei[n, S.NI_RES_APP]
    if W[25][S.C_RES] == 0.0 or W[25][S.C_CONT] != 0.0 or j < 0 or nodei[n, S.NI_CL_HEAD] >= 0:
        return False
    ji = W[9]
    return ji[j, S.JI_REST_HEAD] < 0 or ji[j, S.JI_REST_STAGE] == nodei[n, S.NI_RES_STAGE]


@kernel_jit
def _rest(W, n):
    """Node `n` rests on its reservation's app (`_may_rest`), off the parked list."""
    ji, nodei = W[9], W[41]
    _park(W, n, False)
    j = nodei[n, S.NI_RES_APP]
    if ji[j, S.JI_REST_HEAD] < 0:
        ji[j, S.JI_REST_STAGE] = nodei[n, S.NI_RES_STAGE]
        _append(ji, S.JI_REST_NEXT, S.JI_REST_PREV, W[24], S.GI_REST_HEAD, j)
    _append(nodei, S.NI_REST_NEXT, S.NI_REST_PREV, ji[j], S.JI_REST_HEAD, n)
    nodei[n, S.NI_PARK] = S.REST


@kernel_jit
def _unrest(W, n):
    """Resting node `n` leaves its app's list (not parked: the caller parks it or
    schedules its heartbeat)."""
    ji, nodei = W[9], W[41]
    j = nodei[n, S.NI_RES_APP]
    _remove(nodei, S.NI_REST_NEXT, S.NI_REST_PREV, ji[j], S.JI_REST_HEAD, n)
    if ji[j, S.JI_REST_HEAD] < 0:
        _remove(ji, S.JI_REST_NEXT, S.JI_REST_PREV, W[24], S.GI_REST_HEAD, j)
    nodei[n, S.NI_PARK] = -1


@kernel_jit
def _claimed(W, n):
    """A claim is added to node `n` (`claims._claim_add`): a resting node is parked, so
    that settling passes test it again."""
    if W[41][n, S.NI_PARK] == S.REST:
        _park(W, n, True)
