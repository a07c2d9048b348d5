"""Decide: did the last step hold, and is a proposed step worth applying.

Dominance and NaN. A QS is *worse* when ``after > before + max(absolute, relative
* |before|)`` (`Tolerance`). A QS that is NaN on either side (nothing to measure: no
job of that queue finished in the window) is no evidence either way and is skipped.

Load adjustment (a departure from the paper, which compares the two windows as they
are). Consecutive windows carry different jobs, so the QS observed before a step are
carried over to the new window's load by the predicted change (`load_adjusted`)
before judging: "worse than the previous configuration would have done on this
window" is the question a rollback answers. Each window is predicted on its own cluster
(the RM's nodes read at that window, `tempo.loop.tuner.Tuner.nodes`), so a cluster that
lost or gained nodes between the two windows is part of the change carried over, not
blamed on the step.

A proposed step is applied only when `judge` finds it predicted no worse on any
objective, keeping every constraint, and better by a meaningful gain
(`tempo.gain.MinGain`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tempo.errors import TempoError
from tempo.gain import MinGain, QSChange, meaningful_gains
from tempo.loop.observe import QS
from tempo.loop.propose import Step
from tempo.qs import format_value
from tempo.templates import QSTemplate, constraints, objectives
from whatif.metrics import full_path

#: The most a window's load may scale the QS observed before a step (either way).
MAX_LOAD_FACTOR = 2.0

#: What "predicted worse" means for a step's predictions: any change beyond rounding.
EXACT_DIGITS = (1e-9, 1e-12)


@dataclass(frozen=True)
class Tolerance:
    """How much worse a QS may look before it counts as a regression (observation noise).

    A QS regresses when ``after > before + max(absolute, relative * |before|)``.
    """

    relative: float = 0.05
    absolute: float = 0.0

    def __post_init__(self) -> None:
        for name in ("relative", "absolute"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise TempoError(f"Tolerance.{name}: expected a finite number >= 0, got {value!r}")

    def allowance(self, before: float) -> float:
        """The largest increase over `before` that is still noise."""
        return max(self.absolute, self.relative * abs(before))

    def describe(self) -> str:
        """``max(5%, 0)``: the tolerance as the loop's reasons state it."""
        return f"max({self.relative:.0%}, {self.absolute:g})"


#: The tolerance a `Tuner` uses unless told otherwise: 5% relative, no absolute floor.
NOISE = Tolerance()


@dataclass(frozen=True)
class Regression:
    """One QS that got worse: its label and the values before and after."""

    label: str
    before: float
    after: float

    def __str__(self) -> str:
        change = self.after - self.before
        relative = f", {change / abs(self.before):+.2%}" if self.before else ""
        return f"{self.label} {self.before:.4g} -> {self.after:.4g} ({change:+.4g}{relative})"


def regressions(before: QS, after: QS, tolerance: Tolerance = Tolerance()) -> list[Regression]:
    """The QS of `after` worse than in `before` beyond `tolerance`, in `before`'s order.

    QS missing from either side, or NaN on either side, are skipped (no evidence).
    """
    found = []
    for label, old in before.items():
        new = after.get(label)
        if new is None or old is None or math.isnan(old) or math.isnan(new):
            continue
        if new > old + tolerance.allowance(old):
            found.append(Regression(label, float(old), float(new)))
    return found


def dominates(after: QS, before: QS, tolerance: Tolerance = Tolerance()) -> bool:
    """Whether `after` is no worse than `before` on every comparable QS, within `tolerance`."""
    return not regressions(before, after, tolerance)


def comparable(before: QS, after: QS) -> list[str]:
    """Labels with a finite value on both sides."""
    return [
        label
        for label, old in before.items()
        if old is not None
        and after.get(label) is not None
        and math.isfinite(old)
        and math.isfinite(after[label])
    ]


def load_adjusted(observed_before: QS, predicted_before: QS, predicted_now: QS) -> dict[str, float]:
    """The QS observed before a step, carried over to a new window's load.

    Each QS is scaled by the ratio of the previous configuration's predicted QS on the
    new window (its jobs on its cluster) to its prediction on the old one (the old jobs on
    the old cluster), clipped to ``1/MAX_LOAD_FACTOR ..
    MAX_LOAD_FACTOR``: predictions of a window replayed from an empty cluster can be
    several times off the observed run, and a bounded factor keeps such an error from
    excusing a real regression or condemning a good step. A QS predicted at 0 (or of
    a different sign) on the old window shifts by the difference instead, within the
    same bound. A QS without both predictions stays as observed.
    """
    adjusted = {}
    for label, value in observed_before.items():
        old, new = predicted_before.get(label), predicted_now.get(label)
        if (
            value is None
            or old is None
            or new is None
            or not all(math.isfinite(v) for v in (value, old, new))
        ):
            adjusted[label] = value
        elif old != 0 and (old > 0) == (new > 0) and (old > 0) == (value > 0):
            factor = min(max(new / old, 1 / MAX_LOAD_FACTOR), MAX_LOAD_FACTOR)
            adjusted[label] = value * factor
        else:
            bound = (MAX_LOAD_FACTOR - 1) * max(abs(value), abs(old))
            adjusted[label] = value + min(max(new - old, -bound), bound)
    return adjusted


