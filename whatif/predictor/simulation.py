"""`predict` and the incremental `Simulation`: the predictor's public entry points."""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
from dataclasses import dataclass
from typing import Protocol, TypedDict, Unpack

import numpy as np
import pandas as pd
import pyarrow as pa

from whatif._validation import check_choice
from whatif.allocation.effective import EffectiveAllocation
from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.memory import release_free_memory
from whatif.predictor.never_placed import never_placed
from whatif.predictor.pack import (
    ATTEMPT_STATE_NAMES,
    Packed,
    pack,
    predicted_job_table,
    queue_codes,
    unpack_schedule,
)
from whatif.predictor.refused import refused
from whatif.predictor.settings import NoiseModel, SchedulerSettings
from whatif.predictor.setup_cleanup import with_setup_cleanup
from whatif.schedule import NeverPlaced, Schedule
from whatif.workload import Workload

logger = logging.getLogger(__name__)

ENGINES = ("numba", "reference")

#: yarn-default.xml values.
DEFAULT_SETTINGS = SchedulerSettings()


class SimulationOptions(TypedDict, total=False):
    """The keyword options of `predict`, `predict_taking` and `Simulation` (defaults in
    `Simulation._pack`)."""

    settings: SchedulerSettings
    engine: str
    seed: int
    noise: NoiseModel | None


class _Engine(Protocol):
    """What `Simulation` uses of an engine (`CompiledEngine`, `ReferenceEngine`)."""

    p: Packed

    @property
    def now(self) -> float: ...

    def advance_to(self, t_stop: float) -> None: ...

    def reconfigure(self, packed: Packed) -> None: ...

    def queue_table(self) -> tuple[np.ndarray, ...]: ...

    def records(self) -> tuple[np.ndarray, ...]: ...

    def take_records(self) -> tuple[np.ndarray, ...]: ...


@dataclass(frozen=True, eq=False)
class SimulationState:
    """A snapshot of a simulation.

    ``attempts`` holds every attempt so far (``state`` RUNNING for those still
    running, ``finish_s`` NaN for them); ``queues`` has one row per queue with its
    usage, pending demand, instantaneous fair share and runnable app count.
    """

    time_s: float
    attempts: pd.DataFrame
    jobs: pd.DataFrame
    queues: pd.DataFrame

    @property
    def running(self) -> pd.DataFrame:
        return self.attempts[self.attempts["state"] == "RUNNING"]

    @property
    def finished(self) -> pd.DataFrame:
        return self.attempts[self.attempts["state"] != "RUNNING"]


