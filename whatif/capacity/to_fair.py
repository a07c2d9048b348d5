"""Capacity Scheduler configuration -> Fair Scheduler allocation file (the reverse of `convert`).

Hadoop ships no such tool (fs2cs goes one way), so the mapping inverts fs2cs's:

=================================  ==========================================================
Capacity Scheduler                 Fair Scheduler
=================================  ==========================================================
``<path>.queues``                  nested ``<queue>`` elements
``capacity`` percentage ``40``     ``<weight>40</weight>``: weights share like the siblings'
                                   percentages, so the ratios are the same
``capacity`` weight ``3w``         ``<weight>3</weight>``
``capacity`` absolute              ``minResources`` (the guarantee itself) and a weight from
                                   the memory (else vcores) share among the siblings
``maximum-capacity``               ``maxResources`` ``P% memory, P% cpu`` with P the absolute
                                   maximum (a percentage of the cluster, as Fair reads it);
                                   absolute resources as ``M mb, V vcores``; omitted at 100
``max-parallel-apps``              ``maxRunningApps`` (global: ``queueMaxAppsDefault``)
``user.max-parallel-apps``         ``userMaxAppsDefault``; ``user.<name>.max-parallel-apps``
                                   -> ``<user name="..."><maxRunningApps>``
``maximum-am-resource-percent``    ``maxAMShare`` on leaves that differ from the global, whose
                                   value (default 0.1) is ``queueMaxAMShareDefault``
``ordering-policy`` fifo / fair    ``schedulingPolicy`` fifo / fair on every leaf (the
                                   Capacity Scheduler's default is fifo, Fair's is fair);
                                   fair becomes drf under the DominantResourceCalculator
``disable_preemption``             ``allowPreemptionFrom`` false
``maximum-allocation-mb/-vcores``  ``maxContainerAllocation``
``acl_submit_applications`` /      ``aclSubmitApps`` / ``aclAdministerApps``
``acl_administer_queue``
=================================  ==========================================================

Every property read is accounted for; the rest are listed in the report with the
reason (a STOPPED state, user limits, ``maximum-applications``, node labels, queue
mappings, the preemption monitor, ...), as are absolute maxima under a queue whose
share needs the cluster size when no cluster is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from whatif.allocation.effective import Resources
from whatif.allocation.validate import validate as validate_allocation
from whatif.capacity.convert import DRF_CALCULATOR, converted_head, refuse_unconvertible
from whatif.capacity.document import ConfigurationDocument
from whatif.capacity.model import (
    DEFAULT_AM_RESOURCE_PERCENT,
    PREFIX,
    EffectiveQueue,
    QueueNode,
    effective_queues,
    key,
    queue_tree,
    read_capacity,
    read_maximum,
)
from whatif.capacity.values import parse_java_float, parse_java_int, parse_or

_LEAF_POLICY = {"fifo": "fifo", "fair": "fair", "fifo-with-partitions": "fifo"}


@dataclass(frozen=True)
class FairQueue:
    """One ``<queue>`` to write: its short name, settings in order, and children."""

    name: str
    settings: tuple[tuple[str, str], ...]
    children: tuple[FairQueue, ...] = ()


@dataclass(frozen=True)
class FairConversion:
    """The allocation file's queues and top-level settings, and what did not carry over."""

    queues: tuple[FairQueue, ...]
    top: tuple[tuple[str, str], ...]
    users: tuple[tuple[str, int], ...]
    not_carried: tuple[str, ...]
    notes: tuple[str, ...]

    def to_xml(self, *, source: str = "") -> str:
        """The allocation file's text: two-space indentation."""
        lines = converted_head("allocations", source)

        def emit(queue: FairQueue, depth: int) -> None:
            pad = "  " * depth
            lines.append(f'{pad}<queue name="{_escape(queue.name)}">')
            lines.extend(f"{pad}  <{t}>{_escape(v)}</{t}>" for t, v in queue.settings)
            for child in queue.children:
                emit(child, depth + 1)
            lines.append(f"{pad}</queue>")

        for queue in self.queues:
            emit(queue, 1)
        for user, limit in self.users:
            lines.append(f'  <user name="{_escape(user)}">')
            lines.append(f"    <maxRunningApps>{limit}</maxRunningApps>")
            lines.append("  </user>")
        lines.extend(f"  <{t}>{_escape(v)}</{t}>" for t, v in self.top)
        lines.append("</allocations>")
        return "\n".join(lines) + "\n"

    def checked_xml(self, file: str) -> str:
        """`to_xml` as `Conversion.checked_xml` gives it: refused where Hadoop would."""
        return refuse_unconvertible(
            file, self.to_xml(source=file), validate_allocation, "allocation file"
        )


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _number(value: float) -> str:
    rounded = round(value, 3)
    return str(int(rounded)) if float(rounded).is_integer() else f"{rounded:g}"


