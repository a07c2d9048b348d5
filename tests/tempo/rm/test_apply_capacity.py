"""Applying capacity-scheduler.xml safely (issue 26): refreshQueues or the mutation API, confirm, roll back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from emulated import FakeTime
from fake_capacity_rm import FakeCapacityRM, Refresh

from tempo.journal import MemoryJournal, file_sha256
from tempo.loop.apply import apply_configuration
from tempo.loop.config_format import CAPACITY
from tempo.loop.rollback import recover
from tempo.rm import HTTPTransport, RMClient
from tempo.rm.confirm_capacity import capacity_mismatches
from tempo.rm.sched_conf import SchedConfReload, sched_conf_update
from whatif.capacity import ConfigurationDocument

ROOT = Path(__file__).resolve().parents[3]
P = "yarn.scheduler.capacity."


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "capacity-scheduler.xml"
    shutil.copy(ROOT / "configs" / "two-tenant-capacity.xml", path)
    return path


def candidate(path: Path, prod: str = "60", engineer: str = "40") -> ConfigurationDocument:
    doc = ConfigurationDocument.from_file(path)
    return doc.set(P + "root.prod.capacity", prod).set(P + "root.engineer.capacity", engineer)


def run(path, doc, rm, reload, journal=None):
    journal = journal or MemoryJournal()
    clock = FakeTime()
    outcome = apply_configuration(
        doc,
        path,
        journal=journal,
        iteration_id=journal.begin_iteration(
            config_path=str(path), config_sha256=file_sha256(path)
        ),
        reload=reload,
        confirm=RMClient(HTTPTransport(rm.url)),
        timeout_s=3.0,
        fmt=CAPACITY,
        sleep=clock.sleep,
        clock=clock.clock,
    )
    return outcome, journal


def capacity_of(rm: FakeCapacityRM, queue: str) -> float:
    return RMClient(HTTPTransport(rm.url)).capacity_scheduler().queues[queue].capacity


def test_refresh_queues_applies_and_the_queue_tree_confirms(config: Path) -> None:
    with FakeCapacityRM(config) as rm:
        outcome, journal = run(config, candidate(config), rm, Refresh(rm))
        assert outcome.confirmed and not outcome.reverted, outcome.reason
        assert capacity_of(rm, "root.prod") == pytest.approx(60)
        assert (
            config.with_name(config.name + ".1").read_bytes()
            == (ROOT / "configs" / "two-tenant-capacity.xml").read_bytes()
        )
        assert journal.in_force().apply.outcome == "confirmed"


def test_an_rm_that_keeps_the_old_tree_is_rolled_back(config: Path) -> None:
    before = config.read_bytes()
    with FakeCapacityRM(config) as rm:
        rm.ignore_refresh = True
        outcome, journal = run(config, candidate(config), rm, Refresh(rm))
        assert outcome.reverted and not outcome.confirmed
        assert "root.prod: absolute capacity 75%, expected 60%" in outcome.reason
        assert config.read_bytes() == before
        assert journal.in_force().apply.outcome == "reverted"


def test_an_invalid_candidate_is_never_written(config: Path) -> None:
    before = config.read_bytes()
    with FakeCapacityRM(config) as rm:
        outcome, _ = run(config, candidate(config, "60", "30"), rm, Refresh(rm))
        assert not outcome.applied and "candidate refused" in outcome.reason
        assert "100" in outcome.reason and config.read_bytes() == before


def test_the_mutation_api_applies_the_difference_and_rolls_back_the_same_way(config: Path) -> None:
    before = config.read_bytes()
    with FakeCapacityRM(config) as rm:
        reload = SchedConfReload(rm.url, config, ConfigurationDocument.from_file(config))
        outcome, _ = run(config, candidate(config), rm, reload)
        assert outcome.confirmed, outcome.reason
        sent = rm.puts[-1].decode()
        assert "<queue-name>root.prod</queue-name>" in sent and "<value>60</value>" in sent
        assert "user-limit-factor" not in sent  # only what changed
        assert capacity_of(rm, "root.engineer") == pytest.approx(40)
        # the next candidate is refused by the RM's store: the file and the RM go back
        rm.put_status = 400
        outcome, _ = run(config, candidate(config, "70", "30"), rm, reload)
        assert outcome.reverted and "answered 400" in outcome.reason
        assert capacity_of(rm, "root.prod") == pytest.approx(60)
        assert ConfigurationDocument.from_file(config).value(P + "root.prod.capacity") == "60"
        # and an RM that accepts but does not apply is put back by the reverse change
        rm.put_status, rm.ignore_refresh = None, True
        outcome, _ = run(config, candidate(config, "70", "30"), rm, reload)
        assert outcome.reverted and "expected 70%" in outcome.reason
    assert before != config.read_bytes()


def test_sched_conf_update_unsets_dropped_properties_and_updates_globals(config: Path) -> None:
    old = ConfigurationDocument.from_file(config)
    new = old.set(P + "root.engineer.max-parallel-apps", None).set(
        P + "maximum-am-resource-percent", "0.4"
    )
    xml = sched_conf_update(old, new).decode()
    assert "<key>max-parallel-apps</key><value></value>" in xml
    assert "<global-updates>" in xml and f"<key>{P}maximum-am-resource-percent</key>" in xml


def test_a_dropped_global_is_sent_without_a_value(config: Path) -> None:
    """Hadoop unsets a global-updates entry only when its value is null (no <value>):
    an empty value would set the property to "" (MutableCSConfigurationProvider)."""
    old = ConfigurationDocument.from_file(config)
    new = old.set(P + "maximum-am-resource-percent", None)
    xml = sched_conf_update(old, new).decode()
    assert f"<entry><key>{P}maximum-am-resource-percent</key></entry>" in xml
    assert "<value></value>" not in xml
    with FakeCapacityRM(config) as rm:
        reload = SchedConfReload(rm.url, config, old)
        new_path = config.with_name("new.xml")
        new_path.write_bytes(new.to_bytes())
        reload.path = new_path
        assert reload.perform() is None
        assert rm.conf.value(P + "maximum-am-resource-percent") is None


def test_mismatches_name_missing_queues_and_states(config: Path) -> None:
    with FakeCapacityRM(config) as rm:
        state = RMClient(HTTPTransport(rm.url)).capacity_scheduler()
    doc = ConfigurationDocument.from_file(config)
    assert capacity_mismatches(state, doc) == []
    grown = doc.set(P + "root.queues", "prod,engineer,new").set(P + "root.new.capacity", "0")
    assert "root.new: not in the RM's queue tree" in capacity_mismatches(state, grown)
    stopped = doc.set(P + "root.engineer.state", "STOPPED")
    assert capacity_mismatches(state, stopped) == ["root.engineer: state RUNNING, expected STOPPED"]


def test_recover_restores_an_unconfirmed_capacity_file(config: Path) -> None:
    before = config.read_bytes()
    journal = MemoryJournal()
    iteration = journal.begin_iteration(config_path=str(config), config_sha256=file_sha256(config))
    new = candidate(config)
    import hashlib

    journal.record_intent(
        iteration,
        path=str(config),
        sha256=hashlib.sha256(new.to_bytes()).hexdigest(),
        previous_sha256=hashlib.sha256(before).hexdigest(),
        backup_path=str(config.with_name(config.name + ".1")),
    )
    CAPACITY.write(new, config, 5)  # killed before the refresh
    result = recover(journal, config, fmt=CAPACITY)
    assert result.action == "undone" and config.read_bytes() == before
