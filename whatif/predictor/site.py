"""Reading the predictor's scheduler knobs from a Hadoop site file (``yarn-site.xml``, ``mapred-site.xml``).

A site file is Hadoop's ``<configuration>`` of ``<property><name>..</name><value>..
</value></property>`` entries. `read_site` takes the properties `SchedulerSettings`
models, by the names the chosen Hadoop version reads (Hadoop 2/3: the
``yarn.scheduler.fair.*`` and NodeManager heartbeat keys of ``yarn-site.xml`` and the
MapReduce keys of ``mapred-site.xml``; Hadoop 1: the ``mapred.fairscheduler.*``,
JobTracker heartbeat and MapReduce keys of ``mapred-site.xml``), and leaves every other
knob at Hadoop's default for that version. A file named ``yarn-site.xml`` or
``mapred-site.xml`` brings its sibling of the other name in the same directory along
(Hadoop's configuration directory holds both); the file given wins where both set a
property. Each value is checked as Hadoop parses it; a bad one is an error naming the
file, line and property.

`preemption_source` says, for people, where the preemption setting came from.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whatif.allocation.java_values import parse_boolean
from whatif.allocation.xml_io import (
    XMLSyntaxProblem,
    parse_xml,
    read_allocation_bytes,
    source_line,
)
from whatif.errors import AllocationError, ValidationError
from whatif.predictor.settings import SchedulerSettings
from whatif.predictor.unmodelled import (
    PREEMPTION_ONLY_LOG,
    WATCHED,
    Setting,
    Unmodelled,
    scheduler_mismatch,
    unmodelled,
)

#: Hadoop 2.8+ (not under ``yarn.scheduler.fair.``): the smallest request that may reserve
#: a node, as a multiple of the increment allocation.
_RESERVATION_THRESHOLD = "yarn.scheduler.reservation-threshold.increment-multiple"


def _milliseconds(text: str) -> float:
    return float(int(text.strip())) / 1000.0


def _delay(text: str) -> float:
    """Milliseconds, or -1 (Hadoop's "compute it from the heartbeat interval")."""
    value = int(text.strip())
    if value < -1:
        raise ValueError(text)
    return -1.0 if value == -1 else value / 1000.0


def _number(text: str) -> float:
    value = float(text.strip())
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _integer(text: str) -> int:
    return int(text.strip())


def _boolean(text: str) -> bool:
    return parse_boolean(text.strip())


#: Hadoop 2/3 property -> (SchedulerSettings field, parser).
YARN_PROPERTIES: dict[str, tuple[str, Callable[[str], object]]] = {
    "yarn.scheduler.fair.preemption": ("preemption", _boolean),
    "yarn.scheduler.fair.preemption.cluster-utilization-threshold": (
        "utilization_threshold",
        _number,
    ),
    "yarn.scheduler.fair.waitTimeBeforeKill": ("wait_time_before_kill_s", _milliseconds),
    "yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck": (
        "starvation_check_wait_s",
        _milliseconds,
    ),
    "yarn.scheduler.fair.preemptionInterval": ("preemption_interval_s", _milliseconds),
    "yarn.scheduler.fair.update-interval-ms": ("update_interval_s", _milliseconds),
    "yarn.scheduler.fair.assignmultiple": ("assign_multiple", _boolean),
    "yarn.scheduler.fair.max.assign": ("max_assign", _integer),
    "yarn.scheduler.fair.dynamic.max.assign": ("dynamic_max_assign", _boolean),
    "yarn.scheduler.fair.continuous-scheduling-enabled": ("continuous_scheduling", _boolean),
    "yarn.scheduler.fair.continuous-scheduling-sleep-ms": (
        "continuous_scheduling_sleep_s",
        _milliseconds,
    ),
    "yarn.scheduler.fair.sizebasedweight": ("size_based_weight", _boolean),
    "yarn.scheduler.fair.reservable-nodes": ("reservable_nodes", _number),
    _RESERVATION_THRESHOLD: ("reservation_threshold_multiple", _number),
    "yarn.scheduler.fair.locality.threshold.node": ("locality_threshold_node", _number),
    "yarn.scheduler.fair.locality.threshold.rack": ("locality_threshold_rack", _number),
    "yarn.scheduler.minimum-allocation-mb": ("min_allocation_mb", _number),
    "yarn.scheduler.minimum-allocation-vcores": ("min_allocation_vcores", _number),
    "yarn.scheduler.increment-allocation-mb": ("increment_mb", _number),
    "yarn.scheduler.increment-allocation-vcores": ("increment_vcores", _number),
    "yarn.resource-types.memory-mb.increment-allocation": ("increment_mb", _number),
    "yarn.resource-types.vcores.increment-allocation": ("increment_vcores", _number),
    "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": (
        "node_heartbeat_interval_s",
        _milliseconds,
    ),
    "mapreduce.job.reduce.slowstart.completedmaps": ("slowstart_completed_maps", _number),
    "mapreduce.job.reducer.unconditional-preempt.delay.sec": (
        "reducer_unconditional_preempt_delay_s",
        _number,
    ),
    "mapreduce.job.reducer.preempt.delay.sec": ("reducer_preempt_delay_s", _number),
    "mapreduce.job.reduce.rampup.limit": ("reduce_rampup_limit", _number),
    "yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms": (
        "am_heartbeat_interval_s",
        _milliseconds,
    ),
}

#: Hadoop 1 (MRv1) property of ``mapred-site.xml`` -> (SchedulerSettings field, parser).
MRV1_PROPERTIES: dict[str, tuple[str, Callable[[str], object]]] = {
    "mapred.fairscheduler.preemption": ("preemption", _boolean),
    "mapred.fairscheduler.preemption.interval": ("preemption_interval_s", _milliseconds),
    "mapred.fairscheduler.update.interval": ("update_interval_s", _milliseconds),
    "mapred.fairscheduler.assignmultiple": ("assign_multiple", _boolean),
    "mapred.fairscheduler.assignmultiple.maps": ("assign_multiple_maps", _integer),
    "mapred.fairscheduler.assignmultiple.reduces": ("assign_multiple_reduces", _integer),
    "mapred.fairscheduler.sizebasedweight": ("size_based_weight", _boolean),
    "mapred.heartbeats.in.second": ("heartbeats_in_second", _number),
    "mapreduce.jobtracker.heartbeats.in.second": ("heartbeats_in_second", _number),
    "mapred.reduce.slowstart.completed.maps": ("slowstart_completed_maps", _number),
    "mapred.fairscheduler.locality.delay": ("locality_delay_s", _delay),
}

#: The files Hadoop's configuration directory keeps these in; each brings the other along.
SIBLINGS = {"yarn-site.xml": "mapred-site.xml", "mapred-site.xml": "yarn-site.xml"}


def preemption_property(hadoop_version: int) -> str:
    """The property that turns preemption on for Hadoop `hadoop_version`."""
    return (
        "mapred.fairscheduler.preemption"
        if hadoop_version == 1
        else "yarn.scheduler.fair.preemption"
    )


@dataclass(frozen=True)
class SiteSettings:
    """The settings read from a site file (and its sibling), and which properties set them:
    name -> line, and name -> file for those set in the sibling (``where``).

    ``watched`` holds the properties `whatif.predictor.unmodelled` judges (value and
    ``file:line``); ``unmodelled`` what it found the predictor leaves out;
    ``only_logged`` where Hadoop 1's ``mapred.fairscheduler.preemption.only.log`` turned
    the file's preemption off (the JobTracker then logs what it would kill, and kills
    nothing)."""

    settings: SchedulerSettings
    path: Path
    found: dict[str, int] = field(default_factory=dict)
    where: dict[str, Path] = field(default_factory=dict)
    watched: dict[str, Setting] = field(default_factory=dict)
    unmodelled: tuple[Unmodelled, ...] = ()
    only_logged: str | None = None

    @property
    def sets_preemption(self) -> bool:
        return preemption_property(self.settings.hadoop_version) in self.found

    def scheduler_mismatch(self, *, capacity: bool) -> str | None:
        """Why the predictions do not describe this cluster when it runs another scheduler
        than the one predicted (`whatif.predictor.unmodelled.scheduler_mismatch`)."""
        return scheduler_mismatch(self.watched, self.settings.hadoop_version, capacity=capacity)

    def location(self, name: str) -> str:
        """``file:line`` of the property `name` (one that was found)."""
        return f"{self.where.get(name, self.path)}:{self.found[name]}"


def read_site(path: str | Path, *, hadoop_version: int = 3) -> SiteSettings:
    """The `SchedulerSettings` a site file (and its sibling, see the module docstring) gives
    for Hadoop `hadoop_version`, Hadoop's defaults elsewhere.

    Raises
    ------
    ValidationError
        A file cannot be read, is not a Hadoop ``<configuration>``, or a property the
        predictor models has a value Hadoop would reject (naming file, line, property).
    """
    source = Path(path)
    values: dict[str, Any] = {}  # SchedulerSettings field -> its value (typed per field)
    found: dict[str, int] = {}
    where: dict[str, Path] = {}
    watched: dict[str, Setting] = {}
    sibling = source.with_name(SIBLINGS[source.name]) if source.name in SIBLINGS else None
    if sibling is not None and sibling.is_file():
        _read_properties(sibling, hadoop_version, values, found, watched)
        where = dict.fromkeys(found, sibling)
    given: dict[str, int] = {}
    _read_properties(source, hadoop_version, values, given, watched)
    for name in given:
        where.pop(name, None)
    found.update(given)
    only_logged = None
    if values.get("preemption") and PREEMPTION_ONLY_LOG in watched:
        text, location = watched[PREEMPTION_ONLY_LOG]
        if _boolean(text):
            values["preemption"] = False
            only_logged = location
    try:
        settings = dataclasses.replace(SchedulerSettings(hadoop_version=hadoop_version), **values)
    except ValidationError as error:
        raise ValidationError(f"{source}: {error}") from None
    left_out = unmodelled(
        watched, hadoop_version, continuous_scheduling=settings.continuous_scheduling
    )
    return SiteSettings(settings, source, found, where, watched, left_out, only_logged)


def _read_properties(
    source: Path,
    hadoop_version: int,
    values: dict[str, Any],
    found: dict[str, int],
    watched: dict[str, Setting],
) -> None:
    """Add the modelled properties of one site file to `values` (field -> value) and
    `found` (property -> line), and its `WATCHED` ones to `watched` (value, file:line)."""
    try:
        root = parse_xml(read_allocation_bytes(source), str(source))
    except XMLSyntaxProblem as error:
        raise ValidationError(str(error)) from None
    except AllocationError as error:
        raise ValidationError(str(error).replace("allocation file", "site file")) from None
    if root.tag != "configuration":
        raise ValidationError(
            f"{source}:{root.sourceline}: expected a Hadoop site file (<configuration>), "
            f"got <{root.tag}>"
        )
    known = MRV1_PROPERTIES if hadoop_version == 1 else YARN_PROPERTIES
    for prop in root.iter("property"):
        name = (prop.findtext("name") or "").strip()
        if name in WATCHED[hadoop_version]:
            watched[name] = (prop.findtext("value") or "", f"{source}:{source_line(prop) or 0}")
        if name not in known:
            continue
        text = prop.findtext("value")
        target, parse = known[name]
        try:
            if text is None:
                raise ValueError("no <value>")
            values[target] = parse(text)
        except ValueError:
            raise ValidationError(
                f"{source}:{prop.sourceline}: {name}: expected "
                + ("true or false" if parse is _boolean else "a number")
                + f", got {text!r}"
            ) from None
        found[name] = source_line(prop) or 0


#: Hadoop 1 ``mapred-site.xml``: the job property naming a job's Fair Scheduler pool.
POOL_NAME_PROPERTY = "mapred.fairscheduler.poolnameproperty"


def read_pool_name_property(path: str | Path) -> str | None:
    """``mapred.fairscheduler.poolnameproperty`` of a Hadoop 1 site file (the job property
    whose value is a job's pool unless it sets ``mapred.fairscheduler.pool``), from `path`
    or, where `path` does not set it, its sibling (module docstring); None: neither sets
    it (Hadoop's default is ``user.name``). A blank value counts as unset."""
    source = Path(path)
    sibling = source.with_name(SIBLINGS[source.name]) if source.name in SIBLINGS else None
    for file in (source, sibling):
        if file is None or not file.is_file():
            continue
        try:
            root = parse_xml(read_allocation_bytes(file), str(file))
        except XMLSyntaxProblem as error:
            raise ValidationError(str(error)) from None
        except AllocationError as error:
            raise ValidationError(str(error).replace("allocation file", "site file")) from None
        value = None
        for prop in root.iter("property"):
            if (prop.findtext("name") or "").strip() == POOL_NAME_PROPERTY:
                value = (prop.findtext("value") or "").strip() or value
        if value:
            return value
    return None


def preemption_source(site: SiteSettings | None, hadoop_version: int, explicit: bool | None) -> str:
    """Where the preemption setting came from, for people: option, site file, or Hadoop's default."""
    name = preemption_property(hadoop_version)
    if explicit is not None:
        return f"--{'' if explicit else 'no-'}preemption"
    if site is not None and site.sets_preemption:
        if site.only_logged is not None:
            return (
                f"{name} in {site.location(name)}, but {PREEMPTION_ONLY_LOG} in "
                f"{site.only_logged}: the JobTracker only logs the tasks it would preempt"
            )
        return f"{name} in {site.location(name)}"
    where = f" ({site.path} does not set {name})" if site is not None else ""
    return f"Hadoop {hadoop_version}'s default for {name}{where}"
