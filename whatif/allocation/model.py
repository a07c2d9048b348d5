"""The allocation file as the operator wrote it: `AllocationDocument`.

A document keeps the file's exact bytes and an lxml tree (with source lines), and
exposes what is written as a typed tree: queues (``queue``/``pool``, nested,
``type="parent"``) with their settings, user limits, top-level defaults, the queue
placement policy, and the legacy Hadoop 1 (MRv1) elements. Values are read the way
Hadoop reads them (`java_values`, `resource_string`); a value Hadoop would reject is
kept with the reason in ``Setting.problem`` for `validate` to report.

`AllocationDocument.set` makes a new document in which one element's text changed
(or one element was added or removed) and every other byte is the same. Resolving
defaults and inheritance into the effective queue tree is the next step of the
pipeline, `whatif.allocation.resolve.effective_allocation`; this module never
imports it (nor `validate`), so the package reads one way.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from lxml import etree

from whatif.allocation.dialect import HADOOP1_MODES, YARN3_ONLY, ignored_message, reads
from whatif.allocation.effective import ResourceLimit, Resources
from whatif.allocation.java_values import (
    JAVA_LONG_MAX,
    parse_boolean,
    parse_double,
    parse_float,
    parse_int,
    parse_long,
)
from whatif.allocation.resource_string import (
    NEW,
    OLD,
    ResourceStringError,
    ResourceValue,
    parse_resource,
    render_resource,
)
from whatif.allocation.xml_io import (
    Span,
    XmlDocument,
    escape_text,
    indent_before,
    line_bounds,
    source_line,
    text_edit,
    unclosed_start,
)
from whatif.errors import AllocationError
from whatif.queues import QueueTree

logger = logging.getLogger(__name__)

#: Preemption timeout (seconds) written for "never": the largest whose milliseconds
#: (Hadoop multiplies by 1000 into a Java long) do not overflow. No starvation can
#: last that long (about 292 million years), so Hadoop never preempts on it; the
#: effective value of any timeout at or above it is ``math.inf``.
NEVER_TIMEOUT_S = JAVA_LONG_MAX // 1000

#: Per-queue elements Hadoop 2/3 read, canonical name -> value kind.
QUEUE_SETTINGS: Mapping[str, str] = MappingProxyType(
    {
        "minResources": "resource",
        "maxResources": "resource",
        "maxChildResources": "resource",
        "maxContainerAllocation": "resource",
        "maxRunningApps": "int",
        "maxAMShare": "float",
        "weight": "double",
        "minSharePreemptionTimeout": "long",
        "fairSharePreemptionTimeout": "long",
        "fairSharePreemptionThreshold": "float",
        "schedulingPolicy": "policy",
        "allowPreemptionFrom": "bool",
        "aclSubmitApps": "acl",
        "aclAdministerApps": "acl",
        "aclAdministerReservations": "acl",
        "aclListReservations": "acl",
        "aclSubmitReservations": "acl",
        "reservation": "flag",
    }
)
#: Per-queue elements of the Hadoop 1 (MRv1) fair scheduler; YARN ignores them.
MRV1_QUEUE_SETTINGS: Mapping[str, str] = MappingProxyType(
    {
        "minMaps": "int",
        "minReduces": "int",
        "maxMaps": "int",
        "maxReduces": "int",
        "maxRunningJobs": "int",
    }
)
#: Top-level elements Hadoop 2/3 read.
TOP_SETTINGS: Mapping[str, str] = MappingProxyType(
    {
        "userMaxAppsDefault": "int",
        "queueMaxAppsDefault": "int",
        "queueMaxResourcesDefault": "resource",
        "queueMaxAMShareDefault": "float",
        "defaultFairSharePreemptionTimeout": "long",
        "fairSharePreemptionTimeout": "long",
        "defaultMinSharePreemptionTimeout": "long",
        "defaultFairSharePreemptionThreshold": "float",
        "defaultQueueSchedulingPolicy": "policy",
        "reservation-agent": "text",
        "reservation-planner": "text",
        "reservation-policy": "text",
    }
)
#: Top-level elements of the Hadoop 1 fair scheduler.
MRV1_TOP_SETTINGS: Mapping[str, str] = MappingProxyType(
    {
        "poolMaxJobsDefault": "int",
        "userMaxJobsDefault": "int",
        "defaultPoolSchedulingMode": "policy",
    }
)
#: Alternative element names -> canonical name.
ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "schedulingMode": "schedulingPolicy",
        "defaultQueueSchedulingMode": "defaultQueueSchedulingPolicy",
        "pool": "queue",
    }
)
#: Policy names Hadoop's SchedulingPolicy.parse accepts (lower-cased or class names).
POLICY_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "fair": "fair",
        "drf": "drf",
        "fifo": "fifo",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.fairsharepolicy": "fair",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.dominantresourcefairnesspolicy": "drf",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.fifopolicy": "fifo",
    }
)
#: Preemption timeouts -> the top-level element root takes them from.
_TIMEOUT_DEFAULTS: Mapping[str, str] = MappingProxyType(
    {
        "minSharePreemptionTimeout": "defaultMinSharePreemptionTimeout",
        "fairSharePreemptionTimeout": "defaultFairSharePreemptionTimeout",
    }
)
PLACEMENT_RULES = (
    "specified",
    "user",
    "primaryGroup",
    "secondaryGroupExistingQueue",
    "nestedUserQueue",
    "default",
    "reject",
)


@dataclass(frozen=True)
class Setting:
    """One setting element as written.

    ``name`` is the canonical element name (``schedulingPolicy`` for ``schedulingMode``),
    ``tag`` the name as written. ``text`` is the trimmed text Hadoop reads (``raw`` keeps
    surrounding whitespace, which matters for ACLs); ``value`` is typed (int, float,
    bool, str, `ResourceValue`) or ``None`` when Hadoop could not read it, in which case
    ``problem`` says why in Hadoop's words. ``element`` indexes the document's elements.

    ``value`` is typed Any: its type follows the element's name (`kind`), which the type
    checker cannot see; readers use it as the type that name has.
    """

    name: str
    tag: str
    kind: str
    raw: str | None
    value: Any
    problem: str | None
    line: int
    element: int

    @property
    def text(self) -> str | None:
        return None if self.raw is None else self.raw.strip()


def setting_value(setting: Setting | None, default: Any = None) -> Any:
    """What Hadoop takes from `setting`: its value, or `default` when it is absent or
    unreadable (its problem is `validate`'s to report)."""
    if setting is None or setting.problem is not None:
        return default
    return setting.value


def timeout_s(setting: Setting | None, inherited: float) -> float:
    """A preemption-timeout element's effective seconds (``inf`` at `NEVER_TIMEOUT_S` or
    more), or `inherited` when the element is absent or unreadable."""
    value = setting_value(setting)
    if value is None:
        return inherited
    if value >= NEVER_TIMEOUT_S:
        return math.inf
    return float(max(value, 0))


def file_hadoop_version(doc: AllocationDocument) -> int:
    """The Hadoop version a file is written for when none is given: 1 if it has ``<pool>`` elements.

    The same rule as the tuner's (``tempo.space.dialect``); YARN reads ``<pool>``
    too, so a YARN file written with pools needs an explicit version.
    """
    return 1 if any(q.tag == "pool" for q in doc.iter_queues()) else 3


@dataclass(frozen=True)
class QueueElement(QueueTree):
    """A ``queue``/``pool`` element: its full path, settings and child queues."""

    path: str
    name: str
    raw_name: str
    tag: str
    type: str | None
    line: int
    element: int
    settings: tuple[Setting, ...] = ()
    mrv1: tuple[Setting, ...] = ()
    unknown: tuple[Setting, ...] = ()
    children: tuple[QueueElement, ...] = ()

    @property
    def is_parent(self) -> bool:
        """Has child queues or is declared ``type="parent"``."""
        return bool(self.children) or self.type == "parent"

    @property
    def reservable(self) -> bool:
        return any(s.name == "reservation" for s in self.settings)

    def get(self, name: str) -> Setting | None:
        """The setting Hadoop uses for `name` (canonical or alias): the last one written."""
        canonical = ALIASES.get(name, name)
        found = [s for s in (*self.settings, *self.mrv1) if s.name == canonical]
        return found[-1] if found else None


def merge_declarations(declarations: Sequence[QueueElement]) -> QueueElement:
    """The queue Hadoop reads from several elements of one path: each setting from the last
    element that writes it, the child queues of all of them (its loaders keep a map per
    setting keyed by queue name, and every element's children are loaded). The result
    stands at the last element, where a new setting is added."""
    last = declarations[-1]
    if len(declarations) == 1:
        return last
    parent = any(d.type == "parent" for d in declarations)
    return replace(
        last,
        type="parent" if parent else last.type,
        settings=tuple(s for d in declarations for s in d.settings),
        mrv1=tuple(s for d in declarations for s in d.mrv1),
        unknown=tuple(s for d in declarations for s in d.unknown),
        children=tuple(c for d in declarations for c in d.children),
    )


def merge_siblings(queues: Sequence[QueueElement]) -> tuple[QueueElement, ...]:
    """Sibling queue elements with each repeated path merged (`merge_declarations`), in
    the order the paths first appear."""
    by_path: dict[str, list[QueueElement]] = {}
    for queue in queues:
        by_path.setdefault(queue.path, []).append(queue)
    return tuple(merge_declarations(group) for group in by_path.values())


@dataclass(frozen=True)
class UserLimit:
    """A ``user`` element: ``maxRunningApps`` (YARN) or ``maxRunningJobs`` (MRv1)."""

    name: str
    line: int
    element: int
    settings: tuple[Setting, ...] = ()
    unknown: tuple[Setting, ...] = ()

    def get(self, name: str) -> Setting | None:
        found = [s for s in self.settings if s.name == name]
        return found[-1] if found else None


@dataclass(frozen=True)
class PlacementRule:
    """A ``rule`` of the queue placement policy; ``create`` defaults to true."""

    name: str
    create: bool
    attributes: Mapping[str, str]
    line: int
    element: int
    tag: str = "rule"
    inner: PlacementRule | None = None

    def is_terminal(self, hadoop_version: int) -> bool:
        """True if the rule never passes an application on to the next rule.

        Hadoop 3.3+ (``QueuePlacementPolicy.getTerminal``): ``reject`` always;
        ``specified`` and ``secondaryGroupExistingQueue`` never; ``user``,
        ``primaryGroup``, ``nestedUserQueue`` and ``default`` when they may create the
        queue; a rule with a parent rule only if the parent rule is terminal too.
        Hadoop 2: ``default`` and ``reject`` always, ``user`` and ``primaryGroup`` with
        create, the others never.
        """
        if hadoop_version >= 3:
            terminal = {
                "reject": True,
                "specified": False,
                "secondaryGroupExistingQueue": False,
            }.get(self.name, self.create)
            if self.inner is not None:
                terminal = terminal and self.inner.is_terminal(hadoop_version)
            return terminal
        if self.name in ("default", "reject"):
            return True
        if self.name in ("user", "primaryGroup"):
            return self.create
        return False


@dataclass(frozen=True)
class PlacementPolicy:
    """The ``queuePlacementPolicy`` element and its rules, in order."""

    line: int
    element: int
    rules: tuple[PlacementRule, ...] = ()
    unknown: tuple[Setting, ...] = ()


@dataclass(frozen=True)
class _Layout:
    """The decoded text of the document and where each element sits in it."""

    text: str
    encoding: str
    bom: bytes
    spans: tuple[Span, ...]
    newline: str = "\n"
    unit: str = "  "


def _element_text(element: etree._Element) -> str | None:
    """The text Hadoop's DOM sees as the element's first child (comments are dropped)."""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str):
            return None if not "".join(parts) else "".join(parts)
        parts.append(child.tail or "")
    if element.text is None and len(element) == 0:
        return None
    return "".join(parts)


