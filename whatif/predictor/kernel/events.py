"""The event queue and the clock's grids: a 4-ary heap of (time, sequence) events, the
preemption checks' grid times, and timeouts.
"""

from __future__ import annotations

import math

import numpy as np

from whatif.predictor.grid import on_grid
from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.world import ordered_bits, prefetch


# A 4-ary min-heap on (time, seq): half the levels of a binary heap. (time, seq) pairs
# are unique, so the order events come out in does not depend on the heap's shape. Times
# are kept as `ordered_bits`, so that comparing entries is integer work that compiles to
# conditional moves. The keys (time, seq) are pairs of adjacent words in `hk`, apart from
# the payload rows in `hi`: a node's four children's keys fill one 64-byte cache line
# (`compiled.heap_arrays` aligns them), and a sift compares within that line and reads
# only the winner's payload row, which it moves with its key; the four children's payload
# rows fill two lines, prefetched while the keys are compared.
@kernel_jit(inline="always")
def _move(hk, hi, dst, src):
    """Entry `src` (key and payload) to slot `dst`."""
    d = np.uint64(dst)  # unsigned slots: indexing compiles without negative-index wraparound
    s = np.uint64(src)
    hk[d, S.HK_KEY] = hk[s, S.HK_KEY]
    hk[d, S.HK_SEQ] = hk[s, S.HK_SEQ]
    for col in range(S.N_HI):
        hi[d, col] = hi[s, col]


@kernel_jit
def heap_push(hk, hi, gi, time, kind, ident, task, job):
    """Push (time, seq, kind, ident); seq is the global insertion counter. The event's
    task (-1: none) and job come along, so that their rows can be prefetched when the
    event comes to the top."""
    key: int = ordered_bits(time)
    seq = gi[S.GI_SEQ]
    gi[S.GI_SEQ] = seq + 1
    i = gi[S.GI_HEAP_N]
    gi[S.GI_HEAP_N] = i + 1
    while i > 0:
        p = (i - 1) >> 2
        if hk[np.uint64(p), S.HK_KEY] <= key:  # seq is the newest: an equal key comes before it
            break
        _move(hk, hi, i, p)
        i = p
    u = np.uint64(i)
    hk[u, S.HK_KEY] = key
    hk[u, S.HK_SEQ] = seq
    hi[u, S.HI_KIND] = kind
    hi[u, S.HI_IDENT] = ident
    hi[u, S.HI_TASK] = task
    hi[u, S.HI_JOB] = job


@kernel_jit(inline="always")
def _earlier(k, s, k_then, s_then):
    """Whether entry (k, s) comes before (k_then, s_then); `&`, `|` do not short-circuit,
    so the choice it makes compiles to selects (which entry wins is unpredictable)."""
    return (k < k_then) | ((k == k_then) & (s < s_then))


@kernel_jit
def heap_pop(hk, hi, gi):
    """Remove the smallest (time, seq) entry; returns (kind, ident)."""
    kind = hi[0, S.HI_KIND]
    ident = hi[0, S.HI_IDENT]
    n = gi[S.GI_HEAP_N] - 1
    gi[S.GI_HEAP_N] = n
    if n > 0:
        k = hk[n, S.HK_KEY]
        s = hk[n, S.HK_SEQ]
        i = 0
        while True:
            first = 4 * i + 1
            if first >= n:
                break
            c = first
            f = np.uint64(first)  # unsigned: no negative-index wraparound
            # the children's payload rows (two lines): the winner's row is moved up next,
            # and its load would otherwise wait on memory after the comparisons
            prefetch(hi, f)
            prefetch(hi, f + np.uint64(2))
            bk = hk[f, S.HK_KEY]
            bs = hk[f, S.HK_SEQ]
            if first + 3 < n:
                # four children: two pairs side by side, then the winners of the pairs
                k1, s1 = hk[f + np.uint64(1), S.HK_KEY], hk[f + np.uint64(1), S.HK_SEQ]
                k2, s2 = hk[f + np.uint64(2), S.HK_KEY], hk[f + np.uint64(2), S.HK_SEQ]
                k3, s3 = hk[f + np.uint64(3), S.HK_KEY], hk[f + np.uint64(3), S.HK_SEQ]
                one = _earlier(k1, s1, bk, bs)
                c = first + 1 if one else c
                bk = k1 if one else bk
                bs = s1 if one else bs
                three = _earlier(k3, s3, k2, s2)
                c23 = first + 3 if three else first + 2
                k23 = k3 if three else k2
                s23 = s3 if three else s2
                right = _earlier(k23, s23, bk, bs)
                c = c23 if right else c
                bk = k23 if right else bk
                bs = s23 if right else bs
            else:
                for x in range(first + 1, n):
                    kx = hk[x, S.HK_KEY]
                    sx = hk[x, S.HK_SEQ]
                    less = _earlier(kx, sx, bk, bs)
                    c = x if less else c
                    bk = kx if less else bk
                    bs = sx if less else bs
            if _earlier(bk, bs, k, s):
                _move(hk, hi, i, c)
                i = c
            else:
                break
        _move(hk, hi, i, n)
    return kind, ident


@kernel_jit
def _expired(waited, timeout):
    """Whether a Hadoop 1/2 starvation timer acts: once strictly past the timeout
    (Hadoop 1 tasksToPreempt, Hadoop 2 resToPreempt: curTime - lastTime > timeout)."""
    return waited > timeout


@kernel_jit
def _grid_at_or_after(x, interval):
    k = math.floor(x / interval)
    g = k * interval
    return g if g >= x else (k + 1) * interval


@kernel_jit
def _grid_after(x, interval):
    k = math.floor(x / interval)
    g = k * interval
    return g if g > x else (k + 1) * interval


#: `grid.on_grid`, compiled: node heartbeats and AM calls (``nodes.next_heartbeat``).
_on_grid = kernel_jit(on_grid)
