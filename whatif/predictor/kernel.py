"""The compiled engine: ``@njit(cache=True)`` functions over arrays and scalars only.

Semantics (the reference engine in ``reference.py`` follows the same steps)
===========================================================================

Time warp. The clock jumps from one event time to the next: task ends (success or
noise failure), kills of preemption victims (Hadoop 3), AM start-up completions,
job submissions and preemption checks (a starvation timeout expiring, an app's
starvation re-check delay ending, or, in Hadoop 1/2, the next multiple of the
preemption interval after a timeout expired). There is no fixed tick. At each
event time ``t`` one iteration runs:

1. pop every heap event with time ``t`` in (time, sequence number) order; a newly
   pushed event at ``t`` waits for the next iteration at the same ``t``;
2. submit every job with ``submit_s == t`` in workload order (submit time, job id);
3. recompute instantaneous fair shares if the set of active queues changed
   (a queue is active while it or a queue below it has a runnable app);
4. allocate: repeatedly descend from the root and assign one container, until
   nothing fits (one pass per slot pool on a Hadoop 1 slot cluster); with heartbeats,
   only on the nodes heartbeating at ``t`` (below), each in the order first listed;
5. preemption (if on): Hadoop 3 starvation and victim selection, or the Hadoop 1/2
   queue-level check when ``t`` is the scheduled check time;
6. with heartbeats, schedule the next heartbeat of the nodes that may now assign.

Heartbeats (when the packed cluster has nodes, ``nodes.py``). Node ``i`` of ``n``
heartbeats on the grid ``i * interval / n + k * interval`` (computed as phase + k *
interval everywhere, so equal times compare equal). A container or task is assigned only
on a heartbeat of the node it lands on, within that node's free resources: YARN
(FairScheduler.attemptScheduling) assigns one container per heartbeat, or with
assign-multiple until max.assign containers (Hadoop 3 dynamic.max.assign: until the
resources assigned exceed half the node's unallocated resources at the heartbeat's start,
the container that crosses it included); Hadoop 1 on a slot cluster
(FairScheduler.assignTasks) assigns one task per heartbeat, or with assign-multiple up to
the per-type caps (-1: the free slots), choosing maps while the tracker runs no more maps
than reduces (else reduces; a type is dropped once it has no pending task, reached its
cap, was not taken by any pool, or CapBasedLoadManager refuses it: a tracker runs at most
ceil(slots * min(1, (running + pending runnable tasks) / cluster slots)) of a type).
A task attempt that ends at ``e`` (success or noise failure) has its end event at its
node's first heartbeat strictly after ``e``, where it is reported: its resources come
back and its job moves on then (stage completion, slowstart, job end), and the
attempt's recorded finish is ``e``. Kills (preemption, reduce ramp-down) and an AM's
release at its job's end free resources at once. Heartbeats that would assign nothing are
not simulated: after each event time, a node without a heartbeat scheduled gets its next
one (strictly after ``t``) when it has room for the smallest request, there is runnable
pending demand, and either it heartbeated or had resources freed at ``t`` and something
an allocation depends on changed, or it is parked (room, nothing scheduled) and anything
changed (an allocation, a release, pending demand, runnable apps, a new queue tree);
otherwise it is parked while it has room. Before the first allocation at a time ``t``, a
node without a heartbeat scheduled whose grid has ``t`` heartbeats at ``t`` under the
same conditions (the events at ``t`` come before the heartbeats' assignments). This
gives exactly the schedule of every node heartbeating on its whole grid (a test compares
them), except in a run that livelocks: there each simulated heartbeat is an event and
a preemption check follows it, so the livelock search, which counts checks, stops the
run at another time. The MapReduce AM's reduce ramp-down runs once per iteration then, and what it frees
is assigned at the next heartbeats. Without heartbeats (no nodes, or switched off),
step 4 allocates on the whole cluster at every event time.

Allocation (one container). At a parent, candidate children are those with
pending runnable demand in the pass's dimension whose usage fits within their
maxResources; the best untried candidate (by the parent's policy comparator,
scanning children in document order, a later child replacing the best only if it
compares strictly lower) is tried; a parent candidate is descended into, a leaf
candidate tries its apps the same way (apps in the order they became runnable).
An app offers its AM request while its AM is not allocated (subject to
maxAMShare: AM usage + request <= floor(leaf fair share * maxAMShare), a zero fair
share component replaced by min(free, maxShare)), otherwise its released stage with
unassigned tasks of the lowest priority number (ties: lower stage index), and in it
the lowest unassigned task index, else the oldest re-queued (killed/failed) task.
It gets the container if the request fits in the free cluster resources and every
queue from its leaf to the root stays within maxResources; otherwise the next app
or queue is tried (no reservations).

Comparators (first difference decides; then start time, then name rank; queues
have start time 0):
- fair (dimension d: memory, or the slot pool): Hadoop 3 only: demand 0 after
  demand > 0; needy = usage < min(minShare, demand): needy first, both needy ->
  lower usage / max(min(minShare, demand), 1); then usage / weight (Hadoop 3: with a
  zero weight, equal weights compare usage and otherwise the larger weight first;
  Hadoop 1/2: Java division, so x/0 is inf and 0/0 is NaN, and NaN differences tie).
- drf: shares usage_i / cluster_i / weight sorted descending; needy when
  usage / minShare on the dominant resource is < 1; needy first; both needy
  compare usage/minShare, else the cluster shares, element by element.
- fifo (apps only): start time, then name.
Queue demand is usage + pending of all its apps (runnable or not), capped at
maxShare at every level; app demand is usage + pending; app min share is 0 and app
weight 1 (or log2(1 + demand MB) with sizebasedweight).

Fair shares: ComputeFairShares per dimension, top-down (`compute_shares`, a
twin of ``whatif.allocation.fairshare.compute_shares``); apps within a leaf share its fair
share with their weights (fifo: the earliest app gets all of it).

Apps and stages: maxRunningApps (user, then each queue leaf to root) decides at
submission whether an app is runnable; on each job end the waiting apps are
scanned in submission order and every one that now fits is made runnable.
Stages are released in order; a ``reduce`` stage right after a ``map`` stage is
released once done maps / maps >= slowstart, and its tasks end at
``max(start + latency + a, last_map_end + b) + c`` (see ``pack._replay_parts``),
which is known only when the last map ends (until then the attempt runs with no
end event). Other tasks end at ``start + latency + duration``; a failing attempt
(noise) ends at ``start + latency + frac * duration`` and the task is re-queued.
A job ends when its last stage completes; its AM container is released then.
On Hadoop 2/3 the MapReduce AM ramps reduces down (`_preempt_reduces`) when a job's maps
cannot run; on Hadoop 1's slot pools the JobTracker never kills or holds back reduces for
maps (on one pool of memory the rule stays, or waiting reduces could hold it forever).

Preemption, Hadoop 3 (at update() times, multiples of the update interval, the first
one after any event or timer; only while max(memory, vcores) utilization > threshold;
no timers are updated otherwise): per leaf with a finite timeout, apps with pending
demand and past their re-check time, in the leaf policy order: fair-share
starvation (fairDemand = min(floor(appFairShare * threshold), demand), starved
while usage < fairDemand by the policy's calculator, acting once starved for the
timeout, ``now - last >= timeout`` as FSAppAttempt.fairShareStarvation and
FSLeafQueue.minShareStarvation test it; the scan stops at the first app that is not acting), then the leaf's
min-share starvation (min(minShare, demand) - usage after the timeout, less the
fair-share starvation) handed out in the same order as Hadoop does. Each starved
app (in the order found): for each request in priority order, floor(starvation /
request) containers (capped by the count pending); for each, victims are scanned
over running non-AM containers newest first: a container is taken if its queue
allows preemption and its app stays at or above its fair share without it (after
containers already marked and already taken for this container); the scan stops
as soon as free + taken resources fit the request (a scan that never fits takes
nothing). Taken containers are killed ``wait_time_before_kill_s`` later; the app is
not re-checked for ``starvation_recheck_delay_s``. AM containers are never victims.

Preemption, Hadoop 2: starvation timers are updated at every event; on multiples of
the preemption interval (when a timeout has expired and utilization is above the
threshold) the amount is the sum over leaves of max(min-share part, fair-share
part) and it is taken as Hadoop 2.8 does: warned containers are killed once warned
longer than waitTimeBeforeKill (strictly), then new victims are warned by
descending to the child most over its share (comparator, largest wins), the app
most over its share, and its container with the largest priority number (ties: the
newest). Hadoop 1: per slot pool, min-share and half-fair-share starvation acting
once the timeout is strictly exceeded, and on each check the newest running tasks of
pools above their fair share are killed at once (no utilization gate; without slot
pools memory is the pool, and a kill counts its task's memory). A Hadoop 1/2 check
that warns and kills nothing would do nothing again until some other event, so while
idle the next checks are only woken for a timer expiring or a warned container passing
waitTimeBeforeKill; any later event on a grid time after it runs the check as
scheduled. Hadoop 1/2 preemption can livelock as the real schedulers do (victims
killed for a queue that cannot use what they free are re-run at once, and killed
again at the next check):
once every job is submitted, a check whose state (running tasks in order with their
start and end times relative to now, warned tasks, stage and re-queue lists, starvation
timers) equals the state at an earlier check with no end or AM-ready event in between
(Brent's cycle finding) ends the run there: nothing would ever finish again. Hadoop 3
livelocks the same way (an app that cannot use what is killed for it, e.g. its AM over
maxAMShare, has a container killed at every re-check); its check state adds each
runnable app's fair-share timer, re-check time and starvation amounts, and the pending
events (even one for an ended attempt makes an iteration that schedules a check).

Killed and failed attempts free their resources at once and their task is queued
again (at the end of its stage's re-queued tasks). Times are float64 seconds;
resources float64 MB/vcores (or slots); indices are int64 (int32 in the task tables
`ts` and `ti`).

Speed (none of this changes a schedule; the reference engine scans plainly): apps of a
leaf are ranked by a tournament tree per view (`_tree_put`), so the best app is read at
the root and only apps whose usage or demand changed are re-ranked; in `fair` leaves
without size-based weights each node keeps its winner's sort key (`_put_key`), so
ranking reads adjacent tree rows, not app rows; runnable apps hold recycled slots, so
the trees are only as deep as the apps runnable at once (`_take_slot`); each node also
keeps the smallest next request below it, so allocation skips apps whose request cannot
fit without trying them one by one (`_tree_best_fit`); only jobs that can preempt their
own reduces are checked each event (`_red_refresh`); victim scans walk only unmarked
task containers their app could give up alone, listed once per check from per-app
container lists of the apps holding any (kept packed with their leaf and usage in
`hold`, so most are passed over without reading their rows), and resume where the
previous scan for the same request took its first victim (`_victims_for`,
`_victim_candidates`); a check reads a leaf's apps from its tree in policy order only as
far as its scans go, the re-check times ahead from a ring in time order and the
min-share amounts to reset from the list of nonzero ones (`_preempt_v3`); alike apps'
fair shares cost one multiplication per bisection round (`_planned`), and an alike leaf
keeps one share for all its apps (`_app_fair`); a `fair` parent whose children all weigh
more than zero ranks them by a key, chosen with selects (`_best_child_fair`); the event
heap is 4-ary, keyed by `ordered_bits(time)`, its four children picked as two pairs, and
comparisons whose outcome is unpredictable (heap children, tree siblings) are written
with non-short-circuit `&`/`|` and compile to selects, which LLVM is told not to turn
back into branches (the option below the imports); tree nodes keep requests and keys as
integers of the same order (`world.ordered_bits`), since only integer choices compile to
selects, and a keyed re-rank carries the path's winner and key in registers, loading
only each sibling (`_rerank_keyed`); a walk for the best eligible or fitting app
descends a passed-over app's path without comparing it again (`_order_next`,
`_tree_best_fit`); rows read after a long gap are prefetched (`world.prefetch`): a
stage's next tasks when one starts, the attempt, task and job of the next event when one
is popped (heap entries carry them); a tree walk climbs in one shift by the count of
trailing ones (`_preorder_next`); keyed trees compare apps' start time and name as one
precomputed rank (`JS_ORDER`); the newest unmarked container is the highest bit of a
bitset over attempts (`_newest_unmarked`); and the entry points pass their arrays
borrowed and by pointer (``world.py``), each array read through the pointer with a
constant null handle: numba passes a tuple by value, and copying and reference counting
the world at every call took most of the time.
"""

from __future__ import annotations

import math

import llvmlite.binding
import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from whatif.predictor.world import (
    borrowed,
    float_from_ordered,
    ordered_bits,
    prefetch,
    world_ref,
)

# LLVM turns a select inside a loop into a branch when it guesses the branch predictable,
# and keeps a choice of several values (the winner of two tree siblings and its key) as
# a branch when speculating all of them looks too costly. The kernel's choices pick
# between tree and heap children, a coin toss each time, so they stay conditional
# moves. The options are process-wide and change only the speed of code numba compiles
# after this import, never a result.
llvmlite.binding.set_option("tempo", "-x86-cmov-converter=false")
llvmlite.binding.set_option("tempo", "-phi-node-folding-threshold=4")

INF = np.inf

# event kinds
END, KILL, AM_READY, HEARTBEAT = 0, 1, 2, 3
# attempt states (pack.ATTEMPT_STATE_NAMES)
RUNNING, SUCCEEDED, FAILED, KILLED, AM_KILLED = 0, 1, 2, 3, 4

# cfg (float64)
C_LAT, C_AM_LAT, C_SLOWSTART, C_UTIL, C_WAIT_KILL, C_RECHECK = 0, 1, 2, 3, 4, 5
C_INTERVAL, C_VERSION, C_PREEMPT, C_SIZEBASED, C_SLOT, C_MAX_CONC = 6, 7, 8, 9, 10, 11
C_ANY_IS_0 = 12  # every request asks for memory, one pool: pending anything = pending memory
C_UPDATE = 13  # Hadoop 3: the update thread's interval; starvation is checked on its grid
# heartbeats (C_HB 1: nodes in `nodef`): interval, assign-multiple and its caps
C_HB, C_HB_INTERVAL, C_MULTI, C_MAX_ASSIGN, C_DYNAMIC, C_CAP_MAPS, C_CAP_REDS = (
    14,
    15,
    16,
    17,
    18,
    19,
    20,
)
N_CFG = 21
# global float state
G_NOW, G_NEXT_CHECK, G_NEXT_V12, G_FREE = 0, 1, 2, 3  # free is 3, 4
G_LAST_T = 5  # the previous iteration's time
N_GF = 6
# global int state
GI_HEAP_N, GI_SEQ, GI_NEXT_SUBMIT, GI_N_ATT, GI_DIRTY, GI_EPOCH = 0, 1, 2, 3, 4, 5
GI_RUN_HEAD, GI_RUN_TAIL, GI_WAIT_HEAD, GI_WAIT_TAIL, GI_WARNED_N = 6, 7, 8, 9, 10
GI_RED_HEAD, GI_RED_TAIL = 11, 12
# Hadoop 1/2 livelock detection (Brent's cycle finding over state hashes at checks)
GI_LIVELOCK, GI_SEEN_SET, GI_SEEN_POWER, GI_SEEN_STEPS, GI_SEEN_PROG, GI_SEEN_STATE = (
    13,
    14,
    15,
    16,
    17,
    18,
)
GI_PROGRESS = 19  # end and AM-ready events handled so far
GI_TOUCHED_N, GI_RC_HEAD, GI_RC_TAIL, GI_RED_SEQ = 20, 21, 22, 23
# 24, 25: free
GI_CAND_N = 26  # victim candidates of the current Hadoop 3 check in `cand`
GI_QUIET = 27  # Hadoop 3 checks since the last progress
GI_HOLD_N = 28  # apps holding an unmarked task container (see JI_CONT_HEAD), in `hold`
GI_RECHECK_HEAD, GI_RECHECK_N = 29, 30  # Hadoop 3 re-check times ahead: ring in jbuf[:, 1]
GI_MSTARV_N = 31  # apps with a min-share starvation amount, listed in jbuf[:, 3]
GI_CUR_NODE = 32  # the node heartbeating in an allocation (-1: the cluster)
GI_ITER = 33  # iterations so far (stamps in `nodei`)
GI_CHANGED = 34  # 1: something an allocation depends on changed since the last `_wake`
GI_BEAT_N, GI_TOUCH_N = 35, 36  # nodes heartbeating now / touched now, listed in `nlist`
GI_PARK_N = 37  # parked nodes (room, no heartbeat scheduled), listed in `nlist`
N_GI = 38
# queue static int / float
QS_PARENT, QS_LEAF, QS_POLICY, QS_MAX_APPS, QS_PREEMPTABLE, QS_RANK = 0, 1, 2, 3, 4, 5
QS_CH_LO, QS_CH_HI, QS_SIZE = 6, 7, 8
QS_FAIR_POSITIVE = 9  # 1: `fair` policy and every child weighs more than zero
N_QS = 10
QSF_WEIGHT, QSF_MIN, QSF_MAX, QSF_AMSHARE = 0, 1, 3, 5
QSF_MIN_TO, QSF_FAIR_TO, QSF_THRESH = 6, 7, 8
N_QSF = 9
# queue state float / int
QF_USE, QF_PALL, QF_PRUN, QF_AM, QF_FAIR, QF_LMIN, QF_LFAIR, QF_TBP = 0, 2, 4, 6, 8, 10, 12, 14
QF_APP_FAIR = 16  # leaf whose apps are alike (`_alike_apps`): each app's fair share
QF_APP_FAIR_MIN = 18  # leaf: the smallest memory fair share of its apps (`_app_shares`)
N_QF = 19
QI_RUNNABLE, QI_DIRTY, QI_TRIED, QI_APP_HEAD, QI_APP_TAIL = 0, 1, 2, 3, 4
QI_TREE_OFF, QI_TREE_P = 5, 6
QI_TREE_K, QI_SLOT_NEXT, QI_SLOT_FREE = 7, 8, 9  # tree width in use; slots handed out; freed
QI_TREE_ROOT = 10  # P / K, the subtree in use: kept, as dividing cost a tenth of a put
N_QI = 11
# job static int / float
JS_QUEUE, JS_USER, JS_RANK, JS_HAS_AM, JS_ST_LO, JS_ST_HI = 0, 1, 2, 3, 4, 5
JS_ORDER = 6  # rank of (start time, name rank): the apps' final tie-break as one number
N_JS = 7
JSF_SUBMIT, JSF_AM = 0, 1
N_JSF = 3
# job state float / int
JF_USE, JF_PEND, JF_FAIR, JF_LFAIR, JF_NCHECK, JF_FSTARV, JF_MSTARV, JF_TBP, JF_FINISH = (
    0,
    2,
    4,
    6,
    7,
    8,
    10,
    12,
    14,
)
JF_CONS = 15
N_JF = 17
JI_STATE, JI_AM_STATE, JI_AM_ATT, JI_STAGES_DONE, JI_APP_NEXT, JI_APP_PREV = 0, 1, 2, 3, 4, 5
JI_WAIT_NEXT, JI_WAIT_PREV, JI_TRIED, JI_STARVED, JI_CONS_EPOCH = 6, 7, 8, 9, 10
JI_RED_NEXT, JI_RED_PREV, JI_IN_RED = 11, 12, 13
JI_POS, JI_TOUCHED, JI_RC_NEXT, JI_RC_PREV, JI_IN_RC, JI_RED_SEQ = 14, 15, 16, 17, 18, 19
JI_CONT_HEAD, JI_CONT_TAIL = 20, 21  # the app's running task containers not marked
JI_HOLD_POS = 22  # where the app is in `hold` (-1: it holds none)
JI_MSTARV_POS = 23  # where the app is in jbuf[:, 3] (-1: its min-share starvation is zero)
N_JI = 24
# app order trees (one set per leaf): pending memory / map slots, vcores / reduce slots, any
V_ANY = 2
N_VIEWS = 3
# app order tree nodes (tnode, int64): smallest head request below, the winner's sort key
TN_REQ, TN_KEY = 0, 2
N_TN = 8  # 5 used; 64-byte rows, one cache line each (see `compiled.line_aligned`)
TN_NONE = 0x7FF0_0000_0000_0000  # ordered_bits(inf): no request
# stage static int / float
SS_LO, SS_HI, SS_PRIO, SS_SLOW, SS_DIM, SS_JOB = 0, 1, 2, 3, 4, 5
N_SS = 6
# stage state int
(
    SI_RELEASED,
    SI_NEXT,
    SI_PENDING,
    SI_DONE,
    SI_RETRY_HEAD,
    SI_RETRY_TAIL,
    SI_DEF_HEAD,
    SI_DEF_TAIL,
) = (
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
)
SI_HELD = 8
N_SI = 9
# task static int / float
TS_JOB, TS_STAGE, TS_FAILS = 0, 1, 2
N_TS = 3
TSF_REQ, TSF_DUR, TSF_A, TSF_B, TSF_C, TSF_FRAC = 0, 2, 3, 4, 5, 6
N_TSF = 7
# task state int
TI_FAILS, TI_RETRY_NEXT = 0, 1
N_TI = 2
# attempt float / int
AF_START, AF_FINISH, AF_MARK = 0, 1, 2
AF_END, AF_DUE = 3, 4  # heartbeats: the attempt's own end, and when its end event comes
N_AF = 5
AI_TASK, AI_STATE, AI_PREEMPTED, AI_OUTCOME, AI_RUN_NEXT, AI_RUN_PREV, AI_DEF_NEXT, AI_DEF_PREV = (
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
)
AI_CHOSEN = 8
AI_APP_NEXT, AI_APP_PREV = 9, 10  # links in the app's list of unmarked task containers
AI_NODE = 11  # the node the attempt runs on (-1: no heartbeats)
N_AI = 12
# nodes (heartbeats): free and capacity (memory, vcores or map, reduce slots), the time of
# the scheduled heartbeat event (inf: none); its place in the parked list (-1: not parked),
# and the stamps of the iteration the node is listed in `nlist` as heartbeating / touched
NF_FREE, NF_CAP, NF_HB = 0, 2, 4
N_NF = 5
NI_PARK, NI_BEAT, NI_TOUCH = 0, 1, 2
N_NI = 3

