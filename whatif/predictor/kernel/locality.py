"""Hadoop 1 delay scheduling: maps placed by their split locations, jobs waiting for a
node-local (then rack-local) map before they take any.

The reference engine's ``reference/locality.py`` is this module's pure-Python twin; it
follows the same steps.

Hadoop 1.x's contrib Fair Scheduler (``FairScheduler.assignTasks``, called on a
TaskTracker heartbeat that asks for tasks and gets no setup or cleanup task) asks each
runnable job it visits for a map at the level ``getAllowedLocalityLevel`` allows, and
``JobSchedulable.assignTask`` takes it from ``JobInProgress``: node-local only
(``obtainNewNodeLocalMapTask``), node- or rack-local (``obtainNewNodeOrRackLocalMapTask``),
or any (``obtainNewMapTask``, which still looks on the tracker's node, then its rack,
first). The allowed level:

- any, while the job has unassigned maps without split locations (``nonLocalMaps``), or
  (preemption on) its pool has been below its min share for longer than its
  ``minSharePreemptionTimeout``, or below half its fair share for longer than
  ``fairSharePreemptionTimeout`` (the starvation timers the preemption pass keeps);
- else by the level of the job's last map (node at first) and ``timeWaitedForLocalMap``
  against ``mapred.fairscheduler.locality.delay`` D (default ``min(15 s, 1.5 x the
  heartbeat interval)``): last node-local: node, rack once it waited D, any once 2 D;
  last rack-local: rack, any once D; last off-switch: any.

A launched map sets the job's level to the map's own (node if a split location is the
tracker's host, rack if one is in its rack, else off-switch) and its wait to 0. A job
visited for a map in a call that launched none of its maps is skipped: at the next call
its wait grows by the time between the two calls (``updateLocalityWaitTimes``; calls are
the heartbeats of trackers with a free slot). While a job is skipped the heartbeats of
every tracker with a free slot are simulated (``heartbeats._node_wants``), so that the
time between calls is Hadoop's.

Within a level the map taken is the stage's lowest-numbered unassigned task local to the
tracker's node (its ``nonRunningMapCache`` list), then to its rack, then the stage's next
task as without locality (Hadoop: the other racks' lists in a hash set's order, then
``nonLocalMaps``). A killed or failed map goes to ``failedMaps`` alone
(``JobInProgress.failMap``), which ``findNewMapTask`` tries first whatever the allowed
level, on any tracker but one it failed on (``requests._front_task``); it is then launched
at its own level on that tracker.

Locality is static data (``pack`` and ``whatif.predictor.locality``): per located map
stage, groups of its tasks by node and by rack, each with a cursor to its first task that
may be unassigned; a task's flags say whether it is assigned and whether it has split
locations.
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.events import _expired
from whatif.predictor.kernel.requests import _front_task, _head_task
from whatif.predictor.pack import RETRY_FIRST


@kernel_jit
def _loc_group(W, s, key):
    """Stage `s`'s location group of `key` (node n, or nodes + rack), -1: none."""
    ss, lg = W[12], W[45]
    lo = ss[s, S.SS_LG_LO]
    hi = ss[s, S.SS_LG_HI]
    g = lo + np.searchsorted(lg[lo:hi, S.LG_KEY], key)
    if g < hi and lg[g, S.LG_KEY] == key:
        return g
    return -1


@kernel_jit
def _loc_pos(W, g, task):
    """Where group `g` lists `task` in `lt` (-1: it does not)."""
    lg, lt = W[45], W[46]
    lo = lg[g, S.LG_LO]
    hi = lg[g, S.LG_HI]
    p = lo + np.searchsorted(lt[lo:hi], task)
    if p < hi and lt[p] == task:
        return p
    return -1


@kernel_jit
def _loc_first(W, g):
    """Group `g`'s lowest unassigned task (-1: none, or no group); its cursor moves past
    the assigned ones."""
    if g < 0:
        return -1
    lg, lt, tfl = W[45], W[46], W[47]
    c = lg[g, S.LG_CUR]
    hi = lg[g, S.LG_HI]
    while c < hi and (tfl[lt[c]] & S.TF_TAKEN) != 0:
        c += 1
    lg[g, S.LG_CUR] = c
    if c < hi:
        return lt[c]
    return -1


@kernel_jit
def _loc_requeued(W, s, task):
    """A located stage's task is unassigned again: every group listing it gets its cursor
    back to it (a retry is rare, so the stage's groups are searched); not in Hadoop 1,
    which keeps it off its location lists (`requests._give_back`)."""
    ss, lg = W[12], W[45]
    if ss[s, S.SS_RETRY] == RETRY_FIRST:
        return
    for g in range(ss[s, S.SS_LG_LO], ss[s, S.SS_LG_HI]):
        if lg[g, S.LG_CUR] > lg[g, S.LG_LO]:
            p = _loc_pos(W, g, task)
            if p >= 0 and p < lg[g, S.LG_CUR]:
                lg[g, S.LG_CUR] = p


