"""The site-file knobs that change a predicted schedule, and the optional noise model."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from whatif._validation import check_choice, check_range
from whatif.errors import ValidationError

#: Hadoop 1: a task-cleanup attempt's run time (s): as long as a job's setup or cleanup
#: task, whose work (a child JVM's start and one OutputCommitter call) it repeats; the
#: Hadoop 1 history sample ran those in 1.19 s and 1.22 s (`whatif.predictor.setup_cleanup`).
DEFAULT_TASK_CLEANUP_S = 1.2


@dataclass(frozen=True)
class SchedulerSettings:
    """Scheduler-wide settings (``yarn-site.xml``, ``mapred-site.xml``), validated on construction.

    Times are seconds. Requests are rounded up as the ResourceManager normalizes them:
    ``max(request, minimum)`` then up to a multiple of the increment. A field left at
    ``None`` takes Hadoop's own default for `hadoop_version` (resolved on construction).

    Parameters
    ----------
    preemption : bool
        ``yarn.scheduler.fair.preemption``. With a Capacity Scheduler configuration
        (`whatif.predictor.capacity.CapacityAllocation`): its preemption monitor
        (``yarn.resourcemanager.scheduler.monitor.enable``, also on when the file enables
        it), whose settings the file carries (`whatif.predictor.capacity.CapacityMonitor`;
        the Fair Scheduler's timeouts, threshold and waits below do not apply).
    utilization_threshold : float
        ``...preemption.cluster-utilization-threshold``: preemption only acts while
        max(memory, vcores) utilization is above it.
    wait_time_before_kill_s : float
        ``...waitTimeBeforeKill``: a chosen victim is killed this long after it is chosen.
    heartbeats : bool
        Model node heartbeats (the default, as Hadoop does): a container or task is
        assigned only when its node (NodeManager, TaskTracker) heartbeats, each node on
        its own phase (node ``i`` of ``n`` at ``i * interval / n`` plus multiples of the
        interval), and a finished task's resources come back at its node's next
        heartbeat. Needs the cluster's nodes (``nodes=`` in the cluster SPEC; a Hadoop 1
        slot cluster without them has trackers of 2 map and 2 reduce slots, Hadoop 1's
        ``mapred.tasktracker.*.tasks.maximum`` defaults); a cluster given only as total
        memory and vcores is scheduled instantly at every event. False: the instant
        model everywhere.
    assign_multiple : bool
        ``yarn.scheduler.fair.assignmultiple`` (default false: one container per node
        heartbeat) / Hadoop 1 ``mapred.fairscheduler.assignmultiple`` (default true).
    max_assign : int
        ``yarn.scheduler.fair.max.assign``: most containers per heartbeat with
        assign-multiple (-1: no limit; ignored while `dynamic_max_assign`).
    dynamic_max_assign : bool
        Hadoop 3 ``yarn.scheduler.fair.dynamic.max.assign`` (default true): with
        assign-multiple, a heartbeat assigns until half the node's unallocated resources
        at its start are used (the container crossing the half is still assigned).
    assign_multiple_maps, assign_multiple_reduces : int
        Hadoop 1 ``mapred.fairscheduler.assignmultiple.maps`` / ``.reduces``: most maps /
        reduces one heartbeat may receive with assign-multiple (-1: the free slots).
    continuous_scheduling : bool
        YARN ``yarn.scheduler.fair.continuous-scheduling-enabled`` (default false): besides
        node heartbeats, a thread offers every node, emptiest first, a container every
        `continuous_scheduling_sleep_s` (``whatif/predictor/kernel/continuous.py``).
        Needs the cluster's nodes (without them every event is already scheduled at
        once); Hadoop 2/3 only.
    continuous_scheduling_sleep_s : float
        ``yarn.scheduler.fair.continuous-scheduling-sleep-ms`` (5 ms): the thread's pause
        between passes over the nodes.
    heartbeats_in_second : float
        Hadoop 1 ``mapred.heartbeats.in.second`` (``mapreduce.jobtracker.heartbeats.in.second``,
        100): TaskTrackers heartbeat every ``max(3 s, ceil(trackers / this))``.
    size_based_weight : bool
        ``...sizebasedweight``: apps in a leaf weigh log2(1 + demand MB).
    min_allocation_mb, min_allocation_vcores, increment_mb, increment_vcores : float
        ``yarn.scheduler.minimum-allocation-*`` and the increments.
    container_launch_latency_s : float
        Time between a container's allocation and the start of its work.
    am_start_latency_s : float
        Time an ApplicationMaster needs after its container starts before it asks for tasks.
    am_heartbeat_interval_s : float
        ``yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms`` (1 s): a MapReduce AM
        sends the stages it releases, and takes the containers allocated to it, only in
        its allocate calls, this often from its start (``kernel/allocate_cycle.py``;
        jobs whose trace records an AM). 0: at once.
    update_interval_s : float
        ``...update-interval-ms``: Hadoop 3 identifies starved apps (and so preempts) only
        in the update thread, on multiples of this interval. Fair shares are recomputed on
        every change.
    slowstart_completed_maps : float
        ``mapreduce.job.reduce.slowstart.completedmaps``.
    locality_delay_s : float
        Hadoop 1 ``mapred.fairscheduler.locality.delay``: how long a job waits for a map
        local to the heartbeating tracker's node, and again for one local to its rack,
        before it takes any (delay scheduling, ``kernel/locality.py``; where the trace
        records split locations and the cluster names its trackers by host). -1 (the
        default): Hadoop 1's ``min(15 s, 1.5 x the heartbeat interval)``; 0: no waiting.
    locality_threshold_node, locality_threshold_rack : float
        Hadoop 2/3 ``yarn.scheduler.fair.locality.threshold.node`` / ``.rack`` (-1, off):
        the Fair Scheduler's delay scheduling (``kernel/fair_locality.py``; where the trace
        records split locations and the cluster names its nodes by host). An app waits,
        for a map local to the heartbeating node, as many scheduling opportunities as
        this fraction of the cluster's nodes (above 1: 1), then as many again for one local
        to its rack, before it takes any. Either below 0 turns it off, and so does
        continuous scheduling (Hadoop then counts time, ``...locality-delay-node-ms``,
        which the predictor does not model and warns of).
    task_cleanup_s : float
        Hadoop 1: the run time of the task-cleanup attempt the JobTracker runs, in a slot
        of its type, after each map or reduce attempt that failed or was killed while its
        job ran (1.2 s: the same child JVM start and committer call as a job's setup and
        cleanup, see `whatif.predictor.setup_cleanup`); 0 runs none (``kernel/jobtracker.py``).
    setup_cleanup_s : float
        Hadoop 1: the run time of the setup and cleanup task the JobTracker runs for a
        job, added to each MapReduce job whose trace does not record them (1.2 s, see
        `whatif.predictor.setup_cleanup`); 0 adds none. Recorded ones are replayed.
    hadoop_version : int
        1, 2 or 3: which preemption semantics apply.
    preemption_interval_s : float
        Hadoop 2 and 1: how often queue-level preemption is checked (the checks fall on
        multiples of this interval): ``yarn.scheduler.fair.preemptionInterval`` (5 s) /
        ``mapred.fairscheduler.preemption.interval`` (15 s).
    node_heartbeat_interval_s : float
        ``yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`` (1 s): how often each
        NodeManager heartbeats (Hadoop 2/3).
    starvation_check_wait_s : float
        Hadoop 3: an app that triggered preemption is not re-checked for
        ``wait_time_before_kill_s + 4 * node_heartbeat_interval_s + starvation_check_wait_s``.
    reservable_nodes : float
        Hadoop 2/3 ``yarn.scheduler.fair.reservable-nodes`` (0.05, Hadoop 2.8+): an app
        may hold at most ``ceil(nodes * this)`` nodes reserved (node reservations,
        ``kernel/reservations.py``; 0: no reservations). Hadoop 2.7 has no cap: 1.
    reservation_threshold_multiple : float
        Hadoop 2/3 ``yarn.scheduler.reservation-threshold.increment-multiple`` (2, Hadoop
        2.8+): only a request at least this many times the increment allocation may
        reserve a node. Hadoop 2.7 reserves for any request: 0.
    reducer_unconditional_preempt_delay_s : float
        Hadoop 2/3 ``mapreduce.job.reducer.unconditional-preempt.delay.sec`` (300, Hadoop
        2.7.3 and 2.8+, MAPREDUCE-6302): a MapReduce AM whose map requests have waited
        this long with no map running kills reduces whatever headroom the RM reports
        (RMContainerAllocator.preemptReducersForHangingMapRequests, ``kernel/phases.py``).
        Negative: off, as on Hadoop 2.7.0-2.7.2, which have no such rule.
    reducer_preempt_delay_s : float
        Hadoop 2/3 ``mapreduce.job.reducer.preempt.delay.sec`` (0): a MapReduce AM whose
        headroom has no room for its next map kills reduces only once its map requests
        have waited longer than this (RMContainerAllocator.preemptReducesIfNeeded); 0 or
        less: at once.
    reduce_rampup_limit : float
        Hadoop 2/3 ``mapreduce.job.reduce.rampup.limit`` (0.5): once slowstart is met and
        while maps are still unassigned, the MapReduce AM asks for reduces only up to
        ``min(done maps / maps, this)`` of its resource limit, plus what its maps leave
        unused (RMContainerAllocator.scheduleReduces, ``kernel/phases.py`` `_ramp_job`).
    """

    preemption: bool = False
    utilization_threshold: float = 0.8
    wait_time_before_kill_s: float = 15.0
    heartbeats: bool = True
    assign_multiple: bool | None = None
    max_assign: int = -1
    dynamic_max_assign: bool = True
    assign_multiple_maps: int = -1
    assign_multiple_reduces: int = -1
    continuous_scheduling: bool = False
    continuous_scheduling_sleep_s: float = 0.005
    heartbeats_in_second: float = 100.0
    size_based_weight: bool = False
    min_allocation_mb: float = 1024.0
    min_allocation_vcores: float = 1.0
    increment_mb: float = 1024.0
    increment_vcores: float = 1.0
    container_launch_latency_s: float = 0.0
    am_start_latency_s: float = 0.0
    am_heartbeat_interval_s: float = 1.0
    update_interval_s: float = 0.5
    slowstart_completed_maps: float = 0.05
    setup_cleanup_s: float = 1.2
    task_cleanup_s: float = DEFAULT_TASK_CLEANUP_S
    locality_delay_s: float = -1.0
    locality_threshold_node: float = -1.0
    locality_threshold_rack: float = -1.0
    hadoop_version: int = 3
    preemption_interval_s: float | None = None
    node_heartbeat_interval_s: float = 1.0
    starvation_check_wait_s: float = 10.0
    reservable_nodes: float = 0.05
    reservation_threshold_multiple: float = 2.0
    reducer_unconditional_preempt_delay_s: float = 300.0
    reducer_preempt_delay_s: float = 0.0
    reduce_rampup_limit: float = 0.5

    def __post_init__(self) -> None:
        check_choice(self.hadoop_version, (1, 2, 3), field="SchedulerSettings.hadoop_version")
        v1 = self.hadoop_version == 1
        if self.assign_multiple is None:
            object.__setattr__(self, "assign_multiple", v1)
        if self.preemption_interval_s is None:
            object.__setattr__(self, "preemption_interval_s", 15.0 if v1 else 5.0)
        self._check_types()
        self._check_ranges()
        for name in ("reducer_unconditional_preempt_delay_s", "reducer_preempt_delay_s"):
            # any number; negative: off (unconditional), at once (headroom)
            check_range(
                getattr(self, name), field=f"SchedulerSettings.{name}", low=-1e12, high=1e12
            )
        if self.continuous_scheduling and v1:
            raise ValidationError(
                "SchedulerSettings.continuous_scheduling: a YARN Fair Scheduler setting "
                "(Hadoop 2/3); Hadoop 1's JobTracker assigns only on TaskTracker heartbeats"
            )

    def _check_types(self) -> None:
        """Every field a bool or a number (not NaN) as its annotation says."""
        for f in fields(self):
            value = getattr(self, f.name)
            kind = str(f.type).removesuffix(" | None")
            if kind == "bool" and not isinstance(value, bool):
                raise ValidationError(f"SchedulerSettings.{f.name}: expected a bool, got {value!r}")
            if kind in ("float", "int") and (
                isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value)
            ):
                raise ValidationError(
                    f"SchedulerSettings.{f.name}: expected a number, got {value!r}"
                )

    def _check_ranges(self) -> None:
        """Fractions in [0, 1], caps whole numbers >= -1, times >= 0, intervals > 0."""
        for name in (
            "utilization_threshold",
            "slowstart_completed_maps",
            "reservable_nodes",
            "reduce_rampup_limit",
        ):
            check_range(getattr(self, name), field=f"SchedulerSettings.{name}", low=0.0, high=1.0)
        check_range(
            self.reservation_threshold_multiple,
            field="SchedulerSettings.reservation_threshold_multiple",
            low=0.0,
            high=1e6,
        )
        for name in ("max_assign", "assign_multiple_maps", "assign_multiple_reduces"):
            value = getattr(self, name)
            if value != int(value) or value < -1:
                raise ValidationError(
                    f"SchedulerSettings.{name}: expected a whole number >= -1, got {value!r}"
                )
        for name in ("locality_threshold_node", "locality_threshold_rack"):
            value = getattr(self, name)
            if not math.isfinite(value):
                raise ValidationError(
                    f"SchedulerSettings.{name}: expected a finite number, got {value!r}"
                )
        if self.locality_delay_s != -1.0:
            check_range(
                self.locality_delay_s,
                field="SchedulerSettings.locality_delay_s",
                low=0.0,
                high=1e12,
            )
        for name in (
            "wait_time_before_kill_s",
            "container_launch_latency_s",
            "am_start_latency_s",
            "am_heartbeat_interval_s",
            "node_heartbeat_interval_s",
            "starvation_check_wait_s",
            "setup_cleanup_s",
            "task_cleanup_s",
        ):
            check_range(getattr(self, name), field=f"SchedulerSettings.{name}", low=0.0, high=1e12)
        for name in (
            "min_allocation_mb",
            "min_allocation_vcores",
            "increment_mb",
            "increment_vcores",
            "update_interval_s",
            "preemption_interval_s",
            "heartbeats_in_second",
            "continuous_scheduling_sleep_s",
        ):
            value = getattr(self, name)
            if not (value > 0 and math.isfinite(value)):
                raise ValidationError(
                    f"SchedulerSettings.{name}: expected a finite number > 0, got {value!r}"
                )

    @property
    def fair_locality(self) -> tuple[float, float] | None:
        """The Fair Scheduler's node and rack locality thresholds as FairScheduler reads
        them (Java floats, capped at 1: FSAppAttempt.getAllowedLocalityLevel), or None
        when its count-based delay scheduling is off: Hadoop 1, either threshold below 0,
        or continuous scheduling (which counts time instead)."""
        node, rack = self.locality_threshold_node, self.locality_threshold_rack
        if self.hadoop_version == 1 or node < 0 or rack < 0 or self.continuous_scheduling:
            return None
        return min(float(np.float32(node)), 1.0), min(float(np.float32(rack)), 1.0)

    def heartbeat_interval_s(self, nodes: int) -> float:
        """How often each of `nodes` nodes heartbeats: Hadoop 1's JobTracker asks for
        ``max(3 s, ceil(trackers / heartbeats_in_second) s)``; YARN's NodeManagers use
        their configured interval."""
        if self.hadoop_version == 1:
            return max(3.0, float(math.ceil(nodes / self.heartbeats_in_second)))
        return self.node_heartbeat_interval_s

    @property
    def starvation_recheck_delay_s(self) -> float:
        """Hadoop 3: how long an app that triggered preemption is left alone."""
        return (
            self.wait_time_before_kill_s
            + 4.0 * self.node_heartbeat_interval_s
            + self.starvation_check_wait_s
        )


@dataclass(frozen=True)
class NoiseModel:
    """Seeded perturbations for replicate runs; draws depend only on the seed and the task.

    Parameters
    ----------
    failure_probability : float
        Chance that an attempt fails; a failed task is retried, at most
        ``max_attempts - 1`` failures per task (the last attempt succeeds).
    max_attempts : int
        ``mapreduce.map.maxattempts``.
    straggler_probability, straggler_factor : float
        Chance a task runs ``straggler_factor`` times longer.
    jitter_cv : float
        Coefficient of variation of a lognormal duration multiplier with mean 1.
    """

    failure_probability: float = 0.0
    max_attempts: int = 4
    straggler_probability: float = 0.0
    straggler_factor: float = 3.0
    jitter_cv: float = 0.0

    def __post_init__(self) -> None:
        check_range(
            self.failure_probability, field="NoiseModel.failure_probability", low=0.0, high=0.99
        )
        check_range(
            self.straggler_probability, field="NoiseModel.straggler_probability", low=0.0, high=1.0
        )
        check_range(self.straggler_factor, field="NoiseModel.straggler_factor", low=1.0, high=1e6)
        check_range(self.jitter_cv, field="NoiseModel.jitter_cv", low=0.0, high=10.0)
        if (
            isinstance(self.max_attempts, bool)
            or not isinstance(self.max_attempts, int)
            or self.max_attempts < 1
        ):
            raise ValidationError(
                f"NoiseModel.max_attempts: expected an integer >= 1, got {self.max_attempts!r}"
            )

    @classmethod
    def parse(cls, spec: str) -> NoiseModel:
        """``typical`` (`TYPICAL_NOISE`), ``none``, or ``KEY=VALUE,...`` with keys
        ``failures``, ``stragglers``, ``straggler-factor``, ``jitter``, ``max-attempts``
        (e.g. ``failures=0.02,stragglers=0.03,jitter=0.2``). An error names the key as
        typed (``noise failures: expected a value in [0.0, 0.99], got 2.0``)."""
        text = spec.strip().lower()
        if text == "typical":
            return TYPICAL_NOISE
        if text == "none":
            return cls()
        fields = {
            "failures": "failure_probability",
            "stragglers": "straggler_probability",
            "straggler-factor": "straggler_factor",
            "jitter": "jitter_cv",
            "max-attempts": "max_attempts",
        }
        values: dict[str, Any] = {}  # each field's own type: int for max_attempts
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = (word.strip() for word in part.partition("="))
            if not sep or key not in fields:
                raise ValidationError(
                    f"noise: expected 'typical', 'none' or KEY=VALUE pairs with keys "
                    f"{', '.join(fields)}, got {part!r}"
                )
            if fields[key] in values:
                raise ValidationError(f"noise {key}: given twice, in {spec!r}")
            values[fields[key]] = cls._value(key, fields[key], value)
        return cls(**values)

    @classmethod
    def _value(cls, key: str, field: str, text: str) -> Any:
        """`text` as `field`'s value (an int for max_attempts, a finite float otherwise),
        checked as `__post_init__` checks it; an error names the `key` typed, not `field`."""
        expected = "an integer >= 1" if field == "max_attempts" else "a number"
        value: Any
        try:
            value = int(text) if field == "max_attempts" else float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ValidationError(f"noise {key}: expected {expected}, got {text!r}")
        try:
            cls(**{field: value})
        except ValidationError as error:
            problem = str(error).removeprefix(f"NoiseModel.{field}: ")
            raise ValidationError(f"noise {key}: {problem}") from None
        return value


#: What makes a real cluster's runs differ from a noise-free prediction, at rates seen
#: on production MapReduce clusters: 2% of attempts fail (and are retried), 3% of tasks
#: straggle 3 times longer, and durations jitter by 20%. The bundled samples' recorded
#: runs, the `tempo tune` demo's emulated cluster and the optimizer benchmark use it.
TYPICAL_NOISE = NoiseModel(
    failure_probability=0.02, straggler_probability=0.03, straggler_factor=3.0, jitter_cv=0.2
)
