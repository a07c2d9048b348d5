"""Observe: the jobs that finished in a window (`RMObserver`), and the QS the templates name on them.

Observed QS are measured like the What-if Model measures a prediction (first
submission to last finish), so observed and predicted QS compare.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from tempo.templates import QSTemplate, constraints, objectives, qs_vector
from whatif.cluster import Cluster
from whatif.metrics import Metric, Window, evaluate, full_path
from whatif.trace import Trace

if TYPE_CHECKING:
    from tempo.rm import RMClient

#: A QS vector: ``"queue:metric label"`` to value (lower is better; NaN: nothing measured).
QS = Mapping[str, float]


class Observer(Protocol):
    """Reads the jobs that finished in ``[begin_s, end_s)`` (epoch seconds) as a `Trace`.

    `tempo.rm.RMClient` is one. Raises `tempo.RMError` when the cluster cannot be
    read or understood.
    """

    def window(self, begin_s: float, end_s: float) -> Trace: ...


def qs_entries(templates: Sequence[QSTemplate]) -> list[tuple[str, Metric]]:
    """The (queue, metric) pairs the templates name, objectives first, without repeats."""
    pairs = [(q, m) for q, m, _ in objectives(templates)] + [
        (q, m) for q, m, _ in constraints(templates)
    ]
    return list(dict.fromkeys((full_path(q), m) for q, m in pairs))


def qs_labels(entries: Iterable[tuple[str, Metric]]) -> list[str]:
    """``"queue:metric label"`` of each entry (the What-if Model's labels)."""
    return [f"{full_path(q)}:{m.label}" for q, m in entries]


def observed_qs(
    trace: Trace, entries: Sequence[tuple[str, Metric]], *, cluster: Cluster | None = None
) -> dict[str, float]:
    """The QS of `entries` on the trace's observed schedule, over the span it covers.

    All NaN when nothing finished. Jobs still running when the window was observed
    are left out, with a warning naming how many (`whatif.metrics.evaluate`,
    ``unfinished="warn"``).
    """
    labels = qs_labels(entries)
    schedule = trace.observed
    if schedule is None or len(schedule.jobs) == 0:
        return dict.fromkeys(labels, math.nan)
    table = evaluate(
        schedule,
        [m for _, m in entries],
        window=Window.covering(schedule),
        cluster=cluster,
        workload=trace.workload,
        queues=[q for q, _ in entries],
        unfinished="warn",
    )
    return dict(zip(labels, map(float, qs_vector(table, entries)), strict=True))


class RMObserver:
    """An `RMClient` window of the templates' queues (tasks without attempts unless needed)."""

    def __init__(self, client: RMClient, *, queues: Sequence[str], attempts: bool) -> None:
        self.client, self.queues, self.attempts = client, list(queues), attempts

    def window(self, begin_s: float, end_s: float) -> Trace:
        """The window's jobs of the templates' queues (`Observer.window`)."""
        return self.client.window(begin_s, end_s, queues=self.queues, attempts=self.attempts)
