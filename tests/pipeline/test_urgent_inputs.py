"""Commands and the crisis screen never wait for the model: not behind a message the model is
answering, not behind an input waiting for its retry; and a request the model refuses for good
ends after a few tries and is listed as stuck, instead of being retried for ever."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from datetime import timedelta

import pytest

from promptpipe.app import App
from promptpipe.domain.safety import DEFAULT_SAFETY_MESSAGE
from promptpipe.flow import APOLOGY
from promptpipe.flow.commands import STOPPED
from promptpipe.flow.failures import GAVE_UP, MAX_ATTEMPTS_FOR_REJECTIONS
from promptpipe.research import admin, oversight
from promptpipe.research.status import read_status
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline.test_lanes import enrolled, until
from tests.schedule_helpers import enroll_with_schedule

ANA = "+14165550102"


async def started(make_app: AppFactory, fake: FakeOpenAIServer):  # type: ignore[no-untyped-def]
    transport = MemoryTransport()
    app = await make_app(transport)
    await enrolled(app, fake, (ANA, "Ana"))
    return app, transport


async def while_the_model_thinks(app, transport, fake: FakeOpenAIServer, urgent: str, answer: str,  # type: ignore[no-untyped-def]
                                 arrived: Callable[[], bool]) -> None:
    """A turn waits on the model (held by a gate) when ``urgent`` arrives; ``arrived`` must
    become true before the gate opens, i.e. without waiting for the model."""
    gate = threading.Event()
    fake.say(answer, match="a long question", gate=gate)
    await transport.inject(ANA, "a long question")
    running = asyncio.create_task(app.run_until_idle())
    await until(lambda: fake.in_flight() == 1, "the turn to reach the model")
    await transport.inject(ANA, urgent)
    try:
        await until(arrived, f"the answer to {urgent!r} while the model still thinks")
    finally:
        gate.set()
        await running


async def test_stop_sent_while_the_model_is_still_thinking_is_confirmed_at_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    await while_the_model_thinks(app, transport, fake_openai, "STOP", "this answer must never go out",
                                 lambda: STOPPED in transport.texts_to(ANA))
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [STOPPED]  # no apology: the turn was set aside, not failed
    assert app.flow.failures == 0
    assert (await admin.show(app.db, ANA)).paused_by == "participant"


async def test_crisis_words_sent_while_the_model_is_still_thinking_get_the_safety_message_at_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    fake_openai.always("I am here with you.", match="end my life")
    await while_the_model_thinks(app, transport, fake_openai, "I want to end my life", "Tell me more.",
                                 lambda: DEFAULT_SAFETY_MESSAGE in transport.texts_to(ANA))
    assert transport.texts_to(ANA)[1] == DEFAULT_SAFETY_MESSAGE  # first, not after a failed turn's apology
    assert APOLOGY not in transport.texts_to(ANA)


async def test_stop_behind_a_message_the_model_refuses_is_handled_without_an_apology(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    fake_openai.fail(400, message="invalid request", match="something odd")
    await transport.inject(ANA, "something odd")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [APOLOGY]

    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [APOLOGY, STOPPED]

    app.clock.advance(timedelta(hours=1))  # the refused message's retry time has long passed
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [APOLOGY, STOPPED]


async def test_a_request_the_model_refuses_for_good_ends_after_a_few_tries_and_is_listed_as_stuck(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    for _ in range(MAX_ATTEMPTS_FOR_REJECTIONS):  # a further request would find no step and fail the test
        fake_openai.fail(400, message="invalid request", match="something odd")
    await transport.inject(ANA, "something odd")
    for _ in range(MAX_ATTEMPTS_FOR_REJECTIONS + 2):
        await app.run_until_idle()
        app.clock.advance(timedelta(hours=1))
    await app.run_until_idle()

    refused = [r for r in fake_openai.requests if "something odd" in str(r)]
    assert len(refused) == MAX_ATTEMPTS_FOR_REJECTIONS
    assert transport.texts_to(ANA)[1:] == [APOLOGY, GAVE_UP]  # told once, and once that no answer will come
    [stuck] = await oversight.inbox_rows(app.db, stuck_only=True)
    assert (stuck.status, stuck.attempts) == ("failed", MAX_ATTEMPTS_FOR_REJECTIONS)
    report = await read_status(app.db)
    assert (report.stuck_inputs, report.stuck_input_ids) == (1, (stuck.id,))
    assert f"stuck inputs: 1 given up (ids {stuck.id};" in "\n".join(report.lines())


async def test_stop_behind_a_prompt_waiting_for_the_model_is_handled_at_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_with_schedule(app, fake_openai, ANA, "UTC")
    fake_openai.fail(503, message="overloaded")
    await admin.send_prompt_now(app.db, app.clock, phone=ANA)
    await app.run_until_idle()  # the prompt's turn failed and waits for its retry

    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [STOPPED]  # at once, and no apology for waiting

    app.clock.advance(timedelta(hours=1))
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [STOPPED]  # and the prompt never follows


async def test_a_model_error_quoting_the_participant_keeps_their_words_out_of_logs_and_status(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Providers echo the offending input in their error message; we keep the class, the status
    and the code only (the message itself only with PROMPTPIPE_DEBUG on)."""
    app, transport = await started(make_app, fake_openai)
    words = "my neighbour Rosalind keeps a pet tortoise"
    fake_openai.fail(400, message=f"Invalid content in message: '{words}'", match="tortoise")
    await transport.inject(ANA, words)
    await app.run_until_idle()

    printed = capsys.readouterr()
    assert "tortoise" not in printed.out + printed.err
    [row] = [r for r in await oversight.inbox_rows(app.db, stuck_only=False) if r.kind == "message"]
    assert "tortoise" not in row.last_error and "400" in row.last_error
    report = await read_status(app.db)
    assert "tortoise" not in str(report.to_json()) and "400" in str(report.last_model_error)


