"""``--set`` for Capacity Scheduler files: ``root.QUEUE.SETTING=VALUE`` as one property change.

``root.a.capacity=40`` sets ``yarn.scheduler.capacity.root.a.capacity``; a target
that is not a queue path (``maximum-am-resource-percent=0.2``) sets the scheduler-wide
``yarn.scheduler.capacity.maximum-am-resource-percent``; a full property name
(``yarn.scheduler.capacity.node-locality-delay=40``) is taken as is. VALUE is checked
as Hadoop reads that setting (a capacity in any of its three modes, a state, an
ordering policy, a number) and written trimmed; ``default`` removes the property.
The queue must be declared (add it to its parent's ``queues`` first).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from whatif.capacity.document import CapacityConfigError, ConfigurationDocument
from whatif.capacity.model import (
    GLOBAL_SETTINGS,
    LEAF_POLICIES,
    PARENT_POLICIES,
    PREFIX,
    QUEUE_SETTINGS,
    ROOT,
    queue_of,
    queue_tree,
)
from whatif.capacity.validate import validate
from whatif.capacity.values import (
    parse_capacity,
    parse_java_float,
    parse_java_int,
    parse_maximum_capacity,
)

_REMOVE = ("default", "none", "unset")


def refuse_rejected(original: ConfigurationDocument, changed: ConfigurationDocument) -> None:
    """Raise `CapacityConfigError` if `changed` (`original` with ``--set`` changes applied)
    is a file Hadoop would reject, each error citing the line of `original` it is about
    (none for a property the changes added): the refused output is never written, so
    its own line numbers would point at nothing the user can open."""
    errors = [issue for issue in validate(changed) if issue.severity == "error"]
    if errors:
        cited = "; ".join(_cited(original, changed, i.line) + i.message for i in errors[:5])
        raise CapacityConfigError(
            f"{original.source}: refusing the --set changes, which Hadoop would reject: {cited}"
        )


def _cited(original: ConfigurationDocument, changed: ConfigurationDocument, line: int) -> str:
    """``line N: `` of `original` for a line of `changed` (a property's, or the root's)."""
    if line == changed.line:
        return f"line {original.line}: "
    names = [p.name for p in changed.properties if p.line == line and p.name]
    found = original.get(names[0]) if names else None
    return f"line {found.line}: " if found is not None else ""


def parse_assignment(doc: ConfigurationDocument, text: str) -> tuple[str, str | None]:
    """(property name, value or None to remove) for one ``--set`` argument."""
    target, sep, raw = text.partition("=")
    target = target.strip()
    if not sep or not target:
        raise CapacityConfigError(
            f"--set {text!r}: expected root.QUEUE.SETTING=VALUE, e.g. root.prod.capacity=40"
        )
    name = target if target.startswith("yarn.") else PREFIX + target
    tree = queue_tree(doc)
    paths = {node.path: node for node in tree.walk()}
    located = queue_of(name, set(paths))
    if located is not None:
        queue, setting = located
        if queue not in paths:
            raise CapacityConfigError(
                f"--set {text!r}: queue {queue} is not declared (declared: {', '.join(paths)}); "
                f"add it to its parent's queues list first"
            )
        kind = QUEUE_SETTINGS.get(setting)
        if kind is None and not setting.startswith(("accessible-node-labels", "ordering-policy.")):
            raise CapacityConfigError(
                f"--set {text!r}: unknown queue setting {setting!r} "
                f"(known: {', '.join(QUEUE_SETTINGS)})"
            )
        is_leaf = paths[queue].is_leaf
    else:
        queue, setting, is_leaf = "", name.removeprefix(PREFIX), False
        kind = GLOBAL_SETTINGS.get(setting)
        if kind is None and name.startswith(PREFIX) and "." not in setting:
            raise CapacityConfigError(
                f"--set {text!r}: unknown scheduler setting {setting!r} "
                f"(known: {', '.join(GLOBAL_SETTINGS)}; a queue setting starts with root.)"
            )
    value = raw.strip()
    if value.lower() in _REMOVE:
        return name, None
    if queue == ROOT and setting == "capacity":
        raise CapacityConfigError(f"--set {text!r}: the root queue's capacity is always 100")
    try:
        _check(kind, value, queue, is_leaf)
    except ValueError as error:
        raise CapacityConfigError(
            f"--set {text!r}: {setting} cannot take {value!r}: {error}"
        ) from None
    return name, value if kind != "acl" else raw


def _check(kind: str | None, value: str, queue: str, is_leaf: bool) -> None:
    if kind != "acl" and not value:
        raise ValueError("empty value ('default' removes the property)")
    if any(unicodedata.category(c) == "Cc" for c in value):
        raise ValueError("control characters are not allowed")
    if kind == "capacity":
        parse_capacity(value, queue)
    elif kind == "maximum-capacity":
        parse_maximum_capacity(value, queue)
    elif kind == "state":
        if value.upper() not in ("RUNNING", "STOPPED"):
            raise ValueError("expected RUNNING or STOPPED")
    elif kind == "policy":
        allowed = LEAF_POLICIES if is_leaf else PARENT_POLICIES
        if value not in allowed:
            where = "a leaf" if is_leaf else "a parent"
            raise ValueError(f"{where} queue takes {', '.join(allowed)}")
    elif kind == "float":
        parse_java_float(value)
    elif kind == "int":
        parse_java_int(value)
    elif kind == "bool":
        if value.lower() not in ("true", "false"):
            raise ValueError("expected true or false")
    elif kind == "list":
        names = [n.strip() for n in value.split(",")]
        if any(not n or "." in n or any(c.isspace() for c in n) for n in names):
            raise ValueError("expected comma-separated queue names without dots or spaces")


def apply_assignments(
    doc: ConfigurationDocument, assignments: Iterable[str]
) -> ConfigurationDocument:
    """`doc` with each ``--set`` applied in turn, each changing one property."""
    for text in assignments:
        name, value = parse_assignment(doc, text)
        doc = doc.set(name, value)
    return doc
