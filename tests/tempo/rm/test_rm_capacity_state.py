"""Reading a Capacity Scheduler RM's queue tree and telling the scheduler type (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tempo import RMError
from tempo.rm import parse_scheduler
from tempo.rm.capacity_state import parse_capacity_scheduler, scheduler_type

REST = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "rest"
CAPACITY = REST / "rm-scheduler-capacity.json"

pytestmark = pytest.mark.skipif(not CAPACITY.exists(), reason="shared fixtures not present")


def test_hadoop_doc_response_parses_into_the_tree():
    body = json.loads(CAPACITY.read_text())
    assert scheduler_type(body) == "capacity"
    state = parse_capacity_scheduler(body)
    assert list(state.queues) == [
        "root",
        "root.a",
        "root.a.a1",
        "root.a.a1.a1a",
        "root.a.a1.a1b",
        "root.a.a2",
        "root.b",
        "root.b.b1",
        "root.b.b2",
        "root.b.b3",
    ]
    a1a = state.queues["root.a.a1.a1a"]
    assert a1a.capacity == 85.0 and a1a.absolute_capacity == pytest.approx(2.6775)
    assert a1a.max_applications == 267 and a1a.state == "RUNNING"
    b1 = state.queues["root.b.b1"]
    assert b1.user_limit_factor == 100.0 and b1.num_pending_applications == 1
    assert [q.name for q in state.leaves][:2] == ["root.a.a1.a1a", "root.a.a1.a1b"]


def test_fair_reader_still_refuses_and_types_are_told_apart():
    body = json.loads(CAPACITY.read_text())
    with pytest.raises(RMError, match="Capacity Scheduler"):
        parse_scheduler(body)
    fair = {"scheduler": {"schedulerInfo": {"type": "fairScheduler", "rootQueue": {}}}}
    assert scheduler_type(fair) == "fair"
    with pytest.raises(RMError, match="not the Capacity Scheduler"):
        parse_capacity_scheduler(fair)
    fifo = {"scheduler": {"schedulerInfo": {"type": "fifoScheduler"}}}
    assert scheduler_type(fifo) == "fifo"
    with pytest.raises(RMError, match="schedulerInfo.type"):
        scheduler_type({"scheduler": {"schedulerInfo": {"type": "odd"}}})


def test_queue_path_is_preferred_and_bad_fields_are_named():
    body = {
        "scheduler": {
            "schedulerInfo": {
                "type": "capacityScheduler",
                "queueName": "root",
                "queuePath": "root",
                "queues": {"queue": [{"queueName": "x", "queuePath": "root.x", "capacity": "y"}]},
            }
        }
    }
    with pytest.raises(RMError, match=r"queue\[root.x\].capacity"):
        parse_capacity_scheduler(body)