#: How Hadoop reads a setting of each kind (``flag`` and ``policy`` are read apart).
_PARSERS: dict[str, Callable[[str], object]] = {
    "int": parse_int,
    "long": parse_long,
    "float": parse_float,
    "double": parse_double,
    "bool": parse_boolean,
    "resource": parse_resource,
}


def read_value(kind: str, raw: str | None, tag: str) -> tuple[object, str | None]:
    """A setting's typed value and, if Hadoop could not read it, the reason."""
    if kind == "flag":
        return True, None
    if raw is None:
        return None, f"<{tag}> is empty; Hadoop needs a value (it fails reading the file)"
    text = raw.strip()
    try:
        parse = _PARSERS.get(kind)
        if parse is not None:
            return parse(text), None
        if kind == "policy":
            policy = POLICY_NAMES.get(text.lower())
            if policy is None:
                return (
                    None,
                    f"{text} SchedulingPolicy class not found! (expected fair, drf or fifo)",
                )
            return policy, None
    except ResourceStringError as error:
        return None, f"<{tag}> {text!r}: {error}"
    except ValueError as error:
        expected = {"int": "an integer", "long": "an integer", "bool": "true or false"}.get(
            kind, "a number"
        )
        return None, f"<{tag}> expected {expected}, got {text!r} (NumberFormatException: {error})"
    return raw, None


