"""The emulated RM's scheduler-conf mutation (``PUT /ws/v1/cluster/scheduler-conf``).

A Capacity Scheduler RM with a mutable configuration store takes a ``<sched-conf>``
document (Hadoop's ``SchedConfUpdateInfo``: ``remove-queue`` paths, ``add-queue`` and
``update-queue`` with a ``queue-name`` and ``params`` entries, ``global-updates``
entries keyed by full property name) and applies exactly those changes to the
configuration in force - not to a file. `parse_sched_conf` reads the document and
`apply_sched_conf` applies it as Hadoop's ``ConfigurationUpdateAssembler.
constructKeyValueConfUpdate`` builds the key/value update and
``MutableCSConfigurationProvider.logAndApplyMutation`` applies it (null unsets, anything
else sets):

- removals first, then additions, then queue updates, then global updates; a later
  change to the same key wins (the update is one ``HashMap``);
- ``remove-queue`` of a path without a dot ("Can't remove queue X") or of a queue its
  parent's ``.queues`` does not list ("Queue X not found") is refused; otherwise the
  name leaves the parent's list (an emptied list, and the parent's ``ordering-policy``,
  are unset) and every property matching ``.*<path>\\..*`` is unset;
- ``add-queue`` of a path without a dot ("Can't add invalid queue X") or of a queue
  already listed ("Can't add existing queue X") is refused; otherwise the name is
  appended to the parent's list, the params set (empty or missing values unset), and
  a parent that just got its first child loses its ``ordering-policy``;
- ``update-queue`` params: an empty or missing value unsets, any other sets (the queue
  is not checked to exist, as in Hadoop);
- ``global-updates``: only a missing ``<value>`` (null) unsets; "" sets "".

The result must then pass what ``refreshQueues`` checks (``RMWebServices.
updateSchedulerConfiguration`` refreshes and answers 400 with the exception's message,
keeping the old configuration, on failure): the file rules of `whatif.capacity.validate`
and `queue_change_issues` (``CapacitySchedulerConfigValidator.validateQueueHierarchy``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from whatif.capacity import ConfigurationDocument, effective_queues, queue_tree
from whatif.capacity.model import key


class SchedConfError(ValueError):
    """A mutation Hadoop refuses (the RM answers 400 with this message)."""


@dataclass(frozen=True)
class QueueChange:
    """One ``add-queue`` or ``update-queue``: the queue's path and its params (None: no value)."""

    queue: str
    params: tuple[tuple[str, str | None], ...]


@dataclass(frozen=True)
class SchedConfUpdate:
    """A parsed ``<sched-conf>`` (Hadoop's ``SchedConfUpdateInfo``)."""

    remove: tuple[str, ...] = ()
    add: tuple[QueueChange, ...] = ()
    update: tuple[QueueChange, ...] = ()
    globals_: tuple[tuple[str, str | None], ...] = field(default=())


def _entries(element: etree._Element | None) -> tuple[tuple[str, str | None], ...]:
    """``<entry><key>K</key><value>V</value></entry>`` children (no ``<value>``: None)."""
    if element is None:
        return ()
    pairs = []
    for entry in element.findall("entry"):
        name = entry.findtext("key")
        if name is None:
            raise SchedConfError("an entry has no <key>")
        pairs.append((name, entry.findtext("value")))
    return tuple(pairs)


def _queue_change(element: etree._Element) -> QueueChange:
    queue = (element.findtext("queue-name") or "").strip()
    if not queue:
        raise SchedConfError(f"<{element.tag}> has no <queue-name>")
    return QueueChange(queue, _entries(element.find("params")))


