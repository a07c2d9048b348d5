"""Click options shared by the commands that simulate: one definition, one meaning."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from whatif.predictor import SchedulerSettings


def simulation_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--hadoop-version`` and ``--preemption/--no-preemption`` to a command."""
    command = click.option(
        "--preemption/--no-preemption",
        default=False,
        show_default=True,
        help="Simulate with yarn.scheduler.fair.preemption on.",
    )(command)
    return click.option(
        "--hadoop-version",
        type=click.IntRange(1, 3),
        default=3,
        show_default=True,
        help="Hadoop major version whose parsing and preemption rules apply.",
    )(command)


def scheduler_settings(hadoop_version: int, preemption: bool) -> SchedulerSettings:
    """The predictor's yarn-site knobs from the shared options (Hadoop defaults otherwise)."""
    return SchedulerSettings(hadoop_version=hadoop_version, preemption=preemption)
