"""Hadoop 1's JobTracker pass: job setup and cleanup tasks handed out ahead of the Fair
Scheduler.

The reference engine's ``reference/jobtracker.py`` is this module's pure-Python twin; it
follows the same steps.

Hadoop 1.0-1.2's ``JobTracker.heartbeat`` asks ``getSetupAndCleanupTasks`` first and the
task scheduler only when that returns nothing: a tracker with a free map slot gets the
cleanup task of the first job (in job order: the JobTracker's ``jobs`` map is keyed by
job id, which follows submission) that has one to run, else the first job's setup task;
failing that, a tracker with a free reduce slot gets the same in a reduce slot. It gets
that one task, and the Fair Scheduler is not asked on that heartbeat. A job's setup
task runs once the job is initialized, which Hadoop 1's Fair Scheduler does when it
makes the job runnable (``maxRunningJobs``), and one attempt at a time
(``JobInProgress.canLaunchSetupTask``: ``!launchedSetup``; cleanup likewise). The Fair
Scheduler does not see these tasks: ``JobInProgress.addRunningTaskToTIP`` counts them in
neither ``runningMapTasks`` nor ``runningReduceTasks``, so they are in no pool's demand or
usage, and its preemption, which walks a job's map and reduce tasks, never kills them.
They do hold their tracker's slot (``countMapTasks`` counts them, so CapBasedLoadManager
does too). Without heartbeats the pass runs before each allocation on the whole cluster,
while a slot is free. Not modeled: the task-cleanup tasks Hadoop 1 runs after a failed or
killed attempt (``obtainTaskCleanupTask``), which the traces read do not record.

Which stages are JobTracker stages is decided by ``pack`` (``stage_jobtracker``:
setup and cleanup stages on a slot cluster under ``hadoop_version=1``). The jobs with
one to hand out (runnable, a released JobTracker stage with a task pending and none
running) are kept in a list (``GI_JT_HEAD``); it is short, as each is served at the
next heartbeat with a free slot, so it is scanned for the first in job order. The
hand-out itself is ``allocation._assign_jobtracker`` (it starts an attempt, which
``phases`` does, and ``phases`` keeps this list).
"""

from __future__ import annotations

from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.lists import _keep_listed
from whatif.predictor.kernel.state import (
    GI_JT_HEAD,
    JI_IN_JT,
    JI_JT_NEXT,
    JI_JT_PREV,
    JI_STATE,
    JS_ST_HI,
    JS_ST_LO,
    JT_CLEANUP,
    SI_DONE,
    SI_PENDING,
    SI_RELEASED,
    SS_HI,
    SS_JT,
    SS_LO,
)


@kernel_jit
def _jt_stage(W, j):
    """Job `j`'s JobTracker stage with a task to hand out now (-1: none): released, a task
    pending and none running (one attempt at a time)."""
    js, ss, si = W[6], W[12], W[14]
    for s in range(js[j, JS_ST_LO], js[j, JS_ST_HI]):
        if ss[s, SS_JT] != 0 and si[s, SI_RELEASED] == 1 and si[s, SI_PENDING] > 0:
            running = (ss[s, SS_HI] - ss[s, SS_LO]) - si[s, SI_PENDING] - si[s, SI_DONE]
            if running == 0:
                return s
    return -1


@kernel_jit
def _jt_refresh(W, j):
    """Keep job `j`'s membership of the JobTracker list true: runnable with a task to
    hand out."""
    wanted = W[9][j, JI_STATE] == 2 and _jt_stage(W, j) >= 0
    _keep_listed(W[9], JI_JT_NEXT, JI_JT_PREV, W[24], GI_JT_HEAD, JI_IN_JT, j, wanted)


@kernel_jit
def _jt_pick(W):
    """(job, stage) of the task getSetupAndCleanupTasks hands out: the first job's cleanup,
    else the first job's setup ((-1, -1): none)."""
    ss, ji, gi = W[12], W[9], W[24]
    best_j, best_s, best_cleanup = -1, -1, False
    j = gi[GI_JT_HEAD]
    while j >= 0:
        s = _jt_stage(W, j)
        cleanup = ss[s, SS_JT] == JT_CLEANUP
        if best_j < 0 or (cleanup and not best_cleanup) or (cleanup == best_cleanup and j < best_j):
            best_j, best_s, best_cleanup = j, s, cleanup
        j = ji[j, JI_JT_NEXT]
    return best_j, best_s
