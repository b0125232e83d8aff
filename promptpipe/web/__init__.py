"""HTTP API (:mod:`api`, ``/api/v1``) and dashboard (:mod:`pages`) in ``promptpipe serve``'s loop (:mod:`server`)."""

__all__ = ["api", "auth", "charts", "context", "errors", "pages", "ratelimit", "schemas", "security_headers", "server",
           "site"]
