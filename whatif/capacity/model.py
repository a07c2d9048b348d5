"""The Capacity Scheduler queue tree and its effective settings.

Queues are declared by ``yarn.scheduler.capacity.<queue-path>.queues`` (a comma list
of child names, each trimmed, as ``CapacitySchedulerConfiguration.getQueues`` reads
it), starting at ``root``. Per-queue settings are ``yarn.scheduler.capacity.<path>.<name>``.

`effective_queues` resolves what Hadoop uses for each queue: capacity mode and
absolute capacity (fractions of the cluster), maximum capacity, state (inherited
from the parent when unset), ordering policy, and the user and application limits
with Hadoop's defaults (``yarn.scheduler.capacity.<setting>`` for
``maximum-am-resource-percent`` (0.1), ``user-limit-factor`` (1),
``minimum-user-limit-percent`` (100); ``maximum-applications`` defaults to
``global-queue-max-application`` or else the system limit (10000) times the queue's
absolute capacity). Values Hadoop would refuse are left at their defaults here;
`whatif.capacity.validate` reports them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from whatif.allocation.effective import Resources
from whatif.allocation.java_values import java_int_cast
from whatif.capacity.document import ConfigurationDocument, Property
from whatif.capacity.values import (
    CapacityValue,
    MaximumCapacity,
    Mode,
    java_boolean,
    parse_capacity,
    parse_java_float,
    parse_java_int,
    parse_maximum_capacity,
    parse_or,
)
from whatif.queues import QueueTree

PREFIX = "yarn.scheduler.capacity."
ROOT = "root"

DEFAULT_MAXIMUM_APPLICATIONS = 10000
DEFAULT_AM_RESOURCE_PERCENT = 0.1
DEFAULT_USER_LIMIT_PERCENT = 100.0
DEFAULT_USER_LIMIT_FACTOR = 1.0

LEAF_POLICIES = ("fifo", "fair", "fifo-with-partitions", "fifo-for-pending-apps")
PARENT_POLICIES = ("utilization", "priority-utilization")
POLICY_CLASSES = {
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicy": "fifo",
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FairOrderingPolicy": "fair",
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy."
    "FifoOrderingPolicyWithExclusivePartitions": "fifo-with-partitions",
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy."
    "FifoOrderingPolicyForPendingApps": "fifo-for-pending-apps",
}

#: Per-queue settings tempo models, name -> value kind.
QUEUE_SETTINGS: Mapping[str, str] = {
    "queues": "list",
    "capacity": "capacity",
    "maximum-capacity": "maximum-capacity",
    "state": "state",
    "ordering-policy": "policy",
    "user-limit-factor": "float",
    "minimum-user-limit-percent": "float",
    "maximum-am-resource-percent": "float",
    "maximum-applications": "int",
    "max-parallel-apps": "int",
    "maximum-allocation-mb": "int",
    "maximum-allocation-vcores": "int",
    "priority": "int",
    "disable_preemption": "bool",
    "allow-zero-capacity-sum": "bool",
    "reservable": "bool",
    "ordering-policy.fair.enable-size-based-weight": "bool",
    "auto-create-child-queue.enabled": "bool",
    "acl_submit_applications": "acl",
    "acl_administer_queue": "acl",
}
#: Scheduler-wide settings tempo models, name (after the prefix) -> value kind.
GLOBAL_SETTINGS: Mapping[str, str] = {
    "maximum-applications": "int",
    "maximum-am-resource-percent": "float",
    "global-queue-max-application": "int",
    "user-limit-factor": "float",
    "minimum-user-limit-percent": "float",
    "max-parallel-apps": "int",
    "node-locality-delay": "int",
    "rack-locality-additional-delay": "int",
    "rack-locality-full-reset": "bool",
    "resource-calculator": "text",
    "legacy-queue-mode.enabled": "bool",
}


def key(queue: str, setting: str) -> str:
    """The property name of `setting` on `queue` (a full path)."""
    return f"{PREFIX}{queue}.{setting}"


@dataclass(frozen=True)
class QueueNode(QueueTree):
    """One declared queue: full path, short name, children, and the line declaring it."""

    path: str
    name: str
    line: int
    children: tuple[QueueNode, ...] = ()


def child_names(doc: ConfigurationDocument, path: str) -> list[str]:
    """The names listed in ``<path>.queues``, trimmed, as ``getQueues`` returns them."""
    raw = doc.value(key(path, "queues"))
    if raw is None or raw == "":
        return []
    return [name.strip() for name in raw.split(",")]


def queue_tree(doc: ConfigurationDocument) -> QueueNode:
    """The declared tree from ``root`` (empty and repeated names are skipped; `validate` reports them)."""

    def build(path: str, name: str, line: int, depth: int) -> QueueNode:
        children, seen = [], set()
        prop = doc.get(key(path, "queues"))
        child_line = prop.line if prop is not None else line
        if depth < 64:
            for child in child_names(doc, path):
                if not child or child in seen or "." in child:
                    continue
                seen.add(child)
                children.append(build(f"{path}.{child}", child, child_line, depth + 1))
        return QueueNode(path, name, line, tuple(children))

    root_prop = doc.get(key(ROOT, "queues"))
    return build(ROOT, ROOT, root_prop.line if root_prop is not None else doc.line, 0)


def queue_of(key_name: str, paths: set[str]) -> tuple[str, str] | None:
    """(queue path, setting) of a per-queue property name, or None for a global one.

    A name ending in a known setting splits there (so an undeclared queue is still
    named); otherwise at the longest declared queue path.
    """
    if not (key_name.startswith(PREFIX + ROOT + ".") or key_name == PREFIX + ROOT):
        return None
    rest = key_name[len(PREFIX) :]
    for setting in sorted(QUEUE_SETTINGS, key=lambda s: -s.count(".")):
        if rest.endswith("." + setting):
            return rest[: -len(setting) - 1], setting
    parts = rest.split(".")
    best = 1
    for length in range(1, len(parts)):
        if ".".join(parts[:length]) in paths:
            best = length
    return ".".join(parts[:best]), ".".join(parts[best:])


@dataclass(frozen=True)
class EffectiveQueue:
    """What Hadoop uses for one queue.

    ``capacity`` is the percentage of the parent (percentage mode), ``weight`` the
    weight (weight mode), ``min_resources`` the absolute guarantee (absolute mode).
    ``absolute_capacity`` and ``absolute_maximum_capacity`` are fractions of the
    cluster (None in absolute mode without a cluster size). ``maximum_applications``
    and ``maximum_applications_per_user`` are for leaves only (None for parents).
    ``priority`` is the queue's ``priority`` (0), which a ``priority-utilization``
    parent orders its children by (`PriorityUtilizationQueueOrderingPolicy`).
    ``user_weights`` are the ``user-settings.<user>.weight`` in force for the queue: its
    ancestors' overridden by its own (``getUserWeightsFromHierarchy``); a user not named
    weighs 1. ``size_based_weight`` is ``ordering-policy.fair.enable-size-based-weight``
    (false), which a leaf ordered ``fair`` weighs its apps by (`FairOrderingPolicy`).
    """

    path: str
    is_leaf: bool
    mode: Mode
    capacity: float | None
    weight: float | None
    min_resources: Resources | None
    maximum_capacity: float
    max_resources: Resources | None
    absolute_capacity: float | None
    absolute_maximum_capacity: float | None
    state: str
    ordering_policy: str
    user_limit_factor: float
    minimum_user_limit_percent: float
    maximum_am_resource_percent: float
    maximum_applications: int | None
    maximum_applications_per_user: int | None
    max_parallel_apps: int | None
    disable_preemption: bool
    priority: int = 0
    user_weights: Mapping[str, float] = field(default_factory=dict)
    size_based_weight: bool = False


def read_capacity(doc: ConfigurationDocument, path: str) -> CapacityValue | None:
    """The queue's capacity as Hadoop reads it (None if unset or unreadable)."""
    raw = doc.value(key(path, "capacity"))
    if raw is None or path == ROOT:
        return None
    try:
        return parse_capacity(raw, path)
    except ValueError:
        return None


