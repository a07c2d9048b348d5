"""What the RM's two live queue trees share (the Fair Scheduler's, `tempo.rm.scheduler`,
and the Capacity Scheduler's, `tempo.rm.capacity_state`): a root, its queues by full
name and its leaves."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from whatif.queues import QueueTree


class NamedQueue(QueueTree):
    """A queue of the RM's tree, named by its full path (mixed into a frozen dataclass)."""

    __slots__ = ()

    name: str


Queue = TypeVar("Queue", bound=NamedQueue)


@dataclass(frozen=True)
class QueueStates(Generic[Queue]):
    """A queue tree in force on the RM."""

    root: Queue

    @property
    def queues(self) -> Mapping[str, Queue]:
        """Every queue by full name (``root``, ``root.a``, ...), parents before children."""
        return {queue.name: queue for queue in self.root.walk()}

    @property
    def leaves(self) -> tuple[Queue, ...]:
        return tuple(queue for queue in self.root.walk() if queue.is_leaf)
