"""Workload + EffectiveAllocation + Cluster -> flat arrays for the engines, and back to a Schedule.

Both engines (``reference`` and ``kernel``) read the same `Packed` arrays, so the
conversion, request normalization and noise draws have one home.

Resources are 2-vectors: (memory MB, vcores), or on a Hadoop 1 slot cluster
(map slots, reduce slots) where a reduce task asks for (0, 1) and every other task
for (1, 0). Jobs whose queue is not in the tree get the queue created as Hadoop
does with ``allow-undeclared-pools`` (`whatif.allocation.created`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from whatif.allocation.created import with_undeclared_queues
from whatif.allocation.effective import EffectiveAllocation, EffectiveQueue, Resources
from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.predictor.capacity import CapacityAllocation, PackedCapacity, memory_only, pack_capacity
from whatif.predictor.locality import LocalityLayout, locality_layout
from whatif.predictor.nodes import ReservationParams, node_layout, reservation_params
from whatif.predictor.settings import NoiseModel, SchedulerSettings
from whatif.queues import normalize_queue
from whatif.schedule import NeverPlaced, Schedule
from whatif.workload import Workload, arrow_strings, positions_in

logger = logging.getLogger(__name__)

POLICY_CODES = {"fair": 0, "fifo": 1, "drf": 2}

#: Attempt states in the packed output (index into this tuple).
ATTEMPT_STATE_NAMES = ("RUNNING", "SUCCEEDED", "FAILED", "KILLED", "KILLED")

#: How a stage hands out a task again after a killed or failed attempt
#: (`Packed.stage_retry_rule`): after its fresh tasks (the MapReduce AM's maps LinkedHashMap
#: and reduce lists: a new request goes at the end); before them if the task failed before
#: (the AM asks for such a map at PRIORITY_FAST_FAIL_MAP, `FAST_FAIL_PRIORITY`, ahead of its
#: reduces too, and takes them first in, first out); or before them, the most failed first,
#: then by task (Hadoop 1's JobTracker: `failedMaps` and `nonRunningReduces`, ordered by
#: `failComparator`, a killed attempt's task too).
RETRY_LAST, RETRY_FAILED_FIRST, RETRY_FIRST = 0, 1, 2
FAST_FAIL_PRIORITY = 5


@dataclass(frozen=True, eq=False)
class PackedQueues:
    """The queue tree as arrays, in depth-first document order (root first).

    All arrays have shape (nq,) unless noted; resources are (nq, 2) float64.
    ``child_ptr`` (nq + 1,) and ``children`` (nq - 1,) are the CSR child lists.
    ``max_apps`` is -1 for unlimited; timeouts are seconds with ``inf`` for never.
    """

    names: tuple[str, ...]
    parent: np.ndarray
    depth: np.ndarray
    child_ptr: np.ndarray
    children: np.ndarray
    is_leaf: np.ndarray
    policy: np.ndarray
    weight: np.ndarray
    min_share: np.ndarray
    max_share: np.ndarray
    max_apps: np.ndarray
    max_am_share: np.ndarray
    min_timeout: np.ndarray
    fair_timeout: np.ndarray
    fair_threshold: np.ndarray
    preemptable: np.ndarray
    name_rank: np.ndarray
    capacity: PackedCapacity | None = None  # the Capacity Scheduler mode's values


@dataclass(frozen=True, eq=False)
class Packed:
    """Everything an engine needs, as arrays (see the field comments for shapes and units)."""

    queues: PackedQueues
    cluster: np.ndarray  # (2,) float64 capacity
    slot_mode: bool
    # jobs (nj,)
    job_ids: pa.Array  # large_string; Arrow so that no Python string is held per job
    job_queue: np.ndarray  # int64 leaf index
    job_user: np.ndarray  # int64 user index
    job_submit: np.ndarray  # float64 s
    job_rank: np.ndarray  # int64 rank of job_id (Hadoop's app-name tie-break)
    job_am: np.ndarray  # (nj, 2) AM request, zeros when the trace has no AM
    job_has_am: np.ndarray  # int64 0/1
    job_stage_ptr: np.ndarray  # (nj + 1,) CSR into stages
    user_names: tuple[str, ...]
    user_max_apps: np.ndarray  # (nu,) int64, -1 unlimited
    # (nj,) float64: the weight of the job's user in its leaf (the Capacity Scheduler's
    # user-settings.<user>.weight, `user_weights`); 1 elsewhere
    job_user_weight: np.ndarray
    # stages (ns,)
    stage_kind: np.ndarray  # int64 index into stage_kinds
    stage_kinds: tuple[str, ...]  # the distinct stage names ("map", "reduce", ...)
    stage_task_start: np.ndarray
    stage_task_end: np.ndarray
    stage_priority: np.ndarray  # int64, lower is served first
    stage_slowstart: np.ndarray  # int64 1 for a reduce stage right after a map stage
    stage_dim: np.ndarray  # int64 resource dimension allocation passes use (slot pool)
    # int64: 1 setup, 2 cleanup: handed out by Hadoop 1's JobTracker ahead of the scheduler
    # (a slot cluster under hadoop_version 1; kernel/jobtracker.py), else 0
    stage_jobtracker: np.ndarray
    # int64: the row in `replay` of the stage's first task for a slowstart stage, else -1
    stage_replay_row: np.ndarray
    # int64 RETRY_LAST, RETRY_FAILED_FIRST or RETRY_FIRST: how a re-queued task is handed out
    stage_retry_rule: np.ndarray
    # tasks (nt,) in Workload order
    task_ids: pa.ChunkedArray  # string; Arrow so that no Python string is held per task
    task_job: np.ndarray
    task_stage: np.ndarray
    task_req: np.ndarray  # (nt, 2) normalized request
    task_dur: np.ndarray  # s, after noise
    # (nr, 3) float64: (a, b, c) of each task of a slowstart stage (reduces), in task order,
    # with finish = max(start + lat + a, last_map + b) + c; only those tasks read them, so
    # no row is held for the others (24 bytes a task; `replay_row`)
    replay: np.ndarray
    task_fail_count: np.ndarray  # int64 failed attempts before the successful one
    task_fail_frac: np.ndarray  # fraction of the duration after which a failing attempt fails
    min_request: np.ndarray  # (2,) smallest normalized request (allocation stops below it)
    # nodes (nn,): capacity (nn, 2) as `cluster`; no rows without heartbeats (`nodes.py`)
    node_capacity: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    heartbeat_interval_s: float = math.inf
    # delay scheduling (Hadoop 1, the Fair Scheduler on YARN, the Capacity Scheduler mode):
    # split locations grouped
    # by node and rack (`whatif.predictor.locality`); None where it does not apply
    locality: LocalityLayout | None = None

    def reservations(self, settings: SchedulerSettings) -> ReservationParams:
        """Node reservations on this cluster and workload (`nodes.reservation_params`):
        Fair Scheduler only, never on a slot cluster; tasks' and AMs' requests."""
        asks = np.concatenate([self.task_req, self.job_am[self.job_has_am == 1]])
        fair_yarn = not self.slot_mode and self.queues.capacity is None
        return reservation_params(settings, len(self.node_capacity), asks, fair_yarn)

    def stage_jobs(self) -> np.ndarray:
        """Each stage's job."""
        return np.repeat(np.arange(len(self.job_queue)), np.diff(self.job_stage_ptr))

    def stage_largest(self) -> np.ndarray:
        """Each stage's largest request per dimension (zeros for a stage with no task)."""
        start, end = self.stage_task_start, self.stage_task_end
        out = np.zeros((len(start), 2))
        full = end > start
        if full.any():
            out[full] = np.maximum.reduceat(self.task_req, start[full], axis=0)
        return out

    def replay_row(self, task: int) -> int:
        """The row of `task` (of a slowstart stage) in `replay`."""
        s = int(self.task_stage[task])
        return int(self.stage_replay_row[s] + task - self.stage_task_start[s])