def read_maximum(doc: ConfigurationDocument, path: str) -> MaximumCapacity:
    raw = doc.value(key(path, "maximum-capacity"))
    if raw is None:
        return MaximumCapacity()
    try:
        return parse_maximum_capacity(raw, path)
    except ValueError:
        return MaximumCapacity()


def _float(doc: ConfigurationDocument, name: str, default: float) -> float:
    return parse_or(doc.value(name), parse_java_float, default)


def _int(doc: ConfigurationDocument, name: str, default: int) -> int:
    return parse_or(doc.value(name), parse_java_int, default)


def _resources(absolute: object, missing: float) -> Resources | None:
    """Absolute resources as `Resources`; a type not written is `missing` (0 or inf)."""
    if absolute is None:
        return None
    memory = getattr(absolute, "memory_mb", None)
    vcores = getattr(absolute, "vcores", None)
    return Resources(missing if memory is None else memory, missing if vcores is None else vcores)


def _policy(raw: str | None, default: str) -> str:
    if raw is None:
        return default
    text = raw.strip()
    return POLICY_CLASSES.get(text, text)


@dataclass(frozen=True)
class _Defaults:
    """The scheduler-wide values a queue falls back on, read once per file."""

    system_apps: int
    global_apps: int
    am_percent: float
    user_limit_factor: float
    user_limit_percent: float

    @classmethod
    def read(cls, doc: ConfigurationDocument) -> _Defaults:
        return cls(
            system_apps=_int(doc, PREFIX + "maximum-applications", DEFAULT_MAXIMUM_APPLICATIONS),
            global_apps=_int(doc, PREFIX + "global-queue-max-application", 0),
            am_percent=_float(
                doc, PREFIX + "maximum-am-resource-percent", DEFAULT_AM_RESOURCE_PERCENT
            ),
            user_limit_factor=_float(doc, PREFIX + "user-limit-factor", DEFAULT_USER_LIMIT_FACTOR),
            user_limit_percent=_float(
                doc, PREFIX + "minimum-user-limit-percent", DEFAULT_USER_LIMIT_PERCENT
            ),
        )


