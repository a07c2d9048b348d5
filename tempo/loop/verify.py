"""Verify: after a reload, poll the RM until the new settings show in force, or time out.

With an `RMClient` the scheduler endpoint must match the candidate (per format,
`tempo.loop.config_format`); any other check is a callable saying yes or no.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tempo.errors import ApplyError
from tempo.loop.config_format import Check, ConfigFormat
from tempo.rm.client import RMClient

#: A confirmation: an RM client, or a callable saying whether the new file is in force.
Confirm = Callable[[], bool] | RMClient


def confirmer(confirm: Confirm, document: Any, fmt: ConfigFormat) -> Check:
    """A check returning (in force?, why not)."""
    if isinstance(confirm, RMClient):
        return fmt.confirm(confirm, document)
    if not callable(confirm):
        raise ApplyError(
            f"confirm: expected an RMClient or a callable, got {type(confirm).__name__}"
        )

    def call() -> tuple[bool, str]:
        return (True, "confirmed") if confirm() else (False, "the confirmation check said no")

    return call


def wait_for(
    check: Check,
    timeout_s: float,
    poll_s: float,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
) -> tuple[bool, str]:
    """Poll `check` every `poll_s` until it says yes or `timeout_s` passed: (ok, why)."""
    deadline = clock() + timeout_s
    while True:
        ok, why = check()
        if ok:
            return True, why
        if clock() >= deadline:
            return False, f"not confirmed within {timeout_s:g} s: {why}"
        sleep(min(poll_s, max(deadline - clock(), 0.0)))
