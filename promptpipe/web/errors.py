"""The one shape every API error has, and the mapping of our errors onto HTTP statuses:

    {"error": {"code": "not_found", "message": "no participant has the id p_…", "details": […]}}

``code`` is one of :data:`ERROR_CODES`; ``message`` is one line for a person; ``details`` (only for
``invalid_request``) lists each field that is wrong."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from promptpipe.errors import AdminError, Conflict, Forbidden, NotFound, StorageError

__all__ = ["ERROR_CODES", "ApiError", "error_body", "install_error_handlers", "status_for"]

ERROR_CODES = {
    400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
    409: "conflict", 413: "too_large", 422: "invalid_request", 429: "too_many_attempts", 503: "unavailable",
}


class ApiError(Exception):
    def __init__(self, status: int, message: str, *, code: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers
        self.code = code or ERROR_CODES.get(status, "error")


def error_body(code: str, message: str, details: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = details
    return {"error": error}


def status_for(exc: AdminError) -> tuple[int, str]:
    """Our errors as HTTP: not found 404; a clash 409 ``conflict``; refused by the study's rules
    409 ``refused``; anything else a researcher got wrong 400."""
    if isinstance(exc, NotFound):
        return 404, "not_found"
    if isinstance(exc, Conflict):
        return 409, "conflict"
    if isinstance(exc, Forbidden):
        return 409, "refused"
    return 400, "invalid_request"


def install_error_handlers(app: Any) -> None:
    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status, headers=exc.headers)

    async def admin_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, AdminError)
        status, code = status_for(exc)
        return JSONResponse(error_body(code, str(exc)), status_code=status)

    async def storage_error(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(error_body("unavailable", "the database cannot be reached right now; try again"),
                            status_code=503)

    async def validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        details = [{"field": ".".join(str(part) for part in error.get("loc", ()) if part != "body"),
                    "problem": str(error.get("msg", ""))} for error in exc.errors()]
        message = "; ".join(f"{d['field']}: {d['problem']}" for d in details) or "the request is not valid"
        return JSONResponse(error_body("invalid_request", message, details), status_code=422)

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = ERROR_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        return JSONResponse(error_body(code, message), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(AdminError, admin_error)
    app.add_exception_handler(StorageError, storage_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
