"""The demo: `tempo tune` without ``--rm`` tunes the emulated RM on the bundled sample.

`connect_demo` starts `tempo.rm.emulator.EmulatedRM` in this process, replaying the
bundled contended sample (a deadline and a best-effort tenant on 40 containers)
under a COPY of its expert configuration (the shipped file is never touched): the
quickest way to see the loop work. Another trace and configuration may be given; a
``capacity-scheduler.xml`` makes the emulated RM run the Capacity Scheduler, which
reloads its file only when refreshed (`RefreshReload`, the emulated
``yarn rmadmin -refreshQueues``). The emulated cluster's "real" schedule is the
predictor's with task failures, stragglers and jitter (`DEMO_NOISE`) on another
seed than the tuner's, so the loop meets prediction error as it would on a real
cluster. Its clock is paused while tempo computes (`PausedClock`).
"""

from __future__ import annotations

import json
import logging
import math
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from tempo.errors import RMError, TempoError
from tempo.loop.deadlines import expert_deadlines
from tempo.loop.reload import Reload
from tempo.loop.settings import Connection, Paths, TuneSettings
from tempo.rm import HTTPTransport, JobHistoryClient, RMClient, TransportOptions
from tempo.templates import QSTemplate
from whatif.atomic import write_atomic
from whatif.capacity import is_capacity_scheduler
from whatif.cluster import Cluster
from whatif.predictor import TYPICAL_NOISE, SchedulerSettings
from whatif.readers import read_trace

logger = logging.getLogger(__name__)

#: The repository root, where the bundled sample data lives (an editable install).
REPO = Path(__file__).resolve().parents[2]

#: The sample `tune` runs on without ``--rm``: contended, with an expert file that
#: over-provisions the deadline tenant (benchmarks/scenarios.py, ``slo-yarn``).
DEMO_TRACE = REPO / "traces" / "contended"
DEMO_CONFIG = REPO / "configs" / "contended-expert.xml"
DEMO_TEMPLATES = REPO / "templates" / "contended"
DEMO_CLUSTER = "nodes=5,memory-mb=8192,vcores=8"
#: What makes the emulated cluster's runs differ from predictions.
DEMO_NOISE = TYPICAL_NOISE


class PausedClock:
    """A wall clock that moves only when slept on: the emulated cluster stands still while tempo computes.

    Given to `EmulatedRM` as its clock and to the loop as its sleep, it makes each
    iteration observe exactly the next window, however long the What-if Model takes.
    """

    def __init__(self) -> None:
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s

    def sleep(self, seconds: float) -> None:
        self.now_s += max(0.0, float(seconds))


@dataclass(frozen=True)
class RefreshReload:
    """The emulated ``yarn rmadmin -refreshQueues``: ``POST`` to the emulated RM's refresh
    endpoint (`tempo.rm.emulator.request_refresh`). A reload for `tempo.loop.apply`."""

    url: str

    def describe(self) -> str:
        return f"refresh the emulated RM at {self.url} (yarn rmadmin -refreshQueues)"

    def perform(self, *, sleep: Callable[[float], None] = time.sleep) -> str | None:
        """Refresh now; None on success, else one line saying why the RM refused."""
        from tempo.rm.emulator import request_refresh

        try:
            request_refresh(self.url)
        except RMError as error:
            return str(error)
        return None


def demo_paths(settings: TuneSettings) -> Paths:
    """The demo's files: a copy of the sample configuration in a work directory (kept
    across runs, so a second run resumes; ``capacity-scheduler.xml`` for a Capacity
    Scheduler file), the sample's trace, templates and cluster."""
    work = Path(settings.work_dir or tempfile.mkdtemp(prefix="tempo-tune-"))
    work.mkdir(parents=True, exist_ok=True)
    source = Path(settings.config_path or DEMO_CONFIG)
    trace = Path(settings.trace_path or DEMO_TRACE)
    templates = Path(settings.templates_path or DEMO_TEMPLATES)
    cluster = settings.cluster or DEMO_CLUSTER
    for needed in (trace, source, templates):
        if not needed.exists():
            raise TempoError(
                f"{needed}: the bundled sample is missing (tempo tune without --rm needs the "
                "repository checkout: pip install -e .)"
            )
    name = "capacity-scheduler.xml" if is_capacity_scheduler(source) else "fair-scheduler.xml"
    config = work / name
    _claim_work_dir(work, {"config": source, "trace": trace, "templates": templates}, cluster)
    if not config.exists():
        shutil.copyfile(source, config)
    return Paths(
        config=config,
        source=source,
        templates=templates,
        space=settings.space_path,
        cluster=cluster,
        journal=Path(settings.journal_path or work / "tempo-journal.sqlite"),
        trace=trace,
    )


