"""`tempo trace`: inspect and convert job traces."""

from __future__ import annotations

import click


@click.group()
def trace() -> None:
    """Inspect and convert job traces."""
