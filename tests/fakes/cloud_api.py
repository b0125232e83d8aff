"""A fake of the WhatsApp Cloud API's HTTP surface on 127.0.0.1, and a helper that plays Meta
posting signed webhook notifications to the transport.

``POST /{phone number id}/messages`` records each body and the phone number id it went from: a
message gets ``{"messages": [{"id": "wamid.fake-N"}]}``, a read mark ``{"success": true}``.
``phone_number_ids`` are the numbers the fake knows (empty: any); another id is refused as
Meta refuses it. ``fail(...)`` scripts the next sends' errors in order (a Graph error code, an
HTTP status, a Retry-After header). ``GET /{phone number id}`` answers the number's ``status``
(``statuses``, CONNECTED by default), or the error ``fail_lookup(...)`` scripted for it.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx

from promptpipe.transport._cloud_webhook import signature_for
from tests.fakes.local_server import LocalServer

__all__ = ["FakeCloudApi", "notify", "post_signed"]


@dataclass
class _Failure:
    status: int
    code: int
    retry_after: str | None
    accepted: bool = False
    """Meta took the message (it goes out) and answered with the error all the same."""


class FakeCloudApi:
    def __init__(self, *phone_number_ids: str) -> None:
        self.phone_number_ids = frozenset(phone_number_ids)
        self.sends: list[dict[str, Any]] = []
        """Message bodies accepted, in order."""
        self.sent_from: list[str] = []
        """The phone number id each accepted send went from (parallel to ``sends``)."""
        self.read_marks: list[dict[str, Any]] = []
        self.read_marks_from: list[str] = []
        self.refused: list[dict[str, Any]] = []
        self.tokens: list[str] = []
        self._failures: list[_Failure] = []
        self.statuses: dict[str, str] = {}
        self.lookups: list[str] = []
        self._lookup_failures: dict[str, _Failure] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._reply(*fake._look_up(self.path))

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                self._reply(*fake._answer(self.path, self.headers.get("Authorization", ""), body))

            def _reply(self, status: int, answer: dict[str, Any], headers: dict[str, str]) -> None:
                data = json.dumps(answer).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                """Stay quiet."""

        self._local = LocalServer(Handler, "/v26.0")

    @property
    def url(self) -> str:
        return self._local.url

    def __enter__(self) -> FakeCloudApi:
        self._local.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._local.__exit__(*exc)

    def fail(self, *, status: int = 400, code: int = 0, retry_after: str | None = None,
             accepted: bool = False) -> None:
        """The next send is answered with this error (one per call, in order); ``accepted``: the
        message was taken and goes out anyway, as after an error inside Meta past the point of no return."""
        self._failures.append(_Failure(status, code, retry_after, accepted))

    def fail_lookup(self, number_id: str, *, status: int = 400, code: int = 0) -> None:
        """Asking how ``number_id`` stands is answered with this error."""
        self._lookup_failures[number_id] = _Failure(status, code, None)

    def _look_up(self, path: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        number_id = path.split("?")[0].strip("/").split("/")[-1]
        with self._lock:
            self.lookups.append(number_id)
            failure = self._lookup_failures.get(number_id)
        if failure is not None:
            return failure.status, {"error": {"message": f"fake error {failure.code}", "code": failure.code}}, {}
        if self.phone_number_ids and number_id not in self.phone_number_ids:
            return 400, {"error": {"message": "Unsupported get request", "code": 100}}, {}
        return 200, {"id": number_id, "status": self.statuses.get(number_id, "CONNECTED")}, {}

    def texts(self) -> list[str]:
        return [body["text"]["body"] for body in self.sends if body.get("type") == "text"]

    def wait_for_sends(self, count: int, timeout_s: float = 10.0) -> None:
        deadline = time.monotonic() + timeout_s
        while len(self.sends) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.sends) >= count, f"{len(self.sends)} sends, expected {count}: {self.sends}"

    def _answer(self, path: str, auth: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            self.tokens.append(auth)
            parts = path.strip("/").split("/")
            if len(parts) < 2 or parts[-1] != "messages":
                return 404, {"error": {"message": "unknown path", "code": 100}}, {}
            number_id = parts[-2]
            if self.phone_number_ids and number_id not in self.phone_number_ids:
                return 400, {"error": {"message": "Unsupported post request", "code": 100}}, {}
            if body.get("status") == "read":
                self.read_marks.append(body)
                self.read_marks_from.append(number_id)
                return 200, {"success": True}, {}
            if self._failures:
                failure = self._failures.pop(0)
                if failure.accepted:
                    self.sends.append(body)
                    self.sent_from.append(number_id)
                    next(self._ids)
                else:
                    self.refused.append(body)
                error = {"error": {"message": f"fake error {failure.code}", "type": "OAuthException",
                                   "code": failure.code}}
                return failure.status, error, {"Retry-After": failure.retry_after} if failure.retry_after else {}
            self.sends.append(body)
            self.sent_from.append(number_id)
            message_id = f"wamid.fake-{next(self._ids)}"
            contact = {"input": body.get("to"), "wa_id": body.get("to")}
            return 200, {"messaging_product": "whatsapp", "contacts": [contact], "messages": [{"id": message_id}]}, {}

    def message_id(self, index: int) -> str:
        """The id the fake gave the ``index``-th accepted send (from 0; refused ones get none)."""
        return f"wamid.fake-{index + 1}"


async def post_signed(url: str, secret: str | None, payload: dict[str, Any], *,
                      signature: str | None = None) -> httpx.Response:
    """POST ``payload`` as Meta does: signed with ``secret`` (None: unsigned; ``signature``: this header)."""
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"}
    if signature is not None:
        headers["X-Hub-Signature-256"] = signature
    elif secret is not None:
        headers["X-Hub-Signature-256"] = signature_for(secret, body)
    async with httpx.AsyncClient() as client:
        return await client.post(url, content=body, headers=headers)


def notify(*, messages: list[dict[str, Any]] = (), statuses: list[dict[str, Any]] = (),  # type: ignore[assignment]
           name: str = "Ana", wa_id: str = "14165550123", phone_number_id: str = "1234") -> dict[str, Any]:
    """A webhook body as Meta sends it to the number ``phone_number_id``, around these messages and statuses."""
    value: dict[str, Any] = {"messaging_product": "whatsapp",
                             "metadata": {"display_phone_number": "14165550100",
                                          "phone_number_id": phone_number_id}}
    if messages:
        value["contacts"] = [{"profile": {"name": name}, "wa_id": wa_id}]
        value["messages"] = list(messages)
    if statuses:
        value["statuses"] = list(statuses)
    return {"object": "whatsapp_business_account",
            "entry": [{"id": "WABA", "changes": [{"field": "messages", "value": value}]}]}
