"""Applying an allocation file safely: journal, atomic write, reload, confirmation, rollback, recovery."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from emulated import CLUSTER, EQUAL, INVALID, WEIGHTED, tiny_trace, write
from samples import REPO

from tempo.journal import MemoryJournal, SQLiteJournal, file_sha256
from tempo.loop.apply import ApplyError, ApplyOutcome, apply_configuration
from tempo.loop.reload import Reload
from tempo.loop.rollback import recover
from tempo.rm import HTTPTransport, RMClient
from tempo.rm.confirm import scheduler_mismatches
from tempo.rm.emulator import EmulatedRM
from tempo.rm.scheduler import QueueState, SchedulerState
from whatif.allocation import AllocationDocument, Resources, effective_allocation, validate
from whatif.predictor import SchedulerSettings

#: A command that succeeds at once (the RM "reloaded").
OK = Reload.run([sys.executable, "-c", "pass"])


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = write(tmp_path / "fair-scheduler.xml", WEIGHTED)
    os.chmod(path, 0o640)
    return path


def begin(journal, path: Path) -> int:
    return journal.begin_iteration(config_path=str(path), config_sha256=file_sha256(path))


@pytest.fixture
def journal() -> MemoryJournal:
    return MemoryJournal()


@pytest.fixture
def apply(config: Path, journal: MemoryJournal) -> Callable[..., ApplyOutcome]:
    """Apply candidate bytes to `config` in a new iteration of `journal`; the reload
    succeeds and the RM confirms at once unless `options` say otherwise."""

    def run(candidate: bytes, **options: Any) -> ApplyOutcome:
        return apply_configuration(
            AllocationDocument.from_bytes(candidate),
            config,
            journal=journal,
            iteration_id=begin(journal, config),
            **{"reload": OK, "confirm": lambda: True, **options},
        )

    return run


def backups(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.parent.glob(path.name + ".*"))}


def test_invalid_candidate_is_never_written(apply, config: Path, journal: MemoryJournal) -> None:
    """A candidate with validation errors is refused: file, backups and journal untouched."""
    outcome = apply(INVALID)
    assert not outcome.applied and "not written" in outcome.reason and "pro.d" in outcome.reason
    assert config.read_bytes() == WEIGHTED
    assert backups(config) == {}
    assert journal.applies() == []


def test_unchanged_candidate_is_not_written(apply, config: Path, journal: MemoryJournal) -> None:
    """The file already in force is not rewritten."""
    outcome = apply(WEIGHTED)
    assert not outcome.applied and "already in force" in outcome.reason
    assert journal.applies() == []


def test_confirmed_apply_keeps_a_backup_and_permissions(
    apply, config: Path, journal: MemoryJournal
) -> None:
    """A confirmed apply writes the file, backs up the old one as FILE.1, journals 'confirmed'."""
    outcome = apply(EQUAL)
    assert (outcome.applied, outcome.confirmed, outcome.reverted) == (True, True, False)
    assert config.read_bytes() == EQUAL and outcome.sha256 == sha(EQUAL)
    assert outcome.backup_path == config.with_name(config.name + ".1")
    assert outcome.backup_path.read_bytes() == WEIGHTED
    assert os.stat(config).st_mode & 0o777 == 0o640
    assert journal.in_force().state == "applied"


def test_confirmation_failure_restores_the_previous_file(
    apply, config: Path, journal: MemoryJournal, fake_time
) -> None:
    """When confirmation times out, the previous file is restored and the apply journalled 'reverted'."""
    outcome = apply(
        EQUAL, confirm=lambda: False, timeout_s=30.0, sleep=fake_time.sleep, clock=fake_time.clock
    )
    assert (outcome.applied, outcome.confirmed, outcome.reverted) == (True, False, True)
    assert "not confirmed within 30 s" in outcome.reason and "restored" in outcome.reason
    assert config.read_bytes() == WEIGHTED
    assert backups(config) == {config.name + ".1": WEIGHTED}
    assert journal.in_force().state == "restored"


def test_failing_reload_command_restores(apply, config: Path) -> None:
    """A reload command that exits non-zero counts as a failure: the previous file comes back."""
    outcome = apply(
        EQUAL, reload=Reload.run([sys.executable, "-c", "import sys; sys.exit('no RM')"])
    )
    assert outcome.reverted and "exited with status 1: no RM" in outcome.reason
    assert config.read_bytes() == WEIGHTED


def test_missing_reload_command_restores(apply) -> None:
    """A reload command that does not exist is reported by name, and the file is restored."""
    outcome = apply(EQUAL, reload=Reload.run("no-such-yarn-binary rmadmin -refreshQueues"))
    assert outcome.reverted and "'no-such-yarn-binary' not found" in outcome.reason


def test_invalid_file_in_force_is_not_replaced(tmp_path: Path) -> None:
    """tempo refuses to replace a file it could not restore."""
    path = write(tmp_path / "fair-scheduler.xml", INVALID)
    journal = MemoryJournal()
    with pytest.raises(ApplyError, match="not valid"):
        apply_configuration(
            AllocationDocument.from_bytes(EQUAL),
            path,
            journal=journal,
            iteration_id=begin(journal, path),
            reload=OK,
            confirm=lambda: True,
        )
    assert path.read_bytes() == INVALID


def test_reload_values() -> None:
    """A Reload is an argument vector (a string is split, never given to a shell) or a wait."""
    assert Reload().command == ("yarn", "rmadmin", "-refreshQueues")
    assert Reload.run("tempo emulate-rm refresh --rm 'http://h:1'").command == (
        "tempo",
        "emulate-rm",
        "refresh",
        "--rm",
        "http://h:1",
    )
    assert Reload.wait(12).command is None and Reload.wait(12).wait_s == 12
    with pytest.raises(ApplyError, match="sequence of strings"):
        Reload(command="yarn rmadmin -refreshQueues")


@pytest.fixture
def emulator(config: Path):
    with EmulatedRM(tiny_trace(), config, CLUSTER, speed=600.0, engine="reference") as rm:
        yield rm


def test_apply_is_confirmed_by_the_emulated_rm(emulator: EmulatedRM, apply) -> None:
    """Against the emulated RM, the new steady shares show up after its own reload and confirm the apply."""
    client = RMClient(HTTPTransport(emulator.url))
    outcome = apply(EQUAL, reload=Reload.wait(0.0), confirm=client, timeout_s=3.0, poll_s=0.02)
    assert outcome.confirmed, outcome.reason
    assert emulator.allocation_sha256 == sha(EQUAL)
    assert client.scheduler().queue("root.prod").steady_fair_resources.memory_mb == 2048


def test_apply_through_the_refresh_command(emulator: EmulatedRM, apply) -> None:
    """`tempo emulate-rm refresh --rm URL` works as the reload command."""
    command = [sys.executable, "-c", "from tempo.cli import main; main()"]
    outcome = apply(
        EQUAL,
        reload=Reload.run([*command, "emulate-rm", "refresh", "--rm", emulator.url]),
        confirm=RMClient(HTTPTransport(emulator.url)),
        timeout_s=0.0,
    )
    assert outcome.confirmed, outcome.reason


def test_rm_that_does_not_reload_fails_confirmation(apply, config: Path) -> None:
    """An RM still showing the old shares fails confirmation; the previous file is restored."""
    with EmulatedRM(
        tiny_trace(), config, CLUSTER, speed=1.0, reload_interval_s=1e6, engine="reference"
    ) as rm:
        outcome = apply(EQUAL, confirm=RMClient(HTTPTransport(rm.url)), timeout_s=0.1, poll_s=0.05)
    assert outcome.reverted and "steadyFairResources" in outcome.reason
    assert config.read_bytes() == WEIGHTED


def test_scheduler_mismatches_name_the_queue(emulator: EmulatedRM) -> None:
    """The confirmation check says which queue and setting differ."""
    state = RMClient(HTTPTransport(emulator.url)).scheduler()
    assert (
        scheduler_mismatches(state, effective_allocation(AllocationDocument.from_bytes(WEIGHTED)))
        == []
    )
    problems = scheduler_mismatches(
        state, effective_allocation(AllocationDocument.from_bytes(EQUAL))
    )
    assert any(p.startswith("root.prod: steadyFairResources") for p in problems)
    assert "root.engineer: maxApps is 2147483647, expected 7" in problems


#: root.users caps the queues a placement rule creates under it.
USERS = (
    b'<?xml version="1.0"?>\n<allocations>\n'
    b'  <queue name="users" type="parent">'
    b"<maxChildResources>2048 mb, 2 vcores</maxChildResources></queue>\n"
    b"</allocations>\n"
)


def test_a_queue_created_under_max_child_resources_is_expected_at_its_cap() -> None:
    """An RM whose placement rule made root.users.alice reports its maxResources as
    users' maxChildResources (QueueManager.setChildResourceLimits): that confirms the
    file; a cap the RM does not show is named."""
    alice = QueueState("root.users.alice", max_resources=Resources(2048, 2))
    users = QueueState("root.users", children=(alice,))
    state = SchedulerState(root=QueueState("root", children=(users,)))
    cluster = Resources(8192, 8)
    allocation = effective_allocation(AllocationDocument.from_bytes(USERS))
    assert scheduler_mismatches(state, allocation, cluster=cluster) == []
    uncapped = replace(alice, max_resources=cluster)
    state = SchedulerState(
        root=QueueState("root", children=(replace(users, children=(uncapped,)),))
    )
    assert scheduler_mismatches(state, allocation, cluster=cluster) == [
        "root.users.alice: maxResources is <memory:8192, vCores:8>, expected "
        "<memory:2048, vCores:2> under the new allocation"
    ]


#: prod's maxResources (1024 MB) below its minResources (2048 MB).
MAX_BELOW_MIN = (
    b'<?xml version="1.0"?>\n<allocations>\n'
    b'  <queue name="prod"><minResources>2048 mb, 2 vcores</minResources>'
    b"<maxResources>1024 mb, 4 vcores</maxResources></queue>\n"
    b'  <queue name="engineer"><weight>1</weight></queue>\n'
    b"</allocations>\n"
)


@pytest.mark.parametrize("hadoop_version", [2, 3])
def test_confirmation_expects_the_maximum_the_rms_version_enforces(tmp_path, hadoop_version):
    """A Hadoop 3 RM reports prod's maximum raised to its minimum (2048 MB,
    FSQueue.getMaxShare) and shares computed under it; a Hadoop 2 RM the written 1024 MB.
    Each confirms against its own version and not against the other's."""
    config = write(tmp_path / "fair-scheduler.xml", MAX_BELOW_MIN)
    effective = effective_allocation(
        AllocationDocument.from_bytes(MAX_BELOW_MIN), hadoop_version=hadoop_version
    )
    with EmulatedRM(
        tiny_trace(),
        config,
        CLUSTER,
        speed=600.0,
        engine="reference",
        hadoop_version=hadoop_version,
        settings=SchedulerSettings(hadoop_version=hadoop_version),
    ) as rm:
        state = RMClient(HTTPTransport(rm.url)).scheduler()
    assert state.queues["root.prod"].max_resources.memory_mb == 1024 * (hadoop_version - 1)
    assert scheduler_mismatches(state, effective, hadoop_version=hadoop_version) == []
    other = scheduler_mismatches(state, effective, hadoop_version=5 - hadoop_version)
    assert any(p.startswith("root.prod: maxResources") for p in other), other


