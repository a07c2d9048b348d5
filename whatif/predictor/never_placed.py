"""Jobs the predicted scheduler can never finish, found from the packed arrays before a run.

A prediction with unfinished jobs is refused (`whatif.metrics.require_finished`); most
often the cause is a limit no container of the job can ever fit, and the operator wants
that limit named, not only a count of stuck jobs. Each rule is one the engines apply, so
a job named here is one they leave unfinished (``tests/whatif/predictor/test_never_placed.py``
checks that against predictions):

- a running-apps limit of 0 on the job's queue, an ancestor or its user (the app is never
  made runnable: MaxRunningAppsEnforcer.canAppBeRunnable);
- a request larger than every node (without nodes, than the cluster);
- an AM or a task asking more, in some dimension, than the maximum share of its queue or of
  an ancestor (FSQueue.fitsInMaxShare: usage plus the request, even from an empty queue);
- an AM asking more than its queue's maxAMShare can ever grant (FSLeafQueue.canRunAppAM:
  the share of the queue's fair share, or where that is 0 of its maximum share, neither
  above the maximum share up the tree nor the cluster; Hadoop 3 rounds it up, Hadoop 2
  down and compares memory alone but under drf).

A job is named for the first of these that stops it.

In the Capacity Scheduler mode the maximum share is the maximum capacity up the tree, in
memory as the engines compare it (LeafQueue's headroom, ParentQueue.canAssignToThisQueue:
used plus the request, even from an empty queue), with the node and cluster check; its
other limits (user limits, maximum-am-resource-percent, which lets a queue's first AM
start whatever its size) stop no job for good. A job stopped by its maximum capacity may
hold up the jobs after it in its queue (the leaf stops at it), which are not named: they
run when the user limits let the leaf pass it over.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from whatif.predictor.pack import POLICY_CODES, Packed
from whatif.schedule import NeverPlaced

#: Tasks compared with the nodes at a time (bounds the temporary arrays at 10M tasks).
_CHUNK = 1 << 20


@dataclass(frozen=True, eq=False)
class _Tree:
    """What the checks read of the queue tree, computed once: each queue's maximum share,
    the least of its own and its ancestors' per dimension, and the nearest queue up the
    tree (itself first) whose running-apps limit is 0 (-1: none)."""

    chain: np.ndarray
    no_apps: np.ndarray
    hadoop_version: int


def never_placed(packed: Packed, hadoop_version: int = 3) -> tuple[NeverPlaced, ...]:
    """Per queue and cause, the jobs of `packed` that can never finish (see the module)
    under Hadoop `hadoop_version`'s rules."""
    found: list[NeverPlaced] = []
    named = np.zeros(len(packed.job_queue), dtype=bool)  # a job is named for one cause only
    tree = _up_the_tree(packed, hadoop_version)
    checks: tuple[Callable[[Packed, _Tree, np.ndarray], list[NeverPlaced]], ...]
    if packed.queues.capacity is None:
        checks = (_app_limits, _too_large, _am_over_share, _am_share_cap, _task_limits)
    else:
        checks = (_too_large, _am_over_share, _task_limits)
    for check in checks:
        found += check(packed, tree, named)
    return tuple(found)


def _by_leaf(
    packed: Packed, stopped: np.ndarray, named: np.ndarray
) -> Iterator[tuple[str, int, np.ndarray]]:
    """(queue name, leaf, the jobs `stopped` there) for each leaf with one, leaving out the
    jobs `named` already, which are then `named`."""
    stopped = stopped & ~named
    named |= stopped
    leaf = packed.job_queue
    for q in np.unique(leaf[stopped]):
        yield packed.queues.names[q], int(q), np.flatnonzero(stopped & (leaf == q))


def _up_the_tree(packed: Packed, hadoop_version: int) -> _Tree:
    """The tree's limits (`_Tree`)."""
    pq = packed.queues
    chain = np.array(pq.max_share, dtype=float)
    if pq.capacity is not None:
        chain[:, 1] = np.inf  # the Capacity Scheduler mode's limits are in memory
    no_apps = np.where(pq.max_apps == 0, np.arange(len(pq.parent)), -1)
    for q in range(1, len(pq.parent)):  # parents come before their children
        p = pq.parent[q]
        chain[q] = np.minimum(chain[q], chain[p])
        if no_apps[q] < 0:
            no_apps[q] = no_apps[p]
    return _Tree(chain, no_apps, hadoop_version)


def _app_limits(packed: Packed, tree: _Tree, named: np.ndarray) -> list[NeverPlaced]:
    """Jobs whose queue, an ancestor or user may run no app."""
    no_apps = tree.no_apps
    found = []
    by_queue = no_apps[packed.job_queue]
    for name, _, jobs in _by_leaf(packed, by_queue >= 0, named):
        limit = packed.queues.names[by_queue[jobs[0]]]
        found.append(
            NeverPlaced(name, len(jobs), f"{limit} may run no app (its running-apps limit is 0)")
        )
    user_limit = packed.user_max_apps[packed.job_user]
    for user in np.unique(packed.job_user[(user_limit == 0) & (by_queue < 0)]):
        stopped = (packed.job_user == user) & (by_queue < 0)
        who = packed.user_names[int(user)]
        for name, _, jobs in _by_leaf(packed, stopped, named):
            found.append(
                NeverPlaced(
                    name, len(jobs), f"user {who} may run no app (its running-apps limit is 0)"
                )
            )
    return found


def _am_over_share(packed: Packed, tree: _Tree, named: np.ndarray) -> list[NeverPlaced]:
    """Jobs whose AM exceeds a maximum share up the tree."""
    chain = tree.chain
    am = packed.job_am
    over = (packed.job_has_am == 1) & (am > chain[packed.job_queue]).any(axis=1)
    return [
        NeverPlaced(name, len(jobs), _over_share(packed, chain, q, "AMs", am[jobs].max(axis=0)))
        for name, q, jobs in _by_leaf(packed, over, named)
    ]


