"""Settings: what `tempo tune` was asked to do, and what the wiring resolves it into.

`TuneSettings` holds the command's options; `Paths` the files a run works on once
the defaults are filled in; `Connection` how the tuner reaches the cluster and keeps
its time (a live RM's clock, or the emulated RM's paused one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tempo.gain import MinGain
from tempo.loop.decide import NOISE, Tolerance
from tempo.loop.reload import Reload
from tempo.rm import RMClient
from whatif.predictor import SchedulerSettings


@dataclass(frozen=True)
class TuneSettings:
    """What `tempo tune` was asked to do (its options); see docs/live.md, "Tuning a live cluster".

    With no ``rm_urls`` the emulated RM replays the bundled sample; ``speed`` is its
    trace seconds per wall second, and unset paths default to the sample's.
    ``preemption`` is ``yarn.scheduler.fair.preemption`` of the cluster the predictions
    model; None: on for the emulated RM (its yarn-site enables it), Hadoop's default
    (off) for a live one. ``scheduler`` carries the other knobs of the cluster's
    ``yarn-site.xml`` (``--site``: utilization threshold, waitTimeBeforeKill, minimum
    allocation, ...) to the predictions and the emulated RM; ``preemption``, when set,
    overrides its own. ``min_gain`` is the minimum meaningful gain of a step, relative
    and absolute (None: ``min_improvement`` relative alone). ``trace_path`` is the trace the
    emulated RM replays (None: the bundled contended sample).
    """

    rm_urls: tuple[str, ...] = ()
    history_url: str | None = None
    config_path: Path | None = None
    templates_path: Path | None = None
    cluster: str | None = None
    space_path: Path | None = None
    radius: float = 0.1
    window_s: float = 2700.0
    interval_s: float = 2700.0
    max_iterations: int | None = None
    dry_run: bool = False
    journal_path: Path | None = None
    reload_command: str | None = None
    reload_wait_s: float = 15.0
    confirm_timeout_s: float = 60.0
    ca_bundle: Path | None = None
    kerberos: bool = False
    deadlines_path: Path | None = None
    tolerance: Tolerance = NOISE
    min_improvement: float = 0.01
    min_gain: MinGain | None = None
    scheduler: SchedulerSettings | None = None
    replicates: int = 1
    preemption: bool | None = None
    engine: str = "numba"
    seed: int = 0
    speed: float = 600.0
    work_dir: Path | None = None
    trace_path: Path | None = None


@dataclass(frozen=True)
class Paths:
    """The files a run works on: ``source`` is the shipped file the demo copies and ``trace``
    the trace its emulated RM replays (both None live)."""

    config: Path
    source: Path | None
    templates: Path
    space: Path | None
    cluster: str
    journal: Path
    trace: Path | None = None


@dataclass(frozen=True, eq=False)
class Connection:
    """How the tuner reaches the cluster and keeps time.

    ``clock`` and ``wait`` are the windows' clock and the wait between iterations (the
    RM's for a live cluster); ``sleep`` and ``monotonic`` what applies and recovery
    wait with; ``warm_up`` runs before the first observation; ``deadlines`` are added
    to each window (`tempo.loop.deadlines`); ``job_queues`` are the queues of the jobs
    an emulated RM replays (templates may name those the Fair Scheduler creates).
    """

    client: RMClient
    reload: Reload | Any  # or another reload with perform() and describe(), as apply takes
    clock: Callable[[], float]
    wait: Callable[[float], None]
    sleep: Callable[[float], None]
    monotonic: Callable[[], float]
    speed: float
    confirm_timeout_s: float
    deadlines: Mapping[str, float] = field(default_factory=dict)
    warm_up: Callable[[], None] = lambda: None
    job_queues: tuple[str, ...] = ()


def scheduler_settings(settings: TuneSettings, emulated: bool) -> SchedulerSettings:
    """The scheduler knobs predictions (and the emulated RM) use: ``settings.scheduler``
    with ``settings.preemption`` over its own, else preemption alone (see `TuneSettings`)."""
    if settings.scheduler is not None:
        if settings.preemption is None:
            return settings.scheduler
        return dataclasses.replace(settings.scheduler, preemption=settings.preemption)
    return SchedulerSettings(
        preemption=emulated if settings.preemption is None else settings.preemption
    )
