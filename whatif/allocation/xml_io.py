"""Reading scheduler XML files safely and locating elements in the source: the bytes -> parsed XML step.

Parsing uses lxml with entity resolution, network access and DTD loading turned
off, no huge-tree mode and a size limit; a document type declaration with an
internal subset (where entities are declared) is refused outright, so neither
XXE nor "billion laughs" documents get through.

Edits are made on the original text: `element_spans` finds where each element's
tags and content sit (`locate_xml` pairs them with the parsed elements), so a change
rewrites only that element's text and everything else (comments, attribute quoting,
whitespace, encoding) stays byte for byte; `escape_text`, `indent_before` and
`line_bounds` are the text helpers both schedulers' document models edit with.

The first step of the package's pipeline: it knows no document model (the writer,
`whatif.allocation.write`, comes after validation).
"""

from __future__ import annotations

import codecs
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from lxml import etree

from whatif.errors import AllocationError

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


def source_line(element: etree._Element) -> int | None:
    """The line `element` starts on in its source (None when lxml does not know it).

    lxml-stubs 0.5.1 declares ``sourceline = ...`` (so its type is EllipsisType); lxml's
    own documentation gives ``int`` or None.
    """
    line: int | None = element.sourceline  # type: ignore[assignment]  # lxml-stubs bug, above
    return line


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
    if root.getroottree().docinfo.internalDTD is not None:  # any DOCTYPE, subset or not
        at = data.find(b"<!DOCTYPE")
        line = data.count(b"\n", 0, at) + 1 if at >= 0 else 1
        raise XMLSyntaxProblem(
            source,
            line,
            "a document type declaration (<!DOCTYPE ...>) is refused: Hadoop 3.3.5 and later "
            "refuse any in the files they read (XMLUtils' secure parser, disallow-doctype-decl), "
            "earlier versions fetch an external DTD and expand entities; remove it",
        )
    return root


def element_spans(text: str) -> list[Span]:
    """Every element's tags, in document order, found by scanning well-formed `text`."""
    spans: list[list[Any]] = []
    stack: list[list[Any]] = []
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
            name = re.match(r"[^\s/>]+", text[at + 1 :])
            assert name is not None  # well-formed text: a name follows every '<' here
            tag = name.group()
            span = [tag, at, cursor + 1, cursor + 1, cursor + 1]
            spans.append(span)
            if text[cursor - 1] != "/":
                stack.append(span)
            position = cursor + 1
    return [Span(*s) for s in spans]


#: The characters XML counts as white space (Python's str.strip also takes U+0085 and others).
XML_SPACE = " \t\r\n"


def escape_text(text: str) -> str:
    """`text` safe as element content (`&`, `<` and `>` escaped)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def indent_before(text: str, position: int) -> str | None:
    """The whitespace between the line start and `position`, or None if not only whitespace."""
    line_start = text.rfind("\n", 0, position) + 1
    before = text[line_start:position]
    return before if not before.strip() else None


def line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen [start, end) to whole lines when the element is alone on its line."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    if not text[line_start:start].strip() and not text[end:line_end].strip():
        return line_start, line_end
    return start, end


def unclosed_start(text: str, span: Span) -> str:
    """A self-closing element's tag without its ``/>`` (``<a x="1"/>`` -> ``<a x="1"``),
    to open it: ``f"{unclosed_start(text, span)}>...</{span.tag}>"``."""
    return text[span.start : span.end].rstrip("/> \t\r\n")


def text_edit(text: str, span: Span, new: str, *, verbatim: bool = False) -> tuple[int, int, str]:
    """The edit ``(start, end, replacement)`` of `text` that makes `span`'s element hold the
    text `new`: a self-closing element is opened; otherwise the element's text is replaced,
    keeping the whitespace around an old value (Hadoop trims it) unless `verbatim` or the
    element holds markup or only whitespace."""
    if span.self_closing:
        return span.start, span.end, f"{unclosed_start(text, span)}>{new}</{span.tag}>"
    inner = text[span.start_end : span.end_start]
    if "<" in inner or not inner.strip(XML_SPACE) or verbatim:
        return span.start_end, span.end_start, new
    lead = len(inner) - len(inner.lstrip(XML_SPACE))
    return span.start_end + lead, span.start_end + len(inner.rstrip(XML_SPACE)), new


@dataclass(frozen=True)
class LocatedXml:
    """A scheduler's XML file parsed, with its text and where each element sits in it:
    what a document model needs to edit one element and keep every other byte."""

    tree: etree._Element
    text: str
    encoding: str
    bom: bytes
    elements: tuple[etree._Element, ...]
    spans: tuple[Span, ...]


def locate_xml(data: bytes, source: str, *, error: type[Exception] = AllocationError) -> LocatedXml:
    """Parse `data` safely (`parse_xml`), decode its text and pair every element with its
    `Span`; `XMLSyntaxProblem` for a malformed file, `error` when the elements cannot be
    located in the text. `source` names the file in messages."""
    tree = parse_xml(data, source)
    encoding, bom = text_encoding(data)
    try:
        text = data[len(bom) :].decode(encoding)
    except (LookupError, UnicodeDecodeError) as problem:
        raise XMLSyntaxProblem(source, 1, f"cannot decode as {encoding}: {problem}") from None
    spans = element_spans(text)
    elements = tuple(tree.iter(etree.Element))
    if [etree.QName(e).localname for e in elements] != [s.tag.rpartition(":")[2] for s in spans]:
        raise error(f"{source}: could not locate the elements in the file text")
    return LocatedXml(tree, text, encoding, bom, elements, tuple(spans))


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


class XmlDocument:
    """A scheduler's XML file: its exact bytes, parsed and located (`locate_xml`).

    The base of both schedulers' document models: a subclass names its file (``WHAT``)
    and its error (``ERROR``), and reads its model from ``self.tree`` after
    ``super().__init__``; ``self._located`` holds the text and spans edits work on.
    """

    WHAT: ClassVar[str] = "allocation file"
    ERROR: ClassVar[type[AllocationError]] = AllocationError

    def __init__(self, data: bytes, *, source: str = "<bytes>") -> None:
        if not isinstance(data, bytes | bytearray):
            raise self.ERROR(f"{source}: expected the file's bytes, got {type(data).__name__}")
        self._data = bytes(data)
        self.source = source
        self._located = locate_xml(self._data, source, error=self.ERROR)
        self.tree = self._located.tree
        self.root_tag = self.tree.tag if isinstance(self.tree.tag, str) else ""
        self.line = source_line(self.tree) or 1

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Self:
        """Read and parse the file (over the size limit: refused); errors name ``path:line``."""
        return cls(read_xml_bytes(path, what=cls.WHAT, error=cls.ERROR), source=str(path))

    @classmethod
    def from_bytes(cls, data: bytes, *, source: str = "<bytes>") -> Self:
        """Parse the file's bytes; errors name ``source:line``."""
        return cls(data, source=source)

    def to_bytes(self) -> bytes:
        """The file's bytes: identical to the input unless made by an edit."""
        return self._data
