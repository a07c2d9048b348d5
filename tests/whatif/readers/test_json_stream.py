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


def test_error_in_a_chunk_of_many_objects_names_its_line_and_column(tmp_path):
    """Objects decoded in place in one chunk: a bad fourth object, second on its line, is
    named by its line and its column counted from the object's start, as before."""
    path = tmp_path / "c.json"
    path.write_text('{"a": 1} {"a": 2}\n{"a": 3} {"b": x}\n')
    records = []
    with pytest.raises(TraceFormatError, match=r"c\.json:2:7: invalid JSON in record 4"):
        records.extend(iter_json_objects(path))
    assert [(r.value, r.line) for r in records] == [({"a": 1}, 1), ({"a": 2}, 1), ({"a": 3}, 2)]
