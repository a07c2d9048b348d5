"""Semantic differences between two allocation files, setting by setting.

`SettingDiff.describe` shows a difference in the allocation file's own terms: the
element name (``minResources``, not ``min_resources``) and values as they are
written (``40960 mb, 40 vcores``, ``1.50425``, ``never`` for a timeout that is not
set), never a Python repr.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

from whatif.allocation.effective import (
    EffectiveAllocation,
    EffectiveQueue,
    QueueDefaults,
    ResourceLimit,
    Resources,
)
from whatif.allocation.model import AllocationDocument
from whatif.allocation.resolve import effective_allocation
from whatif.allocation.resource_string import render_resource

#: Significant digits of a number shown in a diff: what survives Hadoop's Java floats.
DISPLAY_DIGITS = 6

_SKIPPED = {"name", "children"}


@dataclass(frozen=True)
class SettingDiff:
    """One difference: ``queue`` (``root.a``, or ``"(defaults)"``/``"(users)"``) and
    ``setting`` (the effective field name, or ``written:<element>`` for a difference
    in what is written that does not change the effective value), old -> new.
    ``None`` means absent (a queue or user only one file has)."""

    queue: str
    setting: str
    old: object
    new: object

    @property
    def element(self) -> str:
        """The allocation-file element (or attribute) the setting is written as."""
        return element_name(self.setting)

    def describe(self) -> str:
        """``queue  element: old -> new`` in allocation-file syntax."""
        return (
            f"{self.queue}  {self.element}: {format_setting_value(self.old)} -> "
            f"{format_setting_value(self.new)}"
        )


def _queue_values(queue: EffectiveQueue) -> dict[str, object]:
    return {f.name: getattr(queue, f.name) for f in fields(queue) if f.name not in _SKIPPED}


def _written(doc: AllocationDocument) -> dict[tuple[str, str], str | None]:
    values: dict[tuple[str, str], str | None] = {}
    for queue in doc.iter_queues():
        for setting in (*queue.settings, *queue.mrv1):
            values[(queue.path, setting.name)] = setting.text
    for setting in doc.defaults:
        values[("(defaults)", setting.name)] = setting.text
    return values


def diff_allocations(
    a: AllocationDocument | EffectiveAllocation,
    b: AllocationDocument | EffectiveAllocation,
    *,
    hadoop_version: int = 3,
) -> list[SettingDiff]:
    """Differences between `a` and `b`: effective values first, then written-only ones.

    Effective differences are listed per queue in `a`'s order (queues only in `b`
    after), each queue's settings in `EffectiveQueue` field order. When both are
    documents, a written difference with no effect (``1.0`` vs ``1``, an element
    that restates the default) is listed as ``written:<element>``.
    """
    eff_a = (
        effective_allocation(a, hadoop_version=hadoop_version)
        if isinstance(a, AllocationDocument)
        else a
    )
    eff_b = (
        effective_allocation(b, hadoop_version=hadoop_version)
        if isinstance(b, AllocationDocument)
        else b
    )
    result: list[SettingDiff] = []
    queues_a = {q.name: q for q in eff_a.queues()}
    queues_b = {q.name: q for q in eff_b.queues()}
    for name in [*queues_a, *(n for n in queues_b if n not in queues_a)]:
        qa, qb = queues_a.get(name), queues_b.get(name)
        if qa is None or qb is None:
            result.append(
                SettingDiff(
                    name,
                    "queue",
                    None if qa is None else "present",
                    None if qb is None else "present",
                )
            )
            continue
        va, vb = _queue_values(qa), _queue_values(qb)
        result.extend(SettingDiff(name, k, va[k], vb[k]) for k in va if va[k] != vb[k])
    for f in fields(QueueDefaults):
        old, new = getattr(eff_a.defaults, f.name), getattr(eff_b.defaults, f.name)
        if old != new:
            result.append(SettingDiff("(defaults)", f.name, old, new))
    if eff_a.user_max_apps_default != eff_b.user_max_apps_default:
        result.append(
            SettingDiff(
                "(users)",
                "user_max_apps_default",
                eff_a.user_max_apps_default,
                eff_b.user_max_apps_default,
            )
        )
    for user in sorted(set(eff_a.user_max_apps) | set(eff_b.user_max_apps)):
        old, new = eff_a.user_max_apps.get(user), eff_b.user_max_apps.get(user)
        if old != new:
            result.append(SettingDiff("(users)", f"max_running_apps[{user}]", old, new))
    if isinstance(a, AllocationDocument) and isinstance(b, AllocationDocument):
        wa, wb = _written(a), _written(b)
        effective_keys = {(d.queue, d.setting) for d in result}
        for key in [*wa, *(k for k in wb if k not in wa)]:
            old, new = wa.get(key), wb.get(key)
            if old != new and not _explained(key, effective_keys):
                result.append(SettingDiff(key[0], f"written:{key[1]}", old, new))
    return result


_EFFECTIVE_FIELD = {
    "weight": "weight",
    "minResources": "min_resources",
    "maxResources": "max_resources",
    "maxChildResources": "max_child_resources",
    "maxRunningApps": "max_running_apps",
    "maxAMShare": "max_am_share",
    "schedulingPolicy": "scheduling_policy",
    "minSharePreemptionTimeout": "min_share_preemption_timeout_s",
    "fairSharePreemptionTimeout": "fair_share_preemption_timeout_s",
    "fairSharePreemptionThreshold": "fair_share_preemption_threshold",
    "allowPreemptionFrom": "allow_preemption_from",
    "minMaps": "min_maps",
    "minReduces": "min_reduces",
    "maxMaps": "max_maps",
    "maxReduces": "max_reduces",
    "maxContainerAllocation": "max_container_allocation",
}


def _explained(key: tuple[str, str], effective: set[tuple[str, str]]) -> bool:
    field_name = _EFFECTIVE_FIELD.get(key[1])
    return field_name is not None and (key[0], field_name) in effective


_ELEMENT = {field: element for element, field in _EFFECTIVE_FIELD.items()}


def element_name(setting: str) -> str:
    """The element a `SettingDiff.setting` is written as (``written:X`` is ``X``)."""
    if setting.startswith("written:"):
        return setting.removeprefix("written:")
    return _ELEMENT.get(setting, setting)


def diff_rows(diff: Sequence[SettingDiff]) -> list[dict[str, str]]:
    """Each changed setting as a JSON row: queue, element, old and new values in
    allocation-file syntax (the reports' and the commands' ``changes``)."""
    return [
        {
            "queue": d.queue,
            "element": d.element,
            "old": format_setting_value(d.old),
            "new": format_setting_value(d.new),
        }
        for d in diff
    ]


def format_setting_value(value: object) -> str:
    """A setting's value as an allocation file writes it (``-`` when absent)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, ResourceLimit):
        return "unlimited" if value.is_unlimited else render_resource(value, None)
    if isinstance(value, Resources):
        if math.isinf(value.memory_mb) or math.isinf(value.vcores):
            return "unlimited"
        return render_resource(value, None)
    if isinstance(value, float) or type(value).__module__ == "numpy":
        number = float(value)  # type: ignore[arg-type]
        if math.isinf(number):
            return "never"
        return f"{number:.{DISPLAY_DIGITS}g}"
    return str(value)
