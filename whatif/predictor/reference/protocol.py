"""The reference engine's state and steps as one type, for the type checker only.

`ReferenceEngine` (``loop.py``) is assembled from mixins, one per concept, that read and
write the same state and call one another's steps. Each mixin names `EngineState` as its
base when type-checked (at run time the base is `object`, so nothing changes there): mypy
then checks every mixin against the attributes `ReferenceEngine` creates and the steps
the other mixins define. A step's signature here must match its definition (mypy checks
that too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from whatif.predictor.capacity import PackedCapacity
from whatif.predictor.pack import Packed, PackedQueues
from whatif.predictor.settings import SchedulerSettings

#: A queue's or an app's sort key: (usage, demand, min_share, weight, start, rank).
Key = tuple[Any, ...]


class EngineState(Protocol):
    """The state `ReferenceEngine.__init__` and `set_queues` create, and every step."""

    # the inputs and the clock
    p: Packed
    s: SchedulerSettings
    q: PackedQueues
    now: float
    v3: bool
    dims: list[int]
    cluster: np.ndarray
    free: np.ndarray
    # the event heap and the loop
    heap: list[tuple[float, int, int, int]]
    progress: int
    seq: int
    next_submit: int
    next_check: float
    next_check_v12: float
    last_time: float
    iteration: int
    changed: bool
    # jobs
    job_state: list[int]
    job_usage: np.ndarray
    job_pend: np.ndarray
    job_am_state: list[int]
    job_am_attempt: list[int]
    job_stages_done: list[int]
    job_finish: np.ndarray
    job_fair: np.ndarray
    job_last_fair: np.ndarray
    job_next_check: np.ndarray
    job_fair_starv: np.ndarray
    job_min_starv: np.ndarray
    job_tbp: np.ndarray
    user_running: list[int]
    waiting: list[int]
    # stages and tasks
    stage_released: list[bool]
    stage_next: np.ndarray
    stage_pending: list[int]
    stage_done: list[int]
    stage_done_time: np.ndarray
    stage_retry: list[list[int]]
    stage_waiting: list[list[int]]
    stage_held: list[bool]
    reducing: list[int]
    stage_slot: list[int]
    job_am_t0: np.ndarray
    stage_asked: set[int]
    asking: set[int]
    continuous: bool
    next_pass: float
    reported: set[int]
    jt_jobs: dict[int, None]
    job_tc: list[list[int]]
    tc_on: bool
    task_failures: list[int]
    # Hadoop 1 delay scheduling (`locality.py`)
    loc_on: bool
    loc_groups: dict[tuple[int, int], list[int]]
    stage_located: list[bool]
    task_located: list[bool]
    stage_nonloc: list[int]
    node_rack: list[int]
    loc_delay: float
    task_taken: np.ndarray
    loc_level: list[int]
    loc_wait: np.ndarray
    loc_visited: dict[int, None]
    loc_launched: set[int]
    loc_skipped: list[int]
    loc_last: float
    # attempts
    att_task: list[int]
    att_start: list[float]
    att_finish: list[float]
    att_state: list[int]
    att_preempted: list[bool]
    att_outcome: list[int]
    att_mark: list[float]
    att_node: list[int]
    att_end: list[float]
    att_due: list[float]
    running: dict[int, None]
    warned: list[int]
    # the Capacity Scheduler's preemption monitor: marks (attempt -> round of the mark),
    # and the time of its last round
    cs_marks: dict[int, int]
    cs_last_round: float
    # nodes
    nn: int
    hb: bool
    node_cap: np.ndarray
    node_free: np.ndarray
    node_hb: list[float]
    parked: list[int]
    park_pos: list[int]
    cur_node: int
    touched: dict[int, None]
    claims: list[dict[int, np.ndarray]]
    # queues
    q_usage: np.ndarray
    q_pend_all: np.ndarray
    q_pend_run: np.ndarray
    q_runnable: list[int]
    q_am_usage: np.ndarray
    q_fair: np.ndarray
    q_last_min: np.ndarray
    q_last_fair: np.ndarray
    leaf_apps: list[list[int]]
    leaf_dirty: list[bool]
    shares_dirty: bool
    # livelock detection
    seen_progress: int
    seen_state: tuple[Any, ...] | None
    seen_power: int
    seen_steps: int
    quiet: int
    livelocked: bool

    # the steps (each defined in the mixin of its concept, or in loop.py)

    def _ancestors(self, q: int) -> Iterator[int]: ...

    def _up(self, table: np.ndarray, leaf: int, amount: np.ndarray | float) -> None: ...

    def _count_runnable(self, leaf: int, delta: int) -> None: ...

    def _children(self, q: int) -> list[int]: ...

    def _demand(self, q: int) -> np.ndarray: ...

    def _avail(self) -> np.ndarray: ...

    def _fits(self, leaf: int, req: np.ndarray) -> bool: ...

    def _push(self, time: float, kind: int, ident: int) -> None: ...

    def _beat(self, n: int, beating: dict[int, None]) -> None: ...

    def _node_room(self, n: int) -> bool: ...

    def _node_wants(self, n: int) -> bool: ...

    def _park(self, n: int, parked: bool) -> None: ...

    def _settle(self, n: int, t: float, wake: bool) -> None: ...

    def _catch_up(self, t: float, beating: dict[int, None]) -> None: ...

    def _wake(self, t: float) -> None: ...

    def _push_end(self, a: int, time: float) -> None: ...

    def _compute_shares(self) -> None: ...

    def _app_weight(self, j: int) -> float: ...

    def _app_shares(self, leaf: int) -> None: ...

    def _compare(self, policy: int, dim: int, a: Key, b: Key) -> int: ...

    def _compare_fair(
        self,
        d: int,
        ua: np.ndarray,
        da: np.ndarray,
        ma: np.ndarray,
        wa: float,
        ub: np.ndarray,
        db: np.ndarray,
        mb: np.ndarray,
        wb: float,
    ) -> int: ...

    def _compare_drf(
        self, ua: np.ndarray, ma: np.ndarray, wa: float, ub: np.ndarray, mb: np.ndarray, wb: float
    ) -> int: ...

    def _queue_key(self, q: int, usage_less: np.ndarray | None = None) -> Key: ...

    def _app_key(self, j: int, usage_less: bool = False) -> Key: ...

    def _load_ok(self, n: int, d: int) -> bool: ...

    def _node_allocate(self, n: int) -> None: ...

    def _assign_claimed(self, n: int) -> None: ...

    def _allocate(self) -> None: ...

    def _has_room(self, d: int) -> bool: ...

    def _best(
        self, candidates: list[int], key: Callable[[int], Key], policy: int, dim: int
    ) -> int | None: ...

    def _assign_one(self, d: int) -> bool: ...

    def _assign_in(self, q: int, d: int) -> bool: ...

    def _assign_leaf(self, leaf: int, d: int) -> bool: ...

    def _cs_assign_in(self, q: int, d: int) -> int: ...

    def _cs_assign_leaf(self, leaf: int, d: int) -> int: ...

    def _head(self, s: int) -> int: ...

    @property
    def cs(self) -> PackedCapacity: ...

    def _cs_best_child(self, q: int, d: int, tried: set[int]) -> int | None: ...

    def _cs_headroom(self, leaf: int) -> float: ...

    def _cs_user_used(self, leaf: int, u: int) -> tuple[float, float]: ...

    def _cs_users(self, leaf: int, active_only: bool) -> tuple[int, float]: ...

    def _cs_user_limit(self, leaf: int) -> float: ...

    def _cs_user_room(self, j: int, leaf: int) -> float: ...

    def _cs_user_ok(self, j: int, leaf: int) -> bool: ...

    def _cs_am_ok(self, j: int, leaf: int) -> bool: ...

    def _cs_admit(self, j: int) -> bool: ...

    def _cs_apps_in_order(self, leaf: int, d: int) -> list[int]: ...

    def _next_stage(self, j: int, d: int) -> int: ...

    def _am_fits(self, leaf: int, am: np.ndarray) -> bool: ...

    def _try_app(self, j: int, leaf: int, d: int) -> bool: ...

    def _assign_jobtracker(self) -> bool: ...

    def _continuous_pass(self) -> None: ...

    def _cycles(self, j: int) -> bool: ...

    def _am_call(self, j: int, t: float, at: bool) -> float: ...

    def _run_start(self, j: int, t: float) -> float: ...

    def _am_ask(self, j: int) -> None: ...

    def _schedule_pass(self, t: float) -> None: ...

    def _jt_stage(self, j: int) -> int: ...

    def _jt_refresh(self, j: int) -> None: ...

    def _jt_pick(self, d: int) -> tuple[int, int]: ...
    def _start_task_cleanup(self, j: int, d: int) -> None: ...
    def _end_task_cleanup(self, ident: int) -> int: ...
    def init_locality(self, p: Packed) -> None: ...
    def _loc_first(self, s: int, key: int) -> int: ...
    def _loc_allowed(self, j: int, s: int) -> int: ...
    def _loc_pick(self, j: int, s: int, n: int) -> tuple[int, int]: ...
    def _take_task(self, s: int, task: int) -> None: ...
    def _give_back(self, s: int, task: int) -> bool: ...
    def _try_located(self, j: int, leaf: int, s: int, n: int) -> bool: ...
    def _loc_call(self) -> None: ...
    def _loc_call_end(self) -> None: ...

    def _submit(self, j: int) -> None: ...

    def _can_run(self, j: int) -> bool: ...

    def _make_runnable(self, j: int) -> None: ...

    def _add_pending(self, j: int, amount: np.ndarray) -> None: ...

    def _release_stage(self, j: int, s: int) -> None: ...

    def _maybe_slowstart(self, j: int, s: int) -> None: ...

    def _am_ready(self, j: int) -> None: ...

    def _hold(self, j: int, s: int, hold: bool) -> None: ...

    def _preempt_reduces(self) -> bool: ...

    def _start_attempt(self, j: int, task: int, req: np.ndarray) -> None: ...

    def _replay_finish(self, a: int, task: int, last_map: float) -> float: ...

    def _end_attempt(self, a: int, state: int) -> None: ...

    def _finish_job(self, j: int) -> None: ...

    def _utilization_gate(self) -> bool: ...

    def _leaves(self) -> list[int]: ...

    def _below(self, policy: int, usage: np.ndarray, share: np.ndarray) -> bool: ...

    def _preempt_v3(self) -> None: ...

    def _sorted_apps(self, apps: list[int], policy: int) -> list[int]: ...

    def _requests(self, j: int) -> list[tuple[np.ndarray, int]]: ...

    def _preempt_for(self, j: int) -> None: ...

    def _victims_for(self, cap: np.ndarray, chosen: set[int]) -> list[int] | None: ...

    def _preempt_v12(self) -> None: ...

    def _utilization_gate_v12(self) -> bool: ...

    def _rmin(self, policy: int, a: np.ndarray, b: np.ndarray) -> np.ndarray: ...

    def _rmax(self, policy: int, a: np.ndarray, b: np.ndarray) -> np.ndarray: ...

    def _preempt_v2(self) -> bool: ...

    def jobs_with_tbp(self) -> list[int]: ...

    def _preempt_container(self, q: int, warned_q: np.ndarray) -> int | None: ...

    def _preempt_v1(self, d: int) -> bool: ...

    def _claim_node(self) -> int: ...

    def _keeps_claim(self, j: int) -> bool: ...

    def _claim_add(self, n: int, j: int, req: np.ndarray) -> None: ...

    def _claim_used(self, j: int, req: np.ndarray) -> None: ...

    def _claims_cleanup(self, n: int) -> None: ...

    def _claims_sweep(self) -> None: ...

    def _repeats(self, state: tuple[Any, ...]) -> bool: ...

    def _v12_state(self, t: float) -> tuple[Any, ...]: ...

    def _cycling_v3(self, t: float) -> bool: ...

    def _v3_state(self, t: float) -> tuple[Any, ...]: ...

    def set_queues(self, pq: PackedQueues) -> None: ...

    def _ramp_down(self) -> None: ...

    def advance_to(self, t_stop: float) -> None: ...

    def reconfigure(self, packed: Packed) -> None: ...

    def queue_table(self) -> tuple[np.ndarray, ...]: ...

    def records(self) -> tuple[np.ndarray, ...]: ...

    def take_records(self) -> tuple[np.ndarray, ...]: ...


if not TYPE_CHECKING:
    # At run time the mixins' base is `object`: the protocol is for the type checker only.
    EngineState = object  # noqa: F811