def _am_share_cap(packed: Packed, tree: _Tree, named: np.ndarray) -> list[NeverPlaced]:
    """Jobs whose AM exceeds what maxAMShare lets their queue's AMs hold."""
    chain = tree.chain
    leaf, am, pq = packed.job_queue, packed.job_am, packed.queues
    v3 = tree.hadoop_version == 3
    most = pq.max_am_share[:, None] * np.minimum(chain, packed.cluster)
    bound = np.ceil(most) if v3 else np.floor(most)
    if not v3:  # Hadoop 2 compares the AMs' memory alone but under drf
        bound[pq.policy != POLICY_CODES["drf"], 1] = np.inf
    limited = np.abs(pq.max_am_share + 1.0) >= 1e-4  # -1: no limit, as the engines read it
    capped = (packed.job_has_am == 1) & limited[leaf] & (am > bound[leaf]).any(axis=1)
    found = []
    for name, q, jobs in _by_leaf(packed, capped, named):
        asked = am[jobs].max(axis=0)
        d = int(np.argmax(asked > bound[q]))
        found.append(
            NeverPlaced(
                name,
                len(jobs),
                f"its AMs ask {_amount(packed, d, asked[d])}, more than maxAMShare "
                f"{pq.max_am_share[q]:g} lets its AMs hold ({_amount(packed, d, bound[q, d])})",
            )
        )
    return found


def _task_limits(packed: Packed, tree: _Tree, named: np.ndarray) -> list[NeverPlaced]:
    """Jobs with a task asking more than a maximum share up the tree."""
    chain = tree.chain
    stage_job, asked = packed.stage_jobs(), packed.stage_largest()
    over = (asked > chain[packed.job_queue[stage_job]]).any(axis=1)
    stopped = np.zeros(len(packed.job_queue), dtype=bool)
    stopped[stage_job[over]] = True
    found = []
    for name, q, jobs in _by_leaf(packed, stopped, named):
        stages = np.flatnonzero(over & np.isin(stage_job, jobs))
        what = f"{packed.stage_kinds[packed.stage_kind[stages[0]]]} tasks"
        found.append(
            NeverPlaced(
                name, len(jobs), _over_share(packed, chain, q, what, asked[stages].max(axis=0))
            )
        )
    return found


def _over_share(packed: Packed, chain: np.ndarray, leaf: int, what: str, asked: np.ndarray) -> str:
    """`what` ask `asked`, above the maximum share up the tree from `leaf`: name the queue."""
    d = int(np.argmax(asked > chain[leaf]))
    pq = packed.queues
    q = leaf  # the queue nearest root that holds the limit: where the operator sets it
    while pq.parent[q] >= 0 and chain[pq.parent[q], d] == chain[leaf, d]:
        q = int(pq.parent[q])
    limit = "maximum share" if pq.capacity is None else "maximum capacity"
    # LeafQueue.assignContainers stops at an app its headroom cannot hold
    behind = "" if pq.capacity is None else "; the jobs after it in the queue may wait behind it"
    return (
        f"its {what} ask {_amount(packed, d, asked[d])}, more than the {limit} of "
        f"{pq.names[q]} ({_amount(packed, d, chain[leaf, d])}){behind}"
    )


def _too_large(packed: Packed, tree: _Tree, named: np.ndarray) -> list[NeverPlaced]:
    """Jobs with a request no node (without nodes, the cluster) could ever hold."""
    nodes = len(packed.node_capacity) > 0
    sizes = np.unique(packed.node_capacity if nodes else packed.cluster[None, :], axis=0)
    nj = len(packed.job_queue)
    largest = np.zeros((nj, 2))
    stopped = (packed.job_has_am == 1) & ~_fits_some(packed.job_am, sizes)
    largest[stopped] = packed.job_am[stopped]
    for lo in range(0, len(packed.task_req), _CHUNK):
        req = packed.task_req[lo : lo + _CHUNK]
        big = np.flatnonzero(~_fits_some(req, sizes))
        jobs = packed.task_job[lo + big]
        stopped[jobs] = True
        np.maximum.at(largest, jobs, req[big])
    held = ", ".join(size_text(packed, size) for size in sizes[:3])
    where = (
        f"any node holds ({held}{', ...' if len(sizes) > 3 else ''})"
        if nodes
        else f"the cluster holds ({held})"
    )
    found = []
    for name, _, jobs in _by_leaf(packed, stopped, named):
        asked = largest[jobs].max(axis=0)
        found.append(
            NeverPlaced(
                name,
                len(jobs),
                f"its containers ask up to {size_text(packed, asked)}, more than {where}",
            )
        )
    return found


def _fits_some(req: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Whether each request fits within one of `sizes` in both dimensions."""
    fits = np.zeros(len(req), dtype=bool)
    for size in sizes:
        fits |= (req <= size).all(axis=1)
    return fits


def size_text(packed: Packed, size: np.ndarray) -> str:
    """``1024 MB and 1 vcores``; in the Capacity Scheduler mode, whose limits are in
    memory, ``1024 MB``."""
    dims = (0, 1) if packed.queues.capacity is None else (0,)
    return " and ".join(_amount(packed, d, size[d]) for d in dims)


def _amount(packed: Packed, d: int, value: float) -> str:
    """``1024 MB``, ``1 vcores``, ``2 map slots``."""
    unit = ("map slots", "reduce slots")[d] if packed.slot_mode else ("MB", "vcores")[d]
    return f"{value:g} {unit}" if math.isfinite(value) else f"unlimited {unit}"
