"""The emulated ResourceManager in Capacity Scheduler mode: a capacityScheduler queue tree,
the capacity predictor, reloads only on refresh (rmadmin or scheduler-conf)."""

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


def test_a_scheduler_conf_put_reloads_the_file(rm, client, config):
    """PUT /ws/v1/cluster/scheduler-conf answers 200 once the file tempo wrote is in force."""
    edited = ConfigurationDocument.from_file(config).set(
        "yarn.scheduler.capacity.root.engineer.maximum-capacity", "80"
    )
    CAPACITY.write(edited, config, 1)
    answer = requests.put(f"{rm.url}{SCHED_CONF_PATH}", data=b"<sched-conf/>", timeout=5)
    assert answer.status_code == 200
    assert answer.text == "Configuration change successfully applied."
    engineer = client.capacity_scheduler().queues["root.engineer"]
    assert engineer.absolute_max_capacity == pytest.approx(80.0)


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