def effective_queues(
    doc: ConfigurationDocument, *, cluster: Resources | None = None
) -> dict[str, EffectiveQueue]:
    """Every declared queue's effective settings, parents before children."""
    defaults = _Defaults.read(doc)
    result: dict[str, EffectiveQueue] = {}

    def visit(node: QueueNode, parent: EffectiveQueue | None, share: float | None) -> None:
        queue = _effective_queue(doc, node, parent, share, defaults, cluster)
        result[node.path] = queue
        shares = child_shares(doc, node)
        for child in node.children:
            visit(child, queue, shares.get(child.path))

    visit(queue_tree(doc), None, None)
    return result


def _fraction_of(resources: Resources | None, cluster: Resources | None) -> float | None:
    """Absolute resources as a fraction of the cluster's memory (None when unknown)."""
    if resources is None or cluster is None or not cluster.memory_mb:
        return None
    return min(resources.memory_mb / cluster.memory_mb, 1.0)


def _absolute_capacities(
    parent: EffectiveQueue | None,
    share: float | None,
    mode: Mode,
    resources: tuple[Resources | None, Resources | None],
    maximum_percent: float,
    cluster: Resources | None,
) -> tuple[float | None, float | None]:
    """(absolute capacity, absolute maximum capacity) of a queue: the root has the whole
    cluster; a child its `share` of the parent's, or its absolute resources' fraction."""
    if parent is None:
        return 1.0, 1.0
    min_res, max_res = resources
    if mode == "absolute":
        absolute = _fraction_of(min_res, cluster)
    elif parent.absolute_capacity is None or share is None:
        absolute = None
    else:
        absolute = parent.absolute_capacity * share
    if max_res is not None:
        absolute_max = _fraction_of(max_res, cluster)
    elif parent.absolute_maximum_capacity is None:
        absolute_max = None
    else:
        absolute_max = parent.absolute_maximum_capacity * maximum_percent / 100.0
    return absolute, absolute_max


def _state(raw: str | None, parent: EffectiveQueue | None) -> str:
    """RUNNING or STOPPED as written, else the parent's state (RUNNING at the root)."""
    if raw is not None and raw.strip().upper() in ("RUNNING", "STOPPED"):
        return raw.strip().upper()
    return parent.state if parent is not None else "RUNNING"


def _application_limits(
    doc: ConfigurationDocument,
    path: str,
    absolute: float | None,
    user_limits: tuple[float, float],
    defaults: _Defaults,
) -> tuple[int | None, int | None]:
    """A leaf's (maximum applications, maximum applications per user), as
    LeafQueue computes them from its own setting, the global one or its capacity."""
    apps = _int(doc, key(path, "maximum-applications"), -1)
    if apps < 0:
        if defaults.global_apps > 0:
            apps = defaults.global_apps
        elif absolute is not None:
            apps = int(defaults.system_apps * absolute)
        else:
            return None, None
    ulf, mulp = user_limits
    if ulf == -1:
        return apps, apps
    # Java float arithmetic and (int) cast: an infinite factor or percentage means no
    # per-user cap (MAX_VALUE), NaN a cap of 0, as LeafQueue.setupQueueConfigs computes
    with np.errstate(over="ignore", invalid="ignore"):
        per_user = np.float32(apps) * (np.float32(mulp) / np.float32(100.0)) * np.float32(ulf)
    return apps, min(apps, java_int_cast(float(per_user)))


