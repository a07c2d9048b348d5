"""The numba engine's app order trees (``kernel/apptree.py``): made as small as the apps
live at once in each leaf, and grown when the kernel asks (`advance` returns 2).

Sized for every job a leaf ever sees, the trees took 42 MB at 1M tasks (65k jobs) and
some 450 MB at 10M; the apps live at once are a few hundred. Each growth copies every
leaf's trees, so they start at `MIN_SLOTS` and grow fourfold: the benchmark's 1M-task run
grew them 44 times (2.5 % of its run) when they started at one slot and doubled.
"""

from __future__ import annotations

import numpy as np

from whatif.predictor import kernel as K

#: The slots a leaf's trees start with (a tree node is a 64-byte line: 6 KB a leaf).
MIN_SLOTS = 16


def line_aligned(shape: tuple[int, int], fill: int) -> np.ndarray:
    """An int64 array filled with `fill` that starts on a 64-byte cache line, so that rows
    of 8 columns never straddle two lines."""
    n = shape[0] * shape[1]
    buf = np.full(n + 8, fill, dtype=np.int64)
    skip = (-buf.ctypes.data % 64) // 8
    return buf[skip : skip + n].reshape(shape)


def _powers_of_two(n: np.ndarray) -> np.ndarray:
    """The smallest power of two at least each of `n` (and at least 1)."""
    powers: np.ndarray = np.left_shift(1, np.ceil(np.log2(np.maximum(n, 1))).astype(np.int64))
    return powers


def _top_bits(node: np.ndarray) -> np.ndarray:
    """The highest set bit of each node number (2 ** its depth in the tree)."""
    bits: np.ndarray = np.left_shift(1, np.floor(np.log2(node)).astype(np.int64))
    return bits


def app_order_trees(
    job_queue: np.ndarray, job_state: np.ndarray, qi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empty app order trees (``tree``, ``slots``, ``tnode``): per leaf, N_VIEWS trees of
    2 * P nodes, P a power of two at least its live apps (jobs in state 1 or 2) and
    `MIN_SLOTS`; sets each leaf's tree offset, P, width in use (1), root and live count
    (``QI_LIVE``). Runnable apps then take slots anew (the caller sets every ``JI_POS``
    to -1 first)."""
    nq = qi.shape[0]
    live = np.bincount(job_queue[(job_state == 1) | (job_state == 2)], minlength=nq)
    p = _powers_of_two(np.maximum(live, MIN_SLOTS))
    sizes = K.N_VIEWS * 2 * p
    qi[:, K.QI_TREE_P] = p
    qi[:, K.QI_TREE_OFF] = np.cumsum(sizes) - sizes
    qi[:, K.QI_TREE_K] = 1
    qi[:, K.QI_TREE_ROOT] = p
    qi[:, K.QI_SLOT_NEXT] = 0
    qi[:, K.QI_SLOT_FREE] = 0
    qi[:, K.QI_LIVE] = live
    tree = np.full(int(sizes.sum()), -1, dtype=np.int64)
    tnode = line_aligned((len(tree), K.N_TN), K.TN_NONE)
    return tree, np.zeros(int(p.sum()), dtype=np.int64), tnode


def submitted_next(js: np.ndarray, jsf: np.ndarray, gi: np.ndarray) -> np.ndarray:
    """The jobs the kernel submits at its next submission time (none when all are)."""
    first = int(gi[K.GI_NEXT_SUBMIT])
    submit = jsf[first : len(js), K.JSF_SUBMIT]
    later = np.flatnonzero(submit != submit[0]) if len(submit) else submit[:0]
    return np.arange(first, first + (int(later[0]) if len(later) else len(submit)))


def trees_needed(qi: np.ndarray, js: np.ndarray, jobs: np.ndarray) -> np.ndarray:
    """Each leaf's least P for the iteration submitting `jobs` (`kernel._trees_fit`): its
    live apps plus the jobs submitted, for the leaves they go to; 0 for the others."""
    need = np.zeros(qi.shape[0], dtype=np.int64)
    leaves = np.unique(js[jobs, K.JS_QUEUE])
    need[leaves] = qi[leaves, K.QI_LIVE] + len(jobs)
    return need


def grown_trees(
    qi: np.ndarray, tree: np.ndarray, tnode: np.ndarray, slots: np.ndarray, need: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The trees with each leaf whose P is below `need` grown to a power of two at least
    `need` and four times its P; updates the leaves' offsets, P and roots in `qi`.

    Node n at depth d of a tree of P slots covers the same slots as node n + 2^d (P'/P - 1)
    of a tree of P' slots (its old root becomes the leftmost node P'/P levels down), so
    every node, the slots in use and the free-slot stack keep their contents."""
    old_p = qi[:, K.QI_TREE_P].copy()
    new_p = np.where(need > old_p, np.maximum(_powers_of_two(need), 4 * old_p), old_p)
    old_off = qi[:, K.QI_TREE_OFF].copy()
    sizes = K.N_VIEWS * 2 * new_p
    new_off = np.cumsum(sizes) - sizes
    new_tree = np.full(int(sizes.sum()), -1, dtype=np.int64)
    new_tnode = line_aligned((len(new_tree), K.N_TN), K.TN_NONE)
    new_slots = np.zeros(int(new_p.sum()), dtype=np.int64)
    for q, (p, big) in enumerate(zip(old_p.tolist(), new_p.tolist(), strict=True)):
        node = np.arange(1, 2 * p, dtype=np.int64)
        moved = node + _top_bits(node) * (big // p - 1)
        for view in range(K.N_VIEWS):
            src = old_off[q] + view * 2 * p + node
            dst = new_off[q] + view * 2 * big + moved
            new_tree[dst] = tree[src]
            new_tnode[dst] = tnode[src]
        root = qi[q : q + 1, K.QI_TREE_ROOT]
        qi[q, K.QI_TREE_ROOT] = root[0] + _top_bits(root)[0] * (big // p - 1)
        old_slots = old_off[q] // (2 * K.N_VIEWS)
        new_slots[new_off[q] // (2 * K.N_VIEWS) :][:p] = slots[old_slots : old_slots + p]
    qi[:, K.QI_TREE_P] = new_p
    qi[:, K.QI_TREE_OFF] = new_off
    return new_tree, new_tnode, new_slots