def normalize_requests(
    memory_mb: np.ndarray, vcores: np.ndarray, settings: SchedulerSettings
) -> tuple[np.ndarray, np.ndarray]:
    """Requests as the RM normalizes them: at least the minimum, rounded up to the increment."""
    mem = np.maximum(np.asarray(memory_mb, dtype=float), settings.min_allocation_mb)
    cpu = np.maximum(np.asarray(vcores, dtype=float), settings.min_allocation_vcores)
    mem = np.ceil(mem / settings.increment_mb) * settings.increment_mb
    cpu = np.ceil(cpu / settings.increment_vcores) * settings.increment_vcores
    return mem, cpu


def pack_queues(
    allocation: EffectiveAllocation, cluster: Cluster, hadoop_version: int
) -> PackedQueues:
    """Queue tree arrays; limits resolved against the cluster (slot limits in slot mode),
    each maximum the one Hadoop `hadoop_version` enforces for every use of it: assignment,
    headroom, fair shares and demand (`EffectiveQueue.max_share`)."""
    queues = list(allocation.root.walk())
    index = {q.name: i for i, q in enumerate(queues)}
    nq = len(queues)
    parent = np.full(nq, -1, dtype=np.int64)
    depth = np.zeros(nq, dtype=np.int64)
    for i, q in enumerate(queues):
        for child in q.children:
            parent[index[child.name]] = i
            depth[index[child.name]] = depth[i] + 1
    child_ptr = np.zeros(nq + 1, dtype=np.int64)
    children: list[int] = []
    for i, q in enumerate(queues):
        children.extend(index[c.name] for c in q.children)
        child_ptr[i + 1] = len(children)
    min_share, max_share = _share_limits(queues, cluster, hadoop_version)
    preemptable = np.ones(nq, dtype=np.int64)
    for i, q in enumerate(queues):
        preemptable[i] = int(q.allow_preemption_from) * (preemptable[parent[i]] if i else 1)
    ranks = np.argsort(np.argsort(np.array([q.name for q in queues], dtype=object), kind="stable"))
    pq = PackedQueues(
        names=tuple(q.name for q in queues),
        parent=parent,
        depth=depth,
        child_ptr=child_ptr,
        children=np.array(children, dtype=np.int64),
        is_leaf=np.array([0 if q.is_parent else 1 for q in queues], dtype=np.int64),
        policy=np.array([POLICY_CODES[q.scheduling_policy] for q in queues], dtype=np.int64),
        weight=np.array([q.weight for q in queues], dtype=float),
        min_share=min_share,
        max_share=max_share,
        max_apps=np.array(
            [-1 if q.max_running_apps is None else q.max_running_apps for q in queues],
            dtype=np.int64,
        ),
        # Java's float, as FSLeafQueue multiplies by it (0.1 of 10 vcores is over 1)
        max_am_share=np.array([q.max_am_share for q in queues], dtype=np.float32).astype(float),
        min_timeout=np.array([q.min_share_preemption_timeout_s for q in queues], dtype=float),
        fair_timeout=np.array([q.fair_share_preemption_timeout_s for q in queues], dtype=float),
        fair_threshold=np.array([q.fair_share_preemption_threshold for q in queues], dtype=float),
        preemptable=preemptable,
        name_rank=ranks.astype(np.int64),
    )
    if not isinstance(allocation, CapacityAllocation):
        return pq
    if cluster.slots:
        raise ValidationError("cluster: the Capacity Scheduler runs on YARN, not on slots")
    capacity, maxima = pack_capacity(allocation, pq.names, cluster)
    return replace(pq, capacity=capacity, max_share=maxima)


