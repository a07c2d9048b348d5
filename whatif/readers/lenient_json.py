"""Bounded, logged repair of the two JSON typos found in Hadoop's REST docs.

The REST response examples in Hadoop's documentation (and dumps people paste from
them) contain a missing comma between two members and a trailing comma before a
closing bracket. `loads_lenient` parses strict JSON first; on a decoder error it
repairs *only* these two cases, *only* at the decoder's error position, at most
`max_repairs` times, logging a warning with ``source:line:col`` for each repair:

- "Expecting ',' delimiter": insert a comma right after the previous token;
- a ``}`` or ``]`` right after a comma ("Expecting property name" / "Expecting
  value"): delete that comma.

Anything else (or more repairs than allowed) is a `TraceFormatError` naming
``source:line:col`` and what was expected there (`whatif.readers.json_stream.json_problem`).

Why the stdlib decoder and not the readers' fast parser (issue 25): a repair is made at
the decoder's error position and chosen by its message (`json.JSONDecodeError`'s ``pos``
and ``msg``). Arrow's JSON reader, the readers' fast parser (`whatif.readers.arrow_json`),
reads records of a fixed schema into columns: it cannot return one arbitrary REST
document as Python values, and its errors carry no position. The documents are single
REST responses (one job's tasks or attempts at most), whose parse times are in
``docs/traces.md`` (REST dumps).
"""

from __future__ import annotations

import json
import logging

from whatif.errors import TraceFormatError
from whatif.readers.json_stream import json_problem_at, line_col

logger = logging.getLogger(__name__)

#: Default bound on repairs per document.
MAX_REPAIRS = 3


#: A repair: the index it was made at in the text as it then stood, and +1 for a comma
#: inserted there or -1 for the comma removed from there.
Edit = tuple[int, int]


def loads_lenient(text: str, *, source: str, max_repairs: int = MAX_REPAIRS) -> object:
    """Parse `text` as JSON, repairing at most `max_repairs` missing/trailing commas.

    Every position reported (a repair's, the error's) is one of `text` as given, not of
    the text as repaired so far."""
    original = text
    edits: list[Edit] = []
    while True:
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            fixed = _repair(text, error) if len(edits) < max_repairs else None
            if fixed is None:
                break
            text, what, edit = fixed
            line, col = line_col(original, _unedited(error.pos, edits))
            edits.append(edit)
            logger.warning("%s:%d:%d: repaired JSON (%s)", source, line, col, what)
        except (ValueError, RecursionError):  # a number too long for int, too deep nesting
            break
    at, problem = json_problem_at(text, end="document", whole=True)
    line, col = line_col(original, _unedited(at, edits))
    extra = f" after {len(edits)} repair(s)" if edits else ""
    raise TraceFormatError(f"{source}:{line}:{col}: invalid JSON{extra}: {problem}")


def _unedited(pos: int, edits: list[Edit]) -> int:
    """The index in the original text of index `pos` of the text after `edits`."""
    for at, change in reversed(edits):
        if change > 0 and pos > at:
            pos -= 1
        elif change < 0 and pos >= at:
            pos += 1
    return pos


def _previous_token_end(text: str, pos: int) -> int:
    """Index just past the last non-whitespace character before `pos`."""
    end = pos
    while end > 0 and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def _repair(text: str, error: json.JSONDecodeError) -> tuple[str, str, Edit] | None:
    """`text` repaired at `error`, what was done, and the edit; None where this is not one
    of the two typos."""
    pos = error.pos
    end = _previous_token_end(text, pos)
    if (
        error.msg.startswith("Expecting ',' delimiter")
        and 0 < end
        and pos < len(text)
        and text[pos] not in "}]"
    ):
        return text[:end] + "," + text[end:], "inserted a missing comma", (end, 1)
    if (
        pos < len(text)
        and text[pos] in "}]"
        and end > 0
        and text[end - 1] == ","
        and (
            error.msg.startswith("Expecting property name")
            or error.msg.startswith("Expecting value")
            or error.msg.startswith("Illegal trailing comma")
        )
    ):
        removed = f"removed a trailing comma before {text[pos]!r}"
        return text[: end - 1] + text[end:], removed, (end - 1, -1)
    return None
