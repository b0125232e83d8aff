"""The HTTP API (:mod:`api`, ``/api/v1``) and the dashboard (:mod:`pages`), served by ``promptpipe serve`` in the
service's own loop (:mod:`server`)."""

__all__ = ["api", "auth", "charts", "context", "errors", "pages", "ratelimit", "schemas", "security_headers", "server",
           "site"]