def _share_limits(
    queues: list[EffectiveQueue], cluster: Cluster, hadoop_version: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each queue's minimum and maximum share (memory, vcores; map and reduce slots in slot
    mode), the maximum at least the minimum from Hadoop 3 on (`pack_queues`)."""
    whole = Resources(cluster.memory_mb, cluster.vcores)
    min_share = np.zeros((len(queues), 2))
    max_share = np.full((len(queues), 2), np.inf)
    for i, q in enumerate(queues):
        if cluster.slots:
            min_share[i] = (q.min_maps or 0, q.min_reduces or 0)
            max_share[i] = (
                np.inf if q.max_maps is None else q.max_maps,
                np.inf if q.max_reduces is None else q.max_reduces,
            )
        else:
            limit = q.max_share(whole, hadoop_version)
            min_share[i] = (q.min_resources.memory_mb, q.min_resources.vcores)
            max_share[i] = (limit.memory_mb, limit.vcores)
    return min_share, max_share


def _noise_draws(
    n: int, noise: NoiseModel | None, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Duration multipliers, failure counts and failure fractions, one per task. Without
    noise the multipliers are a read-only view of one 1.0 and the zeros untouched pages:
    no memory per task (80 MB of ones at 10M tasks, at packing's peak)."""
    if noise is None:
        return np.broadcast_to(1.0, (n,)), np.zeros(n, dtype=np.int64), np.zeros(n)
    rng = np.random.default_rng(seed)
    mult = np.ones(n)
    if noise.jitter_cv > 0:
        sigma = math.sqrt(math.log1p(noise.jitter_cv**2))
        mult *= rng.lognormal(-(sigma**2) / 2.0, sigma, n)
    if noise.straggler_probability > 0:
        mult *= np.where(rng.random(n) < noise.straggler_probability, noise.straggler_factor, 1.0)
    fails = np.zeros(n, dtype=np.int64)
    if noise.failure_probability > 0 and noise.max_attempts > 1:
        fails = np.minimum(
            rng.geometric(1.0 - noise.failure_probability, n) - 1, noise.max_attempts - 1
        )
    frac = rng.random(n)
    return mult, fails.astype(np.int64), frac