def held_reason(seen: Sequence[str], adjusted: bool, tolerance: Tolerance) -> str:
    """The prefix of a reason saying the previous step held (or could not be judged)."""
    if not seen:
        return "the previous step could not be judged (nothing comparable observed); "
    against = "the previous configuration predicted on this load" if adjusted else "before it"
    return (
        f"the previous step held ({len(seen)} QS compared, none worse than "
        f"{against} beyond {tolerance.describe()}); "
    )


def _predicted_changes(
    step: Step, templates: Sequence[QSTemplate], exact: Tolerance
) -> tuple[list[str], list[QSChange]]:
    """(what the step breaks, the objective and violated-constraint changes it predicts)."""
    before, after = step.predicted_current, step.predicted
    units = {f"{full_path(q)}:{m.label}": m.unit for q, m, _ in objectives(templates)}
    problems = [
        f"{r} predicted worse"
        for r in regressions({k: before.get(k, math.nan) for k in units}, after, exact)
    ]
    changes = [
        QSChange(label, unit, math.inf, before.get(label, math.nan), after.get(label, math.nan))
        for label, unit in units.items()
    ]
    for q, metric, threshold in constraints(templates):
        label = f"{full_path(q)}:{metric.label}"
        old, new = before.get(label, math.nan), after.get(label, math.nan)
        if math.isnan(old) or math.isnan(new):
            continue
        if old <= threshold and new > threshold:
            problems.append(f"{Regression(label, old, new)} would break its constraint")
        elif old > threshold:
            if new > old + exact.allowance(old):
                problems.append(f"{Regression(label, old, new)}: a violated constraint worse")
            changes.append(QSChange(label, metric.unit, threshold, old, new))
    return problems, changes


def judge(step: Step, templates: Sequence[QSTemplate], floor: MinGain) -> tuple[str, str]:
    """('' or why the step is not an improvement, the predicted gains as text).

    An improvement: no OPTIMIZE objective predicted worse, no constraint that holds
    now predicted broken, no violated constraint predicted further off, and some
    objective (or violated constraint) better by `floor` (relative and absolute,
    `tempo.gain.meaningful_gains`).
    """
    exact = Tolerance(*EXACT_DIGITS)
    problems, changes = _predicted_changes(step, templates, exact)
    if problems:
        return "; ".join(problems), ""
    gains = [
        c
        for c in meaningful_gains(changes, floor)
        if c.before - c.after > exact.allowance(c.before)
    ]
    if gains:
        return "", "; ".join(qs_change(c) for c in gains)
    best = max(
        (c for c in changes if not (math.isnan(c.before) or math.isnan(c.after))),
        key=lambda c: c.before - c.after,
        default=None,
    )
    closest = f"; best: {qs_change(best)}" if best is not None and best.after < best.before else ""
    return (
        f"no objective predicted better by at least {floor}{closest} "
        f"(the step moved {step.distance:.3f})",
        "",
    )


def constraints_note(step: Step, templates: Sequence[QSTemplate]) -> str:
    """``constraints kept``, or, where the step leaves a constraint predicted broken (no
    worse than now: `judge` refuses worse), which ones and by how much."""
    broken = []
    for q, metric, threshold in constraints(templates):
        label = f"{full_path(q)}:{metric.label}"
        value = step.predicted.get(label, math.nan)
        if value > threshold:
            unit = metric.unit
            broken.append(
                f"{label} {format_value(value, unit)} against <= {format_value(threshold, unit)}"
            )
    if not broken:
        return "constraints kept"
    return f"constraints no worse (still predicted broken: {'; '.join(broken)})"


def qs_change(change: QSChange) -> str:
    """``root.a:QS_AJR 120.0s -> 100.0s (-16.67%)``: a predicted QS change with its unit."""
    relative = (
        f" ({(change.after - change.before) / abs(change.before):+.2%})" if change.before else ""
    )
    return (
        f"{change.label} {format_value(change.before, change.unit)} -> "
        f"{format_value(change.after, change.unit)}{relative}"
    )