#: The record of what a demo work directory tunes (`_claim_work_dir`).
DEMO_RUN = "tempo-demo-run.json"
#: Where in the trace the last demo run of a work directory stopped (`connect_demo`).
DEMO_CLOCK = "tempo-demo-clock.json"


def _record_stop(path: Path, now_s: Callable[[], float]) -> None:
    """Write where in the trace this run stopped (`DEMO_CLOCK`); a failure (a full disk)
    is a warning: the next run then replays from the start, and the run's own error stays
    the one reported."""
    try:
        write_atomic(path, json.dumps({"trace_time_s": now_s()}) + "\n")
    except OSError as error:
        logger.warning("%s: not written (%s); the next run replays the trace from its start",
                       path, error.strerror or error)  # fmt: skip


def _stopped_at(path: Path) -> float:
    """The trace time a previous run stopped at (`DEMO_CLOCK`), or -inf when none did."""
    if not path.exists():
        return -math.inf
    try:
        value = float(json.loads(path.read_text(encoding="utf-8"))["trace_time_s"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise TempoError(
            f"{path}: unreadable record of where the last demo run stopped ({error}); remove "
            "it to replay the trace from its start"
        ) from None
    return value if math.isfinite(value) else -math.inf


def _claim_work_dir(work: Path, inputs: dict[str, Path], cluster: str) -> None:
    """Record in `work` the inputs its run tunes, or refuse inputs other than those it holds.

    A second run in the same work directory resumes the first (its copy of the
    configuration and its journal), so one given another configuration, trace, template
    set or cluster would go on tuning the first run's file against the new templates.
    """
    run = {key: str(path.resolve()) for key, path in inputs.items()} | {"cluster": cluster}
    record = work / DEMO_RUN
    if record.exists():
        try:
            held = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise TempoError(
                f"{record}: unreadable record of this work directory's run ({error})"
            ) from None
        if held != run:
            differ = ", ".join(
                f"--{k} {run[k]} (it holds {held.get(k)})" for k in run if held.get(k) != run[k]
            )
            raise TempoError(
                f"{work}: this work directory holds another demo run, which a new one would "
                f"resume: {differ}; give another --work-dir, or remove {work} to start over"
            )
        return
    if any(work.iterdir()):
        raise TempoError(
            f"{work}: not empty and holds no record of a demo run ({DEMO_RUN}); give another "
            f"--work-dir, or remove {work} to start over"
        )
    write_atomic(record, json.dumps(run, indent=2) + "\n")


def connect_demo(
    settings: TuneSettings,
    paths: Paths,
    cluster: Cluster,
    templates: Sequence[QSTemplate],
    scheduler: SchedulerSettings,
    stack: ExitStack,
) -> Connection:
    """Start the emulated RM on a copy of the sample (stopped when `stack` closes)."""
    from tempo.rm.emulator import EmulatedRM

    assert paths.source is not None and paths.trace is not None  # demo_paths sets them
    trace = read_trace(paths.trace)
    deadlines = expert_deadlines(trace, paths.source, cluster, templates, engine=settings.engine)
    paused = PausedClock()
    rm = EmulatedRM(
        trace,
        paths.config,
        cluster,
        speed=settings.speed,
        settings=scheduler,
        engine=settings.engine,
        clock=paused,
        noise=DEMO_NOISE,
        seed=settings.seed + 1,
    )
    url = rm.start()
    stack.callback(rm.stop)
    # A second run in this work directory goes on from where this one stopped in the
    # trace (its journal's next window), not from the trace's start again.
    clock_file = paths.config.parent / DEMO_CLOCK
    resumed_s = _stopped_at(clock_file)
    stack.callback(_record_stop, clock_file, rm.trace_time_s)
    options = TransportOptions()
    client = RMClient(
        HTTPTransport([url], options), history=JobHistoryClient(HTTPTransport(url, options))
    )
    stack.callback(client.transport.close)

    def warm_up() -> None:  # let the replay run one window before the first observation
        first = max(rm.start_s, resumed_s) + settings.window_s
        paused.sleep(max(0.0, first - rm.trace_time_s()) / settings.speed)

    # The Fair Scheduler polls its file every 10 trace seconds and waits 5 more for quiet;
    # the Capacity Scheduler reloads it only when refreshed.
    reload = RefreshReload(url) if rm.capacity_scheduler else Reload.wait(20.0 / settings.speed)
    return Connection(
        client=client,
        reload=reload,
        clock=rm.now_s,
        wait=paused.sleep,
        sleep=paused.sleep,
        monotonic=paused,
        speed=settings.speed,
        confirm_timeout_s=60.0 / settings.speed,
        deadlines=deadlines,
        warm_up=warm_up,
        job_queues=tuple(str(q) for q in trace.workload.jobs["queue"].unique()),
    )
