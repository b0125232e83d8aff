"""The API's front door, a plain ASGI middleware before FastAPI reads anything: a body over WEB_MAX_BODY_BYTES is a
413; an API or schema call without a valid bearer token a 401 before its body is read (nobody learns the API's shape
without a token); a number too large for a database integer, in the path or a declared integer query parameter, a 400.
The caller it finds is kept in the scope, so the endpoint does not look the token up again."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from promptpipe.web.auth import CALLER_SCOPE_KEY, api_caller
from promptpipe.web.errors import ApiError, error_body
from promptpipe.web.schemas import DB_INT_MAX

__all__ = ["ApiGate"]

_GUARDED = ("/api/", "/openapi.json")


class _TooLarge(Exception):
    pass


def _integer_queries(site: FastAPI) -> frozenset[str]:
    """The API's integer query parameters from its schema (once per site; ~0.7 s of CPU: only when a query has one)."""
    operations = (operation for path in site.openapi().get("paths", {}).values() for operation in path.values())
    return frozenset(parameter["name"] for operation in operations for parameter in operation.get("parameters", [])
                     if parameter.get("in") == "query" and "integer" in json.dumps(parameter.get("schema", {})))


def _too_big(value: str) -> bool:
    digits = value.strip().removeprefix("-").removeprefix("+")
    return len(digits) > 18 and digits.isdigit() and int(digits) > DB_INT_MAX


def _oversized_number(scope: Scope) -> str | None:
    """A whole number in path or query no database integer holds, if any (in the API's query: declared integer ones)."""
    query = [(name, value) for name, value in parse_qsl(scope.get("query_string", b"").decode("latin-1"))
             if _too_big(value)]
    if query and str(scope.get("path", "")).startswith(_GUARDED):
        declared = _integer_queries(scope["app"])
        query = [(name, value) for name, value in query if name in declared]
    found = [value for value in str(scope.get("path", "")).split("/") if _too_big(value)] + [v for _, v in query]
    return found[0].strip() if found else None


class ApiGate:
    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        self.app, self.max_body_bytes = app, max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._too_large(scope, receive, send)
            return
        path = scope.get("path", "")
        if path.startswith(_GUARDED):
            try:
                scope[CALLER_SCOPE_KEY] = await api_caller(Request(scope))
            except ApiError as exc:
                await JSONResponse(error_body(exc.code, exc.message), status_code=exc.status,
                                   headers=exc.headers)(scope, receive, send)
                return
        too_big = _oversized_number(scope)
        if too_big is not None:
            message = f"the number {too_big[:24]}… is too large; numbers here are at most {DB_INT_MAX}"
            await JSONResponse(error_body("invalid_request", message), status_code=400)(scope, receive, send)
            return
        started = over = answered = False
        received = 0

        async def counted() -> Message:
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    over = True
                    raise _TooLarge()
            return message

        async def watched(message: Message) -> None:
            # FastAPI turns an error while reading the body into its own 400: answer 413 instead.
            nonlocal started, answered
            if over and not started:
                if not answered and message["type"] == "http.response.start":
                    answered = True
                    await self._too_large(scope, receive, send)
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if not answered and not started:
                await self._too_large(scope, receive, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"the request body is larger than the {self.max_body_bytes} bytes this server accepts"
        await JSONResponse(error_body("too_large", message), status_code=413,
                           headers={"Connection": "close"})(scope, receive, send)
