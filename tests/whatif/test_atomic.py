"""write_atomic: one writer for every file tempo writes, new files readable by others (0644)."""

import ast
import json
import os
import stat
from pathlib import Path

import pytest

from whatif.allocation import AllocationDocument, write_allocation
from whatif.atomic import NEW_FILE_MODE, write_atomic
from whatif.workload_model.schema import write_json

ROOT = Path(__file__).resolve().parents[2]
GOOD = b'<allocations>\n  <queue name="a">\n    <weight>1.0</weight>\n  </queue>\n</allocations>\n'


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def strict_umask():
    """A umask of 077, under which mkstemp's 0600 would otherwise stay."""
    old = os.umask(0o077)
    yield
    os.umask(old)


def test_a_new_file_is_0644_whatever_the_umask(tmp_path, strict_umask):
    target = write_atomic(tmp_path / "a.txt", "hello\n")
    assert target.read_text() == "hello\n"
    assert _mode(target) == NEW_FILE_MODE == 0o644


def test_an_existing_file_keeps_its_mode(tmp_path):
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new" and _mode(target) == 0o640


def test_a_failure_before_the_rename_leaves_the_target_and_no_temporary(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")

    def fail(_: Path) -> None:
        raise OSError("disk on fire")

    with pytest.raises(OSError, match="disk on fire"):
        write_atomic(target, "new", before_replace=fail)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_allocation_files_and_workload_models_are_readable_by_the_rm_user(tmp_path, strict_umask):
    """The files a user hands to the ResourceManager (or shares) are not 0600."""
    xml = write_allocation(AllocationDocument.from_bytes(GOOD), tmp_path / "fair-scheduler.xml")
    write_json({"format": "x"}, tmp_path / "model.json")
    assert _mode(xml) == 0o644
    assert _mode(tmp_path / "model.json") == 0o644
    assert json.loads((tmp_path / "model.json").read_text()) == {"format": "x"}


def test_no_other_module_creates_temporary_files_to_rename():
    """One atomic writer: mkstemp appears only in whatif/atomic.py."""
    offenders = []
    for package in ("whatif", "tempo"):
        for path in (ROOT / package).rglob("*.py"):
            if path == ROOT / "whatif" / "atomic.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.Attribute) and node.attr in (
                    "mkstemp",
                    "NamedTemporaryFile",
                ):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_a_symbolic_link_is_written_through_with_its_backups_beside_the_file(tmp_path):
    """A link's target file gets the new bytes (and the numbered backup) and the link stays
    a link, so the ResourceManager, which reads the file the link names, sees the change."""
    from whatif.atomic import rotate_backups

    real = tmp_path / "managed" / "fair-scheduler.xml"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "fair-scheduler.xml"
    link.symlink_to(real)
    assert write_atomic(link, "new", before_replace=lambda t: rotate_backups(t, 1)) == link
    assert link.is_symlink() and real.read_text() == "new"
    assert (real.parent / "fair-scheduler.xml.1").read_text() == "old"
