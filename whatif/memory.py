"""`release_free_memory`: hand memory that dropped arrays left free back to the system.

Large runs build big temporaries (a reader's per-block arrays, the predictor's packing)
and drop them. Allocators keep freed pages for reuse, but later large arrays are often
fresh mappings that never reuse them, and Arrow (mimalloc) and numpy (the C heap) do not
share their free pages: without handing them back, some 200 MB at 1M tasks (2 GB at 10M)
of freed temporaries would sit under the next stage's peak.
"""

from __future__ import annotations

import ctypes

import pyarrow as pa


def release_free_memory() -> None:
    """Hand free memory back to the system: Arrow's pool, then the C heap (glibc's
    ``malloc_trim``, where there is one)."""
    pa.default_memory_pool().release_unused()
    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    except (OSError, TypeError):  # no C library to look in (Windows)
        return
    if trim is not None:
        trim(0)
