"""Checking ``capacity-scheduler.xml`` as Hadoop 3.x's Capacity Scheduler does, with line numbers.

Errors are what makes the ResourceManager refuse the configuration (``refreshQueues``
fails, or the RM does not start); each is checked where Hadoop checks it:

* a root other than ``<configuration>``; ``root`` without ``queues``
  (``CapacitySchedulerQueueManager``: "Queue configuration missing child queue names");
* an empty, repeated or dotted queue name in a ``queues`` list;
* ``capacity`` that does not parse or is outside [0, 100]; a weight outside
  [0, 10000] (``CapacitySchedulerConfiguration``);
* siblings mixing percentage (> 0), weight and absolute modes, and absolute
  children under a non-absolute parent or the reverse (``ParentQueue.setChildQueues``
  in legacy queue mode, the default);
* children's percentages not summing to 100 within Hadoop's 0.05 % precision,
  unless they sum to 0 and the parent allows it (weight-mode parent, zero-capacity
  parent, or ``allow-zero-capacity-sum``); a zero-capacity parent with positive
  children; absolute children whose minimums exceed the parent's;
* ``maximum-capacity`` outside [0, 100] (``-1`` is 100), an absolute capacity above
  the absolute maximum (``CSQueueUtils``), absolute minimum above absolute maximum;
* ``state`` other than RUNNING or STOPPED; a queue configured RUNNING under a
  STOPPED parent (``QueueStateHelper``);
* an ``ordering-policy`` Hadoop cannot construct: fifo, fair,
  fifo-with-partitions, fifo-for-pending-apps (or their classes) on a leaf,
  utilization or priority-utilization on a parent;
* numbers Hadoop cannot read (``user-limit-factor``, ``minimum-user-limit-percent``,
  ``maximum-am-resource-percent``, ``maximum-applications``, ...).

Warnings are values Hadoop loads but that probably do not do what was meant:
``maximum-am-resource-percent`` outside [0, 1], a ``user-limit-factor`` that is not
positive (other than -1, unlimited; NaN too; ``Infinity``, or a number above ~3.4e38
that ``Float.parseFloat`` reads as it, is a valid "no per-user cap"), ``minimum-user-limit-percent`` outside (0, 100],
settings for queues that are not declared, ``root.capacity`` (always 100),
repeated properties (the last wins, unless an earlier one is final), elements
other than ``<property>``, and capacity vectors (Hadoop 3.4), which tempo does not model,
nor the settings `whatif.capacity.unmodelled` names (queue priorities in the preemption
monitor, node labels, reservable and auto-creating queues).
"""

from __future__ import annotations

import math
import os

from whatif.allocation.effective import Resources
from whatif.allocation.validate import Issue, issues_of
from whatif.capacity.document import ConfigurationDocument
from whatif.capacity.model import (
    GLOBAL_SETTINGS,
    LEAF_POLICIES,
    PARENT_POLICIES,
    POLICY_CLASSES,
    PREFIX,
    QUEUE_SETTINGS,
    ROOT,
    USER_SETTINGS,
    WEIGHT_SUFFIX,
    QueueNode,
    child_names,
    effective_queues,
    key,
    queue_of,
    queue_tree,
    read_capacity,
    user_weight_properties,
)
from whatif.capacity.unmodelled import unmodelled
from whatif.capacity.values import (
    CapacityValue,
    is_vector,
    java_boolean,
    parse_capacity,
    parse_java_float,
    parse_java_int,
    parse_maximum_capacity,
)

#: ``ParentQueue.PRECISION``: children's percentages may miss 100 % by 0.05 %.
PRECISION = 0.0005
#: ``CSQueueUtils.EPSILON``.
EPSILON = 0.0001


def validate(
    doc: ConfigurationDocument | bytes | str | os.PathLike[str],
    *,
    cluster: Resources | None = None,
) -> list[Issue]:
    """Every problem in a Capacity Scheduler configuration, sorted by line."""

    def check(parsed: ConfigurationDocument) -> list[Issue]:
        checker = _Checker(parsed, cluster)
        checker.run()
        return checker.issues

    return issues_of(doc, ConfigurationDocument, check)


