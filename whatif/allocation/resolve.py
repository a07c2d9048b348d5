"""Effective settings: defaults and inheritance resolved as Hadoop resolves them.

Hadoop 2 and 3 (``AllocationFileParser``, ``AllocationFileQueueParser``,
``AllocationConfiguration.initFSQueue`` and ``FSQueue.updatePreemptionVariables``):

- not inherited, from the queue's own element or else a top-level default:
  ``weight`` (1.0), ``minResources`` (0), ``maxResources`` (``queueMaxResourcesDefault``,
  unlimited), ``maxRunningApps`` (``queueMaxAppsDefault``, which applies to parent
  queues and root too), ``maxAMShare`` (``queueMaxAMShareDefault``, 0.5; values above 1
  are capped at 1), ``schedulingPolicy`` (``defaultQueueSchedulingPolicy``, fair; NOT
  the parent's policy), ``maxChildResources`` (none), ``maxContainerAllocation`` (none);
- inherited from the parent, root taking the top-level default:
  ``minSharePreemptionTimeout`` (``defaultMinSharePreemptionTimeout``, never),
  ``fairSharePreemptionTimeout`` (``defaultFairSharePreemptionTimeout``, else the legacy
  top-level ``fairSharePreemptionTimeout``, else never), ``fairSharePreemptionThreshold``
  (``defaultFairSharePreemptionThreshold``, 0.5; clamped to [0, 1]);
- ``allowPreemptionFrom`` (true) is false for the whole subtree of a queue that says false.

Numbers Hadoop keeps as Java ``float`` (weight, maxAMShare, threshold) are rounded to
32 bits, as the ResourceManager holds them. A timeout of `NEVER_TIMEOUT_S` or more is
``math.inf``. Hadoop 1 (MRv1) files resolve pools, ``maxRunningJobs``,
``poolMaxJobsDefault``/``userMaxJobsDefault``, ``schedulingMode`` (not
``schedulingPolicy``), ``defaultPoolSchedulingMode`` and a top-level
``fairSharePreemptionTimeout`` (a per-pool one is not read).

In the package's pipeline (bytes -> `xml_io` -> `model` -> `validate` -> here -> `write`)
this module comes after validation: a file Hadoop would refuse has no effective tree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from whatif.allocation.effective import (
    EffectiveAllocation,
    EffectiveQueue,
    QueueDefaults,
    ResourceLimit,
    Resources,
)
from whatif.allocation.java_values import to_java_float
from whatif.allocation.model import (
    AllocationDocument,
    QueueElement,
    Setting,
    merge_siblings,
    setting_value,
    timeout_s,
)
from whatif.allocation.resource_string import ResourceValue
from whatif.allocation.validate import validate
from whatif.errors import AllocationError

HADOOP_VERSIONS = (1, 2, 3)


def _limit(setting: Setting | None, default: ResourceLimit) -> ResourceLimit:
    value = setting_value(setting)
    if isinstance(value, ResourceValue):
        return value.as_limit(missing=math.inf)
    return default


def effective_allocation(
    doc: AllocationDocument, *, hadoop_version: int = 3
) -> EffectiveAllocation:
    """The effective allocation of `doc` for a Hadoop major version (1, 2 or 3).

    Raises `AllocationError` if the file has errors Hadoop would reject it for
    (see `validate`), quoting the first with its line: only a file Hadoop loads has
    an effective tree.
    """
    if hadoop_version not in HADOOP_VERSIONS:
        raise AllocationError(
            f"hadoop_version: expected one of {HADOOP_VERSIONS}, got {hadoop_version!r}"
        )
    errors = [i for i in validate(doc, hadoop_version=hadoop_version) if i.severity == "error"]
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise AllocationError(f"{doc.source}:{first.line}: {first.message}{more}")
    if hadoop_version == 1:
        return _resolve_mrv1(doc)
    return _resolve_yarn(doc, hadoop_version)


@dataclass(frozen=True)
class _YarnDefaults:
    """The file-wide defaults a YARN queue falls back on, and the root's own values."""

    max_apps: int | None
    max_resources: ResourceLimit
    am_share: float
    policy: str
    root_min_timeout: float
    root_fair_timeout: float
    root_threshold: float

    @classmethod
    def read(cls, doc: AllocationDocument) -> _YarnDefaults:
        threshold = setting_value(doc.default("defaultFairSharePreemptionThreshold"))
        return cls(
            max_apps=setting_value(doc.default("queueMaxAppsDefault")),
            max_resources=_limit(doc.default("queueMaxResourcesDefault"), ResourceLimit()),
            am_share=min(
                setting_value(doc.default("queueMaxAMShareDefault"), to_java_float(0.5)), 1.0
            ),
            policy=setting_value(doc.default("defaultQueueSchedulingPolicy"), "fair"),
            root_min_timeout=doc.default_timeout_s("minSharePreemptionTimeout"),
            root_fair_timeout=doc.default_timeout_s("fairSharePreemptionTimeout"),
            root_threshold=(
                to_java_float(0.5) if threshold is None else max(min(threshold, 1.0), 0.0)
            ),
        )


