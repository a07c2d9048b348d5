"""Hadoop 3: resources preempted for a starved app are claimed by it on their node.

The reference engine's ``reference/claims.py`` is this module's pure-Python twin; it
follows the same steps.

Claims (Hadoop 2.9+/3: YARN-6432, on the FSPreemptionThread of YARN-4752/YARN-6076; Hadoop
1 and the Hadoop 2 preemption before them have none). When a Hadoop 3 check marks victims
for a starved app, each victim's resources are added to that app's claim on the victim's
node (FSSchedulerNode.addContainersForPreemption: a node keeps one claim per app, a new
app at the end of its list). At the node's update (its heartbeat; every allocation on the
cluster without heartbeats), before anything else is assigned, its apps in list order are
offered containers on it (FairScheduler.assignPreemptedContainers): each takes its next
request, with the usual checks (room on the node, maxResources, maxAMShare), while its
claim is not zero, and the first refusal ends its turn. Every container allocated to an
app on a node, by this or by the ordinary assignment, lowers its claim there by the
container, component-wise and not below zero, and a claim of zero is dropped
(FSSchedulerNode.allocateContainer). A claim is dropped too once its app has finished or
is no longer starved (FSSchedulerNode.cleanupPreemptionList, before each update's
assignment): it stays while the app's min-share starvation from its last check is
nonzero, or its fair-share starvation is and its usage is below its fair share now
(FSAppAttempt.isStarved). With heartbeats this is also tested at the end of every event
time, so a node's skipped heartbeats change nothing (a claim is dropped at the first event
time that finds it so, where Hadoop waits for the node's next heartbeat). Other apps may
use the node's free resources: a claim only comes first. Not modeled: Hadoop's victim
scan on a node starts from its unallocated resources less its claims
(FSPreemptionThread.identifyContainersToPreemptOnNode, FSSchedulerNode.getTotalReserved);
the predictor's scans treat the cluster as one node, and taking every node's claims from
the cluster's free resources would overstate it (with 250 nodes it multiplied the kills).
"""

from __future__ import annotations

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.fairshare import _app_fair, _app_shares
from whatif.predictor.kernel.lists import _keep_listed
from whatif.predictor.kernel.resources import _below
from whatif.predictor.kernel.resting import _claimed


@kernel_jit
def _claim_node(W):
    """The node of an allocation now: the one heartbeating, else row 0 (the cluster)."""
    return max(W[24][S.GI_CUR_NODE], 0)


@kernel_jit
def _keeps_claim(W, j):
    """Whether app `j` keeps its claims (cleanupPreemptionList): it has not finished, and
    its min-share starvation is nonzero, or its fair-share starvation is and its usage is
    below its fair share now (FSAppAttempt.isStarved with isStarvedForFairShare)."""
    jf, ji = W[8], W[9]
    if ji[j, S.JI_STATE] == 3:
        return False
    if jf[j, S.JF_MSTARV] != 0.0 or jf[j, S.JF_MSTARV + 1] != 0.0:
        return True
    if jf[j, S.JF_FSTARV] == 0.0 and jf[j, S.JF_FSTARV + 1] == 0.0:
        return False
    leaf = W[6][j, S.JS_QUEUE]
    _app_shares(W, leaf)
    policy = W[0][leaf, S.QS_POLICY]
    return _below(
        W, policy, jf[j, S.JF_USE], jf[j, S.JF_USE + 1], _app_fair(W, j, 0), _app_fair(W, j, 1)
    )


@kernel_jit
def _claim_add(W, n, j, r0, r1):
    """FSSchedulerNode.addContainersForPreemption: add a victim's resources to app `j`'s
    claim on node `n`, a new claim at the end of the node's list."""
    ji, nodei, gi, clf, cli = W[9], W[41], W[24], W[43], W[44]
    e = nodei[n, S.NI_CL_HEAD]
    while e >= 0:
        if cli[e, S.CL_APP] == j:
            clf[e, 0] += r0
            clf[e, 1] += r1
            return
        e = cli[e, S.CL_NEXT]
    e = gi[S.GI_CLAIM_USED]
    gi[S.GI_CLAIM_USED] = e + 1
    cli[e, S.CL_APP] = j
    cli[e, S.CL_NEXT] = -1
    clf[e, 0] = r0
    clf[e, 1] = r1
    tail = nodei[n, S.NI_CL_TAIL]
    if tail < 0:
        nodei[n, S.NI_CL_HEAD] = e
    else:
        cli[tail, S.CL_NEXT] = e
    nodei[n, S.NI_CL_TAIL] = e
    ji[j, S.JI_CLAIMS] += 1
    gi[S.GI_CLAIM_LIVE] += 1
    _keep_listed(nodei, S.NI_CLN_NEXT, S.NI_CLN_PREV, gi, S.GI_CLN_HEAD, S.NI_IN_CLN, n, True)
    _claimed(W, n)


