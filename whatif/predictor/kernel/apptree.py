"""App order trees (speed only: the reference engine scans plainly): per leaf and view a
tournament tree over the runnable apps, so the best app, or the best one whose next
request fits, is read at the root and only changed apps are re-ranked.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.lists import _keep_listed
from whatif.predictor.kernel.ordering import _cmp_apps
from whatif.predictor.kernel.requests import _head_task, _next_stage, _tracker_bound
from whatif.predictor.pack import RETRY_FIRST
from whatif.predictor.world import ordered_bits


# Apps within a leaf are ranked by the leaf policy's comparator in a tournament tree per
# view (pending demand in dimension 0, in dimension 1, or in any): allocation and the
# starvation scan read the best app at the root instead of comparing every app, and an
# app whose usage or demand changed is re-ranked in O(log apps) before the next read.
@kernel_jit
def _eligible(W, j, view):
    jf, ji = W[8], W[9]
    u = np.uint64(j)  # unsigned rows: no negative-index wraparound
    if ji[u, S.JI_STATE] != 2:
        return False
    if view == S.V_ANY:
        return jf[u, S.JF_PEND] > 0.0 or jf[u, S.JF_PEND + 1] > 0.0
    return jf[u, S.JF_PEND + view] > 0.0


@kernel_jit
def _head_request(W, j, d):
    """What app `j` asks for next when offered a container of pool `d` (inf: nothing)."""
    jsf, ji, tsf = W[7], W[9], W[17]
    u = np.uint64(j)  # unsigned rows: no negative-index wraparound
    if ji[u, S.JI_AM_STATE] == 1:
        return jsf[u, S.JSF_AM], jsf[u, S.JSF_AM + 1]
    s = _next_stage(W, j, d)
    if s < 0:
        return S.INF, S.INF
    task = np.uint64(_head_task(W, s))
    r0, r1 = tsf[task, S.TSF_REQ], tsf[task, S.TSF_REQ + 1]
    if W[12][s, S.SS_RETRY] == RETRY_FIRST and W[14][s, S.SI_FRONT_N] > 0:
        return _tracker_bound(W, s, r0, r1)  # Hadoop 1: its tracker's task may be another
    return r0, r1


@kernel_jit
def _keyed(W, policy):
    """Whether a leaf's trees order apps by the sort keys in `tnode` (`_put_key`)."""
    return policy == 0 and W[25][S.C_SIZEBASED] == 0.0


@kernel_jit
def _put_key(W, j, d, row):
    """Write app `j`'s sort key in dimension `d` into tnode[row]: `_cmp_apps_fair` as a key
    compared column by column (demand zero after demand, needy first, then usage, then
    start time and name rank as one number), so that ranking reads the tree's own rows
    instead of app rows."""
    js, jf, cfg, tnode = W[6], W[8], W[25], W[34]
    uj = np.uint64(j)  # unsigned rows: no negative-index wraparound
    at = np.uint64(row)
    u = jf[uj, S.JF_USE + d]
    demand = u + jf[uj, S.JF_PEND + d]
    rank_class = 0 if u < min(0.0, demand) else 1
    if cfg[S.C_VERSION] == 3.0 and demand == 0.0:
        rank_class += 2
    tnode[at, S.TN_KEY] = rank_class
    tnode[at, S.TN_KEY + 1] = ordered_bits(u)
    tnode[at, S.TN_KEY + 2] = js[uj, S.JS_ORDER]


@kernel_jit(inline="always")
def _keys_before(a0, a1, a2, b0, b1, b2):
    """Whether key (a0, a1, a2) ranks strictly before (b0, b1, b2), column by column.

    Written with `&` and `|`, which do not short-circuit, so it compiles to one result
    with no branch to mispredict."""
    return (a0 < b0) | ((a0 == b0) & ((a1 < b1) | ((a1 == b1) & (a2 < b2))))


@kernel_jit
def _key_before(tnode, x, y):
    """Whether the app keyed in tnode[x] ranks strictly before the one in tnode[y]."""
    x = np.uint64(x)  # unsigned rows: no negative-index wraparound
    y = np.uint64(y)
    return _keys_before(
        tnode[x, S.TN_KEY],
        tnode[x, S.TN_KEY + 1],
        tnode[x, S.TN_KEY + 2],
        tnode[y, S.TN_KEY],
        tnode[y, S.TN_KEY + 1],
        tnode[y, S.TN_KEY + 2],
    )


