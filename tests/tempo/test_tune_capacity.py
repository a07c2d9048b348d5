"""`tempo tune` on a Capacity Scheduler cluster: the RM's scheduler type picks the file kind,
the PALD step searches the CapacitySpace, and the demo runs against the emulated RM in
Capacity Scheduler mode with refreshes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from emulated import capacity_xml
from samples import REPO

from tempo.errors import RMError, TempoError
from tempo.journal import SQLiteJournal
from tempo.loop.config_format import CAPACITY
from tempo.loop.pald_step import PALDStepper
from tempo.loop.settings import TuneSettings
from tempo.loop.wiring import scheduler_format, tune
from tempo.space import CapacitySpace
from tempo.templates import parse_templates
from whatif import Cluster, Trace, Workload
from whatif.allocation import AllocationDocument
from whatif.capacity import ConfigurationDocument, validate
from whatif.predictor import SchedulerSettings
from whatif.readers import write_native

TWO = REPO / "configs" / "two-tenant-capacity.xml"
FAIR = REPO / "configs" / "two-tenant-expert.xml"


class _Client:
    """An RM client that only says which scheduler it runs (or cannot be reached)."""

    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer

    def scheduler_type(self) -> str:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_the_rms_scheduler_picks_the_capacity_format():
    """A Capacity Scheduler RM and a capacity-scheduler.xml: applied as CAPACITY; a Fair
    Scheduler RM and an allocation file: the allocation file's format (None)."""
    capacity = ConfigurationDocument.from_file(TWO)
    fair = AllocationDocument.from_file(FAIR)
    assert scheduler_format(_Client("capacity"), capacity, TWO) is CAPACITY
    assert scheduler_format(_Client("fair"), fair, FAIR) is None


@pytest.mark.parametrize(
    ("running", "path", "message"),
    [
        ("fair", TWO, "runs the fair scheduler, but .* is a Capacity Scheduler configuration"),
        ("capacity", FAIR, "runs the capacity scheduler, but .* is an allocation file"),
        ("fifo", TWO, "runs the fifo scheduler"),
    ],
)
def test_a_file_the_rms_scheduler_does_not_read_is_refused(running, path, message):
    """The file must be the kind the RM's scheduler reads: a TempoError before any write."""
    document = (ConfigurationDocument if path == TWO else AllocationDocument).from_file(path)
    with pytest.raises(TempoError, match=message):
        scheduler_format(_Client(running), document, path)


def test_an_unreachable_rm_leaves_the_file_kind_in_charge(caplog):
    """When the RM cannot be asked, the capacity file is tuned as one, with a warning."""
    document = ConfigurationDocument.from_file(TWO)
    assert scheduler_format(_Client(RMError("down")), document, TWO) is CAPACITY
    assert "cannot ask the RM which scheduler it runs (down)" in caplog.text


def test_the_pald_step_searches_the_capacity_space():
    """A capacity-scheduler.xml: the default CapacitySpace (the preemption monitor tuned
    with preemption on); --space and --tune are refused."""
    templates = parse_templates("QUEUE root.engineer OPTIMIZE QS_AJR;")
    cluster = Cluster.parse("nodes=24,memory-mb=8192,vcores=8")
    document = ConfigurationDocument.from_file(TWO)
    on = PALDStepper(templates, cluster, settings=SchedulerSettings(preemption=True))
    space = on.space(document)
    assert isinstance(space, CapacitySpace)
    assert "preemption.monitoring_interval" in space.names
    assert (
        "preemption.monitoring_interval"
        not in PALDStepper(templates, cluster).space(document).names
    )
    with pytest.raises(TempoError, match="--space and --tune name allocation-file settings"):
        PALDStepper(templates, cluster, overrides=("root.prod.weight=1:4",)).space(document)


def _busy_trace(path: Path) -> Path:
    """Two queues on 8 containers for 2 hours: prod's small jobs every 10 min, engineer's
    wider ones every 2 min, each a wave of one-container maps: engineer's 20 % maximum
    keeps it waiting while prod's guarantee idles."""
    rng = np.random.default_rng(7)
    jobs, tasks = [], []
    for queue, every, width in (("root.prod", 600.0, 2), ("root.engineer", 120.0, 4)):
        for k, submit in enumerate(np.arange(0.0, 7200.0, every)):
            job = f"{queue.rpartition('.')[2]}-{k:03d}"
            jobs.append({"job_id": job, "queue": queue, "submit_s": submit, "name": job})
            for t in range(width):
                duration = float(rng.uniform(60.0, 180.0))
                tasks.append(
                    {
                        "job_id": job,
                        "task_id": f"{job}-m{t}",
                        "stage": "map",
                        "duration_s": duration,
                        "memory_mb": 1024.0,
                        "vcores": 1.0,
                    }
                )
    workload = Workload(pd.DataFrame(jobs), pd.DataFrame(tasks))
    write_native(Trace(workload), path)
    return path


CAPACITY_XML = capacity_xml(
    {
        "prod.capacity": "80",
        "prod.user-limit-factor": "2",
        "engineer.capacity": "20",
        "engineer.maximum-capacity": "25",
    }
)


def test_the_demo_tunes_a_capacity_file_on_the_emulated_capacity_scheduler(tmp_path):
    """`tempo tune --trace T --config capacity-scheduler.xml` without --rm: the emulated RM
    runs the Capacity Scheduler, every iteration is journalled, an accepted step is a
    capacity file Hadoop accepts that the RM confirmed (refreshed, not polled), and the
    shipped file is untouched."""
    source = tmp_path / "shipped-capacity-scheduler.xml"
    source.write_bytes(CAPACITY_XML)
    templates = tmp_path / "t.qs"
    templates.write_text("QUEUE root.engineer OPTIMIZE QS_AJR;\n")
    settings = TuneSettings(
        config_path=source,
        templates_path=templates,
        trace_path=_busy_trace(tmp_path / "trace"),
        cluster="nodes=1,memory-mb=8192,vcores=8",
        window_s=1800.0,
        interval_s=1800.0,
        max_iterations=3,
        radius=0.3,
        preemption=False,
        engine="reference",
        work_dir=tmp_path / "work",
        speed=600.0,
    )
    run = tune(settings)
    assert run.config_path == tmp_path / "work" / "capacity-scheduler.xml"
    decisions = [r.decision for r in run.reports]
    assert len(decisions) == 3
    assert "accepted" in decisions, [r.reason for r in run.reports]
    accepted = next(r for r in run.reports if r.decision == "accepted")
    assert any(d.setting == "capacity" for d in accepted.diff)
    written = ConfigurationDocument.from_file(run.config_path)
    assert all(issue.severity != "error" for issue in validate(written))
    assert source.read_bytes() == CAPACITY_XML
    with SQLiteJournal(run.journal_path) as journal:
        assert len(journal.iterations()) == 3