#: Why a setting has no Fair Scheduler counterpart (matched on the property's ending).
_NO_COUNTERPART: tuple[tuple[str, str], ...] = (
    ("user-limit-factor", "user limits: the Fair Scheduler has no per-user share of a queue"),
    ("minimum-user-limit-percent", "user limits: the Fair Scheduler has no per-user share"),
    ("maximum-applications", "Fair has no cap on running plus pending applications"),
    ("global-queue-max-application", "Fair has no cap on running plus pending applications"),
    ("node-labels", "node labels: the Fair Scheduler has none"),
    ("node-label-expression", "node labels: the Fair Scheduler has none"),
    ("queue-mappings", "placement: write a queuePlacementPolicy by hand"),
    ("locality-delay", "locality: set yarn.scheduler.fair.locality.threshold.* in yarn-site.xml"),
    ("enable-size-based-weight", "set yarn.scheduler.fair.sizebasedweight in yarn-site.xml"),
    ("priority", "queue priority: the Fair Scheduler has none"),
    ("auto-create", "auto-created queues: use a placement rule with create=true"),
    ("auto-queue-creation", "auto-created queues: use a placement rule with create=true"),
    ("reservable", "the reservation system is not converted"),
    ("user-settings", "user weights: the Fair Scheduler has none"),
)


def _why(name: str) -> str:
    if name.startswith("yarn.resourcemanager.monitor.capacity.preemption."):
        return "the preemption monitor: Fair preempts by its queues' preemption timeouts"
    for ending, reason in _NO_COUNTERPART:
        if ending in name:
            return reason
    return "no Fair Scheduler counterpart"


def to_fair(doc: ConfigurationDocument, *, cluster: Resources | None = None) -> FairConversion:
    """Convert `doc`; `cluster` lets maxima under absolute-capacity queues convert."""
    return _ToFair(doc, cluster).run()


