"""What an app asks for next: its released stage with pending tasks of the best priority
in a dimension, and that stage's next task.

A located map stage (Hadoop 1 delay scheduling, `locality.py`) may have its tasks taken
out of order: `_take_task` flags a later fresh task as assigned (the stage's next fresh
task then passes over it) or unlinks a re-queued one, and `_give_back` makes a task
unassigned again: fresh again if the stage has not passed it, else re-queued (in Hadoop 1
always re-queued, and still flagged assigned: off the location lists).

A stage's re-queued tasks are one list, its retry list; the first ``SI_FRONT_N`` of them
go before its fresh tasks, the others after (`_requeue`, by the stage's retry rule).
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.pack import FAST_FAIL_PRIORITY, RETRY_FAILED_FIRST, RETRY_FIRST


@kernel_jit
def _next_stage(W, j, d):
    js, ss, si = W[6], W[12], W[14]
    best = -1
    uj = np.uint64(j)  # unsigned rows: no negative-index wraparound
    for s in range(js[uj, S.JS_ST_LO], js[uj, S.JS_ST_HI]):
        u = np.uint64(s)
        if (
            si[u, S.SI_RELEASED] == 1
            and si[u, S.SI_HELD] == 0
            and si[u, S.SI_PENDING] > 0
            and si[u, S.SI_ASKED] != 0
            and ss[u, S.SS_DIM] == d
            and ss[u, S.SS_JT] == 0
        ):
            if best < 0 or _stage_priority(W, s) < _stage_priority(W, best):
                best = s
    return best


@kernel_jit
def _stage_priority(W, s):
    """The priority stage `s` asks at: a MapReduce AM asks for a map whose task failed
    before at PRIORITY_FAST_FAIL_MAP, ahead of the job's reduces and other maps."""
    u = np.uint64(s)  # unsigned rows: no negative-index wraparound
    ss, si = W[12], W[14]
    if ss[u, S.SS_RETRY] == RETRY_FAILED_FIRST and si[u, S.SI_FRONT_N] > 0:
        return FAST_FAIL_PRIORITY
    return ss[u, S.SS_PRIO]


@kernel_jit
def _head_task(W, s):
    ss, si = W[12], W[14]
    u = np.uint64(s)  # unsigned rows: no negative-index wraparound
    if si[u, S.SI_FRONT_N] == 0 and si[u, S.SI_NEXT] < ss[u, S.SS_HI]:
        return si[u, S.SI_NEXT]
    return si[u, S.SI_RETRY_HEAD]


@kernel_jit
def _take_head(W, s):
    """Take stage `s`'s next task (`_head_task`) off its unassigned tasks."""
    ss, si = W[12], W[14]
    u = np.uint64(s)  # unsigned rows: no negative-index wraparound
    if ss[u, S.SS_LOC] != 0:
        return _take_task(W, s, _head_task(W, s))
    if si[u, S.SI_FRONT_N] > 0:
        si[u, S.SI_FRONT_N] -= 1
    elif si[u, S.SI_NEXT] < ss[u, S.SS_HI]:
        task = si[u, S.SI_NEXT]
        si[u, S.SI_NEXT] += 1
        return task
    task = si[s, S.SI_RETRY_HEAD]
    _unlink_retry(W, s, -1, task)
    return task


@kernel_jit
def _take_task(W, s, task):
    """Take `task` of stage `s` off its unassigned tasks, wherever it is: the next fresh
    task (a located stage moves past the fresh ones already taken), a later fresh one of a
    located stage (flagged), or a re-queued one (unlinked from the retry list)."""
    ss, si, ti, tfl = W[12], W[14], W[18], W[47]
    located = ss[s, S.SS_LOC] != 0
    queued = located and (tfl[task] & S.TF_TAKEN) != 0  # Hadoop 1's re-queued (`_give_back`)
    if located and not queued:
        tfl[task] |= S.TF_TAKEN
        if (tfl[task] & S.TF_LOCATED) == 0:
            si[s, S.SI_NONLOC] -= 1
    nxt = si[s, S.SI_NEXT]
    if task == nxt and not queued:
        hi = ss[s, S.SS_HI]
        nxt += 1
        while located and nxt < hi and (tfl[nxt] & S.TF_TAKEN) != 0:
            nxt += 1
        si[s, S.SI_NEXT] = nxt
    elif task < nxt or queued:
        prev = -1
        cur = si[s, S.SI_RETRY_HEAD]
        place = 0
        while cur != task:
            prev = cur
            cur = ti[cur, S.TI_RETRY_NEXT]
            place += 1
        if place < si[s, S.SI_FRONT_N]:
            si[s, S.SI_FRONT_N] -= 1
        _unlink_retry(W, s, prev, task)
    return task


@kernel_jit
def _tracker_task(W, s, n):
    """Hadoop 1's next task of stage `s` for tracker `n` (JobInProgress.findTaskFromList):
    the first re-queued task that goes first and did not last fail on `n` (`_front_task`),
    else the next fresh task; -1 if none, and the job has no task of the stage for this
    tracker."""
    task = _front_task(W, s, n)
    if task >= 0:
        return task
    if W[14][s, S.SI_NEXT] < W[12][s, S.SS_HI]:
        return W[14][s, S.SI_NEXT]
    return -1