def _effective_queue(
    doc: ConfigurationDocument,
    node: QueueNode,
    parent: EffectiveQueue | None,
    share: float | None,
    defaults: _Defaults,
    cluster: Resources | None,
) -> EffectiveQueue:
    """One queue's effective settings, given its parent's and its share of the parent."""
    path = node.path
    capacity = read_capacity(doc, path)
    maximum = read_maximum(doc, path)
    mode: Mode = "percentage" if capacity is None else capacity.mode
    min_res = _resources(capacity.resources, 0.0) if capacity is not None else None
    max_res = _resources(maximum.resources, math.inf)
    absolute, absolute_max = _absolute_capacities(
        parent, share, mode, (min_res, max_res), maximum.percent, cluster
    )
    policy_raw = doc.value(key(path, "ordering-policy"))
    if node.is_leaf:
        policy = _policy(policy_raw, "fifo")
    else:
        policy = _policy(policy_raw, parent.ordering_policy if parent else "utilization")
    ulf = _float(doc, key(path, "user-limit-factor"), defaults.user_limit_factor)
    mulp = _float(doc, key(path, "minimum-user-limit-percent"), defaults.user_limit_percent)
    apps, apps_per_user = (
        _application_limits(doc, path, absolute, (ulf, mulp), defaults)
        if node.is_leaf
        else (None, None)
    )
    parallel_raw = doc.value(key(path, "max-parallel-apps"))
    parallel = _int(doc, key(path, "max-parallel-apps"), -1) if parallel_raw else -1
    disable = doc.value(key(path, "disable_preemption"))
    return EffectiveQueue(
        path=path,
        is_leaf=node.is_leaf,
        mode=mode,
        capacity=(100.0 if parent is None else capacity.percent if capacity else 0.0)
        if mode == "percentage"
        else None,
        weight=capacity.weight if capacity is not None and mode == "weight" else None,
        min_resources=min_res,
        maximum_capacity=maximum.percent,
        max_resources=max_res,
        absolute_capacity=absolute,
        absolute_maximum_capacity=absolute_max,
        state=_state(doc.value(key(path, "state")), parent),
        ordering_policy=policy,
        user_limit_factor=ulf,
        minimum_user_limit_percent=mulp,
        maximum_am_resource_percent=_float(
            doc, key(path, "maximum-am-resource-percent"), defaults.am_percent
        ),
        maximum_applications=apps,
        maximum_applications_per_user=apps_per_user,
        max_parallel_apps=parallel if parallel >= 0 else None,
        disable_preemption=java_boolean(disable, parent.disable_preemption if parent else False),
        priority=_int(doc, key(path, "priority"), 0),
        user_weights={**(parent.user_weights if parent else {}), **read_user_weights(doc, path)},
        size_based_weight=java_boolean(
            doc.value(key(path, "ordering-policy.fair.enable-size-based-weight")), False
        ),
    )


#: ``user-settings.<user>.weight``: the queue's own user weights are the properties
#: under this prefix of the queue's, ending in this suffix.
USER_SETTINGS, WEIGHT_SUFFIX = "user-settings.", ".weight"


def user_weight_properties(
    doc: ConfigurationDocument, path: str
) -> Iterator[tuple[str, str, Property]]:
    """(user, value text, property) of each ``user-settings.<user>.weight`` `path` sets
    itself with a value (``UserWeights.createByConfig``)."""
    prefix = key(path, USER_SETTINGS)
    for name, prop in doc.values.items():
        if name.startswith(prefix) and name.endswith(WEIGHT_SUFFIX) and prop.raw is not None:
            yield name[len(prefix) : -len(WEIGHT_SUFFIX)], prop.raw, prop


def read_user_weights(doc: ConfigurationDocument, path: str) -> dict[str, float]:
    """The user weights `path` sets itself; a value that is not a number is left out here
    (`whatif.capacity.validate` reports it)."""
    weights = {}
    for user, text, _ in user_weight_properties(doc, path):
        try:
            weights[user] = parse_java_float(text)
        except ValueError:
            continue
    return weights


def child_shares(doc: ConfigurationDocument, node: QueueNode) -> dict[str, float | None]:
    """Each child's fraction of `node` (percentage / 100, or weight / sum of weights).

    None for a child in absolute or vector mode, whose share depends on the cluster.
    """
    values = {child.path: read_capacity(doc, child.path) for child in node.children}
    weights = [v.weight for v in values.values() if v is not None and v.mode == "weight"]
    total = sum(w for w in weights if w > 0)
    shares: dict[str, float | None] = {}
    for path, value in values.items():
        if value is None:
            shares[path] = 0.0
        elif value.mode == "percentage":
            shares[path] = value.percent / 100.0
        elif value.mode == "weight":
            shares[path] = max(value.weight, 0.0) / total if total > 0 else 0.0
        else:
            shares[path] = None
    return shares