@kernel_jit
def _tree_put(W, j, view, value):
    """Set app `j`'s slot in its leaf's `view` tree to `value` (j or -1); re-rank upwards.

    Beside each node's winner, `tnode` keeps the smallest head request in its subtree, so
    a search for apps whose request fits can skip subtrees where none does, and in keyed
    leaves the winner's sort key."""
    qs, qi, js, ji, tree, tnode = W[0], W[4], W[6], W[9], W[31], W[34]
    uj = np.uint64(j)  # unsigned rows: no negative-index wraparound
    leaf = np.uint64(js[uj, S.JS_QUEUE])
    pos = ji[uj, S.JI_POS]
    if pos < 0:
        return  # not runnable: holds no slot
    p = qi[leaf, S.QI_TREE_P]
    base = qi[leaf, S.QI_TREE_OFF] + view * 2 * p
    root = qi[leaf, S.QI_TREE_ROOT]
    node = p + pos
    row = np.uint64(base + node)
    if value < 0 and tree[row] < 0:
        return
    tree[row] = value
    d = 0 if view == S.V_ANY else view
    policy = qs[leaf, S.QS_POLICY]
    keyed = _keyed(W, policy)
    if value < 0:
        tnode[row, S.TN_REQ] = S.TN_NONE
        tnode[row, S.TN_REQ + 1] = S.TN_NONE
    else:
        r0, r1 = _head_request(W, j, d)
        tnode[row, S.TN_REQ] = ordered_bits(r0)
        tnode[row, S.TN_REQ + 1] = ordered_bits(r1)
        if keyed:
            _put_key(W, j, d, base + node)
    if keyed:
        _rerank_keyed(
            W,
            base,
            node,
            root,
            j,
            value,
            tnode[row, S.TN_REQ],
            tnode[row, S.TN_REQ + 1],
            tnode[row, S.TN_KEY],
            tnode[row, S.TN_KEY + 1],
            tnode[row, S.TN_KEY + 2],
        )
        return
    node >>= 1
    while node >= root:
        left = base + 2 * node
        a = tree[left]
        b = tree[left + 1]
        if a < 0 or (b >= 0 and _cmp_apps(W, policy, d, b, a, False) < 0):
            a = b
        if not _set_node(tree, tnode, base + node, left, a, j):
            return
        node >>= 1


@kernel_jit
def _set_node(tree, tnode, at, left, a, j):
    """Give tree node `at` the winner `a` and the smallest request of its children (at
    `left`, `left` + 1); False if that changes nothing above it (the same winner, not the
    app `j` being re-ranked, and the same smallest request), so the walk up can stop."""
    m0 = min(tnode[left, S.TN_REQ], tnode[left + 1, S.TN_REQ])
    m1 = min(tnode[left, S.TN_REQ + 1], tnode[left + 1, S.TN_REQ + 1])
    if a == tree[at] and a != j and m0 == tnode[at, S.TN_REQ] and m1 == tnode[at, S.TN_REQ + 1]:
        return False
    tree[at] = a
    tnode[at, S.TN_REQ] = m0
    tnode[at, S.TN_REQ + 1] = m1
    return True


@kernel_jit
def _rerank_keyed(W, base, node, root, j, w, r0, r1, k0, k1, k2):
    """`_tree_put`'s walk up from `node` (just written) in a keyed tree: each node above
    takes the winner of its two children by their keys, with the winner's key.

    The path's winner (`w`), smallest request (`r0`, `r1`) and key (`k0`..`k2`) travel in
    registers, so each level waits only on its sibling's row, which it can load early,
    never on the row the level below just stored. Which child wins is a coin toss: the
    choice is written as selects (cmov, see the compiler option at the top), not a
    branch that would mispredict half the time."""
    tree, tnode = W[31], W[34]
    while node > root:
        # unsigned row numbers: indexing by them compiles without negative-index wraparound
        sib = np.uint64(base + (node ^ 1))
        b = tree[sib]
        b0, b1, b2 = tnode[sib, S.TN_KEY], tnode[sib, S.TN_KEY + 1], tnode[sib, S.TN_KEY + 2]
        # the sibling wins if it ranks strictly before (keys of distinct apps differ,
        # an empty node's key is stale but never wins); a tie of empties stays empty
        sib_wins = (b >= 0) & ((w < 0) | _keys_before(b0, b1, b2, k0, k1, k2))
        w = b if sib_wins else w
        k0 = b0 if sib_wins else k0
        k1 = b1 if sib_wins else k1
        k2 = b2 if sib_wins else k2
        r0 = min(r0, tnode[sib, S.TN_REQ])
        r1 = min(r1, tnode[sib, S.TN_REQ + 1])
        node >>= 1
        at = np.uint64(base + node)
        if w == tree[at] and w != j and r0 == tnode[at, S.TN_REQ] and r1 == tnode[at, S.TN_REQ + 1]:
            return  # nothing above changes
        tree[at] = w
        tnode[at, S.TN_REQ] = r0
        tnode[at, S.TN_REQ + 1] = r1
        if w >= 0:
            tnode[at, S.TN_KEY] = k0
            tnode[at, S.TN_KEY + 1] = k1
            tnode[at, S.TN_KEY + 2] = k2


