"""The first simulation after an install says it is compiling instead of looking stalled."""

import logging
import os
import time

from whatif.predictor import compiled


def test_a_cache_older_than_the_kernel_or_none_is_cold(tmp_path):
    """No index file, or only one older than kernel.py, is cold; a newer one is warm."""
    assert not compiled.kernel_cache_is_warm((tmp_path,))
    index = tmp_path / "kernel.run-1.py311.nbi"
    index.write_bytes(b"")
    old = os.stat(compiled.K.__file__).st_mtime - 100
    os.utime(index, (old, old))
    assert not compiled.kernel_cache_is_warm((tmp_path,))
    now = time.time() + 100
    os.utime(index, (now, now))
    assert compiled.kernel_cache_is_warm((tmp_path,))


def test_a_cold_cache_is_announced_once(monkeypatch, caplog):
    """With a cold cache the warning is logged once per process, however many engines."""
    compiled.announce_compilation.cache_clear()
    monkeypatch.setattr(compiled, "kernel_cache_is_warm", lambda: False)
    with caplog.at_level(logging.WARNING, logger="whatif.predictor.compiled"):
        compiled.announce_compilation()
        compiled.announce_compilation()
    compiled.announce_compilation.cache_clear()
    notes = [r for r in caplog.records if "compiling the predictor" in r.getMessage()]
    assert len(notes) == 1


def test_auto_engine_replays_a_small_workload_by_reference_until_the_kernel_is_compiled(caplog):
    """auto: numba once compiled or for a large workload; the reference engine (same
    schedule) for a small one while the kernel is cold, said on stderr."""
    with caplog.at_level(logging.WARNING, logger="whatif.predictor.compiled"):
        assert compiled.choose_engine("auto", 6_668, warm=False) == "reference"
    assert "reference engine replays these 6668 tasks" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="whatif.predictor.compiled"):
        assert compiled.choose_engine("auto", 6_668, warm=True) == "numba"
        limit = compiled.AUTO_REFERENCE_TASKS
        assert compiled.choose_engine("auto", limit + 1, warm=False) == "numba"
        assert compiled.choose_engine("auto", limit, warm=False) == "reference"
        assert compiled.choose_engine("numba", 10, warm=False) == "numba"
        assert compiled.choose_engine("reference", 10**8, warm=True) == "reference"
    assert caplog.text.count("reference engine replays") == 1  # the one at the limit
