"""QS templates as values: a queue's objective, its constraints and priority, and where they were written."""

from __future__ import annotations

from dataclasses import dataclass

from whatif.metrics import Metric

#: Comparison operators a constraint may use (every QS is lower-is-better).
OPERATORS = ("<", "<=")


@dataclass(frozen=True)
class SourceLocation:
    """A place in a template file: path, 1-based line and column."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Constraint:
    """``metric op threshold``, the threshold in the metric's own unit (fractions, seconds)."""

    metric: Metric
    op: str
    threshold: float
    location: SourceLocation | None = None

    def is_met(self, value: float) -> bool | None:
        """Whether `value` satisfies the constraint; None when the value is NaN (nothing measured)."""
        if value != value:
            return None
        return bool(value < self.threshold if self.op == "<" else value <= self.threshold)

    def __str__(self) -> str:
        return f"{self.metric.label} {self.op} {self.threshold:g}"


@dataclass(frozen=True)
class QSTemplate:
    """One queue's SLOs: a metric to OPTIMIZE (or None), CONSTRAINTs, and a PRIORITY.

    ``queue`` is a full path (``root.etl``). The priority multiplies the optimized
    metric, as in the Tempo paper (section 5.2); constraints are not scaled.
    """

    queue: str
    optimize: Metric | None
    constraints: tuple[Constraint, ...] = ()
    priority: float = 1.0
    location: SourceLocation | None = None

    @property
    def metrics(self) -> tuple[Metric, ...]:
        """Every metric the template names, the optimized one first, without repeats."""
        named = ([self.optimize] if self.optimize else []) + [c.metric for c in self.constraints]
        return tuple(dict.fromkeys(named))
