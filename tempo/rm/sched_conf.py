"""Changing a Capacity Scheduler through the RM's mutation API (``PUT /ws/v1/cluster/scheduler-conf``).

An RM whose Capacity Scheduler uses a mutable configuration store
(``yarn.scheduler.configuration.store.class`` ``memory``, ``leveldb``, ``zk`` or
``fs``) takes changes as a ``<sched-conf>`` document (Hadoop's
``SchedConfUpdateInfo``): ``<update-queue>`` per queue with ``<params>`` entries
keyed by the setting after the queue path (``capacity``), and ``<global-updates>``
entries keyed by full property name. `sched_conf_update` builds that document from
two configurations; `SchedConfReload` sends it in place of ``yarn rmadmin
-refreshQueues``, so `tempo.loop.apply` uses either the same way, rollback included.

A property the new file drops is unset, and the two sections unset differently
(checked against Hadoop's source, ``ConfigurationUpdateAssembler`` and, before it,
``MutableCSConfigurationProvider.constructKeyValueConfUpdate``; apache/hadoop @
21ca3f02 and 00fde836): in an ``update-queue`` a null *or empty* value unsets the
property (``keyValue == null || keyValue.isEmpty()``), but ``global-updates`` are
copied as they come (``confUpdate.put(key, value)``) and only a null unsets one
(``applyMutation``: ``conf.unset`` for null, else ``conf.set``) - an empty
``<value></value>`` would set the property to "", which Hadoop then fails to read
as a number. So a dropped queue property is sent with an empty value and a dropped
global one as an entry with no ``<value>``, which JAXB reads as null into
``SchedConfUpdateInfo.getGlobalParams()`` (Hadoop's own test
``TestRMWebServicesConfigurationMutation.testGlobalConfChange`` unsets
``maximum-applications`` with a null value). ``remove-queue`` is only for deleting
a queue; a queue the new file drops still goes through ``.queues`` on its parent.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

import requests

from whatif.capacity import ConfigurationDocument, queue_tree
from whatif.capacity.model import PREFIX, queue_of

logger = logging.getLogger(__name__)

SCHED_CONF_PATH = "/ws/v1/cluster/scheduler-conf"


def changed_properties(
    old: ConfigurationDocument, new: ConfigurationDocument
) -> list[tuple[str, str | None]]:
    """``(property, new value or None if dropped)`` for every property whose value differs."""
    names = list(dict.fromkeys([*old.names(), *new.names()]))
    return [
        (name, None if (value := new.value(name)) is None else value.strip())
        for name in names
        if (old.value(name) or "").strip() != (new.value(name) or "").strip()
        or (old.value(name) is None) != (new.value(name) is None)
    ]


def sched_conf_update(old: ConfigurationDocument, new: ConfigurationDocument) -> bytes:
    """The ``<sched-conf>`` XML that turns the RM's `old` configuration into `new`."""
    paths = {n.path for n in queue_tree(new).walk()} | {n.path for n in queue_tree(old).walk()}
    queues: dict[str, list[tuple[str, str | None]]] = {}
    globals_: list[tuple[str, str | None]] = []
    for name, value in changed_properties(old, new):
        located = queue_of(name, paths) if name.startswith(PREFIX) else None
        if located is not None and located[0] in paths:
            # update-queue: an empty value unsets (ConfigurationUpdateAssembler.updateQueue)
            queues.setdefault(located[0], []).append((located[1], value or ""))
        else:
            # global-updates: only a null (no <value>) unsets; "" would set ""
            globals_.append((name, value))

    def entries(pairs: list[tuple[str, str | None]], indent: str) -> list[str]:
        return [
            f"{indent}<entry><key>{escape(k)}</key></entry>"
            if v is None
            else f"{indent}<entry><key>{escape(k)}</key><value>{escape(v)}</value></entry>"
            for k, v in pairs
        ]

    lines = ["<sched-conf>"]
    for queue, pairs in queues.items():
        lines += [
            "  <update-queue>",
            f"    <queue-name>{escape(queue)}</queue-name>",
            "    <params>",
            *entries(pairs, "      "),
            "    </params>",
            "  </update-queue>",
        ]
    if globals_:
        lines += ["  <global-updates>", *entries(globals_, "    "), "  </global-updates>"]
    lines.append("</sched-conf>")
    return ("\n".join(lines) + "\n").encode()


Put = Callable[[str, bytes], tuple[int, str]]


def http_put(timeout_s: float = 30.0) -> Put:
    """A PUT of XML to a URL, returning (status, body)."""

    def put(url: str, body: bytes) -> tuple[int, str]:
        response = requests.put(
            url, data=body, headers={"Content-Type": "application/xml"}, timeout=timeout_s
        )
        return response.status_code, response.text

    return put


class SchedConfReload:
    """A reload that sends the file now on disk to the RM's mutation API.

    Not a value: it remembers the configuration the RM last accepted (starting with
    `in_force`), so the next `perform` sends only the difference, and a rollback,
    which restores the previous file and performs again, sends the reverse change.
    """

    def __init__(
        self,
        rm_url: str,
        path: str | os.PathLike[str],
        in_force: ConfigurationDocument,
        *,
        put: Put | None = None,
    ) -> None:
        self.url = rm_url.rstrip("/") + SCHED_CONF_PATH
        self.path = Path(path)
        self.accepted = in_force
        self._put = put or http_put()

    def describe(self) -> str:
        return f"PUT {self.url}"

    def perform(self, *, sleep: Callable[[float], None] | None = None) -> str | None:
        """Send the change; None on success, else one line saying what failed."""
        try:
            new = ConfigurationDocument.from_file(self.path)
        except Exception as error:  # noqa: BLE001 (reported, never raised past the apply)
            return f"cannot read {self.path}: {error}"
        if not changed_properties(self.accepted, new):
            return None
        try:
            status, body = self._put(self.url, sched_conf_update(self.accepted, new))
        except requests.RequestException as error:
            return f"{self.describe()} failed: {error}"
        if status != 200:
            said = body.strip().splitlines()
            return f"{self.describe()} answered {status}" + (f": {said[0][:200]}" if said else "")
        logger.info("%s: the RM accepted the change", self.url)
        self.accepted = new
        return None
