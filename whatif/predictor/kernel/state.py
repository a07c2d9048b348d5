"""The layout of the kernel's state: column and slot numbers of its arrays, event kinds,
attempt states, and the world tuple the functions pass around.

Times are float64 seconds; resources float64 MB/vcores (or slots); indices are int64
(int32 in the job, stage and task tables `js`, `ji`, `ss`, `si`, `ts` and `ti`, whose
values, task and attempt indices, counts and check stamps, stay below 2^31).
"""

from __future__ import annotations

import llvmlite.binding
import numpy as np

# LLVM turns a select inside a loop into a branch when it guesses the branch predictable,
# and keeps a choice of several values (the winner of two tree siblings and its key) as
# a branch when speculating all of them looks too costly. The kernel's choices pick
# between tree and heap children, a coin toss each time, so they stay conditional
# moves. LLVM inlines a callee only below a cost of 275 (-O3): the kernel's per-attempt
# path is dozens of small functions (tree puts, list links, queue sums), and at 1000 it
# inlines more of them into their callers, which spares the calls, their spills and
# status checks (about a tenth of the run, at a tenth more compile time; 4000 gained
# nothing more). The options are process-wide and change only the speed of code numba
# compiles after this import, never a result.
llvmlite.binding.set_option("tempo", "-x86-cmov-converter=false")
llvmlite.binding.set_option("tempo", "-phi-node-folding-threshold=4")
llvmlite.binding.set_option("tempo", "-inline-threshold=1000")

INF = np.inf

