"""A fault-injecting proxy in front of an RM/JobHistory server, for tests of the loop under faults.

`FaultyRM` forwards GETs to an upstream server (the emulated RM) untouched, or, as
its ``fault`` says, answers instead: an HTTP 5xx, garbage JSON, an HTML login page,
a stall longer than the client's read timeout, a reset connection, or the page of
a standby ResourceManager (HA) pointing at ``peer`` (or at nobody). ``only`` limits
the fault to paths starting with one of its prefixes (e.g. the scheduler endpoint
that confirms an apply), so a fault can strike mid-iteration.
"""

from __future__ import annotations

import http.client
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

from local_server import LocalServer, send_head

#: Every fault `FaultyRM` can inject ("ok" forwards).
FAULTS = ("ok", "5xx", "garbage", "html", "stall", "reset", "standby")

LOGIN_PAGE = (
    b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>"
    b"<form action='/login' method='post'><input name='user'></form></body></html>"
)


class FaultyRM(LocalServer):
    """A proxy to `upstream` that injects `fault` (one of `FAULTS`) into matching requests."""

    def __init__(self, upstream: str, *, stall_s: float = 0.6) -> None:
        self.upstream = urlsplit(upstream)
        self.stall_s = stall_s
        self.fault = "ok"
        self.only: tuple[str, ...] = ()
        self.peer: str | None = None
        self.injected = 0
        self.forwarded = 0
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                fault = proxy.fault_for(self.path)
                try:
                    if fault == "ok":
                        proxy.forward(self)
                    else:
                        proxy.inject(self, fault)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        super().__init__(Handler)

    def set(self, fault: str, *, only: tuple[str, ...] = (), peer: str | None = None) -> None:
        """Inject `fault` from now on (into paths starting with one of `only`, or all)."""
        if fault not in FAULTS:
            raise ValueError(f"fault: expected one of {FAULTS}, got {fault!r}")
        with self._lock:
            self.fault, self.only, self.peer = fault, only, peer

    def fault_for(self, path: str) -> str:
        with self._lock:
            if self.only and not any(urlsplit(path).path.startswith(p) for p in self.only):
                return "ok"
            return self.fault

    def forward(self, handler: BaseHTTPRequestHandler) -> None:
        connection = http.client.HTTPConnection(
            self.upstream.hostname, self.upstream.port, timeout=10
        )
        try:
            connection.request("GET", handler.path, headers={"Accept": "application/json"})
            response = connection.getresponse()
            body = response.read()
            headers = {k: v for k, v in response.getheaders() if k.lower() != "content-length"}
        finally:
            connection.close()
        with self._lock:
            self.forwarded += 1
        self._answer(handler, response.status, body, headers)

    def inject(self, handler: BaseHTTPRequestHandler, fault: str) -> None:
        with self._lock:
            self.injected += 1
            peer = self.peer
        if fault == "5xx":
            self._answer(handler, 503, b"Service Unavailable", {"Content-Type": "text/plain"})
        elif fault == "garbage":
            self._answer(handler, 200, b'{"apps": {"app": [{"id": 12,, \x00\xff', {})
        elif fault == "html":
            self._answer(handler, 200, LOGIN_PAGE, {"Content-Type": "text/html"})
        elif fault == "stall":
            time.sleep(self.stall_s)
            handler.close_connection = True
        elif fault == "reset":
            handler.connection.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
            )
            handler.close_connection = True
            handler.connection.close()
        elif fault == "standby":  # Hadoop's RMWebAppFilter page on a standby RM
            target = None if peer is None else peer.rstrip("/") + handler.path
            text = "This is standby RM." + (
                f" The redirect url is: {target}" if target else " No active RM is known."
            )
            headers = {"Content-Type": "text/plain"}
            if target:
                headers["Refresh"] = f"3; url={target}"
            self._answer(handler, 200, text.encode(), headers)

    @staticmethod
    def _answer(
        handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str]
    ) -> None:
        send_head(handler, status, headers, len(body))
        handler.wfile.write(body)
