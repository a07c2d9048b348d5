"""A full disk or a read-only directory under the apply path and the reports.

A full disk is real: the atomic writer's temporary file, and a native trace's Parquet
and CSV tables, are swapped for ``/dev/full``, whose every write fails with ENOSPC from the kernel. A read-only directory is real
(mode 0555) for an ordinary user; root ignores modes, so for root the temporary
file cannot be created (EROFS), as on a read-only mount.
"""

from __future__ import annotations

import errno
import os
import re
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from samples import REPO
from test_loop import XML, FakeCluster, _loop

import whatif.atomic
import whatif.readers.native
from tempo.journal import SQLiteJournal, file_sha256
from tempo.loop import Tuner
from tempo.loop.apply import apply_configuration
from tempo.loop.demo import demo_paths
from tempo.loop.reload import Reload
from tempo.loop.rollback import recover
from tempo.loop.settings import TuneSettings
from whatif.allocation import AllocationDocument
from whatif.atomic import stray_temporaries
from whatif.errors import WhatifError

NEW = AllocationDocument.from_bytes(XML).set("root.engineer", "weight", 2.0)


def _tuner(allocation: Path, journal, applier) -> Tuner:
    """A loop over a fake cluster (QS 100 / weight) that recovers a dangling apply."""
    return _loop(
        allocation,
        FakeCluster(allocation, lambda w: 100.0 / w),
        journal=journal,
        applier=applier,
        recover=recover,
        clock=iter(range(1_700_000_000, 1_800_000_000, 600)).__next__,
    )


class Disk:
    """Switches a full disk (ENOSPC on every write of the atomic writer and of a native
    trace's Parquet and CSV tables) on and off."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        if not os.path.exists("/dev/full"):
            pytest.skip("needs /dev/full")
        self.full = False
        real = os.fdopen

        def fdopen(fd: int, *args, **kwargs):
            if not self.full:
                return real(fd, *args, **kwargs)
            os.close(fd)
            return open("/dev/full", *args, **kwargs)  # noqa: SIM115 (closed by the caller)

        monkeypatch.setattr(whatif.atomic.os, "fdopen", fdopen)
        parquet = whatif.readers.native.pq.ParquetWriter

        def parquet_writer(where, *args, **kwargs):
            return parquet("/dev/full" if self.full else where, *args, **kwargs)

        monkeypatch.setattr(whatif.readers.native.pq, "ParquetWriter", parquet_writer)
        csv = pd.DataFrame.to_csv

        def to_csv(frame, where=None, *args, **kwargs):
            if self.full and isinstance(where, (str, os.PathLike)):
                where = "/dev/full"
            return csv(frame, where, *args, **kwargs)

        monkeypatch.setattr(pd.DataFrame, "to_csv", to_csv)


@pytest.fixture
def disk(monkeypatch):
    return Disk(monkeypatch)


@pytest.fixture
def read_only(monkeypatch):
    """Make a directory read-only: mode 0555, and for root no temporary file can be created."""
    made: list[Path] = []

    def make(directory: Path) -> None:
        directory.chmod(0o555)
        made.append(directory)
        if os.geteuid() == 0:
            real = tempfile.mkstemp

            def mkstemp(*args, dir=None, **kwargs):  # noqa: A002 (tempfile's name)
                if dir is not None and Path(dir) == directory:
                    raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(dir))
                return real(*args, dir=dir, **kwargs)

            monkeypatch.setattr(tempfile, "mkstemp", mkstemp)

    yield make
    for directory in made:
        directory.chmod(0o755)


def _apply(path: Path, journal, it: int, confirm=lambda: True):
    return apply_configuration(
        NEW,
        path,
        journal=journal,
        iteration_id=it,
        reload=Reload.wait(0.0),
        confirm=confirm,
        timeout_s=0.0,
        poll_s=0.0,
        sleep=lambda s: None,
    )


@pytest.fixture
def allocation(tmp_path: Path) -> Path:
    directory = tmp_path / "conf"
    directory.mkdir()
    path = directory / "fair-scheduler.xml"
    path.write_bytes(XML)
    return path


def _untouched(path: Path) -> None:
    assert path.read_bytes() == XML and not stray_temporaries(path)
    assert not Path(f"{path}.1").exists() or Path(f"{path}.1").read_bytes() == XML


@pytest.mark.parametrize("fault", ["full disk", "read-only directory"])
def test_apply_on_a_full_or_read_only_disk_leaves_the_file_and_journals_it(
    allocation, tmp_path, disk, read_only, fault
):
    """The candidate cannot be written: the file in force is untouched, no temporary file is
    left, the apply is journalled as reverted with the OS's reason, nothing is dangling."""
    with SQLiteJournal(tmp_path / "journal.sqlite") as journal:
        it = journal.begin_iteration(
            config_path=str(allocation), config_sha256=file_sha256(allocation)
        )
        if fault == "full disk":
            disk.full = True
        else:
            read_only(allocation.parent)
        outcome = _apply(allocation, journal, it)
        (record,) = journal.applies()
        state = journal.in_force().state
    reason = "No space left on device" if fault == "full disk" else "ead-only file system"
    if fault == "read-only directory" and os.geteuid() != 0:
        reason = "Permission denied"
    assert not outcome.applied and "previous file untouched" in outcome.reason
    assert reason in outcome.reason and outcome.write_error.startswith(f"{allocation}: ")
    assert outcome.reason.count(str(allocation)) == 1  # named once, not again in the OS error
    assert record.outcome == "reverted" and reason in record.detail and state == "restored"
    _untouched(allocation)


