"""Every shell block (```sh, ```bash, ```console) of the README and the docs/ pages runs
as written, so a reader can trust each command and the output shown under it.

A block's commands run in order in a fresh directory that holds the sample data as it
sits in a checkout (``traces/``, ``configs/``, ``templates/``, ``benchmarks/`` and
``../shared``); paths under ``/tmp/`` are moved into the test's own temporary directory.
In a block with ``$ `` prompts, only the prompted lines are commands and the lines
under each are its output, every line of which (``...`` lines aside) must appear in
what the command printed. ``pip install`` steps are not run: the test runs in the
installed environment they would make.

A command with optional parts in brackets (``[--seed S]``) is a synopsis: it is not
run, but every ``--option`` it names must be in the command's ``--help``.

An HTML comment on the line before a block says how to treat it:

- ``<!-- skip: REASON -->``: not run (a live cluster, the network, a long run); the
  test reports it skipped with that reason.
- ``<!-- exit: CODE ... -->``: the exit status expected, one for the whole block or one
  per command (0 otherwise).
- ``<!-- slow -->``: run, but marked ``slow`` (over ~20 s; ``-m "not slow"`` leaves it out).

Markers combine with ``;``: ``<!-- slow; exit: 0 1 -->``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(
    r"(?:^<!--\s*(?P<marker>.*?)\s*-->\n)?^```(?:sh|bash|console)\n(?P<body>.*?)^```",
    flags=re.S | re.M,
)
#: Programs a block may run; a block with any other needs a ``skip`` marker.
PROGRAMS = {"tempo", "python", "python3", "mkdir"}
SAMPLE_DIRS = ("traces", "configs", "templates", "benchmarks")
TIMEOUT_S = 600  # a slow block (the first session's `tempo tune`) on a loaded 2-core machine


@dataclass(frozen=True)
class Command:
    """One command of a block: its words and the output the page shows under it."""

    argv: list[str]
    output: list[str]


@dataclass(frozen=True)
class Block:
    """One shell block of a page: where it is, its marker comment and its commands."""

    page: str
    line: int
    marker: str
    commands: list[Command]

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    def marked(self, name: str) -> str | None:
        """The value of marker ``name`` (``""`` for a bare one), None without it."""
        for item in self.marker.split(";"):
            key, colon, value = item.partition(":")
            if key.strip() == name:
                return value.strip() if colon else ""
        return None


def _join_continuations(lines: list[str]) -> list[str]:
    joined: list[str] = []
    pending = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
        else:
            joined.append(pending + line)
            pending = ""
    if pending:
        joined.append(pending)
    return joined


def _commands(body: str) -> list[Command]:
    """The commands of a block body: every line, or with ``$ `` prompts only the prompted
    ones (each followed by its output)."""
    lines = body.splitlines()
    if not any(line.startswith("$ ") for line in lines):
        commands: list[Command] = []
        for line in _join_continuations(lines):
            words = shlex.split(line, comments=True)
            if words and words[0].startswith(("[", "-")) and commands:
                commands[-1].argv.extend(words)  # a synopsis continued on the next line
            elif words:
                commands.append(Command(words, []))
        return commands
    commands = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        text = lines[i][2:]
        while text.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text.rstrip()[:-1] + " " + lines[i]
        i += 1
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        commands.append(Command(shlex.split(text, comments=True), output))
    return commands


def _blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start("body"))
            found.append(
                Block(
                    page.relative_to(ROOT).as_posix(),
                    line,
                    match.group("marker") or "",
                    _commands(match.group("body")),
                )
            )
    return found


BLOCKS = _blocks()


def _steps(command: Command) -> list[list[str]]:
    """A command line split at ``&&``, without its ``pip install`` steps."""
    steps: list[list[str]] = [[]]
    for word in command.argv:
        if word == "&&":
            steps.append([])
        else:
            steps[-1].append(word)
    return [s for s in steps if s and s[:2] != ["pip", "install"]]


def _expected_codes(block: Block, count: int) -> list[int]:
    value = block.marked("exit")
    if value is None:
        return [0] * count
    codes = [int(c) for c in value.split()]
    if len(codes) == 1:
        return codes * count
    assert len(codes) == count, f"{block.id}: {len(codes)} exit codes for {count} commands"
    return codes


def _normalized(text: str) -> str:
    return " ".join(text.split())


def _sandbox(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A working directory laid out like a checkout, and the environment to run in."""
    work = tmp_path / "repo"
    work.mkdir()
    for folder in SAMPLE_DIRS:
        (work / folder).symlink_to(ROOT / folder)
    (tmp_path / "shared").symlink_to(ROOT.parent / "shared")
    (tmp_path / "tmp").mkdir()
    return work, _environment()


