"""The control loop of `tempo tune` (Tempo paper, Fig. 2): observe, roll back or step, apply.

Each window the loop

1. reads the window that just ended from the cluster (an `Observer`, the RM client
   in production) and computes the observed QS of the templates' metrics;
2. if the previous iteration moved the configuration (``accepted``) and the QS
   observed now do not dominate those observed before that step, within a noise
   `Tolerance`, restores the configuration from before the step (``rolled_back``).
   With a `Predictor`, the QS observed before are first carried over to this
   window's load (see `load_adjusted`): a busier window is not blamed on the step;
3. otherwise asks a `Stepper` for ONE PALD step inside the risk radius on the
   window's workload; a candidate that fails validation, changes nothing, or is not
   predicted to dominate the configuration in force is ``rejected`` (never
   written); in dry-run mode it is shown and not applied (``dry_run``); otherwise
   an `Applier` writes, reloads and confirms it (``accepted``).

Every iteration goes through the `tempo.journal.Journal` interface (the loop never
writes SQL). Collaborators are injected, so tests drive the loop with fakes and
`tempo.tune` wires the RM client, the optimizer and the allocation-file applier.

Load adjustment (a departure from the paper, which compares the two windows as they
are). Consecutive windows carry different jobs: the contended sample's second
45-minute window has 2.5 times the first one's jobs, so any step looks worse after it
and a lighter window flatters any step. The loop keeps the prediction of the
configuration in force on the window the step was chosen on; when judging, it
predicts that same configuration on the new window, and scales each QS observed
before by the predicted change (`load_adjusted`). The judgement is then "worse than
the previous configuration would have done on this window", the question a rollback
answers. Without a predictor (or after a restart, when the prediction is not in the
journal) the windows are compared as they are.

Dominance and NaN. A QS is *worse* when ``after > before + max(absolute, relative
* |before|)``. A QS that is NaN on either side (nothing to measure: no job of that
queue finished in the window) is no evidence either way and is skipped; a window
where every QS is NaN cannot judge a step and leaves the configuration as it is.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tempo.errors import RMError, TempoError
from tempo.gain import MinGain, QSChange, meaningful_gains
from tempo.journal import Journal, file_sha256
from tempo.qs import format_value
from tempo.templates import QSTemplate, constraints, objectives, qs_vector
from whatif.allocation import (
    AllocationDocument,
    Resources,
    SettingDiff,
    diff_allocations,
    validate,
)
from whatif.cluster import Cluster
from whatif.errors import WhatifError
from whatif.metrics import Metric, Window, evaluate, full_path
from whatif.trace import Trace
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: A QS vector: ``"queue:metric label"`` to value (lower is better; NaN: nothing measured).
QS = Mapping[str, float]


# -- dominance ------------------------------------------------------------------------


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


# -- collaborators --------------------------------------------------------------------


class Observer(Protocol):
    """Reads the jobs that finished in ``[begin_s, end_s)`` (epoch seconds) as a `Trace`.

    `tempo.rm.RMClient` is one. Raises `tempo.RMError` when the cluster cannot be
    read or understood.
    """

    def window(self, begin_s: float, end_s: float) -> Trace: ...


@dataclass(frozen=True, eq=False)
class Step:
    """One optimizer step proposed on a window's workload.

    ``predicted`` and ``predicted_current`` are the predicted QS (same labels as the
    observed ones) of the candidate and of the configuration in force, on the same
    workload and seeds; ``distance`` is the normalized distance moved.
    """

    candidate: AllocationDocument
    predicted: QS
    predicted_current: QS
    distance: float


class Predictor(Protocol):
    """Predicts a configuration's QS on a workload (same labels as the observed ones)."""

    def predict(self, document: AllocationDocument, workload: Workload) -> QS: ...


#: The most a window's load may scale the QS observed before a step (either way).
MAX_LOAD_FACTOR = 2.0


