"""The fast paths' shared JSON reading: bytes that are not UTF-8 are declined, not parsed."""

import io

import pyarrow as pa
import pytest

from whatif.readers.arrow_json import Declined, _Watched, iter_batches

SCHEMA = pa.schema([("name", pa.string())])


def _read(tmp_path, data: bytes) -> list[str]:
    path = tmp_path / "t.json"
    path.write_bytes(data)
    batches = iter_batches(path, SCHEMA, block_bytes=1 << 10)
    return [name for batch in batches for name in batch.column(0).to_pylist()]


def test_text_that_is_not_ascii_is_read(tmp_path):
    assert _read(tmp_path, '{"name": "é"}\n{"name": "😀 ok"}'.encode()) == ["é", "😀 ok"]


@pytest.mark.parametrize(
    "data",
    [
        b'{"name": "\xc3\x28"}',  # an invalid sequence in a field read
        b'{"name": "a", "other": "\xff\xfe"}',  # in a field Arrow skips
        b'{"name": "a"}\n' * 400 + b'{"name": "\xe9"}',  # in a later block (Latin-1)
    ],
)
def test_bytes_that_are_not_utf8_are_declined(tmp_path, data):
    """Arrow does not check UTF-8: such strings would raise UnicodeDecodeError later."""
    with pytest.raises(Declined, match="not UTF-8"):
        _read(tmp_path, data)


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_a_character_split_between_reads_is_valid(size):
    """The check carries a character's first bytes over to the next read; one cut short
    by the end of the file is invalid."""
    cases = (b"a\xc3\xa9\xf0\x9f\x98\x80b", True), (b"a\xf0\x9f\x98b", False), (b"a\xf0\x9f", False)
    for data, valid in cases:
        watched = _Watched(io.BytesIO(data), None, None)
        buffer = bytearray(size)
        while watched.readinto(buffer):
            pass
        assert watched.not_utf8 is not valid