def job_allocation(
    allocation: EffectiveAllocation, queue_names: Sequence[str]
) -> tuple[EffectiveAllocation, list[str]]:
    """`allocation` as a prediction of jobs in `queue_names` runs under it, and each name's
    queue: the Fair Scheduler creates a queue on the fly for a job in one it does not
    declare (`with_undeclared_queues`, in the order the names come); the Capacity
    Scheduler creates none and refuses such a job (`CapacityAllocation.leaf_path`'s
    `ValidationError`)."""
    paths = [str(name) for name in queue_names]
    if isinstance(allocation, CapacityAllocation):
        paths = [allocation.leaf_path(name) for name in paths]
    return with_undeclared_queues(allocation, paths), paths


def queue_codes(
    queues: pd.Series, allocation: EffectiveAllocation, cluster: Cluster, hadoop_version: int
) -> tuple[np.ndarray, EffectiveAllocation, PackedQueues]:
    """Each job's queue index, the allocation with undeclared queues created
    (`job_allocation`), and its arrays.

    Queue names are factorized once, so names are looked up per distinct queue, not per job;
    undeclared queues are created in the order jobs first name them.
    """
    codes, names = pd.factorize(queues)
    allocation, distinct = job_allocation(allocation, names.tolist())
    pq = pack_queues(allocation, cluster, hadoop_version)
    index = {name: i for i, name in enumerate(pq.names)}
    leaf = np.array([index[normalize_queue(name)] for name in distinct], dtype=np.int64)
    return leaf[codes] if len(codes) else np.zeros(0, dtype=np.int64), allocation, pq


def _is_kind(codes: np.ndarray, kinds: tuple[str, ...], name: str) -> np.ndarray:
    """Where `codes` (indices into `kinds`) name the stage `name`."""
    return codes == kinds.index(name) if name in kinds else np.zeros(len(codes), dtype=bool)


def pack(
    workload: Workload,
    allocation: EffectiveAllocation,
    cluster: Cluster,
    settings: SchedulerSettings,
    *,
    seed: int = 0,
    noise: NoiseModel | None = None,
) -> tuple[Packed, EffectiveAllocation]:
    """Arrays for the engines, and the allocation with undeclared queues created."""
    jobs, tasks = workload.jobs, workload.tasks
    job_queue, allocation, pq = queue_codes(
        jobs["queue"], allocation, cluster, settings.hadoop_version
    )
    slot_mode = bool(cluster.slots)
    job = _job_fields(jobs, allocation, slot_mode, settings)
    # Tasks are sorted by job (submit order), stage index, task id: stages are runs.
    task_job = positions_in(tasks["job_id"], jobs["job_id"])
    stage = _stage_fields(tasks, task_job, len(jobs), slot_mode, settings)
    requests = _requests(tasks, stage, job, cluster, settings)
    layout = node_layout(cluster, settings)
    if pq.capacity is not None:
        memory_only(requests, job, layout.capacity)
    nt = len(tasks)
    mult, fails, frac = _noise_draws(nt, noise, seed)
    dur = tasks["duration_s"].to_numpy(dtype=float) * mult
    task_stage, stage_start = stage["task_stage"], stage["stage_task_start"]
    replay, replay_row = _replay_parts(
        tasks, task_job, task_stage, stage["stage_slowstart"], stage_start, dur, mult
    )
    locality = locality_layout(
        tasks,
        task_stage,
        _is_kind(stage["stage_kind"], stage["stage_kinds"], "map"),
        cluster,
        layout.count,
        settings,
        layout.interval_s,
        capacity=pq.capacity is not None,
    )
    if locality is not None and not slot_mode:
        # a located stage's re-queued task goes back to its location lists (the MapReduce
        # AM's, under either YARN scheduler: `capacity_locality.py`, `fair_locality.py`);
        # Hadoop 1's to `failedMaps` (`locality.py`)
        stage["stage_retry_rule"][locality.stage_located == 1] = RETRY_LAST
    packed = Packed(
        queues=pq,
        slot_mode=slot_mode,
        job_queue=job_queue,
        job_user_weight=user_weights(allocation, pq.names, job_queue, job),
        **job,
        **stage,
        **requests,
        task_ids=arrow_strings(tasks["task_id"]),
        task_job=task_job,
        task_dur=dur,
        replay=replay,
        stage_replay_row=replay_row,
        task_fail_count=fails,
        task_fail_frac=frac,
        node_capacity=layout.capacity,
        heartbeat_interval_s=layout.interval_s,
        locality=locality,
    )
    return packed, allocation


