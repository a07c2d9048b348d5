"""Where the shared allocation-file fixtures are (read in place; unknown licences are never copied)."""

from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
CORPUS = DATA / "alloc-corpus"
HADOOP_ALLOC = DATA / "hadoop" / "alloc"


def allocation_files() -> list[Path]:
    """Every well-formed real file with root <allocations> that Hadoop loads."""
    files = sorted(CORPUS.glob("*.xml")) + sorted(HADOOP_ALLOC.glob("*.xml"))
    return [f for f in files if b"<allocations" in f.read_bytes()]
