"""Queue trees from queue paths, and the expansion of records to every queue above them.

Queue paths are dotted (``root.etl.daily``); a bare leaf name such as ``etl``
means ``root.etl``, as in the Fair Scheduler (`whatif.queues.normalize_queue`). A record of queue
``root.a.b`` counts for ``root.a.b``, ``root.a`` and ``root``: `QueueTree.expand`
turns per-record queue codes into (record, group) pairs so that every per-queue
aggregate is one ``np.bincount``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from whatif.errors import ValidationError
from whatif.queues import normalize_queue


def full_path(queue: str) -> str:
    """The full dotted path of a queue name, as the readers place it (``etl`` -> ``root.etl``)."""
    if not str(queue).strip() or any(not part for part in str(queue).strip().split(".")):
        raise ValidationError(f"queue name: expected a dotted path like root.a.b, got {queue!r}")
    return normalize_queue(queue)


@dataclass(frozen=True, eq=False)
class QueueTree:
    """Every queue (root, parents, leaves) in depth-first order, with each one's ancestors.

    ``names[i]`` is a full path; ``ancestors[i]`` the indices of ``names[i]`` and of
    every queue above it, the queue itself first.
    """

    names: tuple[str, ...]
    ancestors: tuple[tuple[int, ...], ...]

    @classmethod
    def from_paths(cls, paths: Iterable[str]) -> QueueTree:
        """The tree spanned by `paths` and all their prefixes, children sorted by name."""
        nodes = {"root"}
        for path in paths:
            parts = full_path(path).split(".")
            nodes.update(".".join(parts[: i + 1]) for i in range(len(parts)))
        names = tuple(sorted(nodes, key=lambda n: n.split(".")))
        index = {name: i for i, name in enumerate(names)}
        ancestors = tuple(
            tuple(
                index[".".join(name.split(".")[: i + 1])]
                for i in reversed(range(name.count(".") + 1))
            )
            for name in names
        )
        return cls(names, ancestors)

    def __len__(self) -> int:
        return len(self.names)

    def codes(self, queues: pd.Series | Iterable[str]) -> np.ndarray:
        """Index in `names` of each queue (full path or bare leaf name)."""
        index = {name: i for i, name in enumerate(self.names)}
        inverse, uniques = pd.factorize(
            pd.Series(list(queues) if not isinstance(queues, pd.Series) else queues, dtype="string")
        )
        lookup = np.array([index[full_path(q)] for q in uniques], dtype=np.int64)
        return lookup[inverse] if inverse.size else np.zeros(0, dtype=np.int64)

    def expand(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(record index, group index) for every record and every queue above it.

        Parameters
        ----------
        codes : int64 array, shape (n,)
            Queue index of each record.

        Returns
        -------
        items, groups : int64 arrays, shape (m,), m = sum of the records' depths
        """
        counts = np.fromiter((len(a) for a in self.ancestors), dtype=np.int64, count=len(self))
        flat = np.fromiter((g for a in self.ancestors for g in a), dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
        per_item = counts[codes]
        items = np.repeat(np.arange(codes.size, dtype=np.int64), per_item)
        first = np.repeat(np.cumsum(per_item) - per_item, per_item)
        positions = np.repeat(offsets[codes], per_item) + (np.arange(items.size) - first)
        return items, flat[positions]