BISECTION_ROUNDS = 25
QUIET_CHECKS = 16  # Hadoop 3 checks with no progress before the livelock search starts
JAVA_INT_MAX = 2147483647.0


# --------------------------------------------------------------------------- borrowing
@njit(cache=True)
def _borrow_world(W):
    """The world tuple with every array borrowed (see `world.borrowed`)."""
    return (
        borrowed(W[0]), borrowed(W[1]), borrowed(W[2]), borrowed(W[3]),
        borrowed(W[4]), borrowed(W[5]), borrowed(W[6]), borrowed(W[7]),
        borrowed(W[8]), borrowed(W[9]), borrowed(W[10]), borrowed(W[11]),
        borrowed(W[12]), borrowed(W[13]), borrowed(W[14]), borrowed(W[15]),
        borrowed(W[16]), borrowed(W[17]), borrowed(W[18]), borrowed(W[19]),
        borrowed(W[20]), borrowed(W[21]), borrowed(W[22]), borrowed(W[23]),
        borrowed(W[24]), borrowed(W[25]), borrowed(W[26]), borrowed(W[27]),
        borrowed(W[28]), borrowed(W[29]), borrowed(W[30]), borrowed(W[31]),
        borrowed(W[32]), borrowed(W[33]), borrowed(W[34]), borrowed(W[35]),
        borrowed(W[36]), borrowed(W[37]), borrowed(W[38]), borrowed(W[39]),
        borrowed(W[40]), borrowed(W[41]), borrowed(W[42]),
    )  # fmt: skip


# --------------------------------------------------------------------------- numbers
@njit(cache=True)
def jdiv(x, w):
    """Java double division: x/0 is +-inf, 0/0 is NaN."""
    if w != 0.0:
        return x / w
    if x > 0.0:
        return INF
    if x < 0.0:
        return -INF
    return np.nan


@njit(cache=True)
def signum(x):
    """(int) Math.signum(x), NaN -> 0."""
    if x > 0.0:
        return 1
    if x < 0.0:
        return -1
    return 0


@njit(cache=True)
def java_int(x):
    """(int) cast of a double."""
    if x != x:
        return 0
    if x > JAVA_INT_MAX:
        return 2147483647
    if x < -2147483648.0:
        return -2147483648
    return int(x)


@njit(cache=True)
def res_compare(policy, a0, a1, b0, b1, c0, c1):
    """ResourceCalculator.compare: memory (fair/fifo) or dominant share (drf)."""
    if policy != 2:
        return signum(a0 - b0)
    if a0 == b0 and a1 == b1:
        return 0
    la = jdiv(a0, c0)
    sa = jdiv(a1, c1)
    lb = jdiv(b0, c0)
    sb = jdiv(b1, c1)
    r = signum(max(la, sa) - max(lb, sb))
    if r != 0:
        return r
    return signum(min(la, sa) - min(lb, sb))


# --------------------------------------------------------------------------- fair shares
@njit(cache=True)
def _planned(ratio, w, lo, hi, n, uniform):
    """The whole-number shares' total at `ratio`, capped at the Java int maximum. With
    every (w, lo, hi) alike it is n times one share: the same number, as sums of whole
    numbers are exact below 2**53, far above the cap."""
    if uniform:
        return min(n * math.floor(min(max(w[0] * ratio, lo[0]), hi[0])), JAVA_INT_MAX)
    total = 0.0
    for i in range(n):
        total += math.floor(min(max(w[i] * ratio, lo[i]), hi[i]))
    return min(total, JAVA_INT_MAX)


@njit(cache=True)
def compute_shares(weights, mins, maxs, total, active, use_active, out):
    """Twin of ``whatif.allocation.fairshare.compute_shares`` writing into `out`.

    weights, mins, maxs, out : float64 (n,); active : bool/int (n,) used when
    `use_active`; total : float64. Whole-number shares as ComputeFairShares gives.
    """
    n = weights.shape[0]
    w = np.empty(n)
    lo = np.empty(n)
    hi = np.empty(n)
    free_idx = np.empty(n, dtype=np.int64)
    m = 0
    taken = 0.0
    for i in range(n):
        out[i] = 0.0
        fixed = maxs[i] <= 0.0 or (use_active and not active[i])
        if not fixed and weights[i] <= 0.0:
            out[i] = max(mins[i], 0.0)
            fixed = True
        if fixed:
            taken += out[i]
        else:
            w[m] = weights[i]
            lo[m] = mins[i]
            hi[m] = maxs[i]
            free_idx[m] = i
            m += 1
    if m == 0:
        return
    cap_sum = 0.0
    for i in range(m):
        cap_sum += min(hi[i], 9.223372036854775807e18)
    remaining = min(cap_sum, max(total - taken, 0.0))
    uniform = True
    for i in range(1, m):
        if w[i] != w[0] or lo[i] != lo[0] or hi[i] != hi[0]:
            uniform = False
            break
    right = _share_ratio(w, lo, hi, m, uniform, remaining)
    for i in range(m):
        out[free_idx[i]] = math.floor(min(max(w[i] * right, lo[i]), hi[i]))


@njit(cache=True)
def _share_ratio(w, lo, hi, m, uniform, remaining):
    """ComputeFairShares' weight-to-resource ratio for m schedulables sharing `remaining`."""
    r_max = 1.0
    while _planned(r_max, w, lo, hi, m, uniform) < remaining:
        r_max *= 2.0
    left = 0.0
    right = r_max
    for _ in range(BISECTION_ROUNDS):
        mid = (left + right) / 2.0
        planned = _planned(mid, w, lo, hi, m, uniform)
        if planned == remaining:
            right = mid
            break
        if planned < remaining:
            left = mid
        else:
            right = mid
    return right


@njit(cache=True)
def _alike_share(total, n):
    """`compute_shares` for n apps of weight 1, no min and no max sharing `total`: each
    one's share, in O(1). The cap sum is n * 2**63 there, exactly (whole multiples)."""
    one = np.ones(1)
    zero = np.zeros(1)
    unbounded = np.full(1, INF)
    remaining = min(n * 9.223372036854775807e18, max(total, 0.0))
    right = _share_ratio(one, zero, unbounded, n, True, remaining)
    return math.floor(min(max(right, 0.0), INF))


# --------------------------------------------------------------------------- lists
# Doubly linked lists threaded through a table's rows: row x's links are
# nodes[x, nxt] and nodes[x, prv]; the list's head and tail are heads[h], heads[h + 1].
@njit(cache=True)
def _append(nodes, nxt, prv, heads, h, x):
    tail = heads[h + 1]
    nodes[x, prv] = tail
    nodes[x, nxt] = -1
    if tail >= 0:
        nodes[tail, nxt] = x
    else:
        heads[h] = x
    heads[h + 1] = x


@njit(cache=True)
def _remove(nodes, nxt, prv, heads, h, x):
    p = nodes[x, prv]
    n = nodes[x, nxt]
    if p >= 0:
        nodes[p, nxt] = n
    else:
        heads[h] = n
    if n >= 0:
        nodes[n, prv] = p
    else:
        heads[h + 1] = p


# --------------------------------------------------------------------------- heap
HI_SEQ, HI_KIND, HI_IDENT, HI_TASK, HI_JOB = 0, 1, 2, 3, 4
N_HI = 5


# A 4-ary min-heap on (time, seq): half the levels of a binary heap, and a node's four
# children sit side by side. (time, seq) pairs are unique, so the order events come out
# in does not depend on the heap's shape. Times are kept as `ordered_bits`, so that
# comparing entries is integer work that compiles to conditional moves.
@njit(cache=True)
def heap_push(hk, hi, gi, time, kind, ident, task, job):
    """Push (time, seq, kind, ident); seq is the global insertion counter. The event's
    task (-1: none) and job come along, so that their rows can be prefetched when the
    event comes to the top."""
    key = ordered_bits(time)
    seq = gi[GI_SEQ]
    gi[GI_SEQ] = seq + 1
    i = gi[GI_HEAP_N]
    gi[GI_HEAP_N] = i + 1
    while i > 0:
        p = (i - 1) >> 2
        if hk[p] < key or (hk[p] == key and hi[p, 0] < seq):
            break
        hk[i] = hk[p]
        for col in range(N_HI):
            hi[i, col] = hi[p, col]
        i = p
    hk[i] = key
    hi[i, HI_SEQ] = seq
    hi[i, HI_KIND] = kind
    hi[i, HI_IDENT] = ident
    hi[i, HI_TASK] = task
    hi[i, HI_JOB] = job


@njit(cache=True, inline="always")
def _earlier(k, s, k_then, s_then):
    """Whether entry (k, s) comes before (k_then, s_then); `&`, `|` do not short-circuit,
    so the choice it makes compiles to selects (which entry wins is unpredictable)."""
    return (k < k_then) | ((k == k_then) & (s < s_then))


@njit(cache=True)
def heap_pop(hk, hi, gi):
    """Remove the smallest (time, seq) entry; returns (kind, ident)."""
    kind = hi[0, HI_KIND]
    ident = hi[0, HI_IDENT]
    n = gi[GI_HEAP_N] - 1
    gi[GI_HEAP_N] = n
    if n > 0:
        k = hk[n]
        s = hi[n, HI_SEQ]
        i = 0
        while True:
            first = 4 * i + 1
            if first >= n:
                break
            c = first
            bk = hk[c]
            bs = hi[c, HI_SEQ]
            if first + 3 < n:
                # four children: two pairs side by side, then the winners of the pairs
                k1, s1 = hk[first + 1], hi[first + 1, HI_SEQ]
                k2, s2 = hk[first + 2], hi[first + 2, HI_SEQ]
                k3, s3 = hk[first + 3], hi[first + 3, HI_SEQ]
                one = _earlier(k1, s1, bk, bs)
                c = first + 1 if one else c
                bk = k1 if one else bk
                bs = s1 if one else bs
                three = _earlier(k3, s3, k2, s2)
                c23 = first + 3 if three else first + 2
                k23 = k3 if three else k2
                s23 = s3 if three else s2
                right = _earlier(k23, s23, bk, bs)
                c = c23 if right else c
                bk = k23 if right else bk
                bs = s23 if right else bs
            else:
                for x in range(first + 1, n):
                    kx = hk[x]
                    sx = hi[x, HI_SEQ]
                    less = _earlier(kx, sx, bk, bs)
                    c = x if less else c
                    bk = kx if less else bk
                    bs = sx if less else bs
            if _earlier(bk, bs, k, s):
                hk[i] = bk
                for col in range(N_HI):
                    hi[i, col] = hi[c, col]
                i = c
            else:
                break
        hk[i] = k
        for col in range(N_HI):
            hi[i, col] = hi[n, col]
    return kind, ident


# --------------------------------------------------------------------------- world
# W = (qs, qsf, children, qf, qi, dem, js, jsf, jf, ji, umax, urun, ss, ssf, si, sdone,
#      ts, tsf, ti, af, ai, hk, hi, gf, gi, cfg, cluster, minreq, warned, vict, jbuf,
#      tree, excl, touched, tnode, cand, slots, hold, holdv, unmarked)
#   (entry points pass it on as a WorldRef)
#   qs (nq, N_QS) int64 / qsf (nq, N_QSF) float64: static queue parameters
#   children (nq - 1,) int64: CSR child lists (qs[:, QS_CH_LO:QS_CH_HI])
#   qf (nq, N_QF) float64 / qi (nq, N_QI) int64: queue state; dem (nq, 2) scratch
#   js (nj, N_JS) int64 / jsf (nj, N_JSF) float64: static job data; jf/ji: job state
#   umax (nu,) int64 user maxRunningApps (-1 none); urun (nu,) int64 runnable apps
#   ss (ns, N_SS) int64 / ssf (ns, 2) float64 request sums: static stages; si state;
#   sdone (ns,) float64 time each stage completed (NaN before)
#   ts (nt, N_TS) int32 / tsf (nt, N_TSF) float64: static tasks; ti (nt, N_TI) int32 state
#   af (cap, N_AF) float64 / ai (cap, N_AI) int32: attempts (task < 0: AM of job -1-task)
#   hk (hcap,) int64 / hi (hcap, N_HI) int64: event heap (ordered_bits(time); seq, kind,
#     ident, and the task and job whose rows the event will read)
#   gf (N_GF,) float64 / gi (N_GI,) int64: clock, free resources, counters, list heads
#   cfg (N_CFG,) float64 settings; cluster (2,), minreq (2,) float64
#   warned (cap,) int64 Hadoop 2 warned attempts; vict (cap,) int64 scratch; jbuf (nj, 4)
#     int64: scratch (columns 0 and 2), the ring of apps by re-check time (1), the apps
#     with a nonzero min-share starvation (3)
#   tree (sum over leaves of N_VIEWS * 2 * P,) int64: per leaf and view, a tournament tree
#     over slots for the leaf's jobs (node P + JI_POS) whose nodes hold the best eligible
#     app or -1. A runnable app holds a slot (JI_POS, else -1), recycled when it ends, so
#     slots in use stay below the most apps runnable at once; the nodes over the first K
#     slots (K = QI_TREE_K, a power of two that only grows) form the subtree rooted at
#     node P / K (QI_TREE_ROOT), and only it is kept and read
#   excl (nj,) int64 scratch: apps taken out of a tree while an allocation tries them
#   touched (nj,) int64: apps whose tree slots are stale (GI_TOUCHED_N of them)
#   tnode (len(tree), N_TN) int64: per tree node, the smallest head request (memory,
#     vcores) of an eligible app below it (TN_NONE: none), and in `fair` leaves without
#     size-based weights the sort key of its winner (`_put_key`); floats are kept as
#     `ordered_bits`, so that choosing between nodes compiles to conditional moves
#   cand (cap,) int64 scratch: a Hadoop 3 check's victim candidates, newest first
#   slots (sum over leaves of P,) int64: per leaf from QI_TREE_OFF / (2 N_VIEWS), a stack
#     of the QI_SLOT_FREE slots freed by apps that ended
#   hold (nj, 2) int64 / holdv (nj, 3) float64: the GI_HOLD_N apps holding an unmarked
#     task container (app, leaf; memory usage less what is marked, the smallest memory
#     request of those containers and how many ask that), packed, in no order
#   unmarked (cap / 64 + 1,) uint64: a bit per attempt, set while it is a running task
#     container not marked for preemption (`_newest_unmarked` reads the highest)
#   nodef (nn, N_NF) float64 / nodei (nn, N_NI) int64: nodes (one unused row without
#     heartbeats); nlist (3 nn,) int64: the nodes heartbeating now [0, nn) and the nodes
#     touched now [nn, 2 nn), in the order first listed, and the parked nodes [2 nn, 3 nn)


@njit(cache=True)
def _up(W, col, leaf, x0, x1):
    qf = W[3]
    qs = W[0]
    q = leaf
    while q >= 0:
        qf[q, col] += x0
        qf[q, col + 1] += x1
        q = qs[q, QS_PARENT]


@njit(cache=True)
def _count_runnable(W, leaf, delta):
    qs, qi, gi = W[0], W[4], W[24]
    q = leaf
    while q >= 0:
        before = qi[q, QI_RUNNABLE]
        qi[q, QI_RUNNABLE] = before + delta
        if (before == 0) != (before + delta == 0):
            gi[GI_DIRTY] = 1
        q = qs[q, QS_PARENT]
    qi[leaf, QI_DIRTY] = 1


@njit(cache=True)
def _demand(W, q):
    """Queue demand (usage + pending of all apps, capped at maxShare at every level)."""
    qs, qsf, children, qf, dem = W[0], W[1], W[2], W[3], W[5]
    if qs[q, QS_LEAF] == 1:
        return (
            min(qf[q, QF_USE] + qf[q, QF_PALL], qsf[q, QSF_MAX]),
            min(qf[q, QF_USE + 1] + qf[q, QF_PALL + 1], qsf[q, QSF_MAX + 1]),
        )
    for i in range(q + qs[q, QS_SIZE] - 1, q - 1, -1):
        if qs[i, QS_LEAF] == 1:
            r0 = qf[i, QF_USE] + qf[i, QF_PALL]
            r1 = qf[i, QF_USE + 1] + qf[i, QF_PALL + 1]
        else:
            r0 = 0.0
            r1 = 0.0
            for k in range(qs[i, QS_CH_LO], qs[i, QS_CH_HI]):
                c = children[k]
                r0 += dem[c, 0]
                r1 += dem[c, 1]
        dem[i, 0] = min(r0, qsf[i, QSF_MAX])
        dem[i, 1] = min(r1, qsf[i, QSF_MAX + 1])
    return dem[q, 0], dem[q, 1]


@njit(cache=True)
def _add_pending(W, j, x0, x1):
    js, jf, ji = W[6], W[8], W[9]
    leaf = js[j, JS_QUEUE]
    jf[j, JF_PEND] += x0
    jf[j, JF_PEND + 1] += x1
    _touch(W, j)
    _up(W, QF_PALL, leaf, x0, x1)
    if ji[j, JI_STATE] == 2:
        _up(W, QF_PRUN, leaf, x0, x1)
    W[24][GI_CHANGED] = 1


@njit(cache=True)
def _release_stage(W, j, s):
    """Release stage `s` (and, with slowstart 0, the reduce stage after it at once)."""
    js, ss, ssf, si, cfg = W[6], W[12], W[13], W[14], W[25]
    while True:
        si[s, SI_RELEASED] = 1
        si[s, SI_PENDING] = ss[s, SS_HI] - ss[s, SS_LO]
        _add_pending(W, j, ssf[s, 0], ssf[s, 1])
        nxt = s + 1
        if nxt < js[j, JS_ST_HI] and ss[nxt, SS_SLOW] == 1 and si[nxt, SI_RELEASED] == 0:
            if si[s, SI_DONE] / (ss[s, SS_HI] - ss[s, SS_LO]) >= cfg[C_SLOWSTART]:
                s = nxt
                continue
        return


