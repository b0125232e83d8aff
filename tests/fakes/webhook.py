"""A local HTTP server that records what an alert webhook receives (and can refuse it)."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.local_server import LocalServer


class WebhookReceiver:
    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.status = 200
        """What the next requests are answered with (set 500 to play a receiver that is down)."""
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.raw.append(data)
                if receiver.status < 300:
                    receiver.bodies.append(json.loads(data))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                """Stay quiet."""

        self._local = LocalServer(Handler, "/alerts")

    @property
    def url(self) -> str:
        return self._local.url

    def __enter__(self) -> WebhookReceiver:
        self._local.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._local.__exit__(*exc)
