"""One tuner per allocation file and journal: `TuneLock` and `tune`'s use of it."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tempo.cli import cli
from tempo.loop.lock import LockedError, TuneLock, lock_path, process_start_ticks
from tempo.loop.settings import TuneSettings
from tempo.loop.wiring import tune

HOST = socket.gethostname()
HOLD = (
    "import sys\n"
    "from tempo.loop.lock import TuneLock\n"
    "locks = [TuneLock(p).acquire() for p in sys.argv[1:]]\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"
)


@pytest.fixture
def holder():
    """Start a process holding the locks of the given paths; yield it; end it."""
    started: list[subprocess.Popen] = []

    def hold(*paths: Path) -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, "-c", HOLD, *map(str, paths)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        assert process.stdout.readline().strip() == "held"
        return process

    yield hold
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def _write_holder(path: Path, **fields) -> None:
    holder = {"pid": 1, "host": HOST, "start_ticks": None, "since": "", "command": "tempo tune"}
    lock_path(path).write_text(json.dumps({**holder, **fields}))


def test_a_second_lock_is_refused_naming_the_holder(tmp_path, holder):
    """While another process holds the lock, acquiring it fails naming its pid and host."""
    target = tmp_path / "fair-scheduler.xml"
    process = holder(target)
    with pytest.raises(LockedError, match=rf"is being tuned by pid {process.pid} on host {HOST}"):
        TuneLock(target).acquire()


def test_a_file_reached_through_a_symbolic_link_takes_the_same_lock(tmp_path, holder):
    """Writes go through a link to the file it names, so the lock does too: a second run
    given the link is refused while the first holds the file."""
    target = tmp_path / "fair-scheduler.xml"
    target.write_text("<allocations/>")
    link = tmp_path / "link.xml"
    link.symlink_to(target)
    holder(target)
    assert lock_path(link) == lock_path(target)
    with pytest.raises(LockedError):
        TuneLock(link).acquire()


def test_a_lock_left_by_a_killed_tuner_is_stale_and_taken_over(tmp_path, holder, caplog):
    """SIGKILL leaves the lock file but frees the lock: the next tuner takes it with a warning."""
    target = tmp_path / "fair-scheduler.xml"
    process = holder(target)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert lock_path(target).exists()
    with caplog.at_level(logging.WARNING, logger="tempo.loop.lock"), TuneLock(target) as lock:
        assert lock.held
    assert f"stale lock of pid {process.pid}" in caplog.text
    assert not lock_path(target).exists()


def test_a_clean_release_removes_the_lock_file(tmp_path):
    """The lock file exists, naming this process, only while the lock is held."""
    target = tmp_path / "journal.sqlite"
    with TuneLock(target):
        recorded = json.loads(lock_path(target).read_text())
        assert (recorded["pid"], recorded["host"]) == (os.getpid(), HOST)
    assert not lock_path(target).exists()
    with TuneLock(target):  # and it can be taken again
        pass


def test_a_dead_pid_on_this_host_is_stale(tmp_path, caplog):
    """A lock file naming a process of this host that has exited is taken over."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    target = tmp_path / "f.xml"
    _write_holder(target, pid=gone.pid)
    with caplog.at_level(logging.WARNING, logger="tempo.loop.lock"), TuneLock(target):
        pass
    assert f"stale lock of pid {gone.pid}" in caplog.text


def test_a_pid_reused_by_another_program_is_stale(tmp_path, caplog):
    """A live pid whose start time differs from the one recorded is another program: stale."""
    target = tmp_path / "f.xml"
    ticks = process_start_ticks(os.getppid())
    if ticks is None:
        pytest.skip("no /proc start times here")
    _write_holder(target, pid=os.getppid(), start_ticks=ticks + 1)
    with caplog.at_level(logging.WARNING, logger="tempo.loop.lock"), TuneLock(target):
        pass
    assert "stale lock" in caplog.text


def test_a_running_holder_is_refused_even_where_flock_is_not_enforced(tmp_path):
    """A lock file naming a running process (same pid and start time) is refused, even if
    the flock was free (file systems that do not enforce it)."""
    target = tmp_path / "f.xml"
    _write_holder(target, pid=os.getppid(), start_ticks=process_start_ticks(os.getppid()))
    with pytest.raises(LockedError, match=rf"is being tuned by pid {os.getppid()} on host"):
        TuneLock(target).acquire()


def test_a_holder_on_another_host_is_refused_with_what_to_do(tmp_path):
    """A holder on another host cannot be checked: refused, naming it and the lock file."""
    target = tmp_path / "f.xml"
    _write_holder(target, pid=4242, host="rm-gateway-2")
    with pytest.raises(LockedError, match="pid 4242 on host rm-gateway-2") as error:
        TuneLock(target).acquire()
    assert f"remove {lock_path(target)}" in str(error.value)


def _live(tmp_path: Path, **overrides) -> TuneSettings:
    config = tmp_path / "fair-scheduler.xml"
    config.write_bytes(b'<allocations><queue name="default"/></allocations>\n')
    templates = tmp_path / "t.qs"
    templates.write_text("QUEUE root.default OPTIMIZE QS_AJR;\n")
    settings = dict(
        rm_urls=("http://127.0.0.1:9",),
        history_url="http://127.0.0.1:9",
        config_path=config,
        templates_path=templates,
        cluster="memory-mb=1024,vcores=1",
        journal_path=tmp_path / "journal.sqlite",
        max_iterations=1,
    )
    return TuneSettings(**{**settings, **overrides})


@pytest.mark.parametrize("locked", ["config_path", "journal_path"])
def test_tune_refuses_a_file_or_journal_another_tuner_holds(tmp_path, holder, locked):
    """A second `tune` of the same allocation file, or with the same journal, fails before
    touching anything, naming the first tuner; the journal is not even created."""
    settings = _live(tmp_path)
    process = holder(getattr(settings, locked))
    with pytest.raises(LockedError, match=f"pid {process.pid} on host {HOST}"):
        tune(settings)
    assert not settings.journal_path.exists()


def test_the_cli_says_who_holds_the_lock(tmp_path, holder):
    """`tempo tune` on a locked file exits non-zero with one line naming the holder."""
    settings = _live(tmp_path)
    process = holder(settings.config_path)
    args = ["tune", "--rm", settings.rm_urls[0], "--history-server", settings.history_url]
    args += ["--config", str(settings.config_path), "--templates", str(settings.templates_path)]
    args += ["--cluster", settings.cluster, "--journal", str(settings.journal_path), "--once"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code not in (0, 3) and "Traceback" not in result.output
    assert f"is being tuned by pid {process.pid} on host {HOST}" in result.output


def test_a_dry_run_locks_only_its_journal(tmp_path, holder, monkeypatch):
    """A dry run never writes the allocation file, so a tuner holding it does not stop it."""
    import tempo.loop.wiring

    quick = tempo.loop.wiring.TransportOptions(connect_timeout_s=0.2, read_timeout_s=0.2)
    monkeypatch.setattr(tempo.loop.wiring, "TransportOptions", lambda **_: _one_try(quick))
    settings = _live(tmp_path, dry_run=True)
    holder(settings.config_path)
    run = tune(settings)
    assert run.rm_error and "127.0.0.1:9" in run.rm_error


def _one_try(options):
    from dataclasses import replace

    from tempo.rm import RetryPolicy

    return replace(options, retry=RetryPolicy(max_attempts=1))
