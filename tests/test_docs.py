"""The README and the docs/ pages: Python examples run as written (those marked as needing
a live cluster aside), every relative link and #anchor resolves, every page is in the
MkDocs navigation, and the site builds without a warning."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```.*?^```", flags=re.S | re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _blocks() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for code in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S):
            if not code.startswith("# needs a live cluster"):
                found.append((page.relative_to(ROOT).as_posix(), code))
    return found


BLOCKS = _blocks()


def _slug(heading: str) -> str:
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    return {_slug(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_docs_have_examples():
    """The pages keep runnable Python examples for this test to check."""
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize(
    ("page", "code"), BLOCKS, ids=[f"{p}:{i}" for i, (p, _) in enumerate(BLOCKS)]
)
def test_python_example_runs(page, code, tmp_path):
    """Each runnable ```python block executes without error, with the sample data at hand."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for folder in ("traces", "configs", "templates"):
        (repo / folder).symlink_to(ROOT / folder)
    (tmp_path / "shared").symlink_to(ROOT.parent / "shared")
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        exec(compile(code, page, "exec"), {"__name__": "docs_example"})
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_links_resolve(page):
    """Every relative link (pages, images, files) exists, and every #anchor is a heading of
    its target page."""
    broken = []
    for target in LINK.findall(FENCE.sub("", page.read_text())):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(target)
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(target)
    assert not broken, f"{page.name}: broken links {broken}"


def test_readme_is_one_screen_and_every_page_is_in_the_navigation():
    """The README stays short (details live in docs/), and mkdocs.yml lists every page."""
    assert len((ROOT / "README.md").read_text().splitlines()) < 150
    nav = (ROOT / "mkdocs.yml").read_text()
    missing = [p.name for p in PAGES[1:] if p.name not in nav]
    assert not missing, f"pages not in mkdocs.yml nav: {missing}"


def test_site_builds_strict(tmp_path):
    """`mkdocs build --strict` succeeds with the Material theme: no broken link or missing
    page in the site."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material", reason="mkdocs-material (the dev extra) is not installed")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    home = (tmp_path / "site" / "index.html").read_text()
    assert "md-header" in home and "search" in home, "not the Material theme with search"