@kernel_jit
def _front_task(W, s, n):
    """The first of stage `s`'s re-queued tasks that go first (Hadoop 1's `failedMaps`)
    that did not last fail on tracker `n`, or failed as often as there are trackers
    (hasFailedOnMachine); -1 if none."""
    si, ti = W[14], W[18]
    hosts = W[40].shape[0]
    task = si[s, S.SI_RETRY_HEAD]
    for _ in range(si[s, S.SI_FRONT_N]):
        if ti[task, S.TI_FAILED_ON] != n or ti[task, S.TI_FAILS] >= hosts:
            return task
        task = ti[task, S.TI_RETRY_NEXT]
    return -1


@kernel_jit
def _tracker_bound(W, s, r0, r1):
    """A lower bound on the request of the task `_tracker_task` gives any tracker from
    Hadoop 1 stage `s`, whose head task asks for (`r0`, `r1`): the least of its re-queued
    tasks that go first and its next fresh task. The app trees rank by it, so an app whose
    head task failed on the heartbeating tracker is still offered the container."""
    ss, si, ti, tsf = W[12], W[14], W[18], W[17]
    task = si[s, S.SI_RETRY_HEAD]
    for _ in range(si[s, S.SI_FRONT_N]):
        r0 = min(r0, tsf[task, S.TSF_REQ])
        r1 = min(r1, tsf[task, S.TSF_REQ + 1])
        task = ti[task, S.TI_RETRY_NEXT]
    fresh = si[s, S.SI_NEXT]
    if fresh < ss[s, S.SS_HI]:
        r0 = min(r0, tsf[fresh, S.TSF_REQ])
        r1 = min(r1, tsf[fresh, S.TSF_REQ + 1])
    return r0, r1


@kernel_jit
def _give_back(W, s, task):
    """Task `task` of located stage `s` is unassigned again: True if it goes on the retry
    list (the stage passed it), False if it is a fresh task again. Hadoop 1 puts every
    such map in `failedMaps` alone (JobInProgress.failMap), off its location lists: it
    stays flagged assigned there, and goes on the retry list (`locality._loc_pick` takes
    it first)."""
    si, tfl = W[14], W[47]
    if W[12][s, S.SS_RETRY] == RETRY_FIRST:
        return True
    tfl[task] &= S.TF_LOCATED
    if (tfl[task] & S.TF_LOCATED) == 0:
        si[s, S.SI_NONLOC] += 1
    return task < si[s, S.SI_NEXT]


@kernel_jit
def _requeue(W, s, task):
    """Put `task` on stage `s`'s retry list where Hadoop hands it out again (the stage's
    retry rule, `pack.RETRY_LAST`...): at the end, after the fresh tasks; or among the
    first ``SI_FRONT_N``, which go before them: after those already there (the AM's
    failed maps, first in, first out), or in `failComparator` order (Hadoop 1)."""
    ss, si, ti = W[12], W[14], W[18]
    rule = ss[s, S.SS_RETRY]
    if rule != RETRY_FIRST and (rule != RETRY_FAILED_FIRST or ti[task, S.TI_FAILS] == 0):
        _link_retry(W, s, si[s, S.SI_RETRY_TAIL], task)
        return
    prev = -1
    cur = si[s, S.SI_RETRY_HEAD]
    for _ in range(si[s, S.SI_FRONT_N]):
        if rule == RETRY_FIRST and _fails_first(ti, task, cur):
            break
        prev = cur
        cur = ti[cur, S.TI_RETRY_NEXT]
    _link_retry(W, s, prev, task)
    si[s, S.SI_FRONT_N] += 1


@kernel_jit
def _link_retry(W, s, prev, task):
    """Link `task` into stage `s`'s retry list after `prev` (-1: at its head)."""
    si, ti = W[14], W[18]
    nxt = si[s, S.SI_RETRY_HEAD] if prev < 0 else ti[prev, S.TI_RETRY_NEXT]
    ti[task, S.TI_RETRY_NEXT] = nxt
    _point_after(W, s, prev, task)
    if nxt < 0:
        si[s, S.SI_RETRY_TAIL] = task


@kernel_jit
def _unlink_retry(W, s, prev, task):
    """Unlink `task`, which follows `prev` (-1: the head), from stage `s`'s retry list."""
    nxt = W[18][task, S.TI_RETRY_NEXT]
    _point_after(W, s, prev, nxt)
    if nxt < 0:
        W[14][s, S.SI_RETRY_TAIL] = prev


@kernel_jit
def _point_after(W, s, prev, task):
    """Make `task` follow `prev` (-1: the head) in stage `s`'s retry list."""
    if prev < 0:
        W[14][s, S.SI_RETRY_HEAD] = task
    else:
        W[18][prev, S.TI_RETRY_NEXT] = task


@kernel_jit
def _fails_first(ti, a, b):
    """Whether task `a` goes before `b` in Hadoop 1's failComparator: more failed attempts,
    then the lower task."""
    if ti[a, S.TI_FAILS] != ti[b, S.TI_FAILS]:
        return ti[a, S.TI_FAILS] > ti[b, S.TI_FAILS]
    return a < b
