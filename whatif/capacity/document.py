"""A Hadoop configuration file (``capacity-scheduler.xml``) as written: `ConfigurationDocument`.

Hadoop's ``Configuration`` reads ``<configuration>`` with ``<property>`` children, each
holding ``<name>``, ``<value>`` and optionally ``<final>`` and ``<description>``. A
document keeps the file's exact bytes; `ConfigurationDocument.set` rewrites only the
text of one ``<value>`` (or adds one ``<property>`` indented like the file's others,
or removes one), so a file read and written unchanged is byte-identical.

Parsing reuses the allocation model's safe XML reader (`whatif.allocation.xml_io`:
no entities, no DTDs, no network, a size limit) and its element locator.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from lxml import etree

from whatif.allocation import xml_io
from whatif.errors import AllocationError

logger = logging.getLogger(__name__)


class CapacityConfigError(AllocationError):
    """A Capacity Scheduler configuration is malformed, refused, or cannot be edited."""


@dataclass(frozen=True)
class Property:
    """One ``<property>`` element.

    ``name`` is the trimmed ``<name>`` text (None when missing); ``raw`` the ``<value>``
    text exactly as written (None when there is no ``<value>``), which Hadoop's
    ``Configuration.get`` returns untrimmed. ``element`` indexes the document's
    elements; ``value_element`` the ``<value>`` child's.
    """

    name: str | None
    raw: str | None
    final: bool
    line: int
    element: int
    value_element: int | None

    @property
    def value(self) -> str | None:
        """The value as Hadoop's numeric getters read it (``getTrimmed``)."""
        return None if self.raw is None else self.raw.strip()


