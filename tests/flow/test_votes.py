"""Poll votes are events the server handles: counted once, changed, withdrawn, outdated."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from promptpipe.domain.polls import POLL_OPTIONS
from promptpipe.flow import intensity, votes
from promptpipe.research import admin
from promptpipe.transport.base import PollVote, poll_option_hash
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, deliveries, polls, prompted, vote
from tests.research.test_admin_cli import run_admin
from tests.schedule_helpers import NUDGE, at

DONE, NOT_THIS_TIME = POLL_OPTIONS


async def counters(app) -> dict:  # type: ignore[no-untyped-def,type-arg]
    return (await admin.show(app.db, ANA)).counters


async def handled_as(app) -> list[str]:  # type: ignore[no-untyped-def]
    rows = await admin.transcript(app.db, ANA)
    return [row.payload["handled_as"] for row in rows if "handled_as" in row.payload]


async def test_a_changed_vote_replaces_the_first_and_never_counts_twice(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    poll = polls(transport)[-1]
    await vote(app, transport, poll, DONE)
    await vote(app, transport, poll, DONE)  # the same vote again: nothing new to say
    await vote(app, transport, poll, NOT_THIS_TIME)
    assert transport.texts_to(ANA)[-2:] == [votes.FIRST_REPLY["done"], votes.CHANGED_REPLY["not_this_time"]]
    now = await counters(app)
    assert (now["successes"], now["misses"], now["current_streak"]) == (0, 1, 0)
    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_changes) == ("not_this_time", 1)
    assert await handled_as(app) == ["counted", "repeated", "changed"]
    fake_openai.assert_complete()


async def test_a_withdrawn_vote_takes_its_count_back(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, _pid = await prompted(make_app, fake_openai)
    poll = polls(transport)[-1]
    await vote(app, transport, poll, DONE)
    assert (await counters(app))["successes"] == 1
    await vote(app, transport, poll)  # WhatsApp sends an empty selection
    assert transport.texts_to(ANA)[-1] == votes.WITHDRAWN_REPLY
    now = await counters(app)
    assert (now["successes"], now["current_streak"], now["last_success_date"]) == (0, 0, None)
    await vote(app, transport, poll, DONE)  # and voting again counts once
    assert (await counters(app))["successes"] == 1
    assert transport.texts_to(ANA)[-1] == votes.FIRST_REPLY["done"]
    fake_openai.assert_complete()


async def test_a_vote_on_an_older_poll_is_recorded_and_answered_as_outdated(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    monday_poll, tuesday_poll = polls(transport)
    await vote(app, transport, monday_poll, DONE)
    assert transport.texts_to(ANA)[-1] == votes.OUTDATED_REPLY.format(day="Monday 5 January")
    assert (await counters(app))["successes"] == 0
    assert [d.vote for d in await deliveries(app, pid)] == [None, None]
    rows = await admin.transcript(app.db, ANA)
    assert rows[-2].text == "(poll vote: Done)" and rows[-2].payload["handled_as"] == "outdated"

    await vote(app, transport, tuesday_poll, DONE)
    now = await counters(app)
    assert (now["successes"], now["current_streak"], now["last_success_date"]) == (1, 1, "2026-01-06")
    fake_openai.assert_complete()


async def test_votes_that_arrive_together_end_with_the_last_one(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    poll = polls(transport)[-1]
    for options in ((DONE,), (NOT_THIS_TIME,), (DONE,)):  # three taps before the service gets to them
        await transport.inject(ANA, "", vote=PollVote(poll, tuple(poll_option_hash(o) for o in options)))
    await app.run_until_idle()
    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_changes) == ("done", 2)
    now = await counters(app)
    assert (now["successes"], now["misses"]) == (1, 0)
    fake_openai.assert_complete()


async def test_streaks_count_days_with_a_done_and_a_miss_breaks_them(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await prompted(make_app, fake_openai)
    outcomes = [DONE, DONE, NOT_THIS_TIME, DONE]
    for day, option in enumerate(outcomes):
        if day:
            fake_openai.say(NUDGE, match="scheduled daily nudge")
            await at(app, MONDAY_PROMPT + DAY * day)
        await vote(app, transport, polls(transport)[-1], option)
    now = await counters(app)
    assert (now["prompts_sent"], now["successes"], now["misses"]) == (4, 3, 1)
    assert (now["current_streak"], now["best_streak"]) == (1, 2)
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY * 4)  # Friday's prompt, not answered yet: the streak holds
    assert (await counters(app))["current_streak"] == 1
    fake_openai.assert_complete()


async def test_intensity_votes_change_from_where_the_poll_started(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await prompted(make_app, fake_openai, INTENSITY_POLL_ENABLED="on")
    poll = polls(transport, intensity.QUESTION)[-1]
    await vote(app, transport, poll, intensity.MORE)
    assert (await admin.show(app.db, ANA)).intensity == "high"
    await vote(app, transport, poll, intensity.LESS)  # changed their mind: one step below where it started
    assert (await admin.show(app.db, ANA)).intensity == "low"
    await vote(app, transport, poll)  # withdrawn: back where it started
    assert (await admin.show(app.db, ANA)).intensity == "normal"
    assert transport.texts_to(ANA)[-1] == intensity.WITHDRAWN_REPLY

    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    await vote(app, transport, poll, intensity.MORE)  # Monday's poll, after Tuesday's went out
    assert transport.texts_to(ANA)[-1] == intensity.OUTDATED_REPLY
    assert (await admin.show(app.db, ANA)).intensity == "normal"
    fake_openai.assert_complete()


async def test_the_admin_script_shows_the_counters(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    app, transport, _ = await prompted(make_app, fake_openai)
    await vote(app, transport, polls(transport)[-1], DONE)
    capsys.readouterr()
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "show", "--phone", ANA)
    assert code == 0
    assert "counters:\n  prompts_sent: 1\n  successes: 1\n  misses: 0\n  current_streak: 1\n" in out
    assert "  last_success_date: 2026-01-05\n  last_miss_date: -\n" in out
