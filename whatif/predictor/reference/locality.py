"""Hadoop 1 delay scheduling: maps placed by their split locations.

The pure-Python twin of ``whatif/predictor/kernel/locality.py`` (which describes the
rules): the same steps with Python objects, on the `ReferenceEngine`'s state (a mixin of
it; see ``loop.py``). A group's first unassigned task is found by scanning it (the kernel
keeps a cursor).
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.pack import RETRY_FIRST, Packed
from whatif.predictor.reference.events import _expired
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.state import INF


class Locality(EngineState):
    """Delay scheduling's state and steps (twin of ``kernel/locality.py``)."""

    def init_locality(self, p: Packed) -> None:
        """Groups by (stage, key), task flags, and each job's level, wait and visits."""
        nj, nt, ns = len(p.job_submit), len(p.task_dur), len(p.stage_task_start)
        loc = p.locality
        self.loc_on = loc is not None
        self.loc_groups: dict[tuple[int, int], list[int]] = {}
        self.stage_located = [False] * ns
        self.task_located = [False] * nt
        self.stage_nonloc = [0] * ns
        self.node_rack: list[int] = []
        self.loc_delay = 0.0
        if loc is not None:
            for s in range(ns):
                for g in range(int(loc.stage_groups[s, 0]), int(loc.stage_groups[s, 1])):
                    key, lo, hi = (int(x) for x in loc.groups[g])
                    self.loc_groups[(s, key)] = [int(t) for t in loc.tasks[lo:hi]]
            self.stage_located = [bool(x) for x in loc.stage_located]
            self.task_located = [bool(x) for x in loc.task_located]
            for s in range(ns):
                if self.stage_located[s]:
                    tasks = range(int(p.stage_task_start[s]), int(p.stage_task_end[s]))
                    self.stage_nonloc[s] = sum(not self.task_located[t] for t in tasks)
            self.node_rack = [int(r) for r in loc.node_rack]
            self.loc_delay = loc.delay_s
        self.task_taken = np.zeros(nt, dtype=bool)
        self.loc_level = [0] * nj
        self.loc_wait = np.zeros(nj)
        self.loc_visited: dict[int, None] = {}
        self.loc_launched: set[int] = set()
        self.loc_skipped: list[int] = []
        self.loc_last = -INF

    def _loc_first(self, s: int, key: int) -> int:
        """The group's lowest unassigned task (-1: none, or no group)."""
        for task in self.loc_groups.get((s, key), []):
            if not self.task_taken[task]:
                return task
        return -1

    def _loc_allowed(self, j: int, s: int) -> int:
        """FairScheduler.getAllowedLocalityLevel: 0 node, 1 rack, 2 any."""
        if self.stage_nonloc[s] > 0:
            return 2
        leaf = int(self.p.job_queue[j])
        if self.s.preemption and (
            (
                self.q_last_min[leaf, 0] > -INF
                and _expired(self.now - self.q_last_min[leaf, 0], self.q.min_timeout[leaf])
            )
            or (
                self.q_last_fair[leaf, 0] > -INF
                and _expired(self.now - self.q_last_fair[leaf, 0], self.q.fair_timeout[leaf])
            )
        ):
            return 2
        level, waited, delay = self.loc_level[j], self.loc_wait[j], self.loc_delay
        if level == 0:
            return 2 if waited >= 2.0 * delay else (1 if waited >= delay else 0)
        if level == 1:
            return 2 if waited >= delay else 1
        return 2

    def _loc_pick(self, j: int, s: int, n: int) -> tuple[int, int]:
        """The map job `j` takes on tracker `n`, and its level ((-1, -1): none allowed)."""
        self.loc_visited[j] = None
        allowed = self._loc_allowed(j, s)
        task = self._front_task(s, n)  # failedMaps first, whatever the level
        if task >= 0:
            return task, self._loc_level(s, task, n)
        task = self._loc_first(s, n)
        if task >= 0:
            return task, 0
        if allowed == 0:
            return -1, -1
        task = self._loc_first(s, self.nn + self.node_rack[n])
        if task >= 0:
            return task, 1
        if allowed == 1:
            return -1, -1
        if self.stage_next[s] < self.p.stage_task_end[s]:
            return int(self.stage_next[s]), 2
        if self.p.stage_retry_rule[s] == RETRY_FIRST:  # its failed maps failed here
            return -1, -1
        return self.stage_retry[s][0], 2

    def _loc_level(self, s: int, task: int, n: int) -> int:
        """The level of located stage `s`'s `task` on tracker `n`: 0 node, 1 rack, 2 any."""
        if task in self.loc_groups.get((s, n), []):
            return 0
        if task in self.loc_groups.get((s, self.nn + self.node_rack[n]), []):
            return 1
        return 2

    def _take_task(self, s: int, task: int) -> None:
        """Take `task` of stage `s` off its unassigned tasks, wherever it is (a located
        stage's fresh ones out of order too)."""
        located = bool(self.stage_located[s])
        queued = located and bool(self.task_taken[task])  # Hadoop 1's re-queued
        if located and not queued:
            self.task_taken[task] = True
            if not self.task_located[task]:
                self.stage_nonloc[s] -= 1
        end = int(self.p.stage_task_end[s])
        if task == self.stage_next[s] and not queued:
            nxt = task + 1
            while located and nxt < end and self.task_taken[nxt]:
                nxt += 1
            self.stage_next[s] = nxt
        elif task < self.stage_next[s] or queued:
            if self.stage_retry[s].index(task) < self.stage_front[s]:
                self.stage_front[s] -= 1
            self.stage_retry[s].remove(task)

    def _give_back(self, s: int, task: int) -> bool:
        """`task` is unassigned again: True if it goes on the retry list (Hadoop 1: always,
        kept off the location lists; see the kernel's)."""
        if self.p.stage_retry_rule[s] == RETRY_FIRST:
            return True
        self.task_taken[task] = False
        if not self.task_located[task]:
            self.stage_nonloc[s] += 1
        return bool(task < self.stage_next[s])

    def _try_located(self, j: int, leaf: int, s: int, n: int) -> bool:
        """`_try_app` for a located map stage on tracker `n`."""
        task, level = self._loc_pick(j, s, n)
        if task < 0 or not self._run_task(j, leaf, s, task):
            return False
        self.loc_level[j] = level
        self.loc_wait[j] = 0.0
        self.loc_launched.add(j)
        return True

    def _loc_call(self) -> None:
        """An assignTasks call begins: the jobs skipped at the last one waited since it."""
        waited = 0.0 if self.loc_last == -INF else self.now - self.loc_last
        self.loc_last = self.now
        for j in self.loc_skipped:
            self.loc_wait[j] += waited
        self.loc_skipped = []
        self.loc_visited = {}
        self.loc_launched = set()

    def _loc_call_end(self) -> None:
        """An assignTasks call ends: jobs visited for a map that launched none are skipped."""
        self.loc_skipped = [j for j in self.loc_visited if j not in self.loc_launched]
        if self.loc_skipped:
            self.changed = True
