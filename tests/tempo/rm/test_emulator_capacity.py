"""The emulated ResourceManager in Capacity Scheduler mode: a capacityScheduler queue tree,
the capacity predictor, reloads only on refresh (rmadmin), and scheduler-conf mutations applied as the request says."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from emulated import CLUSTER, EQUAL, SPEED, at, capacity_xml, tiny_trace, write

from tempo.errors import RMError
from tempo.loop.config_format import CAPACITY
from tempo.rm.capacity_state import parse_capacity_scheduler
from tempo.rm.confirm_capacity import capacity_mismatches
from tempo.rm.emulator import SCHED_CONF_PATH, EmulatedRM, request_refresh
from tempo.rm.sched_conf import SchedConfReload
from whatif.capacity import CapacityConfigError, ConfigurationDocument
from whatif.predictor import predict
from whatif.predictor.capacity import CapacityAllocation, capacity_allocation

#: prod 75 % (up to 100 %), engineer 25 % (up to 50 %), user-limit-factor 4.
CAPACITY_XML = capacity_xml(
    {
        "prod.capacity": "75",
        "prod.user-limit-factor": "4",
        "engineer.capacity": "25",
        "engineer.maximum-capacity": "50",
        "engineer.user-limit-factor": "4",
    }
)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write(tmp_path / "capacity-scheduler.xml", CAPACITY_XML)


def test_the_scheduler_endpoint_is_a_capacity_schedulers(rm, client, config, clock):
    """/ws/v1/cluster/scheduler answers as a Capacity Scheduler RM: the client tells the
    type, reads the tree, and the configuration's capacities confirm against it."""
    assert client.scheduler_type() == "capacity"
    at(clock, 25.0)
    state = client.capacity_scheduler()
    assert set(state.queues) == {"root", "root.prod", "root.engineer"}
    engineer = state.queues["root.engineer"]
    assert engineer.capacity == pytest.approx(25.0)
    assert engineer.absolute_max_capacity == pytest.approx(50.0)
    assert engineer.user_limit_factor == pytest.approx(4.0)
    assert engineer.max_applications == 2500
    assert capacity_mismatches(state, ConfigurationDocument.from_file(config)) == []
    body = requests.get(f"{rm.url}/ws/v1/cluster/scheduler", timeout=5).json()
    prod = body["scheduler"]["schedulerInfo"]["queues"]["queue"][0]
    assert prod["type"] == "capacitySchedulerLeafQueueInfo"
    assert prod["queuePath"] == "root.prod" and prod["queueName"] == "prod"
    assert parse_capacity_scheduler(body).queues["root.prod"].absolute_capacity == 75.0


def test_it_schedules_with_the_capacity_predictor(rm, clock, config):
    """The replay is the Capacity Scheduler mode's schedule of the trace."""
    assert isinstance(rm.simulation.allocation, CapacityAllocation)
    at(clock, 500.0)
    rm.sync()
    got = rm.simulation.schedule().jobs.set_index("job_id")["finish_s"]
    doc = ConfigurationDocument.from_file(config)
    cluster = rm.cluster
    expected = predict(
        tiny_trace().workload, capacity_allocation(doc, cluster), cluster, engine="reference"
    )
    want = expected.jobs.set_index("job_id")["finish_s"]
    assert got.to_dict() == pytest.approx(want.to_dict())


def test_the_file_is_not_polled_but_a_refresh_reloads_it(rm, client, config, clock):
    """An edited capacity file stays out of force however long it waits (the Capacity
    Scheduler does not poll); refreshQueues puts it in force and the tree shows it."""
    edited = ConfigurationDocument.from_file(config)
    edited = edited.set("yarn.scheduler.capacity.root.prod.capacity", "60").set(
        "yarn.scheduler.capacity.root.engineer.capacity", "40"
    )
    CAPACITY.write(edited, config, 1)
    at(clock, 100.0)
    assert [e.trigger for e in rm.reloads] == ["start"]
    assert capacity_mismatches(client.capacity_scheduler(), edited)
    event = request_refresh(rm.url)
    assert event.ok and event.changed
    assert capacity_mismatches(client.capacity_scheduler(), edited) == []


def put(rm, body: bytes) -> requests.Response:
    return requests.put(
        f"{rm.url}{SCHED_CONF_PATH}",
        data=body,
        headers={"Content-Type": "application/xml"},
        timeout=5,
    )


def update_queue(queue: str, **params: str) -> bytes:
    entries = "".join(
        f"<entry><key>{k.replace('_', '-')}</key><value>{v}</value></entry>"
        for k, v in params.items()
    )
    return (
        f"<sched-conf><update-queue><queue-name>{queue}</queue-name>"
        f"<params>{entries}</params></update-queue></sched-conf>"
    ).encode()


def test_a_scheduler_conf_put_applies_the_requests_changes_not_the_file(rm, client, config):
    """PUT /ws/v1/cluster/scheduler-conf changes the configuration in force by exactly the
    request (a mutable store, as Hadoop's): a different edit waiting in the file is not read."""
    before = config.read_bytes()
    in_file = ConfigurationDocument.from_file(config).set(
        "yarn.scheduler.capacity.root.engineer.maximum-capacity", "80"
    )
    CAPACITY.write(in_file, config, 1)
    answer = put(rm, update_queue("root.engineer", maximum_capacity="60", user_limit_factor="2"))
    assert answer.status_code == 200, answer.text
    assert answer.text == "Configuration change successfully applied."
    engineer = client.capacity_scheduler().queues["root.engineer"]
    assert engineer.absolute_max_capacity == pytest.approx(60.0)
    assert engineer.user_limit_factor == pytest.approx(2.0)
    prod = client.capacity_scheduler().queues["root.prod"]
    assert prod.absolute_capacity == pytest.approx(75.0) and prod.user_limit_factor == 4.0
    assert rm.reloads[-1].trigger == "sched-conf" and rm.reloads[-1].changed
    assert config.read_bytes() != before  # the file stayed as written, unread