def test_the_loop_goes_on_after_a_full_disk_and_finishes_an_apply_it_could_not_restore(
    allocation, tmp_path, disk
):
    """The disk fills between writing a step and restoring the previous file (the RM did
    not confirm): that iteration is rejected, leaving the apply open. Next window, the
    disk still full, the loop says so and waits; once space is back it restores the
    previous file from its backup and tunes again."""

    class Applier:
        confirm = False

        def apply(self, document, *, journal, iteration_id):
            def refuse_and_fill() -> bool:
                disk.full = not self.confirm
                return self.confirm

            return _apply(allocation, journal, iteration_id, confirm=refuse_and_fill)

    applier = Applier()
    with SQLiteJournal(tmp_path / "journal.sqlite") as journal:
        loop = _tuner(allocation, journal, applier)
        first = loop.step()
        assert first.decision == "rejected" and "restoring the previous file failed" in first.reason
        assert journal.in_force().state == "unconfirmed"  # the unconfirmed step is on disk
        second = loop.step()  # still full
        assert second.decision == "rejected" and "could not be finished" in second.reason
        disk.full, applier.confirm = False, True
        third = loop.step()
        assert journal.applies()[0].outcome == "reverted"
        assert third.decision == "accepted" and journal.in_force().state == "applied"
        assert not stray_temporaries(allocation)
        assert [i.decision for i in journal.iterations()] == ["rejected", "rejected", "accepted"]


@pytest.fixture(scope="module")
def analysis():
    """A provisioning analysis of four one-task jobs in one queue, at one scale."""
    import pandas as pd

    from whatif import Cluster, EffectiveAllocation, EffectiveQueue, Workload
    from whatif.metrics import Metric
    from whatif.provisioning import analyze_provisioning

    jobs = pd.DataFrame({"job_id": list("abcd"), "queue": "root.a", "submit_s": [0.0, 5, 10, 15]})
    tasks = jobs[["job_id"]].assign(
        task_id=lambda t: t["job_id"] + "1",
        stage="map",
        duration_s=20.0,
        memory_mb=1024.0,
        vcores=1.0,
    )
    allocation = EffectiveAllocation(
        root=EffectiveQueue("root", children=(EffectiveQueue("root.a"),))
    )
    return analyze_provisioning(
        Workload(jobs=jobs, tasks=tasks),
        allocation,
        Cluster.parse("nodes=2,memory-mb=2048,vcores=2"),
        [("root.a", Metric("QS_AJR"), 60.0)],
        scales=(1.0,),
        engine="reference",
    )


@pytest.mark.parametrize("fault", ["full disk", "read-only directory"])
def test_a_report_on_a_full_or_read_only_disk_keeps_the_previous_one_whole(
    analysis, tmp_path, disk, read_only, fault
):
    """Writing report.json/report.html fails with one WhatifError naming the file and the
    reason; the previous report stays, both files, byte for byte; no temporary file."""
    from whatif.report import write_report

    directory = tmp_path / "report"
    files = write_report(analysis, directory)
    before = {p.name: p.read_bytes() for p in (files.json, files.html)}
    if fault == "full disk":
        disk.full = True
    else:
        read_only(directory)
    with pytest.raises(WhatifError, match=r"report\.(json|html): cannot write the report: "):
        write_report(analysis, directory, inputs={"trace": "another"})
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before


# -- the journal, the atomic writer's error, and the commands -----------------------------


