"""Assignment: containers (or slots) handed to apps, on the whole cluster or on one
heartbeating node.

The pure-Python twin of ``whatif/predictor/kernel/allocation.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from whatif.predictor.pack import POLICY_CODES, RETRY_FIRST
from whatif.predictor.reference.protocol import EngineState

if TYPE_CHECKING:
    from whatif.predictor.reference.protocol import Key


class Allocation(EngineState):
    """Assigning containers (twin of ``kernel/allocation.py``)."""

    def _load_ok(self, n: int, d: int) -> bool:
        """Hadoop 1 CapBasedLoadManager: a tracker runs at most
        ceil(slots * min(1, runnable tasks / cluster slots)) tasks of a type."""
        total = self.cluster[d]
        if total <= 0:
            return False
        runnable = self.q_usage[0, d] + self.q_pend_run[0, d]
        cap = math.ceil(self.node_cap[n, d] * min(1.0, runnable / total))
        result: bool = self.node_cap[n, d] - self.node_free[n, d] < cap
        return result

    def _node_allocate(self, n: int) -> None:
        """Assign containers on node `n`'s heartbeat: Hadoop 1 JobTracker.heartbeat on a slot
        cluster (a setup or cleanup task, else FairScheduler.assignTasks), else
        FairScheduler.attemptScheduling."""
        s = self.s
        self.cur_node = n
        count = 0
        if self.p.slot_mode and not self._node_room(n):
            pass  # a full tracker does not ask for tasks (TaskTracker's askForNewTask)
        elif self.p.slot_mode and self._assign_jobtracker():
            pass  # the tracker gets its one JobTracker task; the scheduler is not asked
        elif self.p.slot_mode:
            if self.loc_on:
                self._loc_call()
            multi = s.assign_multiple
            caps = (s.assign_multiple_maps, s.assign_multiple_reduces) if multi else (1, 1)
            assigned, rejected = [0, 0], [False, False]
            while True:
                for d in (0, 1):
                    if not rejected[d] and (
                        assigned[d] == caps[d]
                        or self.q_pend_run[0, d] <= 0
                        or not self._load_ok(n, d)
                    ):
                        rejected[d] = True
                if (rejected[0] and rejected[1]) or (not multi and count > 0):
                    break
                if rejected[0] or rejected[1]:
                    d = 1 if rejected[0] else 0
                else:
                    used = self.node_cap[n] - self.node_free[n]
                    d = 0 if used[0] <= used[1] else 1
                if self._assign_one(d):
                    assigned[d] += 1
                    count += 1
                else:
                    rejected[d] = True
            if self.loc_on:
                self._loc_call_end()
        else:
            self._assign_claimed(n)
            if self.res_on and self.res_app[n] >= 0 and self._res_turn(n):
                self.cur_node = -1
                return
            # a node woken to be reserved (`heartbeats._wake_parked_res`) that is not
            unreserved_full = self.res_on and self.res_app[n] < 0 and not self._has_room(0)
            start = self.node_free[n].copy()
            half = np.floor(start * 0.5)
            dynamic = s.dynamic_max_assign and self.v3
            cs = self.q.capacity
            offswitch = 0
            # with reservations a node without room may still be reserved; with the Fair
            # Scheduler's delay scheduling a pass over a full node counts opportunities
            while (self._has_room(0) or self.res_on or self.floc_on) and self.q_pend_run[0, 0] > 0:
                if not self._assign_one(0):
                    break
                count += 1
                if not s.assign_multiple:
                    break
                if cs is not None and self.cs_type == 2:
                    offswitch += 1  # CapacityScheduler.canAllocateMore
                    if offswitch >= cs.offswitch:
                        break
                if dynamic:
                    used = start - self.node_free[n]
                    if not (used[0] <= half[0] and used[1] <= half[1]):
                        break
                elif s.max_assign > 0 and count >= s.max_assign:
                    break
            if unreserved_full and self.res_app[n] < 0:
                self.changed = True
        self.cur_node = -1

    def _assign_claimed(self, n: int) -> None:
        """FairScheduler.assignPreemptedContainers on node `n` (row 0: the cluster): each
        app with a claim, in order, takes containers while its claim lasts."""
        self._claims_cleanup(n)
        claims = self.claims[n]
        for j in list(claims):
            leaf = int(self.p.job_queue[j])
            while j in claims and self._try_app(j, leaf, 0):
                pass

    def _allocate(self) -> None:
        """Assign containers until nothing more fits (one pass per slot pool on Hadoop 1);
        claims on the cluster (row 0) come first, then Hadoop 1's JobTracker tasks."""
        self._assign_claimed(0)
        while self._assign_jobtracker():
            pass
        for d in self.dims:
            while self._has_room(d) and self.q_pend_run[0, d] > 0:
                if not self._assign_one(d):
                    break

    def _has_room(self, d: int) -> bool:
        free = self._avail()
        if self.p.slot_mode:
            slot: bool = free[d] >= 1.0
            return slot
        room: bool = free[0] >= self.p.min_request[0] and free[1] >= self.p.min_request[1]
        return room

    def _best(
        self, candidates: list[int], key: Callable[[int], Key], policy: int, dim: int
    ) -> int | None:
        """First-best by linear scan: a candidate replaces the best only if it compares lower."""
        best: int | None = None
        best_key: Key = ()
        for c in candidates:
            k = key(c)
            if best is None or self._compare(policy, dim, k, best_key) < 0:
                best, best_key = c, k
        return best

    def _assign_one(self, d: int) -> bool:
        if self.q.capacity is not None:
            return self._cs_assign_in(0, d) == 1
        return self._assign_in(0, d) == 1

    def _cs_assign_in(self, q: int, d: int) -> int:
        """The Capacity Scheduler's pass below `q` (kernel `_assign_one`): 1 allocated,
        0 nothing (the parent's next child is offered), 2 the pass ends."""
        tried: set[int] = set()
        while True:
            c = self._cs_best_child(q, d, tried)
            if c is None:
                return 0
            r = self._cs_assign_leaf(c, d) if self.q.is_leaf[c] else self._cs_assign_in(c, d)
            if r != 0:
                return r
            tried.add(c)

    def _cs_assign_leaf(self, leaf: int, d: int) -> int:
        """LeafQueue.assignContainers (kernel `_cs_assign_leaf`)."""
        headroom = self._cs_headroom(leaf)
        n = self.cur_node
        total = self.node_cap[n, 0] if n >= 0 else self.cluster[0]
        for j in self._cs_apps_in_order(leaf, d):
            if not self._cs_user_ok(j, leaf):
                continue
            s = -1
            if self.job_am_state[j] == 1:
                if not self._cs_am_ok(j, leaf):
                    continue
                r0 = float(self.p.job_am[j, 0])
            else:
                s = self._next_stage(j, d)
                if s < 0:
                    continue
                r0 = float(self.p.task_req[self._head(s), 0])
            if r0 > headroom:
                return 0
            task, kind = -1, 2
            if s >= 0 and n >= 0 and self.stage_located[s]:
                task, kind = self._cs_loc_pick(s, n)
                if task < 0:
                    continue  # APP_SKIPPED: the node is not local enough yet
                r0 = float(self.p.task_req[task, 0])
            if r0 > total:
                continue
            if r0 > self._avail()[0]:
                if task >= 0:
                    self._cs_loc_done(s, kind)
                return 2
            if task >= 0:
                return 1 if self._cs_try_located(j, leaf, s, task, kind) else 0
            self.cs_type = 2
            return 1 if self._try_app(j, leaf, d) else 0
        return 0

    def _assign_in(self, q: int, d: int) -> int:
        """1 a container was assigned below `q`, 0 none, 2 the node was reserved."""
        tried: set[int] = set()
        while True:
            cands = [
                c
                for c in self._children(q)
                if c not in tried
                and self.q_pend_run[c, d] > 0
                and (self.q_usage[c] <= self.q.max_share[c]).all()
            ]
            best = self._best(cands, self._queue_key, int(self.q.policy[q]), d)
            if best is None:
                return 0
            if self.q.is_leaf[best]:
                result = self._assign_leaf(best, d)
            else:
                result = self._assign_in(best, d)
            if result:
                return result
            tried.add(best)

    def _assign_leaf(self, leaf: int, d: int) -> int:
        """1 an app took the container, 0 none did, 2 one reserved the node (with
        reservations on, an app whose request fits its queues and the node's capacity but
        not its unallocated resources is offered the reservation)."""
        tried: set[int] = set()
        policy = int(self.q.policy[leaf])
        n = self.cur_node
        while True:
            cands = [j for j in self.leaf_apps[leaf] if j not in tried and self.job_pend[j, d] > 0]
            j = self._best(cands, self._app_key, policy, d)
            if j is None:
                return 0
            tried.add(j)
            if not self.res_on:
                if self._try_app(j, leaf, d):
                    return 1
                continue
            s, req = self._res_head(j)
            if s < -1 or (req > self.node_cap[n]).any() or not self._fits_max(leaf, req):
                continue
            if self.floc_on and s >= 0 and self.stage_located[s]:
                outcome = self._fl_offer(j, leaf, s, n)
                if outcome:
                    return outcome
            elif (req <= self.node_free[n]).all():
                if self._try_app(j, leaf, d):
                    return 1
            elif self._res_offer(j, leaf, s, req, 2):
                return 2

    def _res_offer(self, j: int, leaf: int, s: int, req: np.ndarray, kind: int) -> bool:
        """App `j`'s request, for a container of type `kind`, does not fit the node: it
        reserves it if it may."""
        n = self.cur_node
        if s == -1 and not self._am_fits(leaf, req):
            return False
        if j in self.claims[n] or not self._res_may(j, leaf, req):
            return False
        if not self._res_room(j, kind, n):
            return False
        self._reserve(n, j, s, req)
        return True

    def _res_turn(self, n: int) -> bool:
        """FSAppAttempt.assignReservedContainer (kernel `_res_turn`)."""
        if not self._res_valid(n):
            self._res_drop(n)
            return False
        if self._booked_fits(n):
            j, s = self.res_app[n], self.res_stage[n]
            leaf = int(self.p.job_queue[j])
            if self._try_app(j, leaf, 0) if s < 0 else self._try_stage(j, leaf, s):
                self._res_drop(n)
        return True

    def _assign_jobtracker(self) -> bool:
        """Hadoop 1 getSetupAndCleanupTasks: one setup, cleanup or task-cleanup attempt on
        the node heartbeating (or the cluster), in a free map slot, else a free reduce slot."""
        if not self.jt_jobs:
            return False
        for d in (0, 1):
            if self._avail()[d] < 1.0:
                continue
            j, s = self._jt_pick(d)
            if j < 0:
                continue
            if s < 0:
                self._start_task_cleanup(j, d)
            else:
                task = self._take_head(s)
                self.stage_slot[s] = d
                self._start_attempt(j, task, np.array([1.0 - d, float(d)]))
            self._jt_refresh(j)
            return True
        return False

    def _am_fits(self, leaf: int, am: np.ndarray) -> bool:
        """FSLeafQueue.canRunAppAM: Hadoop 3 rounds the cap up and compares both
        resources; Hadoop 2 rounds it down and compares memory alone but under drf."""
        share = float(self.q.max_am_share[leaf])
        if abs(share + 1.0) < 1e-4:
            return True
        cap = self.q_fair[leaf].copy()
        for d in (0, 1):
            if cap[d] == 0:
                cap[d] = min(self.free[d], self.q.max_share[leaf, d])
            cap[d] = math.ceil(cap[d] * share) if self.v3 else math.floor(cap[d] * share)
        compared = 2 if self.v3 or self.q.policy[leaf] == POLICY_CODES["drf"] else 1
        return bool((self.q_am_usage[leaf] + am <= cap)[:compared].all())

    def _try_app(self, j: int, leaf: int, d: int) -> bool:
        p = self.p
        if self.job_am_state[j] == 1:
            am = p.job_am[j]
            if not self._fits(leaf, am):
                return False
            if self.q.capacity is None and not self._am_fits(leaf, am):
                return False  # the Capacity Scheduler's is checked in `_cs_assign_leaf`
            self._start_attempt(j, -1 - j, am)
            self._claim_used(j, am)
            return True
        s = self._next_stage(j, d)
        if s < 0:
            return False
        return self._try_stage(j, leaf, s)

    def _run_task(self, j: int, leaf: int, s: int, task: int) -> bool:
        """Start `task` of stage `s` (any of its unassigned tasks) if it fits the queues
        (the kernel's `_run_task`)."""
        req = self.p.task_req[task]
        if not self._fits(leaf, req):
            return False
        self._take_task(s, task)
        self._start_attempt(j, task, req)
        self._maps_assigned(j, s)
        return True

    def _try_stage(self, j: int, leaf: int, s: int) -> bool:
        """App `j` takes the next task of its stage `s` if it fits (`_try_app`)."""
        p = self.p
        n = self.cur_node
        if self.stage_located[s] and n >= 0:
            if self.floc_on:
                return self._fl_try_located(j, leaf, s, n)
            return self._try_located(j, leaf, s, n)
        if p.stage_retry_rule[s] == RETRY_FIRST and n >= 0 and self.stage_front[s] > 0:
            task = self._tracker_task(s, n)  # Hadoop 1: not a task that failed on this tracker
            return task >= 0 and self._run_task(j, leaf, s, task)
        task = self._head(s)
        req = p.task_req[task]
        if not self._fits(leaf, req):
            return False
        self._take_head(s)
        self._start_attempt(j, task, req)
        self._claim_used(j, req)
        self._maps_assigned(j, s)
        return True
