"""`tempo.loop` wiring: deadlines added to observed windows, the paused clock, settings checks."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from tempo.errors import TempoError
from tempo.loop.deadlines import DeadlineObserver
from tempo.loop.demo import PausedClock
from tempo.loop.settings import TuneSettings
from tempo.loop.wiring import tune
from whatif import Trace, Workload


def _trace() -> Trace:
    jobs = pd.DataFrame(
        {
            "job_id": ["a", "b"],
            "queue": ["root.prod", "root.prod"],
            "submit_s": [100.0, 200.0],
            "name": ["nightly", "adhoc"],
        }
    )
    tasks = pd.DataFrame(
        {
            "job_id": ["a", "b"],
            "task_id": ["t1", "t2"],
            "stage": ["map", "map"],
            "duration_s": [10.0, 10.0],
            "memory_mb": [1.0, 1.0],
            "vcores": [1.0, 1.0],
        }
    )
    return Trace(Workload(jobs, tasks))


class _Fixed:
    def window(self, begin_s, end_s):
        return _trace()


def test_deadlines_are_set_by_job_name_relative_to_submission():
    """A job whose name has a deadline gets submit + deadline; others keep theirs."""
    trace = DeadlineObserver(_Fixed(), {"nightly": 60.0}).window(0, 1)
    deadlines = trace.workload.jobs["deadline_s"].tolist()
    assert deadlines[0] == 160.0 and math.isnan(deadlines[1])


def test_no_known_name_leaves_the_window_as_it_was():
    """Without a matching name the observed trace is returned unchanged."""
    trace = DeadlineObserver(_Fixed(), {"other": 5.0}).window(0, 1)
    assert trace.workload.jobs["deadline_s"].isna().all()


def test_the_paused_clock_moves_only_when_slept_on():
    """The emulated cluster's wall clock advances by the seconds slept, never by itself."""
    clock = PausedClock()
    assert clock() == 0.0
    clock.sleep(2.5)
    clock.sleep(-1.0)
    assert clock() == 2.5


@pytest.mark.parametrize(
    "settings, message",
    [
        (TuneSettings(rm_urls=("http://rm:8088",)), "--config"),
        (
            TuneSettings(
                rm_urls=("http://rm:8088",),
                config_path=Path("f.xml"),
                templates_path=Path("t"),
                cluster="memory-mb=1024,vcores=1",
            ),
            "--history-server",
        ),
    ],
)
def test_a_live_cluster_needs_its_file_templates_and_history_server(settings, message):
    """With RM addresses, missing required settings fail before anything is contacted."""
    with pytest.raises(TempoError, match=message):
        tune(settings)


def test_a_deadlines_file_maps_job_names_to_seconds(tmp_path):
    """`read_deadlines` reads name,deadline_s rows, skipping blank lines."""
    from tempo.loop.deadlines import read_deadlines

    path = tmp_path / "deadlines.csv"
    path.write_text("name,deadline_s\nnightly-etl,3600\n\nhourly, 600.5\n")
    assert read_deadlines(path) == {"nightly-etl": 3600.0, "hourly": 600.5}


@pytest.mark.parametrize(
    "text, where",
    [
        ("job,when\nx,1\n", ":1: expected the header"),
        ("name,deadline_s\nx,soon\n", ":2: expected a job name"),
        ("name,deadline_s\nx,-5\n", ":2: deadline_s: expected seconds >= 0"),
        ("name,deadline_s\nx,5\ny,1\nx,6\n", ":4: job 'x' already has a deadline \\(line 2\\)"),
    ],
)
def test_a_bad_deadlines_file_names_the_line(tmp_path, text, where):
    """A malformed deadlines file is refused with the file, the line and what was expected."""
    from tempo.loop.deadlines import read_deadlines

    path = tmp_path / "deadlines.csv"
    path.write_text(text)
    with pytest.raises(TempoError, match=where):
        read_deadlines(path)