def _resolve_yarn(doc: AllocationDocument, hadoop_version: int) -> EffectiveAllocation:
    defaults = _YarnDefaults.read(doc)

    def build(
        element: QueueElement | None, path: str, parent: EffectiveQueue | None
    ) -> EffectiveQueue:
        queue = _yarn_queue(element, path, parent, defaults, hadoop_version)
        children = element.children if element is not None else ()
        if path == "root" and element is None:
            children = doc.queues
        built = tuple(build(child, child.path, queue) for child in merge_siblings(children))
        return replace(queue, children=built, is_parent=queue.is_parent or bool(built))

    root = build(doc.root_element, "root", None)
    root = replace(root, is_parent=True)
    return EffectiveAllocation(
        root=root,
        defaults=QueueDefaults(
            max_running_apps=defaults.max_apps,
            max_resources=defaults.max_resources,
            max_am_share=defaults.am_share,
            scheduling_policy=defaults.policy,
            min_share_preemption_timeout_s=root.min_share_preemption_timeout_s,
            fair_share_preemption_timeout_s=root.fair_share_preemption_timeout_s,
            fair_share_preemption_threshold=root.fair_share_preemption_threshold,
        ),
        user_max_apps=_user_limits(doc, "maxRunningApps"),
        user_max_apps_default=setting_value(doc.default("userMaxAppsDefault")),
    )


def _user_limits(doc: AllocationDocument, setting: str) -> dict[str, int]:
    """Each ``user`` element's running-apps limit, read from `setting` (``maxRunningApps``, or
    ``maxRunningJobs`` in Hadoop 1); users without a readable one are left out."""
    limits: dict[str, int] = {}
    for user in doc.users:
        limit = setting_value(user.get(setting))
        if limit is not None:
            limits[user.name] = limit
    return limits


def _yarn_queue(
    element: QueueElement | None,
    path: str,
    parent: EffectiveQueue | None,
    defaults: _YarnDefaults,
    hadoop_version: int,
) -> EffectiveQueue:
    """One YARN queue's effective values (its children not yet attached): its own
    settings, else the file's defaults, else what it inherits from `parent`."""
    get = element.get if element is not None else (lambda name: None)
    minimum = setting_value(get("minResources"))
    am_share = setting_value(get("maxAMShare"))
    own_threshold = setting_value(get("fairSharePreemptionThreshold"))
    allow = setting_value(get("allowPreemptionFrom"), True)
    # read from Hadoop 3.2 on (`dialect.YARN3_ONLY`); Hadoop 2 ignores the element
    container = setting_value(get("maxContainerAllocation")) if hadoop_version >= 3 else None
    return EffectiveQueue(
        name=path,
        is_parent=element is None or element.is_parent,
        weight=to_java_float(setting_value(get("weight"), 1.0)),
        min_resources=(
            minimum.as_resources(missing=0.0)
            if isinstance(minimum, ResourceValue) and not minimum.is_percent
            else Resources(0.0, 0.0)
        ),
        max_resources=_limit(get("maxResources"), defaults.max_resources),
        max_child_resources=_limit(get("maxChildResources"), ResourceLimit()),
        max_running_apps=setting_value(get("maxRunningApps"), defaults.max_apps),
        max_am_share=defaults.am_share if am_share is None else min(am_share, 1.0),
        scheduling_policy=setting_value(get("schedulingPolicy"), defaults.policy),
        min_share_preemption_timeout_s=timeout_s(
            get("minSharePreemptionTimeout"),
            defaults.root_min_timeout if parent is None else parent.min_share_preemption_timeout_s,
        ),
        fair_share_preemption_timeout_s=timeout_s(
            get("fairSharePreemptionTimeout"),
            defaults.root_fair_timeout
            if parent is None
            else parent.fair_share_preemption_timeout_s,
        ),
        fair_share_preemption_threshold=(
            (defaults.root_threshold if parent is None else parent.fair_share_preemption_threshold)
            if own_threshold is None
            else max(min(own_threshold, 1.0), 0.0)
        ),
        allow_preemption_from=bool(allow) and (parent is None or parent.allow_preemption_from),
        min_maps=setting_value(get("minMaps")),
        min_reduces=setting_value(get("minReduces")),
        max_maps=setting_value(get("maxMaps")),
        max_reduces=setting_value(get("maxReduces")),
        reservable=element is not None and element.reservable,
        max_container_allocation=(
            container.as_limit(missing=math.inf)
            if isinstance(container, ResourceValue)
            else ResourceLimit()
        ),
    )