def parse_sched_conf(body: bytes) -> SchedConfUpdate:
    """The update in a ``<sched-conf>`` XML body, or `SchedConfError` saying why it is unreadable."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(body, parser)
    except etree.XMLSyntaxError as error:
        raise SchedConfError(f"the body is not XML: {error}") from error
    if root.tag != "sched-conf":
        raise SchedConfError(f"the body's root element is <{root.tag}>, not <sched-conf>")
    return SchedConfUpdate(
        remove=tuple((e.text or "").strip() for e in root.findall("remove-queue")),
        add=tuple(_queue_change(e) for e in root.findall("add-queue")),
        update=tuple(_queue_change(e) for e in root.findall("update-queue")),
        globals_=_entries(root.find("global-updates")),
    )


def _children(doc: ConfigurationDocument, parent: str) -> list[str]:
    """``getTrimmedStringCollection`` of ``<parent>.queues``: trimmed, empty names dropped."""
    raw = doc.value(key(parent, "queues")) or ""
    return [name.strip() for name in raw.split(",") if name.strip()]


def _remove_queue(doc: ConfigurationDocument, path: str) -> ConfigurationDocument:
    """``ConfigurationUpdateAssembler.removeQueue``."""
    if "." not in path:
        raise SchedConfError(f"Can't remove queue {path}")
    parent, name = path.rsplit(".", 1)
    siblings = _children(doc, parent)
    if name not in siblings:
        raise SchedConfError(f"Queue {path} not found")
    siblings.remove(name)
    if siblings:
        doc = doc.set(key(parent, "queues"), ",".join(siblings))
    else:
        doc = doc.set(key(parent, "queues"), None).set(key(parent, "ordering-policy"), None)
    pattern = re.compile(".*" + path + r"\..*")  # Hadoop's regex, the path's dots unescaped
    for name_ in [n for n in doc.names() if pattern.search(n)]:
        doc = doc.set(name_, None)
    return doc


def _set_params(
    doc: ConfigurationDocument, queue: str, params: tuple[tuple[str, str | None], ...]
) -> ConfigurationDocument:
    """A queue's params as ``updateQueue`` applies them: a null or empty value unsets."""
    for setting, value in params:
        doc = doc.set(key(queue, setting), value if value else None)
    return doc


def _add_queue(doc: ConfigurationDocument, change: QueueChange) -> ConfigurationDocument:
    """``ConfigurationUpdateAssembler.addQueue``."""
    path = change.queue
    if "." not in path:
        raise SchedConfError(f"Can't add invalid queue {path}")
    parent, name = path.rsplit(".", 1)
    siblings = _children(doc, parent)
    if name in siblings:
        raise SchedConfError(f"Can't add existing queue {path}")
    siblings.append(name)
    doc = _set_params(doc.set(key(parent, "queues"), ",".join(siblings)), path, change.params)
    if len(siblings) == 1:  # a leaf turned parent keeps no leaf ordering policy
        doc = doc.set(key(parent, "ordering-policy"), None)
    return doc


def apply_sched_conf(doc: ConfigurationDocument, update: SchedConfUpdate) -> ConfigurationDocument:
    """`doc` with `update` applied in Hadoop's order (`SchedConfError` if an operation is refused)."""
    for path in update.remove:
        if path:
            doc = _remove_queue(doc, path)
    for change in update.add:
        doc = _add_queue(doc, change)
    for change in update.update:
        doc = _set_params(doc, change.queue, change.params)
    for name, value in update.globals_:
        doc = doc.set(name, value)
    return doc


def queue_change_issues(old: ConfigurationDocument, new: ConfigurationDocument) -> list[str]:
    """Why ``CapacitySchedulerConfigValidator.validateQueueHierarchy`` refuses `new` over `old`.

    A queue that disappears must be STOPPED in `old` or in `new`'s ``<path>.state``; a leaf
    that becomes a parent must be STOPPED in one of them. The old state is the configured
    one (a STOPPED queue still running applications, DRAINING in Hadoop, is not told apart).
    """
    before = effective_queues(old)
    was_leaf = {node.path: node.is_leaf for node in queue_tree(old).walk()}
    after_tree = {node.path: node for node in queue_tree(new).walk()}
    issues = []
    for path, queue in before.items():
        new_state = (new.value(key(path, "state")) or "").strip()
        stopped = queue.state == "STOPPED" or new_state == "STOPPED"
        node = after_tree.get(path)
        if node is None and not stopped:
            issues.append(
                f"{path} cannot be deleted from the capacity scheduler configuration, as the "
                f"queue is not yet in stopped state. Current State : {queue.state}"
            )
        elif node is not None and was_leaf.get(path) and not node.is_leaf and not stopped:
            issues.append(
                f"Can not convert the leaf queue: {path} to parent queue since it is not yet "
                f"in stopped state. Current State : {queue.state}"
            )
    return issues


__all__ = [
    "QueueChange",
    "SchedConfError",
    "SchedConfUpdate",
    "apply_sched_conf",
    "parse_sched_conf",
    "queue_change_issues",
]