@njit(cache=True)
def _maybe_slowstart(W, j, s):
    """Release the reduce stage after map stage `s` once enough maps completed."""
    js, ss, si, cfg = W[6], W[12], W[14], W[25]
    nxt = s + 1
    if nxt < js[j, JS_ST_HI] and ss[nxt, SS_SLOW] == 1 and si[nxt, SI_RELEASED] == 0:
        size = ss[s, SS_HI] - ss[s, SS_LO]
        if si[s, SI_DONE] / size >= cfg[C_SLOWSTART]:
            _release_stage(W, j, nxt)


@njit(cache=True)
def _can_run(W, j):
    qs, qi, js, umax, urun = W[0], W[4], W[6], W[10], W[11]
    user = js[j, JS_USER]
    if umax[user] >= 0 and urun[user] >= umax[user]:
        return False
    q = js[j, JS_QUEUE]
    while q >= 0:
        if qs[q, QS_MAX_APPS] >= 0 and qi[q, QI_RUNNABLE] >= qs[q, QS_MAX_APPS]:
            return False
        q = qs[q, QS_PARENT]
    return True


@njit(cache=True)
def _make_runnable(W, j):
    qi, js, jf, ji, urun = W[4], W[6], W[8], W[9], W[11]
    leaf = js[j, JS_QUEUE]
    W[24][GI_CHANGED] = 1
    ji[j, JI_STATE] = 2
    _take_slot(W, j)
    _touch(W, j)
    urun[js[j, JS_USER]] += 1
    _count_runnable(W, leaf, 1)
    _up(W, QF_PRUN, leaf, jf[j, JF_PEND], jf[j, JF_PEND + 1])
    _append(ji, JI_APP_NEXT, JI_APP_PREV, qi[leaf], QI_APP_HEAD, j)


@njit(cache=True)
def _unlink_app(W, j):
    qi, js, ji = W[4], W[6], W[9]
    _remove(ji, JI_APP_NEXT, JI_APP_PREV, qi[js[j, JS_QUEUE]], QI_APP_HEAD, j)


@njit(cache=True)
def _submit(W, j):
    js, jsf, jf, ji, gf, gi = W[6], W[7], W[8], W[9], W[23], W[24]
    ji[j, JI_STATE] = 1
    jf[j, JF_LFAIR] = -INF
    if js[j, JS_HAS_AM] == 0 and js[j, JS_ST_LO] == js[j, JS_ST_HI]:
        ji[j, JI_STATE] = 3
        jf[j, JF_FINISH] = gf[G_NOW]
        return
    if js[j, JS_HAS_AM] == 1:
        ji[j, JI_AM_STATE] = 1
        _add_pending(W, j, jsf[j, JSF_AM], jsf[j, JSF_AM + 1])
    else:
        _release_stage(W, j, js[j, JS_ST_LO])
    if _can_run(W, j):
        _make_runnable(W, j)
    else:
        _append(ji, JI_WAIT_NEXT, JI_WAIT_PREV, gi, GI_WAIT_HEAD, j)


@njit(cache=True)
def _promote_waiting(W):
    """Scan waiting apps in submission order; make runnable every one the limits allow."""
    ji, gi = W[9], W[24]
    j = gi[GI_WAIT_HEAD]
    while j >= 0:
        nxt = ji[j, JI_WAIT_NEXT]
        if _can_run(W, j):
            _remove(ji, JI_WAIT_NEXT, JI_WAIT_PREV, gi, GI_WAIT_HEAD, j)
            _make_runnable(W, j)
        j = nxt


@njit(cache=True)
def _am_ready(W, j):
    js, ji = W[6], W[9]
    if ji[j, JI_AM_STATE] == 2:
        ji[j, JI_AM_STATE] = 3
        if js[j, JS_ST_LO] == js[j, JS_ST_HI]:
            _finish_job(W, j)
        else:
            _release_stage(W, j, js[j, JS_ST_LO])


# --------------------------------------------------------------------------- shares
@njit(cache=True)
def _compute_shares(W):
    """Instantaneous fair shares of every queue, top-down (document order)."""
    qs, qsf, children, qf, qi, gi, cluster = W[0], W[1], W[2], W[3], W[4], W[24], W[26]
    gi[GI_DIRTY] = 0
    nq = qs.shape[0]
    old0 = qf[:, QF_FAIR].copy()
    old1 = qf[:, QF_FAIR + 1].copy()
    qf[0, QF_FAIR] = cluster[0]
    qf[0, QF_FAIR + 1] = cluster[1]
    for q in range(nq):
        lo = qs[q, QS_CH_LO]
        hi = qs[q, QS_CH_HI]
        n = hi - lo
        if n == 0:
            continue
        w = np.empty(n)
        mn = np.empty(n)
        mx = np.empty(n)
        act = np.empty(n, dtype=np.bool_)
        out = np.empty(n)
        for d in range(2):
            for k in range(n):
                c = children[lo + k]
                w[k] = qsf[c, QSF_WEIGHT]
                mn[k] = qsf[c, QSF_MIN + d]
                mx[k] = qsf[c, QSF_MAX + d]
                act[k] = qi[c, QI_RUNNABLE] > 0
            compute_shares(w, mn, mx, qf[q, QF_FAIR + d], act, True, out)
            for k in range(n):
                qf[children[lo + k], QF_FAIR + d] = out[k]
    for q in range(nq):
        if qf[q, QF_FAIR] != old0[q] or qf[q, QF_FAIR + 1] != old1[q]:
            qi[q, QI_DIRTY] = 1


@njit(cache=True)
def _app_weight(W, j):
    jf, cfg = W[8], W[25]
    if cfg[C_SIZEBASED] != 0.0:
        return math.log1p(jf[j, JF_USE] + jf[j, JF_PEND]) / math.log(2.0)
    return 1.0


@njit(cache=True)
def _alike_apps(W, leaf):
    """Whether the leaf's apps all get the same fair share (weight 1, no min or max)."""
    return W[0][leaf, QS_POLICY] != 1 and W[25][C_SIZEBASED] == 0.0


@njit(cache=True)
def _app_fair(W, j, d):
    """App `j`'s fair share in dimension `d`, as `_app_shares` last set it."""
    leaf = W[6][j, JS_QUEUE]
    if _alike_apps(W, leaf):
        return W[3][leaf, QF_APP_FAIR + d]
    return W[8][j, JF_FAIR + d]


@njit(cache=True)
def _app_shares(W, leaf):
    """Fair shares of a leaf's runnable apps (fifo: the earliest app gets it all); read
    them with `_app_fair` (alike apps' share is kept once, for the leaf)."""
    qs, qf, qi, jf, ji, cfg = W[0], W[3], W[4], W[8], W[9], W[25]
    if qi[leaf, QI_DIRTY] == 0 and cfg[C_SIZEBASED] == 0.0:
        return
    qi[leaf, QI_DIRTY] = 0
    if _alike_apps(W, leaf):
        for d in range(2):
            qf[leaf, QF_APP_FAIR + d] = _alike_share(qf[leaf, QF_FAIR + d], qi[leaf, QI_RUNNABLE])
        qf[leaf, QF_APP_FAIR_MIN] = qf[leaf, QF_APP_FAIR]
        return
    n = 0
    j = qi[leaf, QI_APP_HEAD]
    while j >= 0:
        n += 1
        j = ji[j, JI_APP_NEXT]
    if n == 0:
        return
    if qs[leaf, QS_POLICY] == 1:
        first = qi[leaf, QI_APP_HEAD]
        j = first
        while j >= 0:
            if j < first:
                first = j
            j = ji[j, JI_APP_NEXT]
        j = qi[leaf, QI_APP_HEAD]
        while j >= 0:
            for d in range(2):
                jf[j, JF_FAIR + d] = qf[leaf, QF_FAIR + d] if j == first else 0.0
            j = ji[j, JI_APP_NEXT]
        qf[leaf, QF_APP_FAIR_MIN] = qf[leaf, QF_FAIR] if n == 1 else min(qf[leaf, QF_FAIR], 0.0)
        return
    w = np.empty(n)
    mn = np.zeros(n)
    mx = np.full(n, INF)
    act = np.ones(n, dtype=np.bool_)
    out = np.empty(n)
    ids = np.empty(n, dtype=np.int64)
    k = 0
    j = qi[leaf, QI_APP_HEAD]
    while j >= 0:
        ids[k] = j
        w[k] = _app_weight(W, j)
        k += 1
        j = ji[j, JI_APP_NEXT]
    for d in range(2):
        compute_shares(w, mn, mx, qf[leaf, QF_FAIR + d], act, False, out)
        for k in range(n):
            jf[ids[k], JF_FAIR + d] = out[k]
        if d == 0:
            qf[leaf, QF_APP_FAIR_MIN] = out.min()


# --------------------------------------------------------------------------- ordering
@njit(cache=True)
def _compare_fair(v3, d, ua, da, ma, wa, ub, db, mb, wb):
    if v3:
        if da[d] == 0.0 and db[d] > 0.0:
            return 1
        if db[d] == 0.0 and da[d] > 0.0:
            return -1
    min_a = min(ma[d], da[d])
    min_b = min(mb[d], db[d])
    needy_a = ua[d] < min_a
    needy_b = ub[d] < min_b
    if needy_a and not needy_b:
        return -1
    if needy_b and not needy_a:
        return 1
    if needy_a and needy_b:
        return signum(ua[d] / max(min_a, 1.0) - ub[d] / max(min_b, 1.0))
    if not v3 or (wa > 0.0 and wb > 0.0):
        return signum(jdiv(ua[d], wa) - jdiv(ub[d], wb))
    if wa == wb:
        return signum(ua[d] - ub[d])
    return signum(-wa + wb)


@njit(cache=True)
def _compare_drf(c, ua, ma, wa, ub, mb, wb):
    sa0 = jdiv(jdiv(ua[0], c[0]), wa)
    sa1 = jdiv(jdiv(ua[1], c[1]), wa)
    sb0 = jdiv(jdiv(ub[0], c[0]), wb)
    sb1 = jdiv(jdiv(ub[1], c[1]), wb)
    oa0, oa1 = (0, 1) if sa0 > sa1 else (1, 0)
    ob0, ob1 = (0, 1) if sb0 > sb1 else (1, 0)
    na0 = jdiv(ua[0], ma[0])
    na1 = jdiv(ua[1], ma[1])
    nb0 = jdiv(ub[0], mb[0])
    nb1 = jdiv(ub[1], mb[1])
    na = (na0, na1)
    nb = (nb0, nb1)
    sa = (sa0, sa1)
    sb = (sb0, sb1)
    needy_a = na[oa0] < 1.0
    needy_b = nb[ob0] < 1.0
    if needy_a and not needy_b:
        return -1
    if needy_b and not needy_a:
        return 1
    if needy_a:
        r = signum(na[oa0] - nb[ob0])
        if r != 0:
            return r
        return signum(na[oa1] - nb[ob1])
    r = signum(sa[oa0] - sb[ob0])
    if r != 0:
        return r
    return signum(sa[oa1] - sb[ob1])


@njit(cache=True)
def _compare(W, policy, d, ua, da, ma, wa, sta, ra, ub, db, mb, wb, stb, rb):
    cfg, cluster = W[25], W[26]
    if policy == 2:
        res = _compare_drf(cluster, ua, ma, wa, ub, mb, wb)
    elif policy == 1:
        res = 0
    else:
        res = _compare_fair(cfg[C_VERSION] == 3.0, d, ua, da, ma, wa, ub, db, mb, wb)
    if res == 0:
        res = signum(sta - stb)
    if res == 0:
        res = -1 if ra < rb else (1 if ra > rb else 0)
    return res


@njit(cache=True)
def _queue_key(W, q, use_tbp):
    qs, qsf, qf, cfg = W[0], W[1], W[3], W[25]
    u0 = qf[q, QF_USE]
    u1 = qf[q, QF_USE + 1]
    if use_tbp:
        u0 -= qf[q, QF_TBP]
        u1 -= qf[q, QF_TBP + 1]
    m0 = qsf[q, QSF_MIN]
    m1 = qsf[q, QSF_MIN + 1]
    d0 = 0.0
    d1 = 0.0
    if cfg[C_VERSION] == 3.0 or m0 > 0.0 or m1 > 0.0:
        d0, d1 = _demand(W, q)
    return (u0, u1), (d0, d1), (m0, m1), qsf[q, QSF_WEIGHT], 0.0, qs[q, QS_RANK]


@njit(cache=True)
def _app_key(W, j, use_tbp):
    js, jsf, jf = W[6], W[7], W[8]
    u0 = jf[j, JF_USE]
    u1 = jf[j, JF_USE + 1]
    if use_tbp:
        u0 -= jf[j, JF_TBP]
        u1 -= jf[j, JF_TBP + 1]
    d0 = jf[j, JF_USE] + jf[j, JF_PEND]
    d1 = jf[j, JF_USE + 1] + jf[j, JF_PEND + 1]
    return (u0, u1), (d0, d1), (0.0, 0.0), _app_weight(W, j), jsf[j, JSF_SUBMIT], js[j, JS_RANK]


@njit(cache=True)
def _cmp_queues(W, policy, d, a, b, use_tbp):
    ua, da, ma, wa, sa, ra = _queue_key(W, a, use_tbp)
    ub, db, mb, wb, sb, rb = _queue_key(W, b, use_tbp)
    return _compare(W, policy, d, ua, da, ma, wa, sa, ra, ub, db, mb, wb, sb, rb)


@njit(cache=True)
def _cmp_apps(W, policy, d, a, b, use_tbp):
    if policy == 0 and W[25][C_SIZEBASED] == 0.0:
        return _cmp_apps_fair(W, d, a, b, use_tbp)
    ua, da, ma, wa, sa, ra = _app_key(W, a, use_tbp)
    ub, db, mb, wb, sb, rb = _app_key(W, b, use_tbp)
    return _compare(W, policy, d, ua, da, ma, wa, sa, ra, ub, db, mb, wb, sb, rb)


@njit(cache=True)
def _cmp_apps_fair(W, d, a, b, use_tbp):
    """`_compare` for two apps under `fair` with unit weights, in dimension `d` only.

    Apps have no min share, so min(minShare, demand) is min(0, demand) and a needy app
    has negative usage; with weight 1 the usage ratio is the usage itself, and two needy
    apps compare usage / max(min, 1) = usage too."""
    js, jsf, jf, cfg = W[6], W[7], W[8], W[25]
    ua = jf[a, JF_USE + d]
    ub = jf[b, JF_USE + d]
    da = ua + jf[a, JF_PEND + d]
    db = ub + jf[b, JF_PEND + d]
    if use_tbp:
        ua -= jf[a, JF_TBP + d]
        ub -= jf[b, JF_TBP + d]
    if cfg[C_VERSION] == 3.0:
        if da == 0.0 and db > 0.0:
            return 1
        if db == 0.0 and da > 0.0:
            return -1
    needy_a = ua < min(0.0, da)
    needy_b = ub < min(0.0, db)
    if needy_a and not needy_b:
        return -1
    if needy_b and not needy_a:
        return 1
    res = signum(ua - ub)
    if res == 0:
        res = signum(jsf[a, JSF_SUBMIT] - jsf[b, JSF_SUBMIT])
    if res == 0:
        ra = js[a, JS_RANK]
        rb = js[b, JS_RANK]
        res = -1 if ra < rb else (1 if ra > rb else 0)
    return res


# --------------------------------------------------------------------------- app order
# Apps within a leaf are ranked by the leaf policy's comparator in a tournament tree per
# view (pending demand in dimension 0, in dimension 1, or in any): allocation and the
# starvation scan read the best app at the root instead of comparing every app, and an
# app whose usage or demand changed is re-ranked in O(log apps) before the next read.
@njit(cache=True)
def _eligible(W, j, view):
    jf, ji = W[8], W[9]
    if ji[j, JI_STATE] != 2:
        return False
    if view == V_ANY:
        return jf[j, JF_PEND] > 0.0 or jf[j, JF_PEND + 1] > 0.0
    return jf[j, JF_PEND + view] > 0.0


@njit(cache=True)
def _head_request(W, j, d):
    """What app `j` asks for next when offered a container of pool `d` (inf: nothing)."""
    jsf, ji, tsf = W[7], W[9], W[17]
    if ji[j, JI_AM_STATE] == 1:
        return jsf[j, JSF_AM], jsf[j, JSF_AM + 1]
    s = _next_stage(W, j, d)
    if s < 0:
        return INF, INF
    task = _head_task(W, s)
    return tsf[task, TSF_REQ], tsf[task, TSF_REQ + 1]


@njit(cache=True)
def _keyed(W, policy):
    """Whether a leaf's trees order apps by the sort keys in `tnode` (`_put_key`)."""
    return policy == 0 and W[25][C_SIZEBASED] == 0.0


@njit(cache=True)
def _put_key(W, j, d, row):
    """Write app `j`'s sort key in dimension `d` into tnode[row]: `_cmp_apps_fair` as a key
    compared column by column (demand zero after demand, needy first, then usage, then
    start time and name rank as one number), so that ranking reads the tree's own rows
    instead of app rows."""
    js, jf, cfg, tnode = W[6], W[8], W[25], W[34]
    u = jf[j, JF_USE + d]
    demand = u + jf[j, JF_PEND + d]
    rank_class = 0 if u < min(0.0, demand) else 1
    if cfg[C_VERSION] == 3.0 and demand == 0.0:
        rank_class += 2
    tnode[row, TN_KEY] = rank_class
    tnode[row, TN_KEY + 1] = ordered_bits(u)
    tnode[row, TN_KEY + 2] = js[j, JS_ORDER]


@njit(cache=True, inline="always")
def _keys_before(a0, a1, a2, b0, b1, b2):
    """Whether key (a0, a1, a2) ranks strictly before (b0, b1, b2), column by column.

    Written with `&` and `|`, which do not short-circuit, so it compiles to one result
    with no branch to mispredict."""
    return (a0 < b0) | ((a0 == b0) & ((a1 < b1) | ((a1 == b1) & (a2 < b2))))


@njit(cache=True)
def _key_before(tnode, x, y):
    """Whether the app keyed in tnode[x] ranks strictly before the one in tnode[y]."""
    return _keys_before(
        tnode[x, TN_KEY],
        tnode[x, TN_KEY + 1],
        tnode[x, TN_KEY + 2],
        tnode[y, TN_KEY],
        tnode[y, TN_KEY + 1],
        tnode[y, TN_KEY + 2],
    )


@njit(cache=True)
def _tree_put(W, j, view, value):
    """Set app `j`'s slot in its leaf's `view` tree to `value` (j or -1); re-rank upwards.

    Beside each node's winner, `tnode` keeps the smallest head request in its subtree, so
    a search for apps whose request fits can skip subtrees where none does, and in keyed
    leaves the winner's sort key."""
    qs, qi, js, ji, tree, tnode = W[0], W[4], W[6], W[9], W[31], W[34]
    leaf = js[j, JS_QUEUE]
    if ji[j, JI_POS] < 0:
        return  # not runnable: holds no slot
    p = qi[leaf, QI_TREE_P]
    base = qi[leaf, QI_TREE_OFF] + view * 2 * p
    root = qi[leaf, QI_TREE_ROOT]
    node = p + ji[j, JI_POS]
    if value < 0 and tree[base + node] < 0:
        return
    tree[base + node] = value
    d = 0 if view == V_ANY else view
    policy = qs[leaf, QS_POLICY]
    keyed = _keyed(W, policy)
    if value < 0:
        tnode[base + node, TN_REQ] = TN_NONE
        tnode[base + node, TN_REQ + 1] = TN_NONE
    else:
        r0, r1 = _head_request(W, j, d)
        tnode[base + node, TN_REQ] = ordered_bits(r0)
        tnode[base + node, TN_REQ + 1] = ordered_bits(r1)
        if keyed:
            _put_key(W, j, d, base + node)
    if keyed:
        row = base + node
        _rerank_keyed(
            W,
            base,
            node,
            root,
            j,
            value,
            tnode[row, TN_REQ],
            tnode[row, TN_REQ + 1],
            tnode[row, TN_KEY],
            tnode[row, TN_KEY + 1],
            tnode[row, TN_KEY + 2],
        )
        return
    node >>= 1
    while node >= root:
        left = base + 2 * node
        a = tree[left]
        b = tree[left + 1]
        if a < 0 or (b >= 0 and _cmp_apps(W, policy, d, b, a, False) < 0):
            a = b
        if not _set_node(tree, tnode, base + node, left, a, j):
            return
        node >>= 1


