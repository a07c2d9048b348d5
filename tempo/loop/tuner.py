"""The `Tuner`: the closed loop of `tempo tune` over one scheduler configuration file (Tempo paper, Fig. 2).

Like optuna's ``Study``, a `Tuner` is state plus `step` (one iteration) and `run`
(iterations every interval, on the cluster's clock). Each window `step`

1. observes the window that just ended (an `Observer`, the RM client in production)
   and computes the observed QS of the templates' metrics (`tempo.loop.observe`); with
   a `nodes` reader (the RM's node list, when ``--cluster`` is not given) it first reads
   the cluster of this window, which that window's measures and predictions then use;
2. if the previous iteration moved the configuration (``accepted``) and the QS
   observed now do not dominate those observed before that step, within a noise
   `Tolerance`, restores the configuration from before the step (``rolled_back``).
   With a `Predictor`, the QS observed before are first carried over to this
   window's load (`tempo.loop.decide`): a busier window is not blamed on the step;
3. otherwise asks a `Stepper` for ONE PALD step inside the risk radius on the
   window's workload; a candidate that fails validation, changes nothing, or is not
   predicted to dominate the configuration in force is ``rejected`` (never
   written); in dry-run mode it is shown and not applied (``dry_run``); otherwise
   an `Applier` writes, reloads and confirms it (``accepted``).

The only state kept between windows is the step awaiting judgement (``baseline_``,
``previous_``, ``expected_``); everything else goes through the `tempo.journal.Journal`
(the tuner never writes SQL), which is also what `resume` reads after a restart. A
window where every QS is NaN cannot judge a step and leaves the configuration as it
is. Collaborators are injected, so tests drive the tuner with fakes and
`tempo.loop.wiring` builds it for a live or an emulated RM.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tempo.errors import RMError, TempoError
from tempo.gain import MinGain
from tempo.journal import Journal, file_sha256
from tempo.loop.apply import Applier, ApplyResult
from tempo.loop.decide import (
    NOISE,
    Regression,
    Tolerance,
    comparable,
    constraints_note,
    held_reason,
    judge,
    load_adjusted,
    regressions,
)
from tempo.loop.observe import QS, Observer, observed_qs, qs_entries
from tempo.loop.propose import Predictor, Step, Stepper
from tempo.loop.report import IterationReport, changes, describe_nodes, same_nodes
from tempo.loop.resume import resume_state
from tempo.loop.rollback import regressed, rolled_back_configurations
from tempo.scheduler_file import SchedulerDocument, SchedulerFile, fair_file
from tempo.templates import QSTemplate
from whatif.cluster import Cluster
from whatif.errors import WhatifError
from whatif.workload import Workload

#: The `IterationReport` fields an iteration gathers as it goes (``begin_s``, ``observed``,
#: ``diff``, ...), passed to `Tuner._finish`.
Fields = dict[str, Any]

logger = logging.getLogger(__name__)


@dataclass(kw_only=True, eq=False, repr=False)
class Tuner:
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
        Where every iteration is recorded; also what the tuner resumes from.
    templates : sequence of QSTemplate
        The QS to observe and improve.
    allocation_path : path
        The allocation file the RM reads (the configuration in force).
    cluster : Cluster, optional
        Needed by resource metrics (QS_UTIL, ...); the cluster the window's predictions run
        on (passed to the stepper and the predictor) and journalled as its SPEC.
    nodes : callable, optional
        Reads the cluster as it is now (`tempo.rm.RMClient.cluster`: the RM's RUNNING
        nodes), once per window, into `cluster`: nodes lost, decommissioned or added during
        a run of days are predicted as they are. A read that fails (an `RMError`) keeps
        the last cluster, with a warning. None: `cluster` stays as given.
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
        Resolves an apply left dangling by a crash (`tempo.loop.rollback.recover`).
    clock : callable
        Epoch seconds now on the cluster's clock (`tempo.rm.RMClock` for a live RM),
        which the windows follow; an `RMError` from it is an unobserved window.
    predictor : Predictor, optional
        Carries the QS observed before a step over to the judging window's load.
    scheduler : SchedulerFile
        The kind of file tuned: how it parses, validates and diffs (an allocation file by
        default; `tempo.scheduler_file.CAPACITY_FILE` for a capacity-scheduler.xml).
    """

    observer: Observer
    stepper: Stepper
    applier: Applier
    journal: Journal
    templates: Sequence[QSTemplate]
    allocation_path: str | Path
    cluster: Cluster | None = None
    nodes: Callable[[], Cluster] | None = None
    window_s: float = 2700.0
    tolerance: Tolerance = NOISE
    min_improvement: float = 0.01
    min_gain: MinGain | None = None
    dry_run: bool = False
    recover: Callable[[Journal, str], object] | None = None
    clock: Callable[[], float] = time.time
    predictor: Predictor | None = None
    scheduler: SchedulerFile = field(default_factory=fair_file)

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
        crash interrupted (`tempo.loop.resume`). Returns one line describing the state.
        """
        self._check()
        self.path_ = str(Path(self.allocation_path).absolute())
        self.entries_ = qs_entries(self.templates)
        self.baseline_: dict[str, float] | None = None
        self.previous_: bytes | None = None
        self.expected_: dict[str, float] | None = None
        resumed = resume_state(self.journal, self.path_, self.recover)
        self.baseline_, self.previous_ = resumed.baseline, resumed.previous
        self.resume_message_ = resumed.message
        return resumed.message

    def gain_floor(self) -> MinGain:
        """The minimum meaningful gain in force (`min_gain`, else `min_improvement` alone)."""
        if self.min_gain is not None:
            return self.min_gain
        return MinGain(relative=self.min_improvement, seconds=0.0, fraction=0.0)

    # -- one iteration --------------------------------------------------------------

    def step(self) -> IterationReport:
        """Run one iteration on the window that just ended; journal and return what happened."""
        if not hasattr(self, "path_"):
            self.resume()
        else:
            stuck = self._recover_dangling()
            if stuck is not None:
                return stuck
        data = Path(self.path_).read_bytes()
        document = self.scheduler.parse(data, self.path_)
        sha = file_sha256(self.path_)
        try:
            end = float(self.clock())
        except RMError as error:
            end = time.time()  # labels the report only: the cluster's clock is unknown
            base: Fields = {"begin_s": end - self.window_s, "end_s": end, "config_sha256": sha}
            return self._unobserved(error, sha, base)
        begin = end - self.window_s
        base = {"begin_s": begin, "end_s": end, "config_sha256": sha}
        self._read_nodes(base)
        try:
            trace = self.observer.window(begin, end)
            observed = observed_qs(trace, self.entries_, cluster=self.cluster)
        except (RMError, WhatifError) as error:
            return self._unobserved(error, sha, base)
        base.update(observed=observed, jobs=len(trace.workload.jobs))
        it = self._begin(sha, observed)
        if all(math.isnan(v) for v in observed.values()):
            return self._finish(
                it,
                "rejected",
                "no job of the templates' queues finished in the window: nothing to judge or "
                "learn from; configuration unchanged",
                base,
            )
        held = self._judge_previous(it, document, trace.workload, observed, base)
        if isinstance(held, IterationReport):
            return held
        return self._propose(it, document, data, trace.workload, observed, held, base)

    def _read_nodes(self, base: Fields) -> None:
        """Read this window's cluster (`nodes`); ``cluster_change`` says how it changed. The
        same nodes listed in another order keep the cluster as it was (and its predictions)."""
        if self.nodes is None:
            return
        try:
            cluster = self.nodes()
        except RMError as error:
            logger.warning(
                "cannot read the cluster's nodes (%s); predicting on the last ones read", error
            )
            return
        if self.cluster is None or not same_nodes(cluster, self.cluster):
            if self.cluster is not None:
                change = f"{describe_nodes(self.cluster)} -> {describe_nodes(cluster)}"
                base["cluster_change"] = change
                logger.info("the RM's nodes changed: %s", change)
            self.cluster = cluster

    def _begin(self, sha: str | None, observed: QS | None = None) -> int:
        """Journal the start of an iteration on the configuration `sha` and `cluster`."""
        return self.journal.begin_iteration(
            config_path=self.path_,
            config_sha256=sha,
            observed_qs=observed,
            cluster=None if self.cluster is None else self.cluster.spec(),
        )

    def _judge_previous(
        self, it: int, document: SchedulerDocument, workload: Workload, observed: QS, base: Fields
    ) -> IterationReport | str:
        """Roll the previous step back if it regressed (its report); else the prefix of this
        iteration's reason saying it held ('' when no step awaited judgement)."""
        if self.baseline_ is None:
            return ""
        base["baseline"] = self.baseline_
        reference, adjusted = self._reference(workload, self.baseline_)
        if adjusted:
            base["reference"] = reference
        worse = regressions(reference, observed, self.tolerance)
        if worse:
            return self._roll_back(it, document, worse, base, adjusted)
        held = held_reason(comparable(reference, observed), adjusted, self.tolerance)
        self.baseline_, self.previous_, self.expected_ = None, None, None
        return held

    def _reference(self, workload: Workload, baseline: QS) -> tuple[QS, bool]:
        """What a step is judged against: the QS observed before it, carried over to this
        window's load and cluster when a predictor and the step-time prediction (made on the
        step's window and cluster) are at hand (see `tempo.loop.decide`); True when so adjusted."""
        if self.predictor is None or not self.expected_ or self.previous_ is None:
            return baseline, False
        previous = self.scheduler.parse(self.previous_, f"{self.path_} (backup)")
        try:
            now = self.predictor.predict(previous, workload, cluster=self.cluster)
        except (TempoError, WhatifError) as error:
            logger.warning("cannot predict the previous configuration on this window: %s", error)
            return baseline, False
        return load_adjusted(baseline, self.expected_, now), True

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
            it = self._begin(file_sha256(self.path_))
            reason = (
                f"an apply is still open ({state.description}) and could not be finished: "
                f"{error}; retrying next window"
            )
            base = {"begin_s": end - self.window_s, "end_s": end}
            return self._finish(it, "rejected", reason, base)

    def _unobserved(self, error: Exception, sha: str | None, base: Fields) -> IterationReport:
        """Journal an iteration that could not read its window; the configuration stays."""
        logger.warning("cannot observe the window: %s; configuration unchanged", error)
        if isinstance(error, RMError):
            base["rm_error"] = str(error)
        it = self._begin(sha)
        return self._finish(
            it, "rejected", f"cannot observe the window: {error}; configuration unchanged", base
        )

    def _roll_back(
        self,
        it: int,
        document: SchedulerDocument,
        worse: list[Regression],
        base: Fields,
        adjusted: bool = False,
    ) -> IterationReport:
        """Restore the configuration from before the step that regressed (`tempo.loop.rollback`)."""
        what = regressed(worse, adjusted)
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
        previous = self.scheduler.parse(self.previous_, f"{self.path_} (backup)")
        base["diff"] = self.scheduler.diff(document, previous)
        if self.dry_run:
            return self._finish(
                it, "dry_run", f"{what}: would restore the configuration before the step", base
            )
        failed = self._failure(self._apply(previous, it), base)
        if failed is not None:
            return self._finish(
                it, "rejected", f"{what}; rolling back failed: {failed}; retrying next window", base
            )
        self.baseline_, self.previous_ = None, None
        base["config_sha256"] = file_sha256(self.path_)
        return self._finish(
            it,
            "rolled_back",
            f"{what} (tolerance {self.tolerance.describe()}): restored the configuration in "
            f"force before the step ({base['config_sha256'][:12]}; {changes(base['diff'])})",
            base,
        )

    def _propose(
        self,
        it: int,
        document: SchedulerDocument,
        data: bytes,
        workload: Workload,
        observed: QS,
        held: str,
        base: Fields,
    ) -> IterationReport:
        """Ask for one step, judge it, and apply it unless it is refused or a dry run."""
        try:
            step = self.stepper.step(document, workload, cluster=self.cluster)
        except (TempoError, WhatifError) as error:
            logger.warning("the optimizer failed: %s", error)
            return self._finish(it, "rejected", f"{held}the optimizer failed: {error}", base)
        base.update(
            predicted=dict(step.predicted),
            predicted_current=dict(step.predicted_current),
            distance=step.distance,
            candidate_sha256=hashlib.sha256(step.candidate.to_bytes()).hexdigest(),
        )
        refused, gains = self._refusal(document, step, base)
        if refused:
            return self._finish(it, "rejected", f"{held}{refused}", base)
        why = (
            f"{held}predicted {gains}, no objective worse, "
            f"{constraints_note(step, self.templates)}; moves "
            f"{step.distance:.3f} ({changes(base['diff'])})"
        )
        if self.dry_run:
            return self._finish(it, "dry_run", f"dry run, nothing written: {why}", base)
        failed = self._failure(self._apply(step.candidate, it), base)
        if failed is not None:
            return self._finish(it, "rejected", f"{why}; not applied: {failed}", base)
        self.baseline_ = dict(observed)
        self.previous_ = data
        self.expected_ = dict(step.predicted_current)
        base["config_sha256"] = file_sha256(self.path_)
        return self._finish(it, "accepted", why, base)

    def _refusal(self, document: SchedulerDocument, step: Step, base: Fields) -> tuple[str, str]:
        """('' or why the candidate is not written, the predicted gains); sets ``diff``."""
        errors = self.scheduler.errors(step.candidate)
        if errors:
            return f"the candidate fails validation ({'; '.join(errors[:3])}); not written", ""
        diff = self.scheduler.diff(document, step.candidate)
        base["diff"] = diff
        if not diff:
            return "the step changes no setting", ""
        undone = rolled_back_configurations(self.journal).get(base["candidate_sha256"])
        if undone is not None:
            return (
                f"the candidate ({base['candidate_sha256'][:12]}) is the configuration rolled "
                f"back at iteration {undone}; not applied again (a fresh journal forgets it)",
                "",
            )
        verdict, gains = judge(step, self.templates, self.gain_floor())
        if verdict:
            return f"the step does not predict an improvement: {verdict}", ""
        return "", gains

    def _apply(self, document: SchedulerDocument, it: int) -> ApplyResult | str:
        try:
            return self.applier.apply(document, journal=self.journal, iteration_id=it)
        except (TempoError, WhatifError) as error:
            logger.warning("applying the configuration failed: %s", error)
            return str(error)

    @staticmethod
    def _failure(outcome: ApplyResult | str, base: Fields) -> str | None:
        """Why an apply did not leave the new file confirmed in force (None: it did)."""
        if not isinstance(outcome, str) and outcome.confirmed:
            return None
        base["write_error"] = getattr(outcome, "write_error", None)
        return outcome if isinstance(outcome, str) else outcome.reason

    def _finish(self, it: int, decision: str, reason: str, base: Fields) -> IterationReport:
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
        cluster = None if self.cluster is None else self.cluster.spec()
        return IterationReport(
            id=it, decision=decision, reason=reason, config_sha256=sha, cluster=cluster, **fields
        )

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
        """Step every `interval_s` (on `clock`) until `max_iterations` (forever when None).

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
            report = self.step()
            reports.append(report)
            if callback is not None:
                callback(report)
            if max_iterations is not None and len(reports) >= max_iterations:
                break
            if not self._wait(report.end_s, interval_s, sleep, speed):
                break
        return reports

    def _wait(
        self, last_end_s: float, interval_s: float, sleep: Callable[[float], None], speed: float
    ) -> bool:
        """Sleep until `interval_s` after `last_end_s` on the cluster's clock (a whole
        interval when it cannot be read); False when Ctrl-C ended the wait."""
        try:
            now = float(self.clock())
        except RMError as error:
            logger.warning("cannot read the cluster's clock (%s): waiting a whole interval", error)
            now = last_end_s
        try:
            sleep(max(0.0, last_end_s + interval_s - now) / speed)
        except KeyboardInterrupt:
            logger.warning("interrupted while waiting: stopping; nothing was being changed")
            return False
        return True
