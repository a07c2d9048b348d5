"""A Capacity Scheduler ResourceManager double on 127.0.0.1: its queue tree, refresh and mutation API.

It holds the configuration in force (a `ConfigurationDocument`) and serves
``GET /ws/v1/cluster/scheduler`` from it as Hadoop's ``CapacitySchedulerInfo`` does
(``queuePath``, ``capacity``, ``maxCapacity``, ``absoluteCapacity``,
``absoluteMaxCapacity``, ``state``). `refresh` re-reads the file as
``yarn rmadmin -refreshQueues`` does (refusing a configuration Hadoop rejects);
``PUT /ws/v1/cluster/scheduler-conf`` applies a ``<sched-conf>`` update as a
mutable configuration store does. Faults: ``ignore_refresh`` (the RM keeps the old
tree), ``put_status`` (the mutation API answers with that status).
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from local_server import LocalServer
from lxml import etree

from whatif.capacity import ConfigurationDocument, effective_queues, queue_tree, validate
from whatif.capacity.model import PREFIX, key


class FakeCapacityRM(LocalServer):
    def __init__(self, path: Path) -> None:
        self.path = path
        self.conf = ConfigurationDocument.from_file(path)
        self.ignore_refresh = False
        self.put_status: int | None = None
        self.puts: list[bytes] = []
        rm = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                if self.path.split("?")[0] == "/ws/v1/cluster/scheduler":
                    self._send(200, json.dumps(rm.scheduler()).encode())
                else:
                    self._send(404, b"not found")

            def do_PUT(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                rm.puts.append(body)
                status, text = rm.mutate(body)
                self._send(status, text.encode(), "text/plain")

            def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(Handler)

    def refresh(self) -> str | None:
        """``yarn rmadmin -refreshQueues``: None, or why the RM refused the file."""
        if self.ignore_refresh:
            return None
        new = ConfigurationDocument.from_file(self.path)
        errors = [i.message for i in validate(new) if i.severity == "error"]
        if errors:
            return f"refreshQueues failed: {errors[0]}"
        self.conf = new
        return None

    def mutate(self, body: bytes) -> tuple[int, str]:
        if self.put_status is not None:
            return self.put_status, "injected failure"
        doc = self.conf
        tree = etree.fromstring(body)
        for update in tree.findall("update-queue"):
            queue = update.findtext("queue-name")
            for entry in update.findall("params/entry"):
                value = entry.findtext("value") or None
                doc = doc.set(key(queue, entry.findtext("key")), value)
        for entry in tree.findall("global-updates/entry"):
            # as Hadoop: a global entry without <value> (null) unsets, "" sets ""
            doc = doc.set(entry.findtext("key"), entry.findtext("value"))
        errors = [i.message for i in validate(doc) if i.severity == "error"]
        if errors:
            return 400, f"Failed to re-init queues : {errors[0]}"
        if not self.ignore_refresh:
            self.conf = doc
        return 200, "Configuration change successfully applied."

    def scheduler(self) -> dict:
        queues = effective_queues(self.conf)

        def info(node) -> dict:
            q = queues[node.path]
            body = {
                "queueName": node.name,
                "queuePath": node.path,
                "capacity": q.capacity if q.capacity is not None else 0.0,
                "maxCapacity": q.maximum_capacity,
                "absoluteCapacity": q.absolute_capacity * 100,
                "absoluteMaxCapacity": q.absolute_maximum_capacity * 100,
                "state": q.state,
            }
            if node.children:
                body["queues"] = {"queue": [info(c) for c in node.children]}
            return body

        root = info(queue_tree(self.conf))
        root["type"] = "capacityScheduler"
        return {"scheduler": {"schedulerInfo": root}}


class Refresh:
    """A `tempo.loop.apply` reload that calls the fake RM's refresh (``yarn rmadmin -refreshQueues``)."""

    def __init__(self, rm: FakeCapacityRM) -> None:
        self.rm = rm

    def describe(self) -> str:
        return "yarn rmadmin -refreshQueues (fake)"

    def perform(self, *, sleep=None) -> str | None:
        return self.rm.refresh()


__all__ = ["PREFIX", "FakeCapacityRM", "Refresh"]
