"""The API as a contract: requests generated from its own OpenAPI schema (schemathesis, property
based) against the real app on SQLite, in process, with a small study enrolled. No request may
cause a 5xx; every answer fits the schema (status, content type, body); a request that fits the
schema is never refused for its shape (400/422); and one that does not fit is refused (400/422, or
404 for a path that names nothing).

Hypothesis runs in a worker thread (its tests are synchronous); each request goes to the app
through httpx's ASGI transport on the test's own event loop, where the app's database lives.
Schemathesis and Hypothesis are imported by the test, not the module (3 s a process): every
worker collects this module, one runs the test."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from promptpipe.research import admin
from promptpipe.web.errors import api_words
from tests.databases import SqliteTemplate
from tests.fakes.openai_server import FakeOpenAIServer
from tests.web.conftest import Web

ENROLLED = [f"+1416555{n:04d}" for n in range(100, 106)]
NEW_PHONES = [f"+1416555{n:04d}" for n in range(150, 200)]
"""Fictional lines (555-01xx) that pass the project's validation."""
EXAMPLES = {"positive": 15, "negative": 10}
"""Examples per operation, by schemathesis' generation mode."""
VIEWER_EXAMPLES = 5
SHAPE_REFUSALS = {400, 422}
BASE_URL = "http://testserver"


