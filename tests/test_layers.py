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
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-4000:]


#: The what-if engine's layers, bottom first (docs/architecture.md): a part may import
#: its own layer and the ones below, never one above.
WHATIF_LAYERS = (
    {"errors", "_validation", "queues", "durations", "cluster", "atomic", "executors", "ets"},
    {"workload", "schedule", "trace"},
    {"readers", "allocation", "capacity"},
    {"predictor", "metrics"},
    {
        "whatif_model",
        "accuracy",
        "schedule_summary",
        "scaleup_check",
        "workload_model",
        "forecast",
        "nested",
    },
    {"provisioning", "report"},
)


def _part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "whatif" and len(parts) > 1 else None


def test_whatif_layers_only_look_down():
    """Every whatif part belongs to a layer, and imports only its own layer or lower ones."""
    layer = {name: i for i, names in enumerate(WHATIF_LAYERS) for name in names}
    found = {p.stem if p.is_file() else p.name for p in (ROOT / "whatif").iterdir()}
    parts = {n for n in found if not n.startswith("__") and n != "py.typed"}
    assert parts <= set(layer), f"whatif parts with no layer: {sorted(parts - set(layer))}"
    upward = []
    for path in (ROOT / "whatif").rglob("*.py"):
        rel = path.relative_to(ROOT / "whatif").parts
        if rel == ("__init__.py",):
            continue
        own = layer[rel[0].removesuffix(".py")]
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                target = _part(name)
                if target in layer and layer[target] > own:
                    upward.append(f"{path.relative_to(ROOT)}:{node.lineno} imports whatif.{target}")
    assert not upward, upward
