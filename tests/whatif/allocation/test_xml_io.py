"""write_allocation: atomic replacement, numbered backups, permissions, refusal of invalid files."""

import os
import stat

import pytest

from whatif.allocation import AllocationDocument, write_allocation
from whatif.allocation.xml_io import element_spans
from whatif.errors import AllocationError

GOOD = b'<allocations>\n  <queue name="a">\n    <weight>1.0</weight>\n  </queue>\n</allocations>\n'


def test_write_creates_the_file_with_the_exact_bytes(tmp_path):
    """A new file gets the document's bytes and no temporary file is left behind."""
    target = tmp_path / "fair-scheduler.xml"
    assert write_allocation(AllocationDocument.from_bytes(GOOD), target) == target
    assert target.read_bytes() == GOOD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fair-scheduler.xml"]


def test_write_keeps_numbered_backups_and_drops_the_oldest(tmp_path):
    """Each write moves the previous file to .1, shifting older backups, up to `backups`."""
    target = tmp_path / "fair.xml"
    doc = AllocationDocument.from_bytes(GOOD)
    versions = [doc.set("root.a", "weight", float(w)) for w in range(1, 5)]
    for version in versions:
        write_allocation(version, target, backups=2)
    assert target.read_bytes() == versions[3].to_bytes()
    assert (tmp_path / "fair.xml.1").read_bytes() == versions[2].to_bytes()
    assert (tmp_path / "fair.xml.2").read_bytes() == versions[1].to_bytes()
    assert not (tmp_path / "fair.xml.3").exists()


def test_write_preserves_the_targets_permissions(tmp_path):
    """The new file has the mode of the file it replaces."""
    target = tmp_path / "fair.xml"
    target.write_bytes(GOOD)
    os.chmod(target, 0o640)
    write_allocation(AllocationDocument.from_bytes(GOOD).set("root.a", "weight", 2.0), target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_write_refuses_a_document_with_errors_and_leaves_the_target(tmp_path):
    """A document Hadoop would reject is not written; the old file stays as it was."""
    target = tmp_path / "fair.xml"
    target.write_bytes(GOOD)
    bad = AllocationDocument.from_bytes(b'<allocations><queue name="a.b"/></allocations>')
    with pytest.raises(AllocationError, match="refusing to write.*line 1.*period"):
        write_allocation(bad, target)
    assert target.read_bytes() == GOOD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fair.xml"]


def test_element_spans_skip_comments_cdata_and_quoted_brackets():
    """The span scanner ignores markup inside comments, CDATA and attribute values."""
    text = '<a x="1>2"><!-- <b> --><![CDATA[<c>]]><d/><e>t</e></a>'
    spans = element_spans(text)
    assert [s.tag for s in spans] == ["a", "d", "e"]
    assert spans[1].self_closing and text[spans[2].start_end : spans[2].end_start] == "t"
