"""Checking an allocation file: Hadoop's own rules, then tempo's warnings.

Errors are what makes Hadoop refuse the file (the ResourceManager keeps its old
configuration, or does not start): XML that is not well-formed, a root other than
``<allocations>``, bad queue names, a top-level ``root`` queue with siblings,
numbers and resource strings Hadoop cannot read, ``fifo`` as the default policy,
``reservation`` on a parent queue, ``fifo`` on a parent queue, an empty setting element, and placement policies whose last rule is
not terminal or that have unreachable rules.

Warnings are what Hadoop loads but probably does not do what the operator meant:
values Hadoop silently clamps (``maxAMShare`` above 1, thresholds outside [0, 1]),
negative weights and timeouts, minimum above maximum, ``maxAMShare`` on a parent
queue (rejected by Hadoop 3.3+, ignored before), the sum of the children's
minimum shares above the parent's (or the cluster's), a ``drf`` queue under a
``fair`` parent (Hadoop 3 refuses to create or re-police it and logs an error),
elements Hadoop ignores (unknown, misplaced, or MRv1 in a YARN file), repeated
settings (the last wins), a repeated ``user`` element (merged) or ``queuePlacementPolicy``
(the last replaces the others), a queue whose minimum share alone exceeds the cluster,
a placement rule naming a queue the file does not define, and a ``<reservation>`` leaf
(the reservation system, which tempo does not model).

With ``hadoop_version=1`` the file is checked as Hadoop 1's ``PoolManager`` reads it
(`whatif.allocation.dialect`): every element it ignores is a warning naming what it
reads instead (``<queue>``, ``minResources``, ``maxRunningApps``, ...), pools do not
nest, and a scheduling mode other than fair or fifo is an error.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol, Self, TypeVar, cast

from whatif.allocation.dialect import HADOOP1_MODES, ignored_message, reads
from whatif.allocation.effective import Resources
from whatif.allocation.java_values import JAVA_LONG_MAX, to_java_float
from whatif.allocation.model import (
    PLACEMENT_RULES,
    AllocationDocument,
    PlacementRule,
    QueueElement,
    Setting,
    UserLimit,
)
from whatif.allocation.resource_string import ResourceValue
from whatif.allocation.xml_io import XMLSyntaxProblem
from whatif.errors import AllocationError

Severity = Literal["error", "warning"]


class _Readable(Protocol):
    @classmethod
    def from_bytes(cls, data: bytes) -> Self: ...

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Self: ...


D = TypeVar("D", bound=_Readable)


@dataclass(frozen=True)
class Issue:
    """One problem found in an allocation file, at a source line."""

    severity: Severity
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.severity}: {self.message}"


def validate(
    doc: AllocationDocument | bytes | str | os.PathLike[str],
    *,
    hadoop_version: int = 3,
    cluster: Resources | None = None,
) -> list[Issue]:
    """Every problem in an allocation file, sorted by line.

    `doc` is a parsed document, or the bytes or path of a file; a file that is not
    well-formed XML gives a single error with the line the parser stopped at.
    With `cluster`, minimum shares adding up to more than the cluster are reported.
    """
    if hadoop_version not in (1, 2, 3):
        raise AllocationError(f"hadoop_version: expected 1, 2 or 3, got {hadoop_version!r}")

    def check(parsed: AllocationDocument) -> list[Issue]:
        checker = _Checker(parsed, hadoop_version, cluster)
        checker.run()
        return checker.issues

    return issues_of(doc, AllocationDocument, check)


def issues_of(
    doc: D | bytes | str | os.PathLike[str],
    document: type[D],
    check: Callable[[D], Iterable[Issue]],
) -> list[Issue]:
    """`check`'s issues with `doc` (a parsed `document`, or the bytes or path of a file),
    sorted by line, errors first; a file that is not well-formed XML gives one error at
    the line the parser stopped at. Both schedulers' files are validated this way."""
    if not isinstance(doc, document):
        try:
            # not a parsed document: the bytes or the path of a file
            source = cast(bytes | str | os.PathLike[str], doc)
            doc = (
                document.from_bytes(source)
                if isinstance(source, bytes)
                else document.from_file(source)
            )
        except XMLSyntaxProblem as problem:
            return [Issue("error", problem.line, problem.reason)]
    return sorted(check(doc), key=lambda i: (i.line, i.severity != "error"))


