"""Headers every response carries (no framing, sniffing, loading from elsewhere or caching; ``Server-Timing``). A
plain ASGI middleware: it runs on every API call in the process of the participants' turns."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CONTENT_SECURITY_POLICY", "SecurityHeaders"]

CONTENT_SECURITY_POLICY = ("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
                           "frame-ancestors 'none'; base-uri 'none'")
_FIXED = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
          (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store"),
          (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())]


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in _FIXED if name not in present]
                elapsed = (time.perf_counter() - started) * 1000
                headers.append((b"server-timing", f"app;dur={elapsed:.1f}".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