class _ToFair:
    """One conversion: reads the file's properties, remembering each one read (the rest
    are reported as not converted), and collects what was lost or converted with a note."""

    def __init__(self, doc: ConfigurationDocument, cluster: Resources | None) -> None:
        self.doc = doc
        self.cluster = cluster
        self.queues = effective_queues(doc, cluster=cluster)
        self.used: set[str] = set()
        self.lost: list[str] = []
        self.notes: list[str] = []
        self.drf = False
        self.am_default = DEFAULT_AM_RESOURCE_PERCENT

    def read(self, name: str) -> str | None:
        """Property `name`, trimmed, marked as used."""
        value = self.doc.value(name)
        if value is not None:
            self.used.add(name)
        return None if value is None else value.strip()

    def run(self) -> FairConversion:
        top = self.file_wide()
        users = self.user_limits()
        root = self.visit(queue_tree(self.doc), None)
        top_queues = (root,) if root.settings else root.children
        for name in self.doc.names():
            if name not in self.used:
                self.lost.append(f"{name}: {_why(name)}")
        return FairConversion(
            top_queues, tuple(top), tuple(users), tuple(self.lost), tuple(self.notes)
        )

    def file_wide(self) -> list[tuple[str, str]]:
        """The file-wide defaults (queueMaxAppsDefault, ...); sets `drf` and `am_default`."""
        read = self.read
        self.drf = (read(PREFIX + "resource-calculator") or "") == DRF_CALCULATOR
        am_raw = read(PREFIX + "maximum-am-resource-percent")
        self.am_default = parse_or(am_raw, parse_java_float, DEFAULT_AM_RESOURCE_PERCENT)
        top: list[tuple[str, str]] = []
        parallel = read(PREFIX + "max-parallel-apps")
        if parallel is not None:
            top.append(("queueMaxAppsDefault", parallel))
        user_default = read(PREFIX + "user.max-parallel-apps")
        if user_default is not None:
            top.append(("userMaxAppsDefault", user_default))
        top.append(("queueMaxAMShareDefault", _number(self.am_default)))
        if am_raw is None:
            self.notes.append(
                "queueMaxAMShareDefault 0.1: the Capacity Scheduler's default "
                "maximum-am-resource-percent (Fair's own default is 0.5)"
            )
        if self.drf:
            top.append(("defaultQueueSchedulingPolicy", "drf"))
        return top

    def user_limits(self) -> list[tuple[str, int]]:
        """Each ``user.<name>.max-parallel-apps``: (name, limit)."""
        users: list[tuple[str, int]] = []
        for name in self.doc.names():
            middle = name[len(PREFIX + "user.") : -len(".max-parallel-apps")]
            if (
                name.startswith(PREFIX + "user.")
                and name.endswith(".max-parallel-apps")
                and middle
                and "." not in middle
            ):
                users.append((middle, parse_or(self.read(name), parse_java_int, 0)))
        return users

    def visit(self, node: QueueNode, weight: str | None) -> FairQueue:
        """The queue of `node` and, below it, its children's."""
        read = self.read
        settings: list[tuple[str, str]] = []
        read(key(node.path, "queues"))
        if weight is not None:
            settings.append(("weight", weight))
        if node.path != "root":
            queue = self.queues[node.path]
            settings += _capacity_settings(
                node, queue, self.doc, self.cluster, read, self.lost, self.notes
            )
        settings += self.limits_and_policy(node)
        settings += _container_limit(node.path, read, self.lost)
        settings += self.acls(node.path)
        state = read(key(node.path, "state"))
        if state is not None and state.upper() == "STOPPED":
            self.lost.append(
                f"{node.path}: state STOPPED: the Fair Scheduler has no queue state; the queue "
                "accepts applications (drain it by its aclSubmitApps or maxRunningApps 0)"
            )
        weights = _child_weights(self.doc, node, read, self.notes)
        children = tuple(self.visit(c, weights[c.path]) for c in node.children)
        return FairQueue(node.name, tuple(settings), children)

    def limits_and_policy(self, node: QueueNode) -> list[tuple[str, str]]:
        """maxRunningApps, maxAMShare, schedulingPolicy and allowPreemptionFrom."""
        read, queue = self.read, self.queues[node.path]
        settings: list[tuple[str, str]] = []
        limit = read(key(node.path, "max-parallel-apps"))
        if limit is not None:
            settings.append(("maxRunningApps", limit))
        share = read(key(node.path, "maximum-am-resource-percent"))
        am_share = queue.maximum_am_resource_percent
        if node.is_leaf and share is not None and am_share != self.am_default:
            settings.append(("maxAMShare", _number(am_share)))
        policy = read(key(node.path, "ordering-policy"))
        if node.is_leaf:
            fair_policy = _LEAF_POLICY.get(queue.ordering_policy, "fifo")
            if fair_policy == "fair" and self.drf:
                fair_policy = "drf"
            if queue.ordering_policy not in ("fifo", "fair"):
                self.notes.append(
                    f"{node.path}: ordering-policy {queue.ordering_policy} -> schedulingPolicy fifo"
                )
            settings.append(("schedulingPolicy", fair_policy))
        elif policy is not None:
            self.notes.append(
                f"{node.path}: ordering-policy {policy} on a parent: Fair orders by its policy"
            )
        disable = read(key(node.path, "disable_preemption"))
        if disable is not None and disable.lower() == "true":
            settings.append(("allowPreemptionFrom", "false"))
        return settings

    def acls(self, path: str) -> list[tuple[str, str]]:
        """aclSubmitApps and aclAdministerApps, as written (not trimmed)."""
        settings: list[tuple[str, str]] = []
        for cs_name, fair_name in (
            ("acl_submit_applications", "aclSubmitApps"),
            ("acl_administer_queue", "aclAdministerApps"),
        ):
            acl = self.doc.value(key(path, cs_name))
            if acl is not None:
                self.used.add(key(path, cs_name))
                settings.append((fair_name, acl))
        return settings


