"""The HTTP API and the dashboard, served by ``promptpipe serve`` in the service's own loop: :mod:`site` (the
application), :mod:`api` (``/api/v1``), :mod:`pages` (the dashboard), :mod:`auth` (tokens, roles, sessions, CSRF),
:mod:`charts` (SVG drawn on the server), :mod:`server` (uvicorn), :mod:`context` (what they work with)."""

__all__ = ["api", "auth", "charts", "context", "errors", "pages", "ratelimit", "schemas", "security_headers", "server",
           "site"]
