"""Capacity Scheduler configurations (``capacity-scheduler.xml``): document, queue tree, rules, edits."""

from whatif.capacity.assign import apply_assignments, parse_assignment, refuse_rejected
from whatif.capacity.document import CapacityConfigError, ConfigurationDocument, Property
from whatif.capacity.model import EffectiveQueue, QueueNode, effective_queues, queue_tree
from whatif.capacity.validate import validate
from whatif.capacity.xml_io import is_capacity_scheduler, write_capacity

__all__ = [
    "CapacityConfigError",
    "ConfigurationDocument",
    "EffectiveQueue",
    "Property",
    "QueueNode",
    "apply_assignments",
    "effective_queues",
    "is_capacity_scheduler",
    "parse_assignment",
    "queue_tree",
    "refuse_rejected",
    "validate",
    "write_capacity",
]