def _setting(element: etree._Element, name: str, kind: str, index: int) -> Setting:
    raw = _element_text(element)
    value, problem = read_value(kind, raw, element.tag)
    return Setting(name, element.tag, kind, raw, value, problem, source_line(element) or 0, index)


class AllocationDocument(XmlDocument):
    """A parsed allocation file: source bytes, lxml tree and the typed written tree.

    Build one with `from_file` or `from_bytes` (from `XmlDocument`); it is never
    modified in place (`set` returns a new document).

    Attributes
    ----------
    source : str
        Where the bytes came from (a path, or ``"<bytes>"``), used in messages.
    tree : lxml.etree._Element
        The root element, with ``sourceline`` on every element.
    root_tag : str
        The root element's name; Hadoop requires ``allocations``.
    queues : tuple[QueueElement, ...]
        The top-level queue elements (one ``root`` queue, or the queues under root).
    defaults : tuple[Setting, ...]
        Recognised top-level settings (including the MRv1 ones), in document order.
    users : tuple[UserLimit, ...]
    placement : PlacementPolicy | None
        The last ``queuePlacementPolicy`` element, the one Hadoop reads
        (``replaced_placements``: the lines of those before it).
    unknown : tuple[Setting, ...]
        Top-level elements Hadoop logs as "Bad element" and ignores.
    """

    def __init__(self, data: bytes, *, source: str = "<bytes>") -> None:
        super().__init__(data, source=source)
        located = self._located
        self._elements = list(located.elements)
        self._index = {element: i for i, element in enumerate(self._elements)}
        text, spans = located.text, located.spans
        self._layout = _Layout(
            text,
            located.encoding,
            located.bom,
            spans,
            "\r\n" if "\r\n" in text else "\n",
            _indent_unit(text, spans),
        )
        self._read_tree()

    def _read_tree(self) -> None:
        queues: list[etree._Element] = []
        defaults, users, unknown = [], [], []
        placement = None
        replaced: list[int] = []  # lines of queuePlacementPolicy elements a later one replaces
        if self.root_tag == "allocations":
            for child in self.tree:
                if not isinstance(child.tag, str):
                    continue
                tag, index = child.tag, self._index[child]
                if tag in ("queue", "pool"):
                    queues.append(child)
                elif tag == "user":
                    users.append(self._read_user(child))
                elif tag == "queuePlacementPolicy":
                    if placement is not None:
                        replaced.append(placement.line)
                    placement = self._read_placement(child)
                elif ALIASES.get(tag, tag) in TOP_SETTINGS:
                    name = ALIASES.get(tag, tag)
                    defaults.append(_setting(child, name, TOP_SETTINGS[name], index))
                elif tag in MRV1_TOP_SETTINGS:
                    defaults.append(_setting(child, tag, MRV1_TOP_SETTINGS[tag], index))
                else:
                    unknown.append(_setting(child, tag, "unknown", index))
        alone = len(queues) == 1
        self.queues = tuple(
            self._read_queue(q, None if (alone and _is_root(q)) else "root", top_root=_is_root(q))
            for q in queues
        )
        self.defaults = tuple(defaults)
        self.users = tuple(users)
        self.placement = placement
        self.replaced_placements = tuple(replaced)
        self.unknown = tuple(unknown)

    def _read_queue(
        self, element: etree._Element, parent: str | None, *, top_root: bool = False
    ) -> QueueElement:
        raw_name = element.get("name", "")
        name = raw_name.strip()
        if parent is None:
            path = "root"
        elif top_root and parent == "root":
            path = "root"  # a root queue with siblings (an error, see validate)
        else:
            path = f"{parent}.{name}"
        settings, mrv1, unknown, children = [], [], [], []
        for child in element:
            if not isinstance(child.tag, str):
                continue
            tag, index = child.tag, self._index[child]
            canonical = ALIASES.get(tag, tag)
            # Hadoop tests "queue".endsWith(tag), so <queue>, <pool> (and <ueue>) nest.
            if "queue".endswith(tag) or tag == "pool":
                children.append(self._read_queue(child, path))
            elif canonical in QUEUE_SETTINGS:
                settings.append(_setting(child, canonical, QUEUE_SETTINGS[canonical], index))
            elif tag in MRV1_QUEUE_SETTINGS:
                mrv1.append(_setting(child, tag, MRV1_QUEUE_SETTINGS[tag], index))
            else:
                unknown.append(_setting(child, tag, "unknown", index))
        return QueueElement(
            path=path,
            name=name,
            raw_name=raw_name,
            tag=element.tag,
            type=element.get("type"),
            line=source_line(element) or 0,
            element=self._index[element],
            settings=tuple(settings),
            mrv1=tuple(mrv1),
            unknown=tuple(unknown),
            children=tuple(children),
        )

    def _read_user(self, element: etree._Element) -> UserLimit:
        settings, unknown = [], []
        for child in element:
            if not isinstance(child.tag, str):
                continue
            if child.tag in ("maxRunningApps", "maxRunningJobs"):
                settings.append(_setting(child, child.tag, "int", self._index[child]))
            else:
                unknown.append(_setting(child, child.tag, "unknown", self._index[child]))
        return UserLimit(
            element.get("name", ""),
            source_line(element) or 0,
            self._index[element],
            tuple(settings),
            tuple(unknown),
        )

    def _read_rule(self, element: etree._Element) -> PlacementRule:
        # lxml-stubs types attribute names and values as str | bytes; lxml gives str
        attributes: dict[str, str] = {k: v for k, v in element.attrib.items() if k != "create"}  # type: ignore[misc]
        inner = [c for c in element if isinstance(c.tag, str)]
        return PlacementRule(
            name=element.get("name", "") if element.tag == "rule" else "",
            create=parse_boolean(element.get("create", "true")),
            attributes=MappingProxyType(attributes),
            line=source_line(element) or 0,
            element=self._index[element],
            tag=element.tag,
            inner=self._read_rule(inner[0]) if inner else None,
        )

    def _read_placement(self, element: etree._Element) -> PlacementPolicy:
        rules = [self._read_rule(c) for c in element if isinstance(c.tag, str)]
        return PlacementPolicy(source_line(element) or 0, self._index[element], tuple(rules))

    # -------------------------------------------------------------------- queries
    @property
    def is_allocations(self) -> bool:
        return self.root_tag == "allocations"

    @property
    def root_element(self) -> QueueElement | None:
        """The ``<queue name="root">`` element when the file holds its queues in one (the
        queues are then its children), else None (they are root's at the top level)."""
        queues = self.queues
        return queues[0] if len(queues) == 1 and queues[0].path == "root" else None

    def iter_queues(self) -> Iterator[QueueElement]:
        """Every queue element, depth first, in document order."""
        for queue in self.queues:
            yield from queue.walk()

    def queue(self, path: str) -> QueueElement:
        """The queue at a full path (``root.a.b``; ``a.b`` means ``root.a.b``): its element, or
        the merge of the elements that declare it (`merge_declarations`)."""
        full = path if path == "root" or path.startswith("root.") else f"root.{path}"
        found = [q for q in self.iter_queues() if q.path == full]
        if not found and full == "root":
            raise AllocationError(
                f'{self.source}: this file has no <queue name="root"> element; root\'s settings '
                "come from the top-level defaults"
            )
        if not found:
            known = ", ".join(q.path for q in self.iter_queues()) or "none"
            raise AllocationError(f"{self.source}: no queue {path!r} in the file (queues: {known})")
        return merge_declarations(found)

    def default(self, name: str) -> Setting | None:
        """The top-level setting Hadoop uses for `name`: the last one written."""
        canonical = ALIASES.get(name, name)
        found = [s for s in self.defaults if s.name == canonical]
        return found[-1] if found else None

    def line_of(self, element: int) -> int:
        return source_line(self._elements[element]) or 0

    def default_timeout_s(self, name: str) -> float:
        """Root's `name` preemption timeout from the top-level defaults (``inf``: never).

        ``fairSharePreemptionTimeout`` falls back to the legacy top-level element of
        that name, as Hadoop does.
        """
        setting = self.default(_TIMEOUT_DEFAULTS[name])
        if setting is None and name == "fairSharePreemptionTimeout":
            setting = self.default("fairSharePreemptionTimeout")
        return timeout_s(setting, math.inf)

    def inherited_timeout_s(self, path: str, name: str) -> float:
        """The `name` timeout queue `path` gets without its own element: its nearest
        ancestor's own element, else the top-level default (Hadoop's inheritance, the
        same steps `whatif.allocation.resolve` takes down the tree)."""
        if path == "root":
            return self.default_timeout_s(name)
        parent = path.rpartition(".")[0]
        own = [q for q in self.iter_queues() if q.path == parent]
        setting = own[-1].get(name) if own else None
        return timeout_s(setting, self.inherited_timeout_s(parent, name))

    def __repr__(self) -> str:
        return f"AllocationDocument(source={self.source!r}, queues={sum(1 for _ in self.iter_queues())})"

    # --------------------------------------------------------------------- editing
    def set(
        self, queue: str, setting: str, value: object, *, hadoop_version: int | None = None
    ) -> AllocationDocument:
        """A new document in which only `setting` of `queue` changed.

        Parameters
        ----------
        queue : str
            Full queue path, ``root.a.b``.
        setting : str
            The Hadoop element name (``weight``, ``minResources``, ...), or an alias
            (``schedulingMode``): an existing element keeps its tag, a new one is
            written with the name given (Hadoop 1 reads only ``schedulingMode``).
        value
            A number, bool or str; `Resources` or `ResourceLimit` for resource
            settings (written in the form the element, or else the file, uses);
            ``math.inf`` for a preemption timeout means never (the element is removed
            if the inherited value is already never, else `NEVER_TIMEOUT_S` is
            written); ``None`` removes the element so the inherited or default value
            applies.

        hadoop_version : int, optional
            The Hadoop version the file is for (default: the file's own dialect,
            `file_hadoop_version`). An element that version does not read is refused
            (a ``maxRunningApps`` in a Hadoop 1 pool, a ``minMaps`` in a YARN queue),
            naming the element it reads instead; removing one (``None``) is allowed.

        Only that element's text changes, or one element is added (with the file's
        indentation) or removed. Raises `AllocationError` for an unknown queue or
        setting, or a value Hadoop would reject or clamp.
        """
        canonical = ALIASES.get(setting, setting)
        kind = QUEUE_SETTINGS.get(canonical) or MRV1_QUEUE_SETTINGS.get(canonical)
        if kind is None or kind == "flag":
            known = ", ".join(
                n for n in (*QUEUE_SETTINGS, *MRV1_QUEUE_SETTINGS) if n != "reservation"
            )
            raise AllocationError(
                f"{self.source}: unknown queue setting {setting!r} for {queue}; expected one of {known}"
            )
        target = self.queue(queue)
        version = self._version(hadoop_version)
        if value is not None:
            self._check_readable(target, setting, value, version)
        if canonical == "maxAMShare" and target.is_parent and value is not None:
            raise AllocationError(
                f"{self.source}: {target.path} is a parent queue; maxAMShare applies to leaf "
                "queues only (Hadoop 3.3+ rejects it on a parent)"
            )
        existing = [s for s in (*target.settings, *target.mrv1) if s.name == canonical]
        if version == 1 and value is not None:  # write Hadoop 1's <schedulingMode>, not a
            # <schedulingPolicy> beside it; removing takes both
            existing = [s for s in existing if reads(1, s.tag, "pool")]
        if kind == "long" and value is not None and _is_infinite(value):
            inherited = self.inherited_timeout_s(target.path, canonical)
            if math.isinf(inherited):
                value = None
            else:
                value = NEVER_TIMEOUT_S
        if value is None:
            if not existing:
                return self
            return self._apply([(s.element, None) for s in existing])
        text = self._format(target.path, canonical, kind, value, existing[-1] if existing else None)
        if existing:
            return self._apply([(existing[-1].element, text)], verbatim=kind == "acl")
        return self._insert(target, setting, text)

    def set_default(
        self, setting: str, value: object, *, hadoop_version: int | None = None
    ) -> AllocationDocument:
        """A new document in which only the top-level element `setting` changed.

        `setting` is a top-level element (``fairSharePreemptionTimeout``,
        ``poolMaxJobsDefault``, ...); `value` as for `set`: ``None`` removes the
        element, and ``math.inf`` for a timeout means never (the element is removed,
        or `NEVER_TIMEOUT_S` written when removing it would let another element set
        a finite timeout). A new element is added after the last top-level setting
        (else at the top of ``<allocations>``), indented like its siblings. An element
        `hadoop_version` (default: the file's dialect) does not read is refused, as in `set`.
        """
        canonical = ALIASES.get(setting, setting)
        kind = TOP_SETTINGS.get(canonical) or MRV1_TOP_SETTINGS.get(canonical)
        if kind is None or not self.is_allocations:
            known = ", ".join((*TOP_SETTINGS, *MRV1_TOP_SETTINGS))
            raise AllocationError(
                f"{self.source}: unknown top-level setting {setting!r}; expected one of {known}"
            )
        version = self._version(hadoop_version)
        if value is not None and not reads(version, setting, "top"):
            raise AllocationError(
                f"{self.source}: refusing to write <{setting}>: "
                + ignored_message(version, setting, "allocations")
            )
        existing = [s for s in self.defaults if s.name == canonical]
        if kind == "long" and value is not None and _is_infinite(value):
            legacy = self.default("fairSharePreemptionTimeout")
            shadowed = canonical == "defaultFairSharePreemptionTimeout" and legacy is not None
            value = (
                NEVER_TIMEOUT_S if shadowed and math.isfinite(timeout_s(legacy, math.inf)) else None
            )
        if value is None:
            if not existing:
                return self
            return self._apply([(s.element, None) for s in existing])
        text = self._format(
            "<allocations>", canonical, kind, value, existing[-1] if existing else None
        )
        if existing:
            return self._apply([(existing[-1].element, text)])
        return self._insert_top(setting, text)

    def _version(self, hadoop_version: int | None) -> int:
        if hadoop_version is None:
            return file_hadoop_version(self)
        if isinstance(hadoop_version, bool) or hadoop_version not in (1, 2, 3):
            raise AllocationError(f"hadoop_version: expected 1, 2 or 3, got {hadoop_version!r}")
        return hadoop_version

    def _check_readable(
        self, target: QueueElement, setting: str, value: object, version: int
    ) -> None:
        """Refuse to write `setting` into `target` where Hadoop `version` would not read it."""
        refusing = f"{self.source}: refusing to write <{setting}> into {target.path}"
        if version == 1:
            top = target in self.queues
            if target.tag != "pool" or not top:
                raise AllocationError(
                    f"{refusing}: Hadoop 1 reads only top-level <pool> elements and this is a "
                    f"<{target.tag}>{'' if top else ' nested in another'} "
                    "(pass --hadoop-version 2 or 3 if the file is for YARN)"
                )
            if not reads(1, setting, "pool"):
                raise AllocationError(
                    f"{refusing}: "
                    + ignored_message(1, setting, f"pool {target.name}")
                    + " (pass --hadoop-version 2 or 3 if the file is for YARN)"
                )
            if setting == "schedulingMode" and str(value).lower() not in HADOOP1_MODES:
                raise AllocationError(
                    f"{refusing}: Hadoop 1 accepts only fair or fifo, got {value!r} "
                    "(any other mode makes it refuse the file)"
                )
        elif not reads(version, setting, "pool"):
            other = (
                "3 if the cluster runs it"
                if setting in YARN3_ONLY
                else "1 if the file is for Hadoop 1"
            )
            raise AllocationError(
                f"{refusing}: "
                + ignored_message(version, setting, target.path)
                + f" (pass --hadoop-version {other})"
            )

    def _insert_top(self, tag: str, value_text: str) -> AllocationDocument:
        """Add ``<tag>value</tag>`` to ``<allocations>``, after its last top-level setting."""
        layout = self._layout
        text, newline = layout.text, layout.newline
        span = layout.spans[0]
        element = f"<{tag}>{value_text}</{tag}>"
        if span.self_closing:
            opening = text[span.start : span.end].rstrip("/> \t\r\n")
            new = f"{opening}>{newline}{layout.unit}{element}{newline}</{span.tag}>"
            return self._reparse(text[: span.start] + new + text[span.end :])
        children = [
            i for i in range(1, len(layout.spans)) if self._elements[i].getparent() is self.tree
        ]
        settings = [s.element for s in (*self.defaults, *self.unknown)]
        indent = indent_before(text, layout.spans[children[0]].start) if children else None
        if indent is None:
            indent = layout.unit
        if settings:
            anchor = layout.spans[max(settings)].end
            return self._reparse(text[:anchor] + f"{newline}{indent}{element}" + text[anchor:])
        if children:
            anchor = layout.spans[children[0]].start
            return self._reparse(text[:anchor] + f"{element}{newline}{indent}" + text[anchor:])
        inner = f"{newline}{indent}{element}{newline}"
        return self._reparse(text[: span.start_end] + inner + text[span.end_start :])

    def _format(
        self, owner: str, name: str, kind: str, value: object, existing: Setting | None
    ) -> str:
        where = f"{owner} {name}"
        like = existing.text if existing is not None and existing.text else ""
        if kind == "resource":
            if not isinstance(value, Resources | ResourceLimit):
                raise AllocationError(
                    f"{where}: expected Resources or ResourceLimit, got {value!r}"
                )
            if isinstance(value, ResourceLimit) and value.is_unlimited:
                raise AllocationError(
                    f"{where}: use None to remove a limit, not an unlimited value"
                )
            if name == "minResources" and isinstance(value, ResourceLimit) and value.percent:
                raise AllocationError(f"{where}: minResources must be an absolute amount")
            amounts = value.absolute if isinstance(value, ResourceLimit) else value
            if amounts is not None:
                _check_amounts(where, name, amounts)
            template = like if existing is not None else self._resource_template()
            try:
                return render_resource(value, template)
            except ResourceStringError as error:
                raise AllocationError(f"{where}: {error}") from None
        if isinstance(value, bool) != (kind == "bool"):
            raise AllocationError(f"{where}: expected a {kind} value, got {value!r}")
        if kind == "bool":
            return "true" if value else "false"
        if kind in ("policy", "acl", "text"):
            if not isinstance(value, str):
                raise AllocationError(f"{where}: expected a string, got {value!r}")
            if kind == "policy" and value.lower() not in ("fair", "drf", "fifo"):
                raise AllocationError(f"{where}: expected fair, drf or fifo, got {value!r}")
            return escape_text(value.lower() if kind == "policy" else value)
        if not isinstance(value, int | float) or not math.isfinite(value):
            raise AllocationError(f"{where}: expected a finite number, got {value!r}")
        if kind in ("int", "long"):
            if value != int(value):
                raise AllocationError(f"{where}: expected a whole number, got {value!r}")
            if value < 0:
                raise AllocationError(f"{where}: expected a value >= 0, got {value!r}")
            limit = 2**31 - 1 if kind == "int" else NEVER_TIMEOUT_S
            if value > limit:
                raise AllocationError(f"{where}: expected a value <= {limit}, got {value!r}")
            return str(int(value))
        if name == "weight" and value < 0:
            raise AllocationError(f"{where}: expected a weight >= 0, got {value!r}")
        if name == "fairSharePreemptionThreshold" and not 0 <= value <= 1:
            raise AllocationError(f"{where}: expected a threshold in [0, 1], got {value!r}")
        if name == "maxAMShare" and not (value == -1 or 0 <= value <= 1):
            raise AllocationError(f"{where}: expected a share in [0, 1] or -1, got {value!r}")
        if value == int(value) and "." not in like and like:
            return str(int(value))
        return repr(float(value))

    def _resource_template(self) -> str | None:
        """The first absolute resource string in the file, to copy its spelling."""
        candidates = [*self.defaults, *(s for q in self.iter_queues() for s in q.settings)]
        for setting in candidates:
            if isinstance(setting.value, ResourceValue) and setting.value.form in (OLD, NEW):
                return setting.text
        return None

    def _apply(
        self, edits: list[tuple[int, str | None]], *, verbatim: bool = False
    ) -> AllocationDocument:
        """Replace element texts (or remove elements, for ``None``) and re-parse.

        The whitespace around an old value is kept (Hadoop trims numbers and names),
        unless `verbatim`: then the new text is the element's whole text, as ACLs need
        (Hadoop reads them untrimmed, so a space left over would change who they name).
        """
        layout = self._layout
        text = layout.text
        replacements: list[tuple[int, int, str]] = []
        for element, new in edits:
            span = layout.spans[element]
            if new is None:
                start, end = line_bounds(text, span.start, span.end)
                replacements.append((start, end, ""))
            else:
                replacements.append(text_edit(text, span, new, verbatim=verbatim))
        for start, end, new in sorted(replacements, reverse=True):
            text = text[:start] + new + text[end:]
        return self._reparse(text)

    def _insert(self, queue: QueueElement, tag: str, value_text: str) -> AllocationDocument:
        """Add ``<tag>value</tag>`` to `queue`, indented like its other children."""
        layout = self._layout
        text, newline = layout.text, layout.newline
        span = layout.spans[queue.element]
        own_indent = indent_before(text, span.start)
        element = f"<{tag}>{value_text}</{tag}>"
        child_indexes = [s.element for s in (*queue.settings, *queue.mrv1, *queue.unknown)]
        child_indexes += [c.element for c in queue.children]
        indent: str | None
        if span.self_closing:
            indent = (own_indent or "") + layout.unit
            opened = f"{unclosed_start(text, span)}>{newline}{indent}{element}{newline}"
            new = f"{opened}{own_indent or ''}</{span.tag}>"
            return self._reparse(text[: span.start] + new + text[span.end :])
        if child_indexes:
            first = layout.spans[min(child_indexes)]
            indent = indent_before(text, first.start)
            if indent is None:
                indent = (own_indent or "") + layout.unit
            settings = [s.element for s in (*queue.settings, *queue.mrv1, *queue.unknown)]
            anchor = layout.spans[max(settings)].end if settings else span.start_end
            insertion = f"{newline}{indent}{element}"
            return self._reparse(text[:anchor] + insertion + text[anchor:])
        inner = text[span.start_end : span.end_start]
        indent = (own_indent or "") + layout.unit
        if inner.strip():
            insertion = f"{newline}{indent}{element}"
            return self._reparse(text[: span.start_end] + insertion + text[span.start_end :])
        new_inner = f"{newline}{indent}{element}{newline}{own_indent or ''}"
        return self._reparse(text[: span.start_end] + new_inner + text[span.end_start :])

    def _reparse(self, text: str) -> AllocationDocument:
        data = self._layout.bom + text.encode(self._layout.encoding)
        return AllocationDocument(data, source=self.source)