class ConfigurationDocument(xml_io.XmlDocument):
    """A parsed Hadoop configuration file: source bytes, properties in order, unknown elements.

    ``properties`` lists every ``<property>`` in document order (repeats included);
    `get` returns the one Hadoop uses (the last, unless an earlier one is final).
    ``unknown`` holds the lines of top-level elements other than ``<property>``.
    """

    WHAT = "configuration file"
    ERROR = CapacityConfigError

    def __init__(self, data: bytes, *, source: str = "<bytes>") -> None:
        super().__init__(data, source=source)
        located = self._located
        self._text, self._encoding, self._bom = located.text, located.encoding, located.bom
        self._spans: tuple[xml_io.Span, ...] = located.spans
        self._index = {element: i for i, element in enumerate(located.elements)}
        properties, unknown = [], []
        if self.root_tag == "configuration":
            for child in self.tree:
                if not isinstance(child.tag, str):
                    continue
                if child.tag == "property":
                    properties.append(self._read_property(child))
                else:
                    unknown.append((child.tag, xml_io.source_line(child) or 0))
        self.properties: tuple[Property, ...] = tuple(properties)
        self.unknown: tuple[tuple[str, int], ...] = tuple(unknown)
        self._effective = _effective(self.properties)

    def _read_property(self, element: etree._Element) -> Property:
        name = value = None
        final = False
        value_element = None
        for child in element:
            if not isinstance(child.tag, str):
                continue
            # lxml-stubs types itertext() as str | bytes; it yields str for a parsed tree
            text = "".join(child.itertext())  # type: ignore[arg-type]
            if child.tag == "name":
                name = text.strip()
            elif child.tag == "value":
                value, value_element = text, self._index[child]
            elif child.tag == "final":
                final = text.strip() == "true"
        # Hadoop also reads the attribute form <property name=".." value=".."/>.
        if name is None and element.get("name") is not None:
            name = element.get("name", "").strip()
        if value is None and element.get("value") is not None:
            value = element.get("value")
        line = xml_io.source_line(element) or 0
        return Property(name, value, final, line, self._index[element], value_element)

    # ----------------------------------------------------------------- reading
    @property
    def is_configuration(self) -> bool:
        return self.root_tag == "configuration"

    @property
    def values(self) -> Mapping[str, Property]:
        """The property Hadoop uses for each name."""
        return self._effective

    def get(self, name: str) -> Property | None:
        return self._effective.get(name)

    def value(self, name: str) -> str | None:
        """The raw value Hadoop reads for `name` (None when unset)."""
        found = self._effective.get(name)
        return None if found is None else found.raw

    def names(self) -> Iterator[str]:
        return iter(self._effective)

    def __repr__(self) -> str:
        return f"ConfigurationDocument({self.source!r}, {len(self.properties)} properties)"

    # ----------------------------------------------------------------- editing
    def set(self, name: str, value: str | None) -> ConfigurationDocument:
        """A new document with property `name` set to `value` (None removes it).

        Only the ``<value>`` text changes (its surrounding whitespace kept); a property
        not in the file is added after the last property sharing the longest dotted
        prefix with `name`, laid out like the file's other properties.
        """
        current = self._effective.get(name)
        if value is not None and any(c in value for c in "\x00"):
            raise CapacityConfigError(f"{name}: a value cannot contain NUL characters")
        if current is None:
            if value is None:
                return self
            return self._add(name, value)
        if value is None:
            start, end = xml_io.line_bounds(self._text, *self._bounds(current.element))
            return self._reparse(self._text[:start] + self._text[end:])
        if current.value_element is None:
            raise CapacityConfigError(
                f"{self.source}:{current.line}: property {name} has no <value> element to change"
            )
        text = self._text
        start, end, new = xml_io.text_edit(
            text, self._spans[current.value_element], xml_io.escape_text(value)
        )
        return self._reparse(text[:start] + new + text[end:])

    def _bounds(self, element: int) -> tuple[int, int]:
        span = self._spans[element]
        return span.start, span.end

    def _add(self, name: str, value: str) -> ConfigurationDocument:
        text = self._text
        newline = "\r\n" if "\r\n" in text else "\n"
        named = [p for p in self.properties if p.name]
        anchor = _anchor(named, name)
        block = self._property_block(name, value, newline)
        if anchor is None:
            root = self._spans[0]
            if root.self_closing:
                new = f"{xml_io.unclosed_start(text, root)}>{newline}{block}{newline}</{root.tag}>"
                return self._reparse(text[: root.start] + new + text[root.end :])
            before = text[root.start_end : root.end_start]
            keep = before.rstrip(xml_io.XML_SPACE)
            position = root.start_end + len(keep)
            return self._reparse(
                text[:position] + newline + block + newline + text[root.end_start :]
            )
        end = self._spans[anchor.element].end
        separator = newline + (newline if self._blank_between() else "")
        return self._reparse(text[:end] + separator + block + text[end:])

    def _blank_between(self) -> bool:
        """Whether the file separates consecutive properties with a blank line."""
        spans = [self._spans[p.element] for p in self.properties]
        for first, second in zip(spans, spans[1:], strict=False):
            between = self._text[first.end : second.start]
            if "<" not in between and between.count("\n") >= 2:
                return True
        return False

    def _property_block(self, name: str, value: str, newline: str) -> str:
        """``<property>`` text for a new property, in the layout of the file's first one."""
        text = self._text
        own, child, one_line = "  ", "    ", False
        if self.properties:
            first = self.properties[0]
            span = self._spans[first.element]
            own = xml_io.indent_before(text, span.start) or ""
            children = [s for s in self._spans[first.element + 1 :] if s.start < span.end_start]
            if children:
                inner_indent = xml_io.indent_before(text, children[0].start)
                if inner_indent is None:
                    one_line = True
                else:
                    child = inner_indent
            elif not span.self_closing:
                child = own + "  "
        name_el = f"<name>{xml_io.escape_text(name)}</name>"
        value_el = f"<value>{xml_io.escape_text(value)}</value>"
        if one_line:
            return f"{own}<property>{name_el}{value_el}</property>"
        return (
            f"{own}<property>{newline}{child}{name_el}{newline}{child}{value_el}{newline}"
            f"{own}</property>"
        )

    def _reparse(self, text: str) -> ConfigurationDocument:
        data = self._bom + text.encode(self._encoding)
        return ConfigurationDocument(data, source=self.source)


def _effective(properties: tuple[Property, ...]) -> Mapping[str, Property]:
    """Hadoop's rule: a later property overrides an earlier one unless that one is final."""
    chosen: dict[str, Property] = {}
    for prop in properties:
        if not prop.name:
            continue
        earlier = chosen.get(prop.name)
        if earlier is not None and earlier.final:
            continue
        chosen[prop.name] = prop
    return MappingProxyType(chosen)


def _anchor(properties: list[Property], name: str) -> Property | None:
    """The last property sharing the longest dotted prefix with `name` (None: no properties)."""
    if not properties:
        return None
    parts = name.split(".")
    best, best_length = properties[-1], -1
    for prop in properties:
        other = (prop.name or "").split(".")
        common = 0
        for a, b in zip(parts, other, strict=False):
            if a != b:
                break
            common += 1
        if common >= best_length:
            best, best_length = prop, common
    return best
