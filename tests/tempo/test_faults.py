"""The loop under injected RM faults: 5xx, garbage, HTML, stalls, resets and an HA flip.

The loop runs as `tempo tune` wires it (RM client, RM clock, apply with confirmation
through the scheduler endpoint) against the emulated RM behind `FaultyRM` proxies.
Whatever the RM does, the allocation file is only ever the previous or the new
valid version, every iteration is journalled, and no exception escapes the loop.
"""

from __future__ import annotations

import pytest
from emulated import CLUSTER, WEIGHTED, tiny_trace, write
from rm.faulty_rm import FaultyRM
from test_loop import LABEL, TEMPLATES, DoublingStepper

from tempo.journal import SQLiteJournal, file_sha256
from tempo.loop import Tuner
from tempo.loop.apply import apply_configuration
from tempo.loop.demo import PausedClock
from tempo.loop.observe import RMObserver
from tempo.loop.reload import Reload
from tempo.loop.rollback import recover
from tempo.rm import (
    HTTPTransport,
    JobHistoryClient,
    RetryPolicy,
    RMClient,
    RMClock,
    TransportOptions,
)
from tempo.rm.emulator import EmulatedRM
from whatif.allocation import AllocationDocument, validate

#: Two rounds, no real backoff, short timeouts: a fault costs a few seconds at most. The read
#: timeout leaves the emulated JobHistory server, which simulates a window per request, room
#: on a loaded machine (0.2 s timed its answers out there).
QUICK = TransportOptions(
    connect_timeout_s=0.2,
    read_timeout_s=1.0,
    retry=RetryPolicy(max_attempts=2, base_delay_s=0.0, max_delay_s=0.0, max_total_s=5.0),
)
FAULTS = ("5xx", "garbage", "html", "stall", "reset", "standby")
SCHEDULER = "/ws/v1/cluster/scheduler"


class Cluster:
    """The emulated RM behind two fault-injecting proxies (an HA pair), on a paused clock."""

    def __init__(self, tmp_path, trace=None) -> None:
        self.config = write(tmp_path / "fair-scheduler.xml", WEIGHTED)
        self.clock = PausedClock()
        self.rm = EmulatedRM(
            trace or tiny_trace(),
            self.config,
            CLUSTER,
            speed=10.0,
            engine="reference",
            clock=self.clock,
        )
        url = self.rm.start()
        self.a, self.b = FaultyRM(url).start(), FaultyRM(url).start()
        self.b.set("standby", peer=self.a.url)
        urls = [self.a.url, self.b.url]
        self.client = RMClient(
            HTTPTransport(urls, QUICK, sleep=lambda s: None),
            history=JobHistoryClient(HTTPTransport(urls, QUICK, sleep=lambda s: None)),
        )
        self.journal = SQLiteJournal(tmp_path / "journal.sqlite")
        self.clock.sleep(60.0)  # 600 trace s: the tiny trace's jobs (0 to 90 s) have finished

    def apply(self, document, *, journal, iteration_id):
        return apply_configuration(
            document,
            self.config,
            journal=journal,
            iteration_id=iteration_id,
            reload=Reload.wait(0.0),
            confirm=self.client,
            timeout_s=2.0,
            poll_s=1.0,
            sleep=self.clock.sleep,
            clock=self.clock,
        )

    def loop(self) -> Tuner:
        return Tuner(
            observer=RMObserver(self.client, queues=["root.engineer"], attempts=False),
            stepper=DoublingStepper(),
            applier=self,
            journal=self.journal,
            templates=TEMPLATES,
            allocation_path=self.config,
            window_s=3600.0,
            recover=recover,
            clock=RMClock(self.client.transport, wall_sleep=self.clock.sleep),
        )

    def close(self) -> None:
        self.journal.close()
        for server in (self.a, self.b):
            server.stop()
        self.rm.stop()


@pytest.fixture
def cluster(tmp_path):
    made = Cluster(tmp_path)
    yield made
    made.close()


def _valid(path) -> bool:
    issues = validate(AllocationDocument.from_file(path))
    return not [i for i in issues if i.severity == "error"]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_faulty_rm_changes_nothing_and_is_journalled(cluster, fault):
    """With every address faulty (standby: neither RM active), the iteration is rejected as
    unobserved with the RM error kept for the exit status; the file and the RM stay as they were."""
    cluster.a.set(fault)
    cluster.b.set("standby" if fault == "standby" else fault)
    report = cluster.loop().step()
    assert report.decision == "rejected" and report.reason.startswith("cannot observe the window")
    assert report.rm_error and "\n" not in report.rm_error
    assert cluster.config.read_bytes() == WEIGHTED
    assert cluster.rm.allocation_sha256 == file_sha256(cluster.config)
    (row,) = cluster.journal.iterations()
    assert row.decision == "rejected" and not cluster.journal.applies()
    assert cluster.a.injected > 0


@pytest.mark.parametrize("fault", ["5xx", "html", "stall", "reset"])
def test_a_fault_while_confirming_restores_the_previous_file(cluster, fault):
    """The window is read, the step is written, then the scheduler endpoint fails: the apply
    is reverted (the previous file restored, in force again), journalled and rejected."""
    cluster.a.set(fault, only=(SCHEDULER,))
    report = cluster.loop().step()
    assert report.observed[LABEL] > 0
    assert report.decision == "rejected" and "not confirmed within 2 s" in report.reason
    assert cluster.config.read_bytes() == WEIGHTED and _valid(cluster.config)
    (apply,) = cluster.journal.applies()
    assert apply.outcome == "reverted" and cluster.journal.in_force().state == "restored"
    cluster.clock.sleep(3.0)  # the emulated RM reloads the restored file
    cluster.client.transport.get_json("/ws/v1/emulator/status")
    assert cluster.rm.allocation_sha256 == file_sha256(cluster.config)


def test_the_loop_follows_an_ha_flip_and_keeps_tuning(cluster):
    """RM a active, then a failover (a standby pointing at b, b active): every iteration
    observes the cluster, the step is confirmed through the new active RM."""
    loop = cluster.loop()
    first = loop.step()
    assert first.decision == "accepted" and first.observed[LABEL] > 0
    cluster.a.set("standby", peer=cluster.b.url)
    cluster.b.set("ok")
    second = loop.step()
    assert second.rm_error is None and second.observed == first.observed
    assert second.decision in ("accepted", "rolled_back")
    assert cluster.client.transport.active_url == cluster.b.url
    assert [a.outcome for a in cluster.journal.applies()] == ["confirmed"] * len(
        cluster.journal.applies()
    )
    assert _valid(cluster.config) and cluster.b.forwarded > 0


def test_an_rm_lost_between_iterations_costs_one_interval_not_the_run(cluster, caplog):
    """The RM goes away after an iteration: the loop cannot read its clock, waits a whole
    interval, journals the next window as unobserved and keeps the accepted file."""
    waits: list[float] = []

    def lose_the_rm(report) -> None:
        cluster.a.set("reset")
        cluster.b.set("reset")

    loop = cluster.loop()
    first, second = loop.run(
        max_iterations=2, interval_s=900.0, sleep=waits.append, callback=lose_the_rm
    )
    assert first.decision == "accepted" and second.rm_error
    assert waits == [900.0] and "waiting a whole interval" in caplog.text
    assert file_sha256(cluster.config) == cluster.journal.applies()[-1].sha256
    assert [i.decision for i in cluster.journal.iterations()] == ["accepted", "rejected"]