def load_adjusted(observed_before: QS, predicted_before: QS, predicted_now: QS) -> dict[str, float]:
    """The QS observed before a step, carried over to a new window's load.

    Each QS is scaled by the ratio of the previous configuration's predicted QS on the
    new window to its prediction on the old one, clipped to ``1/MAX_LOAD_FACTOR ..
    MAX_LOAD_FACTOR``: predictions of a window replayed from an empty cluster can be
    several times off the observed run, and a bounded factor keeps such an error from
    excusing a real regression or condemning a good step. A QS predicted at 0 (or of
    a different sign) on the old window shifts by the difference instead, within the
    same bound. A QS without both predictions stays as observed.
    """
    adjusted = {}
    for label, value in observed_before.items():
        old, new = predicted_before.get(label), predicted_now.get(label)
        if value is None or old is None or new is None or not all(
            math.isfinite(v) for v in (value, old, new)
        ):
            adjusted[label] = value
        elif old != 0 and (old > 0) == (new > 0) and (old > 0) == (value > 0):
            factor = min(max(new / old, 1 / MAX_LOAD_FACTOR), MAX_LOAD_FACTOR)
            adjusted[label] = value * factor
        else:
            bound = (MAX_LOAD_FACTOR - 1) * max(abs(value), abs(old))
            adjusted[label] = value + min(max(new - old, -bound), bound)
    return adjusted


class Stepper(Protocol):
    """Proposes one step from the configuration in force on a workload (one PALD iteration)."""

    def step(self, document: AllocationDocument, workload: Workload) -> Step: ...


class ApplyResult(Protocol):
    """What an applier reports (``tempo.apply.ApplyOutcome`` has these fields)."""

    applied: bool
    confirmed: bool
    reverted: bool
    reason: str
    backup_path: str | None
    sha256: str | None


class Applier(Protocol):
    """Writes a configuration, reloads the RM and confirms it, journalling the two phases.

    Must record the intent in `journal` under `iteration_id` before writing, and
    leave the previous file in force (``reverted``) when confirmation fails.
    """

    def apply(
        self, document: AllocationDocument, *, journal: Journal, iteration_id: int
    ) -> ApplyResult: ...


# -- reports --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class IterationReport:
    """What one iteration saw and decided, for the console and for tests.

    ``baseline``: the QS observed before the previous step, when this iteration
    judged that step; ``diff``: the settings the candidate (or the rollback) changes;
    ``rm_error``: why the cluster could not be read (its clock or the window), when
    that is what stopped the iteration (the CLI exits with the remote-failure status);
    ``write_error``: ``FILE: reason`` when the step (or rollback) could not be written
    (a full disk, a read-only directory; the CLI exits 2).
    """

    id: int
    begin_s: float
    end_s: float
    decision: str
    reason: str
    observed: QS = field(default_factory=dict)
    baseline: QS | None = None
    predicted: QS | None = None
    predicted_current: QS | None = None
    diff: tuple[SettingDiff, ...] = ()
    distance: float | None = None
    config_sha256: str | None = None
    candidate_sha256: str | None = None
    jobs: int = 0
    rm_error: str | None = None
    write_error: str | None = None


# -- observation ----------------------------------------------------------------------


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

    Measured like the What-if Model measures a prediction (first submission to last
    finish), so observed and predicted QS compare. All NaN when nothing finished. Jobs
    still running when the window was observed are left out, with a warning naming
    how many (`whatif.metrics.evaluate`, ``unfinished="warn"``).
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


# -- the loop -------------------------------------------------------------------------