def _relocate(word: str, tmp: Path) -> str:
    return re.sub(r"(?<![\w.])/tmp/", f"{tmp}/", word)


def test_docs_have_commands():
    """The pages keep shell blocks for this test to run, and every marker is one it knows."""
    assert sum(1 for b in BLOCKS if b.marked("skip") is None) >= 10
    unknown = [
        f"{b.id}: {item.strip()!r}"
        for b in BLOCKS
        if b.marker
        for item in b.marker.split(";")
        if item.partition(":")[0].strip() not in ("skip", "exit", "slow")
    ]
    assert not unknown, f"markers this test does not know (a ';' inside a reason?): {unknown}"


def _is_synopsis(command: Command) -> bool:
    return any(word.startswith("[") for word in command.argv)


@pytest.mark.parametrize(
    "block",
    [
        pytest.param(b, marks=[pytest.mark.slow] if b.marked("slow") is not None else [])
        for b in BLOCKS
    ],
    ids=[b.id for b in BLOCKS],
)
def test_shell_block_runs(block: Block, tmp_path: Path):
    """Each command exits with the documented status and prints the output shown; each
    synopsis names only options its command has."""
    reason = block.marked("skip")
    if reason is not None:
        pytest.skip(reason)
    work, env = _sandbox(tmp_path)
    codes = _expected_codes(block, len(block.commands))
    for command, expected in zip(block.commands, codes, strict=True):
        if _is_synopsis(command):
            _check_synopsis(block, command, work, env)
        else:
            _run(block, command, expected, work, env, tmp_path / "tmp")


def _run(block: Block, command: Command, expected: int, work: Path, env: dict, tmp: Path):
    for step in _steps(command):
        assert step[0] in PROGRAMS, (
            f"{block.id}: runs {step[0]!r}; mark the block <!-- skip: REASON --> "
            "if it needs a cluster or the network"
        )
        argv = [_relocate(w, tmp) for w in step]
        if argv[0] in ("python", "python3"):
            argv[0] = sys.executable
        result = subprocess.run(
            argv, cwd=work, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
        )
        shown = shlex.join(step)
        assert result.returncode == expected, (
            f"{block.id}: `{shown}` exited {result.returncode}, expected {expected}\n"
            f"{result.stderr[-2000:]}"
        )
    printed = _normalized(result.stdout + result.stderr)
    for line in command.output:
        want = _normalized(_relocate(line, tmp))
        if want and "..." not in want:
            assert want in printed, (
                f"{block.id}: `{shown}` did not print the line the page shows:\n{line}\n"
                f"--- it printed ---\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
            )


def _check_synopsis(block: Block, command: Command, work: Path, env: dict) -> None:
    """Every --option a synopsis names is one its command accepts."""
    program, *rest = command.argv
    if program == "tempo":
        words = []
        for word in rest:
            if not re.fullmatch(r"[a-z][a-z-]*", word):
                break
            words.append(word)
        argv = ["tempo", *words, "--help"]
    else:
        assert program in ("python", "python3"), f"{block.id}: a synopsis of {program!r}"
        argv = [sys.executable, rest[0], "--help"]
    result = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{block.id}: `{shlex.join(argv)}` failed: {result.stderr}"
    named = set()
    for word in command.argv:
        named.update(re.findall(r"--(?:\[no-\])?([a-z][a-z0-9-]*)", word))
    missing = sorted(f"--{o}" for o in named if f"--{o}" not in result.stdout)
    assert not missing, f"{block.id}: `{shlex.join(argv[:-1])}` has no {missing}"


def _environment() -> dict[str, str]:
    """This interpreter's scripts (``tempo``) first on PATH, this checkout importable
    (wherever the package was installed from), and a fixed terminal width."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["COLUMNS"] = "200"
    return env
