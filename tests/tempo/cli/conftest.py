"""Fixtures of the command-line tests."""

import json
import subprocess
import sys
from collections.abc import Callable, Sequence

import pytest
from click.testing import CliRunner, Result

from tempo.cli import cli


@pytest.fixture
def run() -> Callable[..., Result]:
    """``run(*args)``: ``tempo ARGS`` in-process (each argument as ``str``), its result."""
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args])


@pytest.fixture
def imported_with() -> Callable[[str, Sequence[str]], list[str]]:
    """``imported_with(module, heavy)``: which of the `heavy` modules a fresh interpreter
    holds once `module` is imported (a command's module leaves the slow ones to the
    commands that use them)."""

    def check(module: str, heavy: Sequence[str]) -> list[str]:
        code = (
            f"import json, sys, {module}; "
            f"print(json.dumps([m for m in {tuple(heavy)!r} if m in sys.modules]))"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        found: list[str] = json.loads(done.stdout)
        return found

    return check
