"""Architecture rules that keep the layers honest."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_whatif_never_imports_tempo():
    """The what-if engine stands alone: no whatif module imports tempo."""
    offenders = [
        str(p.relative_to(ROOT)) for p in (ROOT / "whatif").rglob("*.py") if "tempo" in _imports(p)
    ]
    assert offenders == []


def test_library_code_does_not_print():
    """Library modules log; only the CLI prints."""
    offenders = []
    for package in ("whatif", "tempo"):
        for path in (ROOT / package).rglob("*.py"):
            if "cli" in path.relative_to(ROOT).parts:
                continue
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_ruff_is_clean():
    """The chosen rule set (pyproject's [tool.ruff.lint]) holds everywhere: CI fails on a
    new lint error rather than letting them pile up."""
    import shutil
    import subprocess

    ruff = shutil.which("ruff")
    if ruff is None:
        import pytest

        pytest.skip("ruff is not installed (it is in the dev extra)")
    result = subprocess.run(
        [ruff, "check", "--quiet", "whatif", "tempo", "benchmarks", "tests"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout[-4000:]