def user_weights(
    allocation: EffectiveAllocation,
    names: tuple[str, ...],
    job_queue: np.ndarray,
    job: dict[str, Any],
) -> np.ndarray:
    """Each job's user's weight in its leaf: the Capacity Scheduler's
    ``user-settings.<user>.weight`` in force there (`whatif.capacity.EffectiveQueue`), 1
    for a user it does not name and under the Fair Scheduler."""
    weights = np.ones(len(job_queue))
    if not isinstance(allocation, CapacityAllocation):
        return weights
    users = job["user_names"]
    pairs, inverse = np.unique(
        np.column_stack([job_queue, job["job_user"]]), axis=0, return_inverse=True
    )
    found = [
        allocation.capacity[names[q]].user_weights.get(users[u], 1.0) for q, u in pairs.tolist()
    ]
    if found:
        weights[:] = np.asarray(found, dtype=float)[inverse.reshape(-1)]
    return weights


def _job_fields(
    jobs: pd.DataFrame,
    allocation: EffectiveAllocation,
    slot_mode: bool,
    settings: SchedulerSettings,
) -> dict[str, Any]:
    """`Packed`'s job and user fields: ids, users and their limits, id ranks, AM requests."""
    nj = len(jobs)
    job_ids = arrow_strings(jobs["job_id"]).combine_chunks()
    user_codes, user_index = pd.factorize(jobs["user"], sort=True)
    users = user_index.tolist()
    user_max = np.array(
        [-1 if (m := allocation.max_apps_for_user(u)) is None else m for u in users], dtype=np.int64
    )
    # Rank of each job id in id order (Hadoop's app-name tie-break); ids are unique.
    job_rank = np.empty(nj, dtype=np.int64)
    job_rank[pc.sort_indices(job_ids).to_numpy()] = np.arange(nj)
    am_mem = jobs["am_memory_mb"].to_numpy(dtype=float)
    has_am = ~np.isnan(am_mem) & (not slot_mode)
    am_m, am_v = normalize_requests(
        np.nan_to_num(am_mem),
        np.nan_to_num(jobs["am_vcores"].to_numpy(dtype=float), nan=1.0),
        settings,
    )
    return {
        "job_ids": job_ids,
        "job_user": user_codes.astype(np.int64),
        "job_submit": jobs["submit_s"].to_numpy(dtype=float),
        "job_rank": job_rank,
        "job_am": np.where(has_am[:, None], np.column_stack([am_m, am_v]), 0.0),
        "job_has_am": has_am.astype(np.int64),
        "user_names": tuple(users),
        "user_max_apps": user_max,
    }


def _stage_fields(
    tasks: pd.DataFrame,
    task_job: np.ndarray,
    nj: int,
    slot_mode: bool,
    settings: SchedulerSettings,
) -> dict[str, Any]:
    """`Packed`'s stage fields and each task's stage: a stage is a run of a job's tasks
    with one stage index."""
    nt = len(tasks)
    sidx = tasks["stage_index"].to_numpy(dtype=np.int64)
    new_stage = np.ones(nt, dtype=bool)
    if nt:
        new_stage[1:] = (task_job[1:] != task_job[:-1]) | (sidx[1:] != sidx[:-1])
    del sidx
    stage_start = np.flatnonzero(new_stage).astype(np.int64)
    ns = len(stage_start)
    task_stage = (np.cumsum(new_stage) - 1).astype(np.int64)
    del new_stage
    stage_job = task_job[stage_start] if ns else np.zeros(0, dtype=np.int64)
    stage_kind, kinds = pd.factorize(tasks["stage"].take(stage_start))
    stage_kinds = tuple(str(k) for k in kinds.tolist())
    stage_kind = stage_kind.astype(np.int64)
    prio = tasks["priority"].to_numpy(dtype=np.int64)
    stage_priority = np.minimum.reduceat(prio, stage_start) if ns else np.zeros(0, dtype=np.int64)
    del prio
    is_map, is_reduce = (_is_kind(stage_kind, stage_kinds, k) for k in ("map", "reduce"))
    # A reduce stage right after its job's map stage waits for slowstart.
    stage_slowstart = np.zeros(ns, dtype=np.int64)
    if ns > 1:
        stage_slowstart[1:] = (stage_job[1:] == stage_job[:-1]) & is_reduce[1:] & is_map[:-1]
    stage_jobtracker = np.zeros(ns, dtype=np.int64)
    if slot_mode and settings.hadoop_version == 1:
        stage_jobtracker[_is_kind(stage_kind, stage_kinds, "setup")] = 1
        stage_jobtracker[_is_kind(stage_kind, stage_kinds, "cleanup")] = 2
    if settings.hadoop_version == 1:
        retry_rule = np.full(ns, RETRY_FIRST, dtype=np.int64)
    else:
        retry_rule = np.where(is_map, RETRY_FAILED_FIRST, RETRY_LAST).astype(np.int64)
    retry_rule[stage_jobtracker != 0] = RETRY_LAST
    return {
        "job_stage_ptr": np.searchsorted(stage_job, np.arange(nj + 1)).astype(np.int64),
        "stage_kind": stage_kind,
        "stage_kinds": stage_kinds,
        "stage_task_start": stage_start,
        "stage_task_end": np.append(stage_start[1:], nt).astype(np.int64),
        "stage_priority": stage_priority.astype(np.int64),
        "stage_slowstart": stage_slowstart,
        "stage_dim": (is_reduce & slot_mode).astype(np.int64),
        "stage_jobtracker": stage_jobtracker,
        "stage_retry_rule": retry_rule,
        "task_stage": task_stage,
    }


