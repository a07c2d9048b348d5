"""Pairs of places in the code that repeat six or more lines: the count CI keeps from rising.

A line's *shape* is its tokens with every name, number and string replaced by a
placeholder (keywords and operators stay), so a copy with renamed variables or other
literals still matches, as the developers' ``duplicates`` command finds them. Lines
that carry no code are passed over: blank lines, comments, docstrings, import
statements and lines of punctuation alone (a closing ``)``).

Two places pair when they share a run of `MIN_LINES` consecutive lines of the same
shape; the places of one file may pair with each other when they do not overlap. A
run that stands in more than `MAX_PLACES` places is too common to be a copy (six
attribute assignments, a keyword-argument list) and is left out. Pairs are counted
once per pair of files, as one row of ``duplicates`` names two files and their longest
shared run.

``python tests/duplication.py`` lists the pairs.
"""

from __future__ import annotations

import ast
import io
import itertools
import keyword
import sys
import tokenize
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The folders read: all of the project's Python code.
FOLDERS = ("whatif", "tempo", "tests", "benchmarks")

#: Lines a shared run needs to make a pair (the ``duplicates`` command's default).
MIN_LINES = 6

#: Tokens a run of `MIN_LINES` lines needs to count: fewer is a declaration's thin
#: lines (six ``name: type`` fields are 18), not code that could have been shared.
MIN_TOKENS = 40

#: A run standing in more places than this is too common to list (as ``duplicates``).
MAX_PLACES = 8

_SKIPPED = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}
_PLACEHOLDER = {tokenize.NUMBER: "0"}
# Python 3.12 tokenizes inside f-strings; an f-string stays one string, as on 3.11.
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


@dataclass(frozen=True)
class Pair:
    """Two places sharing a run of lines: each ``(path, first line, last line)``."""

    first: tuple[str, int, int]
    second: tuple[str, int, int]

    def __str__(self) -> str:
        (a, a0, a1), (b, b0, b1) = self.first, self.second
        return f"{a}:{a0}-{a1} ~ {b}:{b0}-{b1}"


def _passed_over(tree: ast.AST) -> set[int]:
    """Line numbers of docstrings and import statements."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            lines.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    return lines


def shapes(source: str) -> list[tuple[int, str]]:
    """(line number, shape) of every line of `source` that carries code."""
    skip = _passed_over(ast.parse(source))
    per_line: dict[int, list[str]] = defaultdict(list)
    depth = 0  # inside how many f-strings (Python 3.12+)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        line = token.start[0]
        if token.type == _FSTRING_START:
            depth += 1
            if depth > 1:
                continue
        elif token.type == _FSTRING_END:
            depth -= 1
            continue
        if depth and token.type != _FSTRING_START:
            continue
        if token.type in _SKIPPED or line in skip:
            continue
        if token.type in (tokenize.STRING, _FSTRING_START):
            text = "S"
        elif token.type == tokenize.NAME and not keyword.iskeyword(token.string):
            text = "N"
        else:
            text = _PLACEHOLDER.get(token.type, token.string)
        per_line[line].append(text)
    return [
        (line, " ".join(words))
        for line, words in sorted(per_line.items())
        if any(word[0].isalnum() or word[0] == "_" for word in words)
    ]


def find_pairs(files: dict[str, str]) -> list[Pair]:
    """The pairs of places in `files` (path -> source), one per pair of files: the one
    whose shared run starts first. Sorted by path and line."""
    places: dict[tuple[str, ...], list[tuple[str, int, int]]] = defaultdict(list)
    for path, source in files.items():
        lines = shapes(source)
        for i in range(len(lines) - MIN_LINES + 1):
            window = lines[i : i + MIN_LINES]
            key = tuple(shape for _, shape in window)
            if sum(len(shape.split()) for shape in key) < MIN_TOKENS:
                continue
            places[key].append((path, window[0][0], window[-1][0]))
    found: dict[tuple[str, str], Pair] = {}
    for spots in places.values():
        if len(spots) > MAX_PLACES:
            continue
        for a, b in itertools.combinations(spots, 2):
            if a[0] == b[0] and a[2] >= b[1]:
                continue  # the same file, overlapping
            key = (a[0], b[0])
            if key not in found or (a[1], b[1]) < (found[key].first[1], found[key].second[1]):
                found[key] = Pair(a, b)
    return sorted(found.values(), key=lambda p: (p.first, p.second))


def project_files(root: Path = ROOT, folders: Iterable[str] = FOLDERS) -> dict[str, str]:
    """Every ``.py`` file under `folders` of `root`, by its path relative to `root`."""
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for folder in folders
        for path in sorted((root / folder).rglob("*.py"))
    }


if __name__ == "__main__":
    pairs = find_pairs(project_files())
    for pair in pairs:
        sys.stdout.write(f"{pair}\n")
    sys.stdout.write(f"{len(pairs)} pairs\n")
