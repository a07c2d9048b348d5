"""Fair shares exactly as Hadoop's ComputeFairShares computes them.

For schedulables with weight w, min share m and max share M sharing a total T:
fixed ones first (M <= 0 gives 0; an inactive queue gives 0 for instantaneous
shares; w <= 0 gives max(m, 0)); the rest get floor(min(max(w * R, m), M)) for the
weight-to-resource ratio R that makes them add up to min(sum M, T - fixed),
found by doubling then 25 rounds of bisection. Shares are computed top-down: a
parent's share is divided among its children. Scheduling under the ``fair``
policy looks at memory only; ``drf`` uses every resource type, so both types are
computed here.
"""

from __future__ import annotations

import numpy as np

from whatif.allocation.effective import EffectiveAllocation, EffectiveQueue, Resources

#: Bisection rounds, as ComputeFairShares.COMPUTE_FAIR_SHARES_ITERATIONS.
BISECTION_ROUNDS = 25

#: Java's Integer.MAX_VALUE: resourceUsedWithWeightToResourceRatio saturates here.
JAVA_INT_MAX = 2**31 - 1


def _planned(ratio: float, weights: np.ndarray, mins: np.ndarray, maxs: np.ndarray) -> float:
    shares = np.floor(np.minimum(np.maximum(weights * ratio, mins), maxs))
    return min(float(shares.sum()), float(JAVA_INT_MAX))


def compute_shares(
    weights: np.ndarray,
    min_shares: np.ndarray,
    max_shares: np.ndarray,
    total: float,
    active: np.ndarray | None = None,
) -> np.ndarray:
    """Shares of one resource type for sibling schedulables.

    Parameters
    ----------
    weights, min_shares, max_shares : float arrays of shape (n,)
        Per schedulable; ``inf`` in ``max_shares`` means unlimited.
    total : float
        The amount the siblings divide (the parent's share, or the cluster).
    active : bool array of shape (n,), optional
        For instantaneous shares, which schedulables have runnable apps; omit it
        for steady shares, which count every queue.

    Returns
    -------
    float array of shape (n,): whole-number shares.
    """
    weights = np.asarray(weights, dtype=float)
    mins = np.asarray(min_shares, dtype=float)
    maxs = np.asarray(max_shares, dtype=float)
    shares = np.zeros(weights.shape, dtype=float)
    fixed = maxs <= 0
    if active is not None:
        fixed |= ~np.asarray(active, dtype=bool)
    zero_weight = ~fixed & (weights <= 0)
    shares[zero_weight] = np.maximum(mins[zero_weight], 0.0)
    fixed |= zero_weight
    taken = float(shares[fixed].sum())
    free = ~fixed
    if not free.any():
        return shares
    w, lo, hi = weights[free], mins[free], maxs[free]
    remaining = min(float(np.minimum(hi, float(2**63 - 1)).sum()), max(float(total) - taken, 0.0))
    r_max = 1.0
    while _planned(r_max, w, lo, hi) < remaining:
        r_max *= 2.0
    left, right = 0.0, r_max
    for _ in range(BISECTION_ROUNDS):
        mid = (left + right) / 2.0
        planned = _planned(mid, w, lo, hi)
        if planned == remaining:
            right = mid
            break
        if planned < remaining:
            left = mid
        else:
            right = mid
    shares[free] = np.floor(np.minimum(np.maximum(w * right, lo), hi))
    return shares


