"""The WhatsApp bridge never runs two Go clients on one session: a Go session that fails on its own
(goneonize's encoder chokes on an event it does not know, and its loop ends while whatsmeow goes
on acking messages) gets its client stopped and the process starts afresh instead of connecting
again; a process also starts afresh after a bounded number of Go connects (each leaks a handle).
The reachability check goes through the proxy the Go library will use, and the open-file limit
is raised."""

from __future__ import annotations

import asyncio
import resource
import sys
from typing import Any

import pytest
from neonize.aioze.events import ConnectedEv, ConnectFailureEv, MessageEv
from neonize.exc import NeonizeError

from promptpipe.cli import serve as cli
from promptpipe.transport._whatsapp_support import probe_target, raise_open_file_limit, reach_whatsapp
from tests.ports import free_port
from tests.transport.test_whatsapp_transport import harness, message_event, settle, spin

__all__ = ["harness"]  # the fixture, shared with the transport's other tests

ENCODER_FAILURE = NeonizeError("goneonize: failed to encode event: unknown receipt type server-error")


async def test_a_go_session_that_fails_on_its_own_is_stopped_and_the_process_starts_afresh(harness) -> None:
    h = harness(connect_errors=[ENCODER_FAILURE])
    await h.transport.start(h.on_message)
    await settle(lambda: h.transport.exit_request is not None)
    await spin()

    assert h.client.stop_calls == 1  # the old client is stopped, not left acking messages
    assert h.client.connect_calls == 1  # and no second client is connected in this process
    request = h.transport.exit_request
    assert (request.restart, request.kind, request.connected) == (True, "reconnect", False)
    assert h.transport.connection_state.name == "restarting"
    assert "unknown receipt type" in h.transport.connection_state.detail
    assert h.delays == []  # nothing waits in here: the fresh process connects


async def test_a_failure_after_being_connected_says_so(harness) -> None:
    h = harness()
    await h.start_connected()
    assert h.client.session is not None
    h.client.session.set_exception(ENCODER_FAILURE)  # the Go loop dies mid-session
    await settle(lambda: h.transport.exit_request is not None)

    assert h.client.stop_calls == 1 and h.client.connect_calls == 1
    assert h.transport.exit_request.connected is True
    assert not h.transport.connected


async def test_after_so_many_go_connects_the_process_starts_afresh(harness) -> None:
    """With a bound above one (the default is one: every new Go session gets a fresh process),
    sessions WhatsApp refuses end quietly and are retried in the process up to it."""
    h = harness(go_connects_per_process=3)
    await h.transport.start(h.on_message)
    for attempt in range(1, 4):
        await settle(lambda attempt=attempt: h.client.connect_calls == attempt)
        await h.client.emit(ConnectFailureEv, ConnectFailureEv(Reason=8, Message="internal server error"))
    await settle(lambda: h.transport.exit_request is not None)

    assert h.client.connect_calls == 3  # never a fourth
    assert h.transport.exit_request.kind == "reconnect" and "3 connects" in h.transport.connection_state.detail


async def test_stop_is_not_mistaken_for_a_failed_session(harness) -> None:
    h = harness()
    await h.start_connected()
    await h.client.emit(ConnectedEv, ConnectedEv(status=True))
    await h.transport.stop()

    assert h.transport.exit_request is None and h.client.stop_calls == 1


@pytest.mark.parametrize(("env", "target"), [
    ({}, ("web.whatsapp.com", 443)),
    ({"HTTPS_PROXY": "http://proxy.example.org:3128"}, ("proxy.example.org", 3128)),
    ({"https_proxy": "proxy.example.org:8080"}, ("proxy.example.org", 8080)),
    ({"ALL_PROXY": "socks5://10.0.0.7"}, ("10.0.0.7", 1080)),
    ({"HTTPS_PROXY": "https://proxy.example.org", "ALL_PROXY": "socks5://10.0.0.7"}, ("proxy.example.org", 443)),
    ({"HTTPS_PROXY": "http://proxy.example.org:3128", "NO_PROXY": "localhost,.whatsapp.com"},
     ("web.whatsapp.com", 443)),
    ({"HTTPS_PROXY": "http://proxy.example.org:3128", "no_proxy": "*"}, ("web.whatsapp.com", 443)),
    ({"HTTPS_PROXY": "http://proxy.example.org:3128", "NO_PROXY": "example.org"}, ("proxy.example.org", 3128)),
])
def test_the_reachability_check_goes_where_the_go_library_will(env: dict[str, str], target: tuple[str, int]) -> None:
    assert probe_target(env) == target


async def test_a_proxy_only_network_counts_as_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    server = await asyncio.start_server(lambda _r, w: w.close(), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
    async with server:
        assert await reach_whatsapp() is None
    closed = free_port()  # nothing listens there
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{closed}")
    assert f"cannot reach 127.0.0.1:{closed}" in (await reach_whatsapp() or "")


def test_the_open_file_limit_is_raised_within_the_hard_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
        before, after = raise_open_file_limit(wanted=4096)
        assert before == min(256, hard)
        assert after == (4096 if hard == resource.RLIM_INFINITY else min(4096, hard))
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == after
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_serve_starts_afresh_with_a_growing_wait_until_it_connects(monkeypatch: pytest.MonkeyPatch) -> None:
    codes = [cli.RESTART_UNCONNECTED] * 3 + [cli.RESTART_AFTER_CONNECT, cli.RESTART_UNCONNECTED]
    execs: list[list[str]] = []
    waits: list[float] = []
    monkeypatch.setattr(cli, "_run_service", lambda *_a, **_k: codes.pop(0))
    monkeypatch.setattr(cli.os, "execv", lambda _path, argv: execs.append(argv))
    monkeypatch.setattr(cli.time, "sleep", waits.append)
    monkeypatch.setattr(sys, "argv", ["promptpipe", "serve"])
    monkeypatch.delenv(cli.RECONNECT_ENV, raising=False)
    settings: Any = object()
    for _ in range(5):
        cli._serve_command(settings)  # each would have replaced the process

    assert len(execs) == 5 and execs[0] == [sys.executable, "-m", "promptpipe.cli", "serve"]
    assert waits == [0.0, 2.0, 4.0, 0.0, 2.0]  # a process that had connected starts the count again


async def test_a_message_whatsmeow_hands_over_while_stopping_is_taken_in(harness) -> None:
    """whatsmeow has acknowledged it to WhatsApp, so it will not come again: dropping it during the
    disconnect would lose it."""
    h = harness()
    await h.start_connected()
    client = h.client
    stop = client.stop

    async def stop_with_a_last_message() -> None:
        await client.emit(MessageEv, message_event("on my way"))
        await stop()

    client.stop = stop_with_a_last_message  # type: ignore[method-assign]
    await h.transport.stop()

    assert [m.text for m in h.received] == ["on my way"]
    await client.emit(MessageEv, message_event("after the stop"))  # once Go has stopped: nothing more
    assert [m.text for m in h.received] == ["on my way"]