class _Checker:
    def __init__(self, doc: ConfigurationDocument, cluster: Resources | None) -> None:
        self.doc, self.cluster = doc, cluster
        self.issues: list[Issue] = []

    def error(self, line: int, message: str) -> None:
        self.issues.append(Issue("error", line, message))

    def warn(self, line: int, message: str) -> None:
        self.issues.append(Issue("warning", line, message))

    def line(self, queue: str, setting: str) -> int:
        return self.property_line(key(queue, setting))

    def property_line(self, name: str) -> int:
        found = self.doc.get(name)
        return found.line if found is not None else self.doc.line

    def run(self) -> None:
        doc = self.doc
        if not doc.is_configuration:
            self.error(
                doc.line,
                f"bad conf file: top-level element not <configuration> (found <{doc.root_tag}>)",
            )
            return
        for tag, line in doc.unknown:
            self.warn(line, f"bad conf file: element not <property>: <{tag}> (ignored)")
        self.check_repeats()
        if doc.get(key(ROOT, "queues")) is None or not child_names(doc, ROOT):
            self.error(
                doc.line,
                f"Queue configuration missing child queue names for root "
                f"(expected {key(ROOT, 'queues')} listing the top-level queues)",
            )
            return
        tree = queue_tree(doc)
        self.check_names(tree)
        self.check_globals()
        legacy = self.doc.value(PREFIX + "legacy-queue-mode.enabled")
        self.legacy = java_boolean(legacy, True)
        for node in tree.walk():
            self.check_queue(node)
            if node.children:
                self.check_children(node)
        self.check_unknown_queues(tree)
        self.check_absolute_bounds()
        self.check_user_weights(tree)
        for line, message in unmodelled(doc, tree):
            self.warn(line, message)

    # ------------------------------------------------------------- structure
    def check_repeats(self) -> None:
        seen: dict[str, int] = {}
        finals: dict[str, int] = {}
        for prop in self.doc.properties:
            if not prop.name:
                self.warn(prop.line, "property without a <name> (ignored)")
                continue
            if prop.name in finals:
                self.warn(
                    prop.line,
                    f"{prop.name} is final at line {finals[prop.name]}; this value is ignored",
                )
            elif prop.name in seen:
                self.warn(
                    prop.line,
                    f"{prop.name} repeats line {seen[prop.name]}; the last value wins",
                )
            seen.setdefault(prop.name, prop.line)
            if prop.final:
                finals.setdefault(prop.name, prop.line)
            if prop.raw is None:
                self.warn(prop.line, f"{prop.name} has no <value> (Hadoop reads it as unset)")

    def check_names(self, tree: QueueNode) -> None:
        for node in tree.walk():
            prop = self.doc.get(key(node.path, "queues"))
            if prop is None:
                continue
            names = child_names(self.doc, node.path)
            seen: set[str] = set()
            for name in names:
                if not name:
                    self.error(
                        prop.line,
                        f"{prop.name}: empty queue name in {prop.raw!r} (a stray comma?)",
                    )
                elif "." in name:
                    self.error(prop.line, f"{prop.name}: queue name {name!r} contains '.'")
                elif name in seen:
                    self.error(prop.line, f"{prop.name}: queue {name!r} is listed twice")
                elif any(c.isspace() for c in name):
                    self.error(prop.line, f"{prop.name}: queue name {name!r} contains white space")
                seen.add(name)

    def check_unknown_queues(self, tree: QueueNode) -> None:
        paths = {node.path for node in tree.walk()}
        for name, prop in self.doc.values.items():
            if not name.startswith(PREFIX):
                continue
            located = queue_of(name, paths)
            if located is None:
                continue
            queue, setting = located
            if queue not in paths and setting.split(".")[0] in QUEUE_SETTINGS:
                self.warn(
                    prop.line,
                    f"{name}: queue {queue} is not declared in any queues list (ignored)",
                )
            if queue == ROOT and setting == "capacity":
                self.warn(prop.line, f"{name}: the root queue's capacity is always 100 (ignored)")

    def check_globals(self) -> None:
        for setting, kind in GLOBAL_SETTINGS.items():
            self.check_number(PREFIX + setting, kind, PREFIX + setting)
        self.check_range(PREFIX + "maximum-am-resource-percent")
        self.check_user_limits(PREFIX + "user-limit-factor", PREFIX + "minimum-user-limit-percent")

    # ------------------------------------------------------------- per queue
    def check_queue(self, node: QueueNode) -> None:
        doc, path = self.doc, node.path
        capacity = doc.get(key(path, "capacity"))
        if capacity is not None and capacity.raw is not None and path != ROOT:
            try:
                value = parse_capacity(capacity.raw, path)
                if value.mode == "vector":
                    self.warn(
                        capacity.line,
                        f"{capacity.name}: capacity vector {capacity.raw.strip()!r} (Hadoop 3.4 "
                        "flexible mode) is not modelled by tempo; its share is unknown",
                    )
            except ValueError as error:
                self.error(capacity.line, f"{capacity.name}: {error}")
        maximum = doc.get(key(path, "maximum-capacity"))
        if maximum is not None and maximum.raw is not None:
            try:
                parse_maximum_capacity(maximum.raw, path)
            except ValueError as error:
                self.error(maximum.line, f"{maximum.name}: {error}")
        state = doc.get(key(path, "state"))
        if state is not None and state.raw is not None:
            upper = state.raw.upper()
            if upper not in ("RUNNING", "STOPPED"):
                self.error(
                    state.line,
                    f"{state.name}: {state.raw!r}: Invalid queue state configuration. "
                    "We can only use RUNNING or STOPPED.",
                )
        self.check_policy(node)
        for setting, kind in QUEUE_SETTINGS.items():
            if kind in ("int", "float", "bool"):
                self.check_number(key(path, setting), kind, key(path, setting))
        self.check_range(key(path, "maximum-am-resource-percent"))
        self.check_user_limits(
            key(path, "user-limit-factor"), key(path, "minimum-user-limit-percent")
        )
        apps = doc.get(key(path, "maximum-applications"))
        if apps is not None and apps.raw is not None:
            try:
                if parse_java_int(apps.raw) < -1:
                    self.warn(
                        apps.line,
                        f"{apps.name}: {apps.value} is below -1; Hadoop uses the default "
                        "(system limit x absolute capacity)",
                    )
            except ValueError:
                pass

    def check_policy(self, node: QueueNode) -> None:
        prop = self.doc.get(key(node.path, "ordering-policy"))
        if prop is None or prop.raw is None:
            return
        text = prop.raw.strip()
        if node.is_leaf:
            if text not in LEAF_POLICIES and text not in POLICY_CLASSES:
                self.error(
                    prop.line,
                    f"{prop.name}: Unable to construct ordering policy for: {text} "
                    f"(a leaf queue takes {', '.join(LEAF_POLICIES)})",
                )
        elif text not in PARENT_POLICIES:
            self.error(
                prop.line,
                f"{prop.name}: Unable to construct queue ordering policy={text} "
                f"queue={node.path} (a parent queue takes {' or '.join(PARENT_POLICIES)})",
            )

    def check_number(self, name: str, kind: str, label: str) -> None:
        prop = self.doc.get(name)
        if prop is None or prop.raw is None:
            return
        try:
            if kind == "float":
                parse_java_float(prop.raw)
            elif kind == "int":
                parse_java_int(prop.raw)
        except ValueError as error:
            expected = "a number" if kind == "float" else "an integer"
            self.error(prop.line, f"{label}: expected {expected}: {error}")

    def check_range(self, name: str) -> None:
        value = self._float(name)
        if value is not None and not 0.0 <= value <= 1.0:
            self.warn(
                self.property_line(name),
                f"{name}: {value:g} is a fraction of the queue's resources; expected 0 to 1",
            )

    def check_user_limits(self, factor_name: str, percent_name: str) -> None:
        factor = self._float(factor_name)
        if factor is not None and not factor > 0 and factor != -1:  # NaN too
            self.warn(
                self.property_line(factor_name),
                f"{factor_name}: {factor:g}; expected a positive factor, or -1 for no user limit"
                + (" (NaN caps each user at 0 applications)" if math.isnan(factor) else ""),
            )
        percent = self._float(percent_name)
        if percent is not None and not 0 < percent <= 100:
            self.warn(
                self.property_line(percent_name),
                f"{percent_name}: {percent:g}; expected a percentage in (0, 100]",
            )

    def _float(self, name: str) -> float | None:
        prop = self.doc.get(name)
        if prop is None or prop.raw is None:
            return None
        try:
            return parse_java_float(prop.raw)
        except ValueError:
            return None

    def check_user_weights(self, tree: QueueNode) -> None:
        """``user-settings.<user>.weight``: a number (``new Float``), and in each leaf each
        weight in force within [0, 100 / minimum-user-limit-percent]
        (``UserWeights.validateForLeafQueue``: the RM refuses the file otherwise)."""
        for node in tree.walk():
            for _, text, prop in user_weight_properties(self.doc, node.path):
                try:
                    parse_java_float(text)
                except ValueError as error:
                    self.error(prop.line, f"{prop.name}: expected a number: {error}")
        for path, queue in effective_queues(self.doc, cluster=self.cluster).items():
            if not queue.is_leaf:
                continue
            ulp = queue.minimum_user_limit_percent
            for user, weight in queue.user_weights.items():
                if not 0.0 <= weight <= 100.0 / ulp:
                    self.error(
                        self._weight_line(path, user),
                        f'Weight ({weight:g}) for user "{user}" must be between 0 and 100 / '
                        f"{ulp:g} (= {100.0 / ulp:g}, the number of concurrent active users "
                        f"in {path})",
                    )

    def _weight_line(self, path: str, user: str) -> int:
        """The line of the weight of `user` in force at `path` (its own or an ancestor's)."""
        while True:
            found = self.doc.get(key(path, f"{USER_SETTINGS}{user}{WEIGHT_SUFFIX}"))
            if found is not None or "." not in path:
                return found.line if found is not None else self.doc.line
            path = path.rsplit(".", 1)[0]

    # ------------------------------------------------------------- siblings
    def check_children(self, node: QueueNode) -> None:
        doc = self.doc
        line = self.line(node.path, "queues")
        state = doc.value(key(node.path, "state"))
        if state is not None and state.strip().upper() == "STOPPED":
            for child in node.children:
                child_state = doc.value(key(child.path, "state"))
                if child_state is not None and child_state.strip().upper() == "RUNNING":
                    self.error(
                        self.line(child.path, "state"),
                        f"The parent queue:{node.path} cannot be STOPPED as the child "
                        f"queue:{child.path} is in RUNNING state.",
                    )
        if not self.legacy:
            return
        values = {child.path: read_capacity(doc, child.path) for child in node.children}
        modes = {
            "percentage": [
                p for p, v in values.items() if v and v.mode == "percentage" and v.percent > 0
            ],
            "weight": [p for p, v in values.items() if v and v.mode == "weight"],
            "absolute": [p for p, v in values.items() if v and v.mode == "absolute"],
        }
        used = [m for m, queues in modes.items() if queues]
        if len(used) > 1:
            detail = "; ".join(f"{m}: {', '.join(modes[m])}" for m in used)
            self.error(
                line,
                f"Parent queue '{node.path}' have children queue used mixed of weight mode, "
                f"percentage and absolute mode, it is not allowed ({detail})",
            )
            return
        parent_value = read_capacity(doc, node.path)
        parent_mode = "percentage" if parent_value is None else parent_value.mode
        if node.path == ROOT:
            parent_mode = "percentage"
        children_mode = used[0] if used else ("weight" if not values else "percentage")
        if (
            node.path != ROOT
            and ("absolute" in (children_mode, parent_mode))
            and (children_mode != parent_mode)
        ):
            self.error(
                line,
                f"Parent={node.path}: When absolute minResource is used, we must make sure "
                f"both parent and child all use absolute minResource (parent: {parent_mode}, "
                f"children: {children_mode})",
            )
            return
        if children_mode == "percentage":
            self.check_sum(node, values, parent_mode, parent_value, line)
        if children_mode == "absolute" and parent_mode == "absolute" and parent_value:
            self.check_absolute_sum(node, values, parent_value, line)

    def check_sum(
        self,
        node: QueueNode,
        values: dict[str, CapacityValue | None],
        parent_mode: str,
        parent_value: CapacityValue | None,
        line: int,
    ) -> None:
        total = sum(v.percent for v in values.values() if v is not None) / 100.0
        allow_zero = (
            doc_value := self.doc.value(key(node.path, "allow-zero-capacity-sum"))
        ) is not None and (doc_value.strip().lower() == "true")
        parent_percent = (
            100.0 if node.path == ROOT else (parent_value.percent if parent_value else 0.0)
        )
        if abs(1 - total) > PRECISION:
            if abs(total) > PRECISION:
                self.error(
                    line,
                    f"Illegal capacity sum of {total * 100:g} for children of queue "
                    f"{node.path}: percentages must add up to 100 (within 0.05) or to 0",
                )
            elif (
                parent_mode == "percentage"
                and abs(parent_percent) > PRECISION * 100
                and not allow_zero
            ):
                self.error(
                    line,
                    f"Illegal capacity sum of 0 for children of queue {node.path}. It is set "
                    "to 0, but parent percent != 0, and doesn't allow children capacity to set "
                    f"to 0 (set {key(node.path, 'allow-zero-capacity-sum')}=true to allow it)",
                )
        elif parent_mode == "percentage" and parent_percent <= 0 and not allow_zero:
            self.error(
                line,
                f"Illegal capacity sum of {total * 100:g} for children of queue {node.path}. "
                f"queue={node.path} has zero capacity, but child queues have positive capacities",
            )

    def check_absolute_sum(
        self,
        node: QueueNode,
        values: dict[str, CapacityValue | None],
        parent_value: CapacityValue,
        line: int,
    ) -> None:
        parent = parent_value.resources
        if parent is None:  # an absolute capacity always has its resources
            return
        for attribute, label in (("memory_mb", "memory"), ("vcores", "vcores")):
            limit = getattr(parent, attribute)
            total = sum(
                getattr(v.resources, attribute) or 0.0 for v in values.values() if v and v.resources
            )
            if limit is not None and total > limit:
                self.error(
                    line,
                    f"Parent Queues capacity: {parent.render()} is less than to its children "
                    f"({label} {total:g} > {limit:g}) for queue:{node.path}",
                )

    def check_absolute_bounds(self) -> None:
        for queue in effective_queues(self.doc, cluster=self.cluster).values():
            if queue.path == ROOT:
                continue
            if (
                queue.absolute_capacity is not None
                and queue.absolute_maximum_capacity is not None
                and queue.absolute_capacity > queue.absolute_maximum_capacity + EPSILON
            ):
                self.error(
                    self.line(queue.path, "maximum-capacity")
                    if self.doc.get(key(queue.path, "maximum-capacity"))
                    else self.line(queue.path, "capacity"),
                    f"Illegal call to setMaxCapacity. Queue '{queue.path}' has an absolute "
                    f"capacity ({queue.absolute_capacity:.6g}) greater than its absolute "
                    f"maximumCapacity ({queue.absolute_maximum_capacity:.6g}): "
                    "maximum-capacity must be at least capacity",
                )
            low, high = queue.min_resources, queue.max_resources
            if (
                low is not None
                and high is not None
                and (low.memory_mb > high.memory_mb or low.vcores > high.vcores)
            ):
                self.error(
                    self.line(queue.path, "maximum-capacity"),
                    f"Min resource configuration of queue {queue.path} is greater than its "
                    "max value (capacity above maximum-capacity)",
                )


__all__ = ["Issue", "PRECISION", "validate", "is_vector"]
