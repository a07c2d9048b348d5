"""Streaming concatenated JSON: chunk boundaries, positions and truncation."""

import json

import pytest

from whatif import TraceFormatError
from whatif.readers.json_stream import iter_json_objects


def test_objects_across_chunk_boundaries_keep_lines(tmp_path):
    """Objects larger than a chunk are decoded whole, with their starting line numbers."""
    objects = [{"i": i, "pad": "x" * (37 * i)} for i in range(20)]
    text = "\n".join(json.dumps(o, indent=1) for o in objects) + "\n"
    path = tmp_path / "c.json"
    path.write_text(text)
    records = list(iter_json_objects(path, chunk_chars=16))
    assert [r.value for r in records] == objects
    lines = text.split("\n")
    starts = [n + 1 for n, line in enumerate(lines) if line == "{"]
    assert [r.line for r in records] == starts
    assert [r.index for r in records] == list(range(1, 21))


def test_truncated_stream_names_line_and_record(tmp_path):
    """A file cut inside its third object fails naming that object's line and number."""
    path = tmp_path / "c.json"
    path.write_text('{"a": 1}\n{"a": 2}\n{"a": [1,\n 2')
    with pytest.raises(TraceFormatError, match=r"c\.json:4:\d+: invalid JSON in record 3"):
        list(iter_json_objects(path, chunk_chars=4))


def test_non_utf8_is_a_format_error(tmp_path):
    """Binary content is a TraceFormatError, not a UnicodeDecodeError."""
    path = tmp_path / "c.json"
    path.write_bytes(b'{"a": "\xff\xfe"}')
    with pytest.raises(TraceFormatError, match="not UTF-8"):
        list(iter_json_objects(path))


@pytest.mark.parametrize("chunk_chars", [1 << 20, 3])
def test_error_in_a_chunk_of_many_objects_names_its_line_and_column(tmp_path, chunk_chars):
    """Objects decoded in place in one chunk (or across many): a bad fourth object, second
    on its line, is named by the line and column of the file where it goes wrong (its
    column was counted from the object's start, pointing an editor at the wrong place)."""
    path = tmp_path / "c.json"
    path.write_text('{"a": 1} {"a": 2}\n{"a": 3} {"b": x}\n')
    records = []
    with pytest.raises(TraceFormatError) as caught:
        records.extend(iter_json_objects(path, chunk_chars=chunk_chars))
    assert str(caught.value) == f"{path}:2:16: invalid JSON in record 4: expected a JSON value"
    assert [(r.value, r.line) for r in records] == [({"a": 1}, 1), ({"a": 2}, 1), ({"a": 3}, 2)]


@pytest.mark.parametrize(
    ("text", "where", "problem"),
    [
        (
            '{"a": 1}\n{"a": "unterminated',
            "2:7",
            "a string starting here has no closing '\"': the file ends first (truncated?)",
        ),
        (
            '{"a": 1}\n{"a": [1,',
            "2:10",
            "expected a JSON value, but the file ends there (truncated?)",
        ),
        (
            '{"a": 1}\n{"a": "x\x01"}',
            "2:9",
            "control character U+0001 in a string; expected it escaped (\\u0001)",
        ),
        (
            '{"a": 1}\n{"a": "\\q"}',
            "2:8",
            "invalid escape '\\q' in a string; expected one of "
            '\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX',
        ),
        (
            '{"a": 1}\n{"a":\n ' + "1" * 5000 + "}",
            "3:2",
            "a number of 5000 digits; expected at most 4300 (Python's limit for integers)",
        ),
        (
            '{"a": 1}\n  ' + "[" * 100_000 + "]" * 100_000,
            "2:100002",
            "arrays or objects nested 100000 deep here, too deep to read "
            "(Python's recursion limit)",
        ),
    ],
    ids=[
        "unterminated string",
        "cut after a comma",
        "control character",
        "bad escape",
        "huge number",
        "deep nesting",
    ],
)
def test_every_json_error_names_its_place_and_what_was_expected(tmp_path, text, where, problem):
    """Each JSON error reads path:line:col: invalid JSON in record N: <complete phrase>
    (the stdlib's "Unterminated string starting at" and "Invalid control character at"
    were cut off; a huge number and deep nesting were tracebacks)."""
    path = tmp_path / "c.json"
    path.write_text(text)
    with pytest.raises(TraceFormatError) as caught:
        list(iter_json_objects(path))
    assert str(caught.value) == f"{path}:{where}: invalid JSON in record 2: {problem}"