def fair_shares(
    allocation: EffectiveAllocation,
    cluster: Resources,
    *,
    active_leaves: set[str] | None = None,
    hadoop_version: int = 3,
) -> dict[str, Resources]:
    """Fair share of every queue, by full name, each capped at the maximum Hadoop
    `hadoop_version` enforces (`EffectiveQueue.max_share`).

    With ``active_leaves`` (the leaves that have runnable apps) the result is the
    instantaneous fair share used for scheduling and preemption; without it, the
    steady fair share Hadoop shows as ``steadyFairResources``.
    """
    result: dict[str, Resources] = {allocation.root.name: cluster}
    active_names = None if active_leaves is None else _active_queues(allocation.root, active_leaves)

    def divide(parent: EffectiveQueue, share: Resources) -> None:
        children = parent.children
        if not children:
            return
        whole = Resources(cluster.memory_mb, cluster.vcores)
        maxs = [c.max_share(whole, hadoop_version) for c in children]
        active = (
            None if active_names is None else np.array([c.name in active_names for c in children])
        )
        weights = np.array([c.weight for c in children])
        # one column per resource type: (memory_mb, vcores)
        minimums = np.array([(c.min_resources.memory_mb, c.min_resources.vcores) for c in children])
        maximums = np.array([(m.memory_mb, m.vcores) for m in maxs])
        totals = (share.memory_mb, share.vcores)
        memory, vcores = (
            compute_shares(weights, minimums[:, k], maximums[:, k], totals[k], active)
            for k in (0, 1)
        )
        for child, mem, cpu in zip(children, memory, vcores, strict=True):
            result[child.name] = Resources(float(mem), float(cpu))
            divide(child, result[child.name])

    divide(allocation.root, cluster)
    return result


def _active_queues(root: EffectiveQueue, active_leaves: set[str]) -> set[str]:
    """Queues with at least one active leaf below them (or being one)."""
    active: set[str] = set()

    def visit(queue: EffectiveQueue) -> bool:
        if not queue.children:
            hit = queue.name in active_leaves
        else:
            hit = any([visit(child) for child in queue.children])
        if hit:
            active.add(queue.name)
        return hit

    visit(root)
    return active


def slot_shares(
    weights: np.ndarray, min_shares: np.ndarray, demands: np.ndarray, total: float
) -> np.ndarray:
    """Hadoop 1's ``SchedulingAlgorithms.computeFairShares`` over one slot type.

    Each schedulable gets ``min(max(w * R, minShare), demand)`` slots (a double, not
    rounded) for the ratio R that makes the shares add up to
    ``min(sum of demands, total)``: doubling then 25 rounds of bisection, the share
    taken at the upper end, as Hadoop 1 does. ``inf`` demands mean unlimited.
    """
    weights = np.asarray(weights, dtype=float)
    mins = np.asarray(min_shares, dtype=float)
    demands = np.asarray(demands, dtype=float)

    def used(ratio: float) -> float:
        return float(np.minimum(np.maximum(weights * ratio, mins), demands).sum())

    cap = min(float(demands.sum()), float(total))
    r_max = 1.0
    while used(r_max) < cap and r_max < 2.0**1000:
        r_max *= 2.0
    left, right = 0.0, r_max
    for _ in range(BISECTION_ROUNDS):
        mid = (left + right) / 2.0
        if used(mid) < cap:
            left = mid
        else:
            right = mid
    result: np.ndarray = np.minimum(np.maximum(weights * right, mins), demands)
    return result


def pool_slot_shares(
    allocation: EffectiveAllocation, slots: dict[str, int]
) -> dict[str, dict[str, float]]:
    """Steady Hadoop 1 fair share of every pool, per slot type (``map``, ``reduce``).

    Every pool is taken to demand as many slots as its ``maxMaps``/``maxReduces``
    allow (unlimited without one); its min share is ``minMaps``/``minReduces``.
    Hadoop 1 caps both by the pool's actual demand, so running shares are lower
    for a pool with few tasks.
    """
    pools = list(allocation.root.children)
    result: dict[str, dict[str, float]] = {q.name: {} for q in pools}
    weights = np.array([q.weight for q in pools])
    for stage, total in slots.items():
        mins = np.array([float(getattr(q, f"min_{stage}s") or 0) for q in pools])
        caps = [getattr(q, f"max_{stage}s") for q in pools]
        demands = np.array([np.inf if c is None else float(c) for c in caps])
        for pool, share in zip(pools, slot_shares(weights, mins, demands, total), strict=True):
            result[pool.name][stage] = float(share)
    return result
