"""Where the numba kernel spends its time: `perf` samples attributed to kernel functions.

perf cannot name numba's compiled code, so the run writes the map file perf reads for
code without symbols (/tmp/perf-<pid>.map), from the objects in the kernel's cache:

    perf record -F 1000 -o /tmp/kernel.data python benchmarks/profile_predictor.py run
    python benchmarks/profile_predictor.py report /tmp/kernel.data [--lines 40]

`report` prints each kernel function's share of the kernel samples (inlined callees
count as their caller). With NUMBA_DEBUGINFO=1 and a NUMBA_CACHE_DIR of its own for
both steps (the cache does not record the option, and debug info changes inlining),
`--lines N` also prints the N busiest source lines. `run` takes the benchmark's
`--tasks` (1M), `--hadoop-version` (3) and `--nodes` (none: one pool).
"""

from __future__ import annotations

import argparse
import bisect
import collections
import glob
import os
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

SYMBOLS = Path("/tmp/kernel-symbols.tsv")  # address, size, name, object file, section, value
_FUNCTION = re.compile(r"^([0-9a-f]+)\s.*\sF\s(\S+)\s+([0-9a-f]+)\s+(\S+)$")


def _kernel_functions() -> list:
    """Every jitted function of the kernel package's modules, once (modules import each
    other's)."""
    import importlib
    import pkgutil

    from whatif.predictor import kernel

    modules = [
        importlib.import_module(f"{kernel.__name__}.{info.name}")
        for info in pkgutil.iter_modules(kernel.__path__)
    ]
    found = {id(d): d for m in modules for d in vars(m).values() if hasattr(d, "overloads")}
    return list(found.values())


def _cached_objects() -> list[str]:
    """The cache files of the kernel functions as the kernel's modules define them.

    The cache directory also keeps files of earlier versions of a module under the same
    function names (the file name carries the function's line number); mapping those
    would attribute samples to the wrong code."""
    paths = set()
    for d in _kernel_functions():
        cache = getattr(d, "_cache", None)
        index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
        if index:
            paths.update(glob.glob(glob.escape(index[: -len(".nbi")]) + ".*.nbc"))
    return sorted(paths)


def _objects(blob: bytes):
    """The ELF objects inside a numba cache file."""
    i = blob.find(b"\x7fELF")
    while i >= 0:
        (section_headers,) = struct.unpack_from("<Q", blob, i + 0x28)
        entry_size, count = struct.unpack_from("<HH", blob, i + 0x3A)
        end = i + section_headers + entry_size * count
        yield blob[i:end]
        i = blob.find(b"\x7fELF", end)


def write_perf_map(objects_dir: Path) -> int:
    """Write /tmp/perf-<pid>.map and SYMBOLS for the kernel functions loaded in this process."""
    engines = {
        id(c.library._codegen._engine): c.library._codegen._engine
        for d in _kernel_functions()
        for c in d.overloads.values()
    }
    objects_dir.mkdir(parents=True, exist_ok=True)
    rows = {}
    for n, path in enumerate(_cached_objects()):
        for k, obj in enumerate(_objects(Path(path).read_bytes())):
            file = objects_dir / f"o{n}_{k}.o"
            file.write_bytes(obj)
            table = subprocess.run(["objdump", "-t", str(file)], capture_output=True, text=True)
            for line in table.stdout.splitlines():
                m = _FUNCTION.match(line)
                if not m:
                    continue
                name = m[4]
                for engine in engines.values():
                    address = engine.get_function_address(name)
                    if address:
                        rows.setdefault((address, int(m[3], 16), name), (file, m[2], int(m[1], 16)))
                        break
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for address, size, name in sorted(rows):
            out.write(f"{address:x} {size:x} {name}\n")
    with SYMBOLS.open("w") as out:
        for (address, size, name), (file, section, value) in sorted(rows.items()):
            out.write(f"{address}\t{size}\t{name}\t{file}\t{section}\t{value}\n")
    return len(rows)


