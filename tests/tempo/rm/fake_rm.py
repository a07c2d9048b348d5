"""A scripted ResourceManager/JobHistory HTTP server on 127.0.0.1, and fakes of time, for the RM tests."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from local_server import LocalServer, send_head

from tempo.rm import RetryPolicy, TransportOptions

REST = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "rest"

#: Timeouts small enough that a slow-response test stays well under a second.
FAST = TransportOptions(
    connect_timeout_s=0.2,
    read_timeout_s=0.2,
    retry=RetryPolicy(max_attempts=3, base_delay_s=0.5, max_delay_s=4.0, max_total_s=60.0),
)


def rest_fixture(name: str) -> bytes:
    """The verbatim bytes of a Hadoop doc response in shared/data/hadoop/rest."""
    return (REST / name).read_bytes()


@dataclass
class Reply:
    """One scripted answer: status, body, headers, a delay before answering, and
    optionally a Content-Length larger than the body (a connection cut mid-transfer)."""

    status: int = 200
    body: bytes | str = b"{}"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    declared_length: int | None = None


@dataclass
class Seen:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]


class FakeServer(LocalServer):
    """Answers GETs from per-path scripts; the last reply of a script repeats forever."""

    def __init__(self) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                parts = urlsplit(self.path)
                with server._lock:
                    server.seen.append(Seen(parts.path, parse_qs(parts.query), dict(self.headers)))
                    script = server.routes.get(parts.path)
                    reply = (
                        Reply(404, b"not found")
                        if not script
                        else script.pop(0)
                        if len(script) > 1
                        else script[0]
                    )
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                body = reply.body.encode() if isinstance(reply.body, str) else reply.body
                try:
                    length = reply.declared_length if reply.declared_length else len(body)
                    send_head(self, reply.status, reply.headers, length)
                    self.wfile.write(body)
                    if reply.declared_length:
                        self.close_connection = True
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(Handler)

    def script(self, path: str, *replies: Reply) -> None:
        self.routes[path] = list(replies)

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]
