"""Preemption victims: the running task containers each app could give up (listed per
app and as a bitset over attempts), and the scans that pick the newest ones a request
needs (Hadoop 3).
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.fairshare import _app_fair, _app_shares
from whatif.predictor.kernel.lists import _append_via, _remove_via
from whatif.predictor.kernel.resources import _below, _loose


@kernel_jit
def _free_add(W, a, j):
    """Task container `a` of app `j` starts: list it as one preemption may take (its bit in
    `unmarked`, and the app's own list, which puts the app on the list of apps holding
    one)."""
    li = W[51]
    js, ji, tsf, ai, gi, hold, holdv = W[6], W[9], W[17], W[20], W[24], W[37], W[38]
    unmarked = W[39]
    unmarked[a >> 6] |= np.uint64(1) << np.uint64(a & 63)
    r0 = tsf[ai[a, S.AI_TASK], S.TSF_REQ]
    if ji[j, S.JI_CONT_HEAD] < 0:
        pos = gi[S.GI_HOLD_N]
        gi[S.GI_HOLD_N] += 1
        ji[j, S.JI_HOLD_POS] = pos
        hold[pos, 0] = j
        hold[pos, 1] = js[j, S.JS_QUEUE]
        holdv[pos, 1] = r0
        holdv[pos, 2] = 1.0
        _held_changed(W, j)
    else:
        pos = ji[j, S.JI_HOLD_POS]
        if r0 < holdv[pos, 1]:
            holdv[pos, 1] = r0
            holdv[pos, 2] = 1.0
        elif r0 == holdv[pos, 1]:
            holdv[pos, 2] += 1.0
    _append_via(li, ai, S.AI_LIVE, S.LI_APP_NEXT, S.LI_APP_PREV, ji[j], S.JI_CONT_HEAD, a)


@kernel_jit
def _free_remove(W, a, j):
    """Container `a` of app `j` ends or is marked for preemption: unlist it."""
    li = W[51]
    ji, tsf, ai, gi, hold, holdv, unmarked = W[9], W[17], W[20], W[24], W[37], W[38], W[39]
    unmarked[a >> 6] &= ~(np.uint64(1) << np.uint64(a & 63))
    _remove_via(li, ai, S.AI_LIVE, S.LI_APP_NEXT, S.LI_APP_PREV, ji[j], S.JI_CONT_HEAD, a)
    pos = ji[j, S.JI_HOLD_POS]
    if ji[j, S.JI_CONT_HEAD] < 0:
        gi[S.GI_HOLD_N] -= 1
        last = gi[S.GI_HOLD_N]
        hold[pos, 0] = hold[last, 0]
        hold[pos, 1] = hold[last, 1]
        for c in range(3):
            holdv[pos, c] = holdv[last, c]
        ji[hold[pos, 0], S.JI_HOLD_POS] = pos
        ji[j, S.JI_HOLD_POS] = -1
    elif tsf[ai[a, S.AI_TASK], S.TSF_REQ] == holdv[pos, 1]:
        holdv[pos, 2] -= 1.0
        if holdv[pos, 2] == 0.0:  # it was the last one that small: find the next size
            smallest = S.INF
            count = 0.0
            b = ji[j, S.JI_CONT_HEAD]
            while b >= 0:
                r = tsf[ai[b, S.AI_TASK], S.TSF_REQ]
                if r < smallest:
                    smallest = r
                    count = 1.0
                elif r == smallest:
                    count += 1.0
                b = li[ai[b, S.AI_LIVE], S.LI_APP_NEXT]
            holdv[pos, 1] = smallest
            holdv[pos, 2] = count


@kernel_jit
def _held_changed(W, j):
    """App `j`'s usage or marked resources changed: update its entry in `hold`."""
    jf, ji, holdv = W[8], W[9], W[38]
    pos = ji[j, S.JI_HOLD_POS]
    if pos >= 0:
        holdv[pos, 0] = jf[j, S.JF_USE] - jf[j, S.JF_TBP]


