"""Fair Scheduler allocation file -> Capacity Scheduler configuration, after Hadoop's ``fs2cs``.

The mapping follows ``FSConfigToCSConfigConverter`` and ``FSQueueConverter``:

=============================  ===============================================================
Fair Scheduler                 Capacity Scheduler
=============================  ===============================================================
queue tree                     ``<path>.queues``
weight                         ``capacity``: ``Nw`` (weight mode, fs2cs's default) or, with
                               ``percentage=True``, weight / sum of siblings' weights in
                               percent to 3 decimals, the rounding remainder on the largest
                               (``WeightToPercentConverter``); all-zero weights set
                               ``allow-zero-capacity-sum``
maxRunningApps                 ``max-parallel-apps`` (running applications, as in fs2cs;
                               Hadoop 1's ``maxRunningJobs`` too)
maxAMShare                     ``maximum-am-resource-percent`` where it differs from the
                               default (-1, no limit, becomes 1.0)
queueMaxAMShareDefault         ``yarn.scheduler.capacity.maximum-am-resource-percent``
schedulingPolicy (leaves)      ``ordering-policy``: fair and drf -> fair, fifo -> fifo; drf
                               anywhere sets the DominantResourceCalculator
maxContainerAllocation         ``maximum-allocation-mb`` / ``maximum-allocation-vcores``
allowPreemptionFrom false      ``disable_preemption`` true
aclSubmitApps / aclAdminister  ``acl_submit_applications`` / ``acl_administer_queue``
=============================  ===============================================================

Where tempo goes further than fs2cs (each is said in the report): ``maxResources`` becomes
``maximum-capacity`` (fs2cs always writes 100 and warns) - a percentage directly, absolute
resources given the cluster size, relative to the parent's maximum and never below
the queue's capacity; ``queueMaxAppsDefault``, ``userMaxAppsDefault`` and ``<user>``
limits become the ``max-parallel-apps`` defaults (fs2cs maps the first to
``maximum-applications``, which also counts pending applications and rejects
submissions beyond it); the weight total is the exact sum (fs2cs truncates it to an
int, which breaks fractional weights). What has no Capacity Scheduler counterpart
(minResources, preemption timeouts and thresholds, maxChildResources, reservations,
the placement policy) is listed in the report, not converted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from whatif.allocation.effective import (
    EffectiveAllocation,
    EffectiveQueue,
    QueueDefaults,
    Resources,
)
from whatif.allocation.model import AllocationDocument, QueueElement, file_hadoop_version
from whatif.allocation.resolve import effective_allocation
from whatif.allocation.validate import Issue
from whatif.allocation.xml_io import escape_text
from whatif.capacity.document import CapacityConfigError
from whatif.capacity.model import PREFIX
from whatif.capacity.validate import validate

DRF_CALCULATOR = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"
_HUNDRED = Decimal(100).quantize(Decimal("0.001"))


@dataclass(frozen=True)
class Conversion:
    """The converted properties in order, and what did not carry over (one line each)."""

    properties: tuple[tuple[str, str], ...]
    not_carried: tuple[str, ...]
    notes: tuple[str, ...]

    def to_xml(self, *, source: str = "") -> str:
        """``capacity-scheduler.xml`` text: two-space indentation, one property per block.

        Names are escaped as values are: a queue name may hold ``&``, ``<`` or ``>``
        (neither scheduler forbids them; fs2cs writes them through
        ``Configuration.writeXml``, escaped)."""
        lines = converted_head("configuration", source)
        for name, value in self.properties:
            lines += [
                "  <property>",
                f"    <name>{escape_text(name)}</name>",
                f"    <value>{escape_text(value)}</value>",
                "  </property>",
            ]
        lines.append("</configuration>")
        return "\n".join(lines) + "\n"

    def checked_xml(self, file: str) -> str:
        """`to_xml` converted from `file`, refused (`CapacityConfigError`) where Hadoop
        would refuse it (`refuse_unconvertible`): no caller writes a file Hadoop rejects."""
        return refuse_unconvertible(
            file, self.to_xml(source=file), validate, "capacity-scheduler.xml"
        )


#: Where lxml says it stopped (", line 13, column 52"): a place in text never written.
_XML_PLACE = re.compile(r",? line \d+, column \d+$")


def refuse_unconvertible(
    file: str, text: str, check: Callable[[bytes], list[Issue]], what: str
) -> str:
    """`text`, the conversion of `file`; refused (`CapacityConfigError`) when Hadoop would
    refuse it as a `what`, before anything is written. The errors name the queue and
    setting (the output's line numbers would point into a file that does not exist); XML
    that is not well-formed (the converters escape every name and value, so it would be a
    converter's fault) quotes the converted line."""
    lines = text.splitlines()
    problems = []
    for issue in check(text.encode()):
        if issue.severity != "error":
            continue
        if issue.message.startswith("not well-formed XML"):
            quoted = lines[issue.line - 1].strip() if 0 < issue.line <= len(lines) else ""
            problems.append(f"{_XML_PLACE.sub('', issue.message)} in {quoted!r}")
        else:
            problems.append(issue.message)
    if problems:
        raise CapacityConfigError(
            f"{file}: cannot convert: Hadoop would refuse the {what} it converts to: "
            + "; ".join(problems[:5])
        )
    return text


def converted_head(root: str, source: str) -> list[str]:
    """The first lines of a converted file: declaration, provenance comment, `root` opened."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>']
    if source:
        safe = source.replace("--", "- -")
        lines.append(f"<!-- Converted by tempo config convert from {safe}. -->")
    return [*lines, f"<{root}>"]


def _number(value: float | Decimal) -> str:
    if isinstance(value, Decimal):  # as BigDecimal.toString writes it: 3 decimals
        return format(value, "f")
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def weight_percentages(weights: list[float]) -> tuple[list[Decimal], bool]:
    """Percentages for sibling weights as ``WeightToPercentConverter`` computes them.

    Each is weight / total rounded half-up to 5 decimals, times 100 (3 decimals);
    when they miss 100 the largest absorbs the difference. All-zero weights give
    zeros and True (the parent needs ``allow-zero-capacity-sum``).
    """
    if len(weights) == 1:
        return [_HUNDRED], False
    total = Decimal(repr(sum(weights)))
    if total == 0:
        return [Decimal("0.000")] * len(weights), True
    shares = [
        (Decimal(repr(w)) / total).quantize(Decimal("0.00001"), ROUND_HALF_UP) * 100
        for w in weights
    ]
    shares = [s.quantize(Decimal("0.001")) for s in shares]
    difference = _HUNDRED - sum(shares)
    if difference:
        largest = max(range(len(shares)), key=lambda i: shares[i])
        shares[largest] += difference
    return shares, False


class _Output:
    """The properties written so far, and what did not convert or converted with a note."""

    def __init__(self) -> None:
        self.props: list[tuple[str, str]] = []
        self.lost: list[str] = []
        self.notes: list[str] = []

    def put(self, name: str, value: str) -> None:
        self.props.append((PREFIX + name, value))


def convert(
    doc: AllocationDocument,
    *,
    percentage: bool = False,
    cluster: Resources | None = None,
    hadoop_version: int | None = None,
) -> Conversion:
    """Convert a Fair Scheduler allocation file; `cluster` lets absolute maxResources convert;
    `hadoop_version` is that of the Fair Scheduler that reads it (default: the file's own
    dialect, ``<pool>`` elements meaning Hadoop 1; from 3 on, a maximum below minResources
    is raised to it, and so converted). A Hadoop 1 file's ``maxRunningJobs`` limits
    convert as ``maxRunningApps``; its slot settings are listed as not carried over."""
    if hadoop_version is None:
        hadoop_version = file_hadoop_version(doc)
    allocation = effective_allocation(doc, hadoop_version=hadoop_version)
    out = _Output()
    _put_scheduler_wide(allocation, out)
    written = {q.path: q for q in doc.iter_queues()}

    def visit(queue: EffectiveQueue, capacity: float, absolute_max: float) -> None:
        children = list(queue.children)
        if children:
            out.put(f"{queue.name}.queues", ",".join(c.leaf_name for c in children))
        _put_acls(queue.name, written.get(queue.name), out)
        if queue.name != "root":
            _put_queue_settings(queue, allocation.defaults, out)
        if not children:
            return
        weights = [c.weight for c in children]
        percents, zero = weight_percentages(weights)
        if zero:
            out.put(f"{queue.name}.allow-zero-capacity-sum", "true")
        total = sum(weights)
        for child, pct in zip(children, percents, strict=True):
            if percentage:
                out.put(f"{child.name}.capacity", _number(pct))
            else:
                out.put(f"{child.name}.capacity", f"{_number(child.weight)}w")
            child_capacity = capacity * (child.weight / total if total > 0 else 0.0)
            relative, child_max = _maximum(
                child, child_capacity, absolute_max, cluster, hadoop_version, out
            )
            out.put(f"{child.name}.maximum-capacity", relative)
            visit(child, child_capacity, child_max)

    visit(allocation.root, 1.0, 1.0)
    if doc.placement is not None:
        out.lost.append(
            "queuePlacementPolicy: not converted (fs2cs writes mapping rules; write "
            "yarn.scheduler.capacity.queue-mappings by hand)"
        )
    return Conversion(tuple(out.props), tuple(out.lost), tuple(out.notes))


def _put_scheduler_wide(allocation: EffectiveAllocation, out: _Output) -> None:
    """The file-wide settings: AM share, application limits, users', the calculator."""
    defaults = allocation.defaults
    am_default = defaults.max_am_share
    out.put("maximum-am-resource-percent", _number(1.0 if am_default == -1 else am_default))
    if defaults.max_running_apps is not None:
        out.put("max-parallel-apps", str(defaults.max_running_apps))
        out.notes.append(
            "queueMaxAppsDefault -> yarn.scheduler.capacity.max-parallel-apps (fs2cs writes "
            "maximum-applications, which also counts pending applications)"
        )
    if allocation.user_max_apps_default is not None:
        out.put("user.max-parallel-apps", str(allocation.user_max_apps_default))
    for user, limit in allocation.user_max_apps.items():
        out.put(f"user.{user}.max-parallel-apps", str(limit))
    if any(q.scheduling_policy == "drf" for q in allocation.queues()) or (
        defaults.scheduling_policy == "drf"
    ):
        out.put("resource-calculator", DRF_CALCULATOR)


def _put_acls(path: str, element: QueueElement | None, out: _Output) -> None:
    """A queue's submit and administer ACLs, as written."""
    for fair_name, cs_name in (
        ("aclSubmitApps", "acl_submit_applications"),
        ("aclAdministerApps", "acl_administer_queue"),
    ):
        setting = element.get(fair_name) if element is not None else None
        if setting is not None and setting.raw is not None:
            out.put(f"{path}.{cs_name}", setting.raw)


def _put_queue_settings(queue: EffectiveQueue, defaults: QueueDefaults, out: _Output) -> None:
    """A queue's own limits, ordering policy and preemption (not the root's)."""
    path = queue.name
    am_default = defaults.max_am_share
    if queue.max_running_apps is not None and (queue.max_running_apps != defaults.max_running_apps):
        out.put(f"{path}.max-parallel-apps", str(queue.max_running_apps))
    share = queue.max_am_share
    if not queue.is_parent and share not in (0.0, am_default, -1.0):
        out.put(f"{path}.maximum-am-resource-percent", _number(share))
    elif not queue.is_parent and share == -1.0 and am_default != -1.0:
        out.put(f"{path}.maximum-am-resource-percent", "1")
    if not queue.is_parent:
        policy = "fifo" if queue.scheduling_policy == "fifo" else "fair"
        out.put(f"{path}.ordering-policy", policy)
    limit = queue.max_container_allocation
    if limit.absolute is not None and not math.isinf(limit.absolute.memory_mb):
        out.put(f"{path}.maximum-allocation-mb", _number(limit.absolute.memory_mb))
        out.put(f"{path}.maximum-allocation-vcores", _number(limit.absolute.vcores))
    if not queue.allow_preemption_from:
        out.put(f"{path}.disable_preemption", "true")
    _report_lost(queue, out.lost)


def _maximum(
    queue: EffectiveQueue,
    capacity: float,
    parent_max: float,
    cluster: Resources | None,
    hadoop_version: int,
    out: _Output,
) -> tuple[str, float]:
    """``maximum-capacity`` (percent of the parent) for `queue` and its absolute maximum."""
    notes, lost = out.notes, out.lost
    limit = queue.max_resources
    fraction: float | None = None
    if limit.percent is not None:
        fraction = max(limit.percent) / 100.0
        if limit.percent[0] != limit.percent[1]:
            notes.append(
                f"{queue.name}: maxResources {limit.percent[0]:g}% memory, {limit.percent[1]:g}% "
                f"vcores -> the larger, {max(limit.percent):g}%"
            )
    elif limit.absolute is not None and not math.isinf(limit.absolute.memory_mb):
        if cluster is None:
            lost.append(
                f"{queue.name}: maxResources {_number(limit.absolute.memory_mb)} mb, "
                f"{_number(limit.absolute.vcores)} vcores: not converted without --cluster "
                "(maximum-capacity 100, as fs2cs writes)"
            )
        else:
            fraction = _cluster_fraction(limit.absolute, cluster)
    if fraction is None:
        return "100", parent_max
    fraction = min(_enforced(queue, fraction, cluster, hadoop_version, notes), parent_max)
    if fraction < capacity:
        notes.append(
            f"{queue.name}: maxResources is below the capacity its weight gives "
            f"({fraction:.1%} < {capacity:.1%} of the cluster); maximum-capacity raised to "
            "the capacity, as Hadoop requires"
        )
        fraction = capacity
    relative = 100.0 if parent_max <= 0 else min(100.0, fraction / parent_max * 100.0)
    return _number(round(relative, 3)), parent_max * relative / 100.0


def _cluster_fraction(amount: Resources, cluster: Resources) -> float:
    """The larger of `amount`'s shares of the cluster's memory and vcores, at most 1."""
    vcores = amount.vcores / cluster.vcores if cluster.vcores else 0.0
    return min(1.0, max(amount.memory_mb / cluster.memory_mb, vcores))


def _enforced(
    queue: EffectiveQueue,
    fraction: float,
    cluster: Resources | None,
    hadoop_version: int,
    notes: list[str],
) -> float:
    """`queue`'s maximum, `fraction` of the cluster, as the Fair Scheduler of
    `hadoop_version` enforces it (`EffectiveQueue.max_share`: from Hadoop 3 on at least
    minResources, resource by resource, so the larger fraction of the two)."""
    low = queue.min_resources
    if low.memory_mb <= 0 and low.vcores <= 0:
        return fraction
    if cluster is None:
        if hadoop_version >= 3:
            notes.append(
                f"{queue.name}: Hadoop 3 raises maxResources to minResources where it is "
                "lower; without --cluster, maximum-capacity is converted from maxResources "
                "as written"
            )
        return fraction
    if queue.max_share(cluster, hadoop_version) == queue.max_resources.resolve(cluster):
        return fraction  # kept as written: an older Hadoop, or the minimum is below it
    floor = _cluster_fraction(low, cluster)
    if floor <= fraction:
        return fraction
    notes.append(
        f"{queue.name}: maxResources is below minResources ({fraction:.1%} < {floor:.1%} of "
        f"the cluster); Hadoop {hadoop_version}'s Fair Scheduler raises it to minResources, "
        "so maximum-capacity is converted from the raised maximum"
    )
    return floor


def _report_lost(queue: EffectiveQueue, lost: list[str]) -> None:
    name = queue.name
    if queue.min_resources.memory_mb > 0 or queue.min_resources.vcores > 0:
        lost.append(
            f"{name}: minResources {_number(queue.min_resources.memory_mb)} mb, "
            f"{_number(queue.min_resources.vcores)} vcores: the Capacity Scheduler guarantees "
            "by capacity only (fs2cs drops it too)"
        )
    for label, value in (
        ("minSharePreemptionTimeout", queue.min_share_preemption_timeout_s),
        ("fairSharePreemptionTimeout", queue.fair_share_preemption_timeout_s),
    ):
        if not math.isinf(value):
            lost.append(
                f"{name}: {label} {_number(value)} s: the Capacity Scheduler preempts by its "
                "monitor's policy (yarn.resourcemanager.monitor.capacity.preemption.*)"
            )
    if queue.fair_share_preemption_threshold != 0.5:
        lost.append(f"{name}: fairSharePreemptionThreshold: no counterpart")
    for label, slots in (
        ("minMaps", queue.min_maps),
        ("minReduces", queue.min_reduces),
        ("maxMaps", queue.max_maps),
        ("maxReduces", queue.max_reduces),
    ):
        if slots is not None:
            lost.append(
                f"{name}: {label} {slots}: Hadoop 1 slots; the Capacity Scheduler has "
                "containers, guaranteed and capped by capacity only"
            )
    if not queue.max_child_resources.is_unlimited:
        lost.append(f"{name}: maxChildResources: no counterpart (fs2cs drops it too)")
    if queue.reservable:
        lost.append(f"{name}: reservation: the reservation system is not converted")
