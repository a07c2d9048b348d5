"""Fuzz every parser for longer than CI can: inputs tried, clean errors, tracebacks, hangs.

    python benchmarks/fuzz.py                      # 500 inputs per parser (a few minutes)
    python benchmarks/fuzz.py --inputs 5000        # the run in docs/reliability.md
    python benchmarks/fuzz.py --targets swim,sls --save
    python benchmarks/fuzz.py --targets jhist-fast   # jhist with the fast path forced

Each parser of `fuzz_targets` runs in its own worker process, fed mutated copies
of its seeds (seeded numpy draws of the same mutations the CI property tests
draw with hypothesis). An input is *accepted*, refused with a *clean error*
(tempo's own error class, one line), a *traceback* (any other exception, or a
multi-line message), or a *hang* (no answer within ``--timeout`` seconds: the
worker is killed and restarted). With ``--save``, every input that gave a
traceback or a hang is written to ``tests/fuzz/regressions/<parser>/HASH.SEED``
(SEED: the seed it was mutated from), which the CI suite replays on every run.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import multiprocessing
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_targets import KINDS, ROOT, Mutation, mutate, targets, verdict  # noqa: E402

REGRESSIONS = ROOT / "tests" / "fuzz" / "regressions"


@dataclass
class Tally:
    """What one parser did with its inputs."""

    inputs: int = 0
    outcomes: Counter = field(default_factory=Counter)
    failures: dict[str, tuple[int, bytes]] = field(default_factory=dict)  # -> (seed, input)
    seconds: float = 0.0


def draw_mutations(rng: np.random.Generator) -> list[Mutation]:
    """One to eight mutations (mostly few), as the CI strategy draws them."""
    count = min(8, int(rng.geometric(0.45)))
    return [
        Mutation(
            kind=int(rng.integers(len(KINDS))),
            at=float(rng.random()),
            length=min(64, int(rng.geometric(0.15))),
            token=int(rng.integers(1 << 16)),
            byte=int(rng.integers(256)),
        )
        for _ in range(count)
    ]


def signature(outcome: str, detail: str) -> str:
    """A failure's kind without the numbers and quoted bits that vary between inputs."""
    first = detail.splitlines()[0] if detail else ""
    first = re.sub(r"0x[0-9a-f]+|\d+", "N", first)
    first = re.sub(r"'[^']*'|\"[^\"]*\"", "'...'", first)
    return f"{outcome}: {first[:120]}"


def _worker(name: str, connection) -> None:
    # Parsers' warnings (repaired REST commas, ...) are verdicts' business, not the table's.
    logging.disable(logging.WARNING)
    target = targets()[name]
    with tempfile.TemporaryDirectory(prefix=f"tempo-fuzz-{name}-") as tmp:
        while True:
            message = connection.recv()
            if message is None:
                return
            index, data = message
            connection.send(verdict(target, data, target.seeds[index], Path(tmp)))


class Worker:
    """A parser's worker process, restarted after a hang."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.context = multiprocessing.get_context("fork")
        self._start()

    def _start(self) -> None:
        self.connection, child = self.context.Pipe()
        self.process = self.context.Process(target=_worker, args=(self.name, child), daemon=True)
        self.process.start()

    def run(self, index: int, data: bytes, timeout_s: float) -> tuple[str, str]:
        self.connection.send((index, data))
        if self.connection.poll(timeout_s):
            try:
                return self.connection.recv()
            except EOFError:
                pass
        else:
            self.process.kill()
            self.process.join()
            self._start()
            return "hang", f"no answer within {timeout_s:g} s"
        code = self.process.exitcode
        self.process.join()
        self._start()
        return "traceback", f"the worker died (exit {code})"

    def stop(self) -> None:
        self.connection.send(None)
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()


def fuzz(name: str, inputs: int, rng: np.random.Generator, timeout_s: float) -> Tally:
    """Feed `inputs` mutated seeds to the parser `name`."""
    target = targets()[name]
    tally = Tally()
    worker = Worker(name)
    started = time.perf_counter()
    try:
        for _ in range(inputs):
            index = int(rng.integers(len(target.seeds)))
            data = mutate(target.seeds[index].data, draw_mutations(rng), target.tokens)
            outcome, detail = worker.run(index, data, timeout_s)
            tally.inputs += 1
            tally.outcomes[outcome] += 1
            if outcome in ("traceback", "hang"):
                tally.failures.setdefault(signature(outcome, detail), (index, data))
    finally:
        worker.stop()
    tally.seconds = time.perf_counter() - started
    return tally


def save(name: str, tally: Tally) -> list[Path]:
    """Write each failing input where the CI suite replays it."""
    target = targets()[name]
    written = []
    for index, data in tally.failures.values():
        digest = hashlib.sha256(data).hexdigest()[:16]
        path = REGRESSIONS / name / f"{digest}.{target.seeds[index].name}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=500, help="inputs per parser")
    parser.add_argument("--targets", default="", help="comma-separated parsers (default: all)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a hang")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--save", action="store_true", help="save failing inputs for CI")
    args = parser.parse_args()
    names = [n for n in args.targets.split(",") if n] or list(targets())
    unknown = sorted(set(names) - set(targets()))
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}; known: {', '.join(targets())}")
    rng = np.random.default_rng(args.seed)
    print(
        f"{'parser':<16}{'inputs':>8}{'accepted':>10}{'clean errors':>14}"
        f"{'tracebacks':>12}{'hangs':>7}{'s':>8}"
    )
    totals: Counter = Counter()
    failures: list[tuple[str, str, Path | None]] = []
    for name in names:
        tally = fuzz(name, args.inputs, rng, args.timeout)
        o = tally.outcomes
        print(
            f"{name:<16}{tally.inputs:>8}{o['ok']:>10}{o['clean']:>14}"
            f"{o['traceback']:>12}{o['hang']:>7}{tally.seconds:>8.1f}",
            flush=True,
        )
        totals.update(o)
        totals["inputs"] += tally.inputs
        paths = save(name, tally) if args.save else [None] * len(tally.failures)
        failures += [(name, s, p) for s, p in zip(tally.failures, paths, strict=True)]
    print(
        f"{'total':<16}{totals['inputs']:>8}{totals['ok']:>10}{totals['clean']:>14}"
        f"{totals['traceback']:>12}{totals['hang']:>7}"
    )
    for name, signature, path in failures:
        print(f"  {name}: {signature}" + (f" -> {path.relative_to(ROOT)}" if path else ""))
    if totals["traceback"] or totals["hang"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
