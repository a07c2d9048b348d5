"""Setting assignments written as text, ``root.QUEUE.SETTING=VALUE``, as the CLI takes them.

VALUE is read by the setting's kind: a number for weights, shares, limits and
timeouts (``never``/``off``/``inf`` for a timeout that never fires), ``fair``/``drf``/
``fifo`` for a policy, ``true``/``false``, a resource string in any of Hadoop's forms
(``2048 mb, 2 vcores``, ``memory-mb=2048, vcores=2``, ``50%``), or ``default`` to
remove the element so the inherited or default value applies.

A target without ``root.`` names a top-level element (``queueMaxResourcesDefault=40960
mb, 40 vcores``, ``defaultFairSharePreemptionThreshold=0.8``).

``root.QUEUE.minResources.memory=VALUE`` (or ``.vcores``; ``maxResources`` too) changes
one amount of a resource element and keeps the other as the file has it, the way
`tempo optimize` names the amounts it tunes; an amount the file leaves out is 0 in a
minimum and unlimited in a maximum.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable

from whatif.allocation.effective import ResourceLimit, Resources
from whatif.allocation.model import (
    ALIASES,
    MRV1_QUEUE_SETTINGS,
    MRV1_TOP_SETTINGS,
    QUEUE_SETTINGS,
    TOP_SETTINGS,
    AllocationDocument,
    setting_value,
)
from whatif.allocation.resource_string import ResourceStringError, ResourceValue, parse_resource
from whatif.errors import AllocationError

_REMOVE = ("default", "none", "unset")
_NEVER = ("never", "off", "inf", "infinity")
#: What a value of each kind of setting is, for the error on one that is not.
_TAKES = {
    "int": "a whole number",
    "long": "a whole number of seconds (or never)",
    "bool": "true or false",
}
#: The amounts of a resource element one assignment may change alone.
_COMPONENTS = {"memory": "memory", "memory-mb": "memory", "vcores": "vcores"}


def parse_assignment(text: str) -> tuple[str, str, object]:
    """``root.a.b.weight=2`` -> (``root.a.b``, ``weight``, 2.0); raises `AllocationError`."""
    target, sep, raw = text.partition("=")
    queue, dot, setting = target.strip().rpartition(".")
    if not sep or not dot or not queue or not setting:
        raise AllocationError(
            f"--set {text!r}: expected root.QUEUE.SETTING=VALUE, e.g. root.prod.weight=2, or "
            "SETTING=VALUE for a top-level element, e.g. queueMaxAMShareDefault=0.5"
        )
    canonical = ALIASES.get(setting, setting)
    kind = QUEUE_SETTINGS.get(canonical) or MRV1_QUEUE_SETTINGS.get(canonical)
    if kind is None or kind == "flag":
        raise AllocationError(f"--set {text!r}: unknown queue setting {setting!r}")
    return queue, setting, _value(text, setting, kind, raw)


def parse_top_assignment(text: str) -> tuple[str, object] | None:
    """``queueMaxAMShareDefault=0.5`` -> (``queueMaxAMShareDefault``, 0.5): a top-level
    element of the allocation file; None when `text` names none (a queue setting's
    ``root.QUEUE.SETTING``, say)."""
    target, sep, raw = text.partition("=")
    setting = target.strip()
    kind = TOP_SETTINGS.get(ALIASES.get(setting, setting)) or MRV1_TOP_SETTINGS.get(setting)
    if not sep or kind is None:
        return None
    return setting, _value(text, setting, kind, raw)


def _value(text: str, setting: str, kind: str, raw: str) -> object:
    """The value `raw` of `setting`, of `kind`, read as the module says (None: remove it)."""
    value = raw.strip()
    if value.lower() in _REMOVE:
        return None
    if kind == "acl":  # Hadoop reads ACLs untrimmed: " admins" is the group admins only
        if not raw:
            raise AllocationError(
                f"--set {text!r}: {setting} needs a value, e.g. 'alice,bob admins', ' ' for "
                "nobody or '*' for everyone (an empty element makes Hadoop fail reading the "
                "file; 'default' removes it)"
            )
        if any(unicodedata.category(c) == "Cc" for c in raw):
            raise AllocationError(
                f"--set {text!r}: {setting} cannot take control characters: an ACL is user "
                "names, one space, then group names, each list comma-separated"
            )
        return raw
    try:
        if kind == "resource":
            parsed = parse_resource(value)
            missing = 0.0 if ALIASES.get(setting, setting) == "minResources" else math.inf
            return parsed.as_limit(missing=missing)
        if kind == "long" and value.lower() in _NEVER:
            return math.inf
        if kind in ("int", "long"):
            return int(value)
        if kind in ("float", "double"):
            return float(value)
        if kind == "bool":
            if value.lower() not in ("true", "false"):
                raise ValueError
            return value.lower() == "true"
    except ResourceStringError as error:
        raise AllocationError(f"--set {text!r}: {setting} cannot take {value!r}: {error}") from None
    except ValueError:
        raise AllocationError(
            f"--set {text!r}: {setting} takes {_TAKES.get(kind, 'a number')}, got {value!r}"
        ) from None
    return value


def apply_assignments(
    doc: AllocationDocument, assignments: Iterable[str], *, hadoop_version: int | None = None
) -> AllocationDocument:
    """`doc` with each ``root.QUEUE.SETTING=VALUE`` applied in turn through
    `AllocationDocument.set`, and each top-level ``SETTING=VALUE`` through
    `AllocationDocument.set_default`.

    An element `hadoop_version` (default: the file's dialect, ``<pool>`` elements
    meaning Hadoop 1) does not read is refused, naming the one it reads instead.
    """
    for text in assignments:
        try:
            top = parse_top_assignment(text)
            if top is not None:
                doc = doc.set_default(*top, hadoop_version=hadoop_version)
                continue
            component = _component_assignment(doc, text, hadoop_version)
            queue, setting, value = component or parse_assignment(text)
            doc = doc.set(queue, setting, value, hadoop_version=hadoop_version)
        except AllocationError as error:
            message = str(error)
            raise AllocationError(
                message if message.startswith("--set ") else f"--set {text!r}: {message}"
            ) from None
    return doc


def _component_assignment(
    doc: AllocationDocument, text: str, hadoop_version: int | None = None
) -> tuple[str, str, object] | None:
    """``root.a.minResources.memory=2048`` -> (``root.a``, ``minResources``, the element's
    amounts with memory 2048), or None when `text` names no amount of a resource element.
    Hadoop 2 reads only ``X mb, Y vcores``: an amount whose other one is unlimited (the
    element is not written) cannot be written for it alone."""
    target, sep, raw = text.partition("=")
    element, _, name = target.strip().rpartition(".")
    queue, _, setting = element.rpartition(".")
    if not sep or name not in _COMPONENTS or QUEUE_SETTINGS.get(setting) != "resource":
        return None
    try:
        amount = float(raw.strip())
    except ValueError:
        amount = math.nan
    if not 0 <= amount < math.inf:
        raise AllocationError(
            f"--set {text!r}: {setting}.{name} takes an amount >= 0 "
            f"({'MB' if _COMPONENTS[name] == 'memory' else 'cores'}), got {raw.strip()!r}"
        )
    try:
        written = doc.queue(queue).get(setting)
    except AllocationError as error:
        raise AllocationError(f"--set {text!r}: {error}") from None
    if written is not None and written.problem is not None:
        # an amount of a value Hadoop cannot read: the other amounts are not known
        raise AllocationError(
            f"--set {text!r}: {queue}'s {setting} {written.text!r} (line {written.line}) is "
            f"not a value Hadoop reads ({written.problem}); set the whole element, e.g. "
            f"--set '{queue}.{setting}=40960 mb, 40 vcores'"
        )
    current = setting_value(written)
    if isinstance(current, ResourceValue) and current.is_percent:
        raise AllocationError(
            f"--set {text!r}: {queue}'s {setting} is a percentage ({current.memory:g}% memory, "
            f"{current.vcores:g}% vcores); set the whole element, e.g. "
            f"--set '{queue}.{setting}=40960 mb, 40 vcores'"
        )
    missing = 0.0 if setting == "minResources" else math.inf
    amounts = (
        current.as_resources(missing=missing)
        if isinstance(current, ResourceValue)
        else Resources(missing, missing)
    )
    if _COMPONENTS[name] == "memory":
        amounts = Resources(amount, amounts.vcores)
    else:
        amounts = Resources(amounts.memory_mb, amount)
    if hadoop_version == 2 and math.inf in (amounts.memory_mb, amounts.vcores):
        raise AllocationError(
            f"--set {text!r}: {queue} has no {setting} to keep the other amount of, and "
            f"Hadoop 2 reads only 'X mb, Y vcores' (both amounts); set the whole element, "
            f"e.g. --set '{queue}.{setting}=40960 mb, 40 vcores'"
        )
    return queue, setting, ResourceLimit(absolute=amounts)
