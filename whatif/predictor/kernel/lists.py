"""Doubly linked lists threaded through a table's rows (apps of a leaf, waiting apps,
running attempts, re-queued tasks).
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel.caching import kernel_jit


# Doubly linked lists threaded through a table's rows: row x's links are
# nodes[x, nxt] and nodes[x, prv]; the list's head and tail are heads[h], heads[h + 1].
@kernel_jit
def _append(nodes, nxt, prv, heads, h, x):
    tail = heads[h + 1]
    u = np.uint64(x)  # unsigned rows: no negative-index wraparound
    nodes[u, prv] = tail
    nodes[u, nxt] = -1
    if tail >= 0:
        nodes[np.uint64(tail), nxt] = x
    else:
        heads[h] = x
    heads[h + 1] = x


@kernel_jit
def _remove(nodes, nxt, prv, heads, h, x):
    u = np.uint64(x)  # unsigned rows: no negative-index wraparound
    p = nodes[u, prv]
    n = nodes[u, nxt]
    if p >= 0:
        nodes[np.uint64(p), nxt] = n
    else:
        heads[h] = n
    if n >= 0:
        nodes[np.uint64(n), prv] = p
    else:
        heads[h + 1] = p


@kernel_jit
def _keep_listed(nodes, nxt, prv, heads, h, flag, x, wanted):
    """Row x in the list at heads[h] exactly while `wanted` (nodes[x, flag]: whether it is)."""
    if wanted and nodes[x, flag] == 0:
        _append(nodes, nxt, prv, heads, h, x)
        nodes[x, flag] = 1
    elif not wanted and nodes[x, flag] == 1:
        _remove(nodes, nxt, prv, heads, h, x)
        nodes[x, flag] = 0