def _mode(element: QueueElement) -> Setting | None:
    """A pool's ``<schedulingMode>`` (Hadoop 1 does not read ``<schedulingPolicy>``)."""
    found = [s for s in element.settings if s.tag == "schedulingMode"]
    return found[-1] if found else None


def _resolve_mrv1(doc: AllocationDocument) -> EffectiveAllocation:
    """Hadoop 1 PoolManager: flat pools under root, slot limits, job limits.

    Only top-level ``<pool>`` elements are pools (Hadoop 1 skips ``<queue>`` as a
    "Bad element", and a ``<pool name="root">`` is a pool named root). A pool's job
    limit is ``maxRunningJobs`` (else ``poolMaxJobsDefault``), its min shares are
    ``minMaps``/``minReduces`` slots; a ``maxRunningApps``, ``minResources`` or
    ``schedulingPolicy`` element in a pool is YARN's and is not read, as Hadoop 1
    does not read it (see `whatif.allocation.dialect`).
    """
    pool_max_jobs = setting_value(doc.default("poolMaxJobsDefault"))
    policy_default = setting_value(doc.default("defaultPoolSchedulingMode"), "fair")
    min_timeout = timeout_s(doc.default("defaultMinSharePreemptionTimeout"), math.inf)
    fair_timeout = timeout_s(doc.default("fairSharePreemptionTimeout"), math.inf)
    pools = []
    for element in merge_siblings([q for q in doc.queues if q.tag == "pool"]):
        get = element.get
        pools.append(
            EffectiveQueue(
                name=f"root.{element.name}",
                weight=float(setting_value(get("weight"), 1.0)),
                max_running_apps=setting_value(get("maxRunningJobs"), pool_max_jobs),
                scheduling_policy=setting_value(_mode(element), policy_default),
                min_share_preemption_timeout_s=timeout_s(
                    get("minSharePreemptionTimeout"), min_timeout
                ),
                fair_share_preemption_timeout_s=fair_timeout,
                min_maps=setting_value(get("minMaps")),
                min_reduces=setting_value(get("minReduces")),
                max_maps=setting_value(get("maxMaps")),
                max_reduces=setting_value(get("maxReduces")),
            )
        )
    root = EffectiveQueue(
        "root",
        children=tuple(pools),
        is_parent=True,
        min_share_preemption_timeout_s=min_timeout,
        fair_share_preemption_timeout_s=fair_timeout,
    )
    return EffectiveAllocation(
        root=root,
        defaults=QueueDefaults(
            max_running_apps=pool_max_jobs,
            scheduling_policy=policy_default,
            min_share_preemption_timeout_s=min_timeout,
            fair_share_preemption_timeout_s=fair_timeout,
        ),
        user_max_apps=_user_limits(doc, "maxRunningJobs"),
        user_max_apps_default=setting_value(doc.default("userMaxJobsDefault")),
    )
