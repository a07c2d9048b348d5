"""Queue names as the Fair Scheduler places them: the one rule readers, metrics and the
tuner share, kept below all of them so none reaches sideways for it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Self


def normalize_queue(name: object) -> str:
    """The full Fair Scheduler path of a recorded queue name.

    Mirrors the Fair Scheduler's "specified" placement: an empty name or
    ``default`` is ``root.default``, a name already under ``root`` stays as it is,
    and any other name is put under ``root`` (``etl`` -> ``root.etl``).
    """
    text = "" if name is None else str(name).strip()
    if text in ("", "default"):
        return "root.default"
    if text == "root" or text.startswith("root."):
        return text
    return f"root.{text}"


class QueueTree:
    """A queue node whose ``children`` are nodes of its own type: the walk every queue tree
    shares (an allocation file's queues, their effective values, a Capacity Scheduler's
    queues, the RM's queue states). Mixed into their frozen dataclasses; it adds no field.
    """

    __slots__ = ()

    children: tuple[Self, ...]

    def walk(self) -> Iterator[Self]:
        """This queue and all below it, depth first, parents before children, in order."""
        yield self
        for child in self.children:
            yield from child.walk()

    @property
    def is_leaf(self) -> bool:
        """No queue below this one."""
        return not self.children
