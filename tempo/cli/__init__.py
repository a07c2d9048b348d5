"""The `tempo` command line: click command groups over the library, loaded lazily.

Each command group lives in its own module here and is listed in ``COMMANDS``;
a command parses options, calls one library function and renders the result.
Library errors become one line on stderr and exit status 1 (2 for usage errors);
``tempo --debug`` shows the traceback instead.
"""

from __future__ import annotations

import importlib
import logging
import sys

import click

from tempo.errors import TempoError
from whatif.errors import WhatifError

#: CLI name -> "module:attribute" of the click command or group.
COMMANDS: dict[str, str] = {
    "config": "tempo.cli.config:config",
    "emulate-rm": "tempo.cli.emulate:emulate_rm",
    "history": "tempo.cli.history:history",
    "optimize": "tempo.cli.optimize:optimize",
    "predict": "tempo.cli.predict:predict",
    "qs": "tempo.cli.qs:qs",
    "trace": "tempo.cli.trace:trace",
    "tune": "tempo.cli.tune:tune",
    "whatif": "tempo.cli.whatif:whatif",
    "workload": "tempo.cli.workload:workload",
}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when it is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attribute = target.split(":")
        return getattr(importlib.import_module(module), attribute)

    def invoke(self, ctx: click.Context) -> object:
        """Run the subcommand; a library error becomes one line and exit status 1."""
        try:
            return super().invoke(ctx)
        except (WhatifError, TempoError) as error:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            raise click.ClickException(str(error)) from error


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks and debug logging.")
@click.option("-v", "--verbose", is_flag=True, help="Log progress to stderr.")
@click.version_option(package_name="tempo-yarn")
@click.pass_context
def cli(ctx: click.Context, debug: bool, verbose: bool) -> None:
    """tempo tunes the YARN Fair Scheduler to per-queue service-level objectives."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    level = logging.DEBUG if debug else logging.INFO if verbose else logging.WARNING
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


def main() -> None:
    """Console entry point."""
    cli(prog_name="tempo")
