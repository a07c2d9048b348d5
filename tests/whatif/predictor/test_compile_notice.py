"""The first simulation after an install says it is compiling instead of looking stalled."""

import logging
from pathlib import Path

from predictor_cases import build_workload, flat_tree

from whatif import Cluster
from whatif.predictor import compiled, predict
from whatif.predictor import kernel as K
from whatif.predictor.kernel.caching import kernel_stamp


def test_the_cache_is_warm_once_a_run_marked_it_for_these_sources(tmp_path, monkeypatch):
    """No mark, or one of other kernel sources, is cold; a run marks its folder for these
    sources' content (dropping the other mark), which is then warm whatever the files'
    times: a reinstall or a checkout that rewrites the same bytes does not look cold."""
    assert not compiled.kernel_cache_is_warm((tmp_path,))
    stale = tmp_path / "tempo-kernel-0123456789abcdef0123-numba-0.1.warm"
    stale.touch()
    assert not compiled.kernel_cache_is_warm((tmp_path,))
    monkeypatch.setattr(compiled, "kernel_cache_dir", lambda: tmp_path)
    compiled.mark_kernel_warm.cache_clear()
    compiled.mark_kernel_warm()
    compiled.mark_kernel_warm.cache_clear()
    assert compiled.kernel_cache_is_warm((tmp_path,)) and not stale.exists()
    assert compiled._warm_marker(tmp_path).name.startswith(f"tempo-kernel-{kernel_stamp()[:20]}")


def test_a_prediction_marks_the_cache_numba_uses(tmp_path, monkeypatch):
    """The numba engine marks the folder numba caches the kernel in, after it ran."""
    assert compiled.kernel_cache_dir() == Path(K.advance._cache.cache_path)
    monkeypatch.setattr(compiled, "kernel_cache_dir", lambda: tmp_path)
    compiled.mark_kernel_warm.cache_clear()
    schedule = predict(
        build_workload([("j", "a", 0.0, [("map", 10.0, 1024.0)])]),
        flat_tree(a={}),
        Cluster.parse("memory-mb=4096,vcores=4"),
        engine="numba",
    )
    compiled.mark_kernel_warm.cache_clear()
    assert len(schedule.jobs) == 1 and compiled.kernel_cache_is_warm((tmp_path,))


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
