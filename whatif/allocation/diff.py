"""Semantic differences between two allocation files, setting by setting.

`SettingDiff.describe` shows a difference in the allocation file's own terms: the
element name (``minResources``, not ``min_resources``) and values as they are
written (``40960 mb, 40 vcores``, ``1.50425``, ``never`` for a timeout that is not
set), never a Python repr.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

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
    hadoop_version: int = 3

    @property
    def element(self) -> str:
        """The allocation-file element the setting is written as, in the file's dialect
        (Hadoop 1's ``maxRunningJobs`` where YARN reads ``maxRunningApps``)."""
        return element_name(self.queue, self.setting, self.hadoop_version)

    def describe(self) -> str:
        """``queue  element: old -> new`` in allocation-file syntax."""
        return (
            f"{self.queue}  {self.element}: {format_setting_value(self.old)} -> "
            f"{format_setting_value(self.new)}"
        )


def _queue_values(queue: EffectiveQueue) -> dict[str, object]:
    return {f.name: getattr(queue, f.name) for f in fields(queue) if f.name not in _SKIPPED}


def _written(doc: AllocationDocument) -> dict[tuple[str, str], str | None]:
    """Each setting's text, keyed by (queue or ``(defaults)``, the tag as written)."""
    values: dict[tuple[str, str], str | None] = {}
    for queue in doc.iter_queues():
        for setting in (*queue.settings, *queue.mrv1):
            values[(queue.path, setting.tag)] = setting.text
    for setting in doc.defaults:
        values[("(defaults)", setting.tag)] = setting.text
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
            if old != new and _effect(key) not in effective_keys:
                result.append(SettingDiff(key[0], f"written:{key[1]}", old, new))
    return [replace(d, hadoop_version=hadoop_version) for d in result]


#: Queue elements (Hadoop 1's too) -> the `EffectiveQueue` field they set.
_QUEUE_FIELD = {
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
    "maxRunningJobs": "max_running_apps",
    "schedulingMode": "scheduling_policy",
}
#: Top-level elements (Hadoop 1's too) -> the `QueueDefaults` field they set.
_DEFAULT_FIELD = {
    "queueMaxAppsDefault": "max_running_apps",
    "queueMaxResourcesDefault": "max_resources",
    "queueMaxAMShareDefault": "max_am_share",
    "defaultQueueSchedulingPolicy": "scheduling_policy",
    "defaultQueueSchedulingMode": "scheduling_policy",
    "defaultMinSharePreemptionTimeout": "min_share_preemption_timeout_s",
    "defaultFairSharePreemptionTimeout": "fair_share_preemption_timeout_s",
    "defaultFairSharePreemptionThreshold": "fair_share_preemption_threshold",
    "poolMaxJobsDefault": "max_running_apps",
    "defaultPoolSchedulingMode": "scheduling_policy",
}
#: The (row, field) of each top-level element: the defaults', and the users' default.
_TOP_FIELD = {tag: ("(defaults)", field) for tag, field in _DEFAULT_FIELD.items()} | {
    tag: ("(users)", "user_max_apps_default")
    for tag in ("userMaxAppsDefault", "userMaxJobsDefault")
}
#: Hadoop 1's names where they differ from YARN's (`_QUEUE_FIELD`, `_TOP_FIELD`).
_HADOOP1 = {
    "maxRunningApps": "maxRunningJobs",
    "schedulingPolicy": "schedulingMode",
    "queueMaxAppsDefault": "poolMaxJobsDefault",
    "defaultQueueSchedulingPolicy": "defaultPoolSchedulingMode",
    "defaultFairSharePreemptionTimeout": "fairSharePreemptionTimeout",
    "userMaxAppsDefault": "userMaxJobsDefault",
}


def _effect(key: tuple[str, str]) -> tuple[str, str] | None:
    """The effective row a written (queue or ``(defaults)``, tag) sets, if any."""
    queue, tag = key
    if queue == "(defaults)":
        return _TOP_FIELD.get(tag, ("(defaults)", tag))
    field_name = _QUEUE_FIELD.get(tag)
    return None if field_name is None else (queue, field_name)


#: The YARN element of each effective row (the first element naming it above).
_QUEUE_ELEMENT = {field: tag for tag, field in reversed(_QUEUE_FIELD.items())}
_TOP_ELEMENT = {row: tag for tag, row in reversed(_TOP_FIELD.items())}


def element_name(queue: str, setting: str, hadoop_version: int = 3) -> str:
    """The element a `SettingDiff`'s `setting` of `queue` is written as, in Hadoop
    `hadoop_version`'s dialect (``written:X`` is ``X``, as written; a user's limit is
    ``user[name].maxRunningApps``)."""
    if setting.startswith("written:"):
        return setting.removeprefix("written:")
    if setting.startswith("max_running_apps["):
        user = setting.removeprefix("max_running_apps[").removesuffix("]")
        return f"user[{user}].{element_name('', 'max_running_apps', hadoop_version)}"
    top = _TOP_ELEMENT.get((queue, setting))
    element = top if top is not None else _QUEUE_ELEMENT.get(setting, setting)
    return _HADOOP1.get(element, element) if hadoop_version == 1 else element


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
