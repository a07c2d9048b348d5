"""The demo's work directory: a second run resumes the first, so it must tune the same inputs."""

from pathlib import Path

import pytest

from tempo.errors import TempoError
from tempo.loop.demo import DEMO_RUN, demo_paths
from tempo.loop.settings import TuneSettings

REPO = Path(__file__).resolve().parents[2]


def test_a_run_with_other_inputs_is_refused_and_the_same_inputs_resume(tmp_path):
    """The first run records its configuration, trace, templates and cluster; a run with
    the same resumes (its copy of the file is kept), one with another configuration is
    refused naming what differs, before anything is copied."""
    work = tmp_path / "work"
    first = demo_paths(TuneSettings(work_dir=work))
    assert (work / DEMO_RUN).exists() and first.config.exists()
    first.config.write_text(first.config.read_text() + "<!-- tuned -->\n")
    again = demo_paths(TuneSettings(work_dir=work))
    assert again.config.read_text().endswith("<!-- tuned -->\n")
    other = TuneSettings(
        work_dir=work,
        config_path=REPO / "configs" / "two-tenant-expert.xml",
        trace_path=REPO / "traces" / "two-tenant",
        templates_path=REPO / "templates" / "two-tenant",
    )
    with pytest.raises(TempoError) as refused:
        demo_paths(other)
    assert "holds another demo run" in str(refused.value)
    assert "--config" in str(refused.value) and "--trace" in str(refused.value)


def test_a_work_dir_with_files_but_no_record_is_refused(tmp_path):
    """A directory tempo did not start (or one from before the record) is not resumed."""
    (tmp_path / "fair-scheduler.xml").write_text("<allocations/>")
    with pytest.raises(TempoError, match="holds no record of a demo run"):
        demo_paths(TuneSettings(work_dir=tmp_path))
