"""Executors: where batches of independent evaluations run.

The What-if Model evaluates many candidate configurations, each over several
seeded replicates. Those evaluations are independent, so they go through an
`Executor`: in this process (`SerialExecutor`), on a local process pool
(`ProcessPoolExecutor`, the default), or on a ``dask.distributed`` cluster
(`DaskExecutor`). Results come back in input order and do not depend on the
executor: every evaluation carries its own seed.

Call order: construct, call `map` any number of times, then `close` (or use the
executor as a context manager). Functions and items must be picklable for the
pool and Dask executors.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from whatif.errors import RemoteServiceError, WhatifError

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


class Executor(ABC):
    """Runs ``fn`` over items, returning results in input order.

    An exception raised by ``fn`` for any item propagates from `map` unchanged;
    callers that must record failures per item catch inside ``fn``.
    """

    @abstractmethod
    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """Apply ``fn`` to every item; results in the order of ``items``."""

    def close(self) -> None:  # noqa: B027 - optional hook, no-op by default
        """Release workers or connections."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialExecutor(Executor):
    """Runs everything in the calling process: simplest, and best for tiny batches."""

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        return [fn(item) for item in items]

    def __repr__(self) -> str:
        return "SerialExecutor()"


class ProcessPoolExecutor(Executor):
    """A pool of local worker processes, started lazily and reused across batches."""

    def __init__(self, *, max_workers: int | None = None) -> None:
        if max_workers is not None and max_workers < 1:
            raise WhatifError(f"ProcessPoolExecutor: max_workers must be >= 1, got {max_workers!r}")
        self.max_workers = max_workers
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        items = list(items)
        if len(items) <= 1:
            return [fn(item) for item in items]
        if self._pool is None:
            workers = self.max_workers or os.cpu_count() or 1
            self._pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers)
            logger.debug("started a local pool of %d worker processes", workers)
        return list(self._pool.map(fn, items))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __repr__(self) -> str:
        return f"ProcessPoolExecutor(max_workers={self.max_workers!r})"


class DaskExecutor(Executor):
    """Spreads evaluations over a ``dask.distributed`` cluster.

    Parameters
    ----------
    address : str or distributed.Client
        The scheduler address (``tcp://host:8786``) or an existing client, which
        the executor then does not close.
    """

    def __init__(self, address: Any) -> None:
        try:
            from distributed import Client
        except ImportError as error:
            raise WhatifError(
                "the Dask executor needs dask.distributed: pip install 'tempo-yarn[dask]'"
            ) from error
        if isinstance(address, Client):
            self._client, self._owns_client = address, False
        else:
            try:
                self._client = Client(address, timeout="10s")
            except OSError as error:
                raise RemoteServiceError(
                    f"cannot reach the Dask scheduler at {address}: {error}"
                ) from error
            self._owns_client = True
        self.address = str(getattr(self._client.scheduler, "address", address))

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        items = list(items)
        if not items:
            return []
        futures = self._client.map(fn, items, pure=False)
        results: list[R] = self._client.gather(futures)
        return results

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __repr__(self) -> str:
        return f"DaskExecutor({self.address!r})"


def make_executor(spec: str | Executor | None = None) -> Executor:
    """An executor from a CLI-style spec.

    ``None`` or ``"local"``: a local process pool; ``"local:N"``: a pool of N
    workers; ``"serial"``: in-process; ``"dask://host:port"`` or
    ``"tcp://host:port"``: a Dask cluster; an `Executor` is returned as is.
    """
    if isinstance(spec, Executor):
        return spec
    if spec is None or spec == "local":
        return ProcessPoolExecutor()
    if spec == "serial":
        return SerialExecutor()
    if spec.startswith("local:"):
        try:
            return ProcessPoolExecutor(max_workers=int(spec.split(":", 1)[1]))
        except ValueError:
            raise WhatifError(
                f"executor {spec!r}: expected local:N with N a whole number"
            ) from None
    if spec.startswith("dask://"):
        return DaskExecutor("tcp://" + spec.removeprefix("dask://"))
    if spec.startswith("tcp://"):
        return DaskExecutor(spec)
    raise WhatifError(
        f"executor {spec!r}: expected 'local', 'local:N', 'serial', 'dask://host:port' or 'tcp://host:port'"
    )
