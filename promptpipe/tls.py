"""One TLS context for every outgoing HTTPS client of the process (the model, the safety alert webhook): reading the CA
bundle costs 30-100 ms of CPU each time a context is made, and a process may build many clients (each sandbox of
``promptpipe evaluate`` and of the pilot, each test's service). The context is made as httpx makes its default one
(certifi's bundle, or the ``SSL_CERT_FILE``/``SSL_CERT_DIR`` the environment names)."""

from __future__ import annotations

import functools
import ssl

import httpx

__all__ = ["client_context"]


@functools.cache
def client_context() -> ssl.SSLContext:
    """The process's TLS client context (verifying certificates and host names)."""
    return httpx.create_ssl_context()
