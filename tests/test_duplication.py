"""tests/duplication.py: the duplicate-code count that tests/test_layers.py keeps from rising."""

import textwrap

from duplication import MAX_PLACES, find_pairs, shapes

#: Six lines of real code (enough tokens to count).
BODY = """
def total(rows, factor):
    kept = [row for row in rows if row.size > 0 and row.queue != "root.idle"]
    sizes = [row.size * factor for row in kept if row.stage in ("map", "reduce")]
    shares = {row.queue: row.size / max(sum(sizes), 1.0) for row in kept}
    best = max(shares.items(), key=lambda item: (item[1], item[0]))
    logger.info("total %s of %d rows: %.3f", best[0], len(rows), best[1])
    return sum(sizes) + 0.5 * len(kept) - best[1]
"""


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip()


def test_a_copy_pairs_with_its_original():
    """The same six lines in two files make one pair naming both places."""
    [pair] = find_pairs({"a.py": _code(BODY), "b.py": "x = 1\n" + _code(BODY)})
    assert pair.first[0] == "a.py" and pair.second[0] == "b.py"
    assert pair.second[1] == pair.first[1] + 1


def test_a_copy_with_other_names_and_values_still_pairs():
    """Renamed variables, other strings and numbers: the same shape, still a pair."""
    renamed = (
        _code(BODY)
        .replace("rows", "jobs")
        .replace("root.idle", "root.other")
        .replace("0.5", "2")
        .replace("total", "overall")
    )
    assert len(find_pairs({"a.py": _code(BODY), "b.py": renamed})) == 1


def test_comments_docstrings_imports_and_blank_lines_are_passed_over():
    """A copy interleaved with comments, a docstring, imports and blank lines still pairs,
    and those lines alone never make a pair."""
    lines = _code(BODY).splitlines()
    noisy = "\n".join(
        [lines[0], '    """A docstring."""', "    import os", ""]
        + [f"{line}  # note\n\n    # a comment" for line in lines[1:]]
    )
    assert len(find_pairs({"a.py": _code(BODY), "b.py": noisy})) == 1
    imports = "".join(f"import module{i}\n" for i in range(10))
    assert find_pairs({"a.py": imports, "b.py": imports}) == []


def test_thin_declarations_do_not_pair():
    """Six ``name: type`` fields are the shape of any dataclass, not shared code."""
    fields = "class A:\n" + "".join(f"    f{i}: int\n" for i in range(8))
    assert find_pairs({"a.py": fields, "b.py": fields.replace("A", "B")}) == []


def test_a_file_does_not_pair_with_itself_where_the_runs_overlap():
    """Repetitive lines in one file pair only where the two runs do not overlap."""
    line = "    total = sum(row.size * factor for row in rows if row.queue == name) + offset\n"
    assert find_pairs({"a.py": "def f():\n" + line * 8}) == []
    twice = _code(BODY) + "\n" + _code(BODY).replace("def total", "def again")
    assert len(find_pairs({"a.py": twice})) == 1


def test_a_run_in_more_than_max_places_is_too_common_to_count():
    """A run standing in more than MAX_PLACES files is left out, as ``duplicates`` does."""
    files = {f"f{i}.py": _code(BODY) for i in range(MAX_PLACES + 1)}
    assert find_pairs(files) == []
    assert len(find_pairs(dict(list(files.items())[:3]))) == 3


def test_shapes_replace_names_numbers_and_strings():
    """A line's shape keeps keywords and operators only."""
    assert shapes('if x > 1:\n    y = f"{x}" + "s"\n') == [(1, "if N > 0 :"), (2, "N = S + S")]
