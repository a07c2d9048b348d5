"""`LocalServer`: a threaded HTTP server on a free 127.0.0.1 port, the base of the tests'
scripted, faulty and Capacity Scheduler RMs."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LocalServer:
    """Serves `handler` from a daemon thread once started; `stop` (or leaving a ``with``
    block) shuts it down and frees the port."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> Self:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def send_head(
    handler: BaseHTTPRequestHandler, status: int, headers: dict[str, str], length: int
) -> None:
    """The status line and headers an RM answers with: Server, Date, a JSON content type
    (unless `headers` say otherwise), `headers`, and a Content-Length of `length`."""
    handler.send_response_only(status)
    merged = {
        "Server": handler.version_string(),
        "Date": handler.date_time_string(),
        "Content-Type": "application/json",
        **headers,
    }
    for key, value in merged.items():
        handler.send_header(key, value)
    handler.send_header("Content-Length", str(length))
    handler.end_headers()
