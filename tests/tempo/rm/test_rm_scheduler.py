"""Parsing the Fair Scheduler queue tree, tolerant of version differences."""

from __future__ import annotations

import copy
import json

import pytest
from fake_rm import rest_fixture

from tempo import RMError
from tempo.rm import parse_scheduler
from whatif import Resources


def _leaf(name: str, **fields: object) -> dict:
    queue = {
        "queueName": name,
        "minResources": {"memory": 1024, "vCores": 1},
        "maxResources": {"memory": 8192, "vCores": 8},
        "usedResources": {"memory": 0, "vCores": 0},
        "fairResources": {"memory": 4096, "vCores": 4},
        "steadyFairResources": {"memory": 4096, "vCores": 4},
        "demandResources": {"memory": 2048, "vCores": 2},
        "maxApps": 10,
        "schedulingPolicy": "drf",
        "preemptable": True,
        "numActiveApps": 1,
        "numPendingApps": 2,
        "type": "fairSchedulerLeafQueueInfo",
    }
    queue.update(fields)
    return queue


def _response(children: object, **root: object) -> dict:
    root_queue = {
        "queueName": "root",
        "clusterResources": {"memory": 8192, "vCores": 8},
        "childQueues": children,
        **root,
    }
    return {"scheduler": {"schedulerInfo": {"type": "fairScheduler", "rootQueue": root_queue}}}


def test_hadoop3_queue_fields_are_read():
    """Every reported field lands in QueueState with its unit."""
    state = parse_scheduler(_response({"queue": [_leaf("root.a")]}))
    queue = state.queue("root.a")
    assert queue.steady_fair_resources == Resources(4096, 4)
    assert queue.demand_resources == Resources(2048, 2)
    assert (queue.max_apps, queue.policy, queue.preemptable) == (10, "drf", True)
    assert (queue.num_active_apps, queue.num_pending_apps) == (1, 2)
    assert state.cluster_resources == Resources(8192, 8)
    assert [q.name for q in state.leaves] == ["root.a"]


@pytest.mark.parametrize(
    "children",
    [
        [_leaf("root.a"), _leaf("root.b")],
        {"queue": [_leaf("root.a"), _leaf("root.b")]},
    ],
    ids=["bare-list", "wrapped"],
)
def test_child_list_wrapped_or_bare(children):
    """childQueues may be {"queue": [...]} (Hadoop 2.7+) or a bare list (older)."""
    assert list(parse_scheduler(_response(children)).queues) == ["root", "root.a", "root.b"]


@pytest.mark.parametrize(
    "children", [None, {"queue": None}, {}], ids=["null", "null-queue", "empty-object"]
)
def test_missing_child_list_means_a_leaf(children):
    """A null or empty childQueues makes root a leaf."""
    state = parse_scheduler(_response(children))
    assert state.root.is_leaf and list(state.queues) == ["root"]


def test_single_child_as_object():
    """Old Jersey JSON writes a one-element list as the element itself."""
    state = parse_scheduler(_response({"queue": _leaf("root.only")}))
    assert list(state.queues) == ["root", "root.only"]


def test_missing_optional_fields_are_none():
    """Fields an old RM does not report (steady fair share, demand) are None, not errors."""
    state = parse_scheduler(_response({"queue": [{"queueName": "root.a"}]}))
    queue = state.queue("root.a")
    assert queue.steady_fair_resources is None and queue.max_apps is None
    assert queue.is_leaf


def test_numbers_as_strings_are_accepted():
    """Numeric strings and "true"/"false" (seen from some Jersey versions) are read."""
    leaf = _leaf("root.a", maxApps="50", preemptable="false")
    leaf["minResources"] = {"memory": "512", "vCores": "1"}
    queue = parse_scheduler(_response([leaf])).queue("root.a")
    assert (queue.max_apps, queue.preemptable, queue.min_resources) == (
        50,
        False,
        Resources(512, 1),
    )


def test_wrong_typed_field_names_the_queue_and_field():
    """maxApps "x" is an RMError naming the queue and field."""
    with pytest.raises(
        RMError, match=r"^queue\[root\.a\]\.maxApps: expected an integer, got str 'x'"
    ):
        parse_scheduler(_response([_leaf("root.a", maxApps="x")]))


def test_wrong_typed_child_list_is_an_error():
    """childQueues that is a string is named in the error."""
    with pytest.raises(RMError, match=r"childQueues.*expected a list"):
        parse_scheduler(_response("x"))


def test_missing_root_queue_is_an_error():
    """A fair-scheduler response without rootQueue says which field is missing."""
    with pytest.raises(RMError, match=r"schedulerInfo\.rootQueue: missing"):
        parse_scheduler({"scheduler": {"schedulerInfo": {"type": "fairScheduler"}}})


def test_capacity_scheduler_is_rejected():
    """The verbatim Capacity Scheduler response is refused: tempo needs the Fair Scheduler."""
    body = json.loads(rest_fixture("rm-scheduler-capacity.json"))
    with pytest.raises(RMError, match="Capacity Scheduler.*tempo needs the Fair Scheduler"):
        parse_scheduler(body)


def test_capacity_scheduler_without_type_is_rejected():
    """A capacity-style tree (queues, no rootQueue) is refused even without the type field."""
    body = json.loads(rest_fixture("rm-scheduler-capacity.json"))
    del body["scheduler"]["schedulerInfo"]["type"]
    with pytest.raises(RMError, match="tempo needs the Fair Scheduler"):
        parse_scheduler(body)


def test_fifo_scheduler_is_rejected():
    """The FIFO scheduler is refused by name."""
    body = {"scheduler": {"schedulerInfo": {"type": "fifoScheduler", "capacity": 1.0}}}
    with pytest.raises(RMError, match="FIFO scheduler"):
        parse_scheduler(body)


def test_unknown_queue_lookup_lists_the_tree():
    """Asking for a queue that does not exist names the ones that do."""
    state = parse_scheduler(_response([_leaf("root.a")]))
    with pytest.raises(
        RMError, match=r"'root\.zz' is not in the RM's queue tree \(root, root\.a\)"
    ):
        state.queue("root.zz")


def test_not_an_object_is_an_error():
    """A JSON list where the response object is expected is an RMError."""
    with pytest.raises(RMError, match="response: expected a JSON object"):
        parse_scheduler([1, 2])


def test_parsing_does_not_mutate_input():
    """The decoded body is left as it was."""
    body = _response({"queue": [_leaf("root.a")]})
    before = copy.deepcopy(body)
    parse_scheduler(body)
    assert body == before
