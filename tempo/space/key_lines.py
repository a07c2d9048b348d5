"""Line numbers of the keys of a TOML text, for error messages (tomllib gives none for valid files)."""

from __future__ import annotations

import re

_KEY_PART = r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+'
_HEADER = re.compile(rf"^\s*\[\s*((?:{_KEY_PART})(?:\s*\.\s*(?:{_KEY_PART}))*)\s*\]")
_KEY = re.compile(rf"^\s*((?:{_KEY_PART})(?:\s*\.\s*(?:{_KEY_PART}))*)\s*=")


class KeyLines:
    """Where each key of a TOML text is defined, so errors can name the line.

    tomllib reports lines only for syntax errors; this index covers the keys of
    valid files (table headers and ``key = value`` lines, dotted keys included).
    """

    def __init__(self, text: str, path: str) -> None:
        self.path = path
        self.lines: dict[tuple[str, ...], int] = {}
        table: tuple[str, ...] = ()
        for number, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header and not line.lstrip().startswith("[["):
                table = _split(header[1])
                self.lines.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key:
                self.lines.setdefault(table + _split(key[1]), number)

    def at(self, path: tuple[str, ...]) -> str:
        """``file:line`` of the innermost key of `path` that the text defines (``file`` if none)."""
        for end in range(len(path), 0, -1):
            if path[:end] in self.lines:
                return f"{self.path}:{self.lines[path[:end]]}"
        return self.path


def _split(dotted: str) -> tuple[str, ...]:
    parts = re.findall(_KEY_PART, dotted)
    return tuple(p[1:-1] if p[:1] in ("'", '"') else p for p in parts)