CHILD = textwrap.dedent(
    """
    import sys
    from tempo.loop.apply import apply_configuration
    from tempo.loop.reload import Reload
    from tempo.journal import SQLiteJournal, file_sha256
    from whatif.allocation import AllocationDocument

    path, journal_path, candidate, marker = sys.argv[1:5]
    journal = SQLiteJournal(journal_path)
    iteration = journal.begin_iteration(config_path=path, config_sha256=file_sha256(path))
    hang = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
    apply_configuration(
        AllocationDocument.from_file(candidate),
        path,
        journal=journal,
        iteration_id=iteration,
        reload=Reload.run([sys.executable, "-c", hang, marker], timeout_s=120),
        confirm=lambda: True,
    )
    """
)


def test_kill_between_write_and_confirm_then_recover(tmp_path: Path, config: Path) -> None:
    """A process killed while reloading leaves a valid file, a consistent journal and every backup; recover undoes it."""
    older = b"<allocations>\n  <queue name='prod'/>\n</allocations>\n"
    write(config.with_name(config.name + ".1"), older)
    before = backups(config)
    candidate = write(tmp_path / "candidate.xml", EQUAL)
    journal_path, marker = tmp_path / "journal.sqlite", tmp_path / "reloading.pid"
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(config), str(journal_path), str(candidate), str(marker)],
        env=env,
    )
    try:
        deadline = time.monotonic() + 60.0
        while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
            assert child.poll() is None, "the apply process ended before reloading"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if marker.exists() and marker.read_text():
            os.kill(int(marker.read_text()), signal.SIGKILL)
        if child.poll() is None:
            child.kill()

    assert not any(e.severity == "error" for e in validate(config))
    with SQLiteJournal(journal_path) as journal:
        state = journal.in_force()
        assert state.state == "unconfirmed" and state.sha256 == file_sha256(config) == sha(EQUAL)
        after = backups(config)
        assert after[config.name + ".1"] == WEIGHTED and after[config.name + ".2"] == older
        assert set(before.values()) <= set(after.values())

        recovery = recover(journal, config, reload=OK)
        assert recovery.action == "undone"
        assert config.read_bytes() == WEIGHTED
        assert journal.in_force().state == "restored"
        assert backups(config) == after
        assert recover(journal, config).action == "none"


def test_recover_finishes_an_apply_interrupted_before_writing(config: Path) -> None:
    """An intent with the previous file still on disk is closed as 'reverted' without touching the file."""
    journal = MemoryJournal()
    it = begin(journal, config)
    journal.record_intent(
        it, path=str(config), sha256=sha(EQUAL), previous_sha256=sha(WEIGHTED), backup_path=None
    )
    assert journal.in_force().state == "not_written"
    recovery = recover(journal, config)
    assert recovery.action == "finished" and recovery.in_force.state == "restored"
    assert config.read_bytes() == WEIGHTED


def test_recover_refuses_a_file_changed_by_someone_else(config: Path) -> None:
    """A dangling apply whose file is neither the old nor the new one is left for an operator."""
    journal = MemoryJournal()
    it = begin(journal, config)
    journal.record_intent(
        it, path=str(config), sha256=sha(EQUAL), previous_sha256=sha(b"x"), backup_path=None
    )
    with pytest.raises(ApplyError, match="will not touch it"):
        recover(journal, config)
    assert config.read_bytes() == WEIGHTED
