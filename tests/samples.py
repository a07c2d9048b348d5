"""The bundled samples (``traces/``, ``templates/``, ``configs/``) as command-line arguments,
small capacity-scheduler.xml documents for tests, and ``tempo trace inspect`` run on a trace."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from whatif.capacity import ConfigurationDocument

if TYPE_CHECKING:
    from click.testing import Result

REPO = Path(__file__).resolve().parents[1]


def sample_args(name: str, *, config: bool = False) -> list[str]:
    """``--trace`` and ``--templates`` of the bundled sample `name`; with `config`, also
    ``--config`` with its expert allocation file (``configs/<name>-expert.xml``)."""
    args = ["--trace", str(REPO / "traces" / name), "--templates", str(REPO / "templates" / name)]
    if config:
        args += ["--config", str(REPO / "configs" / f"{name}-expert.xml")]
    return args


def capacity_document(props: Mapping[str, object]) -> ConfigurationDocument:
    """A capacity-scheduler.xml of `props`, a property a block (short names after
    ``yarn.scheduler.capacity.``, or full ``yarn.`` names)."""
    body = "".join(
        f"  <property>\n    <name>{k if k.startswith('yarn.') else CAPACITY_PREFIX + k}</name>\n"
        f"    <value>{v}</value>\n  </property>\n"
        for k, v in props.items()
    )
    return ConfigurationDocument.from_bytes(f"<configuration>\n{body}</configuration>\n".encode())


CAPACITY_PREFIX = "yarn.scheduler.capacity."


def trace_inspect(path: Path, *flags: str) -> Result:
    """``tempo trace inspect PATH FLAGS`` run in-process; the test fails unless it exits 0."""
    from click.testing import CliRunner

    from tempo.cli import cli

    result = CliRunner().invoke(cli, ["trace", "inspect", str(path), *flags])
    assert result.exit_code == 0, result.output
    return result
