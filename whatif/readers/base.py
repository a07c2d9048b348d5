"""The `TraceReader` extension point: one subclass per trace format.

Call order (what `whatif.readers.read_trace` does):

1. ``detect_format`` (only when no format is given) calls each registered reader's
   classmethod ``sniff(path, head)`` in registry order, with the first bytes of the
   file (or of the first file of a directory), and takes the first reader that
   answers True. ``sniff`` must be cheap, must not raise, and must not read the
   whole file.
2. The reader is constructed with the caller's keyword-only options
   (``Reader(**options)``); the constructor only stores them.
3. ``read(path)`` is called once. It validates the options, streams the file, and
   returns a `Trace` whose workload (and observed schedule, when the source
   recorded real times) passed the data model's validation. A caller that needs no
   observed schedule (``read_workload_trace``, e.g. ``tempo predict``)
   calls ``read_workload(path)`` instead: the same Trace without it, which readers that
   can skip building it (SLS, native) read in less time and memory.

What an implementation guarantees:

- every problem with the input raises `TraceFormatError` (never a bare
  ``KeyError``/``ValueError``/``json.JSONDecodeError``) whose message names the file
  and the line or record, and says what was expected;
- queues are full Fair Scheduler paths (`normalize_queue`);
- times are float seconds (epoch seconds when the source recorded real times);
- memory stays bounded by the output tables: files are read line by line or object
  by object, never slurped whole into Python objects.
"""

from __future__ import annotations

import codecs
import inspect
from abc import ABC, abstractmethod
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from whatif.errors import TraceFormatError
from whatif.queues import normalize_queue as normalize_queue  # re-exported: readers name queues
from whatif.trace import Trace

#: How many bytes `sniff` sees.
SNIFF_BYTES = 4096


def not_utf8(path: Path, reason: str) -> TraceFormatError:
    """The error for a text file with bytes that are not UTF-8, naming the line and byte
    offset of the first one (found again by reading the file in binary)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, lines = 0, 1
    try:
        with open(path, "rb") as handle:
            while True:
                chunk = handle.read(1 << 20)
                pending = len(decoder.getstate()[0])
                try:
                    decoder.decode(chunk, final=not chunk)
                except UnicodeDecodeError as error:
                    at = offset - pending + error.start
                    lines += chunk.count(b"\n", 0, max(at - offset, 0))
                    return TraceFormatError(
                        f"{path}:{lines}: not UTF-8 text (byte {at}: {error.reason})"
                    )
                if not chunk:
                    break
                offset += len(chunk)
                lines += chunk.count(b"\n")
    except OSError:
        pass
    return TraceFormatError(f"{path}: not UTF-8 text ({reason})")


class TraceReader(ABC):
    """Reads one trace format into a `Trace` (see the module docstring for the call order).

    Subclasses set ``name`` (the registry and CLI name) and ``description``, take
    their options as keyword-only constructor arguments stored verbatim, and
    implement `sniff` and `read`.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    @classmethod
    @abstractmethod
    def sniff(cls, path: Path, head: bytes) -> bool:
        """Whether `path`, whose first bytes are `head`, looks like this format."""

    @abstractmethod
    def read(self, path: Path) -> Trace:
        """Read the whole trace at `path`; raise `TraceFormatError` on bad input."""

    def read_workload(self, path: Path) -> Trace:
        """`read` without the observed schedule (``observed`` None), same errors.

        This default reads it and drops it; a reader that can skip building it overrides this.
        """
        return replace(self.read(path), observed=None)

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """The keyword options the constructor accepts."""
        params = inspect.signature(cls.__init__).parameters.values()
        return tuple(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)

    @classmethod
    def create(cls, path: Path, **options: object) -> TraceReader:
        """Construct the reader, turning an unknown option into a clear error."""
        unknown = sorted(set(options) - set(cls.option_names()))
        if unknown:
            allowed = ", ".join(cls.option_names()) or "none"
            raise TraceFormatError(
                f"{path}: format {cls.name!r} has no option {', '.join(unknown)} (options: {allowed})"
            )
        return cls(**options)


class ContainerSizedReader(TraceReader):
    """A reader of history that does not always record container sizes: tasks then take
    the ``map_memory_mb`` and ``reduce_memory_mb`` options, and every task ``vcores``.

    Subclasses with more size options (jhist's ``am_memory_mb``) add them as keyword-only
    constructor arguments; `check_sizes` checks them all.
    """

    #: Constructor options that are not sizes (a subclass checks those itself).
    non_size_options: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        *,
        map_memory_mb: float = 1024.0,
        reduce_memory_mb: float = 1024.0,
        vcores: float = 1.0,
    ) -> None:
        self.map_memory_mb = map_memory_mb
        self.reduce_memory_mb = reduce_memory_mb
        self.vcores = vcores

    def check_sizes(self, path: Path) -> None:
        """Raise `TraceFormatError`, naming `path` and the option, unless every option is a
        number >= 0 (they are stored verbatim, so a bad one surfaces on reading)."""
        for option in self.option_names():
            if option in self.non_size_options:
                continue
            value = getattr(self, option)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise TraceFormatError(
                    f"{path}: option {option} expects a number >= 0, got {value!r}"
                )