def _requests(
    tasks: pd.DataFrame,
    stage: dict[str, Any],
    job: dict[str, Any],
    cluster: Cluster,
    settings: SchedulerSettings,
) -> dict[str, Any]:
    """Each task's normalized request, the cluster's capacity and the smallest request: a
    slot of its stage's pool on a Hadoop 1 slot cluster, else memory and vcores."""
    if cluster.slots:
        dims = stage["stage_dim"][stage["task_stage"]]
        req = np.column_stack([(dims == 0).astype(float), (dims == 1).astype(float)])
        del dims
        capacity = np.array(
            [float(cluster.slot_pools.get("map", 0)), float(cluster.slot_pools.get("reduce", 0))]
        )
        min_request = np.array([1.0, 1.0])
    else:
        mem, cpu = normalize_requests(
            tasks["memory_mb"].to_numpy(), tasks["vcores"].to_numpy(), settings
        )
        req = np.column_stack([mem, cpu])
        del mem, cpu
        capacity = np.array([cluster.memory_mb, cluster.vcores], dtype=float)
        min_request = np.array([settings.min_allocation_mb, settings.min_allocation_vcores])
        if len(tasks):
            min_request = np.minimum(min_request, req.min(axis=0))
        has_am = job["job_has_am"] == 1
        if has_am.any():
            min_request = np.minimum(min_request, job["job_am"][has_am].min(axis=0))
    return {
        "task_req": np.ascontiguousarray(req, dtype=float),
        "cluster": capacity,
        "min_request": min_request.astype(float),
    }


def _large(text: str) -> pa.Scalar:
    """`text` as an Arrow large_string scalar (Arrow joins need one string type throughout)."""
    return pa.scalar(text, type=pa.large_string())


def _string_column(values: pa.Array | pa.ChunkedArray) -> pd.api.extensions.ExtensionArray:
    """A pandas ``string`` column over Arrow strings, without converting them to Python."""
    column: pd.api.extensions.ExtensionArray = pd.array(values, dtype="string")
    return column


