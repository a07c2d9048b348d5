"""One preemption rule for every command that simulates: ``--site``, else Hadoop's default.

``--site yarn-site.xml`` (``mapred-site.xml`` for Hadoop 1) gives
``yarn.scheduler.fair.preemption`` and the other scheduler knobs the predictor
models (`whatif.predictor.site`); without it, Hadoop's defaults for the chosen
version apply (preemption off). ``--preemption/--no-preemption`` overrides the
file's preemption setting. Every command prints on stderr which was used. With a
Capacity Scheduler ``capacity-scheduler.xml`` the switch is the preemption monitor's
(`capacity_preemption`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from whatif.capacity import ConfigurationDocument, is_capacity_scheduler
from whatif.predictor import SchedulerSettings
from whatif.predictor.capacity import MONITOR_ENABLE, read_monitor
from whatif.predictor.site import preemption_source, read_pool_name_property, read_site


def preemption_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--site FILE`` and ``--preemption/--no-preemption`` (default: from the site file)."""
    command = click.option(
        "--preemption/--no-preemption",
        default=None,
        help="Simulate with preemption on or off, whatever --site says "
        "[default: --site's yarn.scheduler.fair.preemption, else Hadoop's default: off; "
        "with a capacity-scheduler.xml the preemption monitor's "
        "yarn.resourcemanager.scheduler.monitor.enable, from --site or the file].",
    )(command)
    return click.option(
        "--site",
        "site_path",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="The cluster's yarn-site.xml (mapred-site.xml for Hadoop 1; the other of the "
        "two beside it is read too): preemption, heartbeats and the scheduler knobs the "
        "predictor models [default: Hadoop's defaults].",
    )(command)


def scheduler_settings(
    hadoop_version: int,
    site_path: Path | None,
    preemption: bool | None,
    *,
    announce: bool = True,
    config_path: Path | None = None,
) -> SchedulerSettings:
    """The predictor's scheduler knobs by the one rule; says on stderr where preemption came
    from. With a Capacity Scheduler `config_path` the switch is the preemption monitor's
    (`capacity_preemption`), not the Fair Scheduler's property."""
    from tempo.cli import is_quiet
    from tempo.cli.checks import warn_site

    site = read_site(site_path, hadoop_version=hadoop_version) if site_path else None
    settings = site.settings if site else SchedulerSettings(hadoop_version=hadoop_version)
    capacity = config_path is not None and is_capacity_scheduler(config_path)
    if site is not None:
        warn_site(site, capacity=capacity)
    if capacity:
        assert config_path is not None
        on, source = capacity_preemption(site_path, config_path, preemption)
        settings = dataclasses.replace(settings, preemption=on)
    else:
        if preemption is not None:
            settings = dataclasses.replace(settings, preemption=preemption)
        source = preemption_source(site, hadoop_version, preemption)
    if announce and not is_quiet():
        state = "on" if settings.preemption else "off"
        click.echo(f"preemption: {state} ({source})", err=True)
    return settings


def capacity_preemption(
    site_path: Path | None, config_path: Path, explicit: bool | None
) -> tuple[bool, str]:
    """Whether the Capacity Scheduler's preemption monitor runs, and what says so: the
    option, else ``yarn.resourcemanager.scheduler.monitor.enable`` (with its policies) in
    the site file (where the ResourceManager reads it), else in the capacity-scheduler.xml
    (which the predictor honours too), else Hadoop's default, off. A monitor the
    capacity-scheduler.xml enables stays on under ``--no-preemption``: the predictor reads
    the file as the cluster would."""
    in_file = _monitor_switch(config_path)
    if explicit is not None:
        if not explicit and in_file is not None and in_file[0]:
            return True, f"{in_file[1]}; --no-preemption does not override it"
        return explicit, f"--{'' if explicit else 'no-'}preemption"
    for found in (_monitor_switch(site_path) if site_path else None, in_file):
        if found is not None:
            return found
    return False, f"Hadoop's default for {MONITOR_ENABLE}: false"


def _monitor_switch(path: Path) -> tuple[bool, str] | None:
    """The monitor switch a Hadoop configuration file sets, with ``file:line``; None when
    it does not set it."""
    doc = ConfigurationDocument.from_file(path)
    found = doc.get(MONITOR_ENABLE)
    if found is None:
        return None
    return read_monitor(doc).enabled, f"{MONITOR_ENABLE} in {path}:{found.line}"


def site_reader_options(
    trace_path: str | Path, trace_format: str | None, site_path: Path | None
) -> dict[str, object]:
    """The trace reader's options the site file sets: for a Hadoop 1 history (format
    ``hadoop1``), ``pool_name_property`` from ``mapred.fairscheduler.poolnameproperty``."""
    if site_path is None:
        return {}
    from whatif.readers import detect_format

    if (trace_format or detect_format(Path(trace_path))) != "hadoop1":
        return {}
    name = read_pool_name_property(site_path)
    return {"pool_name_property": name} if name else {}
