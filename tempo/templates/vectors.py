"""Templates as the optimizer sees them: ordered objective and constraint vectors.

The order is the templates' order, objectives one per template with an OPTIMIZE
clause, constraints in the order written. `qs_vector` reads an
`whatif.metrics.evaluate` table in that order, so ``qs_vector(table,
objectives(ts))`` and ``qs_vector(table, constraints(ts))`` line up with the
priorities and thresholds returned here.
"""

from __future__ import annotations

from collections.abc import Iterable

from tempo.templates.model import QSTemplate
from whatif.metrics import Metric
from whatif.whatif_model import qs_values


def objectives(templates: Iterable[QSTemplate]) -> list[tuple[str, Metric, float]]:
    """(queue, metric, priority) of every OPTIMIZE clause, in template order."""
    return [(t.queue, t.optimize, t.priority) for t in templates if t.optimize is not None]


def constraints(templates: Iterable[QSTemplate]) -> list[tuple[str, Metric, float]]:
    """(queue, metric, threshold) of every constraint (f <= r in the paper's SP1), in order."""
    return [(t.queue, c.metric, c.threshold) for t in templates for c in t.constraints]


def required_metrics(templates: Iterable[QSTemplate]) -> list[Metric]:
    """Every metric some template names, without repeats: what to pass to `evaluate`."""
    return list(dict.fromkeys(m for t in templates for m in t.metrics))


#: Values of ``(queue, metric, ...)`` entries in an `evaluate` table, in entry order
#: (raw values: priorities are not applied; NaN where a queue had nothing to measure).
qs_vector = qs_values
