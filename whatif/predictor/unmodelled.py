"""Site-file settings that change how a cluster schedules but that the predictor does not model.

A prediction for a cluster that sets one of them describes a cluster that does not, so
`whatif.predictor.site.read_site` lists them (`SiteSettings.unmodelled`) and the commands
warn of each: an operator should never trust a figure the cluster will not reproduce.
What counts as set is Hadoop's own rule:

- the Fair Scheduler's time-based delay scheduling, on with continuous scheduling when
  both its node and rack delays are at least 0 (FSAppAttempt.getAllowedLocalityLevelByTime:
  either one negative, the default -1, lets a container go to any node); its count-based
  rule, the thresholds without continuous scheduling, is modelled
  (``kernel/fair_locality.py``);
- a Hadoop 1 weight adjuster, or a load manager or task selector other than the
  default (FairScheduler.start), replaces rules the predictor follows;
- the scheduler class (``yarn.resourcemanager.scheduler.class``, Hadoop 1's
  ``mapred.jobtracker.taskScheduler``) names the scheduler the cluster runs, which
  may not be the one whose file is predicted (`scheduler_mismatch`);
- the Capacity Scheduler's application priorities act only when
  ``yarn.cluster.max-application-priority`` is above 0 (the default 0 caps every app's
  priority at 0, ``CapacityScheduler.checkAndGetApplicationPriority``); traces carry no
  app priority. The Fair Scheduler gives every app the same priority (FSAppAttempt).

Each `Unmodelled` says which scheduler it concerns (``fair`` or ``capacity``), so the
commands warn only of what the predicted scheduler would do.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from whatif.errors import ValidationError

#: Where a site file sets a property: its value's text and ``file:line``.
Setting = tuple[str, str]

NODE_DELAY = "yarn.scheduler.fair.locality-delay-node-ms"
RACK_DELAY = "yarn.scheduler.fair.locality-delay-rack-ms"
YARN_SCHEDULER_CLASS = "yarn.resourcemanager.scheduler.class"
MRV1_SCHEDULER_CLASS = "mapred.jobtracker.taskScheduler"
WEIGHT_ADJUSTER = "mapred.fairscheduler.weightadjuster"
LOAD_MANAGER = "mapred.fairscheduler.loadmanager"
TASK_SELECTOR = "mapred.fairscheduler.taskselector"
#: Hadoop 1: with it, preemption logs the tasks it would kill and kills none (modelled:
#: `read_site` turns preemption off).
PREEMPTION_ONLY_LOG = "mapred.fairscheduler.preemption.only.log"
MAX_APP_PRIORITY = "yarn.cluster.max-application-priority"

#: The properties `read_site` keeps for this module, by Hadoop version.
WATCHED = {
    1: (MRV1_SCHEDULER_CLASS, WEIGHT_ADJUSTER, LOAD_MANAGER, TASK_SELECTOR, PREEMPTION_ONLY_LOG),
    2: (YARN_SCHEDULER_CLASS, NODE_DELAY, RACK_DELAY),
    3: (YARN_SCHEDULER_CLASS, NODE_DELAY, RACK_DELAY, MAX_APP_PRIORITY),
}

#: Hadoop 1's defaults: a class ending in one of these is the rule the predictor follows.
_MRV1_DEFAULTS = {LOAD_MANAGER: ".CapBasedLoadManager", TASK_SELECTOR: ".DefaultTaskSelector"}


@dataclass(frozen=True)
class Unmodelled:
    """A setting of a site file that the predictor leaves out: where, what, what the
    cluster does that the prediction will not, and under which scheduler (``fair`` or
    ``capacity``)."""

    location: str
    setting: str
    effect: str
    scheduler: str = "fair"

    def __str__(self) -> str:
        return (
            f"{self.location}: {self.setting}: {self.effect}; the predictor does not model "
            "this and predicts the cluster as if it were unset"
        )


def unmodelled(
    found: Mapping[str, Setting], hadoop_version: int, *, continuous_scheduling: bool
) -> tuple[Unmodelled, ...]:
    """The settings among `found` (a site file's `WATCHED` properties) that change how
    the cluster schedules in a way the predictor does not model.

    Raises
    ------
    ValidationError
        A delay-scheduling property is not a number (Hadoop's RM would not start).
    """
    if hadoop_version == 1:
        return tuple(_mrv1_replacements(found))
    found_here = [
        _delay_scheduling(found, continuous_scheduling),
        _app_priorities(found) if hadoop_version == 3 else None,
    ]
    return tuple(setting for setting in found_here if setting is not None)


def _app_priorities(found: Mapping[str, Setting]) -> Unmodelled | None:
    """The Capacity Scheduler's application priorities, on when the cluster's maximum is
    above 0."""
    if MAX_APP_PRIORITY not in found:
        return None
    text, location = found[MAX_APP_PRIORITY]
    try:
        top = int(text.strip())
    except ValueError:
        raise ValidationError(
            f"{location}: {MAX_APP_PRIORITY}: expected an integer, got {text!r}"
        ) from None
    if top <= 0:
        return None
    return Unmodelled(
        location,
        f"{MAX_APP_PRIORITY} = {top}",
        f"apps may run at priorities up to {top} (their own, or their queue's "
        "default-application-priority), and a Capacity Scheduler leaf serves higher "
        "priorities first; traces carry no application priority, so every app is predicted "
        "at 0",
        scheduler="capacity",
    )


def _delay_scheduling(found: Mapping[str, Setting], continuous: bool) -> Unmodelled | None:
    """The time-based delay scheduling of continuous scheduling (its count-based rule, by
    the thresholds, is modelled)."""
    if not continuous or NODE_DELAY not in found or RACK_DELAY not in found:
        return None  # the other one is Hadoop's default, -1: off
    node, rack = _number(found, NODE_DELAY), _number(found, RACK_DELAY)
    if node < 0 or rack < 0:
        return None
    return Unmodelled(
        found[NODE_DELAY][1],
        f"{NODE_DELAY} = {found[NODE_DELAY][0].strip()} and {RACK_DELAY} = "
        f"{found[RACK_DELAY][0].strip()}",
        "the Fair Scheduler's delay scheduling (an app whose requests name nodes, as a "
        f"MapReduce job's maps do, waits for a node, then a rack, holding them: up to "
        f"{node:g} ms, then {rack:g} ms)",
    )


def _mrv1_replacements(found: Mapping[str, Setting]) -> list[Unmodelled]:
    """Hadoop 1's pluggable classes set to other than the default rule."""
    out = []
    adjuster = found.get(WEIGHT_ADJUSTER)
    if adjuster is not None and adjuster[0].strip():
        out.append(
            Unmodelled(
                adjuster[1],
                f"{WEIGHT_ADJUSTER} = {adjuster[0].strip()}",
                "every job's weight passes through this class (NewJobWeightBooster raises new "
                "jobs' weights)",
            )
        )
    for name, default in _MRV1_DEFAULTS.items():
        value = found.get(name)
        if value is not None and value[0].strip() and not value[0].strip().endswith(default):
            role = (
                "which tracker takes a task"
                if name == LOAD_MANAGER
                else "which task a job runs next"
            )
            out.append(
                Unmodelled(
                    value[1],
                    f"{name} = {value[0].strip()}",
                    f"this class, not Hadoop's {default[1:]}, decides {role}",
                )
            )
    return out


def scheduler_mismatch(
    found: Mapping[str, Setting], hadoop_version: int, *, capacity: bool
) -> str | None:
    """Why predictions do not describe the cluster when its site file names another
    scheduler than the one predicted (the Capacity Scheduler when `capacity`, else the Fair
    Scheduler); None when it names that one or none (a partial file: nothing to say)."""
    name = MRV1_SCHEDULER_CLASS if hadoop_version == 1 else YARN_SCHEDULER_CLASS
    if name not in found:
        return None
    value, location = found[name][0].strip(), found[name][1]
    predicted = "Capacity Scheduler" if capacity else "Fair Scheduler"
    if value.endswith("." + predicted.replace(" ", "")):
        return None
    return (
        f"{location}: {name} = {value}: the cluster runs this scheduler, not the "
        f"{predicted} tempo predicts; the figures describe the cluster as if it ran the "
        f"{predicted} with the file given"
    )


def _number(found: Mapping[str, Setting], name: str) -> float:
    text, location = found[name]
    try:
        value = float(text.strip())
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise ValidationError(f"{location}: {name}: expected a number, got {text!r}")
    return value