def test_a_put_hadoop_refuses_answers_400_with_the_reason_and_changes_nothing(rm, client):
    """Capacities summing to 110 (refreshQueues refuses), a running queue removed
    (validateQueueHierarchy), an unknown queue removed (ConfigurationUpdateAssembler), and
    a body that is no <sched-conf>: each a 400 with Hadoop's reason, the tree unchanged."""
    tree = client.capacity_scheduler()
    refused = {
        update_queue("root.engineer", capacity="35"): "Illegal capacity sum of 110",
        (
            b"<sched-conf><remove-queue>root.engineer</remove-queue>"
            + update_queue("root.prod", capacity="100")[len(b"<sched-conf>") :]
        ): "root.engineer cannot be deleted from the capacity scheduler configuration",
        b"<sched-conf><remove-queue>root.nope</remove-queue></sched-conf>": (
            "Queue root.nope not found"
        ),
        b"<configuration/>": "not <sched-conf>",
    }
    for body, reason in refused.items():
        answer = put(rm, body)
        assert answer.status_code == 400 and reason in answer.text, answer.text
        assert rm.reloads[-1].trigger == "sched-conf" and not rm.reloads[-1].ok
        assert client.capacity_scheduler() == tree
    # the store kept the configuration in force: a valid change still applies over it
    assert put(rm, update_queue("root.engineer", maximum_capacity="70")).status_code == 200
    assert client.capacity_scheduler().queues["root.engineer"].absolute_max_capacity == 70.0


def test_add_queue_through_the_mutation_api_creates_a_queue(rm, client):
    """add-queue appends the name to its parent and sets its params; with the siblings'
    capacities updated in the same request the tree has the new leaf."""
    body = (
        b"<sched-conf><add-queue><queue-name>root.dev</queue-name><params>"
        b"<entry><key>capacity</key><value>10</value></entry></params></add-queue>"
        b"<update-queue><queue-name>root.prod</queue-name><params>"
        b"<entry><key>capacity</key><value>65</value></entry></params></update-queue>"
        b"</sched-conf>"
    )
    answer = put(rm, body)
    assert answer.status_code == 200, answer.text
    queues = client.capacity_scheduler().queues
    assert set(queues) == {"root", "root.prod", "root.engineer", "root.dev"}
    assert queues["root.dev"].absolute_capacity == pytest.approx(10.0)


def test_tempos_mutation_reload_applies_and_rolls_back_against_the_emulator(rm, client, config):
    """The loop's own scheduler-conf client (`SchedConfReload`, as `tempo.loop.apply` uses
    it): the difference it sends is applied, and the reverse change puts the RM back."""
    old = ConfigurationDocument.from_file(config)
    reload = SchedConfReload(rm.url, config, old)
    new = old.set("yarn.scheduler.capacity.root.prod.capacity", "60").set(
        "yarn.scheduler.capacity.root.engineer.capacity", "40"
    )
    CAPACITY.write(new, config, 1)
    assert reload.perform() is None
    assert capacity_mismatches(client.capacity_scheduler(), new) == []
    CAPACITY.write(old, config, 2)
    assert reload.perform() is None
    assert capacity_mismatches(client.capacity_scheduler(), old) == []
    bad = old.set("yarn.scheduler.capacity.root.engineer.capacity", "35")
    config.write_bytes(bad.to_bytes())  # tempo refuses to write it; the RM is the last guard
    said = reload.perform()
    assert said is not None and "answered 400: Illegal capacity sum of 110" in said
    assert capacity_mismatches(client.capacity_scheduler(), old) == []


def test_a_refresh_dropping_a_running_queue_is_refused(rm, client, config):
    """refreshQueues checks the new hierarchy against the one in force
    (CapacitySchedulerConfigValidator.validateQueueHierarchy): a RUNNING queue cannot
    disappear, and the tree in force stays. (Stopped, it could - but the trace submits to
    it, and the predictor refuses a configuration without a queue its jobs name.)"""
    doc = ConfigurationDocument.from_file(config)
    dropped = doc.set("yarn.scheduler.capacity.root.queues", "prod").set(
        "yarn.scheduler.capacity.root.prod.capacity", "100"
    )
    for name in [n for n in dropped.names() if ".engineer." in n]:
        dropped = dropped.set(name, None)
    write(config, dropped.to_bytes())
    with pytest.raises(RMError, match="root.engineer cannot be deleted"):
        request_refresh(rm.url)
    assert "root.engineer" in client.capacity_scheduler().queues
    assert rm.reloads[-1].trigger == "refresh" and not rm.reloads[-1].ok


def test_a_refresh_with_an_allocation_file_is_refused(rm, config):
    """The RM runs the Capacity Scheduler: an allocation file is refused, the old
    configuration stays, and the reason says so."""
    write(config, EQUAL)
    with pytest.raises(RMError, match="not a capacity-scheduler.xml"):
        request_refresh(rm.url)
    assert rm.reloads[-1].ok is False


def test_it_does_not_start_on_a_capacity_file_hadoop_would_refuse(tmp_path, clock):
    """Percentages summing to 110: the emulated RM does not start, naming the line."""
    bad = write(tmp_path / "capacity-scheduler.xml", CAPACITY_XML.replace(b">25<", b">35<"))
    with pytest.raises(CapacityConfigError, match="xml: line 3: Illegal capacity sum of 110"):
        EmulatedRM(tiny_trace(), bad, CLUSTER, speed=SPEED, clock=clock, engine="reference")
