"""Livelock detection: a check whose state repeats an earlier one ends the run.

The pure-Python twin of ``whatif/predictor/kernel/livelock.py``: the same steps with Python
objects, on the `ReferenceEngine`'s state (a mixin of it; see ``loop.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from whatif.predictor.reference.events import _expired
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.state import (
    AM_ASK,
    AM_READY,
    CONTINUOUS,
    END,
    HANG,
    HEARTBEAT,
    INF,
    QUIET_CHECKS,
    REASK,
    RUNNING,
    SUCCEEDED,
)


class Livelock(EngineState):
    """Livelock detection (twin of ``kernel/livelock.py``)."""

    def _repeats(self, state: tuple[Any, ...]) -> bool:
        """Whether the state at this check equals, shifted in time, the state at an earlier
        check with no progress since (no end or AM-ready event, see `progress`):
        then the run only cycles and nothing ever finishes again. Brent's cycle finding:
        compare with one saved state, saved again after 1, 2, 4, ... checks."""
        if self.progress != self.seen_progress or self.seen_state is None:
            self.seen_progress: int = self.progress
            self.seen_state: tuple[Any, ...] | None = state
            self.seen_power, self.seen_steps = 1, 0
            return False
        self.seen_steps += 1
        if state == self.seen_state:
            return True
        if self.seen_steps == self.seen_power:
            self.seen_state = state
            self.seen_power *= 2
            self.seen_steps = 0
        return False

    def _v12_state(self, t: float) -> tuple[Any, ...]:
        """Everything a Hadoop 1/2 run's future depends on, with times relative to `t`."""
        p = self.p
        running = []
        for a in self.running:
            task = self.att_task[a]
            extra = -1.0
            if task >= 0 and self.att_outcome[a] == SUCCEEDED:
                s = int(p.task_stage[task])
                if p.stage_slowstart[s]:
                    done = self.stage_done_time[s - 1]
                    begin = self._run_start(int(p.task_job[task]), self.att_start[a])
                    part_a, part_b, _ = p.replay[p.replay_row(task)]
                    begin += part_a
                    extra = -2.0 if np.isnan(done) else max(0.0, done + part_b - begin)
            mark = self.att_mark[a] - t if self.att_mark[a] >= 0 else 1.0
            # without an end event (AMs, reduces waiting for maps) only the order matters
            start = self.att_start[a] - t if task >= 0 and extra != -2.0 else 0.0
            due = self.att_due[a] - t if self.att_due[a] < INF else 1.0
            running.append((task, start, self.att_outcome[a], extra, mark, self.att_node[a], due))
        timers = []
        v1 = self.s.hadoop_version == 1
        for leaf in self._leaves():
            for d in self.dims if v1 else [0]:
                for table, timeout in (
                    (self.q_last_min, self.q.min_timeout[leaf]),
                    (self.q_last_fair, self.q.fair_timeout[leaf]),
                ):
                    last = table[leaf, d]
                    if last == -INF or timeout == INF:
                        timers.append(INF if last == -INF else 1.0)  # not starved / never acts
                    else:
                        timers.append(-INF if _expired(t - last, timeout) else last - t)
        return (
            (
                tuple(running),
                tuple(self.att_task[a] for a in self.warned),
                tuple(self.stage_next.tolist()),
                tuple(self.stage_pending),
                tuple(self.stage_held),
                tuple(self.stage_ramp),
                tuple(self.stage_released),
                tuple(sorted(self.stage_asked)),
                tuple(tuple(r) for r in self.stage_retry),
                tuple(self.stage_front),
                tuple(self.reducing),
                tuple(timers),
                self.next_check_v12 - t,
                tuple(self.node_free.ravel().tolist()),
                tuple(h - t if h < INF else 1.0 for h in self.node_hb),
                self.next_pass - t if self.next_pass < INF else 1.0,  # the next continuous pass
                # each node's reservation (`reservations.py`), where reservations are on
                (tuple(self.res_app), tuple(self.res_stage)) if self.res_on else (),
                self._hang_timers(t),
            )
            + self._v1_state(t)
            + self._floc_state()
        )

    def _floc_state(self) -> tuple[Any, ...]:
        """The Fair Scheduler's delay scheduling: each stage's level and opportunities,
        capped at the cluster's nodes plus one (see ``kernel/livelock.py``)."""
        if not self.floc_on:
            return ()
        return (
            tuple(self.stage_floc_level),
            tuple(min(m, self.nn + 1) for m in self.stage_floc_opp),
        )

    def _hang_timers(self, t: float) -> tuple[float, ...]:
        """The AM's reduce preemption timers of each job with reduces waiting for maps, and
        its AM's next call (see the kernel's), in the order the kernel lists them."""
        out: list[float] = []
        for j in self.reducing:
            out += [float(j), self._am_call(j, t, False) - t if self._cycles(j) else 1.0]
            if not self._timed():
                continue
            ask = float(self.job_map_ask[j])
            nxt = float(self.job_hang_next[j])
            out.append(nxt - t if nxt > t else -INF)
            for delay, on in (
                (self.hang_delay, self.hang_delay >= 0.0),
                (self.headroom_delay, self.headroom_delay > 0.0),
            ):
                due = self._hang_due(j, ask, delay)
                out.append((due - t if due > t else -INF) if on else 1.0)
        return tuple(out)

    def _v1_state(self, t: float) -> tuple[Any, ...]:
        """Hadoop 1's own state (see ``kernel/livelock.py``): with slots, each job's
        task-cleanup attempts to hand out and the free slots; with delay scheduling, each
        job's locality level and wait (capped at two delays), the jobs skipped at the last
        assignTasks call, and that call's time relative to `t`."""
        state: tuple[Any, ...] = ()
        if self.s.hadoop_version == 1 and len(self.dims) == 2:
            state += (tuple(tuple(int(x) for x in tc) for tc in self.job_tc),)
            state += (float(self.free[0]), float(self.free[1]))
        if self.loc_on:
            cap = 2.0 * self.loc_delay
            state += (
                tuple(self.loc_level),
                tuple(min(float(w), cap) for w in self.loc_wait),
                tuple(self.loc_skipped),
                self.loc_last - t if self.loc_last > -INF else 1.0,
            )
        return state

    def _cycling_v3(self, t: float) -> bool:
        """Hadoop 3 livelock: at an update() check once every job is submitted, whether the
        state repeats an earlier check's with nothing finished since (see `_repeats`).
        The search (and building states) starts only after QUIET_CHECKS checks with no
        progress: in a busy run something ends every few checks, and a cycle found later
        is still exact."""
        if self.next_submit < len(self.p.job_submit):
            return False
        if self.progress != self.seen_progress:
            self.seen_progress, self.seen_state, self.quiet = self.progress, None, 0
            return False
        self.quiet += 1
        return self.quiet >= QUIET_CHECKS and self._repeats(self._v3_state(t))

    def _v3_state(self, t: float) -> tuple[Any, ...]:
        """Everything a Hadoop 3 run's future depends on at an update() check, with times
        relative to `t`: the Hadoop 1/2 state (running attempts, stages, min-share timers),
        each runnable app's fair-share timer, re-check time and last starvation amounts,
        each node's claims, and the pending events in (time, seq) order, since even one for
        an attempt that has ended makes an iteration that schedules a check."""
        jobs = []
        for leaf in self._leaves():
            timeout = float(self.q.fair_timeout[leaf])
            for j in self.leaf_apps[leaf]:
                last, nxt = self.job_last_fair[j], self.job_next_check[j]
                if last == -INF or timeout == INF:
                    fair = INF if last == -INF else 1.0  # not starved / never acts
                else:
                    fair = -INF if t - last >= timeout else last - t
                jobs.append(
                    (
                        j,
                        fair,
                        -INF if nxt <= t else nxt - t,
                        tuple(self.job_fair_starv[j].tolist()),
                        tuple(self.job_min_starv[j].tolist()),
                    )
                )
        events = []
        for time, seq, kind, ident in sorted(self.heap):
            what = -1  # an event that does nothing when it comes (its attempt has ended)
            if kind == REASK:  # ident: the task
                what = ident if self.limbo.get(ident) == seq else -1
            elif kind in (AM_READY, AM_ASK):  # ident: the AM's attempt
                j = -1 - self.att_task[ident]
                live = self.job_am_state[j] == (2 if kind == AM_READY else 3)
                what = j if self.job_am_attempt[j] == ident and live else -1
            elif kind == HANG:
                continue  # `_hang_timers` stand for it
            elif kind in (HEARTBEAT, CONTINUOUS):
                what = ident
            elif self.att_state[ident] == RUNNING and (kind == END or self.att_mark[ident] == time):
                what = self.att_task[ident]
            events.append((time - t, kind, what))
        claims = tuple(  # capped at the cluster's size (see ``kernel/livelock.py``)
            tuple((j, *np.minimum(c, self.cluster).tolist()) for j, c in node.items())
            for node in self.claims
        )
        state = self._v12_state(t) + (tuple(jobs), claims, tuple(events))
        return state if self.q.capacity is None else state + self._cs_state(t)

    def _cs_state(self, t: float) -> tuple[Any, ...]:
        """The Capacity Scheduler's own state at a monitor round (see the kernel's): each
        running attempt's mark, in rounds before this one (or none); each stage's missed
        opportunities, capped at the node count + 1; each job's state and AM state; and the
        next round relative to `t`."""
        c = self.q.capacity
        assert c is not None
        interval_s = c.monitor.monitoring_interval_ms / 1000.0
        k = math.floor(t / interval_s + 0.5)
        marks = tuple(k - self.cs_marks[a] if a in self.cs_marks else -1 for a in self.running)
        return (
            marks,
            tuple(min(m, self.nn + 1) for m in self.stage_missed),
            tuple(int(x) for x in self.job_state),
            tuple(int(x) for x in self.job_am_state),
            self.next_check - t if self.next_check < INF else 1.0,
        )
