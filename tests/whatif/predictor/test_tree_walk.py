"""The kernel's preorder step over app order trees against the plain loop it replaces."""

from whatif.predictor.kernel import _preorder_next


def _preorder_next_loop(node: int, root: int, down: bool) -> int:
    if down:
        return 2 * node
    while node > root and node & 1 == 1:
        node >>= 1
    return -1 if node <= root else node + 1


def _under(node: int, root: int) -> bool:
    while node > root:
        node >>= 1
    return node == root


def test_step_matches_the_loop_for_every_node_and_root():
    for p in (1, 2, 4, 8, 64, 128):  # leaves in the tree
        roots = [p // k for k in (1, 2, 4, 8, 64, 128) if k <= p]
        for root in roots:
            for node in range(root, 2 * p):
                if not _under(node, root):
                    continue
                for down in (False, True) if node < p else (False,):
                    assert _preorder_next(node, root, down) == _preorder_next_loop(
                        node, root, down
                    ), (p, root, node, down)


def test_walk_visits_each_node_under_root_once_in_preorder():
    p, root = 16, 2
    seen, node = [], root
    while node >= 0:
        seen.append(node)
        node = _preorder_next(node, root, node < p)
    under = [n for n in range(1, 2 * p) if _under(n, root)]
    assert sorted(seen) == under and seen[:3] == [2, 4, 8]
