"""One preemption rule for every command that simulates: ``--site``, else Hadoop's default.

``--site yarn-site.xml`` (``mapred-site.xml`` for Hadoop 1) gives
``yarn.scheduler.fair.preemption`` and the other scheduler knobs the predictor
models (`whatif.predictor.site`); without it, Hadoop's defaults for the chosen
version apply (preemption off). ``--preemption/--no-preemption`` overrides the
file's preemption setting. Every command prints on stderr which was used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from whatif.predictor import SchedulerSettings
from whatif.predictor.site import preemption_source, read_pool_name_property, read_site


def preemption_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--site FILE`` and ``--preemption/--no-preemption`` (default: from the site file)."""
    command = click.option(
        "--preemption/--no-preemption",
        default=None,
        help="Simulate with preemption on or off, whatever --site says "
        "[default: --site's yarn.scheduler.fair.preemption, else Hadoop's default: off].",
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
) -> SchedulerSettings:
    """The predictor's scheduler knobs by the one rule; says on stderr where preemption came from."""
    from tempo.cli import is_quiet

    site = read_site(site_path, hadoop_version=hadoop_version) if site_path else None
    settings = site.settings if site else SchedulerSettings(hadoop_version=hadoop_version)
    if preemption is not None:
        settings = dataclasses.replace(settings, preemption=preemption)
    if announce and not is_quiet():
        state = "on" if settings.preemption else "off"
        source = preemption_source(site, hadoop_version, preemption)
        click.echo(f"preemption: {state} ({source})", err=True)
    return settings


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
