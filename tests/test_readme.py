"""The README's Python examples run as written (those marked as needing a live cluster aside)."""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
RUNNABLE = [code for code in BLOCKS if not code.startswith("# needs a live cluster")]


def test_readme_has_examples():
    """The README keeps runnable Python examples for this test to check."""
    assert len(RUNNABLE) >= 5


@pytest.mark.parametrize("code", RUNNABLE, ids=[f"example{i}" for i in range(len(RUNNABLE))])
def test_readme_python_example_runs(code, tmp_path):
    """Each runnable ```python block executes without error, with the sample data at hand."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for folder in ("traces", "configs", "templates"):
        (repo / folder).symlink_to(ROOT / folder)
    (tmp_path / "shared").symlink_to(ROOT.parent / "shared")
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})
    finally:
        os.chdir(cwd)