@njit(cache=True)
def _set_node(tree, tnode, at, left, a, j):
    """Give tree node `at` the winner `a` and the smallest request of its children (at
    `left`, `left` + 1); False if that changes nothing above it (the same winner, not the
    app `j` being re-ranked, and the same smallest request), so the walk up can stop."""
    m0 = min(tnode[left, TN_REQ], tnode[left + 1, TN_REQ])
    m1 = min(tnode[left, TN_REQ + 1], tnode[left + 1, TN_REQ + 1])
    if a == tree[at] and a != j and m0 == tnode[at, TN_REQ] and m1 == tnode[at, TN_REQ + 1]:
        return False
    tree[at] = a
    tnode[at, TN_REQ] = m0
    tnode[at, TN_REQ + 1] = m1
    return True


@njit(cache=True)
def _rerank_keyed(W, base, node, root, j, w, r0, r1, k0, k1, k2):
    """`_tree_put`'s walk up from `node` (just written) in a keyed tree: each node above
    takes the winner of its two children by their keys, with the winner's key.

    The path's winner (`w`), smallest request (`r0`, `r1`) and key (`k0`..`k2`) travel in
    registers, so each level waits only on its sibling's row, which it can load early,
    never on the row the level below just stored. Which child wins is a coin toss: the
    choice is written as selects (cmov, see the compiler option at the top), not a
    branch that would mispredict half the time."""
    tree, tnode = W[31], W[34]
    while node > root:
        sib = base + (node ^ 1)
        b = tree[sib]
        b0, b1, b2 = tnode[sib, TN_KEY], tnode[sib, TN_KEY + 1], tnode[sib, TN_KEY + 2]
        # the sibling wins if it ranks strictly before (keys of distinct apps differ,
        # an empty node's key is stale but never wins); a tie of empties stays empty
        sib_wins = (b >= 0) & ((w < 0) | _keys_before(b0, b1, b2, k0, k1, k2))
        w = b if sib_wins else w
        k0 = b0 if sib_wins else k0
        k1 = b1 if sib_wins else k1
        k2 = b2 if sib_wins else k2
        r0 = min(r0, tnode[sib, TN_REQ])
        r1 = min(r1, tnode[sib, TN_REQ + 1])
        node >>= 1
        at = base + node
        if w == tree[at] and w != j and r0 == tnode[at, TN_REQ] and r1 == tnode[at, TN_REQ + 1]:
            return  # nothing above changes
        tree[at] = w
        tnode[at, TN_REQ] = r0
        tnode[at, TN_REQ + 1] = r1
        if w >= 0:
            tnode[at, TN_KEY] = k0
            tnode[at, TN_KEY + 1] = k1
            tnode[at, TN_KEY + 2] = k2


@njit(cache=True)
def _preorder_next(node, root, down):
    """The next node of a preorder walk of the tree under `root` (a power of two) that
    enters `node`'s subtree only if `down`; -1 when the walk is over.

    Not entering, the walk climbs while `node` is a right child (odd), in one shift by its
    count of trailing ones rather than a loop whose exit mispredicts; it stops at `root`,
    which is even unless it is 1, the top."""
    if down:
        return 2 * node
    up = node >> trailing_zeros(~node)
    return -1 if up <= root else up + 1


@njit(cache=True)
def _tree_best_fit(W, leaf, view, lim0, lim1):
    """The leaf's best app in `view` whose head request is within (lim0, lim1); -1 if none.

    A preorder walk of the tree that skips subtrees whose smallest request exceeds the
    limits or whose winner ranks below the best fitting app found so far."""
    qs, qi, ji, tree, tnode = W[0], W[4], W[9], W[31], W[34]
    p = qi[leaf, QI_TREE_P]
    base = qi[leaf, QI_TREE_OFF] + view * 2 * p
    policy = qs[leaf, QS_POLICY]
    keyed = _keyed(W, policy)
    d = 0 if view == V_ANY else view
    # requests are kept as ordered_bits
    fit0 = ordered_bits(lim0)
    fit1 = ordered_bits(lim1)
    best = -1
    best_row = -1
    passed = -1  # the app passed over last (see `_order_next`)
    root = qi[leaf, QI_TREE_ROOT]
    node = root
    while True:
        w = tree[base + node]
        down = False
        if w >= 0 and tnode[base + node, TN_REQ] <= fit0 and tnode[base + node, TN_REQ + 1] <= fit1:
            if w == passed:
                down = node < p
            elif best < 0 or (
                _key_before(tnode, base + node, best_row)
                if keyed
                else _cmp_apps(W, policy, d, w, best, False) < 0
            ):
                slot = base + p + ji[w, JI_POS]
                if tnode[slot, TN_REQ] <= fit0 and tnode[slot, TN_REQ + 1] <= fit1:
                    best = w  # the subtree's winner fits: nothing below beats it
                    best_row = base + node
                else:
                    down = node < p
                    passed = w
        node = _preorder_next(node, root, down)
        if node < 0:
            return best