@kernel_jit
def _claim_unlink(W, n, prev, e):
    """Drop entry `e` (after `prev`, -1: the first) from node `n`'s list."""
    ji, nodei, gi, cli = W[9], W[41], W[24], W[44]
    nxt = cli[e, S.CL_NEXT]
    if prev < 0:
        nodei[n, S.NI_CL_HEAD] = nxt
    else:
        cli[prev, S.CL_NEXT] = nxt
    if nodei[n, S.NI_CL_TAIL] == e:
        nodei[n, S.NI_CL_TAIL] = prev
    if nodei[n, S.NI_CL_HEAD] < 0:
        _keep_listed(nodei, S.NI_CLN_NEXT, S.NI_CLN_PREV, gi, S.GI_CLN_HEAD, S.NI_IN_CLN, n, False)
    ji[cli[e, S.CL_APP], S.JI_CLAIMS] -= 1
    gi[S.GI_CLAIM_LIVE] -= 1
    if W[25][S.C_RES] != 0.0:
        gi[S.GI_CHANGED] = 1  # the app may reserve the node now (`reservations.py`)


@kernel_jit
def _claim_used(W, j, r0, r1):
    """FSSchedulerNode.allocateContainer: a container of (r0, r1) allocated to app `j` on
    the node of this allocation lowers its claim there; a claim of zero is dropped."""
    if W[24][S.GI_CLAIM_LIVE] == 0 or W[9][j, S.JI_CLAIMS] == 0:
        return
    nodei, clf, cli = W[41], W[43], W[44]
    n = _claim_node(W)
    prev = -1
    e = nodei[n, S.NI_CL_HEAD]
    while e >= 0:
        if cli[e, S.CL_APP] == j:
            clf[e, 0] = max(clf[e, 0] - r0, 0.0)
            clf[e, 1] = max(clf[e, 1] - r1, 0.0)
            if clf[e, 0] == 0.0 and clf[e, 1] == 0.0:
                _claim_unlink(W, n, prev, e)
            return
        prev = e
        e = cli[e, S.CL_NEXT]


@kernel_jit
def _claims_cleanup(W, n):
    """FSSchedulerNode.cleanupPreemptionList on node `n`: drop the claims of apps that
    finished or are no longer starved (`_keeps_claim`)."""
    nodei, cli = W[41], W[44]
    prev = -1
    e = nodei[n, S.NI_CL_HEAD]
    while e >= 0:
        nxt = cli[e, S.CL_NEXT]
        j = cli[e, S.CL_APP]
        if not _keeps_claim(W, j):
            _claim_unlink(W, n, prev, e)
        else:
            prev = e
        e = nxt


@kernel_jit
def _claimed_demand(W, n):
    """Whether an app with a claim on node `n` has runnable pending demand: the node's
    update offers it containers before anything else (`assignPreemptedContainers`), even
    while the node is reserved for another app."""
    ji, jf, cli = W[9], W[8], W[44]
    e = W[41][n, S.NI_CL_HEAD]
    while e >= 0:
        j = cli[e, S.CL_APP]
        if ji[j, S.JI_STATE] == 2 and (jf[j, S.JF_PEND] > 0.0 or jf[j, S.JF_PEND + 1] > 0.0):
            return True
        e = cli[e, S.CL_NEXT]
    return False


@kernel_jit
def _claims_sweep(W):
    """At the end of an event time with heartbeats: `_claims_cleanup` of every node that
    holds claims (listed as they get their first: the cleanups do not depend on each
    other's order), not a pass over every node."""
    n = W[24][S.GI_CLN_HEAD]
    while n >= 0:
        nxt = W[41][n, S.NI_CLN_NEXT]  # read first: a node losing its last claim leaves the list
        _claims_cleanup(W, n)
        n = nxt
