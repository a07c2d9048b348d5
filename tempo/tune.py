"""Kept only for `benchmarks/fuzz_targets.py`, which imports `read_deadlines` from here;
the loop and its wiring live in `tempo.loop` (`tempo.loop.wiring.tune`)."""

from tempo.loop.deadlines import read_deadlines

__all__ = ["read_deadlines"]