# event kinds
END, KILL, AM_READY, HEARTBEAT = 0, 1, 2, 3
CONTINUOUS = 4  # a pass of YARN's continuous scheduling thread (`continuous.py`)
AM_ASK = 5  # a MapReduce AM's allocate call sends the stages it released (`allocate_cycle.py`)
TC_END = (
    6  # Hadoop 1: a task-cleanup attempt ends; ident 2 (node + 1) + slot pool (`jobtracker.py`)
)
# a MapReduce AM's map requests may have hung long enough for its unconditional reduce
# preemption, or its headroom rule's delay (`phases._hang_due`); ident: the job. It only
# makes the loop run then.
HANG = 7
# a MapReduce AM's allocate call asks again for a task whose attempt was killed or failed
# (`allocate_cycle._reask_call`); ident: the AM's attempt, task: the task
REASK = 8
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
# YARN continuous scheduling (`continuous.py`): on (with nodes), the thread's sleep
C_CONT, C_CONT_SLEEP = 21, 22
C_AM_HB = 23  # the MapReduce AM's allocate interval (0: requests and containers at once)
# Hadoop 1 delay scheduling (`locality.py`): on (split locations matched to trackers), delay
C_LOC, C_LOC_DELAY = 24, 25
C_TC = 26  # Hadoop 1: a task-cleanup attempt's run time (0: none are run; `jobtracker.py`)
# the Capacity Scheduler mode (`capacity.py`): on, yarn.scheduler.minimum-allocation-mb
C_CS, C_CS_MINALLOC = 27, 28
# its preemption monitor (`capacity_preemption.py`): the interval (s, and ms), the wait
# before a kill (ms), total_preemption_per_round (a Java float, as Hadoop reads it),
# max_ignored_over_capacity, natural_termination_factor
C_CS_INTERVAL, C_CS_INTERVAL_MS, C_CS_WAIT_MS = 29, 30, 31
C_CS_ROUND, C_CS_IGNORED, C_CS_NATURAL = 32, 33, 34
# its per-node-heartbeat off-switch cap, and its delay scheduling (`capacity_locality.py`):
# node-locality-delay, rack-locality-additional-delay, rack-locality-full-reset (0/1), and
# the cluster's nodes (getNumClusterNodes)
C_CS_OFFSWITCH, C_CS_NLD, C_CS_RLAD, C_CS_RESET, C_CS_NODES = 35, 36, 37, 38, 39
# Fair Scheduler node reservations (`reservations.py`): on (some request may reserve a
# node), the reservation threshold (memory, vcores: 41, 42), the most nodes an app may
# hold reserved (FSAppAttempt.reservationExceedsThreshold)
C_RES, C_RES_THR, C_RES_CAP = 40, 41, 43
# mapreduce.job.reducer.unconditional-preempt.delay.sec (s; < 0: off, and on Hadoop 1)
C_HANG = 44
# the largest request of any task or AM (memory, vcores: 45, 46), a bound for reservations
C_REQ_MAX = 45
# mapreduce.job.reduce.rampup.limit (the MapReduce AM's reduce ramp-up, `phases._ramp_job`)
C_RAMP = 47
# mapreduce.job.reducer.preempt.delay.sec for the AM's headroom rule (s; 0: at once)
C_PDELAY = 48
# the Fair Scheduler's delay scheduling on YARN (`fair_locality.py`): on (split locations
# matched to nodes, thresholds at least 0), the node and rack locality thresholds (Java
# floats, capped at 1), and the cluster's nodes (getNumClusterNodes)
C_FLOC, C_FLOC_NODE, C_FLOC_RACK, C_FLOC_NODES = 49, 50, 51, 52
# yarn.scheduler.fair.reservable-nodes (a Java float), for a rack's cap on a located
# stage's rack-local reservations (`reservations._res_room`)
C_RES_RATIO = 53
N_CFG = 54
# global float state
G_NOW, G_NEXT_CHECK, G_NEXT_V12, G_FREE = 0, 1, 2, 3  # free is 3, 4
G_LAST_T = 5  # the previous iteration's time
G_CONT = 6  # the next continuous scheduling pass (inf: none scheduled)
G_LOC_LAST = 7  # Hadoop 1: the last FairScheduler.assignTasks call (-inf: none yet)
G_CS_LAST = 8  # the Capacity Scheduler monitor's last round (-inf: none yet)
G_RAMP_LAST = 9  # the ramp-up's last walk (`phases._ramp_reduces`; -inf: none yet)
# with heartbeats: the next AM call whose ramp-up changes what it asks for (`_ramp_due`)
G_RAMP_DUE = 10
N_GF = 11
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
GI_CLAIM_USED, GI_CLAIM_LIVE = 24, 25  # claim entries handed out (`clf`/`cli` rows), live
GI_CAND_N = 26  # victim candidates of the current Hadoop 3 check in `cand`
GI_QUIET = 27  # Hadoop 3 checks since the last progress
GI_HOLD_N = 28  # apps holding an unmarked task container (see JI_CONT_HEAD), in `hold`
GI_RECHECK_HEAD, GI_RECHECK_N = 29, 30  # Hadoop 3 re-check times ahead: ring in jbuf[:, 1]
GI_MSTARV_N = 31  # apps with a min-share starvation amount, listed in jbuf[:, 3]
GI_CUR_NODE = 32  # the node heartbeating in an allocation (-1: the cluster)
GI_ITER = 33  # iterations so far (stamps in `nodei`)
GI_CHANGED = 34  # 1: something an allocation depends on changed since the last `_wake`
GI_BEAT_N, GI_TOUCH_N = 35, 36  # nodes heartbeating now / touched now, listed in `nlist`
GI_PARK_N = 37  # parked nodes (no heartbeat scheduled) but the bare ones, in `nlist`
GI_JT_HEAD, GI_JT_TAIL = 38, 39  # Hadoop 1: jobs with a JobTracker task to hand out
# Hadoop 1 delay scheduling: jobs visited for a map in this assignTasks call (`lvis`
# column 0), jobs skipped at the last call (column 1), the call's stamp
GI_LVIS_N, GI_LSKIP_N, GI_LCALL = 40, 41, 42
# the Capacity Scheduler mode: the locality of the pass's container (0 node-local, 1
# rack-local, 2 off-switch), which decides whether it counts toward the off-switch cap
GI_CS_TYPE = 43
# reservations (`reservations.py`): how many more nodes apps could reserve, as far as this
# settling pass's scan has counted (`_res_slots`), reservations made so far, and where the
# scan stopped: the leaf and the next of its apps (-1: the leaf's next sibling in index
# order; both -1 before the scan starts, `heartbeats._res_scan`)
GI_RES_ANY, GI_RES_MADE, GI_RES_LEAF, GI_RES_NEXT = 44, 45, 46, 47
# jobs whose reduce stage the AM ramps up (`phases._ramp_job`): the list at JI_RAMP_NEXT
GI_RAMP_HEAD, GI_RAMP_TAIL = 48, 49
# its awake jobs (`phases._ramp_wake`), in the same order: the list at JI_RA_NEXT; the next
# JI_RAMP_SEQ
GI_RA_HEAD, GI_RA_TAIL, GI_RAMP_SEQ = 50, 51, 52
# iterations in a row without an event (AM calls, checks); settling passes so far (the
# stamps of `heartbeats._res_valid_now`)
GI_RAMP_RUN, GI_PASS = 53, 54
GI_REST_HEAD, GI_REST_TAIL = 55, 56  # apps with resting nodes (`resting.py`)
# live attempts' rows: how many were ever handed out, and how many are free (`live_rows.py`)
GI_LIVE_TOP, GI_LIVE_FREE = 57, 58
GI_CLN_HEAD, GI_CLN_TAIL = 59, 60  # the nodes holding claims (`claims._claims_sweep`)
# the leaves with asleep blocked jobs (`blocked_lists.py`): the list at QI_RCL_NEXT
GI_RCL_HEAD, GI_RCL_TAIL = 61, 62
GI_BARE_N = 63  # parked nodes a reservation alone could take, apart in `nlist` (`resting`)
N_GI = 64
# queue static int / float
QS_PARENT, QS_LEAF, QS_POLICY, QS_MAX_APPS, QS_PREEMPTABLE, QS_RANK = 0, 1, 2, 3, 4, 5
QS_CH_LO, QS_CH_HI, QS_SIZE = 6, 7, 8
QS_FAIR_POSITIVE = 9  # 1: `fair` policy and every child weighs more than zero
N_QS = 10
QSF_WEIGHT, QSF_MIN, QSF_MAX, QSF_AMSHARE = 0, 1, 3, 5
QSF_MIN_TO, QSF_FAIR_TO, QSF_THRESH = 6, 7, 8
# the Capacity Scheduler mode (`capacity.py`): guaranteed memory (MB), absolute capacity
# (fraction of the cluster), user-limit-factor, minimum-user-limit-percent,
# maximum-am-resource-percent, maximum-applications and its per-user limit (-1: none)
QSF_CS_GUAR, QSF_CS_ABS, QSF_CS_ULF, QSF_CS_MULP = 9, 10, 11, 12
QSF_CS_AM, QSF_CS_APPS, QSF_CS_UAPPS = 13, 14, 15
QSF_CS_NOPREEMPT = 16  # disable_preemption (inherited): 1, the monitor takes nothing from it
QSF_CS_PRIO = 17  # the priority its parent orders it by (0 unless priority-utilization)
QSF_CS_SIZEW = 18  # 1: a fair leaf with ordering-policy.fair.enable-size-based-weight
N_QSF = 19
# queue state float / int
QF_USE, QF_PALL, QF_PRUN, QF_AM, QF_FAIR, QF_LMIN, QF_LFAIR, QF_TBP = 0, 2, 4, 6, 8, 10, 12, 14
QF_APP_FAIR = 16  # leaf whose apps are alike (`_alike_apps`): each app's fair share
QF_APP_FAIR_MIN = 18  # leaf: the smallest memory fair share of its apps (`_app_shares`)
# leaf: a lower bound on the headrooms (2) its asleep ramping jobs keep (`phases._ramp_sleep`)
QF_RAMP_H = 19
QF_RAMP_WAKE = 21  # leaf: 1.0 if its bound exceeds QF_RAMP_H at this ramp-up (`phases`)
# leaf: the largest request (2) its asleep blocked jobs need room for, and the earliest
# time one of them may act by a timed rule (`blocked_lists.py`)
QF_RCS_NEED, QF_RCS_WAKE = 22, 24
# leaf: an upper bound on the headroom floors (2) its asleep ramping jobs keep: below a
# job's floor its ramp-up would cancel reduces it asked for (`phases._ramp_floor`)
QF_RAMP_LO = 25
N_QF = 27
QI_RUNNABLE, QI_DIRTY, QI_TRIED, QI_APP_HEAD, QI_APP_TAIL = 0, 1, 2, 3, 4
QI_TREE_OFF, QI_TREE_P = 5, 6
QI_TREE_K, QI_SLOT_NEXT, QI_SLOT_FREE = 7, 8, 9  # tree width in use; slots handed out; freed
QI_TREE_ROOT = 10  # P / K, the subtree in use: kept, as dividing cost a tenth of a put
QI_LIVE = 11  # the leaf's live apps (submitted, not finished): P stays above (`_trees_fit`)
# the leaf's apps asking for at least the reservation threshold (`apptree._list_big`)
QI_BIG_HEAD, QI_BIG_TAIL = 12, 13
# its asleep blocked jobs (`blocked_lists.py`), and its place in the list of leaves with
# some (GI_RCL_HEAD)
QI_RCS_HEAD, QI_RCS_TAIL, QI_RCL_NEXT, QI_RCL_PREV, QI_IN_RCL = 14, 15, 16, 17, 18
N_QI = 19
# job static int / float
JS_QUEUE, JS_USER, JS_RANK, JS_HAS_AM, JS_ST_LO, JS_ST_HI = 0, 1, 2, 3, 4, 5
JS_ORDER = 6  # rank of (start time, name rank): the apps' final tie-break as one number
N_JS = 7
JSF_SUBMIT, JSF_AM = 0, 1
JSF_CS_UW = 3  # the weight of the job's user in its leaf (the Capacity Scheduler's; else 1)
N_JSF = 4
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
JF_AM_T0 = 17  # when the app's AM became ready: its allocate calls are on this phase
JF_LOC_WAIT = 18  # Hadoop 1 JobInfo.timeWaitedForLocalMap (s)
# the MapReduce AM's unconditional reduce preemption (`phases._hang_due`): when the job's
# map requests last went from none to some, and the earliest next preemption (after one,
# the AM's next heartbeat)
JF_MAP_ASK, JF_HANG_NEXT = 19, 20
JF_RAMP_NEXT = 21  # the AM's next allocate call at which it ramps its reduces (`_ramp_job`)
# the headrooms between which its ramp-up changes nothing (`phases._ramp_mark`): up to
# JF_RAMP_H (2) it asks for no more reduces, down to JF_RAMP_LO (2) it cancels none
JF_RAMP_H, JF_RAMP_LO = 22, 24
JF_RD_CALL = 26  # the AM call a `HANG` brings its ramp-down to (`_at_am_call`)
# asleep in its leaf's blocked jobs (`blocked_lists.py`): the request (2) its headroom
# must hold for it not to act, and when a timed rule may act
JF_RCS_NEED, JF_RCS_WAKE, N_JF = 27, 29, 30
JI_STATE, JI_AM_STATE, JI_AM_ATT, JI_STAGES_DONE, JI_APP_NEXT, JI_APP_PREV = 0, 1, 2, 3, 4, 5
JI_WAIT_NEXT, JI_WAIT_PREV, JI_TRIED, JI_STARVED, JI_CONS_EPOCH = 6, 7, 8, 9, 10
JI_RED_NEXT, JI_RED_PREV, JI_IN_RED = 11, 12, 13
JI_POS, JI_TOUCHED, JI_RC_NEXT, JI_RC_PREV, JI_IN_RC, JI_RED_SEQ = 14, 15, 16, 17, 18, 19
JI_CONT_HEAD, JI_CONT_TAIL = 20, 21  # the app's running task containers not marked
JI_HOLD_POS = 22  # where the app is in `hold` (-1: it holds none)
JI_MSTARV_POS = 23  # where the app is in jbuf[:, 3] (-1: its min-share starvation is zero)
JI_CLAIMS = 24  # the app's live claim entries (nodes holding resources preempted for it)
JI_JT_NEXT, JI_JT_PREV, JI_IN_JT = 25, 26, 27  # the list at GI_JT_HEAD (`jobtracker.py`)
JI_ASKING = 28  # 1: an AM_ASK event is pending for the app
# Hadoop 1 delay scheduling: the locality level of the job's last map (0 node, 1 rack,
# 2 off-switch), and the stamps of the assignTasks call that visited it / launched its map
JI_LOC_LEVEL, JI_LOC_SEEN, JI_LOC_RUN = 29, 30, 31
JI_TC = 32  # Hadoop 1: task-cleanup attempts to hand out, in map (32) and reduce (33) slots
JI_RES = 34  # nodes the app holds reserved (`reservations.py`)
JI_RAMP_NEXT, JI_RAMP_PREV, JI_IN_RAMP = 35, 36, 37  # the list at GI_RAMP_HEAD
# the job's done and unassigned maps, unassigned and done reduces at that ramp-up
JI_RAMP_SIG = 38
# its place in the ramping-jobs list, and the list of its awake ones (`phases._ramp_wake`)
JI_RAMP_SEQ, JI_RA_NEXT, JI_RA_PREV, JI_IN_RA = 42, 43, 44, 45
# whether its reservations of a stage are valid, as found in a settling pass (its stamp)
JI_RV_PASS, JI_RV_STAGE, JI_RV_OK = 46, 47, 48
# its reserved nodes resting on it (`resting.py`): their list, the stage they are reserved
# for, and the app's place in the list of apps with resting nodes (GI_REST_HEAD)
JI_REST_HEAD, JI_REST_TAIL, JI_REST_STAGE, JI_REST_NEXT, JI_REST_PREV = 49, 50, 51, 52, 53
JI_BIG_NEXT, JI_BIG_PREV = 54, 55  # its place in its leaf's list at QI_BIG_HEAD
JI_IN_BIG = 56  # 1: in that list, as it asks for at least the reservation threshold
JI_RCS_NEXT, JI_RCS_PREV = 57, 58  # its place in its leaf's list at QI_RCS_HEAD
JI_IN_RCS = 59  # 1: blocked and asleep, in that list (not in the list at GI_RC_HEAD)
JI_RAMP_ASKED = 60  # the reduces it had asked for at its last ramp-up mark (`phases._ramp_mark`)
N_JI = 61
# app order trees (one set per leaf): pending memory / map slots, vcores / reduce slots, any
V_ANY = 2
N_VIEWS = 3
# app order tree nodes (tnode, int64): smallest head request below, the winner's sort key
TN_REQ, TN_KEY = 0, 2
N_TN = 8  # 5 used; 64-byte rows, one cache line each (see `compiled.line_aligned`)
TN_NONE = 0x7FF0_0000_0000_0000  # ordered_bits(inf): no request
# stage static int / float
SS_LO, SS_HI, SS_PRIO, SS_SLOW, SS_DIM, SS_JOB = 0, 1, 2, 3, 4, 5
SS_JT = 6  # Hadoop 1 JobTracker task stage: 0 no, JT_SETUP, JT_CLEANUP (`jobtracker.py`)
# Hadoop 1 delay scheduling: 1 a map stage whose tasks carry split locations, and its
# location groups [lo, hi) in `lg` (`locality.py`)
SS_LOC, SS_LG_LO, SS_LG_HI = 7, 8, 9
SS_RR = 10  # slowstart stage: the row in `rsf` of its first task (Packed.stage_replay_row)
# the Capacity Scheduler's delay scheduling: a located stage's unique location asks
# (getUniqueLocationAsks: its split hosts and racks, and ANY)
SS_LOC_ASKS = 11
# how a re-queued task of the stage is handed out again (`Packed.stage_retry_rule`:
# RETRY_LAST, RETRY_FAILED_FIRST, RETRY_FIRST; `requests._requeue`)
SS_RETRY = 12
N_SS = 13
# stage float: its tasks' request sums (memory, vcores) and largest request (2, 3)
SSF_SUM, SSF_MAX = 0, 2
N_SSF = 4
JT_SETUP, JT_CLEANUP = 1, 2
# stage state int
# SI_RELEASED: 0 not yet, 1 released, 2 released by the AM, sent at its next allocate call
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
SI_SLOT = 9  # the slot pool of the stage's running JobTracker task
SI_NONLOC = 10  # located stage: its unassigned tasks without split locations (nonLocalMaps)
SI_CS_MISSED = 11  # the Capacity Scheduler: the stage's missed scheduling opportunities
# a reduce stage the AM ramps up: how many of its first unassigned tasks it asks for (-1:
# all; `phases._ramp_job`)
SI_ASKED = 12
# how many of the stage's re-queued tasks (the first of its retry list) go before its fresh
# ones (`requests._requeue`)
SI_FRONT_N = 13
# the Fair Scheduler's delay scheduling (`fair_locality.py`) of a located stage: its allowed
# locality level (-1: not yet offered, 0 node-local, 1 rack-local, 2 off-switch) and its
# scheduling opportunities since the level was last relaxed
SI_FLOC_LEVEL, SI_FLOC_OPP = 14, 15
N_SI = 16
# task static int / float
TS_JOB, TS_STAGE, TS_FAILS = 0, 1, 2
N_TS = 3
TSF_REQ, TSF_DUR, TSF_FRAC = 0, 2, 3
N_TSF = 4
# replay rows of the tasks of slowstart stages (Packed.replay): finish = max(start + lat
# + a, last map finish + b) + c
RS_A, RS_B, RS_C = 0, 1, 2
# task state int
TI_FAILS, TI_RETRY_NEXT = 0, 1
TI_FAILED_ON = 2  # the node its last failed attempt ran on (-1: none; Hadoop 1 skips it)
N_TI = 3
# attempt float / int: what stays of every attempt (its record), and the row of its live
# state (`live_rows.py`; 0, a row no live attempt holds, once it has ended)
AF_START, AF_FINISH = 0, 1
N_AF = 2
AI_TASK, AI_STATE, AI_PREEMPTED, AI_LIVE = 0, 1, 2, 3
N_AI = 4
# a live attempt's state, in the row of its slot: float (preemption mark; heartbeats: the
# attempt's own end, and when its end event comes) / int
LF_MARK, LF_END, LF_DUE = 0, 1, 2
N_LF = 3
LI_OUTCOME, LI_RUN_NEXT, LI_RUN_PREV, LI_DEF_NEXT, LI_DEF_PREV, LI_CHOSEN = 0, 1, 2, 3, 4, 5
LI_APP_NEXT, LI_APP_PREV = 6, 7  # links in the app's list of unmarked task containers
LI_NODE = 8  # the node the attempt runs on (-1: no heartbeats)
N_LI = 9
# nodes (heartbeats): free and capacity (memory, vcores or map, reduce slots), the time of
# the scheduled heartbeat event (inf: none); its place in the parked list (-1: not parked,
# REST: resting on its reservation's app, `resting.py`),
# and the stamps of the iteration the node is listed in `nlist` as heartbeating / touched
NF_FREE, NF_CAP, NF_HB = 0, 2, 4
NF_RES = 5  # the resources a reservation on the node books (memory 5, vcores 6)
# the node's first heartbeat grid time at or after the last time `_on_grid_now` asked (-inf)
NF_GRID = 7
N_NF = 8
NI_PARK, NI_BEAT, NI_TOUCH = 0, 1, 2
REST = -2  # NI_PARK of a resting node
NI_CL_HEAD, NI_CL_TAIL = 3, 4  # the node's claim entries, in the order first recorded
NI_DONE = 5  # the iteration whose heartbeat of the node reported a finished container
# the node's reservation (`reservations.py`): the app (-1: none) and its stage (-1: the AM)
NI_RES_APP, NI_RES_STAGE = 6, 7
NI_REST_NEXT, NI_REST_PREV = 8, 9  # its place in its app's resting nodes (`resting.py`)
NI_CLN_NEXT, NI_CLN_PREV = 10, 11  # its place in the list of nodes holding claims
NI_IN_CLN = 12  # 1: in that list (GI_CLN_HEAD)
N_NI = 13
# claim entries (Hadoop 3 FSSchedulerNode.resourcesPreemptedForApp): cli (cap, N_CLI) int64
# the app and the next entry of the node's list (-1: last); clf (cap, 2) float64 resources
CL_APP, CL_NEXT = 0, 1
N_CLI = 2
# location groups (`locality.py`): lg (ng, N_LG) int64, the tasks of one stage local to one
# key (a node n, or a rack r as nodes + r) in `lt`[lo:hi], ascending, and the first that may
# still be unassigned; tfl (nt,) int8 task flags (1 assigned, 2 has split locations)
LG_KEY, LG_LO, LG_HI, LG_CUR = 0, 1, 2, 3
N_LG = 4
TF_TAKEN, TF_LOCATED = 1, 2

