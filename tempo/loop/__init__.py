"""The live loop of `tempo tune`: observe a window, propose a step, apply it, verify it,
decide, roll back; one module for each, and the `Tuner` that runs them.

====================  ======================================================
``observe``           `Observer`, `observed_qs`, `RMObserver`: a window as QS
``deadlines``         `DeadlineObserver`: the deadlines the RM does not know
``propose``           `Stepper`, `Predictor`, `Step`: what the optimizer offers
``pald_step``         `PALDStepper`: one PALD step inside the risk radius
``decide``            `Tolerance`, `regressions`, `load_adjusted`, `judge`
``apply``             `apply_configuration`, `ConfigurationApplier`
``reload``            `Reload`: how the RM re-reads the file
``verify``            polling the RM until the new settings show in force
``rollback``          `restore`, `recover`, the file a regressed step replaced
``config_format``     what differs between Fair and Capacity Scheduler files
``resume``            what the journal says after a restart
``report``            `IterationReport`, `TuneRun`
``tuner``             `Tuner`: state plus `step()` (one iteration) and `run()`
``settings``          `TuneSettings` (the options of ``tempo tune``)
``wiring``, ``demo``  `tune`: a `Tuner` for a live RM or the emulated demo
``lock``              `TuneLock`: one tuner per file and journal
====================  ======================================================

The journal the loop records to is `tempo.journal`, beside this package (like
optuna's storages beside its study): ``tempo history`` and the benchmarks read it
without the loop. Only the light core is imported here; `PALDStepper` and the
wiring import the optimizer and the RM client, so they are imported from their
modules.
"""

from tempo.loop.apply import Applier, ApplyResult
from tempo.loop.decide import (
    MAX_LOAD_FACTOR,
    Regression,
    Tolerance,
    comparable,
    dominates,
    judge,
    load_adjusted,
    regressions,
)
from tempo.loop.observe import QS, Observer, observed_qs, qs_entries, qs_labels
from tempo.loop.propose import Predictor, Step, Stepper
from tempo.loop.report import IterationReport, describe_change
from tempo.loop.tuner import Tuner

__all__ = [
    "MAX_LOAD_FACTOR",
    "QS",
    "Applier",
    "ApplyResult",
    "IterationReport",
    "Observer",
    "Predictor",
    "Regression",
    "Step",
    "Stepper",
    "Tolerance",
    "Tuner",
    "comparable",
    "describe_change",
    "dominates",
    "judge",
    "load_adjusted",
    "observed_qs",
    "qs_entries",
    "qs_labels",
    "regressions",
]