def _check_amounts(where: str, name: str, amounts: Resources) -> None:
    """Amounts a resource element can say: >= 0, and finite but for one of a maximum's
    (Hadoop 3's ``memory-mb=X`` leaves vcores unlimited)."""
    pair = (amounts.memory_mb, amounts.vcores)
    if not all(a >= 0 for a in pair):  # (nan too)
        raise AllocationError(f"{where}: expected amounts >= 0, got {_amounts(amounts)}")
    unlimited = sum(math.isinf(a) for a in pair)
    if unlimited == 2 or (unlimited and name != "maxResources"):
        raise AllocationError(
            f"{where}: expected finite amounts"
            + (" (one may be unlimited in a maxResources)" if name == "maxResources" else "")
            + f", got {_amounts(amounts)}"
        )


def _amounts(amounts: Resources) -> str:
    return f"{amounts.memory_mb:g} MB, {amounts.vcores:g} vcores"


def _is_root(element: etree._Element) -> bool:
    return element.get("name", "").lower() == "root"


def _is_infinite(value: object) -> bool:
    return isinstance(value, float) and math.isinf(value) and value > 0


def _indent_unit(text: str, spans: Sequence[Span]) -> str:
    """One level of indentation as the file uses it (two spaces if it cannot tell)."""
    stack: list[tuple[int, str | None]] = []
    for span in spans:
        while stack and stack[-1][0] <= span.start:
            stack.pop()
        indent = indent_before(text, span.start)
        if stack and indent is not None and stack[-1][1] is not None:
            parent = stack[-1][1]
            if indent.startswith(parent) and len(indent) > len(parent):
                return indent[len(parent) :]
        stack.append((span.end, indent))
    return "  "


__all__ = [
    "ALIASES",
    "AllocationDocument",
    "MRV1_QUEUE_SETTINGS",
    "MRV1_TOP_SETTINGS",
    "NEVER_TIMEOUT_S",
    "PlacementPolicy",
    "PlacementRule",
    "QUEUE_SETTINGS",
    "QueueElement",
    "Setting",
    "TOP_SETTINGS",
    "UserLimit",
    "file_hadoop_version",
    "setting_value",
    "timeout_s",
]