class Simulation:
    """A Fair Scheduler simulation that can be advanced, inspected and reconfigured.

    Parameters
    ----------
    workload, allocation, cluster
        What to replay, under which queue configuration, on what resources.
    settings : SchedulerSettings, default yarn-default.xml's
        yarn-site knobs.
    engine : {"numba", "reference"}, default "numba"
        Compiled kernel or plain-Python twin; both give the same schedule.
    seed : int, default 0
        Seeds the noise draws (nothing else is random).
    noise : NoiseModel, optional
        Task failures, stragglers, duration jitter.

    The keyword options (`SimulationOptions`) are those of `predict` too.
    """

    def __init__(
        self,
        workload: Workload,
        allocation: EffectiveAllocation,
        cluster: Cluster,
        **options: Unpack[SimulationOptions],
    ) -> None:
        self._start(self._pack(workload, allocation, cluster, **options))

    @classmethod
    def taking(
        cls,
        workloads: list[Workload],
        allocation: EffectiveAllocation,
        cluster: Cluster,
        **options: Unpack[SimulationOptions],
    ) -> Simulation:
        """A Simulation of the one workload in `workloads`, which it takes out of the list.

        When the caller holds the workload nowhere else (``tempo predict`` without ``-o``),
        its tables are freed once packed and their memory handed back before the engine's
        arrays are made: at 1M tasks about 120 MB less under the simulation's peak.
        """
        if not isinstance(workloads, list) or len(workloads) != 1:
            raise ValidationError("predict workloads: expected a list of one Workload")
        sim = cls.__new__(cls)
        engine = sim._pack(workloads.pop(), allocation, cluster, **options)
        release_free_memory()
        sim._start(engine)
        return sim

    def _pack(
        self,
        workload: Workload,
        allocation: EffectiveAllocation,
        cluster: Cluster,
        *,
        settings: SchedulerSettings = DEFAULT_SETTINGS,
        engine: str = "numba",
        seed: int = 0,
        noise: NoiseModel | None = None,
    ) -> str:
        """Check the arguments and pack the workload (not held after: see `taking`); returns
        the engine to start."""
        check_choice(engine, ENGINES, field="predict engine")
        for name, value, kind in (
            ("workload", workload, Workload),
            ("allocation", allocation, EffectiveAllocation),
            ("cluster", cluster, Cluster),
            ("settings", settings, SchedulerSettings),
        ):
            if not isinstance(value, kind):
                raise ValidationError(
                    f"predict {name}: expected a {kind.__name__}, got {type(value).__name__}"
                )
        if noise is not None and not isinstance(noise, NoiseModel):
            raise ValidationError(
                f"predict noise: expected a NoiseModel, got {type(noise).__name__}"
            )
        if settings.hadoop_version == 1 and not cluster.slots and settings.preemption:
            logger.info("Hadoop 1 preemption on a cluster without slot pools: memory is the pool")
        # Only what `reconfigure` reads of the workload, which is not held.
        self._job_queues = workload.jobs["queue"]
        self.cluster = cluster
        self.settings = settings
        if settings.hadoop_version == 1 and settings.setup_cleanup_s > 0:
            # the JobTracker's setup and cleanup tasks, where the trace has none
            workload = with_setup_cleanup(workload, settings.setup_cleanup_s)
        packed, self.allocation = pack(
            workload, allocation, cluster, settings, seed=int(seed), noise=noise
        )
        self.never_placed: tuple[NeverPlaced, ...] = never_placed(packed, settings.hadoop_version)
        for cause in self.never_placed:
            logger.info("%s", cause)
        for message in refused(packed, self.allocation, settings):
            _warn_once(message)
        # The engines never read the task ids: held compressed until a schedule is unpacked.
        self._task_ids = _compressed(packed.task_ids)
        none = pa.chunked_array([], type=packed.task_ids.type)  # a slice would hold them
        self.packed = dataclasses.replace(packed, task_ids=none)
        return engine

    def _start(self, engine: str) -> None:
        """Make the engine on the packed arrays."""
        self._engine: _Engine
        if engine == "numba":
            from whatif.predictor.compiled import CompiledEngine

            self._engine = CompiledEngine(self.packed, self.settings)
        else:
            from whatif.predictor.reference import ReferenceEngine

            self._engine = ReferenceEngine(self.packed, self.settings)
        # The engine may hold the packed arrays in its own form (see CompiledEngine).
        self.packed = self._engine.p

    @property
    def time_s(self) -> float:
        return float(self._engine.now)

    def advance_to(self, time_s: float) -> Simulation:
        """Process every event up to and including `time_s`."""
        if not time_s >= self._engine.now:
            raise ValidationError(
                f"advance_to time_s: expected a time >= {self._engine.now!r}, got {time_s!r}"
            )
        self._engine.advance_to(float(time_s))
        return self

    def run_to_end(self) -> Schedule:
        """Run until every job has finished and return the whole schedule."""
        self._engine.advance_to(math.inf)
        return self.schedule()

    def schedule(self) -> Schedule:
        """The schedule so far (running attempts have no finish time)."""
        return _unpack(
            _with_task_ids(self.packed, self._task_ids), self._engine.records(), self.never_placed
        )

    def _final_schedule(self) -> Schedule:
        """The schedule, built after dropping the engine (which makes this object unusable).

        For `predict`, which does not use the simulation again: the kernel's arrays and the
        schedule's table are then not held at once (at 10M tasks, 2 GB each).
        """
        records = self._engine.take_records()
        p = self.packed
        # Only what `unpack_schedule` reads of the tasks, copied out of the engine's arrays.
        empty = np.zeros(0)
        self.packed = dataclasses.replace(
            p,
            task_job=np.array(p.task_job),
            task_stage=np.array(p.task_stage),
            task_req=np.array(p.task_req),
            task_dur=empty,
            replay=np.zeros((0, 3)),
            task_fail_count=np.zeros(0, dtype=np.int64),
            task_fail_frac=empty,
            locality=None,
        )
        del self._engine
        del p
        release_free_memory()
        predicted = _PredictedAttempts(self.packed, self._task_ids, records)
        return Schedule.deferred(predicted.job_table(), predicted, self.never_placed)

    def state(self) -> SimulationState:
        """Running and finished attempts, job progress, queue usage and fair shares now."""
        sched = self.schedule()
        usage, pending, fair, runnable = self._engine.queue_table()
        names = self.packed.queues.names
        queues = pd.DataFrame(
            {
                "queue": list(names),
                "usage_memory_mb": usage[:, 0],
                "usage_vcores": usage[:, 1],
                "pending_memory_mb": pending[:, 0],
                "pending_vcores": pending[:, 1],
                "fair_memory_mb": fair[:, 0],
                "fair_vcores": fair[:, 1],
                "runnable_apps": runnable,
            }
        )
        return SimulationState(self.time_s, sched.attempts, sched.jobs, queues)

    def reconfigure(self, allocation: EffectiveAllocation) -> Simulation:
        """Continue under a new queue configuration, as a reload of the allocation file.

        Running containers keep running; queues are rebuilt, usage is re-attributed,
        fair shares are recomputed, waiting apps are promoted if the new limits allow,
        and starvation timers restart now.
        """
        if not isinstance(allocation, EffectiveAllocation):
            raise ValidationError(
                f"reconfigure allocation: expected an EffectiveAllocation, got {type(allocation).__name__}"
            )
        job_queue, allocation, pq = queue_codes(
            self._job_queues, allocation, self.cluster, self.settings.hadoop_version
        )
        users = self.packed.user_names
        user_max = np.array(
            [-1 if (m := allocation.max_apps_for_user(u)) is None else m for u in users],
            dtype=np.int64,
        )
        self.packed = dataclasses.replace(
            self.packed, queues=pq, job_queue=job_queue, user_max_apps=user_max
        )
        self.allocation = allocation
        # found for a run under one configuration: jobs may have run under the one before
        self.never_placed = ()
        self._engine.reconfigure(self.packed)
        return self


