"""Capacity Scheduler settings Hadoop honours and tempo's predictor does not are warnings
naming their line, by Hadoop's own rule of when each acts (`whatif.capacity.unmodelled`)."""

from __future__ import annotations

import pytest

from whatif.capacity import validate

P = "yarn.scheduler.capacity."


def conf(props: dict[str, str]) -> bytes:
    body = "".join(
        f"<property><name>{k}</name><value>{v}</value></property>\n" for k, v in props.items()
    )
    return f"<configuration>\n{body}</configuration>\n".encode()


def two(**extra: str) -> dict[str, str]:
    props = {P + "root.queues": "a,b", P + "root.a.capacity": "60", P + "root.b.capacity": "40"}
    props.update({P + k: v for k, v in extra.items()})
    return props


def unmodelled(props: dict[str, str]) -> list[tuple[int, str]]:
    return [
        (i.line, i.message)
        for i in validate(conf(props))
        if i.severity == "warning" and "tempo does not model this" in i.message
    ]


@pytest.mark.parametrize(
    ("extra", "warned"),
    [
        ({}, False),
        ({"root.a.priority": "5"}, False),  # under utilization, priorities order nothing
        ({"root.ordering-policy": "priority-utilization"}, False),  # all at priority 0
        (
            {
                "root.ordering-policy": "priority-utilization",
                "root.a.priority": "0",
                "root.b.priority": "0",
            },
            False,
        ),
        ({"root.ordering-policy": "priority-utilization", "root.a.priority": "5"}, True),
    ],
)
def test_queue_priorities_count_under_priority_utilization_when_they_differ(extra, warned):
    found = unmodelled(two(**extra))
    assert bool(found) is warned
    if warned:
        ((line, message),) = found
        assert line == 5  # the ordering-policy property
        assert "root.a 5, root.b 0" in message and "as tempo predicts" in message
        assert "predicts its rounds by used capacity alone" in message


def test_user_weights_are_modelled_and_checked_as_hadoop_checks_them():
    """A user weight is predicted (no warning); one above 100 / minimum-user-limit-percent,
    or below 0, is an error Hadoop refuses the file for (UserWeights.validateForLeafQueue),
    an ancestor's weight counting in each leaf below it; a weight that is not a number too."""
    weighted = two(**{"root.a.user-settings.alice.weight": "0.5"})
    assert unmodelled(weighted) == [] and not _errors(weighted)
    high = two(**{"root.user-settings.alice.weight": "2"})
    assert _errors(high) == [
        (5, 'Weight (2) for user "alice" must be between 0 and 100 / 100 (= 1, the number of '
         "concurrent active users in root.a)"),
        (5, 'Weight (2) for user "alice" must be between 0 and 100 / 100 (= 1, the number of '
         "concurrent active users in root.b)"),
    ]  # fmt: skip
    allowed = two(
        **{"root.a.user-settings.alice.weight": "2", "root.a.minimum-user-limit-percent": "50"}
    )
    assert not _errors(allowed)
    assert _errors(two(**{"root.a.user-settings.bob.weight": "heavy"}))[0][1].startswith(
        "yarn.scheduler.capacity.root.a.user-settings.bob.weight: expected a number"
    )


def _errors(props: dict[str, str]) -> list[tuple[int, str]]:
    return [(i.line, i.message) for i in validate(conf(props)) if i.severity == "error"]


def test_size_based_weight_is_modelled():
    size = {"root.a.ordering-policy.fair.enable-size-based-weight": "true"}
    assert unmodelled(two(**size, **{"root.a.ordering-policy": "fair"})) == []


def test_reservable_auto_created_queues_and_node_labels():
    found = unmodelled(
        two(
            **{
                "root.a.reservable": "true",
                "root.b.auto-create-child-queue.enabled": "TRUE",
                "root.a.accessible-node-labels.gpu.capacity": "50",
                "root.b.accessible-node-labels.gpu.capacity": "50",
                "root.b.default-node-label-expression": " ",  # blank: no label
            }
        )
    )
    messages = [m for _, m in found]
    assert any("reservable = true: a plan queue" in m for m in messages)
    assert any("auto-create-child-queue.enabled = true" in m and "refused" in m for m in messages)
    (labels,) = [(line, m) for line, m in found if "node labels" in m]
    assert labels[0] == 7 and "2 properties from this line on" in labels[1]