BISECTION_ROUNDS = 25
QUIET_CHECKS = 16  # Hadoop 3 checks with no progress before the livelock search starts
# iterations in a row without an event after which AM calls wait for the next event (a
# guard: ramp-ups that kept changing each other's asks would never let time run out)
RAMP_RUN_MAX = 10000
JAVA_INT_MAX = 2147483647.0

HK_KEY, HK_SEQ = 0, 1  # hk: ordered_bits(time), insertion sequence number
HI_KIND, HI_IDENT, HI_TASK, HI_JOB = 0, 1, 2, 3
N_HI = 4


# W = (qs, qsf, children, qf, qi, dem, js, jsf, jf, ji, umax, urun, ss, ssf, si, sdone,
#      ts, tsf, ti, af, ai, hk, hi, gf, gi, cfg, cluster, minreq, warned, vict, jbuf,
#      tree, excl, touched, tnode, cand, slots, hold, holdv, unmarked, nodef, nodei, nlist,
#      clf, cli, lg, lt, tfl, lvis, nrack, rsf)
#   (entry points pass it on as a WorldRef)
#   qs (nq, N_QS) int64 / qsf (nq, N_QSF) float64: static queue parameters
#   children (nq - 1,) int64: CSR child lists (qs[:, QS_CH_LO:QS_CH_HI])
#   qf (nq, N_QF) float64 / qi (nq, N_QI) int64: queue state; dem (nq, 2) scratch
#   js (nj, N_JS) int32 / jsf (nj, N_JSF) float64: static job data; jf / ji (int32): job state
#   umax (nu,) int64 user maxRunningApps (-1 none); urun (nu,) int64 runnable apps
#   ss (ns, N_SS) int32 / ssf (ns, N_SSF) float64 request sums and largest requests:
#     static stages; si (int32) state;
#   sdone (ns,) float64 time each stage completed (NaN before)
#   ts (nt, N_TS) int32 / tsf (nt, N_TSF) float64: static tasks; ti (nt, N_TI) int32 state
#   rsf (nr or 1, 3) float64: (RS_A, RS_B, RS_C) of each task of a slowstart stage, row
#     ss[s, SS_RR] + task - ss[s, SS_LO] (`_replay_row`): no row for other tasks
#   af (cap, N_AF) float64 / ai (cap, N_AI) int32: attempts (task < 0: AM of job -1-task)
#   lf (lcap, N_LF) float64 / li (lcap, N_LI) int32: live attempts' state, by slot (AI_LIVE);
#     lfree (lcap,) int64: the free slots, GI_LIVE_FREE of them (`live_rows.py`)
#   hk (hcap, 2) int64 / hi (hcap, N_HI) int64: event heap, keys (ordered_bits(time),
#     seq) and payloads (kind, ident, and the task and job whose rows the event will
#     read); hk's row 1 starts a 64-byte cache line (`compiled.heap_arrays`)
#   gf (N_GF,) float64 / gi (N_GI,) int64: clock, free resources, counters, list heads
#   cfg (N_CFG,) float64 settings; cluster (2,), minreq (2,) float64
#   warned (cap,) int64 Hadoop 2 warned attempts; in the Capacity Scheduler mode the
#     monitor's marks, GI_WARNED_N pairs (attempt, round of its mark); vict (cap,) int64
#     scratch (the Capacity Scheduler monitor's selected containers); jbuf (nj, 4)
#     int64: scratch (columns 0 and 2), the ring of apps by re-check time (1), the apps
#     with a nonzero min-share starvation (3)
#   tree (sum over leaves of N_VIEWS * 2 * P,) int64: per leaf and view, a tournament tree
#     over slots for the leaf's jobs (node P + JI_POS) whose nodes hold the best eligible
#     app or -1. A runnable app holds a slot (JI_POS, else -1), recycled when it ends, so
#     slots in use stay below the most apps runnable at once; the nodes over the first K
#     slots (K = QI_TREE_K, a power of two that only grows) form the subtree rooted at
#     node P / K (QI_TREE_ROOT), and only it is kept and read. P (a power of two) is at
#     least the leaf's live apps (QI_LIVE), not its jobs: `advance` returns 2 before an
#     iteration whose submissions could pass it, and the caller grows the trees
#     (`whatif.predictor.apptrees`)
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
#     heartbeats); nlist (4 nn,) int64: the nodes heartbeating now [0, nn) and the nodes
#     touched now [nn, 2 nn), in the order first listed, the parked nodes [2 nn, 3 nn),
#     and the bare parked nodes [3 nn, 4 nn) (`resting.py`), each packed, in no order
#   clf (cap, 2) float64 / cli (cap, N_CLI) int64: claim entries (`claims.py`), handed out
#     in order (GI_CLAIM_USED; each is first recorded for a victim, so there are never more
#     than attempts), linked per node from nodei (row 0: the cluster without heartbeats)
#   lg (ng, N_LG) int64 / lt (ne,) int32 / tfl (nt or 1,) int8: Hadoop 1 location groups
#     and task flags (`locality.py`; one unused row each without locality)
#   lvis (nj, 2) int64: the jobs visited for a map in the current assignTasks call, and the
#     jobs skipped at the last call; nrack (nn,) int64 the nodes' racks
