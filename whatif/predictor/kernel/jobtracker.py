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
while a slot is free.

Task-cleanup attempts: a map or reduce attempt that fails or is killed while its job runs
ends FAILED_UNCLEAN / KILLED_UNCLEAN, and ``JobInProgress`` queues a cleanup attempt for it
(``mapCleanupTasks`` / ``reduceCleanupTasks``) that ``obtainTaskCleanupTask`` hands out in
a slot of the attempt's own type, on any tracker. ``getSetupAndCleanupTasks`` asks, for a
free map slot, every job for its job cleanup, then every job for a map task-cleanup, then
every job for its setup, and then the same for a free reduce slot (reduce task-cleanups).
The predictor runs each for ``task_cleanup_s`` (``C_TC``): it holds its slot, in no pool,
and its end is reported at its tracker's next heartbeat (event ``TC_END``); it is not an
attempt of the schedule. A finished job's pending ones are dropped (Hadoop hands them out
only while the job runs).

Which stages are JobTracker stages is decided by ``pack`` (``stage_jobtracker``:
setup and cleanup stages on a slot cluster under ``hadoop_version=1``). The jobs with
one to hand out (runnable, a released JobTracker stage with a task pending and none
running) are kept in a list (``GI_JT_HEAD``); it is short, as each is served at the
next heartbeat with a free slot, so it is scanned for the first in job order. The
hand-out itself is ``allocation._assign_jobtracker`` (it starts an attempt, which
``phases`` does, and ``phases`` keeps this list).
"""

from __future__ import annotations

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.events import heap_push
from whatif.predictor.kernel.heartbeats import _next_heartbeat
from whatif.predictor.kernel.lists import _keep_listed
from whatif.predictor.kernel.resting import _park_again


@kernel_jit
def _jt_stage(W, j):
    """Job `j`'s JobTracker stage with a task to hand out now (-1: none): released, a task
    pending and none running (one attempt at a time)."""
    js, ss, si = W[6], W[12], W[14]
    for s in range(js[j, S.JS_ST_LO], js[j, S.JS_ST_HI]):
        if ss[s, S.SS_JT] != 0 and si[s, S.SI_RELEASED] == 1 and si[s, S.SI_PENDING] > 0:
            running = (ss[s, S.SS_HI] - ss[s, S.SS_LO]) - si[s, S.SI_PENDING] - si[s, S.SI_DONE]
            if running == 0:
                return s
    return -1


@kernel_jit
def _jt_refresh(W, j):
    """Keep job `j`'s membership of the JobTracker list true: runnable with a task (or a
    task-cleanup attempt) to hand out."""
    ji = W[9]
    wanted = ji[j, S.JI_STATE] == 2 and (
        ji[j, S.JI_TC] > 0 or ji[j, S.JI_TC + 1] > 0 or _jt_stage(W, j) >= 0
    )
    _keep_listed(W[9], S.JI_JT_NEXT, S.JI_JT_PREV, W[24], S.GI_JT_HEAD, S.JI_IN_JT, j, wanted)


@kernel_jit
def _jt_pick(W, d):
    """(job, stage) of what getSetupAndCleanupTasks hands out in a free slot of pool `d`:
    the first job's cleanup, else the first job's task-cleanup attempt of that pool (stage
    -1), else the first job's setup ((-1, -1): none)."""
    ss, ji, gi = W[12], W[9], W[24]
    best_j, best_s, best_rank = -1, -1, 3
    j = gi[S.GI_JT_HEAD]
    while j >= 0:
        s = _jt_stage(W, j)
        rank = 3
        if s >= 0:
            rank = 0 if ss[s, S.SS_JT] == S.JT_CLEANUP else 2
        if rank > 1 and ji[j, S.JI_TC + d] > 0:
            rank = 1
            s = -1
        if rank < best_rank or (rank == best_rank and rank < 3 and j < best_j):
            best_j, best_s, best_rank = j, s, rank
        j = ji[j, S.JI_JT_NEXT]
    return best_j, best_s


@kernel_jit
def _start_task_cleanup(W, j, d):
    """A task-cleanup attempt of job `j` takes a slot of pool `d` on the node heartbeating
    (or the cluster) for `C_TC` s; its end is reported at the node's next heartbeat."""
    ji, gf, gi = W[9], W[23], W[24]
    ji[j, S.JI_TC + d] -= 1
    gf[S.G_FREE + d] -= 1.0
    n = gi[S.GI_CUR_NODE]
    end = gf[S.G_NOW] + W[25][S.C_TC]
    if n >= 0:
        W[40][n, S.NF_FREE + d] -= 1.0
        _park_again(W, n)
        end = _next_heartbeat(W, n, end, False)
    gi[S.GI_CHANGED] = 1
    heap_push(W[21], W[22], gi, end, S.TC_END, 2 * (n + 1) + d, -1, j)


@kernel_jit
def _end_task_cleanup(W, ident):
    """A task-cleanup attempt ends (event `TC_END`): its slot is free again; returns its
    node (-1: the cluster), which heartbeats now."""
    n = ident // 2 - 1
    d = ident % 2
    W[23][S.G_FREE + d] += 1.0
    W[24][S.GI_CHANGED] = 1
    if n >= 0:
        W[40][n, S.NF_FREE + d] += 1.0
        _park_again(W, n)
    return n
