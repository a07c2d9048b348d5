"""Tokens of the QS template language, with their line and column."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tempo.errors import TemplateSyntaxError

#: Token kinds: NAME (keywords, metric, queue and parameter names, units), NUMBER,
#: TIME (HH:MM[:SS]), OP (< <= > >= = ==), PUNCT (( ) , ; . % - +), EOF.
_PATTERN = re.compile(
    r"""
    (?P<SPACE>[ \t\r\n]+)
  | (?P<COMMENT>(?:\#|--)[^\n]*)
  | (?P<TIME>\d{1,2}:\d{2}(?::\d{2})?)
  | (?P<NUMBER>\d+(?:\.\d*)?|\.\d+)
  | (?P<NAME>[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*)
  | (?P<OP><=|>=|==|!=|<|>|=)
  | (?P<PUNCT>[();,.%\-+])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    """One token: its kind, text and 1-based position."""

    kind: str
    text: str
    line: int
    column: int

    def describe(self) -> str:
        """How an error message names this token."""
        return "end of file" if self.kind == "EOF" else repr(self.text)


def tokenize(text: str, path: str = "<string>") -> list[Token]:
    """The tokens of `text`, comments and whitespace dropped, ending with an EOF token."""
    tokens: list[Token] = []
    line, line_start, position = 1, 0, 0
    while position < len(text):
        match = _PATTERN.match(text, position)
        column = position - line_start + 1
        if match is None:
            raise TemplateSyntaxError(
                f"unexpected character {text[position]!r}", path=path, line=line, column=column
            )
        kind = match.lastgroup or ""
        if kind not in ("SPACE", "COMMENT"):
            tokens.append(Token(kind, match.group(), line, column))
        newlines = match.group().count("\n")
        if newlines:
            line += newlines
            line_start = match.start() + match.group().rindex("\n") + 1
        position = match.end()
    tokens.append(Token("EOF", "", line, position - line_start + 1))
    return tokens