async def _stopped_by_another_process(make_app: AppFactory, fake_openai: FakeOpenAIServer,
                                      *before_stop: str) -> tuple[App, MemoryTransport]:
    """Ana's turn waits on the model; the admin script stores ``before_stop`` (the poller looks
    after each, finding nothing urgent) and then STOP; the STOP must be confirmed while the model
    still thinks, and its answer never go out."""
    app, transport = await started(make_app, fake_openai)
    gate = threading.Event()
    fake_openai.say("this answer must never go out", match="a long question", gate=gate)
    await transport.inject(ANA, "a long question")
    running = asyncio.create_task(app.run_until_idle())
    await until(lambda: fake_openai.in_flight() == 1, "the turn to reach the model")
    try:
        for words in before_stop:
            await admin.simulate(app.db, app.clock, phone=ANA, text=words)
            await app.lanes.poll_once()
            assert STOPPED not in transport.texts_to(ANA)
        await admin.simulate(app.db, app.clock, phone=ANA, text="STOP")
        await app.lanes.poll_once()  # what the service's poller does every POLL_INTERVAL
        await until(lambda: STOPPED in transport.texts_to(ANA), "the STOP confirmed while the model still thinks")
    finally:
        gate.set()
        await running
    await app.run_until_idle()
    return app, transport


async def test_a_stop_stored_by_another_process_while_the_model_thinks_ends_that_turn(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """Another process writes the STOP (the admin script, on a pilot): no lane is woken in this one;
    the poller finds it and the turn under way is set aside, as for a STOP that came over WhatsApp,
    so the words before it go unanswered."""
    app, transport = await _stopped_by_another_process(make_app, fake_openai)
    assert transport.texts_to(ANA)[1:] == [STOPPED]
    assert app.flow.failures == 0


async def test_a_stop_another_process_stores_after_an_ordinary_message_still_ends_the_turn(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The poller looks at a turn's new rows once each: an ordinary message it has looked at does
    not hide a STOP that comes after it (from the admin script, while the model still thinks)."""
    _, transport = await _stopped_by_another_process(make_app, fake_openai, "and one more thing")
    assert transport.texts_to(ANA)[1:] == [STOPPED]


async def test_stop_from_someone_whose_turn_waits_for_a_slot_is_confirmed_at_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """A burst can take every turn slot (two per model call here: one call at a time). Someone
    whose lane waits for a slot and writes STOP is not queued behind the others' turns."""
    ben, cy = "+14165550103", "+14165550104"
    transport = MemoryTransport()
    app = await make_app(transport, LANE_CONCURRENCY="1")
    await enrolled(app, fake_openai, (ANA, "Ana"), (ben, "Ben"), (cy, "Cy"))
    gate = threading.Event()
    for phone, words in ((ANA, "first question"), (ben, "second question")):
        fake_openai.say(f"an answer to the {words}", match=words, gate=gate)
        await transport.inject(phone, words)
    await transport.inject(cy, "third question")  # never reaches the model: STOP comes first
    running = asyncio.create_task(app.run_until_idle())
    try:
        await until(lambda: fake_openai.in_flight() == 1, "one turn to reach the model")
        await transport.inject(cy, "STOP")
        for _ in range(200):  # the STOP's turn commits while Ana's answer is still with the model
            if (await admin.show(app.db, cy)).paused_by == "participant":
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the STOP waited for a turn slot")
        assert fake_openai.in_flight() == 1 and not transport.texts_to(ANA)[1:] + transport.texts_to(ben)[1:]
    finally:
        gate.set()
        await running
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == ["an answer to the first question"]
    assert transport.texts_to(ben)[1:] == ["an answer to the second question"]
    assert transport.texts_to(cy)[1:] == [STOPPED]  # the words before STOP go unanswered