@kernel_jit
def _preorder_next(node, root, down):
    """The next node of a preorder walk of the tree under `root` (a power of two) that
    enters `node`'s subtree only if `down`; -1 when the walk is over.

    Not entering, the walk climbs while `node` is a right child (odd), in one shift by its
    count of trailing ones rather than a loop whose exit mispredicts; it stops at `root`,
    which is even unless it is 1, the top."""
    if down:
        return 2 * node
    up = node >> trailing_zeros(~node)
    return -1 if up <= root else up + 1


@kernel_jit
def _tree_best_fit(W, leaf, view, lim0, lim1):
    """The leaf's best app in `view` whose head request is within (lim0, lim1); -1 if none.

    A preorder walk of the tree that skips subtrees whose smallest request exceeds the
    limits or whose winner ranks below the best fitting app found so far."""
    qs, qi, ji, tree, tnode = W[0], W[4], W[9], W[31], W[34]
    p = qi[leaf, S.QI_TREE_P]
    base = qi[leaf, S.QI_TREE_OFF] + view * 2 * p
    policy = qs[leaf, S.QS_POLICY]
    keyed = _keyed(W, policy)
    d = 0 if view == S.V_ANY else view
    # requests are kept as ordered_bits
    fit0: int = ordered_bits(lim0)
    fit1 = ordered_bits(lim1)
    best = -1
    best_row = -1
    passed = -1  # the app passed over last (see `_order_next`)
    root = qi[leaf, S.QI_TREE_ROOT]
    node = root
    while True:
        row = np.uint64(base + node)  # unsigned: no negative-index wraparound
        w = tree[row]
        down = False
        if w >= 0 and tnode[row, S.TN_REQ] <= fit0 and tnode[row, S.TN_REQ + 1] <= fit1:
            if w == passed:
                down = node < p
            elif best < 0 or (
                _key_before(tnode, base + node, best_row)
                if keyed
                else _cmp_apps(W, policy, d, w, best, False) < 0
            ):
                slot = np.uint64(base + p + ji[np.uint64(w), S.JI_POS])
                if tnode[slot, S.TN_REQ] <= fit0 and tnode[slot, S.TN_REQ + 1] <= fit1:
                    best = w  # the subtree's winner fits: nothing below beats it
                    best_row = base + node
                else:
                    down = node < p
                    passed = w
        node = _preorder_next(node, root, down)
        if node < 0:
            return best