def _replay_parts(
    tasks: pd.DataFrame,
    task_job: np.ndarray,
    task_stage: np.ndarray,
    stage_slowstart: np.ndarray,
    stage_start: np.ndarray,
    dur: np.ndarray,
    mult: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """`Packed.replay` and `Packed.stage_replay_row`: (a, b, c) of each task of a slowstart
    stage, with finish = max(start + latency + a, last_map_finish + b) + c.

    An observed reduce's duration includes the time it sat waiting for its job's maps, so
    it replays only what came after its last map input was available, and the simulation
    decides the waiting. Where the trace gives ``shuffle_finish_s``: its own shuffle tail
    ``a = b = shuffle_finish - max(observed_start, observed last map finish)`` and its own
    work ``c = observed_finish - shuffle_finish``. Else, where it gives the attempt's
    observed start and finish and the job's observed map finishes, the part after the
    later of its start and the last map's finish: ``a = b = 0``, ``c = observed_finish -
    max(observed_start, last map finish)`` (a reduce that started after the maps replays
    its whole duration). Other reduces (no observed times: SWIM, generated workloads)
    replay their duration and cannot finish before the job's last map (``a = duration,
    b = c = 0``).
    """
    slow_stages = np.flatnonzero(stage_slowstart == 1)
    rows = np.flatnonzero(stage_slowstart[task_stage] == 1) if len(dur) else slow_stages[:0]
    stage_row = np.full(len(stage_slowstart), -1, dtype=np.int64)
    stage_row[slow_stages] = np.searchsorted(rows, stage_start[slow_stages])
    replay = np.zeros((len(rows), 3))
    replay[:, 0] = dur[rows]
    start = tasks["observed_start_s"].to_numpy(dtype=float)[rows]
    all_finish = tasks["observed_finish_s"].to_numpy(dtype=float)
    finish = all_finish[rows]
    observed = ~np.isnan(start) & ~np.isnan(finish)
    if not observed.any():
        return replay, stage_row
    # Observed last map finish of each job: the stage before a slowstart stage.
    map_finish = np.full(int(task_job.max()) + 1, np.nan)
    map_rows = np.flatnonzero(np.isin(task_stage, slow_stages - 1))
    if map_rows.size:
        frame = pd.DataFrame({"j": task_job[map_rows], "f": all_finish[map_rows]})
        last = frame.groupby("j")["f"].max()
        map_finish[last.index.to_numpy()] = last.to_numpy()
    del all_finish
    last_map = map_finish[task_job[rows]]
    shuffle = tasks["shuffle_finish_s"].to_numpy(dtype=float)[rows]
    mult = mult[rows]
    known = observed & ~np.isnan(shuffle)
    begin = np.fmax(start, last_map)
    tail = np.maximum(shuffle - begin, 0.0) * mult
    own = np.maximum(finish - np.maximum(shuffle, start), 0.0) * mult
    estimated = observed & np.isnan(shuffle) & ~np.isnan(last_map)
    post_map = np.maximum(finish - begin, 0.0) * mult
    replay[:, 0] = np.where(estimated, 0.0, np.where(known, tail, replay[:, 0]))
    replay[:, 1] = np.where(known, tail, 0.0)
    replay[:, 2] = np.where(estimated, post_map, np.where(known, own, 0.0))
    return replay, stage_row


def unpack_schedule(
    packed: Packed,
    queue_names: tuple[str, ...],
    att_task: np.ndarray,
    att_start: np.ndarray,
    att_finish: np.ndarray,
    att_state: np.ndarray,
    att_preempted: np.ndarray,
    job_finish: np.ndarray,
    job_queue: np.ndarray,
    *,
    never_placed: tuple[NeverPlaced, ...] = (),
) -> Schedule:
    """A Schedule from attempt arrays (``att_task`` < 0 encodes job ``-1 - att_task``'s AM).

    Id columns are built as Arrow strings (no Python string per attempt), and rows come out
    in the Schedule's order (start, attempt id), so that its constructor need not copy them.
    """
    att_task = np.asarray(att_task, dtype=np.int64)
    n, nt = len(att_task), len(packed.task_job)
    is_am = att_task < 0
    jidx = -1 - att_task
    jidx[~is_am] = packed.task_job[att_task[~is_am]]
    job_ids = packed.job_ids
    # Task ids, then one AM id per job: row `ident` of an attempt names it.
    ids = pa.chunked_array(
        packed.task_ids.chunks + [pc.binary_join_element_wise(job_ids, _large("_am"), _large(""))],
        type=pa.large_string(),
    )
    ident = np.where(is_am, nt + jidx, att_task)
    attempt_id = _attempt_ids(packed, ids, ident, is_am)
    # The Schedule's row order: start time, then attempt id.
    rows = pc.sort_indices(
        pa.table({"start": att_start, "id": attempt_id}),
        sort_keys=[("start", "ascending"), ("id", "ascending")],
    ).to_numpy()
    attempt_id = attempt_id.take(rows)
    att_task, is_am, jidx, ident = att_task[rows], is_am[rows], jidx[rows], ident[rows]
    # Columns one at a time, each input dropped after its last use (the peak of a large run).
    columns: dict[str, pd.api.extensions.ExtensionArray | np.ndarray] = {
        "job_id": _string_column(job_ids.take(jidx))
    }
    columns["task_id"] = _string_column(ids.take(ident))
    del ids, ident
    columns["attempt_id"] = _string_column(attempt_id)
    del attempt_id
    # Task rows index the task arrays directly; AM rows (few) are then overwritten.
    task_row = np.where(is_am, 0, att_task) if nt else None
    del att_task
    columns["stage"] = _stage_column(packed, task_row, is_am, n)
    start = np.asarray(att_start, dtype=float)[rows]
    columns["start_s"] = start
    att_state = np.asarray(att_state, dtype=np.int8)[rows]
    finish = np.asarray(att_finish, dtype=float)[rows]
    finish[att_state == 0] = np.nan
    columns["finish_s"] = finish
    for d, name in enumerate(("memory_mb", "vcores")):
        req = np.zeros(n) if task_row is None else packed.task_req[:, d][task_row]
        req[is_am] = packed.job_am[jidx[is_am], d]
        columns[name] = req
    del task_row, req
    states = pa.array(list(ATTEMPT_STATE_NAMES), type=pa.large_string())
    columns["state"] = _string_column(states.take(att_state))
    del att_state
    columns["preempted"] = np.asarray(att_preempted, dtype=bool)[rows]
    columns["is_am"] = is_am
    del rows, is_am
    columns["node"] = _string_column(_empty_strings(n))
    # copy=False: the columns are new arrays, and consolidating them would copy them again.
    attempts = pd.DataFrame(columns, copy=False)
    del columns
    jobs = predicted_job_table(packed, queue_names, job_queue, job_finish, jidx, start)
    # Built in the Schedule's normalized form (columns, dtypes, row order) and valid by
    # construction: its checks would sort a million attempt ids again.
    return Schedule.from_normalized(jobs=jobs, attempts=attempts, never_placed=never_placed)


def _attempt_ids(
    packed: Packed, ids: pa.ChunkedArray, ident: np.ndarray, is_am: np.ndarray
) -> pa.Array:
    """Each attempt's id, ``<task id>_<n>``: attempts are numbered within their task id in
    allocation order; an AM id that equals a task id (the task "<job>_am") shares that
    task's numbering, as the ids say."""
    n = len(ident)
    key = ident.copy()
    if is_am.any():
        named_am = packed.task_ids.filter(pc.ends_with(packed.task_ids, "_am"))
        if len(named_am):
            am_rows = np.flatnonzero(is_am)
            hit = pc.index_in(ids.take(ident[am_rows]), value_set=named_am)
            same = pc.is_valid(hit).to_numpy(zero_copy_only=False)
            positions = pc.index_in(named_am, value_set=packed.task_ids).to_numpy()
            key[am_rows[same]] = positions[hit.drop_null().to_numpy()]
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    first = np.ones(n, dtype=bool)
    first[1:] = sorted_key[1:] != sorted_key[:-1]
    run_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    del sorted_key, first, key
    number = np.empty(n, dtype=np.int64)
    number[order] = np.arange(n) - run_start
    del order, run_start
    attempt_id: pa.Array = pc.binary_join_element_wise(
        ids.take(ident), pa.array(number).cast(pa.large_string()), _large("_")
    )
    return attempt_id


def _stage_column(
    packed: Packed, task_row: np.ndarray | None, is_am: np.ndarray, n: int
) -> pd.api.extensions.ExtensionArray:
    """Each attempt's stage name (``am`` for an AM)."""
    kinds = pa.array([*packed.stage_kinds, "am"], type=pa.large_string())
    stage_of = np.full(n, len(packed.stage_kinds), dtype=np.int64)
    if task_row is not None:
        stage_of[:] = packed.stage_kind[packed.task_stage[task_row]]
        stage_of[is_am] = len(packed.stage_kinds)
    return _string_column(kinds.take(stage_of))


def predicted_job_table(
    packed: Packed,
    queue_names: tuple[str, ...],
    job_queue: np.ndarray,
    job_finish: np.ndarray,
    jidx: np.ndarray,
    start: np.ndarray,
) -> pd.DataFrame:
    """The predicted jobs: launched at their first attempt's start; SUCCEEDED once
    finished, RUNNING once anything started, else PENDING."""
    launch = np.full(len(job_finish), np.nan)
    if len(jidx):
        np.fmin.at(launch, jidx, start)
    state = np.where(~np.isnan(job_finish), 0, np.where(np.isnan(launch), 2, 1))
    return pd.DataFrame(
        {
            "job_id": _string_column(packed.job_ids),
            "queue": _string_column(_names(queue_names).take(job_queue)),
            "submit_s": packed.job_submit,
            "launch_s": launch,
            "finish_s": job_finish,
            "user": _string_column(_names(packed.user_names).take(packed.job_user)),
            "state": _string_column(_names(("SUCCEEDED", "RUNNING", "PENDING")).take(state)),
        }
    )


def _names(names: tuple[str, ...]) -> pa.Array:
    """A few names as Arrow strings, to `take` a column of them by codes."""
    return pa.array(list(names), type=pa.large_string())


def _empty_strings(n: int) -> pa.Array:
    """`n` empty strings (offsets only)."""
    offsets = pa.py_buffer(np.zeros(n + 1, dtype=np.int64))
    return pa.LargeStringArray.from_buffers(n, offsets, pa.py_buffer(b""))
