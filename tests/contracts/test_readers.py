"""Contract suite for every registered TraceReader: fixtures parse, damaged input fails cleanly.

A new reader joins by adding its name and fixture builder to FIXTURES; the suite
fails if a registered reader has none.
"""

import shutil
from pathlib import Path

import numpy as np
import pytest

from whatif import Trace, TraceFormatError
from whatif.readers import READERS, detect_format, read_trace, write_native

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
HADOOP = DATA / "hadoop"
TRACES = Path(__file__).resolve().parents[2] / "traces"


def _swim_head(tmp: Path) -> list[Path]:
    lines = (DATA / "swim" / "FB-2009_samples_24_times_1hr_0.tsv").read_text().splitlines()[:40]
    path = tmp / "fb2009-head.tsv"
    path.write_text("\n".join(lines) + "\n")
    return [path]


def _native(tmp: Path) -> list[Path]:
    trace = read_trace(HADOOP / "sls" / "inputsls.json")
    return [write_native(trace, tmp / "n-parquet"), write_native(trace, tmp / "n-csv", kind="csv")]


def _hadoop1(tmp: Path) -> list[Path]:
    """The bundled history file, and a history directory holding it (without its NOTICE)."""
    (history,) = (TRACES / "hadoop1").glob("job_*")
    directory = tmp / "hadoop1-history"
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(history, directory / history.name)
    return [history, directory]


#: Reader name -> function(tmp_path) -> fixture paths (files or directories).
FIXTURES = {
    "native": _native,
    "jhist": lambda tmp: sorted((HADOOP / "jhist").glob("*.jhist")) + [HADOOP / "jhist"],
    "rumen": lambda tmp: [HADOOP / "rumen" / "2jobs2min-rumen-jh.json"],
    "sls": lambda tmp: [HADOOP / "sls" / "inputsls.json"],
    "rest": lambda tmp: (
        [
            HADOOP / "rest" / n
            for n in ("rm-apps.json", "jhs-jobs.json", "jhs-tasks.json", "jhs-task-attempts.json")
        ]
        + [HADOOP / "rest"]
    ),
    "swim": _swim_head,
    "hadoop1": _hadoop1,
}


def test_every_registered_reader_has_fixtures():
    """The contract suite covers every reader in the registry."""
    assert set(FIXTURES) == set(READERS)


@pytest.mark.parametrize("name", sorted(READERS))
def test_fixtures_parse_and_are_detected(name, tmp_path):
    """Each reader's fixtures parse to a non-empty Trace and are detected as that format."""
    for path in FIXTURES[name](tmp_path):
        trace = read_trace(path, format=name)
        assert isinstance(trace, Trace) and trace.workload.n_jobs > 0, path
        assert all(q == "root" or q.startswith("root.") for q in trace.workload.queues)
        assert detect_format(path) == name, path


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.is_file())
    return [path]


def _damaged_copies(data: bytes, rng: np.random.Generator, count: int) -> list[bytes]:
    """Truncations, byte flips, deleted spans and duplicated spans of `data`."""
    out = [data[: len(data) // 2]]
    for _ in range(count):
        kind = rng.integers(4)
        a = int(rng.integers(len(data)))
        b = min(len(data), a + int(rng.integers(1, 64)))
        if kind == 0:
            out.append(data[:a])
        elif kind == 1:
            flipped = bytearray(data)
            for pos in rng.integers(len(data), size=3):
                flipped[pos] = int(rng.integers(256))
            out.append(bytes(flipped))
        elif kind == 2:
            out.append(data[:a] + data[b:])
        else:
            out.append(data[:b] + data[a:])
    return out


@pytest.mark.parametrize("name", sorted(READERS))
def test_damaged_input_raises_trace_format_error_only(name, tmp_path):
    """Truncated or fuzzed copies either still parse or raise TraceFormatError, never anything else;
    a copy cut in half always raises."""
    rng = np.random.default_rng(20240601)
    (tmp_path / "src").mkdir()
    for n, source in enumerate(FIXTURES[name](tmp_path / "src")):
        fixture = source
        if source.is_dir():  # damage a private copy, never the shared fixtures
            fixture = shutil.copytree(source, tmp_path / f"copy-{n}")
        for victim in _files(fixture):
            if victim.name == "trace.json":
                continue
            original = victim.read_bytes()
            for k, damaged in enumerate(_damaged_copies(original, rng, 12)):
                if fixture.is_dir():
                    victim.write_bytes(damaged)
                    target = fixture
                else:
                    target = tmp_path / f"bad-{k}{victim.suffix}"
                    target.write_bytes(damaged)
                try:
                    read_trace(target, format=name)
                except TraceFormatError as error:
                    assert "\n" not in str(error) and str(error), str(error)
                else:
                    assert k != 0, f"{victim} cut in half still parsed"
                finally:
                    if fixture.is_dir():
                        victim.write_bytes(original)
