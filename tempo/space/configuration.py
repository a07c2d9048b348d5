"""A decoded point of the configuration space: the tuned settings' values in Hadoop units."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Configuration:
    """The value of every tuned setting, one entry per dimension.

    ``entries`` holds ``(queue, key, value)`` in the space's dimension order, where
    ``key`` is the setting and component (``weight``, ``minResources.memory``) and
    ``value`` is in Hadoop units: seconds, MB, vcores, plain numbers. Integer
    settings hold ``int``, categorical ones (``schedulingPolicy``) the choice's name; the
    off state is ``math.inf`` (a timeout that never fires, no limit) or -1.0 for a
    disabled ``maxAMShare``.
    """

    entries: tuple[tuple[str, str, float | int | str], ...]

    def __iter__(self) -> Iterator[tuple[str, str, float | int | str]]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def value(self, queue: str, key: str) -> float | int | str:
        """The value of one setting (``key`` as in ``entries``)."""
        for entry_queue, entry_key, value in self.entries:
            if entry_queue == queue and entry_key == key:
                return value
        raise KeyError(f"{queue}.{key}")

    def to_records(self) -> list[dict[str, object]]:
        """One dict per entry (``queue``, ``setting``, ``value``), for tables and JSON."""
        return [{"queue": q, "setting": k, "value": v} for q, k, v in self.entries]
