"""The one shape every API error has, ``{"error": {"code", "message", "details"}}``, and our errors mapped onto HTTP
(the admin script's messages name CLI options; :func:`api_words` names the request's fields instead)."""

from __future__ import annotations

import re
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from promptpipe.errors import AdminError, ConfigError, Conflict, Forbidden, NotFound, StorageError
from promptpipe.study.store.protocol import ProtocolChanged

__all__ = ["ERROR_CODES", "ApiError", "allowed_methods", "api_words", "error_body", "install_error_handlers",
           "protocol_words", "status_for"]

ERROR_CODES = {
    400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
    409: "conflict", 413: "too_large", 422: "invalid_request", 429: "too_many_attempts", 503: "unavailable",
}


_OPTION = re.compile(r"(?<![\w-])--([a-z][a-z-]*)(?: ([A-Za-z0-9_.-]+)=…)?")
_BOTH_WORDS = re.compile(r"\(--[a-z-]+; in the API ([^)]*)\)")
_FIELD_OF_OPTION = {"stratum": "strata", "by": "token", "days": "extra_days"}


def api_words(message: str) -> str:
    """A research operation's message in the API's words: ``--phone: …`` becomes ``phone: …``,
    ``--stratum site=…`` becomes ``strata.site`` (the CLI keeps its own wording)."""

    def field(match: re.Match[str]) -> str:
        name = _FIELD_OF_OPTION.get(match[1], match[1].replace("-", "_"))
        return f"{name}.{match[2]}" if match[2] else name

    return _OPTION.sub(field, _BOTH_WORDS.sub(r"(\1)", message))


def allowed_methods(schema: dict[str, Any], path: str) -> list[str]:
    """The methods the OpenAPI schema lists for ``path`` (empty: the schema has no such path).
    Starlette's own 405 names only the methods of the first route that matched the path."""
    for template, operations in schema.get("paths", {}).items():
        if re.fullmatch(re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)), path):
            return sorted(method.upper() for method in operations)
    return []


class ApiError(Exception):
    def __init__(self, status: int, message: str, *, code: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers
        self.code = code or ERROR_CODES.get(status, "error")


def error_body(code: str, message: str, details: list[dict[str, str]] | None = None) -> dict[str, object]:
    """:class:`promptpipe.web.schemas.ErrorBody` as JSON (``details`` only when there are some)."""
    return {"error": {"code": code, "message": message, **({"details": details} if details else {})}}


def protocol_words(exc: ProtocolChanged) -> str:
    """A refusal because the study file differs from the protocol the database runs, for the API and dashboard."""
    return (f"{exc.situation}; nothing was changed. Whoever runs the service must restore the study file "
            "or adopt the change on purpose first.")


def status_for(exc: AdminError) -> tuple[int, str]:
    """Our errors as HTTP status and code (anything else a researcher got wrong is a 400)."""
    kinds = ((NotFound, 404, "not_found"), (Conflict, 409, "conflict"), (Forbidden, 409, "refused"))
    return next(((status, code) for kind, status, code in kinds if isinstance(exc, kind)), (400, "invalid_request"))


def install_error_handlers(app: Any) -> None:
    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status, headers=exc.headers)

    async def admin_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, AdminError)
        status, code = status_for(exc)
        return JSONResponse(error_body(code, api_words(str(exc))), status_code=status)

    async def refused(_: Request, exc: Exception) -> JSONResponse:  # a changed study file; a seed that does not match
        words = protocol_words(exc) if isinstance(exc, ProtocolChanged) else api_words(str(exc))
        return JSONResponse(error_body("refused", words), status_code=409)

    async def storage_error(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(error_body("unavailable", "the database cannot be reached right now; try again"),
                            status_code=503)

    async def validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        details = [{"field": ".".join(str(part) for part in error.get("loc", ()) if part != "body"),
                    "problem": str(error.get("msg", "")).removeprefix("Value error, ")} for error in exc.errors()]
        message = "; ".join(f"{d['field']}: {d['problem']}" if d["field"] else d["problem"]
                            for d in details) or "the request is not valid"
        return JSONResponse(error_body("invalid_request", message, details), status_code=422)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = ERROR_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:
            allowed = allowed_methods(request.app.openapi(), request.url.path)
            if allowed:
                headers["Allow"] = ", ".join(allowed)
                message = f"{request.method} is not allowed here; use {' or '.join(allowed)}"
        return JSONResponse(error_body(code, message), status_code=exc.status_code, headers=headers or None)

    for kind, handler in ((ApiError, api_error), (AdminError, admin_error), (ProtocolChanged, refused),
                          (ConfigError, refused), (StorageError, storage_error),
                          (RequestValidationError, validation_error), (StarletteHTTPException, http_error)):
        app.add_exception_handler(kind, handler)
