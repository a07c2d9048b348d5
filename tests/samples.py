"""The bundled samples (``traces/``, ``templates/``, ``configs/``) as command-line arguments."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def sample_args(name: str, *, config: bool = False) -> list[str]:
    """``--trace`` and ``--templates`` of the bundled sample `name`; with `config`, also
    ``--config`` with its expert allocation file (``configs/<name>-expert.xml``)."""
    args = ["--trace", str(REPO / "traces" / name), "--templates", str(REPO / "templates" / name)]
    if config:
        args += ["--config", str(REPO / "configs" / f"{name}-expert.xml")]
    return args
