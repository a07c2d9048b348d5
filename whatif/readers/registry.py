"""The one mapping from format names (as the CLI spells them) to reader classes.

The mapping is a literal, read-only table: adding a reader means adding one line
here (and its fixtures to the contract suite in ``tests/contracts``). The order is
the order `detect_format` tries the readers' ``sniff`` methods in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from whatif.errors import TraceFormatError
from whatif.readers.base import SNIFF_BYTES, TraceReader
from whatif.readers.jhist import JhistReader
from whatif.readers.native import NativeReader
from whatif.readers.rest_dump import RestDumpReader
from whatif.readers.rumen import RumenReader
from whatif.readers.sls import SlsReader
from whatif.readers.swim import SwimReader

#: Format name -> reader class, in detection order.
READERS: Mapping[str, type[TraceReader]] = MappingProxyType(
    {
        "native": NativeReader,
        "jhist": JhistReader,
        "rumen": RumenReader,
        "sls": SlsReader,
        "rest": RestDumpReader,
        "swim": SwimReader,
    }
)


def reader_for(name: str, *, path: Path | None = None) -> type[TraceReader]:
    """The reader class registered under `name`."""
    try:
        return READERS[name]
    except KeyError:
        where = f"{path}: " if path is not None else ""
        raise TraceFormatError(
            f"{where}unknown trace format {name!r}; expected one of {', '.join(READERS)}"
        ) from None


def _head(path: Path) -> bytes:
    """The first bytes of `path`, or of the first regular file in a directory."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            return b""
        path = files[0]
    with open(path, "rb") as handle:
        return handle.read(SNIFF_BYTES)


def detect_format(path: str | os.PathLike[str]) -> str:
    """The registered format name of the trace at `path`, judged from its content.

    Raises `TraceFormatError` (one line naming the file) when the path does not
    exist or no reader recognises it.
    """
    target = Path(path)
    if not target.exists():
        raise TraceFormatError(f"{target}: no such file or directory")
    try:
        head = _head(target)
    except OSError as error:
        raise TraceFormatError(f"{target}: cannot read ({error.strerror or error})") from error
    for name, reader in READERS.items():
        if reader.sniff(target, head):
            return name
    raise TraceFormatError(
        f"{target}: not a trace this tool can read (expected one of: {', '.join(READERS)})"
    )