def run(tasks: int, hadoop_version: int, nodes: int = 0) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from predictor import synthetic

    from whatif.predictor import SchedulerSettings, Simulation

    settings = SchedulerSettings(preemption=True, hadoop_version=hadoop_version)
    small, allocation, cluster = synthetic(200, nodes=nodes)
    Simulation(small, allocation, cluster, settings=settings).run_to_end()  # compile or load
    print(f"kernel functions mapped: {write_perf_map(Path('/tmp/kernel-objects'))}")
    workload, allocation, cluster = synthetic(tasks, nodes=nodes)
    sim = Simulation(workload, allocation, cluster, settings=settings)
    t0 = time.process_time()
    sim.advance_to(float("inf"))
    cpu = time.process_time() - t0
    print(f"simulate_cpu_s={cpu:.2f} tasks_per_s={tasks / cpu:.0f}")


def _short(name: str) -> str:
    """A kernel function's name from its mangled symbol: the length-prefixed names after
    ``6kernel`` are its module's and its own (``6queues3_upB2v...`` -> ``queues._up``)."""
    at = name.find("6kernel")
    if at < 0:
        return name[:48]
    parts, i = [], at + len("6kernel")
    while i < len(name) and name[i].isdigit():
        digits = re.match(r"\d+", name[i:])[0]
        i += len(digits)
        parts.append(name[i : i + int(digits)])
        i += int(digits)
    return ".".join(parts) if parts else name[:48]


def report(data: str, n_lines: int) -> None:
    if not SYMBOLS.exists():
        sys.exit(f"profile_predictor: {SYMBOLS} not found: record with `perf record ... run` first")
    rows = []
    for line in SYMBOLS.read_text().splitlines():
        address, size, name, file, section, value = line.split("\t")
        rows.append((int(address), int(size), name, file, section, int(value)))
    starts = [r[0] for r in rows]
    ips = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True)
    if ips.returncode != 0:
        reason = (ips.stderr.strip().splitlines() or ["no message"])[0]
        sys.exit(f"profile_predictor: perf could not read {data}: {reason}")
    offsets = collections.defaultdict(list)
    total = 0
    for ip in (int(x, 16) for x in ips.stdout.split()):
        total += 1
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip < rows[i][0] + rows[i][1]:
            address, _, name, file, section, value = rows[i]
            offsets[(file, section)].append((value + ip - address, _short(name)))
    functions = collections.Counter()
    lines = collections.Counter()
    for (file, section), hits in offsets.items():
        where = []
        if n_lines:
            args = ["addr2line", "-e", file, "-j", section] + [hex(o) for o, _ in hits]
            where = subprocess.run(args, capture_output=True, text=True).stdout.splitlines()
        for k, (_, name) in enumerate(hits):
            functions[name] += 1
            if where:
                lines[f"{where[k].rsplit('/', 1)[-1].split(' ')[0]} {name}"] += 1
    in_kernel = sum(functions.values())
    print(f"samples={total} in_kernel={in_kernel}")
    for name, count in functions.most_common(40):
        print(f"{100 * count / in_kernel:5.1f}% {name}")
    for place, count in lines.most_common(n_lines):
        print(f"{100 * count / in_kernel:5.1f}% {place}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="simulate the benchmark workload, writing the perf map")
    r.add_argument("--tasks", type=int, default=1_000_000)
    r.add_argument("--hadoop-version", type=int, choices=[1, 2, 3], default=3)
    r.add_argument("--nodes", type=int, default=0, help="the benchmark's --nodes (heartbeats)")
    p = sub.add_parser("report", help="kernel functions' share of a perf recording")
    p.add_argument("data")
    p.add_argument("--lines", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.tasks, args.hadoop_version, args.nodes)
    else:
        report(args.data, args.lines)


if __name__ == "__main__":
    main()
