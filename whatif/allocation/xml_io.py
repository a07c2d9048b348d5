"""Reading allocation files safely, locating elements in the source, and writing files to disk.

Parsing uses lxml with entity resolution, network access and DTD loading turned
off, no huge-tree mode and a size limit; a document type declaration with an
internal subset (where entities are declared) is refused outright, so neither
XXE nor "billion laughs" documents get through.

Edits are made on the original text: `element_spans` finds where each element's
tags and content sit, so a change rewrites only that element's text and everything
else (comments, attribute quoting, whitespace, encoding) stays byte for byte.

`write_allocation` is the only function that writes allocation files.
"""

from __future__ import annotations

import codecs
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

from whatif.atomic import write_atomic
from whatif.errors import AllocationError

if TYPE_CHECKING:
    from whatif.allocation.model import AllocationDocument

logger = logging.getLogger(__name__)

#: Largest allocation file read (bytes); real ones are a few KiB.
MAX_FILE_BYTES = 10 * 1024 * 1024

_DECLARED_ENCODING = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


class XMLSyntaxProblem(AllocationError):
    """The file is not well-formed XML (or is refused as unsafe); carries the line."""

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source, self.line, self.reason = source, line, message
        super().__init__(f"{source}:{line}: {message}")


@dataclass(frozen=True)
class Span:
    """Where one element sits in the decoded text (character offsets).

    ``start``..``start_end`` is the start tag, ``end_start``..``end`` the end tag
    (both equal ``start_end`` for a self-closing element).
    """

    tag: str
    start: int
    start_end: int
    end_start: int
    end: int

    @property
    def self_closing(self) -> bool:
        return self.end == self.start_end


def text_encoding(data: bytes) -> tuple[str, bytes]:
    """The codec for `data` and its byte-order mark (if any), per the XML rules."""
    for bom, codec in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            return codec, bom
    match = _DECLARED_ENCODING.match(data)
    return (match.group(1).decode("ascii") if match else "utf-8"), b""


def parse_xml(data: bytes, source: str) -> etree._Element:
    """The root element of `data`, parsed safely; `XMLSyntaxProblem` names the line."""
    if len(data) > MAX_FILE_BYTES:
        raise XMLSyntaxProblem(
            source,
            1,
            f"file is {len(data)} bytes; allocation files are limited to {MAX_FILE_BYTES}",
        )
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=False,
        remove_pis=False,
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        line = error.lineno or 1
        message = " ".join((error.msg or str(error)).split())  # lxml may quote source lines
        raise XMLSyntaxProblem(source, line, f"not well-formed XML: {message}") from None
    doctype = root.getroottree().docinfo.internalDTD
    if doctype is not None:
        raise XMLSyntaxProblem(
            source, 1, "document type declarations with an internal subset (entities) are refused"
        )
    return root


def element_spans(text: str) -> list[Span]:
    """Every element's tags, in document order, found by scanning well-formed `text`."""
    spans: list[list] = []
    stack: list[list] = []
    position, length = 0, len(text)
    while True:
        at = text.find("<", position)
        if at < 0:
            break
        if text.startswith("<!--", at):
            position = text.index("-->", at + 4) + 3
        elif text.startswith("<![CDATA[", at):
            position = text.index("]]>", at) + 3
        elif text.startswith("<?", at):
            position = text.index("?>", at + 2) + 2
        elif text.startswith("<!", at):
            position = text.index(">", at) + 1
        elif text.startswith("</", at):
            close = text.index(">", at)
            span = stack.pop()
            span[3], span[4] = at, close + 1
            position = close + 1
        else:
            cursor, quote = at + 1, ""
            while cursor < length:
                char = text[cursor]
                if quote:
                    if char == quote:
                        quote = ""
                elif char in "\"'":
                    quote = char
                elif char == ">":
                    break
                cursor += 1
            tag = re.match(r"[^\s/>]+", text[at + 1 :]).group()
            span = [tag, at, cursor + 1, cursor + 1, cursor + 1]
            spans.append(span)
            if text[cursor - 1] != "/":
                stack.append(span)
            position = cursor + 1
    return [Span(*s) for s in spans]


def read_xml_bytes(
    path: str | os.PathLike[str], *, what: str, error: type[Exception] = AllocationError
) -> bytes:
    """The bytes of a scheduler's XML file (`what`: "allocation file", ...), refusing
    anything over the size limit; an unreadable file raises `error` naming it."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_FILE_BYTES:
            raise XMLSyntaxProblem(
                str(file), 1, f"file is {size} bytes; {what}s are limited to {MAX_FILE_BYTES}"
            )
        return file.read_bytes()
    except OSError as problem:
        raise error(f"{file}: cannot read {what}: {problem.strerror}") from problem


def read_allocation_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of an allocation file, refusing anything over the size limit."""
    return read_xml_bytes(path, what="allocation file")


def write_allocation(
    doc: AllocationDocument,
    path: str | os.PathLike[str],
    *,
    backups: int = 5,
    hadoop_version: int = 3,
) -> Path:
    """Write `doc` to `path` atomically, keeping numbered backups of what was there.

    Refuses (`AllocationError`) a document that `validate` finds errors in. The bytes
    go to a temporary file in the target's directory, which is fsynced and renamed
    over the target, so a reader (the ResourceManager reloads every 10 s) sees either
    the old file or the new one. An existing target is first copied to
    ``path.1`` (older backups shift to ``.2`` ... ``.backups``; the oldest is dropped).
    The target's permission bits, and its owner when running as root, are kept; a new
    file is 0644, so the ResourceManager's user can read it (`whatif.atomic.write_atomic`).

    Returns the path written.
    """
    from whatif.allocation.validate import validate

    target = Path(path)
    errors = [i for i in validate(doc, hadoop_version=hadoop_version) if i.severity == "error"]
    if errors:
        listed = "; ".join(f"line {i.line}: {i.message}" for i in errors[:5])
        raise AllocationError(f"{target}: refusing to write an invalid allocation file: {listed}")
    if backups < 0:
        raise AllocationError(f"write_allocation backups: expected >= 0, got {backups}")
    data = doc.to_bytes()
    write_atomic(
        target, data, before_replace=lambda t: _rotate_backups(t, backups) if t.exists() else None
    )
    logger.info("wrote allocation file %s (%d bytes)", target, len(data))
    return target


def _rotate_backups(target: Path, backups: int) -> None:
    """Shift ``target.N`` to ``target.N+1`` and copy the current target to ``target.1``."""
    if backups == 0:
        return
    oldest = target.with_name(f"{target.name}.{backups}")
    oldest.unlink(missing_ok=True)
    for number in range(backups - 1, 0, -1):
        older = target.with_name(f"{target.name}.{number}")
        if older.exists():
            os.replace(older, target.with_name(f"{target.name}.{number + 1}"))
    first = target.with_name(f"{target.name}.1")
    first.write_bytes(target.read_bytes())
    os.chmod(first, target.stat().st_mode & 0o7777)
