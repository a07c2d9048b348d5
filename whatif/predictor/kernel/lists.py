"""Doubly linked lists threaded through a table's rows (apps of a leaf, waiting apps,
running attempts through their live rows, re-queued tasks).
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel.caching import kernel_jit


# Doubly linked lists threaded through a table's rows: member x's links are
# nodes[r, nxt] and nodes[r, prv] for its row r (x itself, or with `_via` rows[x, col]);
# the list's head and tail are heads[h], heads[h + 1]. Links and heads hold members.
@kernel_jit
def _row(rows, col, x):
    """The row of member `x`: `x` itself (col < 0), else rows[x, col] (an attempt's live row),
    unsigned: indexing by it compiles without negative-index wraparound."""
    if col < 0:
        return np.uint64(x)
    return np.uint64(rows[np.uint64(x), col])


@kernel_jit
def _append_via(nodes, rows, col, nxt, prv, heads, h, x):
    tail = heads[h + 1]
    u = _row(rows, col, x)
    nodes[u, prv] = tail
    nodes[u, nxt] = -1
    if tail >= 0:
        nodes[_row(rows, col, tail), nxt] = x
    else:
        heads[h] = x
    heads[h + 1] = x


@kernel_jit
def _remove_via(nodes, rows, col, nxt, prv, heads, h, x):
    u = _row(rows, col, x)
    p = nodes[u, prv]
    n = nodes[u, nxt]
    if p >= 0:
        nodes[_row(rows, col, p), nxt] = n
    else:
        heads[h] = n
    if n >= 0:
        nodes[_row(rows, col, n), prv] = p
    else:
        heads[h + 1] = p


@kernel_jit
def _append(nodes, nxt, prv, heads, h, x):
    _append_via(nodes, nodes, -1, nxt, prv, heads, h, x)


@kernel_jit
def _remove(nodes, nxt, prv, heads, h, x):
    _remove_via(nodes, nodes, -1, nxt, prv, heads, h, x)


@kernel_jit
def _keep_listed(nodes, nxt, prv, heads, h, flag, x, wanted):
    """Row x in the list at heads[h] exactly while `wanted` (nodes[x, flag]: whether it is)."""
    if wanted and nodes[x, flag] == 0:
        _append(nodes, nxt, prv, heads, h, x)
        nodes[x, flag] = 1
    elif not wanted and nodes[x, flag] == 1:
        _remove(nodes, nxt, prv, heads, h, x)
        nodes[x, flag] = 0


# Packed sets: the members x of a set are items[0 : counts[c]], in no kept order, and each
# one's place, plus `shift`, is rows[x, col] (-1: not a member); a member that leaves is
# replaced by the last one.
@kernel_jit
def _pack_add(items, rows, col, counts, c, x, shift):
    rows[x, col] = counts[c] + shift
    items[counts[c]] = x
    counts[c] += 1


@kernel_jit
def _pack_remove(items, rows, col, counts, c, x, shift):
    pos = rows[x, col] - shift
    counts[c] -= 1
    last = items[counts[c]]
    items[pos] = last
    rows[last, col] = pos + shift
    rows[x, col] = -1