@kernel_jit
def _loc_starved(W, leaf):
    """Whether the pool's map timers say it is starved (`preemption_v12` keeps them)."""
    qsf, qf, t = W[1], W[3], W[23][S.G_NOW]
    if qf[leaf, S.QF_LMIN] > -S.INF and _expired(t - qf[leaf, S.QF_LMIN], qsf[leaf, S.QSF_MIN_TO]):
        return True
    return qf[leaf, S.QF_LFAIR] > -S.INF and _expired(
        t - qf[leaf, S.QF_LFAIR], qsf[leaf, S.QSF_FAIR_TO]
    )


@kernel_jit
def _loc_allowed(W, j, s):
    """FairScheduler.getAllowedLocalityLevel: 0 node, 1 rack, 2 any."""
    jf, ji, si, cfg = W[8], W[9], W[14], W[25]
    if si[s, S.SI_NONLOC] > 0:
        return 2
    if cfg[S.C_PREEMPT] != 0.0 and _loc_starved(W, W[6][j, S.JS_QUEUE]):
        return 2
    level = ji[j, S.JI_LOC_LEVEL]
    waited = jf[j, S.JF_LOC_WAIT]
    delay = cfg[S.C_LOC_DELAY]
    if level == 0:
        if waited >= 2.0 * delay:
            return 2
        return 1 if waited >= delay else 0
    if level == 1:
        return 2 if waited >= delay else 1
    return 2


@kernel_jit
def _loc_pick(W, j, s, n):
    """JobSchedulable.assignTask's map of job `j` (stage `s`) for tracker `n`: (task, its
    locality level), or (-1, -1) when none is allowed; the job counts as visited."""
    ji, gi = W[9], W[24]
    if ji[j, S.JI_LOC_SEEN] != gi[S.GI_LCALL]:
        ji[j, S.JI_LOC_SEEN] = gi[S.GI_LCALL]
        W[48][gi[S.GI_LVIS_N], 0] = j
        gi[S.GI_LVIS_N] += 1
    allowed = _loc_allowed(W, j, s)
    task = _front_task(W, s, n)  # failedMaps first, whatever the level (findNewMapTask)
    if task >= 0:
        return task, _loc_level(W, s, task, n)
    task = _loc_first(W, _loc_group(W, s, n))
    if task >= 0:
        return task, 0
    if allowed == 0:
        return -1, -1
    task = _loc_first(W, _loc_group(W, s, W[40].shape[0] + W[49][n]))
    if task >= 0:
        return task, 1
    if allowed == 1:
        return -1, -1
    # nothing unassigned is local to the node or its rack: the stage's next task is not
    # (Hadoop 1's failed maps left failed on this tracker: none of them)
    if W[12][s, S.SS_RETRY] == RETRY_FIRST:
        task = W[14][s, S.SI_NEXT]
        return (task, 2) if task < W[12][s, S.SS_HI] else (-1, -1)
    return _head_task(W, s), 2


@kernel_jit
def _loc_level(W, s, task, n):
    """The level of located stage `s`'s `task` on tracker `n`: 0 if a split location is
    its node, 1 if one is in its rack, else 2 (JobInProgress.getLocalityLevel)."""
    g = _loc_group(W, s, n)
    if g >= 0 and _loc_pos(W, g, task) >= 0:
        return 0
    g = _loc_group(W, s, W[40].shape[0] + W[49][n])
    if g >= 0 and _loc_pos(W, g, task) >= 0:
        return 1
    return 2


@kernel_jit
def _loc_launched(W, j, level):
    """FairScheduler.updateLastMapLocalityLevel: the job's level is its new map's."""
    W[9][j, S.JI_LOC_LEVEL] = level
    W[9][j, S.JI_LOC_RUN] = W[24][S.GI_LCALL]
    W[8][j, S.JF_LOC_WAIT] = 0.0


@kernel_jit
def _loc_call(W):
    """An assignTasks call begins: the jobs skipped at the last one have waited since it
    (FairScheduler.updateLocalityWaitTimes)."""
    jf, gf, gi, lvis = W[8], W[23], W[24], W[48]
    t = gf[S.G_NOW]
    waited = 0.0 if gf[S.G_LOC_LAST] == -S.INF else t - gf[S.G_LOC_LAST]
    gf[S.G_LOC_LAST] = t
    for i in range(gi[S.GI_LSKIP_N]):
        jf[lvis[i, 1], S.JF_LOC_WAIT] += waited
    gi[S.GI_LSKIP_N] = 0
    gi[S.GI_LVIS_N] = 0
    gi[S.GI_LCALL] += 1


@kernel_jit
def _loc_call_end(W):
    """An assignTasks call ends: the jobs it visited for a map and launched none of are
    skipped (`lvis` column 1); while any is, trackers with a free slot are woken (their
    calls add to its wait)."""
    ji, gi, lvis = W[9], W[24], W[48]
    n = 0
    for i in range(gi[S.GI_LVIS_N]):
        j = lvis[i, 0]
        if ji[j, S.JI_LOC_RUN] != gi[S.GI_LCALL]:
            lvis[n, 1] = j
            n += 1
    gi[S.GI_LSKIP_N] = n
    gi[S.GI_LVIS_N] = 0
    if n > 0:
        gi[S.GI_CHANGED] = 1