def test_write_atomic_on_a_full_disk_names_the_target(allocation, disk):
    """ENOSPC from a write names no file; the error re-raised names the file being written
    (same class and errno), so every command's one-line error says which file."""
    disk.full = True
    with pytest.raises(OSError) as caught:
        whatif.atomic.write_atomic(allocation, b"<allocations/>")
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(allocation)
    _untouched(allocation)


def test_a_full_journal_is_a_journal_error_naming_it_and_keeps_what_was_recorded(tmp_path):
    """A real SQLite 'database or disk is full' (the file may not grow) is a JournalError
    naming the journal; every iteration committed before is still there."""
    from tempo.errors import JournalError

    path = tmp_path / "journal.sqlite"
    sha = file_sha256(Path(__file__))
    with SQLiteJournal(path) as journal:
        first = journal.begin_iteration(config_path="/etc/fs.xml", config_sha256=sha)
        pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
        journal._db.execute(f"PRAGMA max_page_count={pages}")
        big = {f"root.q{i}:QS_AJR": float(i) for i in range(400)}
        with pytest.raises(
            JournalError,
            match=r"journal\.sqlite: cannot write the journal "
            r"\(database or disk is full\)",
        ):
            for _ in range(50):
                journal.begin_iteration(
                    config_path="/etc/fs.xml", config_sha256=sha, observed_qs=big
                )
        recorded = [i.id for i in journal.iterations()]
    with SQLiteJournal(path, readonly=True) as journal:
        assert [i.id for i in journal.iterations()] == recorded and recorded[0] == first


class FillingConnection:
    """An sqlite3 connection whose writes fail as on a full disk once `full` is set."""

    def __init__(self, db) -> None:
        self._db, self.full = db, False

    def execute(self, sql: str, *args):
        import sqlite3

        if self.full and sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
            raise sqlite3.OperationalError("database or disk is full")
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self._db, name)


def test_the_journal_filling_before_an_apply_stops_the_loop_with_the_file_untouched(
    allocation, tmp_path
):
    """The journal cannot record the intent to write: nothing is written (no temporary
    file, the file in force byte for byte), the loop stops with a JournalError naming the
    journal, and once space is back a restarted loop finds every iteration (the one cut
    short closed as rejected) and goes on."""
    from tempo.errors import JournalError

    class Applier:
        def __init__(self, fill: bool) -> None:
            self.fill = fill

        def apply(self, document, *, journal, iteration_id):
            if self.fill:
                journal._db.full = True  # the disk fills just before the intent
            return _apply(allocation, journal, iteration_id)

    path = tmp_path / "journal.sqlite"

    def loop(journal, applier):
        return _tuner(allocation, journal, applier)

    with SQLiteJournal(path) as journal:
        journal._db = FillingConnection(journal._db)
        with pytest.raises(JournalError, match=r"journal\.sqlite: cannot write the journal"):
            loop(journal, Applier(fill=True)).step()
    _untouched(allocation)
    with SQLiteJournal(path) as journal:  # space is back
        tuner = loop(journal, Applier(fill=False))
        tuner.resume()
        report = tuner.step()
        items = journal.iterations()
    assert [i.id for i in items] == [1, 2] and items[0].decision == "rejected"
    assert "interrupted" in items[0].reason and report.decision == "accepted"


# -- the commands: one line naming the path, exit status 2, the old file whole ---------


def _cli(*args: str):
    from click.testing import CliRunner

    from tempo.cli import cli

    return CliRunner().invoke(cli, list(args))


def _late(path: object, option: str, *, directory: bool = False) -> str:
    """The line a command prints when writing `option`'s `path` hits a full disk."""
    expects = (
        "a writable directory, created if missing"
        if directory
        else "a file in an existing, writable directory"
    )
    return (
        f"Error: {path}: cannot be written ({option} expects {expects}): No space left on "
        "device; the previous output, if any, is left as it was\n"
    )


