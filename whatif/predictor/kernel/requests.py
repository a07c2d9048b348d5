"""What an app asks for next: its released stage with pending tasks of the best priority
in a dimension, and that stage's next task.

A located map stage (Hadoop 1 delay scheduling, `locality.py`) may have its tasks taken
out of order: `_take_task` flags a later fresh task as assigned (the stage's next fresh
task then passes over it) or unlinks a re-queued one, and `_give_back` makes a task
unassigned again: fresh again if the stage has not passed it, else re-queued.
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.state import (
    JS_ST_HI,
    JS_ST_LO,
    SI_ASKED,
    SI_HELD,
    SI_NEXT,
    SI_NONLOC,
    SI_PENDING,
    SI_RELEASED,
    SI_RETRY_HEAD,
    SI_RETRY_TAIL,
    SS_DIM,
    SS_HI,
    SS_JT,
    SS_LOC,
    SS_PRIO,
    TF_LOCATED,
    TF_TAKEN,
    TI_RETRY_NEXT,
)


@kernel_jit
def _next_stage(W, j, d):
    js, ss, si = W[6], W[12], W[14]
    best = -1
    uj = np.uint64(j)  # unsigned rows: no negative-index wraparound
    for s in range(js[uj, JS_ST_LO], js[uj, JS_ST_HI]):
        u = np.uint64(s)
        if (
            si[u, SI_RELEASED] == 1
            and si[u, SI_HELD] == 0
            and si[u, SI_PENDING] > 0
            and si[u, SI_ASKED] != 0
            and ss[u, SS_DIM] == d
            and ss[u, SS_JT] == 0
        ):
            if best < 0 or ss[u, SS_PRIO] < ss[np.uint64(best), SS_PRIO]:
                best = s
    return best


@kernel_jit
def _head_task(W, s):
    ss, si = W[12], W[14]
    u = np.uint64(s)  # unsigned rows: no negative-index wraparound
    if si[u, SI_NEXT] < ss[u, SS_HI]:
        return si[u, SI_NEXT]
    return si[u, SI_RETRY_HEAD]


@kernel_jit
def _take_head(W, s):
    """Take stage `s`'s next task (`_head_task`) off its unassigned tasks."""
    ss, si, ti = W[12], W[14], W[18]
    u = np.uint64(s)  # unsigned rows: no negative-index wraparound
    if ss[u, SS_LOC] != 0:
        return _take_task(W, s, _head_task(W, s))
    if si[u, SI_NEXT] < ss[u, SS_HI]:
        task = si[u, SI_NEXT]
        si[u, SI_NEXT] += 1
        return task
    task = si[s, SI_RETRY_HEAD]
    nxt = ti[task, TI_RETRY_NEXT]
    si[s, SI_RETRY_HEAD] = nxt
    if nxt < 0:
        si[s, SI_RETRY_TAIL] = -1
    return task


@kernel_jit
def _take_task(W, s, task):
    """Take `task` of located stage `s` off its unassigned tasks, wherever it is: the next
    fresh task (the stage moves past the fresh ones already taken), a later fresh one
    (flagged), or a re-queued one (unlinked from the retry list)."""
    ss, si, ti, tfl = W[12], W[14], W[18], W[47]
    tfl[task] |= TF_TAKEN
    if (tfl[task] & TF_LOCATED) == 0:
        si[s, SI_NONLOC] -= 1
    nxt = si[s, SI_NEXT]
    if task == nxt:
        hi = ss[s, SS_HI]
        nxt += 1
        while nxt < hi and (tfl[nxt] & TF_TAKEN) != 0:
            nxt += 1
        si[s, SI_NEXT] = nxt
    elif task < nxt:
        prev = -1
        cur = si[s, SI_RETRY_HEAD]
        while cur != task:
            prev = cur
            cur = ti[cur, TI_RETRY_NEXT]
        after = ti[task, TI_RETRY_NEXT]
        if prev < 0:
            si[s, SI_RETRY_HEAD] = after
        else:
            ti[prev, TI_RETRY_NEXT] = after
        if after < 0:
            si[s, SI_RETRY_TAIL] = prev
    return task


@kernel_jit
def _give_back(W, s, task):
    """Task `task` of located stage `s` is unassigned again: True if it goes on the retry
    list (the stage passed it), False if it is a fresh task again."""
    si, tfl = W[14], W[47]
    tfl[task] &= TF_LOCATED
    if (tfl[task] & TF_LOCATED) == 0:
        si[s, SI_NONLOC] += 1
    return task < si[s, SI_NEXT]
