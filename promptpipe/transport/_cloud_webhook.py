"""The Cloud API's webhook as a bare ASGI app (the transport layer does not use the web layer's FastAPI site). GET
answers Meta's subscription check; POST takes a notification only when it is signed with the app secret."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

import uvicorn

from promptpipe.logging import get_logger
from promptpipe.transport.http_serving import Listening, bind, serve

__all__ = ["MAX_BODY_BYTES", "STOP_GRACE_S", "WebhookApp", "WebhookServer", "signature_for"]

MAX_BODY_BYTES = 1_000_000  # refused (413) before it is read to the end; Meta's notifications are small
STOP_GRACE_S = 5.0
log = get_logger("promptpipe.transport.cloud_api")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def signature_for(app_secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(app_secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


class WebhookApp:
    """``handle`` gets each verified notification's parsed JSON and returns once it is handed over."""

    def __init__(self, *, app_secret: str, verify_token: str, handle: Callable[[Any], Awaitable[None]],
                 max_body_bytes: int = MAX_BODY_BYTES) -> None:
        self._secret, self._verify_token = app_secret, verify_token
        self._handle, self._max_body = handle, max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["method"] == "GET":
            await self._verify(scope, send)
        elif scope["method"] == "POST":
            await _answer(send, await self._notify(scope, receive), b"")
        else:
            await _answer(send, 405, b"")

    async def _verify(self, scope: Scope, send: Send) -> None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        mode, token, challenge = (query.get(key, [""])[0] for key in ("hub.mode", "hub.verify_token", "hub.challenge"))
        expected = self._verify_token.encode("utf-8")
        if mode == "subscribe" and expected and hmac.compare_digest(token.encode("utf-8"), expected):
            log.info("cloud_api_webhook_verified")
            await _answer(send, 200, challenge.encode("utf-8"), "text/plain")
            return
        log.warning("cloud_api_webhook_verification_refused", mode=mode)
        await _answer(send, 403, b"")

    async def _notify(self, scope: Scope, receive: Receive) -> int:
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._max_body:
            return 413
        body = bytearray()
        while True:
            message = await receive()
            body.extend(message.get("body", b""))
            if len(body) > self._max_body:
                log.warning("cloud_api_webhook_too_large")
                return 413
            if not message.get("more_body"):
                break
        given = headers.get("x-hub-signature-256", "")
        wanted = signature_for(self._secret, bytes(body)).encode("latin-1")
        if not given or not hmac.compare_digest(given.encode("latin-1"), wanted):
            log.warning("cloud_api_webhook_bad_signature", signed=bool(given))
            return 401
        try:
            payload = json.loads(body)
        except ValueError:
            log.warning("cloud_api_webhook_not_json")
            return 400
        try:
            await self._handle(payload)
        except Exception:  # Meta sends it again later; the inbox's keys make the repeat a no-op
            log.exception("cloud_api_webhook_handling_failed")
            return 500
        return 200


async def _answer(send: Send, status: int, body: bytes, content_type: str = "application/octet-stream") -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class WebhookServer:
    """Serves a :class:`WebhookApp` on ``listen`` (host:port; port 0: any free one)."""

    def __init__(self, listen: str) -> None:
        self.listen = listen
        self.port = 0
        self._listening: Listening | None = None

    @property
    def running(self) -> bool:
        return self._listening is not None

    @property
    def url(self) -> str:
        if not self.port:
            return ""
        host = self.listen.rpartition(":")[0].strip("[]")
        return f"http://{'[' + host + ']' if ':' in host else host}:{self.port}/"

    async def start(self, app: WebhookApp) -> None:
        sock = bind(self.listen, f"CLOUD_API_WEBHOOK_LISTEN={self.listen}: cannot listen there ({{reason}}); "
                                 "choose another host:port.")
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="off", server_header=False,
                                timeout_graceful_shutdown=int(STOP_GRACE_S))
        self._listening = await serve(
            config, sock, name="cloud-api-webhook", grace_s=STOP_GRACE_S,
            stopped_at_start=f"CLOUD_API_WEBHOOK_LISTEN={self.listen}: the webhook stopped at start")
        log.info("cloud_api_webhook_started", url=self.url)

    async def stop(self) -> None:
        if self._listening is None:
            return
        failed = await self._listening.stop()
        if failed is not None:
            log.warning("cloud_api_webhook_stop_failed", error=str(failed)[:200])
        self._listening = None