@functools.cache
def _warn_once(message: str) -> None:
    """Say `message` once per process, not at every prediction of an optimizer's run."""
    logger.warning("%s", message)


def _unpack(
    packed: Packed, records: tuple[np.ndarray, ...], never_placed: tuple[NeverPlaced, ...]
) -> Schedule:
    """`unpack_schedule` of the engine's records (task, start, finish, state, preempted, job
    finish)."""
    task, start, finish, state, preempted, job_finish = records
    return unpack_schedule(
        packed,
        packed.queues.names,
        task,
        start,
        finish,
        state,
        preempted,
        job_finish,
        packed.job_queue,
        never_placed=never_placed,
    )


def _compressed(values: pa.ChunkedArray) -> pa.Buffer:
    """`values` as a zstd-compressed Arrow IPC stream: generated task ids take about a
    twentieth of their size (33 MB -> 2 MB at 1M tasks, in 0.15 s)."""
    table = pa.table({"values": values})
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return sink.getvalue()


def _with_task_ids(packed: Packed, task_ids: pa.Buffer) -> Packed:
    """`packed` with its task ids back from `_compressed`."""
    values = pa.ipc.open_stream(task_ids).read_all().column(0)
    return dataclasses.replace(packed, task_ids=values)


@dataclass(frozen=True, eq=False)
class _PredictedAttempts:
    """A finished simulation's attempts as the engine's records and the packed task arrays
    (`Schedule.deferred`): about 30 bytes an attempt, where the table's ids and names take
    some 150 at 1M tasks. `packed` holds only what `unpack_schedule` reads, but the task
    ids, which `task_ids` holds compressed."""

    packed: Packed
    task_ids: pa.Buffer
    records: tuple[np.ndarray, ...]

    def __len__(self) -> int:
        return len(self.records[0])

    def count_state(self, state: str) -> int:
        codes = [code for code, name in enumerate(ATTEMPT_STATE_NAMES) if name == state]
        return int(np.isin(self.records[3], codes).sum())

    def job_table(self) -> pd.DataFrame:
        """The schedule's jobs, as `unpack_schedule` makes them."""
        task, start, job_finish = self.records[0], self.records[1], self.records[5]
        p = self.packed
        task = np.asarray(task, dtype=np.int64)
        jidx = -1 - task  # an AM's job
        tasks = task >= 0
        jidx[tasks] = p.task_job[task[tasks]]
        return predicted_job_table(p, p.queues.names, p.job_queue, job_finish, jidx, start)

    def build(self) -> pd.DataFrame:
        return _unpack(_with_task_ids(self.packed, self.task_ids), self.records, ()).attempts


def predict(
    workload: Workload,
    allocation: EffectiveAllocation,
    cluster: Cluster,
    **options: Unpack[SimulationOptions],
) -> Schedule:
    """The schedule the Fair Scheduler would produce for `workload` (see `Simulation`)."""
    return predict_taking([workload], allocation, cluster, **options)


def predict_taking(
    workloads: list[Workload],
    allocation: EffectiveAllocation,
    cluster: Cluster,
    **options: Unpack[SimulationOptions],
) -> Schedule:
    """`predict` of the one workload in `workloads`, which it takes out of the list: a caller
    that holds it nowhere else has its tables freed once packed (`Simulation.taking`)."""
    release_free_memory()  # what the caller dropped (a reader's temporaries) before packing
    sim = Simulation.taking(workloads, allocation, cluster, **options)
    sim.advance_to(math.inf)
    return sim._final_schedule()
