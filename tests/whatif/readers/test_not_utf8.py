"""Bytes that are not UTF-8: the precise readers name the line and byte of the first one."""

import json

import pytest

from whatif import TraceFormatError
from whatif.readers import read_trace
from whatif.readers.base import not_utf8

JOB = {"job.id": "j", "job.start.ms": 0, "job.tasks": [{"duration.ms": 5}]}


def test_sls_names_the_line_of_the_first_bad_byte(tmp_path):
    """What the fuzzer found: the fast path declines, the precise path names where."""
    path = tmp_path / "t.json"
    text = json.dumps(JOB, indent=1).encode()
    path.write_bytes(text + b"\n" + text.replace(b'"j"', b'"\xc3\x28"'))
    at = len(text) + 1 + text.index(b'"j"') + 1  # the byte after the quote
    line = text.count(b"\n") + 2 + text[: text.index(b'"j"')].count(b"\n")
    with pytest.raises(TraceFormatError, match=rf"t\.json:{line}: not UTF-8 text \(byte {at}: "):
        read_trace(path, format="sls")


def test_a_character_across_reads_is_not_the_error(tmp_path):
    """The file is read again in 1 MiB pieces: a valid character cut by one is no error."""
    path = tmp_path / "t.txt"
    head = b"x" * ((1 << 20) - 1) + "é".encode() + b"\nok\n"
    path.write_bytes(head + b"bad \xff\n")
    error = not_utf8(path, "why")
    assert str(error) == f"{path}:3: not UTF-8 text (byte {len(head) + 4}: invalid start byte)"
