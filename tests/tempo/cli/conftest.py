"""Fixtures of the command-line tests."""

from collections.abc import Callable

import pytest
from click.testing import CliRunner, Result

from tempo.cli import cli


@pytest.fixture
def run() -> Callable[..., Result]:
    """``run(*args)``: ``tempo ARGS`` in-process (each argument as ``str``), its result."""
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args])
