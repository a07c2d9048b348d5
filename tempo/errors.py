"""Exceptions raised by the tuner. Errors from the what-if engine pass through as they are."""

from __future__ import annotations


class TempoError(Exception):
    """Root of all tuner errors."""


class TemplateSyntaxError(TempoError):
    """A QS template file is malformed; carries the file, line and column."""

    def __init__(
        self, message: str, *, path: str = "<string>", line: int = 0, column: int = 0
    ) -> None:
        self.path, self.line, self.column = path, line, column
        super().__init__(f"{path}:{line}:{column}: {message}")


class RMError(TempoError):
    """The ResourceManager or JobHistory Server could not be reached or understood."""


class ReloadRefused(RMError):
    """The ResourceManager was reached and refused the configuration (the answer "no",
    exit status 1, not a remote failure)."""


class JournalError(TempoError):
    """The iteration journal cannot be opened, is of an unknown schema, or was misused."""


class ApplyError(TempoError):
    """A configuration cannot be applied or a dangling apply cannot be recovered safely."""
