"""Trace readers: every supported trace format into one `Trace` (Workload + observed Schedule).

Public entry points:

- `read_trace(path, format=None, **options)`: read any supported trace, detecting
  the format from the content when `format` is None;
- `read_workload_trace(path, format=None, **options)`: the same without the observed
  schedule, which SLS and native traces then do not build;
- `detect_format(path)`: the format name of a file or directory;
- `write_native(trace, path, kind="parquet")`: save a trace in tempo's native format;
- `summarize(trace)`: counts, queues, span, resource-time, duration quantiles;
- `read_sls_nodes(path, memory_mb=..., vcores=...)`: an SLS ``nodes.json`` as a `Cluster`;
- `READERS`: format name -> `TraceReader` class (the extension point is
  `whatif.readers.base.TraceReader`).
"""

from __future__ import annotations

from whatif.readers.base import TraceReader, normalize_queue
from whatif.readers.native import read_native, write_native
from whatif.readers.registry import (
    READERS,
    convert_trace,
    detect_format,
    read_trace,
    read_workload_trace,
    reader_for,
)
from whatif.readers.sls import read_sls_nodes
from whatif.readers.summary import QueueSummary, TraceSummary, inspect_trace, summarize

__all__ = [
    "READERS",
    "QueueSummary",
    "TraceReader",
    "TraceSummary",
    "convert_trace",
    "detect_format",
    "inspect_trace",
    "normalize_queue",
    "read_native",
    "read_sls_nodes",
    "read_trace",
    "read_workload_trace",
    "reader_for",
    "summarize",
    "write_native",
]
