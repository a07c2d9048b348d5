"""The `tempo` command line: click command groups over the library, loaded lazily.

Each command group lives in its own module here and is listed in ``COMMANDS``;
a command parses options, calls one library function and renders the result.
Every command follows the conventions of docs/cli.md, "CLI conventions":
``-q/--quiet`` and ``-v/--verbose`` before or after the subcommand, ``--json`` for
results, ``--force`` to overwrite, and the exit statuses of `tempo.cli.exitcodes`.
A library error becomes one line on stderr (exit 2, an input error; 3 when the
ResourceManager or another remote service failed; 1 when a predicted job never
finishes or the ResourceManager refused a reload); ``tempo --debug`` shows the traceback instead.
"""

from __future__ import annotations

import ctypes
import importlib
import logging
import os
import sys

import click

from tempo.cli import exitcodes
from tempo.errors import ReloadRefused, RMError, TempoError
from whatif.errors import RemoteServiceError, UnfinishedJobsError, WhatifError

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


class CommandError(click.ClickException):
    """A one-line error on stderr with one of `tempo.cli.exitcodes` as the exit status."""

    def __init__(self, message: str, exit_code: int = exitcodes.USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def exit_code_for(error: BaseException) -> int:
    """The exit status a library error maps to (see `tempo.cli.exitcodes`)."""
    if isinstance(error, ReloadRefused | UnfinishedJobsError):
        return exitcodes.NO
    if isinstance(error, RMError | RemoteServiceError):
        return exitcodes.REMOTE
    import requests

    if isinstance(error, requests.RequestException):
        return exitcodes.REMOTE
    return exitcodes.USAGE


def describe_error(error: BaseException) -> str:
    """One line for an error: an `OSError` as ``PATH: reason`` (a full disk, a read-only
    directory: ``out.xml: No space left on device``), anything else as its message."""
    if isinstance(error, OSError) and error.filename and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return str(error)


#: Root log level per verbosity.
_LEVELS = {"quiet": logging.ERROR, "normal": logging.WARNING, "verbose": logging.INFO}


def is_quiet(ctx: click.Context | None = None) -> bool:
    """Whether -q/--quiet was given (before or after the subcommand)."""
    ctx = ctx or click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    return bool(obj and obj.get("verbosity") == "quiet")


def _set_level(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """-q/-v callback: quiet hides warnings and progress bars; verbose logs progress."""
    if not value or ctx.resilient_parsing:
        return
    root = ctx.find_root()
    root.ensure_object(dict)
    root.obj["verbosity"] = param.name
    if not root.obj.get("debug"):
        logging.getLogger().setLevel(_LEVELS[param.name])


def _level_flag(short: str, name: str, help: str) -> click.Option:
    """A flag that sets the verbosity named `name` (a key of `_LEVELS`) when given; eager,
    so it acts before other options' callbacks (reading a --cluster FILE) wherever it stands."""
    return click.Option(
        [short, f"--{name}"],
        is_flag=True,
        expose_value=False,
        callback=_set_level,
        is_eager=True,
        help=help,
    )


def verbosity_options() -> list[click.Option]:
    """``-q/--quiet`` and ``-v/--verbose``, accepted by the group and by every command."""
    return [
        _level_flag("-q", "quiet", "Print only results and errors: no warnings, no progress bars."),
        _level_flag("-v", "verbose", "Log progress to stderr."),
    ]


def with_verbosity(command: click.Command) -> click.Command:
    """Add the verbosity options to `command` and, for a group, to each of its commands."""
    if not getattr(command, "_tempo_verbosity", False):
        names = {p.name for p in command.params}
        command.params.extend(o for o in verbosity_options() if o.name not in names)
        command._tempo_verbosity = True  # type: ignore[attr-defined]
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            with_verbosity(sub)
    return command


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when it is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attribute = target.split(":")
        return with_verbosity(getattr(importlib.import_module(module), attribute))

    def invoke(self, ctx: click.Context) -> object:
        """Run the subcommand; a library error becomes one line and its exit status."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # the reader of stdout went away (``tempo ... | head``): nothing left to say
            # (Python's recipe: stdout to devnull, so its flush at exit cannot fail again)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(exitcodes.BROKEN_PIPE) from None
        except (WhatifError, TempoError, OSError) as error:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            raise CommandError(describe_error(error), exit_code_for(error)) from error
        except Exception as error:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            code = exit_code_for(error)
            if code != exitcodes.REMOTE:
                raise
            raise CommandError(f"remote service: {error}", code) from error


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks and debug logging.")
@click.version_option(package_name="tempo-yarn")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """tempo tunes the YARN Fair (or Capacity) Scheduler to per-queue service-level objectives.

    Exit status: 0 success, 1 the answer is "no" (an SLO not met, a regression),
    2 a usage or input error, 3 the ResourceManager or a remote service failed.
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    logging.basicConfig(format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    verbosity = ctx.obj.get("verbosity", "normal")
    logging.getLogger().setLevel(logging.DEBUG if debug else _LEVELS[verbosity])


with_verbosity(cli)


#: glibc's ``M_MMAP_THRESHOLD`` (malloc.h), and the size from which `map_large_allocations`
#: gives a block its own mapping.
_M_MMAP_THRESHOLD = -3
LARGE_ALLOCATION_BYTES = 4 << 20


def map_large_allocations() -> None:
    """Give every block of `LARGE_ALLOCATION_BYTES` or more its own memory mapping, for the
    life of the process (glibc's ``mallopt``; nothing elsewhere).

    By default glibc raises that threshold to the largest block freed so far (up to 32 MB):
    after a reader's temporaries go, arrays of up to 32 MB come from heap pages that earlier
    arrays left dirty, resident whether the new array writes them or not, and kept when it
    is freed. The predictor's arrays are sized for the worst case (attempt and event rows,
    preemption scratch) and mostly never written: this takes about 70 MB off ``tempo
    predict``'s peak at 1M tasks and 250 MB at 10M. At 4 MiB the mapping costs no time
    measurable here; at 1 MiB a reader's blocks took 2-3 s more system time at 10M tasks.
    (Arrow's pool stays mimalloc: the C library's took 10 MB more off at 1M tasks but 11 s
    more CPU at 10M.)
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return
    mallopt(_M_MMAP_THRESHOLD, LARGE_ALLOCATION_BYTES)


def main() -> None:
    """Console entry point."""
    map_large_allocations()
    cli(prog_name="tempo")
