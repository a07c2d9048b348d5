"""The Capacity Scheduler mode's input: a ``capacity-scheduler.xml``'s effective queues as
the predictor packs them (``kernel/capacity.py`` and its twin hold the rules).

`capacity_allocation` turns a configuration into a `CapacityAllocation`: an
`EffectiveAllocation` (the queue tree, leaves' ``fifo``/``fair`` ordering policy,
``max-parallel-apps`` as maxRunningApps) that also carries each queue's Capacity
Scheduler values, the per-node-heartbeat caps and the preemption monitor's settings
(`CapacityMonitor`). Given one, `predict` and `Simulation` run the Capacity Scheduler's
semantics instead of the Fair Scheduler's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

from whatif.allocation.effective import EffectiveAllocation, EffectiveQueue, Resources
from whatif.capacity import (
    CapacityConfigError,
    ConfigurationDocument,
    effective_queues,
    queue_tree,
    validate,
)
from whatif.capacity import EffectiveQueue as CapacityQueue
from whatif.capacity.model import PREFIX, QueueNode, key
from whatif.capacity.values import java_boolean, parse_java_float, parse_java_int, parse_or
from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.predictor.settings import SchedulerSettings

HEARTBEAT = "yarn.scheduler.capacity.per-node-heartbeat."
MONITOR = "yarn.resourcemanager.monitor.capacity.preemption."
MONITOR_ENABLE = "yarn.resourcemanager.scheduler.monitor.enable"
MONITOR_POLICIES = "yarn.resourcemanager.scheduler.monitor.policies"
POLICY = "ProportionalCapacityPreemptionPolicy"


@dataclass(frozen=True)
class CapacityMonitor:
    """The preemption monitor's settings (``ProportionalCapacityPreemptionPolicy``), with
    Hadoop's defaults; ``kernel/capacity_preemption.py`` says what a round does.

    Parameters
    ----------
    enabled : bool
        The file sets ``yarn.resourcemanager.scheduler.monitor.enable`` true (and, if it
        lists ``...monitor.policies``, names this policy). Hadoop reads the switch from
        ``yarn-site.xml``; tempo predicts from the scheduler's file alone, so a switch
        found there is honoured. `SchedulerSettings.preemption` turns the monitor on too.
    monitoring_interval_ms : int
        ``monitoring_interval`` (3000): a round at every multiple of it from the
        ResourceManager's start (time 0 of the prediction).
    max_wait_before_kill_ms : int
        ``max_wait_before_kill`` (15000): a marked container is killed by the first round,
        this long or more after its mark, that selects it again.
    total_preemption_per_round : float
        ``total_preemption_per_round`` (0.1): a round's budget, a fraction of the cluster.
    max_ignored_over_capacity : float
        ``max_ignored_over_capacity`` (0.1): a leaf yields nothing while its usage is at
        most its guarantee times 1 + this (the dead zone).
    natural_termination_factor : float
        ``natural_termination_factor`` (0.2): the share of a leaf's computed excess taken
        per round (the rest is left to containers ending on their own).
    """

    enabled: bool = False
    monitoring_interval_ms: int = 3000
    max_wait_before_kill_ms: int = 15000
    total_preemption_per_round: float = 0.1
    max_ignored_over_capacity: float = 0.1
    natural_termination_factor: float = 0.2

    def __post_init__(self) -> None:
        if self.monitoring_interval_ms <= 0:
            raise ValidationError(
                f"{MONITOR}monitoring_interval: expected a positive number of ms, "
                f"got {self.monitoring_interval_ms!r}"
            )
        for name in (
            "max_wait_before_kill_ms",
            "total_preemption_per_round",
            "max_ignored_over_capacity",
            "natural_termination_factor",
        ):
            value = getattr(self, name)
            if not value >= 0:
                prop = name.removesuffix("_ms")
                raise ValidationError(f"{MONITOR}{prop}: expected a value >= 0, got {value!r}")


def read_monitor(doc: ConfigurationDocument) -> CapacityMonitor:
    """The preemption monitor's settings in `doc` (Hadoop's defaults where unset)."""

    def number(name: str, default: float, integral: bool) -> float:
        raw = doc.value(MONITOR + name)
        if raw is None:
            return default
        try:
            return _java_long(raw) if integral else parse_java_float(raw)
        except ValueError:
            raise ValidationError(
                f"{MONITOR}{name}: expected a number, got {raw.strip()!r}"
            ) from None

    enable = doc.value(MONITOR_ENABLE)
    policies = doc.value(MONITOR_POLICIES)
    enabled = java_boolean(enable, False)
    if enabled and policies is not None and policies.strip():
        enabled = any(p.strip().endswith(POLICY) for p in policies.split(","))
    return CapacityMonitor(
        enabled=enabled,
        monitoring_interval_ms=int(number("monitoring_interval", 3000, True)),
        max_wait_before_kill_ms=int(number("max_wait_before_kill", 15000, True)),
        total_preemption_per_round=number("total_preemption_per_round", 0.1, False),
        max_ignored_over_capacity=number("max_ignored_over_capacity", 0.1, False),
        natural_termination_factor=number("natural_termination_factor", 0.2, False),
    )


def _java_long(raw: str) -> int:
    """``Configuration.getLong``: trimmed, decimal or ``0x`` hexadecimal."""
    text = raw.strip()
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    return sign * (int(body[2:], 16) if body.lower().startswith("0x") else int(body, 10))


def preemption_disabled(doc: ConfigurationDocument, node: QueueNode) -> dict[str, bool]:
    """Each queue's ``disable_preemption`` as Hadoop resolves it
    (``isQueueHierarchyPreemptionDisabled``): unset, or set to anything but true/false
    (``Configuration.getBoolean``'s default), a queue inherits its parent's (root: false);
    set, it holds for the queue and is what its children inherit."""
    out: dict[str, bool] = {}

    def walk(n: QueueNode, inherited: bool) -> None:
        raw = doc.value(key(n.path, "disable_preemption"))
        mine = java_boolean(raw, inherited)
        out[n.path] = mine
        for c in n.children:
            walk(c, mine)

    walk(node, False)
    return out


@dataclass(frozen=True)
class CapacityAllocation(EffectiveAllocation):
    """An `EffectiveAllocation` read from a ``capacity-scheduler.xml``.

    Parameters
    ----------
    capacity : Mapping[str, whatif.capacity.EffectiveQueue]
        Each queue's effective Capacity Scheduler values, by full path.
    max_offswitch_assignments : int
        ``per-node-heartbeat.maximum-offswitch-assignments`` (1; below 1 read as 1, as
        ``CapacitySchedulerConfiguration.getOffSwitchPerHeartbeatLimit`` does): off-switch
        containers per node heartbeat (every container asking for ANY only is one;
        node- and rack-local ones do not count).
    multiple_assignments : bool
        ``per-node-heartbeat.multiple-assignments-enabled`` (true).
    max_container_assignments : int
        ``per-node-heartbeat.maximum-container-assignments`` (-1: no cap).
    node_locality_delay : int
        ``node-locality-delay`` (40): missed scheduling opportunities before a request
        naming hosts takes a rack-local container (capped at the cluster's nodes).
    rack_locality_additional_delay : int
        ``rack-locality-additional-delay`` (-1: off-switch waits by the locality wait
        factor instead): further missed opportunities before an off-switch container.
    rack_locality_full_reset : bool
        ``rack-locality-full-reset`` (true): a rack-local container resets the missed
        opportunities, as a node-local one always does.
    monitor : CapacityMonitor
        The preemption monitor's settings.
    preemption_disabled : Mapping[str, bool]
        Each queue's ``disable_preemption``, inherited down the tree (absent: false).
    """

    capacity: Mapping[str, CapacityQueue] = field(default_factory=lambda: MappingProxyType({}))
    max_offswitch_assignments: int = 1
    multiple_assignments: bool = True
    max_container_assignments: int = -1
    node_locality_delay: int = 40
    rack_locality_additional_delay: int = -1
    rack_locality_full_reset: bool = True
    monitor: CapacityMonitor = field(default_factory=CapacityMonitor)
    preemption_disabled: Mapping[str, bool] = field(default_factory=lambda: MappingProxyType({}))

    def leaf_path(self, name: str) -> str:
        """The leaf a job's queue names: its full path, ``root.`` + it, or (as Hadoop
        accepts) a leaf's short name when no other leaf has it."""
        for path in (name, f"root.{name}"):
            if path in self.capacity:
                return self._leaf(path, name)
        matches = [p for p, q in self.capacity.items() if q.is_leaf and p.endswith(f".{name}")]
        if len(matches) == 1:
            return matches[0]
        raise ValidationError(
            f"queue {name!r}: not a queue of the capacity-scheduler.xml (the Capacity "
            "Scheduler rejects applications to undeclared queues)"
            + (f"; ambiguous among {', '.join(matches)}" if matches else "")
        )

    def _leaf(self, path: str, name: str) -> str:
        if not self.capacity[path].is_leaf:
            raise ValidationError(
                f"queue {name!r}: a parent queue (the Capacity Scheduler accepts "
                "applications only in leaf queues)"
            )
        return path


def read_capacity_allocation(path: str, cluster: Cluster) -> CapacityAllocation:
    """`capacity_allocation` of the file at `path`, refused (`CapacityConfigError`, its
    first error with its line) when the ResourceManager would refuse it."""
    doc = ConfigurationDocument.from_file(path)
    errors = [i for i in validate(doc) if i.severity == "error"]
    if errors:
        raise CapacityConfigError(f"{path}: {errors[0]}")
    return capacity_allocation(doc, cluster)


def capacity_allocation(doc: ConfigurationDocument, cluster: Cluster) -> CapacityAllocation:
    """The predictor's view of a Capacity Scheduler configuration on `cluster`."""
    queues = effective_queues(doc, cluster=Resources(cluster.memory_mb, cluster.vcores))
    offswitch = doc.value(HEARTBEAT + "maximum-offswitch-assignments")
    multiple = doc.value(HEARTBEAT + "multiple-assignments-enabled")
    containers = doc.value(HEARTBEAT + "maximum-container-assignments")
    full_reset = doc.value(PREFIX + "rack-locality-full-reset")
    tree = queue_tree(doc)
    return CapacityAllocation(
        root=_tree(tree, queues),
        capacity=MappingProxyType(dict(queues)),
        max_offswitch_assignments=max(1, parse_or(offswitch, parse_java_int, 1)),
        multiple_assignments=java_boolean(multiple, True),
        max_container_assignments=-1 if containers is None else int(containers.strip()),
        node_locality_delay=parse_or(doc.value(PREFIX + "node-locality-delay"), parse_java_int, 40),
        rack_locality_additional_delay=parse_or(
            doc.value(PREFIX + "rack-locality-additional-delay"), parse_java_int, -1
        ),
        rack_locality_full_reset=java_boolean(full_reset, True),
        monitor=read_monitor(doc),
        preemption_disabled=MappingProxyType(preemption_disabled(doc, tree)),
    )


def _tree(node: QueueNode, queues: Mapping[str, CapacityQueue]) -> EffectiveQueue:
    q = queues[node.path]
    return EffectiveQueue(
        name=node.path,
        children=tuple(_tree(c, queues) for c in node.children),
        is_parent=not q.is_leaf,
        max_running_apps=q.max_parallel_apps,
        max_am_share=q.maximum_am_resource_percent,
        scheduling_policy="fair" if q.ordering_policy == "fair" else "fifo",
    )


@dataclass(frozen=True, eq=False)
class PackedCapacity:
    """Per-queue Capacity Scheduler values, (nq,) float64 in `PackedQueues` order:
    guaranteed memory (MB), absolute capacity (fraction of the cluster), user-limit-factor,
    minimum-user-limit-percent, maximum-am-resource-percent, maximum-applications and its
    per-user limit (-1: none), disable_preemption (0/1), the priority the queue's parent
    orders it by (its ``priority`` under a ``priority-utilization`` parent, else 0:
    `queue_priorities`), size-based weight (0/1: a ``fair`` leaf that enables it); the
    containers one node heartbeat
    may get (`per_heartbeat`: maximum-container-assignments, -1 none) and off-switch
    containers it may get (`offswitch`); the locality delays (`CapacityAllocation`); and
    the preemption monitor's settings."""

    guarantee_mb: np.ndarray
    absolute: np.ndarray
    user_limit_factor: np.ndarray
    user_limit_percent: np.ndarray
    am_percent: np.ndarray
    max_apps: np.ndarray
    max_apps_per_user: np.ndarray
    per_heartbeat: int
    multiple: bool
    no_preemption: np.ndarray
    monitor: CapacityMonitor
    priority: np.ndarray
    size_based_weight: np.ndarray
    offswitch: int = 1
    node_locality_delay: int = 40
    rack_locality_additional_delay: int = -1
    rack_locality_full_reset: bool = True


def _java_factors(values: list[float]) -> np.ndarray:
    """Factors as Hadoop multiplies by them (``Resources.multiplyAndRoundDown``'s ``(long)``
    cast): an infinity (``1e400`` read by ``Float.parseFloat``) becomes the largest Java
    float, so every product saturates finite; NaN becomes 0, as the cast makes it."""
    top = float(np.finfo(np.float32).max)
    factors: np.ndarray = np.nan_to_num(
        np.array(values, dtype=float), nan=0.0, posinf=top, neginf=-top
    )
    return factors


def queue_priorities(allocation: CapacityAllocation, names: tuple[str, ...]) -> np.ndarray:
    """Each queue's priority as its parent orders it: its ``priority`` when the parent's
    ordering policy is ``priority-utilization`` (PriorityUtilizationQueueOrderingPolicy
    with priorities respected), else 0, as under ``utilization`` (root: 0)."""
    out = np.zeros(len(names))
    for i, name in enumerate(names):
        parent = name.rpartition(".")[0]
        if parent and allocation.capacity[parent].ordering_policy == "priority-utilization":
            out[i] = allocation.capacity[name].priority
    return out


def pack_capacity(
    allocation: CapacityAllocation, names: tuple[str, ...], cluster: Cluster
) -> tuple[PackedCapacity, np.ndarray]:
    """The capacity arrays for queues `names`, and their maxima (nq, 2): absolute maximum
    capacity x the cluster's memory, vcores unlimited (DefaultResourceCalculator)."""
    qs = [allocation.capacity[n] for n in names]
    absolute = np.array([q.absolute_capacity or 0.0 for q in qs])
    maximum = np.array([q.absolute_maximum_capacity or 0.0 for q in qs])
    packed = PackedCapacity(
        guarantee_mb=absolute * cluster.memory_mb,
        absolute=absolute,
        user_limit_factor=_java_factors([q.user_limit_factor for q in qs]),
        user_limit_percent=_java_factors([q.minimum_user_limit_percent for q in qs]),
        am_percent=_java_factors([q.maximum_am_resource_percent for q in qs]),
        max_apps=np.array([_limit(q.maximum_applications) for q in qs]),
        max_apps_per_user=np.array([_limit(q.maximum_applications_per_user) for q in qs]),
        # canAllocateMore: -1 no cap, else at least the first container
        per_heartbeat=_container_cap(allocation.max_container_assignments),
        multiple=allocation.multiple_assignments,
        no_preemption=np.array(
            [float(allocation.preemption_disabled.get(n, False)) for n in names]
        ),
        monitor=allocation.monitor,
        priority=queue_priorities(allocation, names),
        size_based_weight=np.array(
            [float(q.is_leaf and q.ordering_policy == "fair" and q.size_based_weight) for q in qs]
        ),
        offswitch=max(1, allocation.max_offswitch_assignments),
        node_locality_delay=allocation.node_locality_delay,
        rack_locality_additional_delay=allocation.rack_locality_additional_delay,
        rack_locality_full_reset=allocation.rack_locality_full_reset,
    )
    return packed, np.column_stack([maximum * cluster.memory_mb, np.full(len(qs), np.inf)])


def _container_cap(value: int) -> int:
    return -1 if value == -1 else max(value, 1)


def _limit(value: int | None) -> float:
    return -1.0 if value is None else float(value)


def capacity_settings(settings: SchedulerSettings, capacity: PackedCapacity) -> SchedulerSettings:
    """The settings the Capacity Scheduler mode runs with: its per-node-heartbeat caps
    (CapacityScheduler.canAllocateMore) in place of the Fair Scheduler's assign-multiple,
    no continuous scheduling, and preemption (the preemption monitor) on when the settings
    ask for it or the file enables the monitor."""
    return replace(
        settings,
        preemption=settings.preemption or capacity.monitor.enabled,
        assign_multiple=capacity.multiple,
        max_assign=capacity.per_heartbeat,
        dynamic_max_assign=False,
        continuous_scheduling=False,
    )


def memory_only(
    requests: Mapping[str, np.ndarray], job: Mapping[str, np.ndarray], nodes: np.ndarray
) -> None:
    """DefaultResourceCalculator, in place on `pack`'s request and job fields and the
    nodes' capacity (n, 2): every container gets 1 vcore (its ``normalize``) and vcores
    never limit (the cluster's and the nodes' are unlimited)."""
    requests["task_req"][:, 1] = 1.0
    job["job_am"][job["job_has_am"] == 1, 1] = 1.0
    requests["cluster"][1] = math.inf
    nodes[:, 1] = math.inf