@pytest.fixture(params=["sqlite"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: SqliteTemplate) -> str:
    """SQLite only: the contract does not depend on the database, and the run stays short."""
    return str(sqlite_template.copy_to(tmp_path))


async def _study(web: Web) -> list[str]:
    """A few enrolled participants: most active, one paused, one withdrawn."""
    ids = []
    for n, phone in enumerate(ENROLLED):
        row = await admin.enroll(web.app.db, web.app.clock, admin.Enrolment(phone=phone, name=f"P{n}",
                                                                            timezone="America/Toronto",
                                 background="", by="test", study=web.app.settings.study))
        ids.append(row.id)
    await admin.set_status(web.app.db, web.app.clock, phone=ids[1], action="pause", by="test")
    await admin.set_status(web.app.db, web.app.clock, phone=ids[2], action="withdraw", by="test")
    return ids


@pytest.mark.long
async def test_every_operation_keeps_to_its_schema(web: Web, fake_openai: FakeOpenAIServer) -> None:
    """As an admin, every operation; as a viewer, what they read (their answers have other shapes,
    and a 403 is no refusal of the request's shape)."""
    import schemathesis
    from hypothesis import strategies as st
    from schemathesis.generation import GenerationMode

    schemathesis.openapi.format("phone", st.sampled_from(NEW_PHONES))
    site = web.server.site
    assert site is not None
    fake_openai.always("Hello!", match="")  # greetings and replies, whenever a lane runs
    ids = await _study(web)
    schema = schemathesis.openapi.from_dict(site.openapi())
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    loop = asyncio.get_running_loop()
    admin_, viewer = ({"Authorization": f"Bearer {web.tokens[role]}"} for role in ("admin", "viewer"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=site), base_url=BASE_URL) as client:

        def call(kwargs: dict[str, Any]) -> httpx.Response:
            return asyncio.run_coroutine_threadsafe(client.request(**kwargs), loop).result(timeout=60)

        def run_all() -> list[str]:
            runs = [(operation, GenerationMode(mode), examples, admin_) for operation in operations
                    for mode, examples in EXAMPLES.items()]
            runs += [(operation, GenerationMode.POSITIVE, VIEWER_EXAMPLES, viewer) for operation in operations
                     if operation.method.upper() == "GET"]
            return [f"{operation.method.upper()} {operation.path} ({mode.value}, {who}): {problem}"
                    for operation, mode, examples, headers in runs
                    for who in ["viewer" if headers is viewer else "admin"]
                    for problem in _problems(_cases(operation, mode, examples, ids, call, headers))]

        problems = await asyncio.to_thread(run_all)
    assert not problems, "\n\n".join(problems)


def _problems(cases: Callable[[], None]) -> list[str]:
    from hypothesis.errors import Unsatisfiable

    try:
        cases()
    except Unsatisfiable:  # an operation without parameters or body: nothing can be outside its schema
        return []
    except Exception as exc:  # the first failure hypothesis found (no shrinking: the run stays short)
        return [f"{type(exc).__name__}: {exc}"[:2000]]
    return []


def _cases(operation: Any, mode: Any, examples: int, ids: list[str],
           call: Callable[[dict[str, Any]], httpx.Response], headers: dict[str, str]) -> Callable[[], None]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st
    from schemathesis.checks import not_a_server_error
    from schemathesis.generation import GenerationMode
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    # Hypothesis derives its derandomised examples from the source of ``cases`` below: any edit to
    # it, a renamed variable too, draws other examples than the ones the suite has always run.
    CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
    strategies = [operation.as_strategy(generation_mode=mode)]
    if "{participant_id}" in operation.path:  # mostly participants that exist
        strategies += [operation.as_strategy(generation_mode=mode, path_parameters={"participant_id": pid})
                       for pid in ids]

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(st.one_of(strategies))
    def cases(case: Any) -> None:
        kwargs = case.as_transport_kwargs(base_url=BASE_URL, headers=headers)
        kwargs.pop("timeout", None)
        if not kwargs.get("cookies"):
            kwargs.pop("cookies", None)
        if "data" in kwargs:
            kwargs["content"] = kwargs.pop("data")
        response = call(kwargs)
        case.validate_response(response, checks=CHECKS)
        where = f"{case.method} {case.formatted_path} {case.query or ''} {case.body!r:.200} -> " \
                f"{response.status_code}: {response.text[:300]}"
        if mode is GenerationMode.POSITIVE:
            assert response.status_code not in SHAPE_REFUSALS, f"a request that fits the schema was refused: {where}"
        elif _outside_the_schema(case):
            assert response.status_code in {*SHAPE_REFUSALS, 404}, f"a request outside the schema was taken: {where}"

    return cases


def _outside_the_schema(case: Any) -> bool:
    """Whether a negative case is one the server can tell: an unknown query parameter is not (an
    OpenAPI operation's query is open), and neither is a mutation the serialisation undid."""
    from schemathesis.generation import GenerationMode

    meta = case.meta
    if meta is None or meta.generation.mode is not GenerationMode.NEGATIVE:
        return False
    data = getattr(meta.phase, "data", None)
    description = str(getattr(data, "description", ""))
    return "additionalProperties" not in description


async def test_a_method_the_schema_does_not_list_is_405_with_the_schemas_methods(web: Web) -> None:
    site = web.server.site
    assert site is not None
    paths = site.openapi()["paths"]
    values = {"participant_id": "p_0123456789abcdef", "flag_id": "1", "inbox_id": "1", "name": "someone",
              "questionnaire_id": "baseline"}
    async with web.client("admin") as client:
        for template, operations in paths.items():
            listed = sorted(method.upper() for method in operations)
            for method in sorted({"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} - set(listed)):
                answer = await client.request(method, template.format(**values))
                assert answer.status_code == 405, (method, template, answer.text)
                assert answer.headers["allow"] == ", ".join(listed), (method, template)
                assert answer.json()["error"]["code"] == "method_not_allowed"


async def test_errors_name_the_apis_fields_not_the_command_lines_options(web: Web) -> None:
    """The research operations the API shares with promptpipe-admin word their errors for the
    terminal (--phone: …); the API's answers name the request's fields."""
    async with web.client() as client:
        bad_phone = await client.post("/api/v1/participants", json={
            "phone": "+15550100000", "name": "Ana", "timezone": "America/Toronto"})
        token = await client.post("/api/v1/tokens", json={"name": "ana", "role": "nobody"})
    assert bad_phone.status_code == 400, bad_phone.text
    message = bad_phone.json()["error"]["message"]
    assert message.startswith("phone: ") and "--" not in message
    assert token.status_code in (403, 422) and "--" not in token.text


@pytest.mark.parametrize(("cli", "api"), [
    ("--phone: it is empty", "phone: it is empty"),
    ("--stratum site=…: this study is not stratified", "strata.site: this study is not stratified"),
    ("have it sent then (--after-quiet-hours; in the API \"after_quiet_hours\": true)",
     "have it sent then (\"after_quiet_hours\": true)"),
    ("--reply-to-prompt: no daily prompt", "reply_to_prompt: no daily prompt"),
    ("a -- b and x--y stay", "a -- b and x--y stay"),
])
def test_api_words(cli: str, api: str) -> None:
    assert api_words(cli) == api