class TuningLoop:
    """The closed loop over one allocation file; see the module docstring.

    Parameters
    ----------
    observer : Observer
        Source of each window's trace (the RM client).
    stepper : Stepper
        Proposes one PALD step inside the risk radius.
    applier : Applier
        Writes, reloads and confirms a configuration (also used for rollbacks).
    journal : Journal
        Where every iteration is recorded; also what the loop resumes from.
    templates : sequence of QSTemplate
        The QS to observe and improve.
    allocation_path : path
        The allocation file the RM reads (the configuration in force).
    cluster : Cluster, optional
        Needed by resource metrics (QS_UTIL, ...).
    window_s : float
        Length of the observed window (seconds).
    tolerance : Tolerance
        Noise allowed before an observed QS counts as worse (rollback).
    min_gain : MinGain, optional
        A step must be predicted no worse on any OPTIMIZE objective, keep every
        constraint that holds (and not worsen a violated one), and improve some
        objective or violated constraint by this much, relative AND absolute (1% and
        1 s / 0.5 points by default, as ``tempo optimize``); a violated constraint
        predicted met again always counts.
    min_improvement : float
        The relative part alone, with no absolute floor (used when `min_gain` is None).
    dry_run : bool
        Show what would be applied; never write.
    recover : callable ``(journal, path)``, optional
        Resolves an apply left dangling by a crash (``tempo.apply.recover``).
    clock : callable
        Epoch seconds now on the cluster's clock (`tempo.rm.RMClock` for a live RM),
        which the windows follow; an `RMError` from it is an unobserved window.
    """

    def __init__(
        self,
        *,
        observer: Observer,
        stepper: Stepper,
        applier: Applier,
        journal: Journal,
        templates: Sequence[QSTemplate],
        allocation_path: str | Path,
        cluster: Cluster | None = None,
        window_s: float = 2700.0,
        tolerance: Tolerance = Tolerance(),
        min_improvement: float = 0.01,
        min_gain: MinGain | None = None,
        dry_run: bool = False,
        recover: Callable[[Journal, str], object] | None = None,
        clock: Callable[[], float] = time.time,
        predictor: Predictor | None = None,
    ) -> None:
        self.predictor = predictor
        self.observer = observer
        self.stepper = stepper
        self.applier = applier
        self.journal = journal
        self.templates = templates
        self.allocation_path = allocation_path
        self.cluster = cluster
        self.window_s = window_s
        self.tolerance = tolerance
        self.min_improvement = min_improvement
        self.min_gain = min_gain
        self.dry_run = dry_run
        self.recover = recover
        self.clock = clock

    # -- start-up -------------------------------------------------------------------

    def _check(self) -> None:
        if not (math.isfinite(self.window_s) and self.window_s > 0):
            raise TempoError(f"window_s: expected a number of seconds > 0, got {self.window_s!r}")
        if not (math.isfinite(self.min_improvement) and self.min_improvement >= 0):
            raise TempoError(f"min_improvement: expected >= 0, got {self.min_improvement!r}")
        if self.min_gain is not None and not isinstance(self.min_gain, MinGain):
            raise TempoError(f"min_gain: expected a MinGain, got {self.min_gain!r}")
        if not isinstance(self.tolerance, Tolerance):
            raise TempoError(f"tolerance: expected a Tolerance, got {self.tolerance!r}")
        if not self.templates:
            raise TempoError("templates: expected at least one QS template, got none")

    def resume(self) -> str:
        """Learn from the journal what is in force and whether the last step awaits judgement.

        Resolves a dangling apply with `recover` first, then finishes an iteration a
        crash interrupted. Returns one line describing the state (also logged).
        """
        self._check()
        self.path_ = str(Path(self.allocation_path).absolute())
        self.entries_ = qs_entries(self.templates)
        self.baseline_: dict[str, float] | None = None
        self.previous_: bytes | None = None
        self.expected_: dict[str, float] | None = None
        state = self.journal.in_force()
        if state is not None and Path(state.path).absolute() != Path(self.path_):
            logger.warning(
                "the journal's last apply was to %s, not %s: not resuming from it",
                state.path,
                self.path_,
            )
            self.resume_message_ = f"the journal is about {state.path}: starting afresh"
            return self.resume_message_
        if state is not None and state.state in ("unconfirmed", "not_written"):
            if self.recover is None:
                raise TempoError(
                    f"{state.path}: an apply was interrupted ({state.description}) and no "
                    "recover function was given"
                )
            logger.warning("%s: %s; recovering", state.path, state.description)
            self.recover(self.journal, state.path)
            state = self.journal.in_force()
        self._finish_interrupted()
        finished = [i for i in self.journal.iterations() if i.decision is not None]
        if state is not None and state.state == "external":
            message = (
                f"{state.path} was changed outside tempo since its last apply; "
                "tuning from the file as it is"
            )
        elif finished and finished[-1].decision == "accepted" and finished[-1].observed_qs:
            last = finished[-1]
            self.baseline_ = {k: _number(v) for k, v in last.observed_qs.items()}
            self.previous_ = self._previous_bytes(last.id)
            message = (
                f"resumed after iteration {last.id} (accepted): its step is judged on the "
                "next window"
            )
        elif finished:
            message = f"resumed after iteration {finished[-1].id} ({finished[-1].decision})"
        else:
            message = "no previous iteration in the journal: starting from the file in force"
        logger.info("%s", message)
        self.resume_message_ = message
        return message

    def _finish_interrupted(self) -> None:
        items = self.journal.iterations()
        if not items or items[-1].decision is not None:
            return
        last = items[-1]
        ours = [a for a in self.journal.applies() if a.iteration_id == last.id]
        on_disk = file_sha256(self.path_)
        if ours and ours[-1].outcome == "confirmed" and on_disk == ours[-1].sha256:
            decision, what = "accepted", "the new configuration was confirmed in force"
        else:
            decision, what = "rejected", "the configuration it found is in force"
        self.journal.finish_iteration(
            last.id,
            decision=decision,
            reason=f"interrupted before it finished; on restart {what}",
            config_sha256=on_disk,
        )
        logger.warning("iteration %d was interrupted; recorded as %s", last.id, decision)

    def _previous_bytes(self, iteration_id: int) -> bytes | None:
        """The configuration an accepted iteration replaced: its backup, checked by hash."""
        applies = [a for a in self.journal.applies() if a.iteration_id == iteration_id]
        if not applies or applies[-1].previous_sha256 is None:
            return None
        wanted = applies[-1].previous_sha256
        target = Path(applies[-1].path)
        candidates = [applies[-1].backup_path] if applies[-1].backup_path else []
        candidates += sorted(str(p) for p in target.parent.glob(f"{target.name}.*"))
        for candidate in candidates:
            if file_sha256(candidate) == wanted:
                return Path(candidate).read_bytes()
        logger.warning("no backup of %s with SHA-256 %s: cannot roll back", target, wanted[:12])
        return None

    # -- one iteration --------------------------------------------------------------

    def iterate(self) -> IterationReport:
        """Run one iteration on the window that just ended; journal and return what happened."""
        if not hasattr(self, "path_"):
            self.resume()
        else:
            stuck = self._recover_dangling()
            if stuck is not None:
                return stuck
        data = Path(self.path_).read_bytes()
        document = AllocationDocument.from_bytes(data, source=self.path_)
        sha = file_sha256(self.path_)
        try:
            end = float(self.clock())
        except RMError as error:
            end = time.time()  # labels the report only: the cluster's clock is unknown
            base = {"begin_s": end - self.window_s, "end_s": end, "config_sha256": sha}
            return self._unobserved(error, sha, base)
        begin = end - self.window_s
        base = {"begin_s": begin, "end_s": end, "config_sha256": sha}
        try:
            trace = self.observer.window(begin, end)
            observed = observed_qs(trace, self.entries_, cluster=self.cluster)
        except (RMError, WhatifError) as error:
            return self._unobserved(error, sha, base)
        base.update(observed=observed, jobs=len(trace.workload.jobs))
        it = self.journal.begin_iteration(
            config_path=self.path_, config_sha256=sha, observed_qs=observed
        )
        if all(math.isnan(v) for v in observed.values()):
            return self._finish(
                it,
                "rejected",
                "no job of the templates' queues finished in the window: nothing to judge or "
                "learn from; configuration unchanged",
                base,
            )
        held = ""
        if self.baseline_ is not None:
            base["baseline"] = self.baseline_
            reference, adjusted = self._reference(trace.workload)
            worse = regressions(reference, observed, self.tolerance)
            if worse:
                return self._roll_back(it, document, worse, base, adjusted)
            seen = comparable(reference, observed)
            held = (
                f"the previous step held ({len(seen)} QS compared, none worse than "
                f"{'the previous configuration predicted on this load' if adjusted else 'before it'} "
                f"beyond {self._tolerance_text()}); "
                if seen
                else "the previous step could not be judged (nothing comparable observed); "
            )
            self.baseline_, self.previous_, self.expected_ = None, None, None
        return self._step(it, document, data, trace.workload, observed, held, base)

    def _reference(self, workload: Workload) -> tuple[QS, bool]:
        """What a step is judged against: the QS observed before it, carried over to this
        window's load when a predictor and the step-time prediction are at hand (see the
        module docstring); True when so adjusted."""
        if self.predictor is None or not self.expected_ or self.previous_ is None:
            return self.baseline_, False
        previous = AllocationDocument.from_bytes(self.previous_, source=f"{self.path_} (backup)")
        try:
            now = self.predictor.predict(previous, workload)
        except (TempoError, WhatifError) as error:
            logger.warning("cannot predict the previous configuration on this window: %s", error)
            return self.baseline_, False
        return load_adjusted(self.baseline_, self.expected_, now), True

    def _recover_dangling(self) -> IterationReport | None:
        """Finish or undo an apply left open by a failed restore (a full disk), before stepping.

        None when nothing is open or `recover` resolved it; else the journalled report of
        an iteration that could not start (the open apply is retried next window).
        """
        state = self.journal.in_force()
        if state is None or state.state not in ("unconfirmed", "not_written"):
            return None
        if self.recover is None or Path(state.path).absolute() != Path(self.path_):
            return None
        logger.warning("%s: %s; recovering", state.path, state.description)
        try:
            self.recover(self.journal, state.path)
            return None
        except (TempoError, WhatifError) as error:
            end = float(time.time())
            sha = file_sha256(self.path_)
            it = self.journal.begin_iteration(config_path=self.path_, config_sha256=sha)
            reason = (
                f"an apply is still open ({state.description}) and could not be finished: "
                f"{error}; retrying next window"
            )
            base = {"begin_s": end - self.window_s, "end_s": end}
            return self._finish(it, "rejected", reason, base)

    def _unobserved(self, error: Exception, sha: str | None, base: dict) -> IterationReport:
        """Journal an iteration that could not read its window; the configuration stays."""
        logger.warning("cannot observe the window: %s; configuration unchanged", error)
        if isinstance(error, RMError):
            base["rm_error"] = str(error)
        it = self.journal.begin_iteration(config_path=self.path_, config_sha256=sha)
        return self._finish(
            it, "rejected", f"cannot observe the window: {error}; configuration unchanged", base
        )

    def _tolerance_text(self) -> str:
        t = self.tolerance
        return f"max({t.relative:.0%}, {t.absolute:g})"

    def _roll_back(
        self,
        it: int,
        document: AllocationDocument,
        worse: list[Regression],
        base: dict,
        adjusted: bool = False,
    ) -> IterationReport:
        what = "; ".join(f"{r} got worse" for r in worse)
        if adjusted:
            what += " than the previous configuration predicted on this window's load"
        self.expected_ = None
        if self.previous_ is None:
            self.baseline_ = None
            return self._finish(
                it,
                "rejected",
                f"{what}, but the configuration before the step is not available to restore "
                "(no matching backup); configuration unchanged",
                base,
            )
        previous = AllocationDocument.from_bytes(self.previous_, source=f"{self.path_} (backup)")
        base["diff"] = tuple(diff_allocations(document, previous))
        if self.dry_run:
            return self._finish(
                it, "dry_run", f"{what}: would restore the configuration before the step", base
            )
        outcome = self._apply(previous, it)
        if isinstance(outcome, str) or not outcome.confirmed:
            reason = outcome if isinstance(outcome, str) else outcome.reason
            base["write_error"] = getattr(outcome, "write_error", None)
            return self._finish(
                it, "rejected", f"{what}; rolling back failed: {reason}; retrying next window", base
            )
        self.baseline_, self.previous_ = None, None
        base["config_sha256"] = file_sha256(self.path_)
        return self._finish(
            it,
            "rolled_back",
            f"{what} (tolerance {self._tolerance_text()}): restored the configuration in force "
            f"before the step ({base['config_sha256'][:12]}; {_changes(base['diff'])})",
            base,
        )

    def _step(
        self,
        it: int,
        document: AllocationDocument,
        data: bytes,
        workload: Workload,
        observed: QS,
        held: str,
        base: dict,
    ) -> IterationReport:
        try:
            step = self.stepper.step(document, workload)
        except (TempoError, WhatifError) as error:
            logger.warning("the optimizer failed: %s", error)
            return self._finish(it, "rejected", f"{held}the optimizer failed: {error}", base)
        candidate = step.candidate
        candidate_sha = _sha256(candidate.to_bytes())
        base.update(
            predicted=dict(step.predicted),
            predicted_current=dict(step.predicted_current),
            distance=step.distance,
            candidate_sha256=candidate_sha,
        )
        size = (
            None if self.cluster is None else Resources(self.cluster.memory_mb, self.cluster.vcores)
        )
        errors = [i for i in validate(candidate, cluster=size) if i.severity == "error"]
        if errors:
            listed = "; ".join(f"line {i.line}: {i.message}" for i in errors[:3])
            return self._finish(
                it,
                "rejected",
                f"{held}the candidate fails validation ({listed}); not written",
                base,
            )
        diff = tuple(diff_allocations(document, candidate))
        base["diff"] = diff
        if not diff:
            return self._finish(it, "rejected", f"{held}the step changes no setting", base)
        verdict, gains = self._judge(step)
        if verdict:
            return self._finish(
                it, "rejected", f"{held}the step does not predict an improvement: {verdict}", base
            )
        why = (
            f"{held}predicted {gains}, no objective worse, constraints kept; moves {step.distance:.3f} "
            f"({_changes(diff)})"
        )
        if self.dry_run:
            return self._finish(it, "dry_run", f"dry run, nothing written: {why}", base)
        outcome = self._apply(candidate, it)
        if isinstance(outcome, str) or not outcome.confirmed:
            reason = outcome if isinstance(outcome, str) else outcome.reason
            base["write_error"] = getattr(outcome, "write_error", None)
            return self._finish(it, "rejected", f"{why}; not applied: {reason}", base)
        self.baseline_ = dict(observed)
        self.previous_ = data
        self.expected_ = dict(step.predicted_current)
        base["config_sha256"] = file_sha256(self.path_)
        return self._finish(it, "accepted", why, base)

    def gain_floor(self) -> MinGain:
        """The minimum meaningful gain in force (`min_gain`, else `min_improvement` alone)."""
        if self.min_gain is not None:
            return self.min_gain
        return MinGain(relative=self.min_improvement, seconds=0.0, fraction=0.0)

    def _judge(self, step: Step) -> tuple[str, str]:
        """('' or why the step is not an improvement, the predicted gains as text).

        An improvement: no OPTIMIZE objective predicted worse, no constraint that
        holds now predicted broken, no violated constraint predicted further off,
        and some objective (or violated constraint) better by `gain_floor` (relative
        and absolute, `tempo.gain.meaningful_gains`).
        """
        before, after = step.predicted_current, step.predicted
        exact = Tolerance(relative=1e-9, absolute=1e-12)
        units = {f"{full_path(q)}:{m.label}": m.unit for q, m, _ in objectives(self.templates)}
        goals = dict.fromkeys(units)
        limits = [(f"{full_path(q)}:{m.label}", m, r) for q, m, r in constraints(self.templates)]
        problems = [
            f"{r} predicted worse"
            for r in regressions({k: before.get(k, math.nan) for k in goals}, after, exact)
        ]
        changes = [
            QSChange(
                label,
                units[label],
                math.inf,
                before.get(label, math.nan),
                after.get(label, math.nan),
            )
            for label in goals
        ]
        for label, metric, threshold in limits:
            old, new = before.get(label, math.nan), after.get(label, math.nan)
            if math.isnan(old) or math.isnan(new):
                continue
            units.setdefault(label, metric.unit)
            if old <= threshold and new > threshold:
                problems.append(f"{Regression(label, old, new)} would break its constraint")
            elif old > threshold:
                if new > old + exact.allowance(old):
                    problems.append(f"{Regression(label, old, new)}: a violated constraint worse")
                changes.append(QSChange(label, metric.unit, threshold, old, new))
        if problems:
            return "; ".join(problems), ""
        floor = self.gain_floor()
        gains = [
            c
            for c in meaningful_gains(changes, floor)
            if c.before - c.after > exact.allowance(c.before)
        ]
        if not gains:
            best = max(
                (c for c in changes if not (math.isnan(c.before) or math.isnan(c.after))),
                key=lambda c: c.before - c.after,
                default=None,
            )
            closest = (
                f"; best: {_qs_change(best)}"
                if best is not None and best.after < best.before
                else ""
            )
            return (
                f"no objective predicted better by at least {floor}{closest} "
                f"(the step moved {step.distance:.3f})",
                "",
            )
        return "", "; ".join(_qs_change(c) for c in gains)

    def _apply(self, document: AllocationDocument, it: int) -> ApplyResult | str:
        try:
            return self.applier.apply(document, journal=self.journal, iteration_id=it)
        except (TempoError, WhatifError) as error:
            logger.warning("applying the configuration failed: %s", error)
            return str(error)

    def _finish(self, it: int, decision: str, reason: str, base: dict) -> IterationReport:
        sha = file_sha256(self.path_)
        self.journal.finish_iteration(
            it,
            decision=decision,
            reason=reason,
            config_sha256=sha,
            candidate_sha256=base.get("candidate_sha256"),
            predicted_qs=base.get("predicted"),
        )
        logger.info("iteration %d: %s: %s", it, decision, reason)
        fields = {k: v for k, v in base.items() if k != "config_sha256"}
        return IterationReport(id=it, decision=decision, reason=reason, config_sha256=sha, **fields)

    # -- running --------------------------------------------------------------------

    def run(
        self,
        *,
        max_iterations: int | None = None,
        interval_s: float = 2700.0,
        sleep: Callable[[float], None] = time.sleep,
        speed: float = 1.0,
        callback: Callable[[IterationReport], None] | None = None,
    ) -> list[IterationReport]:
        """Iterate every `interval_s` (on `clock`) until `max_iterations` (forever when None).

        Iterations start `interval_s` apart: the time an iteration took is taken off
        the wait (`sleep`, in wall seconds: clock seconds divided by `speed`, for a
        cluster whose clock runs faster, like the emulated RM). There is no wait after
        the last iteration; Ctrl-C while waiting ends the run cleanly. Returns the
        reports, also passed to `callback` as they are made.
        """
        if max_iterations is not None and max_iterations < 1:
            raise TempoError(f"max_iterations: expected >= 1, got {max_iterations!r}")
        if not (math.isfinite(interval_s) and interval_s >= 0):
            raise TempoError(f"interval_s: expected seconds >= 0, got {interval_s!r}")
        if not (math.isfinite(speed) and speed > 0):
            raise TempoError(f"speed: expected a number > 0, got {speed!r}")
        if not hasattr(self, "path_"):
            self.resume()
        reports: list[IterationReport] = []
        while max_iterations is None or len(reports) < max_iterations:
            report = self.iterate()
            reports.append(report)
            if callback is not None:
                callback(report)
            if max_iterations is not None and len(reports) >= max_iterations:
                break
            try:
                now = float(self.clock())
            except RMError as error:
                logger.warning(
                    "cannot read the cluster's clock (%s): waiting a whole interval", error
                )
                now = report.end_s
            wait_s = max(0.0, report.end_s + interval_s - now)
            try:
                sleep(wait_s / speed)
            except KeyboardInterrupt:
                logger.warning("interrupted while waiting: stopping; nothing was being changed")
                break
        return reports


def _number(value: object) -> float:
    return math.nan if value is None else float(value)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def describe_change(diff: SettingDiff) -> str:
    """``queue element: old -> new`` in allocation-file syntax (``minResources: 40960 mb,
    40 vcores``, ``never`` for an unset timeout), as ``tempo optimize`` and ``config diff``
    print it."""
    return diff.describe().replace("  ", " ", 1)


def _changes(diff: Sequence[SettingDiff], shown: int = 8) -> str:
    """``N setting(s): queue element: old -> new; ...`` (the first `shown`)."""
    listed = "; ".join(describe_change(d) for d in diff[:shown])
    more = f"; and {len(diff) - shown} more" if len(diff) > shown else ""
    return f"{len(diff)} setting(s): {listed}{more}"


def _qs_change(change: QSChange) -> str:
    """``root.a:QS_AJR 120.0s -> 100.0s (-16.67%)``: a predicted QS change with its unit."""
    relative = (
        f" ({(change.after - change.before) / abs(change.before):+.2%})" if change.before else ""
    )
    return (
        f"{change.label} {format_value(change.before, change.unit)} -> "
        f"{format_value(change.after, change.unit)}{relative}"
    )