def _child_weights(
    doc: ConfigurationDocument,
    node: QueueNode,
    read: Callable[[str], str | None],
    notes: list[str],
) -> dict[str, str]:
    """Each child's ``<weight>``: its percentage, its weight, or its memory share (absolute)."""
    values = {}
    for child in node.children:
        read(key(child.path, "capacity"))
        values[child.path] = read_capacity(doc, child.path)
    absolute = {p: v.resources for p, v in values.items() if v is not None and v.mode == "absolute"}
    by_memory = all(r is not None and r.memory_mb for r in absolute.values())
    total = sum(
        ((r.memory_mb if by_memory else r.vcores) or 0.0)
        for r in absolute.values()
        if r is not None
    )
    if absolute:
        notes.append(
            f"{node.path}: children in absolute mode: weights from their "
            f"{'memory' if by_memory else 'vcores'} shares, the guarantee as minResources"
        )
    weights = {}
    for path, value in values.items():
        if value is None:
            weights[path] = "0"
        elif value.mode == "percentage":
            weights[path] = _number(value.percent)
        elif value.mode == "weight":
            weights[path] = _number(value.weight)
        elif value.mode == "absolute" and value.resources is not None and total > 0:
            amount = value.resources.memory_mb if by_memory else value.resources.vcores
            weights[path] = _number(100.0 * (amount or 0.0) / total)
        else:
            weights[path] = "1"
    return weights


def _capacity_settings(
    node: QueueNode,
    queue: EffectiveQueue,
    doc: ConfigurationDocument,
    cluster: Resources | None,
    read: Callable[[str], str | None],
    lost: list[str],
    notes: list[str],
) -> list[tuple[str, str]]:
    """``minResources`` (absolute capacity) and ``maxResources`` for one queue."""
    settings: list[tuple[str, str]] = []
    capacity = read_capacity(doc, node.path)
    if capacity is not None and capacity.mode == "vector":
        lost.append(f"{node.path}: capacity vector {capacity}: not modelled; weight 1")
    if capacity is not None and capacity.mode == "absolute" and queue.min_resources is not None:
        res = queue.min_resources
        settings.append(
            ("minResources", f"{_number(res.memory_mb)} mb, {_number(res.vcores)} vcores")
        )
    raw_max = read(key(node.path, "maximum-capacity"))
    maximum = read_maximum(doc, node.path)
    if maximum.resources is not None:
        memory, vcores = maximum.resources.memory_mb, maximum.resources.vcores
        if cluster is not None:
            memory = cluster.memory_mb if memory is None else memory
            vcores = cluster.vcores if vcores is None else vcores
        if memory is None or vcores is None:
            lost.append(
                f"{node.path}: maximum-capacity {raw_max}: names one resource type; "
                "not converted without --cluster (maxResources needs both)"
            )
        else:
            settings.append(("maxResources", f"{_number(memory)} mb, {_number(vcores)} vcores"))
        return settings
    fraction = queue.absolute_maximum_capacity
    if fraction is None:
        lost.append(
            f"{node.path}: maximum-capacity {raw_max or '100'}: a share of absolute resources; "
            "not converted without --cluster"
        )
    elif fraction < 1.0 - 1e-9:
        pct = _number(fraction * 100.0)
        settings.append(("maxResources", f"{pct}% memory, {pct}% cpu"))
        if raw_max is not None and abs(fraction * 100.0 - maximum.percent) > 1e-6:
            notes.append(
                f"{node.path}: maximum-capacity {raw_max}% of the parent -> maxResources {pct}% "
                "of the cluster"
            )
    return settings


def _container_limit(
    path: str, read: Callable[[str], str | None], lost: list[str]
) -> list[tuple[str, str]]:
    memory = read(key(path, "maximum-allocation-mb"))
    vcores = read(key(path, "maximum-allocation-vcores"))
    if memory is not None and vcores is not None:
        return [("maxContainerAllocation", f"{memory} mb, {vcores} vcores")]
    if memory is not None or vcores is not None:
        lost.append(
            f"{path}: maximum-allocation-{'mb' if memory is not None else 'vcores'} alone: "
            "maxContainerAllocation needs both memory and vcores"
        )
    return []