@njit(cache=True)
def _take_slot(W, j):
    """Give runnable app `j` a tree slot: a freed one, else the next; widen the trees in use
    when it lies beyond them (the new half holds no app, so each new root copies the old)."""
    qi, js, ji, tree, tnode, slots = W[4], W[6], W[9], W[31], W[34], W[36]
    leaf = js[j, JS_QUEUE]
    if qi[leaf, QI_SLOT_FREE] > 0:
        qi[leaf, QI_SLOT_FREE] -= 1
        slot = slots[qi[leaf, QI_TREE_OFF] // (2 * N_VIEWS) + qi[leaf, QI_SLOT_FREE]]
    else:
        slot = qi[leaf, QI_SLOT_NEXT]
        qi[leaf, QI_SLOT_NEXT] += 1
    ji[j, JI_POS] = slot
    p = qi[leaf, QI_TREE_P]
    while slot >= qi[leaf, QI_TREE_K]:
        old = qi[leaf, QI_TREE_ROOT]
        qi[leaf, QI_TREE_K] *= 2
        qi[leaf, QI_TREE_ROOT] = old // 2
        for view in range(N_VIEWS):
            base = qi[leaf, QI_TREE_OFF] + view * 2 * p
            tree[base + old // 2] = tree[base + old]
            for c in range(N_TN):
                tnode[base + old // 2, c] = tnode[base + old, c]


@njit(cache=True)
def _free_slot(W, j):
    """App `j` stops being runnable: empty its tree slots and free the slot for reuse."""
    qi, js, ji, slots = W[4], W[6], W[9], W[36]
    for view in range(N_VIEWS):
        _tree_put(W, j, view, -1)
    leaf = js[j, JS_QUEUE]
    slots[qi[leaf, QI_TREE_OFF] // (2 * N_VIEWS) + qi[leaf, QI_SLOT_FREE]] = ji[j, JI_POS]
    qi[leaf, QI_SLOT_FREE] += 1
    ji[j, JI_POS] = -1


@njit(cache=True)
def _touch(W, j):
    """App `j`'s usage, demand or state changed: re-rank it before the next tree read."""
    ji, gi, touched = W[9], W[24], W[33]
    if ji[j, JI_TOUCHED] == 0:
        ji[j, JI_TOUCHED] = 1
        touched[gi[GI_TOUCHED_N]] = j
        gi[GI_TOUCHED_N] += 1


@njit(cache=True)
def _retree(W):
    """Re-rank every touched app in each view's tree."""
    ji, gi, cfg, touched = W[9], W[24], W[25], W[33]
    views1 = cfg[C_SLOT] != 0.0
    for i in range(gi[GI_TOUCHED_N]):
        j = touched[i]
        ji[j, JI_TOUCHED] = 0
        for view in range(N_VIEWS):
            if view == 1 and not views1:
                continue
            if view == V_ANY and cfg[C_ANY_IS_0] != 0.0:
                continue
            _tree_put(W, j, view, j if _eligible(W, j, view) else -1)
    gi[GI_TOUCHED_N] = 0


@njit(cache=True)
def _any_view(W):
    """The view ranking apps with any pending demand (view 0's tree when it is the same)."""
    return 0 if W[25][C_ANY_IS_0] != 0.0 else V_ANY


# --------------------------------------------------------------------------- allocation
@njit(cache=True)
def _avail(W, d):
    """Free resources in dimension `d` of the node heartbeating, or of the cluster."""
    n = W[24][GI_CUR_NODE]
    if n >= 0:
        return W[40][n, NF_FREE + d]
    return W[23][G_FREE + d]


@njit(cache=True)
def _has_room(W, d):
    cfg, minreq = W[25], W[27]
    if cfg[C_SLOT] != 0.0:
        return _avail(W, d) >= 1.0
    return _avail(W, 0) >= minreq[0] and _avail(W, 1) >= minreq[1]


@njit(cache=True)
def _allocate(W):
    """Assign containers until nothing more fits (one pass per slot pool on Hadoop 1)."""
    qf, cfg = W[3], W[25]
    ndims = 2 if cfg[C_SLOT] != 0.0 else 1
    for d in range(ndims):
        while _has_room(W, d) and qf[0, QF_PRUN + d] > 0.0:
            if not _assign_one(W, d):
                break


@njit(cache=True)
def _assign_one(W, d):
    """Descend from the root to one container assignment; False if nothing fits."""
    qs, qi, gi = W[0], W[4], W[24]
    gi[GI_EPOCH] += 1
    epoch = gi[GI_EPOCH]
    q = 0
    while q >= 0:
        if qs[q, QS_FAIR_POSITIVE] == 1:
            best = _best_child_fair(W, q, d, epoch)
        else:
            best = _best_child(W, q, d, epoch)
        if best < 0:
            qi[q, QI_TRIED] = epoch
            q = qs[q, QS_PARENT]  # back up and try the parent's next child
            continue
        if qs[best, QS_LEAF] == 1:
            if _assign_leaf(W, best, d):
                return True
            qi[best, QI_TRIED] = epoch
        else:
            q = best
    return False


@njit(cache=True)
def _offerable(W, c, d, epoch):
    """Whether child queue `c` can be offered a container of pool `d` in this descent:
    not tried yet, runnable demand in `d`, usage within its maxResources."""
    qsf, qf, qi = W[1], W[3], W[4]
    if qi[c, QI_TRIED] == epoch or qf[c, QF_PRUN + d] <= 0.0:
        return False
    return qf[c, QF_USE] <= qsf[c, QSF_MAX] and qf[c, QF_USE + 1] <= qsf[c, QSF_MAX + 1]


@njit(cache=True)
def _best_child(W, q, d, epoch):
    """The child of `q` to offer the container to, by the parent's comparator (-1: none);
    children in document order, a later one winning only if it compares strictly lower."""
    qs, children = W[0], W[2]
    policy = qs[q, QS_POLICY]
    best = -1
    # the best child's key, read once per child
    ub, db, mb, wb, sb, rb = (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), 0.0, 0.0, 0
    for k in range(qs[q, QS_CH_LO], qs[q, QS_CH_HI]):
        c = children[k]
        if not _offerable(W, c, d, epoch):
            continue
        uc, dc, mc, wc, sc, rc = _queue_key(W, c, False)
        if best < 0 or _compare(W, policy, d, uc, dc, mc, wc, sc, rc, ub, db, mb, wb, sb, rb) < 0:
            best = c
            ub, db, mb, wb, sb, rb = uc, dc, mc, wc, sc, rc
    return best


@njit(cache=True)
def _best_child_fair(W, q, d, epoch):
    """`_best_child` for a `fair` parent whose children all weigh more than zero.

    `_compare_fair` then reads as a key compared column by column: a class (Hadoop 3's
    demand-zero rule, then needy first), the needy ratio or usage / weight, then the name
    rank (queues all start at 0). The ratios are finite, so comparing them equals the
    sign of their difference."""
    qs, qsf, children, qf, cfg = W[0], W[1], W[2], W[3], W[25]
    v3 = cfg[C_VERSION] == 3.0
    best = -1
    best_cls = 0
    best_ratio = 0.0
    best_rank = 0
    for k in range(qs[q, QS_CH_LO], qs[q, QS_CH_HI]):
        c = children[k]
        if not _offerable(W, c, d, epoch):
            continue
        u = qf[c, QF_USE + d]
        m = qsf[c, QSF_MIN + d]
        demand = 0.0
        if qs[c, QS_LEAF] == 1:  # `_demand` of a leaf, in `d` only
            demand = min(u + qf[c, QF_PALL + d], qsf[c, QSF_MAX + d])
        elif v3 or qsf[c, QSF_MIN] > 0.0 or qsf[c, QSF_MIN + 1] > 0.0:
            demand = _demand(W, c)[d]
        needy_min = min(m, demand)
        needy = u < needy_min
        cls = (2 if v3 and demand == 0.0 else 0) + (0 if needy else 1)
        ratio = u / (max(needy_min, 1.0) if needy else qsf[c, QSF_WEIGHT])
        rank = qs[c, QS_RANK]
        # which child wins is unpredictable: `&`, `|` and selects, no branches
        wins = (best < 0) | (
            (cls < best_cls)
            | (
                (cls == best_cls)
                & ((ratio < best_ratio) | ((ratio == best_ratio) & (rank < best_rank)))
            )
        )
        best = c if wins else best
        best_cls = cls if wins else best_cls
        best_ratio = ratio if wins else best_ratio
        best_rank = rank if wins else best_rank
    return best


@njit(cache=True)
def _assign_leaf(W, leaf, d):
    """Offer the container to the leaf's apps in policy order; False if none takes it."""
    qs, qsf, qf, excl = W[0], W[1], W[3], W[32]
    _retree(W)
    # apps whose next request exceeds free resources or a queue's max cannot take it
    lim0 = _avail(W, 0)
    lim1 = _avail(W, 1)
    q = leaf
    while q >= 0:
        lim0 = min(lim0, _loose(qsf[q, QSF_MAX] - qf[q, QF_USE]))
        lim1 = min(lim1, _loose(qsf[q, QSF_MAX + 1] - qf[q, QF_USE + 1]))
        q = qs[q, QS_PARENT]
    n = 0
    found = False
    while True:
        best = _tree_best_fit(W, leaf, d, lim0, lim1)
        if best < 0:
            break
        if _try_app(W, best, leaf, d):
            found = True
            break
        _tree_put(W, best, d, -1)
        excl[n] = best
        n += 1
    for i in range(n):
        _tree_put(W, excl[i], d, excl[i])  # a failed offer changes nothing
    return found


@njit(cache=True)
def _loose(x):
    """x widened by rounding slack: a bound on requests that `_fits` may still accept."""
    return x + abs(x) * 1e-9 + 1e-9


@njit(cache=True)
def _next_stage(W, j, d):
    js, ss, si = W[6], W[12], W[14]
    best = -1
    for s in range(js[j, JS_ST_LO], js[j, JS_ST_HI]):
        if (
            si[s, SI_RELEASED] == 1
            and si[s, SI_HELD] == 0
            and si[s, SI_PENDING] > 0
            and ss[s, SS_DIM] == d
        ):
            if best < 0 or ss[s, SS_PRIO] < ss[best, SS_PRIO]:
                best = s
    return best


@njit(cache=True)
def _fits(W, leaf, r0, r1):
    qs, qsf, qf = W[0], W[1], W[3]
    if _avail(W, 0) < r0 or _avail(W, 1) < r1:
        return False
    q = leaf
    while q >= 0:
        if qf[q, QF_USE] + r0 > qsf[q, QSF_MAX] or qf[q, QF_USE + 1] + r1 > qsf[q, QSF_MAX + 1]:
            return False
        q = qs[q, QS_PARENT]
    return True


@njit(cache=True)
def _am_fits(W, leaf, r0, r1):
    qsf, qf, gf = W[1], W[3], W[23]
    share = qsf[leaf, QSF_AMSHARE]
    if abs(share + 1.0) < 1e-4:
        return True
    for d in range(2):
        cap = qf[leaf, QF_FAIR + d]
        if cap == 0.0:
            cap = min(gf[G_FREE + d], qsf[leaf, QSF_MAX + d])
        cap = math.floor(cap * share)
        r = r0 if d == 0 else r1
        if qf[leaf, QF_AM + d] + r > cap:
            return False
    return True


@njit(cache=True)
def _head_task(W, s):
    ss, si = W[12], W[14]
    if si[s, SI_NEXT] < ss[s, SS_HI]:
        return si[s, SI_NEXT]
    return si[s, SI_RETRY_HEAD]


@njit(cache=True)
def _try_app(W, j, leaf, d):
    jsf, ji, ss, si, tsf, ti = W[7], W[9], W[12], W[14], W[17], W[18]
    if ji[j, JI_AM_STATE] == 1:
        r0 = jsf[j, JSF_AM]
        r1 = jsf[j, JSF_AM + 1]
        if not _fits(W, leaf, r0, r1) or not _am_fits(W, leaf, r0, r1):
            return False
        _start_attempt(W, j, -1 - j, r0, r1)
        return True
    s = _next_stage(W, j, d)
    if s < 0:
        return False
    task = _head_task(W, s)
    r0 = tsf[task, TSF_REQ]
    r1 = tsf[task, TSF_REQ + 1]
    if not _fits(W, leaf, r0, r1):
        return False
    if si[s, SI_NEXT] < ss[s, SS_HI]:
        si[s, SI_NEXT] += 1
        # the stage's next tasks: the next head request (read when the app is re-ranked)
        # and the one after (read when it starts)
        if task + 1 < ss[s, SS_HI]:
            prefetch(tsf, task + 1)
        if task + 2 < ss[s, SS_HI]:
            prefetch(tsf, task + 2)
            prefetch(W[16], task + 2)
            prefetch(ti, task + 2)
    else:
        nxt = ti[task, TI_RETRY_NEXT]
        si[s, SI_RETRY_HEAD] = nxt
        if nxt < 0:
            si[s, SI_RETRY_TAIL] = -1
    _start_attempt(W, j, task, r0, r1)
    if si[s, SI_PENDING] == 0 and s + 1 < W[6][j, JS_ST_HI] and si[s + 1, SI_HELD] == 1:
        _hold(W, j, s + 1, False)
    return True


@njit(cache=True)
def _start_attempt(W, j, task, r0, r1):
    js, jf, ji, ss, si, sdone = W[6], W[8], W[9], W[12], W[14], W[15]
    ts, tsf, ti, af, ai, hk, hi, gf, gi, cfg = (
        W[16],
        W[17],
        W[18],
        W[19],
        W[20],
        W[21],
        W[22],
        W[23],
        W[24],
        W[25],
    )
    t = gf[G_NOW]
    lat = cfg[C_LAT]
    leaf = js[j, JS_QUEUE]
    a = gi[GI_N_ATT]
    gi[GI_N_ATT] = a + 1
    ai[a, AI_TASK] = task
    ai[a, AI_STATE] = RUNNING
    ai[a, AI_PREEMPTED] = 0
    ai[a, AI_CHOSEN] = 0
    ai[a, AI_DEF_NEXT] = -1
    ai[a, AI_DEF_PREV] = -1
    af[a, AF_START] = t
    af[a, AF_FINISH] = INF
    af[a, AF_MARK] = -1.0
    af[a, AF_END] = INF
    af[a, AF_DUE] = INF
    node = gi[GI_CUR_NODE]
    ai[a, AI_NODE] = node
    gi[GI_CHANGED] = 1
    _append(ai, AI_RUN_NEXT, AI_RUN_PREV, gi, GI_RUN_HEAD, a)
    gf[G_FREE] -= r0
    gf[G_FREE + 1] -= r1
    if node >= 0:
        W[40][node, NF_FREE] -= r0
        W[40][node, NF_FREE + 1] -= r1
    jf[j, JF_USE] += r0
    jf[j, JF_USE + 1] += r1
    _held_changed(W, j)
    _up(W, QF_USE, leaf, r0, r1)
    _add_pending(W, j, -r0, -r1)
    if task >= 0:
        _free_add(W, a, j)
    if task < 0:
        ai[a, AI_OUTCOME] = SUCCEEDED
        ji[j, JI_AM_STATE] = 2
        ji[j, JI_AM_ATT] = a
        W[3][leaf, QF_AM] += r0
        W[3][leaf, QF_AM + 1] += r1
        heap_push(hk, hi, gi, t + lat + cfg[C_AM_LAT], AM_READY, j, -1, j)
        return
    s = ts[task, TS_STAGE]
    si[s, SI_PENDING] -= 1
    if ti[task, TI_FAILS] < ts[task, TS_FAILS]:
        ai[a, AI_OUTCOME] = FAILED
        _push_end(W, a, t + lat + tsf[task, TSF_FRAC] * tsf[task, TSF_DUR], task, j)
    elif ss[s, SS_SLOW] == 1:
        ai[a, AI_OUTCOME] = SUCCEEDED
        if np.isnan(sdone[s - 1]):
            _append(ai, AI_DEF_NEXT, AI_DEF_PREV, si[s], SI_DEF_HEAD, a)
            if ji[j, JI_IN_RED] == 0:
                _red_link(W, j)
        else:
            _push_end(W, a, _replay_finish(W, a, task, sdone[s - 1]), task, j)
    else:
        ai[a, AI_OUTCOME] = SUCCEEDED
        _push_end(W, a, t + lat + tsf[task, TSF_DUR], task, j)
    _red_refresh(W, j)


@njit(cache=True)
def _next_heartbeat(W, n, t, at):
    """Node `n`'s first heartbeat after `t`, or at or after it with `at`
    (`nodes.next_heartbeat`: phase + k * interval, so equal times compare equal)."""
    interval = W[25][C_HB_INTERVAL]
    phase = n * interval / W[40].shape[0]
    k = math.floor((t - phase) / interval)
    g = phase + k * interval
    while g < t or (g == t and not at):
        k += 1.0
        g = phase + k * interval
    return g


@njit(cache=True)
def _push_end(W, a, time, task, j):
    """The end event of attempt `a`, which ends at `time`: with heartbeats its node reports
    it (and frees its resources) at its next heartbeat."""
    af, ai = W[19], W[20]
    n = ai[a, AI_NODE]
    if n >= 0:
        af[a, AF_END] = time
        time = _next_heartbeat(W, n, time, False)
        af[a, AF_DUE] = time
    heap_push(W[21], W[22], W[24], time, END, a, task, j)


@njit(cache=True)
def _touch_node(W, n):
    """List node `n` as touched now (heartbeating or freed), once."""
    nodei, nlist, gi = W[41], W[42], W[24]
    if nodei[n, NI_TOUCH] != gi[GI_ITER]:
        nodei[n, NI_TOUCH] = gi[GI_ITER]
        nlist[W[40].shape[0] + gi[GI_TOUCH_N]] = n
        gi[GI_TOUCH_N] += 1


@njit(cache=True)
def _beat(W, n):
    """Node `n` heartbeats now: it is offered containers after this time's events."""
    nodei, nlist, gi = W[41], W[42], W[24]
    if nodei[n, NI_BEAT] != gi[GI_ITER]:
        nodei[n, NI_BEAT] = gi[GI_ITER]
        nlist[gi[GI_BEAT_N]] = n
        gi[GI_BEAT_N] += 1
    _touch_node(W, n)


@njit(cache=True)
def _node_room(W, n):
    """Whether node `n` could take the smallest request (a slot of either pool)."""
    nodef, cfg, minreq = W[40], W[25], W[27]
    if cfg[C_SLOT] != 0.0:
        return nodef[n, NF_FREE] >= 1.0 or nodef[n, NF_FREE + 1] >= 1.0
    return nodef[n, NF_FREE] >= minreq[0] and nodef[n, NF_FREE + 1] >= minreq[1]


@njit(cache=True)
def _node_wants(W, n):
    """Whether node `n` has room for some runnable pending demand."""
    nodef, qf, cfg = W[40], W[3], W[25]
    if cfg[C_SLOT] != 0.0:
        return (nodef[n, NF_FREE] >= 1.0 and qf[0, QF_PRUN] > 0.0) or (
            nodef[n, NF_FREE + 1] >= 1.0 and qf[0, QF_PRUN + 1] > 0.0
        )
    return _node_room(W, n) and qf[0, QF_PRUN] > 0.0


@njit(cache=True)
def _park(W, n, parked):
    """Put node `n` on the parked list (parked: True) or take it off (False)."""
    nodei, nlist, gi = W[41], W[42], W[24]
    base = 2 * W[40].shape[0]
    pos = nodei[n, NI_PARK]
    if parked and pos < 0:
        nlist[base + gi[GI_PARK_N]] = n
        nodei[n, NI_PARK] = gi[GI_PARK_N]
        gi[GI_PARK_N] += 1
    elif not parked and pos >= 0:
        gi[GI_PARK_N] -= 1
        last = nlist[base + gi[GI_PARK_N]]
        nlist[base + pos] = last
        nodei[last, NI_PARK] = pos
        nodei[n, NI_PARK] = -1


@njit(cache=True)
def _settle(W, n, t, wake):
    """Node `n` without a heartbeat scheduled: schedule its next one if it may assign
    (`wake`: something changed since it last found nothing) and has room for pending
    demand; else park it while it has room (a node without room waits for a release)."""
    nodef = W[40]
    if nodef[n, NF_HB] != INF:
        return
    if wake and _node_wants(W, n):
        nodef[n, NF_HB] = _next_heartbeat(W, n, t, False)
        heap_push(W[21], W[22], W[24], nodef[n, NF_HB], HEARTBEAT, n, -1, 0)
        _park(W, n, False)
    else:
        _park(W, n, _node_room(W, n))


@njit(cache=True)
def _beats_now(W, n, t):
    """`_catch_up` for node `n`; True if it heartbeats now."""
    nodef, nodei, gi = W[40], W[41], W[24]
    if (
        nodei[n, NI_BEAT] != gi[GI_ITER]
        and nodef[n, NF_HB] == INF
        and _node_wants(W, n)
        and _next_heartbeat(W, n, t, True) == t
    ):
        _beat(W, n)
        _park(W, n, False)
        return True
    return False


@njit(cache=True)
def _catch_up(W, t):
    """Before the first allocation at `t`: a node without a heartbeat scheduled whose
    heartbeat grid has `t` heartbeats now if it has room for pending demand and was freed
    now or anything changed (what it would have seen had its heartbeat at `t` been
    scheduled, as the events at `t` come before the heartbeats' assignments)."""
    nlist, gi = W[42], W[24]
    nn = W[40].shape[0]
    for i in range(gi[GI_TOUCH_N]):
        _beats_now(W, nlist[nn + i], t)
    if gi[GI_CHANGED] != 0:
        i = 0
        while i < gi[GI_PARK_N]:
            if not _beats_now(W, nlist[2 * nn + i], t):
                i += 1


@njit(cache=True)
def _wake(W, t):
    """After an event time: the nodes that heartbeated or had resources freed, and, if
    anything an allocation depends on changed, every parked node, get their next
    heartbeat scheduled when they may assign something. A node's heartbeats in between
    would find what its last one found, nothing, so they are skipped."""
    nodef, nlist, qf, cfg, gi = W[40], W[42], W[3], W[25], W[24]
    nn = nodef.shape[0]
    changed = gi[GI_CHANGED] != 0
    for i in range(gi[GI_TOUCH_N]):
        _settle(W, nlist[nn + i], t, changed)
    demand = qf[0, QF_PRUN] > 0.0 or (cfg[C_SLOT] != 0.0 and qf[0, QF_PRUN + 1] > 0.0)
    if changed and demand:
        i = 0
        while i < gi[GI_PARK_N]:
            before = gi[GI_PARK_N]
            _settle(W, nlist[2 * nn + i], t, True)
            if gi[GI_PARK_N] == before:
                i += 1
    gi[GI_CHANGED] = 0
    gi[GI_TOUCH_N] = 0


@njit(cache=True)
def _load_ok(W, n, d):
    """Hadoop 1 CapBasedLoadManager: a tracker runs at most
    ceil(slots * min(1, runnable tasks / cluster slots)) tasks of a type."""
    nodef, qf, cluster = W[40], W[3], W[26]
    total = cluster[d]
    if total <= 0.0:
        return False
    runnable = qf[0, QF_USE + d] + qf[0, QF_PRUN + d]
    cap = math.ceil(nodef[n, NF_CAP + d] * min(1.0, runnable / total))
    return nodef[n, NF_CAP + d] - nodef[n, NF_FREE + d] < cap


@njit(cache=True)
def _node_allocate(W, n):
    """Assign containers on node `n`'s heartbeat: Hadoop 1 FairScheduler.assignTasks on a
    slot cluster, else FairScheduler.attemptScheduling."""
    nodef, qf, gi, cfg = W[40], W[3], W[24], W[25]
    gi[GI_CUR_NODE] = n
    count = 0
    multi = cfg[C_MULTI] != 0.0
    if cfg[C_SLOT] != 0.0:
        cap0 = cfg[C_CAP_MAPS] if multi else 1.0
        cap1 = cfg[C_CAP_REDS] if multi else 1.0
        assigned0 = 0.0
        assigned1 = 0.0
        rej0 = False
        rej1 = False
        while True:
            if not rej0 and (assigned0 == cap0 or qf[0, QF_PRUN] <= 0.0 or not _load_ok(W, n, 0)):
                rej0 = True
            if not rej1 and (
                assigned1 == cap1 or qf[0, QF_PRUN + 1] <= 0.0 or not _load_ok(W, n, 1)
            ):
                rej1 = True
            if (rej0 and rej1) or (not multi and count > 0):
                break
            if rej0:
                d = 1
            elif rej1:
                d = 0
            else:
                used0 = nodef[n, NF_CAP] - nodef[n, NF_FREE]
                used1 = nodef[n, NF_CAP + 1] - nodef[n, NF_FREE + 1]
                d = 0 if used0 <= used1 else 1
            if _assign_one(W, d):
                count += 1
                if d == 0:
                    assigned0 += 1.0
                else:
                    assigned1 += 1.0
            elif d == 0:
                rej0 = True
            else:
                rej1 = True
    else:
        start0 = nodef[n, NF_FREE]
        start1 = nodef[n, NF_FREE + 1]
        half0 = math.floor(start0 * 0.5)
        half1 = math.floor(start1 * 0.5)
        while _has_room(W, 0) and qf[0, QF_PRUN] > 0.0:
            if not _assign_one(W, 0):
                break
            count += 1
            if not multi:
                break
            if cfg[C_DYNAMIC] != 0.0:
                if not (
                    start0 - nodef[n, NF_FREE] <= half0 and start1 - nodef[n, NF_FREE + 1] <= half1
                ):
                    break
            elif cfg[C_MAX_ASSIGN] > 0.0 and count >= cfg[C_MAX_ASSIGN]:
                break
    gi[GI_CUR_NODE] = -1


@njit(cache=True)
def _replay_finish(W, a, task, last_map):
    tsf, af, cfg = W[17], W[19], W[25]
    begin = af[a, AF_START] + cfg[C_LAT] + tsf[task, TSF_A]
    return max(begin, last_map + tsf[task, TSF_B]) + tsf[task, TSF_C]


@njit(cache=True)
def _free_add(W, a, j):
    """Task container `a` of app `j` starts: list it as one preemption may take (its bit in
    `unmarked`, and the app's own list, which puts the app on the list of apps holding
    one)."""
    js, ji, tsf, ai, gi, hold, holdv, unmarked = (
        W[6],
        W[9],
        W[17],
        W[20],
        W[24],
        W[37],
        W[38],
        W[39],
    )
    unmarked[a >> 6] |= np.uint64(1) << np.uint64(a & 63)
    r0 = tsf[ai[a, AI_TASK], TSF_REQ]
    if ji[j, JI_CONT_HEAD] < 0:
        pos = gi[GI_HOLD_N]
        gi[GI_HOLD_N] += 1
        ji[j, JI_HOLD_POS] = pos
        hold[pos, 0] = j
        hold[pos, 1] = js[j, JS_QUEUE]
        holdv[pos, 1] = r0
        holdv[pos, 2] = 1.0
        _held_changed(W, j)
    else:
        pos = ji[j, JI_HOLD_POS]
        if r0 < holdv[pos, 1]:
            holdv[pos, 1] = r0
            holdv[pos, 2] = 1.0
        elif r0 == holdv[pos, 1]:
            holdv[pos, 2] += 1.0
    _append(ai, AI_APP_NEXT, AI_APP_PREV, ji[j], JI_CONT_HEAD, a)


@njit(cache=True)
def _free_remove(W, a, j):
    """Container `a` of app `j` ends or is marked for preemption: unlist it."""
    ji, tsf, ai, gi, hold, holdv, unmarked = W[9], W[17], W[20], W[24], W[37], W[38], W[39]
    unmarked[a >> 6] &= ~(np.uint64(1) << np.uint64(a & 63))
    _remove(ai, AI_APP_NEXT, AI_APP_PREV, ji[j], JI_CONT_HEAD, a)
    pos = ji[j, JI_HOLD_POS]
    if ji[j, JI_CONT_HEAD] < 0:
        gi[GI_HOLD_N] -= 1
        last = gi[GI_HOLD_N]
        hold[pos, 0] = hold[last, 0]
        hold[pos, 1] = hold[last, 1]
        for c in range(3):
            holdv[pos, c] = holdv[last, c]
        ji[hold[pos, 0], JI_HOLD_POS] = pos
        ji[j, JI_HOLD_POS] = -1
    elif tsf[ai[a, AI_TASK], TSF_REQ] == holdv[pos, 1]:
        holdv[pos, 2] -= 1.0
        if holdv[pos, 2] == 0.0:  # it was the last one that small: find the next size
            smallest = INF
            count = 0.0
            b = ji[j, JI_CONT_HEAD]
            while b >= 0:
                r = tsf[ai[b, AI_TASK], TSF_REQ]
                if r < smallest:
                    smallest = r
                    count = 1.0
                elif r == smallest:
                    count += 1.0
                b = ai[b, AI_APP_NEXT]
            holdv[pos, 1] = smallest
            holdv[pos, 2] = count


@njit(cache=True)
def _held_changed(W, j):
    """App `j`'s usage or marked resources changed: update its entry in `hold`."""
    jf, ji, holdv = W[8], W[9], W[38]
    pos = ji[j, JI_HOLD_POS]
    if pos >= 0:
        holdv[pos, 0] = jf[j, JF_USE] - jf[j, JF_TBP]


@njit(cache=True)
def _release_container(W, a, state):
    """Record the attempt's end and give its resources back; returns (job, r0, r1)."""
    qf, js, jsf, jf, ts, tsf, af, ai, gf, gi = (
        W[3],
        W[6],
        W[7],
        W[8],
        W[16],
        W[17],
        W[19],
        W[20],
        W[23],
        W[24],
    )
    t = gf[G_NOW]
    task = ai[a, AI_TASK]
    if task < 0:
        j = -1 - task
        r0 = jsf[j, JSF_AM]
        r1 = jsf[j, JSF_AM + 1]
    else:
        j = ts[task, TS_JOB]
        r0 = tsf[task, TSF_REQ]
        r1 = tsf[task, TSF_REQ + 1]
    leaf = js[j, JS_QUEUE]
    ai[a, AI_STATE] = KILLED if state == AM_KILLED else state
    af[a, AF_FINISH] = t
    ai[a, AI_PREEMPTED] = 1 if state == KILLED else 0
    _remove(ai, AI_RUN_NEXT, AI_RUN_PREV, gi, GI_RUN_HEAD, a)
    if af[a, AF_MARK] < 0.0 and task >= 0:
        _free_remove(W, a, j)
    if af[a, AF_MARK] >= 0.0:
        af[a, AF_MARK] = -1.0
        jf[j, JF_TBP] -= r0
        jf[j, JF_TBP + 1] -= r1
        _up(W, QF_TBP, leaf, -r0, -r1)
    gf[G_FREE] += r0
    gf[G_FREE + 1] += r1
    gi[GI_CHANGED] = 1
    node = ai[a, AI_NODE]
    if node >= 0:
        W[40][node, NF_FREE] += r0
        W[40][node, NF_FREE + 1] += r1
        _touch_node(W, node)
    jf[j, JF_USE] -= r0
    jf[j, JF_USE + 1] -= r1
    _held_changed(W, j)
    _touch(W, j)
    _up(W, QF_USE, leaf, -r0, -r1)
    if task < 0:
        qf[leaf, QF_AM] -= r0
        qf[leaf, QF_AM + 1] -= r1
    return j, r0, r1


@njit(cache=True)
def _end_attempt(W, a, state):
    """A task attempt ends: re-queue its task, or count it done and move the job on."""
    js, ji, ss, si, sdone = W[6], W[9], W[12], W[14], W[15]
    ti, ai, gf = W[18], W[20], W[23]
    t = gf[G_NOW]
    task = ai[a, AI_TASK]
    j, r0, r1 = _release_container(W, a, state)
    s = W[16][task, TS_STAGE]
    if state != SUCCEEDED:
        if state == FAILED:
            ti[task, TI_FAILS] += 1
        if ss[s, SS_SLOW] == 1 and (ai[a, AI_DEF_PREV] >= 0 or si[s, SI_DEF_HEAD] == a):
            _remove(ai, AI_DEF_NEXT, AI_DEF_PREV, si[s], SI_DEF_HEAD, a)
            ai[a, AI_DEF_NEXT] = -1
            ai[a, AI_DEF_PREV] = -1
            if si[s, SI_DEF_HEAD] < 0 and ji[j, JI_IN_RED] == 1:
                _red_unlink(W, j)
        ti[task, TI_RETRY_NEXT] = -1
        rt = si[s, SI_RETRY_TAIL]
        if rt >= 0:
            ti[rt, TI_RETRY_NEXT] = task
        else:
            si[s, SI_RETRY_HEAD] = task
        si[s, SI_RETRY_TAIL] = task
        si[s, SI_PENDING] += 1
        if si[s, SI_HELD] == 0:
            _add_pending(W, j, r0, r1)
        _red_refresh(W, j)
        return
    si[s, SI_DONE] += 1
    size = ss[s, SS_HI] - ss[s, SS_LO]
    last = s + 1 == js[j, JS_ST_HI]
    if si[s, SI_DONE] == size:
        sdone[s] = t
        ji[j, JI_STAGES_DONE] += 1
        if not last:
            if si[s + 1, SI_RELEASED] == 0:
                _release_stage(W, j, s + 1)
            if ss[s + 1, SS_SLOW] == 1:
                w = si[s + 1, SI_DEF_HEAD]
                while w >= 0:
                    wt = ai[w, AI_TASK]
                    _push_end(W, w, _replay_finish(W, w, wt, t), wt, j)
                    nw = ai[w, AI_DEF_NEXT]
                    ai[w, AI_DEF_NEXT] = -1
                    ai[w, AI_DEF_PREV] = -1
                    w = nw
                si[s + 1, SI_DEF_HEAD] = -1
                si[s + 1, SI_DEF_TAIL] = -1
                if ji[j, JI_IN_RED] == 1:
                    _red_unlink(W, j)
        if ji[j, JI_STAGES_DONE] == js[j, JS_ST_HI] - js[j, JS_ST_LO]:
            _finish_job(W, j)
    elif not last:
        _maybe_slowstart(W, j, s)
    _red_refresh(W, j)


@njit(cache=True)
def _finish_job(W, j):
    js, jf, ji, urun, gf = W[6], W[8], W[9], W[11], W[23]
    jf[j, JF_FINISH] = gf[G_NOW]
    if ji[j, JI_AM_STATE] >= 2:
        _release_container(W, ji[j, JI_AM_ATT], SUCCEEDED)
    leaf = js[j, JS_QUEUE]
    _up(W, QF_PALL, leaf, -jf[j, JF_PEND], -jf[j, JF_PEND + 1])
    if ji[j, JI_STATE] == 2:
        _up(W, QF_PRUN, leaf, -jf[j, JF_PEND], -jf[j, JF_PEND + 1])
        urun[js[j, JS_USER]] -= 1
        _count_runnable(W, leaf, -1)
        _unlink_app(W, j)
        _free_slot(W, j)
        if ji[j, JI_MSTARV_POS] >= 0:
            _unlist_min_starvation(W, j)  # a finished app's amount is never read again
    ji[j, JI_STATE] = 3
    _touch(W, j)
    _promote_waiting(W)


# --------------------------------------------------------------------------- MapReduce AM
@njit(cache=True)
def _red_link(W, j):
    ji, gi = W[9], W[24]
    _append(ji, JI_RED_NEXT, JI_RED_PREV, gi, GI_RED_HEAD, j)
    ji[j, JI_IN_RED] = 1
    ji[j, JI_RED_SEQ] = gi[GI_RED_SEQ]
    gi[GI_RED_SEQ] += 1
    _red_refresh(W, j)


@njit(cache=True)
def _red_unlink(W, j):
    ji, gi = W[9], W[24]
    _remove(ji, JI_RED_NEXT, JI_RED_PREV, gi, GI_RED_HEAD, j)
    ji[j, JI_IN_RED] = 0
    _red_refresh(W, j)


@njit(cache=True)
def _waiting_reduce_stage(W, j):
    """The stage of job `j` whose reduces wait for maps (-1 if none follows a map stage)."""
    js, ji, si = W[6], W[9], W[14]
    if ji[j, JI_IN_RED] == 0:
        return -1
    s = js[j, JS_ST_LO]
    while s < js[j, JS_ST_HI] and si[s, SI_DEF_HEAD] < 0:
        s += 1
    if s == js[j, JS_ST_LO] or s == js[j, JS_ST_HI]:
        return -1
    return s


@njit(cache=True)
def _red_blocked(W, j):
    """Job `j` has reduces waiting for maps, unassigned maps and no running map."""
    ss, si = W[12], W[14]
    s = _waiting_reduce_stage(W, j)
    if s < 0:
        return False
    m = s - 1
    running_maps = (ss[m, SS_HI] - ss[m, SS_LO]) - si[m, SI_PENDING] - si[m, SI_DONE]
    return si[m, SI_PENDING] > 0 and running_maps == 0


@njit(cache=True)
def _red_refresh(W, j):
    """Keep job `j`'s membership of the blocked-jobs list (see `_preempt_reduces`) true."""
    ji, gi = W[9], W[24]
    blocked = _red_blocked(W, j)
    if blocked and ji[j, JI_IN_RC] == 0:
        _append(ji, JI_RC_NEXT, JI_RC_PREV, gi, GI_RC_HEAD, j)
        ji[j, JI_IN_RC] = 1
    elif not blocked and ji[j, JI_IN_RC] == 1:
        _remove(ji, JI_RC_NEXT, JI_RC_PREV, gi, GI_RC_HEAD, j)
        ji[j, JI_IN_RC] = 0


@njit(cache=True)
def _hold(W, j, s, hold):
    """Withdraw (or re-issue) the requests of a reduce stage's unassigned tasks."""
    ss, si, tsf, ti = W[12], W[14], W[17], W[18]
    si[s, SI_HELD] = 1 if hold else 0
    t0 = 0.0
    t1 = 0.0
    for task in range(si[s, SI_NEXT], ss[s, SS_HI]):
        t0 += tsf[task, TSF_REQ]
        t1 += tsf[task, TSF_REQ + 1]
    task = si[s, SI_RETRY_HEAD]
    while task >= 0:
        t0 += tsf[task, TSF_REQ]
        t1 += tsf[task, TSF_REQ + 1]
        task = ti[task, TI_RETRY_NEXT]
    if hold:
        _add_pending(W, j, -t0, -t1)
    else:
        _add_pending(W, j, t0, t1)


@njit(cache=True)
def _preempt_reduces(W):
    """MapReduce AM's preemptReducesIfNeeded: a job with unassigned maps, no running map
    and reduces waiting for maps kills its newest waiting reduces until its next map
    fits, and withholds its reduce requests until every map is assigned.

    Only blocked jobs (`_red_blocked`) can act; they are visited in the order they joined
    the list of jobs with waiting reduces, as a scan of that whole list would. Hadoop 1
    has no such AM: on its slot pools, where maps and reduces never take each other's
    room, its JobTracker never kills or holds back reduces for maps. (Hadoop 1 on one
    pool of memory, which no Hadoop 1 cluster is, keeps the rule: without it reduces
    waiting for maps could hold the whole pool forever.)"""
    js, ji, si, tsf, gi, jbuf = W[6], W[9], W[14], W[17], W[24], W[30]
    if W[25][C_VERSION] == 1.0 and W[25][C_SLOT] != 0.0:
        return False
    killed = False
    order = jbuf[:, 0]
    n = 0
    j = gi[GI_RC_HEAD]
    while j >= 0:
        # insertion by join order (the list is short: jobs blocked right now)
        k = n
        while k > 0 and ji[order[k - 1], JI_RED_SEQ] > ji[j, JI_RED_SEQ]:
            order[k] = order[k - 1]
            k -= 1
        order[k] = j
        n += 1
        j = ji[j, JI_RC_NEXT]
    for i in range(n):
        j = order[i]
        if _red_blocked(W, j):
            s = _waiting_reduce_stage(W, j)
            m = s - 1
            task = _head_task(W, m)
            leaf = js[j, JS_QUEUE]
            r0 = tsf[task, TSF_REQ]
            r1 = tsf[task, TSF_REQ + 1]
            if not _fits(W, leaf, r0, r1):
                if si[s, SI_HELD] == 0:
                    _hold(W, j, s, True)
                while si[s, SI_DEF_HEAD] >= 0 and not _fits(W, leaf, r0, r1):
                    _end_attempt(W, si[s, SI_DEF_TAIL], AM_KILLED)
                    killed = True
    return killed


# --------------------------------------------------------------------------- preemption
@njit(cache=True)
def _gate(W):
    """max(memory, vcores) utilization above the threshold."""
    gf, cfg, cluster = W[23], W[25], W[26]
    c0 = cluster[0] if cluster[0] > 0 else 1.0
    c1 = cluster[1] if cluster[1] > 0 else 1.0
    u0 = 1.0 - gf[G_FREE] / c0
    u1 = 1.0 - gf[G_FREE + 1] / c1 if cluster[1] > 0 else 0.0
    return max(u0, u1) > cfg[C_UTIL]


@njit(cache=True)
def _below(W, policy, u0, u1, s0, s1):
    cluster = W[26]
    return res_compare(policy, u0, u1, s0, s1, cluster[0], cluster[1]) < 0


@njit(cache=True)
def _order_next(W, leaf, t, stamp):
    """The leaf's next app in policy order among those with pending demand past their
    re-check time and not yet returned in this scan (`stamp`); -1 if none. Marks it.

    A preorder walk of the any-view tree that leaves it as it is: a subtree is entered
    only if its winner is to be passed over, and skipped once its winner ranks after the
    best app found (the winner is the best app below it)."""
    qs, qi, jf, ji, tree, tnode = W[0], W[4], W[8], W[9], W[31], W[34]
    view = _any_view(W)
    p = qi[leaf, QI_TREE_P]
    base = qi[leaf, QI_TREE_OFF] + view * 2 * p
    policy = qs[leaf, QS_POLICY]
    keyed = _keyed(W, policy)
    root = qi[leaf, QI_TREE_ROOT]
    best = -1
    best_row = -1
    passed = -1  # the app passed over last: below it, its path needs no second look
    node = root
    while True:
        w = tree[base + node]
        down = False
        if w == passed:
            # it still ranks before `best`: anything found since lies in its subtree
            down = node < p
        elif w >= 0 and (
            best < 0
            or (
                _key_before(tnode, base + node, best_row)
                if keyed
                else _cmp_apps(W, policy, 0, w, best, False) < 0
            )
        ):
            if ji[w, JI_TRIED] == stamp or t < jf[w, JF_NCHECK]:
                down = node < p
                passed = w
            else:
                best = w
                best_row = base + node
        node = _preorder_next(node, root, down)
        if node < 0:
            break
    if best >= 0:
        ji[best, JI_TRIED] = stamp
    return best


@njit(cache=True)
def _scanned(W, j, t):
    """Whether a Hadoop 3 check scans app `j`: runnable, with pending demand, past its
    re-check time, in a leaf with a starvation timeout."""
    qsf, js, jf, ji = W[1], W[6], W[8], W[9]
    leaf = js[j, JS_QUEUE]
    if ji[j, JI_STATE] != 2 or not (jf[j, JF_PEND] > 0.0 or jf[j, JF_PEND + 1] > 0.0):
        return False
    if qsf[leaf, QSF_FAIR_TO] == INF and qsf[leaf, QSF_MIN_TO] == INF:
        return False
    return t >= jf[j, JF_NCHECK]


@njit(cache=True)
def _next_recheck(W, t):
    """The earliest re-check time after `t` of an app a check would scan once it comes
    (INF if none); re-check times that have come leave the ring.

    Apps join the ring as their re-check time is set, `t` + the re-check delay, so the
    ring is in time order and each app is in it at most once."""
    jf, gi, jbuf = W[8], W[24], W[30]
    ring = jbuf[:, 1]
    cap = ring.shape[0]
    while gi[GI_RECHECK_N] > 0 and jf[ring[gi[GI_RECHECK_HEAD]], JF_NCHECK] <= t:
        gi[GI_RECHECK_HEAD] = (gi[GI_RECHECK_HEAD] + 1) % cap
        gi[GI_RECHECK_N] -= 1
    for k in range(gi[GI_RECHECK_N]):
        j = ring[(gi[GI_RECHECK_HEAD] + k) % cap]
        if _scanned(W, j, INF):
            return jf[j, JF_NCHECK]
    return INF


@njit(cache=True)
def _set_recheck(W, j, time):
    """App `j` is not checked again for starvation before `time` (> every earlier one)."""
    jf, gi, jbuf = W[8], W[24], W[30]
    jf[j, JF_NCHECK] = time
    ring = jbuf[:, 1]
    ring[(gi[GI_RECHECK_HEAD] + gi[GI_RECHECK_N]) % ring.shape[0]] = j
    gi[GI_RECHECK_N] += 1


@njit(cache=True)
def _set_min_starvation(W, j, a0, a1):
    """Set app `j`'s min-share starvation, keeping the list of apps where it is nonzero."""
    jf, ji, gi, jbuf = W[8], W[9], W[24], W[30]
    jf[j, JF_MSTARV] = a0
    jf[j, JF_MSTARV + 1] = a1
    listed = jbuf[:, 3]
    pos = ji[j, JI_MSTARV_POS]
    if a0 != 0.0 or a1 != 0.0:
        if pos < 0:
            ji[j, JI_MSTARV_POS] = gi[GI_MSTARV_N]
            listed[gi[GI_MSTARV_N]] = j
            gi[GI_MSTARV_N] += 1
    elif pos >= 0:
        _unlist_min_starvation(W, j)


@njit(cache=True)
def _unlist_min_starvation(W, j):
    ji, gi, jbuf = W[9], W[24], W[30]
    listed = jbuf[:, 3]
    pos = ji[j, JI_MSTARV_POS]
    gi[GI_MSTARV_N] -= 1
    last = listed[gi[GI_MSTARV_N]]
    listed[pos] = last
    ji[last, JI_MSTARV_POS] = pos
    ji[j, JI_MSTARV_POS] = -1


@njit(cache=True)
def _clear_min_starvation(W, leaf, t, stamp):
    """Zero the min-share starvation of the leaf's scanned apps not visited (`stamp`):
    Hadoop resets it for every app with demand that the hand-out did not reach."""
    js, ji, gi, jbuf = W[6], W[9], W[24], W[30]
    listed = jbuf[:, 3]
    i = 0
    while i < gi[GI_MSTARV_N]:
        j = listed[i]
        if js[j, JS_QUEUE] == leaf and ji[j, JI_TRIED] != stamp and _scanned(W, j, t):
            _set_min_starvation(W, j, 0.0, 0.0)  # moves the last listed app to i
        else:
            i += 1


@njit(cache=True)
def _preempt_v3(W):
    """FSLeafQueue.updateStarvedApps + FSPreemptionThread, at an update() time.

    The apps a leaf scans (`_scanned`) are read in policy order from the leaf's tree, only
    as far as the scans go; the re-check times ahead come from a ring in time order and
    the min-share amounts to reset from the list of nonzero ones, so a check does not
    visit every app."""
    qs, qsf, qf, jf, ji, gf, gi, cfg, cluster, jbuf = (
        W[0],
        W[1],
        W[3],
        W[8],
        W[9],
        W[23],
        W[24],
        W[25],
        W[26],
        W[30],
    )
    gf[G_NEXT_CHECK] = INF
    if not _gate(W):
        return
    t = gf[G_NOW]
    nxt_check = _next_recheck(W, t)
    gi[GI_EPOCH] += 1
    starved_stamp = gi[GI_EPOCH]
    n_starved = 0
    ordered = jbuf[:, 2]
    for leaf in range(qs.shape[0]):
        if qs[leaf, QS_LEAF] == 0:
            continue
        timeout = qsf[leaf, QSF_FAIR_TO]
        min_timeout = qsf[leaf, QSF_MIN_TO]
        if timeout == INF and min_timeout == INF:
            continue
        _app_shares(W, leaf)
        policy = qs[leaf, QS_POLICY]
        gi[GI_EPOCH] += 1
        stamp = gi[GI_EPOCH]
        k_ord = 0  # apps read in order so far (in `ordered`)
        more = True  # whether the tree may hold more
        _retree(W)
        threshold = qsf[leaf, QSF_THRESH]
        f0 = 0.0
        f1 = 0.0
        i = 0
        while True:
            if i >= k_ord:
                if more:
                    ordered[k_ord] = _order_next(W, leaf, t, stamp)
                    more = ordered[k_ord] >= 0
                if not more:
                    break
                k_ord += 1
            j = ordered[i]
            fd0 = min(math.floor(_app_fair(W, j, 0) * threshold), jf[j, JF_USE] + jf[j, JF_PEND])
            fd1 = min(
                math.floor(_app_fair(W, j, 1) * threshold), jf[j, JF_USE + 1] + jf[j, JF_PEND + 1]
            )
            is_starved = _below(W, policy, jf[j, JF_USE], jf[j, JF_USE + 1], fd0, fd1)
            if not is_starved:
                jf[j, JF_LFAIR] = -INF
            elif jf[j, JF_LFAIR] == -INF:
                jf[j, JF_LFAIR] = t
            if not is_starved or t - jf[j, JF_LFAIR] < timeout:
                jf[j, JF_FSTARV] = 0.0
                jf[j, JF_FSTARV + 1] = 0.0
                if is_starved:
                    e = jf[j, JF_LFAIR] + timeout
                    if e > t and e < nxt_check:
                        nxt_check = e
                break
            jf[j, JF_FSTARV] = max(fd0 - jf[j, JF_USE], 0.0)
            jf[j, JF_FSTARV + 1] = max(fd1 - jf[j, JF_USE + 1], 0.0)
            if ji[j, JI_STARVED] != starved_stamp:
                ji[j, JI_STARVED] = starved_stamp
                jbuf[n_starved, 0] = j
                n_starved += 1
            f0 += jf[j, JF_FSTARV]
            f1 += jf[j, JF_FSTARV + 1]
            i += 1
        d0, d1 = _demand(W, leaf)
        st0 = max(min(qsf[leaf, QSF_MIN], d0) - qf[leaf, QF_USE], 0.0)
        st1 = max(min(qsf[leaf, QSF_MIN + 1], d1) - qf[leaf, QF_USE + 1], 0.0)
        p0 = 0.0
        p1 = 0.0
        if st0 == 0.0 and st1 == 0.0:
            qf[leaf, QF_LMIN] = -INF
        else:
            if qf[leaf, QF_LMIN] == -INF:
                qf[leaf, QF_LMIN] = t
            if t - qf[leaf, QF_LMIN] >= min_timeout:
                p0 = max(st0 - f0, 0.0)
                p1 = max(st1 - f1, 0.0)
            else:
                e = qf[leaf, QF_LMIN] + min_timeout
                if e > t and e < nxt_check:
                    nxt_check = e
        i = 0
        while p0 != 0.0 or p1 != 0.0:
            if i >= k_ord:
                if more:
                    ordered[k_ord] = _order_next(W, leaf, t, stamp)
                    more = ordered[k_ord] >= 0
                if not more:
                    break
                k_ord += 1
            j = ordered[i]
            a0 = max(jf[j, JF_PEND] - jf[j, JF_FSTARV], 0.0)
            a1 = max(jf[j, JF_PEND + 1] - jf[j, JF_FSTARV + 1], 0.0)
            if res_compare(policy, a0, a1, p0, p1, cluster[0], cluster[1]) > 0:
                a0 = max(a0 - p0, 0.0)
                a1 = max(a1 - p1, 0.0)
                p0 = 0.0
                p1 = 0.0
            else:
                p0 = max(p0 - a0, 0.0)
                p1 = max(p1 - a1, 0.0)
            _set_min_starvation(W, j, a0, a1)
            if ji[j, JI_STARVED] != starved_stamp:
                ji[j, JI_STARVED] = starved_stamp
                jbuf[n_starved, 0] = j
                n_starved += 1
            i += 1
        # every other scanned app gets none: those read in order, then those never read
        for r in range(i, k_ord):
            _set_min_starvation(W, ordered[r], 0.0, 0.0)
        _clear_min_starvation(W, leaf, t, stamp)
    # marking victims only lowers the bound, so one computed now stays an upper bound
    bound0 = _victim_candidates(W) if n_starved > 0 else 0.0
    for i in range(n_starved):
        j = jbuf[i, 0]
        _preempt_for(W, j, bound0)
        _set_recheck(W, j, t + cfg[C_RECHECK])
        if jf[j, JF_NCHECK] > t and jf[j, JF_NCHECK] < nxt_check:
            nxt_check = jf[j, JF_NCHECK]
    # checks fall on the update grid: the first one a timer expires by, and the next one
    # after a check that found starved apps (those are skipped then, so others may starve)
    if nxt_check < INF:
        nxt_check = _grid_at_or_after(nxt_check, cfg[C_UPDATE])
    if n_starved > 0:
        nxt_check = min(nxt_check, _grid_after(t, cfg[C_UPDATE]))
    gf[G_NEXT_CHECK] = nxt_check


@njit(cache=True)
def _requests(W, j, out_cap, out_n):
    """The app's outstanding requests in priority order; returns how many."""
    js, jsf, ji, ss, si, tsf = W[6], W[7], W[9], W[12], W[14], W[17]
    if ji[j, JI_AM_STATE] == 1:
        out_cap[0, 0] = jsf[j, JSF_AM]
        out_cap[0, 1] = jsf[j, JSF_AM + 1]
        out_n[0] = 1
        return 1
    n = 0
    lo = js[j, JS_ST_LO]
    hi = js[j, JS_ST_HI]
    used = np.zeros(hi - lo, dtype=np.bool_)
    while True:
        best = -1
        for s in range(lo, hi):
            if (
                used[s - lo]
                or si[s, SI_RELEASED] == 0
                or si[s, SI_HELD] == 1
                or si[s, SI_PENDING] <= 0
            ):
                continue
            if best < 0 or ss[s, SS_PRIO] < ss[best, SS_PRIO]:
                best = s
        if best < 0:
            return n
        used[best - lo] = True
        task = _head_task(W, best)
        out_cap[n, 0] = tsf[task, TSF_REQ]
        out_cap[n, 1] = tsf[task, TSF_REQ + 1]
        out_n[n] = si[best, SI_PENDING]
        n += 1


@njit(cache=True)
def _preempt_for(W, j, bound0):
    """identifyContainersToPreempt for one starved app; victims are killed after the wait."""
    qs, js, jf, ts, tsf, af, ai, hk, hi, gf, gi, cfg, vict = (
        W[0],
        W[6],
        W[8],
        W[16],
        W[17],
        W[19],
        W[20],
        W[21],
        W[22],
        W[23],
        W[24],
        W[25],
        W[29],
    )
    leaf = js[j, JS_QUEUE]
    policy = qs[leaf, QS_POLICY]
    p0 = jf[j, JF_FSTARV] + jf[j, JF_MSTARV]
    p1 = jf[j, JF_FSTARV + 1] + jf[j, JF_MSTARV + 1]
    nst = js[j, JS_ST_HI] - js[j, JS_ST_LO] + 1
    caps = np.empty((nst, 2))
    counts = np.empty(nst, dtype=np.int64)
    nreq = _requests(W, j, caps, counts)
    gi[GI_EPOCH] += 1
    # ai is int32: stamps wrap, harmlessly, as every chosen container is marked by the end
    chosen = (gi[GI_EPOCH] & 0x3FFFFFFF) + 1
    nv = 0
    for r in range(nreq):
        if p0 == 0.0 and p1 == 0.0:
            break
        c0 = caps[r, 0]
        c1 = caps[r, 1]
        if policy == 2:
            ratio = max(jdiv(p0, c0), jdiv(p1, c1))
        else:
            ratio = jdiv(p0, c0)
        if ratio == ratio and abs(ratio) != INF:
            fit = java_int(math.floor(ratio))
        else:
            fit = java_int(ratio)
        if fit == 0:
            break
        n = min(fit, counts[r])
        p0 = p0 - c0 * n
        p1 = p1 - c1 * n
        if c0 > bound0:
            # even every candidate together with free resources cannot fit it
            continue
        resume = -1
        for _ in range(n):
            before = nv
            nv, resume = _victims_for(W, c0, c1, chosen, nv, resume)
            if nv == before:
                # nothing changed, so every further scan for this request fails too
                break
    for i in range(nv):
        a = vict[i]
        task = ai[a, AI_TASK]
        vj = ts[task, TS_JOB]
        r0 = tsf[task, TSF_REQ]
        r1 = tsf[task, TSF_REQ + 1]
        jf[vj, JF_TBP] += r0
        jf[vj, JF_TBP + 1] += r1
        _held_changed(W, vj)
        _up(W, QF_TBP, js[vj, JS_QUEUE], r0, r1)
        af[a, AF_MARK] = gf[G_NOW] + cfg[C_WAIT_KILL]
        _free_remove(W, a, vj)
        heap_push(hk, hi, gi, af[a, AF_MARK], KILL, a, task, vj)


@njit(cache=True)
def _victim_candidates(W):
    """List the check's victim candidates in `cand`, newest first; return an upper bound on
    the memory a victim scan can reach (free memory plus the candidates').

    Candidates are the unmarked task containers of preemptable leaves that their app could
    give up alone and stay at its fair share. `_take` refuses every other container for
    the rest of the check: usage and shares are fixed, and what is marked or taken only
    grows, provided "below the fair share" is monotone: always for the memory comparator,
    and for drf while both cluster dimensions are positive (no NaN shares; otherwise every
    container of a drf leaf is listed). Only apps holding a container are visited (`hold`),
    and under the memory comparator only those whose usage less their smallest request is
    not below their share: `_keeps_share` computes (usage - request) < share, and rounding
    keeps that monotone in the request."""
    qs, qf, ji, tsf, ai, gf, gi, cluster, cand, hold, holdv = (
        W[0],
        W[3],
        W[9],
        W[17],
        W[20],
        W[23],
        W[24],
        W[26],
        W[35],
        W[37],
        W[38],
    )
    for leaf in range(qs.shape[0]):
        if qs[leaf, QS_LEAF] == 1 and qs[leaf, QS_PREEMPTABLE] == 1:
            _app_shares(W, leaf)  # for `_take` too: nothing changes them until the check ends
    monotone = cluster[0] > 0.0 and cluster[1] > 0.0
    bound = max(gf[G_FREE], 0.0)
    n = 0
    for pos in range(gi[GI_HOLD_N]):
        leaf = hold[pos, 1]
        if qs[leaf, QS_PREEMPTABLE] == 0:
            continue
        policy = qs[leaf, QS_POLICY]
        spare = holdv[pos, 0] - holdv[pos, 1]  # as `_keeps_share` computes it
        if policy != 2 and spare < qf[leaf, QF_APP_FAIR_MIN]:
            continue
        j = hold[pos, 0]
        if policy != 2 and spare < _app_fair(W, j, 0):
            continue
        a = ji[j, JI_CONT_HEAD]
        while a >= 0:
            task = ai[a, AI_TASK]
            r0 = tsf[task, TSF_REQ]
            if (policy == 2 and not monotone) or _keeps_share(
                W, j, r0, tsf[task, TSF_REQ + 1], 0.0, 0.0
            ):
                cand[n] = a
                n += 1
                bound += r0
            a = ai[a, AI_APP_NEXT]
    # attempts are numbered as they start, so the newest first is the highest number first
    cand[:n].sort()
    for i in range(n // 2):
        cand[i], cand[n - 1 - i] = cand[n - 1 - i], cand[i]
    gi[GI_CAND_N] = n
    return _loose(bound)  # widened: the scans add the same sizes in another order


@njit(cache=True)
def _victims_for(W, c0, c1, chosen, nv, resume):
    """One container's victims, newest first; appended to vict if the request fits.

    Running task containers not marked for preemption are visited newest first (AM and
    marked containers never count); those already chosen for this app are skipped.
    After each one visited, the scan stops if free + taken resources fit the request.
    Unless free resources fit from the start, a container changes the outcome only if it
    is taken, so the scan walks just the check's candidates (see `_victim_candidates`).

    Returns the new victim count and where the next scan for the same request may start:
    the candidate index of the first container this scan took (-1: the newest). Every
    unchosen container newer than it was visited before anything was taken and could
    not be taken then, which stays true while nothing is marked, so a rescan from the
    newest would pass it by.
    """
    qs, js, af, ai, gf, gi, vict, cand = W[0], W[6], W[19], W[20], W[23], W[24], W[29], W[35]
    pot0 = max(gf[G_FREE], 0.0)
    pot1 = max(gf[G_FREE + 1], 0.0)
    gi[GI_EPOCH] += 1
    cons = gi[GI_EPOCH]
    n0 = nv
    if c0 <= pot0 and c1 <= pot1:
        # Free resources alone fit, yet Hadoop looks at one container before it tests
        # that: the newest one not chosen (AM and marked ones aside), whoever runs it.
        a = _newest_unmarked(W, chosen)
        if a >= 0 and qs[js[W[16][ai[a, AI_TASK], TS_JOB], JS_QUEUE], QS_PREEMPTABLE] == 1:
            if _take(W, a, cons):
                vict[nv] = a
                ai[a, AI_CHOSEN] = chosen
                nv += 1
        return nv, resume
    first = -1
    for i in range(max(resume, 0), gi[GI_CAND_N]):
        a = cand[i]
        if ai[a, AI_CHOSEN] != chosen and af[a, AF_MARK] < 0.0:
            if _take(W, a, cons):
                if first < 0:
                    first = i
                vict[nv] = a
                nv += 1
                r0, r1 = _request_of(W, a)
                pot0 += r0
                pot1 += r1
            if c0 <= pot0 and c1 <= pot1:
                for k in range(n0, nv):
                    ai[vict[k], AI_CHOSEN] = chosen
                return nv, first
    return n0, resume


@njit(cache=True)
def _newest_unmarked(W, chosen):
    """The newest running task container not marked for preemption and not `chosen`
    (-1: none): the highest set bit of `unmarked` whose attempt is not chosen, as
    attempts are numbered in the order they start."""
    ai, gi, unmarked = W[20], W[24], W[39]
    word = (gi[GI_N_ATT] - 1) >> 6
    while word >= 0:
        bits = unmarked[word]
        b = 63
        while bits != 0:
            while (bits >> np.uint64(b)) & np.uint64(1) == 0:
                b -= 1
            a = word * 64 + b
            if ai[a, AI_CHOSEN] != chosen:
                return a
            bits &= ~(np.uint64(1) << np.uint64(b))
        word -= 1
    return -1


@njit(cache=True)
def _request_of(W, a):
    """The resources attempt `a` holds."""
    jsf, tsf, ai = W[7], W[17], W[20]
    task = ai[a, AI_TASK]
    if task < 0:
        return jsf[-1 - task, JSF_AM], jsf[-1 - task, JSF_AM + 1]
    return tsf[task, TSF_REQ], tsf[task, TSF_REQ + 1]


@njit(cache=True)
def _take(W, a, cons):
    """Whether candidate container `a` (see `_victim_candidates`, which also brought the app
    fair shares up to date) can be a victim in the current scan: its app keeps at least
    its fair share without it (and without what the scan `cons` already took from it);
    counts it taken."""
    jf, ji, ts, ai = W[8], W[9], W[16], W[20]
    vj = ts[ai[a, AI_TASK], TS_JOB]
    r0, r1 = _request_of(W, a)
    if ji[vj, JI_CONS_EPOCH] != cons:
        ji[vj, JI_CONS_EPOCH] = cons
        jf[vj, JF_CONS] = 0.0
        jf[vj, JF_CONS + 1] = 0.0
    if not _keeps_share(W, vj, r0, r1, jf[vj, JF_CONS], jf[vj, JF_CONS + 1]):
        return False
    jf[vj, JF_CONS] += r0
    jf[vj, JF_CONS + 1] += r1
    return True


@njit(cache=True)
def _keeps_share(W, j, r0, r1, c0, c1):
    """Whether app `j` stays at or above its fair share after losing a container of
    (r0, r1) besides (c0, c1) already taken and what is marked for preemption."""
    qs, js, jf = W[0], W[6], W[8]
    after0 = jf[j, JF_USE] - jf[j, JF_TBP] - r0 - c0
    after1 = jf[j, JF_USE + 1] - jf[j, JF_TBP + 1] - r1 - c1
    policy = qs[js[j, JS_QUEUE], QS_POLICY]
    return not _below(W, policy, after0, after1, _app_fair(W, j, 0), _app_fair(W, j, 1))


@njit(cache=True)
def _expired(waited, timeout):
    """Whether a Hadoop 1/2 starvation timer acts: once strictly past the timeout
    (Hadoop 1 tasksToPreempt, Hadoop 2 resToPreempt: curTime - lastTime > timeout)."""
    return waited > timeout


@njit(cache=True)
def _grid_at_or_after(x, interval):
    k = math.floor(x / interval)
    g = k * interval
    return g if g >= x else (k + 1) * interval


@njit(cache=True)
def _grid_after(x, interval):
    k = math.floor(x / interval)
    g = k * interval
    return g if g > x else (k + 1) * interval


@njit(cache=True)
def _rmin(W, policy, a0, a1, b0, b1):
    cluster = W[26]
    if res_compare(policy, a0, a1, b0, b1, cluster[0], cluster[1]) <= 0:
        return a0, a1
    return b0, b1


@njit(cache=True)
def _rmax(W, policy, a0, a1, b0, b1):
    cluster = W[26]
    if res_compare(policy, a0, a1, b0, b1, cluster[0], cluster[1]) >= 0:
        return a0, a1
    return b0, b1


@njit(cache=True)
def _preempt_v12(W):
    """Hadoop 1/2 starvation timers at every event; preemption on interval multiples."""
    qs, qsf, qf, gf, cfg = W[0], W[1], W[3], W[23], W[25]
    t = gf[G_NOW]
    interval = cfg[C_INTERVAL]
    v1 = cfg[C_VERSION] == 1.0
    ndims = 2 if (v1 and cfg[C_SLOT] != 0.0) else 1
    nq = qs.shape[0]
    nxt = INF
    fut = INF
    for leaf in range(nq):
        if qs[leaf, QS_LEAF] == 0:
            continue
        for d in range(ndims):
            policy = 0 if v1 else qs[leaf, QS_POLICY]
            u0 = qf[leaf, QF_USE]
            u1 = qf[leaf, QF_USE + 1]
            if v1:
                dd = qf[leaf, QF_USE + d] + qf[leaf, QF_PALL + d]
                min_starved = qf[leaf, QF_USE + d] < min(qsf[leaf, QSF_MIN + d], dd)
                fair_starved = qf[leaf, QF_USE + d] < math.floor(
                    min(qf[leaf, QF_FAIR + d] / 2.0, dd)
                )
            else:
                d0, d1 = _demand(W, leaf)
                m0, m1 = _rmin(W, policy, qsf[leaf, QSF_MIN], qsf[leaf, QSF_MIN + 1], d0, d1)
                min_starved = _below(W, policy, u0, u1, m0, m1)
                s0 = math.floor(qf[leaf, QF_FAIR] * qsf[leaf, QSF_THRESH])
                s1 = math.floor(qf[leaf, QF_FAIR + 1] * qsf[leaf, QSF_THRESH])
                f0, f1 = _rmin(W, policy, s0, s1, d0, d1)
                fair_starved = _below(W, policy, u0, u1, f0, f1)
            if not min_starved:
                qf[leaf, QF_LMIN + d] = -INF
            elif qf[leaf, QF_LMIN + d] == -INF:
                qf[leaf, QF_LMIN + d] = t
            if not fair_starved:
                qf[leaf, QF_LFAIR + d] = -INF
            elif qf[leaf, QF_LFAIR + d] == -INF:
                qf[leaf, QF_LFAIR + d] = t
            for which in range(2):
                if which == 0:
                    last = qf[leaf, QF_LMIN + d]
                    timeout = qsf[leaf, QSF_MIN_TO]
                    starving = min_starved
                else:
                    last = qf[leaf, QF_LFAIR + d]
                    timeout = qsf[leaf, QSF_FAIR_TO]
                    starving = fair_starved
                if starving and timeout != INF:
                    e = last + timeout
                    # the timer acts once strictly past the timeout
                    g = _grid_after(max(e, t), interval)
                    ahead = e >= t
                    if g < nxt:
                        nxt = g
                    if ahead and g < fut:
                        fut = g
    # a check time: the scheduled one, or any grid time after it (checks skipped while idle)
    check = gf[G_NEXT_V12] <= t and _grid_at_or_after(t, interval) == t
    if check and W[24][GI_NEXT_SUBMIT] == W[6].shape[0] and _repeats(W, _v12_state(W)):
        # the state repeats an earlier check's: from here on the run only cycles
        W[24][GI_LIVELOCK] = 1
        return
    acted = False
    if check and (v1 or _gate(W)):
        if v1:
            for d in range(ndims):
                if _preempt_v1(W, d):
                    acted = True
        else:
            acted = _preempt_v2(W)
    wake = nxt
    if check and not acted:
        # idle: until another event, a check only acts once a timer expires or a warned
        # container passes waitTimeBeforeKill, so only those times are woken for
        wake = fut
        ai, af, gi, warned = W[20], W[19], W[24], W[28]
        for i in range(gi[GI_WARNED_N]):
            a = warned[i]
            k = _grid_after(af[a, AF_MARK] + cfg[C_WAIT_KILL], interval)
            if ai[a, AI_STATE] == RUNNING and k > t and nxt < INF and k < wake:
                wake = k
    gf[G_NEXT_V12] = nxt
    gf[G_NEXT_CHECK] = wake


@njit(cache=True)
def _hash(v):
    """64-bit hash of a float64 vector's bits."""
    bits = v.view(np.uint64)
    h = np.uint64(14695981039346656037)
    for i in range(bits.shape[0]):
        h = (h ^ bits[i]) * np.uint64(1099511628211)
        h = h ^ (h >> np.uint64(29))
    return h


@njit(cache=True)
def _repeats(W, state):
    """Whether the state at this check equals, shifted in time, the state at an earlier
    check with no progress since (no end or AM-ready event, see GI_PROGRESS):
    then the run only cycles and nothing ever finishes again. Brent's cycle finding on
    state hashes: compare with one saved state, saved again after 1, 2, 4, ... checks."""
    gi = W[24]
    hu = gi.view(np.uint64)
    s_hash = _hash(state)
    if gi[GI_SEEN_SET] == 0 or gi[GI_SEEN_PROG] != gi[GI_PROGRESS]:
        gi[GI_SEEN_SET] = 1
        gi[GI_SEEN_PROG] = gi[GI_PROGRESS]
        hu[GI_SEEN_STATE] = s_hash
        gi[GI_SEEN_POWER] = 1
        gi[GI_SEEN_STEPS] = 0
        return False
    gi[GI_SEEN_STEPS] += 1
    if hu[GI_SEEN_STATE] == s_hash:
        return True
    if gi[GI_SEEN_STEPS] == gi[GI_SEEN_POWER]:
        hu[GI_SEEN_STATE] = s_hash
        gi[GI_SEEN_POWER] *= 2
        gi[GI_SEEN_STEPS] = 0
    return False


@njit(cache=True)
def _v12_state(W):
    """Everything a Hadoop 1/2 run's future depends on, times relative to now, flattened."""
    qs, qsf, qf, ji, ss, si, sdone = W[0], W[1], W[3], W[9], W[12], W[14], W[15]
    ts, tsf, ti, af, ai, gf, gi, cfg, warned = (
        W[16],
        W[17],
        W[18],
        W[19],
        W[20],
        W[23],
        W[24],
        W[25],
        W[28],
    )
    t = gf[G_NOW]
    ns = si.shape[0]
    nq = qs.shape[0]
    v1 = cfg[C_VERSION] == 1.0
    ndims = 2 if (v1 and cfg[C_SLOT] != 0.0) else 1
    n_run = 0
    a = gi[GI_RUN_HEAD]
    while a >= 0:
        n_run += 1
        a = ai[a, AI_RUN_NEXT]
    nodef = W[40]
    nn = nodef.shape[0] if cfg[C_HB] != 0.0 else 0
    out = np.empty(
        8
        + 7 * n_run
        + gi[GI_WARNED_N]
        + 5 * ns
        + ti.shape[0]
        + ji.shape[0]
        + 4 * ndims * nq
        + 3 * nn
    )

    n = 0
    a = gi[GI_RUN_HEAD]
    while a >= 0:
        task = ai[a, AI_TASK]
        extra = -1.0
        if task >= 0 and ai[a, AI_OUTCOME] == SUCCEEDED:
            s = ts[task, TS_STAGE]
            if ss[s, SS_SLOW] == 1:
                done = sdone[s - 1]
                begin = af[a, AF_START] + cfg[C_LAT] + tsf[task, TSF_A]
                extra = -2.0 if np.isnan(done) else max(0.0, done + tsf[task, TSF_B] - begin)
        out[n] = task
        # without an end event (AMs, reduces waiting for maps) only the order matters
        out[n + 1] = af[a, AF_START] - t + 0.0 if task >= 0 and extra != -2.0 else 0.0
        out[n + 2] = ai[a, AI_OUTCOME]
        out[n + 3] = extra + 0.0
        out[n + 4] = af[a, AF_MARK] - t + 0.0 if af[a, AF_MARK] >= 0.0 else 1.0
        out[n + 5] = ai[a, AI_NODE]
        out[n + 6] = af[a, AF_DUE] - t + 0.0 if af[a, AF_DUE] < INF else 1.0
        n += 7
        a = ai[a, AI_RUN_NEXT]
    out[n] = -3.0
    n += 1
    for i in range(gi[GI_WARNED_N]):
        out[n] = ai[warned[i], AI_TASK]
        n += 1
    out[n] = -3.0
    n += 1
    for s in range(ns):
        out[n] = si[s, SI_NEXT]
        out[n + 1] = si[s, SI_PENDING]
        out[n + 2] = si[s, SI_HELD]
        out[n + 3] = si[s, SI_RELEASED]
        n += 4
    for s in range(ns):
        task = si[s, SI_RETRY_HEAD]
        while task >= 0:
            out[n] = task
            n += 1
            task = ti[task, TI_RETRY_NEXT]
        out[n] = -3.0
        n += 1
    j = gi[GI_RED_HEAD]
    while j >= 0:
        out[n] = j
        n += 1
        j = ji[j, JI_RED_NEXT]
    out[n] = -3.0
    n += 1
    for leaf in range(nq):
        if qs[leaf, QS_LEAF] == 0:
            continue
        for d in range(ndims):
            for which in range(2):
                last = qf[leaf, (QF_LMIN if which == 0 else QF_LFAIR) + d]
                timeout = qsf[leaf, QSF_MIN_TO if which == 0 else QSF_FAIR_TO]
                if last == -INF or timeout == INF:
                    out[n] = INF if last == -INF else 1.0  # not starved / never acts
                else:
                    out[n] = -INF if _expired(t - last, timeout) else last - t + 0.0
                n += 1
    out[n] = gf[G_NEXT_V12] - t + 0.0
    n += 1
    for i in range(nn):
        out[n] = nodef[i, NF_FREE] + 0.0
        out[n + 1] = nodef[i, NF_FREE + 1] + 0.0
        out[n + 2] = nodef[i, NF_HB] - t + 0.0 if nodef[i, NF_HB] < INF else 1.0
        n += 3
    return out[:n]


@njit(cache=True)
def _cycling_v3(W):
    """Hadoop 3 livelock: at an update() check once every job is submitted, whether the
    state repeats an earlier check's with nothing finished since (see `_repeats`).
    The search (and building states) starts only after QUIET_CHECKS checks with no
    progress: in a busy run something ends every few checks, and a cycle found later
    is still exact."""
    gi = W[24]
    if gi[GI_NEXT_SUBMIT] < W[6].shape[0]:
        return False
    if gi[GI_SEEN_PROG] != gi[GI_PROGRESS]:
        gi[GI_SEEN_PROG] = gi[GI_PROGRESS]
        gi[GI_SEEN_SET] = 0
        gi[GI_QUIET] = 0
        return False
    gi[GI_QUIET] += 1
    return gi[GI_QUIET] >= QUIET_CHECKS and _repeats(W, _v3_state(W))


@njit(cache=True)
def _v3_state(W):
    """Everything a Hadoop 3 run's future depends on at an update() check, times relative
    to now, flattened: the Hadoop 1/2 state (running attempts, stages, min-share timers),
    each runnable app's fair-share timer, re-check time and last starvation amounts, and
    the pending events in (time, seq) order, since even one for an attempt that has ended
    makes an iteration that schedules a check."""
    qs, qsf, qi, jf, ji, af, ai, hk, hi, gf, gi = (
        W[0],
        W[1],
        W[4],
        W[8],
        W[9],
        W[19],
        W[20],
        W[21],
        W[22],
        W[23],
        W[24],
    )
    t = gf[G_NOW]
    base = _v12_state(W)
    nh = gi[GI_HEAP_N]
    out = np.empty(base.shape[0] + 7 * ji.shape[0] + 3 * nh + 2)
    out[: base.shape[0]] = base
    n = base.shape[0]
    for leaf in range(qs.shape[0]):
        if qs[leaf, QS_LEAF] == 0:
            continue
        timeout = qsf[leaf, QSF_FAIR_TO]
        j = qi[leaf, QI_APP_HEAD]
        while j >= 0:
            last = jf[j, JF_LFAIR]
            nxt = jf[j, JF_NCHECK]
            out[n] = j
            if last == -INF or timeout == INF:
                out[n + 1] = INF if last == -INF else 1.0  # not starved / never acts
            else:
                out[n + 1] = -INF if t - last >= timeout else last - t + 0.0
            out[n + 2] = -INF if nxt <= t else nxt - t + 0.0
            out[n + 3] = jf[j, JF_FSTARV] + 0.0
            out[n + 4] = jf[j, JF_FSTARV + 1] + 0.0
            out[n + 5] = jf[j, JF_MSTARV] + 0.0
            out[n + 6] = jf[j, JF_MSTARV + 1] + 0.0
            n += 7
            j = ji[j, JI_APP_NEXT]
    out[n] = -3.0
    n += 1
    order = np.argsort(hi[:nh, HI_SEQ])
    order = order[np.argsort(hk[:nh][order], kind="mergesort")]
    for i in range(nh):
        e = order[i]
        kind = hi[e, HI_KIND]
        ident = hi[e, HI_IDENT]
        what = -1  # an event that does nothing when it comes (its attempt has ended)
        if kind == AM_READY:
            if ji[ident, JI_AM_STATE] == 2:
                what = ident
        elif kind == HEARTBEAT:
            what = ident
        elif ai[ident, AI_STATE] == RUNNING and (
            kind == END or af[ident, AF_MARK] == float_from_ordered(hk[e])
        ):
            what = ai[ident, AI_TASK]
        out[n] = float_from_ordered(hk[e]) - t + 0.0
        out[n + 1] = kind
        out[n + 2] = what
        n += 3
    out[n] = -3.0
    n += 1
    return out[:n]


@njit(cache=True)
def _preempt_v2(W):
    """Hadoop 2.8 preemptTasksIfNecessary: warn, then kill warned ones past the wait.

    Returns whether anything was warned or killed.
    """
    qs, qsf, qf, js, jf, ts, tsf, af, ai, gf, gi, cfg, warned = (
        W[0],
        W[1],
        W[3],
        W[6],
        W[8],
        W[16],
        W[17],
        W[19],
        W[20],
        W[23],
        W[24],
        W[25],
        W[28],
    )
    t = gf[G_NOW]
    tp0 = 0.0
    tp1 = 0.0
    for leaf in range(qs.shape[0]):
        if qs[leaf, QS_LEAF] == 0:
            continue
        policy = qs[leaf, QS_POLICY]
        d0, d1 = _demand(W, leaf)
        u0 = qf[leaf, QF_USE]
        u1 = qf[leaf, QF_USE + 1]
        rm0 = 0.0
        rm1 = 0.0
        rf0 = 0.0
        rf1 = 0.0
        if qf[leaf, QF_LMIN] > -INF and _expired(t - qf[leaf, QF_LMIN], qsf[leaf, QSF_MIN_TO]):
            rm0, rm1 = _rmax(
                W,
                policy,
                0.0,
                0.0,
                min(qsf[leaf, QSF_MIN], d0) - u0,
                min(qsf[leaf, QSF_MIN + 1], d1) - u1,
            )
        if qf[leaf, QF_LFAIR] > -INF and _expired(t - qf[leaf, QF_LFAIR], qsf[leaf, QSF_FAIR_TO]):
            rf0, rf1 = _rmax(
                W,
                policy,
                0.0,
                0.0,
                min(qf[leaf, QF_FAIR], d0) - u0,
                min(qf[leaf, QF_FAIR + 1], d1) - u1,
            )
        x0, x1 = _rmax(W, policy, rm0, rm1, rf0, rf1)
        tp0 = tp0 + x0
        tp1 = tp1 + x1
    if not tp0 > 0.0:
        return False
    acted = False
    nw = gi[GI_WARNED_N]
    keep = 0
    for i in range(nw):
        a = warned[i]
        if ai[a, AI_STATE] == RUNNING and tp0 > 0.0:
            task = ai[a, AI_TASK]
            r0 = tsf[task, TSF_REQ]
            r1 = tsf[task, TSF_REQ + 1]
            if af[a, AF_MARK] + cfg[C_WAIT_KILL] < t:
                _end_attempt(W, a, KILLED)
                acted = True
            else:
                warned[keep] = a
                keep += 1
            tp0 = tp0 - r0
            tp1 = tp1 - r1
    gi[GI_WARNED_N] = keep
    while tp0 > 0.0:
        a = _preempt_container(W)
        if a < 0:
            break
        task = ai[a, AI_TASK]
        j = ts[task, TS_JOB]
        r0 = tsf[task, TSF_REQ]
        r1 = tsf[task, TSF_REQ + 1]
        af[a, AF_MARK] = t
        _free_remove(W, a, j)
        jf[j, JF_TBP] += r0
        jf[j, JF_TBP + 1] += r1
        _held_changed(W, j)
        _up(W, QF_TBP, js[j, JS_QUEUE], r0, r1)
        warned[gi[GI_WARNED_N]] = a
        gi[GI_WARNED_N] += 1
        tp0 = tp0 - r0
        tp1 = tp1 - r1
        acted = True
    return acted


@njit(cache=True)
def _preempt_container(W):
    """FSParentQueue/FSLeafQueue/FSAppAttempt.preemptContainer (Hadoop 2); -1 for none."""
    qs, children, qf, qi, ji, ts, ss, ai, gi = (
        W[0],
        W[2],
        W[3],
        W[4],
        W[9],
        W[16],
        W[12],
        W[20],
        W[24],
    )
    q = 0
    while qs[q, QS_LEAF] == 0:
        best = -1
        for k in range(qs[q, QS_CH_LO], qs[q, QS_CH_HI]):
            c = children[k]
            if best < 0 or _cmp_queues(W, qs[q, QS_POLICY], 0, c, best, True) > 0:
                best = c
        if best < 0:
            return -1
        q = best
    policy = qs[q, QS_POLICY]
    u0 = qf[q, QF_USE] - qf[q, QF_TBP]
    u1 = qf[q, QF_USE + 1] - qf[q, QF_TBP + 1]
    if qs[qs[q, QS_PARENT], QS_POLICY] == 2:
        over = not (u0 <= qf[q, QF_FAIR] and u1 <= qf[q, QF_FAIR + 1])
    else:
        over = u0 > qf[q, QF_FAIR]
    if not over or qs[q, QS_PREEMPTABLE] == 0:
        return -1
    app = -1
    j = qi[q, QI_APP_HEAD]
    while j >= 0:
        if app < 0 or _cmp_apps(W, policy, 0, j, app, True) > 0:
            app = j
        j = ji[j, JI_APP_NEXT]
    if app < 0:
        return -1
    victim = -1
    a = gi[GI_RUN_HEAD]
    while a >= 0:
        task = ai[a, AI_TASK]
        if task >= 0 and ts[task, TS_JOB] == app and W[19][a, AF_MARK] < 0.0:
            if (
                victim < 0
                or ss[ts[task, TS_STAGE], SS_PRIO] >= ss[ts[ai[victim, AI_TASK], TS_STAGE], SS_PRIO]
            ):
                victim = a
        a = ai[a, AI_RUN_NEXT]
    return victim


@njit(cache=True)
def _preempt_v1(W, d):
    """MRv1 preemptTasks for slot pool `d`: kill the newest tasks of pools above fair share.

    Returns whether anything was killed.
    """
    qs, qsf, qf, js, ss, ts, tsf, af, ai, gf, gi, vict = (
        W[0],
        W[1],
        W[3],
        W[6],
        W[12],
        W[16],
        W[17],
        W[19],
        W[20],
        W[23],
        W[24],
        W[29],
    )
    t = gf[G_NOW]
    total = 0.0
    nq = qs.shape[0]
    for leaf in range(nq):
        if qs[leaf, QS_LEAF] == 0:
            continue
        dd = qf[leaf, QF_USE + d] + qf[leaf, QF_PALL + d]
        running = qf[leaf, QF_USE + d]
        n_min = 0.0
        n_fair = 0.0
        last = qf[leaf, QF_LMIN + d]
        if last > -INF and _expired(t - last, qsf[leaf, QSF_MIN_TO]):
            n_min = max(0.0, min(qsf[leaf, QSF_MIN + d], dd) - running)
        last = qf[leaf, QF_LFAIR + d]
        if last > -INF and _expired(t - last, qsf[leaf, QSF_FAIR_TO]):
            n_fair = max(0.0, math.floor(min(qf[leaf, QF_FAIR + d], dd)) - running)
        total += math.floor(max(n_min, n_fair))
    if total <= 0:
        return False
    acted = False
    left = qf[:, QF_USE + d].copy()
    nv = 0
    a = gi[GI_RUN_TAIL]
    while a >= 0:
        task = ai[a, AI_TASK]
        if task >= 0 and ss[ts[task, TS_STAGE], SS_DIM] == d:
            leaf = js[ts[task, TS_JOB], JS_QUEUE]
            if qf[leaf, QF_USE + d] > qf[leaf, QF_FAIR + d] and qs[leaf, QS_PREEMPTABLE] == 1:
                vict[nv] = a
                nv += 1
        a = ai[a, AI_RUN_PREV]
    starts = np.empty(nv)
    for i in range(nv):
        starts[i] = -af[vict[i], AF_START]
    order = np.argsort(starts, kind="mergesort")
    for i in range(nv):
        a = vict[order[i]]
        leaf = js[ts[ai[a, AI_TASK], TS_JOB], JS_QUEUE]
        if left[leaf] > qf[leaf, QF_FAIR + d]:
            # a kill frees the task's share of the pool: one slot, or its memory
            size = tsf[ai[a, AI_TASK], TSF_REQ + d]
            _end_attempt(W, a, KILLED)
            acted = True
            left[leaf] -= size
            total -= size
            if total <= 0.0:
                break
    return acted


# --------------------------------------------------------------------------- main loop
@njit(cache=True)
def advance(W, t_stop, att_room):
    """Run iterations while the next event time is <= `t_stop`.

    Returns 0 when done or stopped, 1 when fewer than `att_room` attempt slots are
    left at the start of an iteration (the caller grows the arrays and calls again).
    """
    W = world_ref(_borrow_world(W))
    js, jsf, jf, ts, tsf, af, ai, hk, hi, gf, gi, cfg = (
        W[6],
        W[7],
        W[8],
        W[16],
        W[17],
        W[19],
        W[20],
        W[21],
        W[22],
        W[23],
        W[24],
        W[25],
    )
    nj = js.shape[0]
    while True:
        t_heap = float_from_ordered(hk[0]) if gi[GI_HEAP_N] > 0 else INF
        t_sub = jsf[gi[GI_NEXT_SUBMIT], JSF_SUBMIT] if gi[GI_NEXT_SUBMIT] < nj else INF
        t = min(t_heap, t_sub, gf[G_NEXT_CHECK])
        if t == INF or t > t_stop or gi[GI_LIVELOCK] != 0:
            break
        room = att_room + nj + W[40].shape[0]
        if ai.shape[0] - gi[GI_N_ATT] < att_room or hk.shape[0] - gi[GI_HEAP_N] < room:
            return 1
        gf[G_NOW] = t
        first = t != gf[G_LAST_T]  # the first iteration at t: every heartbeat at t is in it
        gf[G_LAST_T] = t
        gi[GI_ITER] += 1
        gi[GI_BEAT_N] = 0
        t_key = ordered_bits(t)
        check = gf[G_NEXT_CHECK] == t
        if check:
            gf[G_NEXT_CHECK] = INF
        events = False
        while gi[GI_HEAP_N] > 0 and hk[0] == t_key:
            events = True
            kind, ident = heap_pop(hk, hi, gi)
            if gi[GI_HEAP_N] > 0:
                # the rows the next event reads: its attempt, task and job
                if hi[0, HI_KIND] < AM_READY:
                    prefetch(ai, hi[0, HI_IDENT])
                    prefetch(af, hi[0, HI_IDENT])
                    prefetch(ts, hi[0, HI_TASK])
                    prefetch(tsf, hi[0, HI_TASK])
                prefetch(js, hi[0, HI_JOB])
                prefetch(jf, hi[0, HI_JOB])
            if kind == END:
                if ai[ident, AI_STATE] == RUNNING:
                    _end_attempt(W, ident, ai[ident, AI_OUTCOME])
                    gi[GI_PROGRESS] += 1
                    n = ai[ident, AI_NODE]
                    if n >= 0:
                        # reported at its node's heartbeat; it ended at its own time
                        af[ident, AF_FINISH] = af[ident, AF_END]
                        _beat(W, n)
            elif kind == KILL:
                if ai[ident, AI_STATE] == RUNNING and af[ident, AF_MARK] == t:
                    _end_attempt(W, ident, KILLED)
            elif kind == HEARTBEAT:
                W[40][ident, NF_HB] = INF
                _beat(W, ident)
            else:
                _am_ready(W, ident)
                gi[GI_PROGRESS] += 1
        while gi[GI_NEXT_SUBMIT] < nj and jsf[gi[GI_NEXT_SUBMIT], JSF_SUBMIT] == t:
            events = True
            _submit(W, gi[GI_NEXT_SUBMIT])
            gi[GI_NEXT_SUBMIT] += 1
        if gi[GI_DIRTY] != 0:
            _compute_shares(W)
        heartbeats = cfg[C_HB] != 0.0
        if heartbeats:
            if first:
                _catch_up(W, t)
            for i in range(gi[GI_BEAT_N]):
                _node_allocate(W, W[42][i])
            if gi[GI_RC_HEAD] >= 0:
                # once per event time: what it frees is assigned at the next heartbeats
                _preempt_reduces(W)
        else:
            _allocate(W)
            while gi[GI_RC_HEAD] >= 0 and _preempt_reduces(W):
                _allocate(W)
        if cfg[C_PREEMPT] != 0.0:
            if cfg[C_VERSION] == 3.0:
                if events:
                    # the next update() sees this state; one before it would see no change
                    g = _grid_at_or_after(t, cfg[C_UPDATE])
                    if g == t:
                        check = True
                    elif g < gf[G_NEXT_CHECK]:
                        gf[G_NEXT_CHECK] = g
                if check:
                    if _cycling_v3(W):
                        gi[GI_LIVELOCK] = 1  # the loop ends before the next time
                    else:
                        _preempt_v3(W)
            else:
                _preempt_v12(W)
                if heartbeats:
                    if gi[GI_RC_HEAD] >= 0:
                        _preempt_reduces(W)
                else:
                    _allocate(W)
                    while gi[GI_RC_HEAD] >= 0 and _preempt_reduces(W):
                        _allocate(W)
        if heartbeats:
            _wake(W, t)
    if t_stop != INF and t_stop > gf[G_NOW]:
        gf[G_NOW] = t_stop
    return 0


@njit(cache=True)
def rebuild_queue_state(W):
    """Re-attribute every live job's usage, pending demand and AM usage to a fresh queue tree.

    Jobs are visited in index order, so leaf app lists are in submission order afterwards.
    """
    W = world_ref(_borrow_world(W))
    qf, js, jsf, jf, ji, hold = W[3], W[6], W[7], W[8], W[9], W[37]
    for j in range(js.shape[0]):
        if ji[j, JI_HOLD_POS] >= 0:
            hold[ji[j, JI_HOLD_POS], 1] = js[j, JS_QUEUE]
        state = ji[j, JI_STATE]
        if state != 1 and state != 2:
            continue
        leaf = js[j, JS_QUEUE]
        _up(W, QF_USE, leaf, jf[j, JF_USE], jf[j, JF_USE + 1])
        _up(W, QF_PALL, leaf, jf[j, JF_PEND], jf[j, JF_PEND + 1])
        _up(W, QF_TBP, leaf, jf[j, JF_TBP], jf[j, JF_TBP + 1])
        if state == 2:
            ji[j, JI_STATE] = 1
            _make_runnable(W, j)
        if ji[j, JI_AM_STATE] >= 2:
            qf[leaf, QF_AM] += jsf[j, JSF_AM]
            qf[leaf, QF_AM + 1] += jsf[j, JSF_AM + 1]


@njit(cache=True)
def promote_waiting(W):
    """Make runnable every waiting app the (new) limits allow, in submission order."""
    W = world_ref(_borrow_world(W))
    _promote_waiting(W)
