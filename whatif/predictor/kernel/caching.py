"""numba's on-disk cache for the kernel, stamped with every kernel source, not one file.

numba links a jitted callee's code into each caller's compiled code and stamps a
cached function with the hash of its own file only. With the kernel split into modules,
a change to one of them (or to ``world.py``, whose helpers every module calls) would
leave the callers in other modules loading stale code from the cache. `kernel_jit`
is ``njit(cache=True)`` whose cache entries are stamped with a hash of all of them.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from numba import njit, types
from numba.core import caching

PACKAGE = Path(__file__).parent


def kernel_sources() -> tuple[Path, ...]:
    """The files whose code the kernel's compiled functions hold: its modules,
    ``world.py`` and ``grid.py``."""
    return (*sorted(PACKAGE.glob("*.py")), PACKAGE.parent / "world.py", PACKAGE.parent / "grid.py")


@functools.cache
def kernel_stamp() -> str:
    """A hash of every kernel source (once per process)."""
    digest = hashlib.sha256()
    for path in kernel_sources():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _numba_locator(name: str) -> Any:
    """One of numba's cache locator classes (numba has no type hints here: Any)."""
    # numba 0.68 made its locator classes public; earlier versions prefix them with "_"
    return getattr(caching, name, None) or getattr(caching, "_" + name)


class _KernelStamped:
    """A cache locator whose source stamp is `kernel_stamp`."""

    def get_source_stamp(self) -> str:
        return kernel_stamp()


def _locator(name: str) -> type[Any]:
    return type(f"Kernel{name}", (_KernelStamped, _numba_locator(name)), {})


class _KernelCacheImpl(caching.CompileResultCacheImpl):
    # as numba's default order: NUMBA_CACHE_DIR if set, the package's __pycache__, else
    # the user-wide cache
    _locator_classes = [
        _locator("UserProvidedCacheLocator"),
        _locator("InTreeCacheLocator"),
        _locator("UserWideCacheLocator"),
    ]


class _KernelCache(caching.FunctionCache):
    _impl_class = _KernelCacheImpl


def kernel_jit(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``njit(cache=True, **options)`` with the cache stamped by `kernel_stamp`; used bare
    (``@kernel_jit``) or with options (``@kernel_jit(inline="always")``). Returns a numba
    Dispatcher (or the decorator), which numba does not type: Any, as `njit` is."""

    def decorate(f: Callable[..., Any]) -> Any:
        dispatcher = njit(cache=True, **options)(f)
        dispatcher._cache = _KernelCache(dispatcher.py_func)  # numba's enable_caching, restamped
        _compile_unliteral(dispatcher)
        return dispatcher

    return decorate(func) if func is not None else decorate


def _compile_unliteral(dispatcher: Any) -> None:
    """Compile a kernel function once per kind of argument, not once more for each integer
    constant or narrower integer a caller passes: numba types a call's constant argument
    as a literal (``Literal[int](0)``), and an int32 array element as int32, and compiles,
    links and caches a separate copy of the callee (and of everything it calls) for each -
    a third of a cold compile. No kernel function dispatches on an argument's value, and a
    signed integer widened to int64 keeps its value."""
    call_template = dispatcher.get_call_template

    def get_call_template(args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
        return call_template(
            tuple(_widened(a) for a in args), {k: _widened(v) for k, v in kws.items()}
        )

    dispatcher.get_call_template = get_call_template


def _widened(arg: Any) -> Any:
    """`arg`'s numba type without a literal value, a signed integer as int64."""
    arg = types.unliteral(arg)
    return types.int64 if arg in _NARROW_SIGNED else arg


_NARROW_SIGNED = (types.int8, types.int16, types.int32)