def test_optimize_on_a_full_disk_names_the_output_and_keeps_the_old_one(tmp_path, disk):
    """`tempo optimize -o FILE --force` cannot write FILE: exit 2, one line naming FILE,
    -o and what it expects, and the reason, FILE as it was, no temporary file."""
    out = tmp_path / "new.xml"
    out.write_bytes(XML)
    disk.full = True
    result = _cli(
        "optimize", "--trace", str(REPO / "traces" / "two-tenant"),
        "--config", str(REPO / "configs" / "two-tenant-expert.xml"),
        "--templates", str(REPO / "templates" / "two-tenant"),
        "--cluster", "nodes=20,memory-mb=8192,vcores=8", "--window", "45min",
        "--iterations", "1", "--batch-size", "2", "--executor", "serial",
        "--engine", "reference", "--min-gain", "0", "-o", str(out), "--force", "-q",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert _late(out, "-o") in result.stderr
    assert "Traceback" not in result.output
    assert out.read_bytes() == XML and not stray_temporaries(out)


def test_whatif_into_a_read_only_directory_names_the_report_and_keeps_it(tmp_path, read_only):
    """`tempo whatif -o DIR --force` where DIR is read-only: exit 2, one line naming the
    report file, -o and what it expects, and the reason, the previous report byte for
    byte, no temporary file."""
    report = tmp_path / "report"
    args = [
        "whatif", "--trace", str(REPO / "traces" / "two-tenant"),
        "--config", str(REPO / "configs" / "two-tenant-expert.xml"),
        "--templates", str(REPO / "templates" / "two-tenant"),
        "--executor", "serial", "--no-progress", "--cluster-scale", "1",
        "--tolerance", "0.5", "-o", str(report), "--force", "-q",
    ]  # fmt: skip
    assert _cli(*args).exit_code in (0, 1)
    before = {p.name: p.read_bytes() for p in report.iterdir()}
    read_only(report)
    result = _cli(*args)
    assert result.exit_code == 2, result.output
    assert re.search(
        rf"Error: {re.escape(str(report))}/report\.(json|html): cannot be written \(-o expects "
        r"a writable directory, created if missing\): (Permission denied|Read-only file system)"
        r"; the previous output, if any, is left as it was$",
        result.stderr,
    ), result.stderr
    assert {p.name: p.read_bytes() for p in report.iterdir()} == before


def test_whatif_on_a_full_disk_names_o_and_leaves_no_directory(tmp_path, disk):
    """`tempo whatif -o NEW/DIR` whose disk fills up during the run (after the early check
    passed): exit 2, one line naming the report file, -o and what it expects, and the
    reason; neither NEW nor DIR is left behind, empty."""
    report = tmp_path / "new" / "report"
    args = [
        "whatif", "--trace", str(REPO / "traces" / "two-tenant"),
        "--config", str(REPO / "configs" / "two-tenant-expert.xml"),
        "--templates", str(REPO / "templates" / "two-tenant"),
        "--executor", "serial", "--no-progress", "--cluster-scale", "1",
        "--tolerance", "0.5", "-o", str(report), "-q",
    ]  # fmt: skip
    disk.full = True
    result = _cli(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr == _late(f"{report}/report.html", "-o", directory=True)
    assert list(tmp_path.iterdir()) == []


def test_history_report_on_a_full_disk_names_the_option(tmp_path, disk):
    """`tempo history --report NEW` on a full disk: exit 2 naming the report file,
    --report and what it expects, and the reason; no NEW directory is left behind."""
    journal = tmp_path / "j.sqlite"
    with SQLiteJournal(journal) as writer:
        it = writer.begin_iteration(config_path="a.xml", config_sha256="ab" * 32)
        writer.finish_iteration(it, decision="accepted", reason="better")
    report = tmp_path / "new"
    disk.full = True
    result = _cli("history", "--journal", str(journal), "--report", str(report))
    assert result.exit_code == 2, result.output
    assert result.stderr == _late(f"{report}/report.html", "--report", directory=True)
    assert not report.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["config", "set", str(REPO / "configs" / "two-tenant-expert.xml")],
        ["config", "set", str(REPO / "configs" / "two-tenant-capacity.xml")],
        ["config", "convert", str(REPO / "configs" / "two-tenant-expert.xml")],
        ["config", "convert", str(REPO / "configs" / "two-tenant-capacity.xml")],
        ["workload", "fit", str(REPO / "traces" / "two-tenant")],
    ],
    ids=["set", "set capacity", "convert", "convert capacity", "workload fit"],
)
def test_a_file_output_on_a_full_disk_names_o(tmp_path, disk, args):
    """A command writing one file (-o) on a full disk: exit 2, one line naming the file,
    -o and what it expects, and the reason; no file and no temporary file is left."""
    out = tmp_path / "out.xml"
    disk.full = True
    result = _cli(*args, "-o", str(out), "-q")
    assert result.exit_code == 2, result.output
    assert result.stderr == _late(out, "-o")
    assert list(tmp_path.iterdir()) == []


