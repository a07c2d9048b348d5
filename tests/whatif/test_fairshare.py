"""Fair shares as Hadoop's ComputeFairShares computes them, on hand-computed cases."""

import numpy as np

from whatif import (
    EffectiveAllocation,
    EffectiveQueue,
    ResourceLimit,
    Resources,
    compute_shares,
    fair_shares,
)

INF = np.inf


def test_paper_example_weights_1_2_3_on_12_containers():
    """Weights 1:2:3 on 12 containers give 2/4/6 (paper section 4)."""
    assert compute_shares(np.array([1, 2, 3.0]), np.zeros(3), np.full(3, INF), 12).tolist() == [
        2,
        4,
        6,
    ]


def test_paper_example_idle_queue_gets_nothing_instantaneously():
    """With C idle, A and B split everything 4/8."""
    active = np.array([True, True, False])
    assert compute_shares(
        np.array([1, 2, 3.0]), np.zeros(3), np.full(3, INF), 12, active
    ).tolist() == [4, 8, 0]


def test_paper_example_max_share_caps_and_redistributes():
    """With C's max at 3, shares are 3/6/3."""
    assert compute_shares(
        np.array([1, 2, 3.0]), np.zeros(3), np.array([INF, INF, 3]), 12
    ).tolist() == [3, 6, 3]


def test_min_share_lifts_a_light_queue_and_zero_weight_gets_only_its_min():
    """A min share is honoured before weights; weight 0 keeps just its min share."""
    shares = compute_shares(
        np.array([1.0, 1.0, 0.0]), np.array([8.0, 0.0, 2.0]), np.full(3, INF), 12
    )
    assert shares.tolist() == [8, 2, 2]


def test_sum_of_max_below_total_leaves_the_rest_unassigned():
    """Shares never exceed max, even if that leaves resources unassigned."""
    assert compute_shares(np.ones(2), np.zeros(2), np.array([3.0, 4.0]), 100).tolist() == [3, 4]


def test_tree_shares_are_divided_top_down():
    """A parent's share is divided among its children by their weights."""
    tree = EffectiveQueue(
        "root",
        children=(
            EffectiveQueue("root.a", weight=1),
            EffectiveQueue(
                "root.p",
                weight=3,
                children=(EffectiveQueue("root.p.x"), EffectiveQueue("root.p.y", weight=2)),
            ),
        ),
    )
    alloc = EffectiveAllocation(root=tree)
    shares = fair_shares(alloc, Resources(1200, 12))
    assert shares["root.a"] == Resources(300, 3)
    assert shares["root.p"] == Resources(900, 9)
    assert shares["root.p.y"] == Resources(600, 6)
    instant = fair_shares(alloc, Resources(1200, 12), active_leaves={"root.a", "root.p.x"})
    assert instant["root.p.x"] == Resources(900, 9) and instant["root.p.y"] == Resources(0, 0)


def test_percentage_max_resources_resolve_against_the_cluster():
    """maxResources given as a percentage caps at that part of the cluster."""
    tree = EffectiveQueue(
        "root",
        children=(
            EffectiveQueue("root.a", max_resources=ResourceLimit(percent=(25.0, 25.0))),
            EffectiveQueue("root.b"),
        ),
    )
    shares = fair_shares(EffectiveAllocation(root=tree), Resources(1000, 100))
    assert shares["root.a"] == Resources(250, 25)
    assert shares["root.b"] == Resources(750, 75)


def test_effective_allocation_pickles_with_its_user_limits():
    """Allocations travel to worker processes: they survive a pickle round trip."""
    import pickle

    alloc = EffectiveAllocation(
        root=EffectiveQueue("root"), user_max_apps={"alice": 3}, user_max_apps_default=5
    )
    again = pickle.loads(pickle.dumps(alloc))
    assert again.max_apps_for_user("alice") == 3 and again.max_apps_for_user("bob") == 5
    assert again.root == alloc.root