@kernel_jit
def _take_slot(W, j):
    """Give runnable app `j` a tree slot: a freed one, else the next; widen the trees in use
    when it lies beyond them (the new half holds no app, so each new root copies the old)."""
    qi, js, ji, tree, tnode, slots = W[4], W[6], W[9], W[31], W[34], W[36]
    leaf = js[j, S.JS_QUEUE]
    if qi[leaf, S.QI_SLOT_FREE] > 0:
        qi[leaf, S.QI_SLOT_FREE] -= 1
        slot = slots[qi[leaf, S.QI_TREE_OFF] // (2 * S.N_VIEWS) + qi[leaf, S.QI_SLOT_FREE]]
    else:
        slot = qi[leaf, S.QI_SLOT_NEXT]
        qi[leaf, S.QI_SLOT_NEXT] += 1
    ji[j, S.JI_POS] = slot
    p = qi[leaf, S.QI_TREE_P]
    while slot >= qi[leaf, S.QI_TREE_K]:
        old = qi[leaf, S.QI_TREE_ROOT]
        qi[leaf, S.QI_TREE_K] *= 2
        qi[leaf, S.QI_TREE_ROOT] = old // 2
        for view in range(S.N_VIEWS):
            base = qi[leaf, S.QI_TREE_OFF] + view * 2 * p
            tree[base + old // 2] = tree[base + old]
            for c in range(S.N_TN):
                tnode[base + old // 2, c] = tnode[base + old, c]


@kernel_jit
def _trees_fit(W, t):
    """Whether the trees of every leaf a job submitted at `t` goes to have a slot for each
    app that may be runnable by the end of the iteration at `t`.

    Slots are recycled, so a leaf never uses more slots than its most live apps
    (submitted, not finished) at once; the iteration adds at most the jobs it submits. So
    P >= live + submitted suffices, and the trees are sized to the apps live at once, not
    to every job the leaf ever sees (the caller grows them, `whatif.predictor.apptrees`)."""
    qi, js, jsf, gi = W[4], W[6], W[7], W[24]
    first = gi[S.GI_NEXT_SUBMIT]
    end = first
    while end < js.shape[0] and jsf[end, S.JSF_SUBMIT] == t:
        end += 1
    for j in range(first, end):
        leaf = js[j, S.JS_QUEUE]
        if qi[leaf, S.QI_LIVE] + (end - first) > qi[leaf, S.QI_TREE_P]:
            return False
    return True


@kernel_jit
def _free_slot(W, j):
    """App `j` stops being runnable: empty its tree slots and free the slot for reuse."""
    qi, js, ji, slots = W[4], W[6], W[9], W[36]
    for view in range(S.N_VIEWS):
        _tree_put(W, j, view, -1)
    leaf = js[j, S.JS_QUEUE]
    _keep_listed(ji, S.JI_BIG_NEXT, S.JI_BIG_PREV, qi[leaf], S.QI_BIG_HEAD, S.JI_IN_BIG, j, False)
    slots[qi[leaf, S.QI_TREE_OFF] // (2 * S.N_VIEWS) + qi[leaf, S.QI_SLOT_FREE]] = ji[j, S.JI_POS]
    qi[leaf, S.QI_SLOT_FREE] += 1
    ji[j, S.JI_POS] = -1


@kernel_jit
def _touch(W, j):
    """App `j`'s usage, demand or state changed: re-rank it before the next tree read."""
    ji, gi, touched = W[9], W[24], W[33]
    u = np.uint64(j)  # unsigned rows: no negative-index wraparound
    if ji[u, S.JI_TOUCHED] == 0:
        ji[u, S.JI_TOUCHED] = 1
        touched[gi[S.GI_TOUCHED_N]] = j
        gi[S.GI_TOUCHED_N] += 1


@kernel_jit
def _retree(W):
    """Re-rank every touched app in each view's tree."""
    ji, gi, cfg, touched = W[9], W[24], W[25], W[33]
    views1 = cfg[S.C_SLOT] != 0.0
    for i in range(gi[S.GI_TOUCHED_N]):
        j = touched[i]
        ji[np.uint64(j), S.JI_TOUCHED] = 0  # unsigned rows: no negative-index wraparound
        for view in range(S.N_VIEWS):
            if view == 1 and not views1:
                continue
            if view == S.V_ANY and cfg[S.C_ANY_IS_0] != 0.0:
                continue
            _tree_put(W, j, view, j if _eligible(W, j, view) else -1)
        if cfg[S.C_RES] != 0.0:
            _list_big(W, j)
    gi[S.GI_TOUCHED_N] = 0


@kernel_jit
def _list_big(W, j):
    """Keep runnable app `j` in its leaf's list of apps that ask for something and, under a
    leaf policy comparing memory without delay scheduling, for at least the reservation
    threshold, as its slot in the trees says (its head request): only those may reserve a
    node, and the
    reservation scans (`_res_slots`, `_res_best`) read that list rather than every app.
    Most apps of a busy cluster ask only for maps below the threshold, or for nothing."""
    qs, qi, js, ji, cfg = W[0], W[4], W[6], W[9], W[25]
    u = np.uint64(j)  # unsigned rows: no negative-index wraparound
    leaf = js[u, S.JS_QUEUE]
    pos = ji[u, S.JI_POS]
    big = False
    if pos >= 0:
        view = _any_view(W)  # its slots hold every app that asks for anything
        p = qi[leaf, S.QI_TREE_P]
        r0 = W[34][np.uint64(qi[leaf, S.QI_TREE_OFF] + view * 2 * p + p + pos), S.TN_REQ]
        big = r0 != S.TN_NONE and (
            qs[leaf, S.QS_POLICY] == 2
            or cfg[S.C_FLOC] != 0.0  # a located stage may pick a task larger than its head
            or r0 >= ordered_bits(cfg[S.C_RES_THR])
        )
    _keep_listed(ji, S.JI_BIG_NEXT, S.JI_BIG_PREV, qi[leaf], S.QI_BIG_HEAD, S.JI_IN_BIG, j, big)


@kernel_jit
def _any_view(W):
    """The view ranking apps with any pending demand (view 0's tree when it is the same)."""
    return 0 if W[25][S.C_ANY_IS_0] != 0.0 else S.V_ANY
