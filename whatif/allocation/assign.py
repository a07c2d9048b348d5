"""Setting assignments written as text, ``root.QUEUE.SETTING=VALUE``, as the CLI takes them.

VALUE is read by the setting's kind: a number for weights, shares, limits and
timeouts (``never``/``off``/``inf`` for a timeout that never fires), ``fair``/``drf``/
``fifo`` for a policy, ``true``/``false``, a resource string in any of Hadoop's forms
(``2048 mb, 2 vcores``, ``memory-mb=2048, vcores=2``, ``50%``), or ``default`` to
remove the element so the inherited or default value applies.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable

from whatif.allocation.model import ALIASES, MRV1_QUEUE_SETTINGS, QUEUE_SETTINGS, AllocationDocument
from whatif.allocation.resource_string import ResourceStringError, parse_resource
from whatif.errors import AllocationError

_REMOVE = ("default", "none", "unset")
_NEVER = ("never", "off", "inf", "infinity")


def parse_assignment(text: str) -> tuple[str, str, object]:
    """``root.a.b.weight=2`` -> (``root.a.b``, ``weight``, 2.0); raises `AllocationError`."""
    target, sep, raw = text.partition("=")
    queue, dot, setting = target.strip().rpartition(".")
    if not sep or not dot or not queue or not setting:
        raise AllocationError(
            f"--set {text!r}: expected root.QUEUE.SETTING=VALUE, e.g. root.prod.weight=2"
        )
    canonical = ALIASES.get(setting, setting)
    kind = QUEUE_SETTINGS.get(canonical) or MRV1_QUEUE_SETTINGS.get(canonical)
    if kind is None or kind == "flag":
        raise AllocationError(f"--set {text!r}: unknown queue setting {setting!r}")
    value = raw.strip()
    if value.lower() in _REMOVE:
        return queue, setting, None
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
        return queue, setting, raw
    try:
        if kind == "resource":
            parsed = parse_resource(value)
            missing = 0.0 if canonical == "minResources" else math.inf
            return queue, setting, parsed.as_limit(missing=missing)
        if kind == "long" and value.lower() in _NEVER:
            return queue, setting, math.inf
        if kind in ("int", "long"):
            return queue, setting, int(value)
        if kind in ("float", "double"):
            return queue, setting, float(value)
        if kind == "bool":
            if value.lower() not in ("true", "false"):
                raise ValueError("expected true or false")
            return queue, setting, value.lower() == "true"
    except (ValueError, ResourceStringError) as error:
        raise AllocationError(f"--set {text!r}: {setting} cannot take {value!r}: {error}") from None
    return queue, setting, value


def apply_assignments(
    doc: AllocationDocument, assignments: Iterable[str], *, hadoop_version: int | None = None
) -> AllocationDocument:
    """`doc` with each ``root.QUEUE.SETTING=VALUE`` applied in turn through `AllocationDocument.set`.

    An element `hadoop_version` (default: the file's dialect, ``<pool>`` elements
    meaning Hadoop 1) does not read is refused, naming the one it reads instead.
    """
    for text in assignments:
        queue, setting, value = parse_assignment(text)
        try:
            doc = doc.set(queue, setting, value, hadoop_version=hadoop_version)
        except AllocationError as error:
            raise AllocationError(f"--set {text!r}: {error}") from None
    return doc
