"""A fake OpenAI chat-completions server for tests.

A real HTTP server on 127.0.0.1 (a `ThreadingHTTPServer` in a daemon thread), so the real `openai`
client runs end to end. Tests script completions in order (`say`, `call_tool`, `call_tools`, `fail`,
`hang`); each request takes the first remaining step whose `match` is a substring of the request's
`messages` serialised with `json.dumps(..., ensure_ascii=False)`. `assert_complete()` fails on
leftover steps and on requests nothing was scripted for. No asyncio: safe across event loops.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = ["FakeOpenAIServer", "Step"]

GATE_TIMEOUT_S = 30.0
"""Safety limit for `gate=`: a gate never set fails the request instead of hanging the run."""

UNEXPECTED = "unexpected request: "
ToolArgs = dict[str, Any] | str


@dataclass(eq=False)
class Step:
    """One scripted answer: a completion (text and/or tool calls), an HTTP error, or a hang."""

    kind: Literal["reply", "fail", "hang", "raw"]
    text: str | None = None
    tool_calls: list[tuple[str, ToolArgs]] = field(default_factory=list)
    match: str | None = None
    delay_s: float = 0.0
    gate: threading.Event | None = None
    status: int = 200
    message: str = ""
    body: bytes = b""
    content_type: str = "application/json"
    finish_reason: str | None = None
    """Overrides the finish reason of a reply (e.g. "length": cut off at the output limit)."""
    request: dict[str, Any] | None = None
    """The request body that consumed this step (set when it is served)."""
    repeat: bool = False
    """Answers every matching request and is never used up (see ``FakeOpenAIServer.always``)."""

    def __repr__(self) -> str:
        what = {"fail": f"fail({self.status}, message={self.message!r})",
                "hang": f"hang({self.delay_s})",
                "raw": f"raw({self.status}, {self.body[:40]!r})"}.get(self.kind, f"say({self.text!r})")
        if self.tool_calls:
            what = f"call_tools({self.tool_calls!r}, text={self.text!r})"
        return what if self.match is None else f"{what} [match={self.match!r}]"


def _error_body(message: str, status: int, code: str | None = None) -> dict[str, Any]:
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _context_error(limit: int, size: int) -> dict[str, Any]:
    """What OpenAI answers (400) when the messages do not fit the context window."""
    message = (f"This model's maximum context length is {limit // 4} tokens. However, your messages "
               f"resulted in {size // 4} tokens. Please reduce the length of the messages.")
    return _error_body(message, 400, "context_length_exceeded")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60  # closes idle keep-alive connections left by clients that were never closed
    server: _Server

    def do_POST(self) -> None:
        self.server.fake._handle(self)

    do_GET = do_POST

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeOpenAIServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake


class FakeOpenAIServer:
    """Scripted OpenAI-compatible server; see the module docstring."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._generation, self._abort = 0, threading.Event()
        self._script: list[Step] = []
        self.requests: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.context_limit_chars: int | None = None
        """When set, a request whose messages (as JSON) are longer is refused with OpenAI's
        ``context_length_exceeded`` 400, as a model with that context would; it takes no step."""
        self.context_rejections = 0
        self.reset()

    @property
    def url(self) -> str:
        """Base URL for `AsyncOpenAI(base_url=...)`, e.g. `http://127.0.0.1:43121/v1`."""
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAIServer:
        """Bind a free port and serve from a daemon thread."""
        if self._httpd is None:
            self._httpd = _Server(self)
            self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                            name="fake-openai", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Release waiting handlers, stop serving and close the socket."""
        with self._lock:
            self._abort.set()
            self._abort = threading.Event()
        httpd, thread, self._httpd, self._thread = self._httpd, self._thread, None, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset(self) -> None:
        """Forget script, requests, errors and counters; handlers still waiting answer at once."""
        with self._lock:
            self._abort.set()
            self._abort = threading.Event()
            self._generation += 1
            self._script.clear()
            self.requests.clear()
            self.errors.clear()
            self.context_limit_chars, self.context_rejections = None, 0
            self._in_flight = self.max_in_flight = 0
            self._call_seq = self._completion_seq = 0

    def say(self, text: str, *, match: str | None = None, delay_s: float = 0.0,
            gate: threading.Event | None = None, finish_reason: str | None = None) -> Step:
        """Script a plain assistant reply (``finish_reason="length"``: cut off by the output limit)."""
        return self._add(Step("reply", text=text, match=match, delay_s=delay_s, gate=gate,
                              finish_reason=finish_reason))

    def always(self, text: str, *, match: str) -> Step:
        """Answer every request that matches with ``text``, for as long as the test runs (for
        long simulations); checked after the one-off steps, never left over."""
        return self._add(Step("reply", text=text, match=match, repeat=True))

    def raw(self, body: bytes | str, *, status: int = 200, content_type: str = "application/json",
            match: str | None = None) -> Step:
        """Script an answer that is not a completion: any bytes with any status and type (a
        proxy's HTML page, a truncated JSON body, a JSON object of the wrong shape)."""
        data = body.encode() if isinstance(body, str) else body
        return self._add(Step("raw", status=status, body=data, content_type=content_type, match=match))

    def call_tool(self, name: str, args: ToolArgs, *, match: str | None = None,
                  text: str | None = None, delay_s: float = 0.0,
                  gate: threading.Event | None = None) -> Step:
        """Script one tool call; a str `args` is sent verbatim (for bad-JSON tests)."""
        return self.call_tools([(name, args)], match=match, text=text, delay_s=delay_s, gate=gate)

    def call_tools(self, calls: list[tuple[str, ToolArgs]], *, match: str | None = None,
                   text: str | None = None, delay_s: float = 0.0,
                   gate: threading.Event | None = None) -> Step:
        """Script several tool calls in one completion, with optional `text` as content."""
        if not calls:
            raise ValueError("call_tools needs at least one call")
        return self._add(Step("reply", text=text, tool_calls=list(calls), match=match,
                              delay_s=delay_s, gate=gate))

    def fail(self, status: int = 500, *, message: str = "server error",
             match: str | None = None, delay_s: float = 0.0, repeat: bool = False) -> Step:
        """Script an HTTP error with an OpenAI-shaped error body (``repeat``: every matching
        request fails, an outage lasting until :meth:`reset`)."""
        return self._add(Step("fail", status=status, message=message, match=match,
                              delay_s=delay_s, repeat=repeat))

    def hang(self, seconds: float, *, match: str | None = None) -> Step:
        """Script a response that sleeps `seconds`, then answers 500 (for client timeouts)."""
        return self._add(Step("hang", status=500, message=f"hung for {seconds} s", match=match,
                              delay_s=seconds))

    def _add(self, step: Step) -> Step:
        with self._lock:
            self._script.append(step)
        return step

    def in_flight(self) -> int:
        """Requests being handled right now (including ones waiting on a delay or gate)."""
        with self._lock:
            return self._in_flight

    @staticmethod
    def last_user_text(request: dict[str, Any]) -> str:
        """Text of the last `user` message in a request body ("" if none)."""
        for message in reversed(request.get("messages") or []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, list):
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content or ""
        return ""

    def assert_complete(self) -> None:
        """Fail if scripted steps were not used or any request was unexpected."""
        with self._lock:
            leftover, errors = [step for step in self._script if not step.repeat], list(self.errors)
        if leftover or errors:
            lines = [f"leftover step: {step!r}" for step in leftover]
            lines += [f"error: {error}" for error in errors]
            raise AssertionError("fake OpenAI server not complete:\n  " + "\n  ".join(lines))

    def _handle(self, handler: _Handler) -> None:
        with self._lock:
            generation, abort = self._generation, self._abort
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            content_type = "application/json"
            try:
                status, payload = self._answer(handler, generation, abort)
            except Exception as exc:  # a bug here must fail the test, not vanish in a thread
                status, payload = self._problem(generation, f"fake server crashed: {exc!r}")
            if isinstance(payload, Step):  # a raw answer
                data, content_type = payload.body, payload.content_type
            else:
                data = json.dumps(payload).encode()
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except ConnectionError:
            handler.close_connection = True  # the client gave up (e.g. its timeout)
        finally:
            with self._lock:
                if generation == self._generation:
                    self._in_flight -= 1

    def _answer(self, handler: _Handler, generation: int,
                abort: threading.Event) -> tuple[int, dict[str, Any] | Step]:
        """Pick and serve the step for one request; (status, JSON payload)."""
        path, body = handler.path.split("?", 1)[0].rstrip("/"), self._read_json(handler)
        if handler.command == "GET" and path == "/v1/models":
            models = [{"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}]
            return 200, {"object": "list", "data": models}
        if handler.command != "POST" or path != "/v1/chat/completions":
            return self._problem(generation, f"{UNEXPECTED}{handler.command} {handler.path}", 404)
        if body is None:
            return self._problem(generation, f"{UNEXPECTED}body is not a JSON object", 400)
        with self._lock:
            if generation == self._generation:
                self.requests.append(body)
        if body.get("stream"):
            return self._problem(generation, f"{UNEXPECTED}stream=true is not supported", 400)
        limit = self.context_limit_chars
        size = len(json.dumps(body.get("messages"), ensure_ascii=False))
        if limit is not None and size > limit:
            with self._lock:
                self.context_rejections += 1
            return 400, _context_error(limit, size)
        step = self._take(generation, body)
        if step is None:
            last = self.last_user_text(body)[:200]
            return self._problem(generation, f"{UNEXPECTED}no scripted step matches ({last=})")
        if not self._wait(step, generation, abort):
            return 500, _error_body("fake server reset or gate timed out before answering", 500)
        if step.kind == "reply":
            return 200, self._completion(step, body)
        if step.kind == "raw":
            return step.status, step
        return step.status, _error_body(step.message, step.status)

    @staticmethod
    def _read_json(handler: _Handler) -> dict[str, Any] | None:
        raw = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def _take(self, generation: int, body: dict[str, Any]) -> Step | None:
        haystack = json.dumps(body.get("messages"), ensure_ascii=False)
        with self._lock:
            if generation != self._generation:
                return None
            for index, step in enumerate(self._script):
                if not step.repeat and (step.match is None or step.match in haystack):
                    step.request = body
                    return self._script.pop(index)
            for step in self._script:
                if step.repeat and step.match is not None and step.match in haystack:
                    return step
        return None

    def _wait(self, step: Step, generation: int, abort: threading.Event) -> bool:
        """Apply the step's delay and gate; False if reset/stop or the gate timed out."""
        if step.delay_s and abort.wait(step.delay_s):
            return False
        if step.gate is None:
            return True
        deadline = time.monotonic() + GATE_TIMEOUT_S
        while not step.gate.wait(0.02):
            if abort.is_set():
                return False
            if time.monotonic() > deadline:
                self._problem(generation, f"gate not set within {GATE_TIMEOUT_S} s: {step!r}")
                return False
        return True

    def _problem(self, generation: int, message: str,
                 status: int = 500) -> tuple[int, dict[str, Any]]:
        """Record a protocol problem (unless reset since) and build its error response."""
        with self._lock:
            if generation == self._generation:
                self.errors.append(message)
        return status, _error_body(message, status)

    def _completion(self, step: Step, body: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": step.text, "refusal": None}
        with self._lock:
            self._completion_seq += 1
            seq = self._completion_seq
            ids = [f"call_{self._call_seq + i}" for i in range(1, len(step.tool_calls) + 1)]
            self._call_seq += len(step.tool_calls)
        if step.tool_calls:
            message["tool_calls"] = [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": (
                    args if isinstance(args, str) else json.dumps(args, ensure_ascii=False))}}
                for call_id, (name, args) in zip(ids, step.tool_calls, strict=True)
            ]
        prompt_tokens = len(json.dumps(body.get("messages"))) // 4
        completion_tokens = len(json.dumps(message)) // 4
        return {
            "id": f"chatcmpl-fake-{seq}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake-model"),
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": step.finish_reason or ("tool_calls" if step.tool_calls else "stop")}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }
