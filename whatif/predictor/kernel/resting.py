"""Parked nodes, and reserved ones resting on their app: a settling pass visits such an
app once, not each node it holds reserved.

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

from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.lists import _append, _remove
from whatif.predictor.kernel.state import (
    C_CONT,
    C_RES,
    GI_PARK_N,
    GI_REST_HEAD,
    JI_REST_HEAD,
    JI_REST_NEXT,
    JI_REST_PREV,
    JI_REST_STAGE,
    NI_CL_HEAD,
    NI_PARK,
    NI_RES_APP,
    NI_RES_STAGE,
    NI_REST_NEXT,
    NI_REST_PREV,
    REST,
)


@kernel_jit
def _park(W, n, parked):
    """Put node `n` on the parked list (parked: True) or take it off (False); a resting
    node leaves its rest either way."""
    nodei, nlist, gi = W[41], W[42], W[24]
    base = 2 * W[40].shape[0]
    if nodei[n, NI_PARK] == REST:
        _unrest(W, n)
    pos = nodei[n, NI_PARK]
    if parked and pos < 0:
        nlist[base + gi[GI_PARK_N]] = n
        nodei[n, NI_PARK] = gi[GI_PARK_N]
        gi[GI_PARK_N] += 1
    elif not parked and pos >= 0:
        gi[GI_PARK_N] -= 1
        last = nlist[base + gi[GI_PARK_N]]
        nlist[base + pos] = last
        nodei[last, NI_PARK] = pos
        nodei[n, NI_PARK] = -1


@kernel_jit
def _may_rest(W, n):
    """Whether node `n`, found wanting nothing, may rest on its reservation's app."""
    nodei = W[41]
    j = nodei[n, NI_RES_APP]
    if W[25][C_RES] == 0.0 or W[25][C_CONT] != 0.0 or j < 0 or nodei[n, NI_CL_HEAD] >= 0:
        return False
    ji = W[9]
    return ji[j, JI_REST_HEAD] < 0 or ji[j, JI_REST_STAGE] == nodei[n, NI_RES_STAGE]


@kernel_jit
def _rest(W, n):
    """Node `n` rests on its reservation's app (`_may_rest`), off the parked list."""
    ji, nodei = W[9], W[41]
    _park(W, n, False)
    j = nodei[n, NI_RES_APP]
    if ji[j, JI_REST_HEAD] < 0:
        ji[j, JI_REST_STAGE] = nodei[n, NI_RES_STAGE]
        _append(ji, JI_REST_NEXT, JI_REST_PREV, W[24], GI_REST_HEAD, j)
    _append(nodei, NI_REST_NEXT, NI_REST_PREV, ji[j], JI_REST_HEAD, n)
    nodei[n, NI_PARK] = REST


@kernel_jit
def _unrest(W, n):
    """Resting node `n` leaves its app's list (not parked: the caller parks it or
    schedules its heartbeat)."""
    ji, nodei = W[9], W[41]
    j = nodei[n, NI_RES_APP]
    _remove(nodei, NI_REST_NEXT, NI_REST_PREV, ji[j], JI_REST_HEAD, n)
    if ji[j, JI_REST_HEAD] < 0:
        _remove(ji, JI_REST_NEXT, JI_REST_PREV, W[24], GI_REST_HEAD, j)
    nodei[n, NI_PARK] = -1


@kernel_jit
def _claimed(W, n):
    """A claim is added to node `n` (`claims._claim_add`): a resting node is parked, so
    that settling passes test it again."""
    if W[41][n, NI_PARK] == REST:
        _park(W, n, True)