def test_a_live_run_without_cluster_predicts_on_the_rms_running_nodes(tmp_path):
    """Without --cluster a live run reads the RM's node list at its start: each
    RUNNING node at its own size, so a cluster of two node sizes is predicted as one."""
    from contextlib import ExitStack

    from emulated import WEIGHTED, tiny_trace, write

    from tempo.rm.emulator import EmulatedRM

    config = write(tmp_path / "rm-fair-scheduler.xml", WEIGHTED)
    spec = "nodes=2,memory-mb=1024,vcores=1+nodes=1,memory-mb=2048,vcores=2"
    with EmulatedRM(tiny_trace(), config, spec, engine="reference") as rm, ExitStack() as stack:
        tuner = _live_tuner(tmp_path, rm, stack)
    assert tuner.cluster is not None
    assert [(n.memory_mb, n.vcores) for n in tuner.cluster.nodes] == [
        (1024.0, 1.0),
        (1024.0, 1.0),
        (2048.0, 2.0),
    ]


def _live_tuner(tmp_path, rm, stack, cluster=None):
    """The tuner `tempo tune --rm` builds against `rm` (a dry run), with `cluster` as --cluster."""
    from emulated import WEIGHTED, write

    from tempo.loop.wiring import build, live_paths

    config = write(tmp_path / "fair-scheduler.xml", WEIGHTED)
    templates = tmp_path / "t.qs"
    templates.write_text("QUEUE root.engineer OPTIMIZE QS_AJR;\n")
    settings = TuneSettings(
        rm_urls=(rm.url,),
        history_url=rm.url,
        config_path=config,
        templates_path=templates,
        journal_path=tmp_path / "journal.sqlite",
        cluster=cluster,
        dry_run=True,
        engine="reference",
        replicates=1,
    )
    tuner, _ = build(settings, live_paths(settings), stack)
    return tuner


def _count_node_reads(monkeypatch) -> list[int]:
    """Count `RMClient.cluster` calls (each one GET of /ws/v1/cluster/nodes)."""
    from tempo.rm import RMClient

    calls: list[int] = []
    read = RMClient.cluster

    def counted(self):
        calls.append(1)
        return read(self)

    monkeypatch.setattr(RMClient, "cluster", counted)
    return calls


@pytest.mark.parametrize("given", [None, "nodes=4,memory-mb=1024,vcores=1"])
def test_a_live_run_reads_the_rms_nodes_at_each_window_unless_cluster_is_given(
    tmp_path, monkeypatch, given
):
    """Without --cluster the tuner reads the RM's node list once per window: a node the RM
    lost between two windows is predicted without, the window says the nodes changed, and
    each journalled iteration has the SPEC it predicted on. With --cluster nothing is read."""
    from contextlib import ExitStack

    from emulated import WEIGHTED, FakeClock, tiny_trace, write

    from tempo.journal import read_history
    from tempo.rm.emulator import EmulatedRM

    reads = _count_node_reads(monkeypatch)
    clock = FakeClock()
    spec = "nodes=4,memory-mb=1024,vcores=1"
    config = write(tmp_path / "rm-fair-scheduler.xml", WEIGHTED)
    rm = EmulatedRM(tiny_trace(), config, spec, engine="reference", clock=clock, speed=60.0)
    with rm, ExitStack() as stack:
        clock.advance(10.0)  # the tiny trace's jobs have finished
        tuner = _live_tuner(tmp_path, rm, stack, cluster=given)
        started = len(reads)
        first = tuner.step()
        rm.set_nodes("nodes=3,memory-mb=1024,vcores=1")
        clock.advance(1.0)
        second = tuner.step()
        third = tuner.step()
    journalled = [i.cluster for i in read_history(tmp_path / "journal.sqlite")]
    if given is not None:
        assert tuner.nodes is None and reads == []
        assert journalled == [spec] * 3 and second.cluster_change == ""
        return
    assert started == 1 and len(reads) == started + 3  # once at the start, once a window
    assert first.cluster_change == "" and third.cluster_change == ""
    assert second.cluster_change.startswith("4 RUNNING node(s), 4,096 MB")
    assert "-> 3 RUNNING node(s), 3,072 MB" in second.cluster_change
    assert second.decision in ("dry_run", "rejected") and "cannot observe" not in second.reason
    assert journalled == [spec] + ["nodes=3,memory-mb=1024,vcores=1"] * 2
