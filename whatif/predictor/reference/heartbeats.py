"""Node heartbeats: when each node's next heartbeat is scheduled, and when a finished
attempt is reported.

The pure-Python twin of ``whatif/predictor/kernel/heartbeats.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

from whatif.predictor.nodes import next_heartbeat
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.state import END, HEARTBEAT, INF


class Heartbeats(EngineState):
    """Node heartbeats (twin of ``kernel/heartbeats.py``)."""

    def _beat(self, n: int, beating: dict[int, None]) -> None:
        """Node `n` heartbeats now: it is offered containers after this time's events."""
        beating[n] = None
        self.touched[n] = None

    def _node_room(self, n: int) -> bool:
        """Whether node `n` could take the smallest request (a slot of either pool)."""
        free = self.node_free[n]
        if self.p.slot_mode:
            return bool(free[0] >= 1.0 or free[1] >= 1.0)
        return bool(free[0] >= self.p.min_request[0] and free[1] >= self.p.min_request[1])

    def _node_wants(self, n: int) -> bool:
        """Whether node `n` has room for some runnable pending demand (or, Hadoop 1, a free
        slot for a JobTracker task, or any free slot while a job waits for a local map)."""
        free = self.node_free[n]
        if self.p.slot_mode:
            return any(free[d] >= 1.0 and self.q_pend_run[0, d] > 0 for d in (0, 1)) or (
                bool(self.jt_jobs or self.loc_skipped) and self._node_room(n)
            )
        if self.floc_on and self.q_pend_run[0, 0] > 0 and self.res_app[n] < 0:
            return True  # room or not, its heartbeat may count opportunities
        if self.res_on:
            return self._res_wants(n)
        return self._node_room(n) and bool(self.q_pend_run[0, 0] > 0)

    def _park(self, n: int, parked: bool) -> None:
        pos = self.park_pos[n]
        if parked and pos < 0:
            self.park_pos[n] = len(self.parked)
            self.parked.append(n)
        elif not parked and pos >= 0:
            last = self.parked.pop()
            if last != n:
                self.parked[pos] = last
                self.park_pos[last] = pos
            self.park_pos[n] = -1

    def _settle(self, n: int, t: float, wake: bool) -> None:
        """Node `n` without a heartbeat scheduled: schedule its next one if it may assign
        (`wake`: something changed since it last found nothing) and has room for pending
        demand; else park it while it has room (a node without room waits for a release)."""
        if self.node_hb[n] != INF:
            return
        if wake and self._node_wants(n):
            self._schedule_beat(n, t)
        else:
            # with reservations on a node without room may still be reserved; with delay
            # scheduling its heartbeats may count opportunities
            self._park(n, self._node_room(n) or self.res_on or self.floc_on)

    def _schedule_beat(self, n: int, t: float) -> None:
        """Node `n`'s next heartbeat (strictly after `t`) is scheduled; it is not parked."""
        self.node_hb[n] = next_heartbeat(n, self.nn, self.p.heartbeat_interval_s, t)
        self._push(self.node_hb[n], HEARTBEAT, n)
        self._park(n, False)

    def _wake_parked_res(self, t: float) -> None:
        """`_wake`'s pass over the parked nodes with reservations on (kernel
        `_wake_parked_res`): of the nodes without room or reservation, only as many as
        apps could still reserve get their next heartbeat, the earliest."""
        cand: list[tuple[float, int, int]] = []
        i = 0
        while i < len(self.parked):
            n = self.parked[i]
            if self.res_app[n] < 0 and not self._node_room(n) and self.q_pend_run[0, 0] > 0:
                hb = next_heartbeat(n, self.nn, self.p.heartbeat_interval_s, t)
                cand.append((hb, len(cand), n))
                i += 1
                continue
            before = len(self.parked)
            self._settle(n, t, True)
            if len(self.parked) == before:
                i += 1
        if not cand:
            return
        k = len(cand) if self.floc_on else self._res_open()  # delay scheduling: every one
        for _, _, n in sorted(cand)[: max(k, 0)]:
            self._schedule_beat(n, t)

    def _catch_up(self, t: float, beating: dict[int, None]) -> None:
        """Before the first allocation at `t`: a node without a heartbeat scheduled whose
        heartbeat grid has `t` heartbeats now if it has room for pending demand and was
        freed now or anything changed (what it would have seen had its heartbeat at `t`
        been scheduled, as the events at `t` come before the heartbeats' assignments)."""
        interval = self.p.heartbeat_interval_s

        def beats_now(n: int) -> bool:
            if (
                n not in beating
                and self.node_hb[n] == INF
                and next_heartbeat(n, self.nn, interval, t, at=True) == t
                and self._node_wants(n)
            ):
                self._beat(n, beating)
                self._park(n, False)
                return True
            return False

        self._res_scan()
        for n in list(self.touched):
            beats_now(n)
        if self.changed:
            i = 0
            while i < len(self.parked):
                if not beats_now(self.parked[i]):
                    i += 1

    def _wake(self, t: float) -> None:
        """After an event time: the nodes that heartbeated or had resources freed, and, if
        anything an allocation depends on changed, every parked node, get their next
        heartbeat scheduled when they may assign something. A node's heartbeats in
        between would find what its last one found, nothing, so they are skipped."""
        if self.changed:
            self._res_scan()
        for n in self.touched:
            self._settle(n, t, self.changed)
        demand = self.q_pend_run[0, 0] > 0 or (
            self.p.slot_mode
            and (self.q_pend_run[0, 1] > 0 or bool(self.jt_jobs) or bool(self.loc_skipped))
        )
        if self.changed and self.res_on:
            # with or without demand: a reserved node whose reservation is no longer valid
            # drops it at its next heartbeat (`_res_wants`), which is not to be skipped
            self._wake_parked_res(t)
        elif self.changed and demand:
            i = 0
            while i < len(self.parked):
                before = len(self.parked)
                self._settle(self.parked[i], t, True)
                if len(self.parked) == before:
                    i += 1
        self.changed: bool = False
        self.touched: dict[int, None] = {}

    def _push_end(self, a: int, time: float) -> None:
        """The end event of attempt `a`, which ends at `time`: with heartbeats its node
        reports it (and frees its resources) at its next heartbeat."""
        n = self.att_node[a]
        if n >= 0:
            self.att_end[a] = time
            time = next_heartbeat(n, self.nn, self.p.heartbeat_interval_s, time)
            self.att_due[a] = time
        self._push(time, END, a)