def _native_output(command: str, tmp_path: Path) -> tuple[list[str], str]:
    """`command`'s arguments up to its native trace output, and that output's option."""
    if command.startswith("trace convert"):
        args = ["trace", "convert", str(REPO / "traces" / "hadoop" / "sls")]
        return [*args, "--to", "native-csv"] if command.endswith("csv") else args, "TARGET"
    if command == "predict":
        config = str(REPO / "configs" / "two-tenant-expert.xml")
        args = ["predict", "--trace", str(REPO / "traces" / "two-tenant"), "--config", config]
        return [*args, "--cluster", "nodes=20,memory-mb=8192,vcores=8", "-o"], "-o"
    model = tmp_path / "model.json"
    fit = _cli("workload", "fit", str(REPO / "traces" / "two-tenant"), "-o", str(model), "-q")
    assert fit.exit_code == 0, fit.output
    return ["workload", "generate", str(model), "--hours", "1", "-o"], "-o"


@pytest.mark.parametrize("previous", [False, True], ids=["new", "previous"])
@pytest.mark.parametrize(
    "command", ["trace convert", "trace convert to csv", "workload generate", "predict"]
)
def test_a_native_trace_output_on_a_full_disk_names_its_option(tmp_path, disk, command, previous):
    """A command writing a native trace on a full disk (pyarrow's 'Error writing bytes')
    says what `_late` says: the directory, the option and what it expects, the OS's
    reason; the previous trace (--force) is left byte for byte, and nothing else: no
    temporary directory, no parent the write made."""
    args, option = _native_output(command, tmp_path)
    target = tmp_path / "out" / "trace"
    if previous:
        assert _cli(*args, str(target), "-q").exit_code == 0
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    disk.full = True
    result = _cli(*args, str(target), "--force", "-q")
    assert result.exit_code == 2, result.output
    assert result.stderr == _late(target, option, directory=True)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    left = {p.name for p in tmp_path.iterdir()} - {"model.json"}
    assert left == ({"out"} if previous else set())
    assert not previous or list(target.parent.iterdir()) == [target]  # no .trace.tmp-*


def test_predict_jobruntime_on_a_full_disk_names_the_option(tmp_path, disk):
    """`tempo predict --jobruntime FILE` on a full disk: the -o files' line, naming
    --jobruntime; no file and no temporary file is left."""
    args, _ = _native_output("predict", tmp_path)
    out = tmp_path / "jobruntime.csv"
    disk.full = True
    result = _cli(*args[:-1], "--jobruntime", str(out), "-q")
    assert result.exit_code == 2, result.output
    assert result.stderr == _late(out, "--jobruntime")
    assert list(tmp_path.iterdir()) == []


def test_tune_with_a_full_journal_stops_with_its_path_and_the_file_untouched(tmp_path, monkeypatch):
    """`tempo tune` whose journal cannot grow: exit 2, one line naming the journal and
    the reason, the allocation file it tunes unchanged, no temporary file beside it."""
    import sqlite3

    import tempo.journal.sqlite as journal_module

    real = sqlite3.connect

    def connect(*args, **kwargs):
        db = FillingConnection(real(*args, **kwargs))
        db.full = True
        return db

    work = tmp_path / "demo"
    monkeypatch.setattr(journal_module.sqlite3, "connect", connect)
    result = _cli("tune", "--max-iterations", "1", "--work-dir", str(work), "--engine", "numba")
    journal = work / "tempo-journal.sqlite"
    assert result.exit_code == 2, result.output
    assert f"Error: {journal}: cannot write the journal (database or disk is full)" in (
        result.stderr
    )
    config = work / "fair-scheduler.xml"
    assert config.read_bytes() == (REPO / "configs" / "contended-expert.xml").read_bytes()
    assert not stray_temporaries(config)


def test_tune_that_cannot_write_its_step_exits_2_naming_the_file(tmp_path, disk):
    """`tempo tune --once`-style run whose step hits a full disk: the iteration is
    rejected with the reason, stderr names the file and what to do, exit 2 (a cron job
    can tell), the file in force unchanged and no temporary file beside it."""
    work = tmp_path / "demo"
    demo_paths(TuneSettings(work_dir=work))  # the work directory, set up before the disk fills
    disk.full = True
    result = _cli("tune", "--max-iterations", "1", "--work-dir", str(work), "--engine", "numba")
    config = work / "fair-scheduler.xml"
    assert result.exit_code == 2, result.output
    assert f"error: {config}: No space left on device: the step could not be written" in (
        result.stderr
    )
    assert "not applied: writing" in result.stdout and "previous file untouched" in result.stdout
    assert config.read_bytes() == (REPO / "configs" / "contended-expert.xml").read_bytes()
    assert not stray_temporaries(config)