def listed_errors(issues: Iterable[Issue], *, most: int = 5) -> str:
    """The errors among `issues` as ``line N: message; ...`` (the first `most`), or ""
    when there are none: what a writer that refuses an invalid file says."""
    errors = [i for i in issues if i.severity == "error"]
    return "; ".join(f"line {i.line}: {i.message}" for i in errors[:most])


class _Checker:
    def __init__(self, doc: AllocationDocument, version: int, cluster: Resources | None) -> None:
        self.doc, self.version, self.cluster = doc, version, cluster
        self.issues: list[Issue] = []

    def error(self, line: int, message: str) -> None:
        self.issues.append(Issue("error", line, message))

    def warn(self, line: int, message: str) -> None:
        self.issues.append(Issue("warning", line, message))

    def run(self) -> None:
        doc = self.doc
        if not doc.is_allocations:
            self.error(
                doc.line,
                f"Bad fair scheduler config file: top-level element not <allocations> "
                f"(found <{doc.root_tag}>)",
            )
            return
        for setting in doc.unknown:
            self.warn(setting.line, f"Bad element in allocations file: {setting.tag} (ignored)")
        for setting in doc.defaults:
            self.check_default(setting)
        self.check_repeats(doc.defaults, "allocations")
        for user in doc.users:
            self.check_user(user)
        self.check_repeated_elements()
        if doc.placement is not None and self.version >= 2:
            self.check_placement(doc.placement.rules, doc.placement.line)
            self.check_placement_queues(doc.placement.rules)
        if self.version == 1:
            self.check_hadoop1()
            self.check_duplicate_queues()
            return
        self.check_root_alone()
        self.check_duplicate_queues()
        default_policy = doc.default("defaultQueueSchedulingPolicy")
        root_policy = "fair"
        if default_policy is not None and default_policy.problem is None:
            root_policy = default_policy.value
        for queue in doc.queues:
            self.check_queue(queue, parent_policy=root_policy, top=True)
        if self.version >= 2:
            self.check_min_share_sums()
            self.check_am_room()

    # --------------------------------------------------------------- top level
    def check_default(self, setting: Setting) -> None:
        if not reads(self.version, setting.tag, "top"):
            self.warn(setting.line, ignored_message(self.version, setting.tag, "allocations"))
            return
        if self.version == 1 and setting.tag == "defaultPoolSchedulingMode":
            self.check_mode(setting)
            return
        if setting.problem is not None:
            self.error(setting.line, setting.problem)
            return
        name, value = setting.name, setting.value
        if name == "defaultQueueSchedulingPolicy" and value == "fifo":
            self.error(
                setting.line,
                "Bad fair scheduler config file: defaultQueueSchedulingPolicy or "
                "defaultQueueSchedulingMode can't be FIFO.",
            )
        elif name == "queueMaxAMShareDefault":
            self.check_am_share(setting)
        elif name == "defaultFairSharePreemptionThreshold":
            self.check_threshold(setting)
        elif setting.kind == "long":
            self.check_timeout(setting)
        elif setting.kind == "int" and value < 0:
            self.warn(setting.line, f"<{setting.tag}> is negative ({value}): nothing can run")
        elif setting.kind == "resource":
            self.check_resource(setting)

    def check_user(self, user: UserLimit) -> None:
        for setting in user.unknown:
            self.warn(
                setting.line,
                f'<{setting.tag}> in <user name="{user.name}"> is ignored; users take only '
                + ("maxRunningJobs" if self.version == 1 else "maxRunningApps"),
            )
        for setting in user.settings:
            yarn = setting.name == "maxRunningApps"
            if self.version >= 2 and not yarn:
                self.warn(
                    setting.line,
                    f'<{setting.tag}> in <user name="{user.name}"> is MRv1; YARN reads maxRunningApps',
                )
            elif self.version == 1 and yarn:
                self.warn(
                    setting.line, "Hadoop 1 reads maxRunningJobs for users, not maxRunningApps"
                )
            elif setting.problem is not None:
                self.error(setting.line, setting.problem)
            elif setting.value < 0:
                self.warn(setting.line, f"user {user.name}: negative limit {setting.value}")

    def check_placement(self, rules: tuple[PlacementRule, ...], line: int) -> None:
        """Hadoop's placement checks; rule numbers in messages are Hadoop's (0-based in 2, 1-based in 3)."""
        kept = []
        for rule in rules:
            if rule.tag.lower() != "rule":
                if self.version >= 3:
                    self.warn(rule.line, f"<{rule.tag}> in queuePlacementPolicy is ignored")
                    continue
                self.error(
                    rule.line, f"No rule class found for <{rule.tag}> (expected <rule name=...>)"
                )
                return
            kept.append(rule)
        for rule in kept:
            for checked in (rule, rule.inner):
                if checked is None:
                    continue
                if not checked.name:
                    self.error(checked.line, "No name provided for a rule element")
                    return
                if checked.name not in PLACEMENT_RULES:
                    self.error(checked.line, f"No rule class found for {checked.name}")
                    return
            if rule.inner is not None and rule.inner.name in ("reject", "nestedUserQueue"):
                self.error(
                    rule.inner.line,
                    f"Rule '{rule.inner.name}' is not allowed as a parent rule for any rule",
                )
                return
            if rule.name == "nestedUserQueue" and rule.inner is None:
                self.error(rule.line, "Rule 'nestedUserQueue' must have a parent rule set")
                return
        if not kept:
            return
        offset = 1 if self.version >= 3 else 0
        for index, rule in enumerate(kept[:-1]):
            if rule.is_terminal(self.version):
                self.error(
                    kept[index + 1].line,
                    f"Rules after rule {index + offset} in queue placement policy can never be reached",
                )
                return
        if not kept[-1].is_terminal(self.version):
            self.error(
                kept[-1].line,
                "Could get past last queue placement rule without assigning "
                "(the last rule must be terminal, e.g. reject or default)",
            )

    def check_placement_queues(self, rules: tuple[PlacementRule, ...]) -> None:
        """A rule's ``queue`` attribute naming a queue the file does not define."""
        defined = {q.path for q in self.doc.iter_queues()}
        for rule in rules:
            for checked in (rule, rule.inner):
                if checked is None:
                    continue
                name = (checked.attributes.get("queue") or "").strip()
                if not name:
                    continue
                path = name if name == "root" or name.startswith("root.") else f"root.{name}"
                if path in defined:
                    continue
                what = (
                    "Hadoop creates it on first use, outside the tuned configuration"
                    if checked.create
                    else "with create=false the rule cannot place anything there"
                )
                known = ", ".join(sorted(defined)) or "none"
                self.warn(
                    checked.line,
                    f"placement rule '{checked.name}' names queue {path}, which this file does "
                    f"not define ({what}); the file defines {known}",
                )

    # ---------------------------------------------------------------- Hadoop 1
    def check_hadoop1(self) -> None:
        """Hadoop 1 reads top-level ``<pool>`` elements only, flat, with its own settings."""
        if self.doc.placement is not None:
            self.warn(
                self.doc.placement.line,
                "Hadoop 1 ignores <queuePlacementPolicy> (Bad element in allocations file); "
                "it places jobs by mapred.fairscheduler.pool or poolnameproperty",
            )
        lone_root = self.doc.root_element is not None
        for queue in self.doc.queues:
            if queue.tag != "pool":
                self.warn(
                    queue.line,
                    f'<{queue.tag} name="{queue.raw_name}">: Hadoop 1 ignores <{queue.tag}> '
                    "(Bad element in allocations file) and everything in it; it reads <pool>",
                )
                continue
            self.check_pool(queue)
            if lone_root:
                self.warn(
                    queue.line,
                    'Hadoop 1 has no root pool: <pool name="root"> is a pool named root',
                )

    def check_pool(self, pool: QueueElement) -> None:
        where = f"pool {pool.name}"
        for child in pool.children:
            for nested in child.walk():
                self.warn(
                    nested.line,
                    f'{where}: Hadoop 1 pools do not nest; <{nested.tag} name="{nested.raw_name}"> '
                    "is ignored",
                )
        for setting in pool.unknown:
            self.warn(setting.line, f"{where}: Hadoop 1 ignores <{setting.tag}>")
        read = []
        for setting in sorted((*pool.settings, *pool.mrv1), key=lambda s: s.line):
            if reads(1, setting.tag, "pool"):
                read.append(setting)
            else:
                self.warn(setting.line, ignored_message(1, setting.tag, where))
        self.check_repeats(tuple(read), where)
        for setting in read:
            if setting.tag == "schedulingMode":
                self.check_mode(setting, where)
            elif setting.kind == "int" and setting.problem is None and setting.value < 0:
                self.warn(setting.line, f"{where}: <{setting.tag}> is negative ({setting.value})")
            else:
                self.check_queue_setting(pool, setting)
        for stage in ("Maps", "Reduces"):
            low, high = pool.get(f"min{stage}"), pool.get(f"max{stage}")
            if low is None or high is None or low.problem or high.problem:
                continue
            if high.value < low.value:
                self.warn(
                    low.line,
                    f"Pool {pool.name} has max {stage.lower()} {high.value} less than min "
                    f"{stage.lower()} {low.value}",
                )

    def check_mode(self, setting: Setting, where: str = "allocations") -> None:
        """Hadoop 1's ``parseSchedulingMode``: fair or fifo, any case; else the reload fails."""
        text = (setting.text or "").lower()
        if setting.raw is None:
            self.error(setting.line, f"{where}: {setting.problem}")
        elif text not in HADOOP1_MODES:
            self.error(
                setting.line,
                f"{where}: Unknown scheduling mode : {text}; expected 'fifo' or 'fair' "
                "(Hadoop 1 refuses the file)",
            )

    def check_root_alone(self) -> None:
        queues = self.doc.queues
        roots = [q for q in queues if q.raw_name.strip().lower() == "root"]
        if roots and len(queues) > 1:
            other = next(q for q in queues if q not in roots)
            self.error(
                other.line,
                "If configuring root queue, no other queues can be placed alongside it.",
            )

    def check_duplicate_queues(self) -> None:
        seen: dict[str, QueueElement] = {}
        for queue in self.doc.iter_queues():
            if queue.path in seen:
                self.warn(
                    queue.line,
                    f"queue {queue.path} is declared again (first on line {seen[queue.path].line}); "
                    "Hadoop merges the two, later settings winning",
                )
            seen.setdefault(queue.path, queue)

    def check_repeated_elements(self) -> None:
        """A user element given again merges with the first, later settings winning (Hadoop
        keeps a map per setting keyed by user name); a later queuePlacementPolicy replaces
        an earlier one whole (Hadoop keeps the last element)."""
        first: dict[str, int] = {}
        for user in self.doc.users:
            if user.name in first:
                self.warn(
                    user.line,
                    f"user {user.name} is given again (first on line {first[user.name]}); "
                    "Hadoop merges the two, later settings winning",
                )
            first.setdefault(user.name, user.line)
        last = self.doc.placement.line if self.doc.placement is not None else 0
        for line in self.doc.replaced_placements:
            self.warn(
                line,
                f"queuePlacementPolicy is given again on line {last}; Hadoop reads only the "
                "last, so this one has no effect",
            )

    # ------------------------------------------------------------------ queues
    def check_queue(self, queue: QueueElement, *, parent_policy: str, top: bool = False) -> None:
        line = queue.line
        if "." in queue.name:
            self.error(
                line,
                f"Bad fair scheduler config file: queue name ({queue.name}) shouldn't contain period.",
            )
        if not queue.name:
            self.error(
                line,
                "Bad fair scheduler config file: queue name shouldn't be empty or consist only of whitespace.",
            )
        if queue.tag not in ("queue", "pool"):
            self.warn(
                line, f'<{queue.tag}> is read as a queue (Hadoop matches "queue".endsWith(tag))'
            )
        for setting in queue.unknown:
            self.warn(
                setting.line, f"<{setting.tag}> is not a queue setting; Hadoop ignores it here"
            )
        for setting in queue.mrv1:
            self.warn(setting.line, ignored_message(self.version, setting.tag, queue.path))
        self.check_repeats(queue.settings, queue.path)
        for setting in queue.settings:
            self.check_queue_setting(queue, setting)
        policy_setting = queue.get("schedulingPolicy")
        policy = self.policy(queue)
        if self.version >= 2 and queue.is_parent:
            self.check_parent(queue, policy)
        if (
            self.version >= 3
            and policy == "drf"
            and parent_policy == "fair"
            and queue.path != "root"
        ):
            self.warn(
                (policy_setting or queue).line,
                f"queue {queue.path}: Hadoop 3 refuses a drf queue under a fair parent "
                "(it logs an error and does not create or update the queue); use fair or fifo, "
                "or make the parent drf",
            )
        reservation = queue.get("reservation")
        if self.version >= 2 and reservation is not None and not queue.is_parent:
            self.warn(
                reservation.line,
                f"<reservation>: {queue.path} is a plan queue of the reservation system, which "
                "tempo does not model: it is predicted as a plain leaf (its jobs as submitted "
                "to it, not to reservations)",
            )
        self.check_min_max(queue)
        for child in queue.children:
            self.check_queue(child, parent_policy=policy)

    def check_parent(self, queue: QueueElement, policy: str) -> None:
        reservation = queue.get("reservation")
        if reservation is not None:
            self.error(reservation.line, _parent_message(queue.path, "reservation"))
        am_share = queue.get("maxAMShare")
        if am_share is not None and self.version >= 3:
            # Only Hadoop 3.3+ rejects it (the FairScheduler.md example itself has one),
            # so this is a warning; tempo never adds one (AllocationDocument.set refuses).
            self.warn(
                am_share.line,
                _parent_message(queue.path, "maxAMShare")
                + " (Hadoop 3.3 and later reject the file; earlier releases ignore it)",
            )
        if policy == "fifo":
            setting = queue.get("schedulingPolicy")
            self.error(
                (setting or queue).line,
                f"queue {queue.path}: fifo is only for leaf queues; a parent queue needs fair or drf",
            )

    def check_queue_setting(self, queue: QueueElement, setting: Setting) -> None:
        if setting.problem is not None:
            self.error(setting.line, f"queue {queue.path}: {setting.problem}")
            return
        name, value = setting.name, setting.value
        if self.version == 2 and not reads(2, setting.tag, "pool"):  # Hadoop 3's additions
            self.warn(setting.line, ignored_message(2, setting.tag, queue.path))
            return
        if name == "maxContainerAllocation" and self.version >= 3 and queue.path == "root":
            self.warn(setting.line, "maxContainerAllocation is not allowed on the root queue")
        if name == "weight":
            if math.isnan(value) or value < 0:
                self.warn(
                    setting.line,
                    f"queue {queue.path}: negative weight {value} (Hadoop does not check; "
                    "the queue gets only its minimum share)",
                )
            elif math.isinf(value):
                self.warn(setting.line, f"queue {queue.path}: infinite weight")
        elif name == "maxAMShare":
            self.check_am_share(setting, queue.path)
        elif name == "fairSharePreemptionThreshold":
            self.check_threshold(setting, queue.path)
        elif setting.kind == "long":
            self.check_timeout(setting, queue.path)
        elif name == "maxRunningApps" and value < 0:
            self.warn(setting.line, f"queue {queue.path}: negative maxRunningApps {value}")
        elif setting.kind == "resource":
            self.check_resource(setting, queue.path)

    def check_am_share(self, setting: Setting, where: str = "allocations") -> None:
        value = setting.value
        if value > 1:
            self.warn(
                setting.line,
                f"{where}: <{setting.tag}> {setting.text} is above 1; Hadoop silently caps it at 1.0",
            )
        elif value < 0 and value != -1:
            self.warn(
                setting.line,
                f"{where}: <{setting.tag}> {setting.text} is negative; only -1 (disable the check) is meaningful",
            )

    def check_threshold(self, setting: Setting, where: str = "allocations") -> None:
        if not 0 <= setting.value <= 1:
            self.warn(
                setting.line,
                f"{where}: <{setting.tag}> {setting.text} is outside [0, 1]; Hadoop clamps it",
            )

    def check_timeout(self, setting: Setting, where: str = "allocations") -> None:
        value = setting.value
        if value < 0:
            self.warn(
                setting.line,
                f"{where}: <{setting.tag}> {value} is negative: preemption would be immediate",
            )
        elif value * 1000 > JAVA_LONG_MAX:
            self.warn(
                setting.line,
                f"{where}: <{setting.tag}> {value} s overflows Hadoop's millisecond counter "
                "(it wraps to a negative timeout); use 9223372036854775 or less",
            )

    def check_resource(self, setting: Setting, where: str = "allocations") -> None:
        value: ResourceValue = setting.value
        if self.version < 3 and (value.is_percent or value.form == "name=value"):
            self.error(
                setting.line,
                f"{where}: <{setting.tag}> {setting.text!r}: Hadoop 2 reads only 'X mb, Y vcores' "
                "(Missing resource: mb)",
            )
        elif setting.name == "minResources" and value.is_percent:
            self.error(
                setting.line,
                f"{where}: <{setting.tag}> {setting.text!r}: minResources must be absolute; "
                "percentages are for maximums",
            )
        elif setting.name in _ZERO_MAXIMUM:
            self.check_zero_maximum(setting, where)

    def check_zero_maximum(self, setting: Setting, where: str) -> None:
        """A maximum of 0 in a resource type: every container asks for some of each
        (yarn.scheduler.minimum-allocation-mb and -vcores), so none can run where it caps."""
        value: ResourceValue = setting.value
        zero = [
            unit for unit, amount in (("MB", value.memory), ("vcores", value.vcores)) if amount == 0
        ]
        if zero:
            self.warn(
                setting.line,
                f"{where}: <{setting.tag}> {setting.text!r} allows 0 {' and 0 '.join(zero)}: "
                + _ZERO_MAXIMUM[setting.name].format(where=where),
            )

    def check_min_max(self, queue: QueueElement) -> None:
        minimum, maximum = queue.get("minResources"), queue.get("maxResources")
        if minimum is None or maximum is None or minimum.problem or maximum.problem:
            return
        low, high = minimum.value, maximum.value
        if low.is_percent or high.is_percent:
            return
        low_r, high_r = low.as_resources(missing=0.0), high.as_resources(missing=math.inf)
        if low_r.memory_mb > high_r.memory_mb or low_r.vcores > high_r.vcores:
            raised = "; Hadoop 3 raises the maximum to the minimum" if self.version >= 3 else ""
            self.warn(
                minimum.line,
                f"queue {queue.path} has max resources {maximum.text} less than min resources "
                f"{minimum.text}{raised}",
            )

    def check_repeats(self, settings: tuple[Setting, ...], where: str) -> None:
        seen: dict[str, Setting] = {}
        for setting in settings:
            if setting.name in seen and setting.name != "reservation":
                self.warn(
                    setting.line,
                    f"{where}: <{setting.tag}> repeats line {seen[setting.name].line}; Hadoop uses the last",
                )
            seen[setting.name] = setting

    def check_min_share_sums(self) -> None:
        """Minimum shares adding up to more than the cluster, or than their parent's maximum."""

        def absolute(queue: QueueElement, name: str, missing: float) -> Resources | None:
            setting = queue.get(name)
            if setting is None or setting.problem or setting.value.is_percent:
                return None
            resources: Resources = setting.value.as_resources(missing=missing)
            return resources

        def visit(
            children: tuple[QueueElement, ...], limit: Resources | None, what: str, line: int
        ) -> None:
            for child in children:
                alone = absolute(child, "minResources", 0.0)
                if (
                    self.cluster is not None
                    and alone is not None
                    and (
                        alone.memory_mb > self.cluster.memory_mb
                        or alone.vcores > self.cluster.vcores
                    )
                ):
                    setting = child.get("minResources")
                    self.warn(
                        setting.line if setting is not None else child.line,
                        f"{child.path} minResources {alone.memory_mb:g} MB, {alone.vcores:g} "
                        f"vcores exceeds the cluster ({self.cluster.memory_mb:g} MB, "
                        f"{self.cluster.vcores:g} vcores); it can never be met",
                    )
            mins = [
                m for m in (absolute(c, "minResources", 0.0) for c in children) if m is not None
            ]
            if limit is not None and mins:
                memory = sum(m.memory_mb for m in mins)
                vcores = sum(m.vcores for m in mins)
                if memory > limit.memory_mb or vcores > limit.vcores:
                    self.warn(
                        line,
                        f"minimum shares of the queues under {what} add up to {memory:g} MB, "
                        f"{vcores:g} vcores, more than {limit.memory_mb:g} MB, {limit.vcores:g} "
                        "vcores; they cannot all be met",
                    )
            for child in children:
                visit(
                    child.children,
                    absolute(child, "maxResources", math.inf),
                    f"{child.path} (its maxResources)",
                    child.line,
                )

        root = self.doc.root_element
        if root is not None:
            visit(root.children, self.cluster, "root (the cluster)", root.line)
        else:
            visit(self.doc.queues, self.cluster, "root (the cluster)", self.doc.line)

    def policy(self, queue: QueueElement) -> str:
        """The scheduling policy `queue` runs: its own, else the file's default, else fair."""
        own = queue.get("schedulingPolicy")
        if own is not None and own.problem is None:
            return str(own.value)
        default = self.doc.default("defaultQueueSchedulingPolicy")
        return "fair" if default is None or default.problem else str(default.value)

    def check_am_room(self) -> None:
        """A leaf whose maxAMShare of its maximum share (the least up the tree; of the
        cluster's too with one) leaves no vcore: no AM can ever start there
        (FSLeafQueue.canRunAppAM: the share of its fair share, or where that is 0 of its
        maximum; Hadoop 3 rounds it up, so only a share of 0 leaves none; Hadoop 2
        rounds it down and compares vcores under drf alone; every AM asks a vcore at
        least). A maximum of 0 is `check_zero_maximum`'s."""
        cluster = self.cluster
        unlimited = Resources(math.inf, math.inf)

        def maximum(queue: QueueElement | None, up: Resources) -> Resources:
            own = queue.get("maxResources") if queue is not None else None
            setting = own if own is not None else self.doc.default("queueMaxResourcesDefault")
            if setting is None or setting.problem is not None:
                return up
            value: ResourceValue = setting.value
            if value.is_percent and cluster is None:
                return up
            whole = cluster if cluster is not None else unlimited
            limit = value.as_limit(missing=math.inf).resolve(whole)
            low = queue.get("minResources") if queue is not None else None
            if self.version >= 3 and low is not None and low.problem is None:
                floor = low.value
                if not floor.is_percent:  # Hadoop 3 raises a maximum below the minimum
                    least = floor.as_resources(missing=0.0)
                    limit = Resources(
                        max(limit.memory_mb, least.memory_mb), max(limit.vcores, least.vcores)
                    )
            return Resources(min(limit.memory_mb, up.memory_mb), min(limit.vcores, up.vcores))

        def share(queue: QueueElement) -> tuple[float, Setting | None]:
            setting = queue.get("maxAMShare") or self.doc.default("queueMaxAMShareDefault")
            if setting is None or setting.problem is not None:
                return 0.5, None
            return min(float(setting.value), 1.0), setting

        def visit(queues: tuple[QueueElement, ...], up: Resources) -> None:
            for queue in queues:
                limit = maximum(queue, up)
                if queue.is_parent:
                    visit(queue.children, limit)
                    continue
                fraction, setting = share(queue)
                if fraction < 0 or limit.vcores == 0 or not math.isfinite(limit.vcores):
                    continue  # -1: no AM limit; 0: check_zero_maximum's
                exact = to_java_float(fraction) * limit.vcores
                held = math.ceil(exact) if self.version >= 3 else math.floor(exact)
                compared = self.version >= 3 or self.policy(queue) == "drf"
                if held < 1 and compared:
                    self.warn(
                        setting.line if setting is not None and setting in queue.settings
                        else queue.line,
                        f"{queue.path}: maxAMShare {fraction:g} of its maximum of "
                        f"{limit.vcores:g} vcores lets its AMs hold {held} vcores: no AM "
                        "(which asks a vcore at least) can ever start there",
                    )  # fmt: skip

        root = self.doc.root_element
        limit = maximum(root, cluster if cluster is not None else unlimited)
        visit(root.children if root is not None else self.doc.queues, limit)


#: What a maximum of 0 in a resource type stops (`_Checker.check_zero_maximum`).
_ZERO_MAXIMUM = {
    "maxResources": "no container can run in {where} or a queue under it",
    "maxChildResources": "no container can run in a queue created under {where}",
    "queueMaxResourcesDefault": "no container can run in a queue without its own "
    "maxResources, nor under root, which takes this default too "
    "(AllocationConfiguration.getMaxResources)",
}


def _parent_message(path: str, element: str) -> str:
    return (
        f"The configuration settings for {path} are invalid. A queue element that contains "
        "child queue elements or that has the type='parent' attribute cannot also include a "
        f"{element} element."
    )