@kernel_jit
def _victim_candidates(W):
    """Set up the check's victim candidates, read newest first by `_cand_at`; return
    (heads, an upper bound on the memory a victim scan can reach: free memory plus the
    usage of the apps holding candidates).

    Candidates are the unmarked task containers of preemptable leaves that their app could
    give up alone and stay at its fair share. `_take` refuses every other container for
    the rest of the check: usage and shares are fixed, and what is marked or taken only
    grows, provided "below the fair share" is monotone: always for the memory comparator,
    and for drf while both cluster dimensions are positive (no NaN shares; otherwise every
    container of a drf leaf is listed). Only apps holding a container are visited (`hold`),
    and under the memory comparator only those whose usage less their smallest request is
    not below their share: `_keeps_share` computes (usage - request) < share, and rounding
    keeps that monotone in the request.

    A check's scans read about four candidates of some fifty, so they are merged lazily
    from the apps' lists (each oldest first, as attempts are numbered as they start):
    `heads` is a max-heap by attempt (rows 1..heads[0, 0]) of (each app's newest
    candidate not yet read, app)."""
    qs, ji, gf, gi = W[0], W[9], W[23], W[24]
    hold, holdv = W[37], W[38]
    floor = _spare_floors(W)
    bound = max(gf[S.G_FREE], 0.0)
    heads = np.empty((gi[S.GI_HOLD_N] + 1, 2), dtype=np.int64)
    k = 0
    for pos in range(gi[S.GI_HOLD_N]):
        row = np.uint64(hold[pos, 1])  # its leaf, unsigned: no negative-index wraparound
        spare = holdv[pos, 0] - holdv[pos, 1]  # as `_keeps_share` computes it
        if spare < floor[row]:
            continue  # most apps: one test on the packed rows and a per-leaf number
        if qs[row, S.QS_PREEMPTABLE] == 0:
            continue
        policy = qs[row, S.QS_POLICY]
        j = hold[pos, 0]
        if policy != 2 and spare < _app_fair(W, j, 0):
            continue
        a = _candidate_from(W, j, ji[j, S.JI_CONT_TAIL])
        if a >= 0:
            k += 1
            heads[k, 0] = a
            heads[k, 1] = j
            bound += holdv[pos, 0]  # its usage: its AM and unmarked containers
    heads[0, 0] = k
    for i in range(k // 2, 0, -1):
        _sift_down(heads, i, k)
    gi[S.GI_CAND_N] = 0
    return heads, _loose(bound)  # widened: the scans add the same sizes in another order


@kernel_jit
def _spare_floors(W):
    """Per leaf, the spare memory (usage less smallest request) below which none of its
    apps holds a candidate: the least app share of a preemptable leaf under the memory
    comparator, none (-inf) under drf, and inf where nothing is preemptable (a NaN spare
    passes, and the full tests that follow decide). Brings the shares up to date."""
    qs, qf = W[0], W[3]
    floor = np.full(qs.shape[0], S.INF)
    for leaf in range(qs.shape[0]):
        if qs[leaf, S.QS_LEAF] == 1 and qs[leaf, S.QS_PREEMPTABLE] == 1:
            _app_shares(W, leaf)  # for `_take` too: nothing changes them until the check ends
            floor[leaf] = -S.INF if qs[leaf, S.QS_POLICY] == 2 else qf[leaf, S.QF_APP_FAIR_MIN]
    return floor


@kernel_jit
def _candidate_from(W, j, a):
    """App `j`'s newest candidate (see `_victim_candidates`) at or before its container
    `a` in its list (-1: none). Marked containers are passed over: one marked during the
    check keeps its links to older ones, so the walk goes on from it."""
    lf, li = W[52], W[51]
    qs, js, tsf, ai, cluster = W[0], W[6], W[17], W[20], W[26]
    drf_all = qs[js[j, S.JS_QUEUE], S.QS_POLICY] == 2 and not (
        cluster[0] > 0.0 and cluster[1] > 0.0
    )
    while a >= 0:
        task = ai[a, S.AI_TASK]
        if lf[ai[a, S.AI_LIVE], S.LF_MARK] < 0.0 and (
            drf_all or _keeps_share(W, j, tsf[task, S.TSF_REQ], tsf[task, S.TSF_REQ + 1], 0.0, 0.0)
        ):
            return a
        a = li[ai[a, S.AI_LIVE], S.LI_APP_PREV]
    return -1


@kernel_jit
def _sift_down(heads, i, k):
    """Restore the max-heap order of heads[1..k] below row `i`."""
    while 2 * i <= k:
        c = 2 * i
        if c + 1 <= k and heads[c + 1, 0] > heads[c, 0]:
            c += 1
        if heads[i, 0] >= heads[c, 0]:
            return
        for x in range(2):
            heads[i, x], heads[c, x] = heads[c, x], heads[i, x]
        i = c


@kernel_jit
def _cand_at(W, heads, i):
    """The check's `i`-th victim candidate, newest first (-1: fewer): read from `cand`,
    merged from the apps' lists into it as far as `i` first.

    A candidate merged late is tested against usage less what the check has marked since
    it began, so a container refused now is left out; `_take` would refuse it too, as
    the marked resources only grow during a check."""
    li = W[51]
    gi, ai, cand = W[24], W[20], W[35]
    while gi[S.GI_CAND_N] <= i:
        k = heads[0, 0]
        if k == 0:
            return -1
        a = heads[1, 0]
        cand[gi[S.GI_CAND_N]] = a
        gi[S.GI_CAND_N] += 1
        nxt = _candidate_from(W, heads[1, 1], li[ai[a, S.AI_LIVE], S.LI_APP_PREV])
        if nxt >= 0:
            heads[1, 0] = nxt
        else:
            heads[1, 0] = heads[k, 0]
            heads[1, 1] = heads[k, 1]
            k -= 1
            heads[0, 0] = k
        _sift_down(heads, 1, k)
    return cand[i]


@kernel_jit
def _victims_for(W, heads, c0, c1, chosen, nv, resume):
    """One container's victims, newest first; appended to vict if the request fits.

    Running task containers not marked for preemption are visited newest first (AM and
    marked containers never count); those already chosen for this app are skipped.
    After each one visited, the scan stops if free + taken resources fit the request.
    Unless free resources fit from the start, a container changes the outcome only if it
    is taken, so the scan walks just the check's candidates (see `_victim_candidates`).

    Returns the new victim count and where the next scan for the same request may start:
    the candidate index of the first container this scan took (-1: the newest). Every
    unchosen container newer than it was visited before anything was taken and could
    not be taken then, which stays true while nothing is marked, so a rescan from the
    newest would pass it by.
    """
    lf, li = W[52], W[51]
    qs, js, ai, gf, gi, vict = W[0], W[6], W[20], W[23], W[24], W[29]
    pot0 = max(gf[S.G_FREE], 0.0)
    pot1 = max(gf[S.G_FREE + 1], 0.0)
    gi[S.GI_EPOCH] += 1
    cons = gi[S.GI_EPOCH]
    n0 = nv
    if c0 <= pot0 and c1 <= pot1:
        # Free resources alone fit, yet Hadoop looks at one container before it tests
        # that: the newest one not chosen (AM and marked ones aside), whoever runs it.
        a = _newest_unmarked(W, chosen)
        if a >= 0 and qs[js[W[16][ai[a, S.AI_TASK], S.TS_JOB], S.JS_QUEUE], S.QS_PREEMPTABLE] == 1:
            if _take(W, a, cons):
                vict[nv] = a
                li[ai[a, S.AI_LIVE], S.LI_CHOSEN] = chosen
                nv += 1
        return nv, resume
    first = -1
    i = max(resume, 0)
    while True:
        a = _cand_at(W, heads, i)
        if a < 0:
            return n0, resume
        if li[ai[a, S.AI_LIVE], S.LI_CHOSEN] != chosen and lf[ai[a, S.AI_LIVE], S.LF_MARK] < 0.0:
            if _take(W, a, cons):
                if first < 0:
                    first = i
                vict[nv] = a
                nv += 1
                r0, r1 = _request_of(W, a)
                pot0 += r0
                pot1 += r1
            if c0 <= pot0 and c1 <= pot1:
                for k in range(n0, nv):
                    li[ai[vict[k], S.AI_LIVE], S.LI_CHOSEN] = chosen
                return nv, first
        i += 1


@kernel_jit
def _newest_unmarked(W, chosen):
    """The newest running task container not marked for preemption and not `chosen`
    (-1: none): the highest set bit of `unmarked` whose attempt is not chosen, as
    attempts are numbered in the order they start."""
    li = W[51]
    ai, gi, unmarked = W[20], W[24], W[39]
    word = (gi[S.GI_N_ATT] - 1) >> 6
    while word >= 0:
        bits = unmarked[word]
        b = 63
        while bits != 0:
            while (bits >> np.uint64(b)) & np.uint64(1) == 0:
                b -= 1
            a = word * 64 + b
            if li[ai[a, S.AI_LIVE], S.LI_CHOSEN] != chosen:
                return a
            bits &= ~(np.uint64(1) << np.uint64(b))
        word -= 1
    return -1


@kernel_jit
def _request_of(W, a):
    """The resources attempt `a` holds."""
    jsf, tsf, ai = W[7], W[17], W[20]
    task = ai[a, S.AI_TASK]
    if task < 0:
        return jsf[-1 - task, S.JSF_AM], jsf[-1 - task, S.JSF_AM + 1]
    return tsf[task, S.TSF_REQ], tsf[task, S.TSF_REQ + 1]


@kernel_jit
def _take(W, a, cons):
    """Whether candidate container `a` (see `_victim_candidates`, which also brought the app
    fair shares up to date) can be a victim in the current scan: its app keeps at least
    its fair share without it (and without what the scan `cons` already took from it);
    counts it taken."""
    jf, ji, ts, ai = W[8], W[9], W[16], W[20]
    vj = ts[ai[a, S.AI_TASK], S.TS_JOB]
    r0, r1 = _request_of(W, a)
    if ji[vj, S.JI_CONS_EPOCH] != cons:
        ji[vj, S.JI_CONS_EPOCH] = cons
        jf[vj, S.JF_CONS] = 0.0
        jf[vj, S.JF_CONS + 1] = 0.0
    if not _keeps_share(W, vj, r0, r1, jf[vj, S.JF_CONS], jf[vj, S.JF_CONS + 1]):
        return False
    jf[vj, S.JF_CONS] += r0
    jf[vj, S.JF_CONS + 1] += r1
    return True


@kernel_jit
def _keeps_share(W, j, r0, r1, c0, c1):
    """Whether app `j` stays at or above its fair share after losing a container of
    (r0, r1) besides (c0, c1) already taken and what is marked for preemption."""
    qs, js, jf = W[0], W[6], W[8]
    after0 = jf[j, S.JF_USE] - jf[j, S.JF_TBP] - r0 - c0
    after1 = jf[j, S.JF_USE + 1] - jf[j, S.JF_TBP + 1] - r1 - c1
    policy = qs[js[j, S.JS_QUEUE], S.QS_POLICY]
    return not _below(W, policy, after0, after1, _app_fair(W, j, 0), _app_fair(W, j, 1))
