"""`options.writing_output`: a write that fails late names the option, its path and what it
expects; an error about any other file passes through as it was."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from tempo.cli import CommandError, exitcodes
from tempo.cli.options import writing_output
from whatif.report import write_pages


def test_a_report_directory_that_cannot_be_made_names_the_option(tmp_path):
    """--report A/B/C where A became a file after the early check: exit 2 naming the
    directory mkdir failed on, --report and what it expects; nothing is created."""
    (tmp_path / "a").write_text("not a directory")
    report = tmp_path / "a" / "b" / "c"
    with (
        pytest.raises(CommandError) as caught,
        writing_output(report, option="--report", directory=True),
    ):
        write_pages(report, {}, "<html></html>")
    assert caught.value.exit_code == exitcodes.USAGE
    assert caught.value.message == (
        f"{report}: cannot be written (--report expects a writable directory, created if "
        "missing): Not a directory; the previous output, if any, is left as it was"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["a"]


def test_an_os_error_about_another_file_passes_through(tmp_path):
    """Only errors about the output (or a file under it) are the option's: a full disk
    while writing the journal, or an input that cannot be read, keep their own error."""
    other = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "journal"))
    with pytest.raises(OSError) as caught, writing_output(tmp_path / "out.xml", option="-o"):
        raise other
    assert caught.value is other
    inside = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "out" / "x"))
    with pytest.raises(CommandError, match=r"x: cannot be written \(-o expects"):
        with writing_output(Path(tmp_path / "out"), option="-o", directory=True):
            raise inside
