"""``promptpipe health``: the image's HEALTHCHECK (it has no curl): 0 when the service's ``/health`` on API_LISTEN
answers ok (or API_LISTEN is empty: nothing to ask), 1 when it does not."""

from __future__ import annotations

import sys

import httpx

from promptpipe.config import Settings

TIMEOUT_SECONDS = 5.0
_EVERY_ADDRESS = {"0.0.0.0": "127.0.0.1", "::": "::1", "[::]": "::1", "*": "127.0.0.1"}


def health_url(listen: str) -> str:
    """Where to ask: API_LISTEN's port on this machine (a bind on every address is asked on loopback)."""
    host, _, port = listen.rpartition(":")
    host = _EVERY_ADDRESS.get(host, host)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/health"


def health_command(settings: Settings) -> int:
    if not settings.api_listen:
        print("API_LISTEN is empty: the HTTP API is off, so there is no /health to ask (the service's health "
              "is then only that its process runs)")
        return 0
    url = health_url(settings.api_listen)
    try:
        answer = httpx.get(url, timeout=TIMEOUT_SECONDS)
        healthy = answer.status_code == 200 and answer.json().get("status") == "ok"
    except (httpx.HTTPError, ValueError) as exc:
        print(f"unhealthy: {url} did not answer ({type(exc).__name__})", file=sys.stderr)
        return 1
    if not healthy:
        print(f"unhealthy: {url} answered {answer.status_code}", file=sys.stderr)
        return 1
    print(f"ok: {url}")
    return 0
