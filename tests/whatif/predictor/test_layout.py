"""The two engines' layout: concept modules of the same names, one cache stamp for the kernel."""

import importlib
import pkgutil

from whatif.predictor import kernel, reference
from whatif.predictor.kernel import caching


def _modules(package) -> dict:
    return {
        info.name: importlib.import_module(f"{package.__name__}.{info.name}")
        for info in pkgutil.iter_modules(package.__path__)
    }


def test_every_kernel_function_is_cached_under_the_stamp_of_every_kernel_source():
    """A caller's cache holds its callees' code, so no kernel function may be cached under
    its own file's stamp alone (a plain ``njit(cache=True)``)."""
    jitted = [
        (name, value)
        for module in _modules(kernel).values()
        for name, value in vars(module).items()
        if hasattr(value, "overloads")
    ]
    assert len(jitted) > 100
    plain = [name for name, d in jitted if not isinstance(d._cache, caching._KernelCache)]
    assert plain == []
    sources = {path.name for path in caching.kernel_sources()}
    assert {f"{name}.py" for name in _modules(kernel)} | {
        "__init__.py",
        "world.py",
        "grid.py",
    } == sources


def test_each_reference_module_is_the_twin_of_a_kernel_module():
    # protocol.py only declares the mixins' shared state for the type checker.
    assert set(_modules(reference)) - {"protocol"} <= set(_modules(kernel))


def test_reference_mixins_never_define_a_method_twice():
    """A method defined in two concept mixins would silently shadow one of them."""
    seen: dict[str, str] = {}
    for base in reference.ReferenceEngine.__mro__[:-1]:
        for name, value in vars(base).items():
            if callable(value) and not name.startswith("__"):
                assert name not in seen, f"{name} in {base.__name__} and {seen[name]}"
                seen[name] = base.__name__
