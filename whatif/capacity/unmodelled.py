"""Settings of a ``capacity-scheduler.xml`` that Hadoop honours and tempo's predictor does not.

A prediction of a file that sets one of them describes a cluster that does not, so
`whatif.capacity.validate` warns of each, naming its line; `tempo config validate` and
the commands that predict print the warnings. What counts is Hadoop's own rule of when
the setting acts:

- queue priorities in the preemption monitor, under a parent whose ordering policy is
  ``priority-utilization`` and whose children's priorities differ (the allocation order
  they set, ``PriorityUtilizationQueueOrderingPolicy``, is predicted; the monitor's ideal
  allocation ranks by them too, which is not); under ``utilization`` they order nothing;
- node labels (``accessible-node-labels.<label>.*``, ``default-node-label-expression``):
  every node is predicted in the default partition;
- ``reservable`` (the reservation system's plan queues);
- queues created on the fly (``auto-create-child-queue.enabled``,
  ``auto-queue-creation-v2.enabled``): a trace job in one is refused, as in a queue the
  file does not declare.
"""

from __future__ import annotations

from collections.abc import Iterator

from whatif.capacity.document import ConfigurationDocument, Property
from whatif.capacity.model import PREFIX, QueueNode, effective_queues, key
from whatif.capacity.values import java_boolean

#: How a warning ends: what tempo predicts instead.
_INSTEAD = "; tempo does not model this and predicts as if it were unset"


def unmodelled(doc: ConfigurationDocument, tree: QueueNode) -> Iterator[tuple[int, str]]:
    """(line, message) for each setting of `doc` the predictor leaves out (module docstring)."""
    queues = effective_queues(doc)
    for node in tree.walk():
        path = node.path
        if not node.is_leaf and queues[path].ordering_policy == "priority-utilization":
            yield from _priorities(
                doc, node, {c.path: queues[c.path].priority for c in node.children}
            )
        for name in (
            "reservable",
            "auto-create-child-queue.enabled",
            "auto-queue-creation-v2.enabled",
        ):
            prop = doc.get(key(path, name))
            if prop is not None and java_boolean(prop.raw, False):
                yield prop.line, f"{prop.name} = true: {_WHAT[name]}{_INSTEAD}"
    labels = _label_settings(doc)
    if labels:
        first = min(labels, key=lambda p: p.line)
        yield (
            first.line,
            f"{first.name}: node labels ({len(labels)} propert"
            f"{'y' if len(labels) == 1 else 'ies'} from this line on) give queues partitions "
            f"of the cluster{_INSTEAD}: every node in the default partition",
        )


_CREATED = (
    "queues created on the fly under it (a trace job in one is refused, as in an undeclared queue)"
)
_WHAT = {
    "reservable": "a plan queue of the reservation system",
    "auto-create-child-queue.enabled": _CREATED,
    "auto-queue-creation-v2.enabled": _CREATED,
}


def _priorities(
    doc: ConfigurationDocument, node: QueueNode, found: dict[str, int]
) -> Iterator[tuple[int, str]]:
    """A priority-utilization parent whose children's priorities (`found`) differ."""
    if len(set(found.values())) < 2:
        return
    prop = doc.get(key(node.path, "ordering-policy"))
    line = prop.line if prop is not None else _first_line(doc, node)
    listed = ", ".join(f"{path} {priority}" for path, priority in found.items())
    yield (
        line,
        f"{key(node.path, 'ordering-policy')}: priority-utilization offers {node.path}'s "
        f"children by priority ({listed}), as tempo predicts; the preemption monitor, when "
        "on, also ranks them by priority in its ideal allocation "
        "(TempQueuePerPartition.relativePriority); tempo does not model this and predicts "
        "its rounds by used capacity alone",
    )


def _first_line(doc: ConfigurationDocument, node: QueueNode) -> int:
    prop = doc.get(key(node.path, "queues"))
    return prop.line if prop is not None else doc.line


def _label_settings(doc: ConfigurationDocument) -> list[Property]:
    """The properties that give a queue a node label's capacity or a default label."""
    return [
        prop
        for name, prop in doc.values.items()
        if name.startswith(PREFIX)
        and (".accessible-node-labels." in name or name.endswith(".default-node-label-expression"))
        and (prop.raw or "").strip()
    ]
