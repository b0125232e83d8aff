"""One TLS context for every outgoing HTTPS client of the process, made as httpx makes its default one: reading the CA
bundle costs 30-100 ms of CPU each time, and a process may build many clients."""

from __future__ import annotations

import functools
import ssl

import httpx

__all__ = ["client_context"]


@functools.cache
def client_context() -> ssl.SSLContext:
    """The process's TLS client context (verifying certificates and host names)."""
    return httpx.create_ssl_context()
