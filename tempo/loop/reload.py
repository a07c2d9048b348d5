"""Reload: how the ResourceManager is made to re-read the file tempo wrote."""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tempo.errors import ApplyError

#: The reload command run by default (Hadoop's immediate queue refresh).
DEFAULT_RELOAD_COMMAND = ("yarn", "rmadmin", "-refreshQueues")

#: Seconds the Fair Scheduler may take to reload a changed file on its own (10 s poll + 5 s quiet).
RM_RELOAD_WAIT_S = 15.0


@dataclass(frozen=True)
class Reload:
    """How the ResourceManager is made to re-read the allocation file.

    Either ``command`` (an argument vector run without a shell, e.g.
    ``("yarn", "rmadmin", "-refreshQueues")``; it must exit 0 within
    ``timeout_s``), or, with ``command`` None, a wait of ``wait_s`` seconds for the
    RM's own periodic reload.
    """

    command: tuple[str, ...] | None = DEFAULT_RELOAD_COMMAND
    timeout_s: float = 60.0
    wait_s: float = 0.0

    def __post_init__(self) -> None:
        if self.command is not None:
            if isinstance(self.command, str) or not all(isinstance(a, str) for a in self.command):
                raise ApplyError(
                    f"Reload.command: expected a sequence of strings, got {self.command!r}"
                )
            object.__setattr__(self, "command", tuple(self.command))
            if not self.command:
                raise ApplyError(
                    "Reload.command: expected a program and its arguments, got nothing"
                )
        if not self.timeout_s > 0:
            raise ApplyError(f"Reload.timeout_s: expected > 0, got {self.timeout_s!r}")
        if not self.wait_s >= 0:
            raise ApplyError(f"Reload.wait_s: expected >= 0, got {self.wait_s!r}")

    @classmethod
    def run(cls, command: str | Sequence[str], *, timeout_s: float = 60.0) -> Reload:
        """Run `command` (an argument vector, or a string split as a POSIX shell would) to reload."""
        argv = shlex.split(command) if isinstance(command, str) else tuple(command)
        return cls(command=tuple(argv), timeout_s=timeout_s)

    @classmethod
    def wait(cls, seconds: float = RM_RELOAD_WAIT_S) -> Reload:
        """Wait `seconds` for the RM's own reload (10 s poll after a 5 s quiet period)."""
        return cls(command=None, wait_s=seconds)

    def describe(self) -> str:
        if self.command is None:
            return f"wait {self.wait_s:g} s for the RM's own reload"
        return shlex.join(self.command)

    def perform(self, *, sleep: Callable[[float], None] = time.sleep) -> str | None:
        """Reload now; None on success, else one line saying what failed."""
        if self.command is None:
            sleep(self.wait_s)
            return None
        argv = list(self.command)
        try:
            result = subprocess.run(  # noqa: S603 (an argument vector, never a shell)
                argv, timeout=self.timeout_s, capture_output=True, text=True, check=False
            )
        except FileNotFoundError:
            return f"reload command {argv[0]!r} not found"
        except subprocess.TimeoutExpired:
            return f"reload command {self.describe()!r} did not finish within {self.timeout_s:g} s"
        except OSError as error:
            return f"reload command {self.describe()!r} could not run: {error.strerror}"
        if result.returncode != 0:
            said = (result.stderr or result.stdout or "").strip().splitlines()
            tail = f": {said[-1]}" if said else ""
            return (
                f"reload command {self.describe()!r} exited with status {result.returncode}{tail}"
            )
        return None


#: `yarn rmadmin -refreshQueues`, 60 s timeout.
DEFAULT_RELOAD = Reload()
