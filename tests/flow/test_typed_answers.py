"""Every way a participant answers a poll counts: typed words, numbers, yes/no and emoji, a
reaction on the poll, and a swipe reply to an older day's prompt."""

from __future__ import annotations

from datetime import timedelta

import pytest

from promptpipe.domain.polls import AMBIGUOUS_REPLY, POLL_OPTIONS
from promptpipe.flow import intensity, votes
from promptpipe.research import admin
from promptpipe.research.views import MessageView
from promptpipe.transport.base import Reaction
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, deliveries, polls, prompted, vote
from tests.schedule_helpers import NUDGE, at

DONE, NOT_THIS_TIME = POLL_OPTIONS


async def inbound(app) -> list[MessageView]:  # type: ignore[no-untyped-def]
    return [row for row in await admin.transcript(app.db, ANA) if row.direction == "in"]


def sent_id(transport, text: str) -> str:  # type: ignore[no-untyped-def]
    return [item.message_id for item in transport.sent if item.text == text][-1]


async def say(app, transport, text: str, **extra) -> None:  # type: ignore[no-untyped-def]
    await transport.inject(ANA, text, **extra)
    await app.run_until_idle()


@pytest.mark.parametrize(("typed", "vote_given"), [("1", "done"), ("not today", "not_this_time")])
async def test_a_typed_answer_counts_like_a_tap_without_the_model(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, typed: str, vote_given: str,
) -> None:
    """The whole path of two; every way of typing an answer is decided in test_typed_answers_decided.py."""
    app, transport, pid = await prompted(make_app, fake_openai)

    await say(app, transport, typed)

    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_source) == (vote_given, "typed")
    assert transport.texts_to(ANA)[-1] == votes.FIRST_REPLY[vote_given]
    answer = (await inbound(app))[-1]
    assert (answer.text, answer.payload["handled_as"], answer.payload["vote_source"]) == (
        typed, "counted", "typed")
    assert (await admin.show(app.db, ANA)).sub_state == "FEEDBACK"
    fake_openai.assert_complete()  # no model call


async def test_a_typed_answer_changes_a_tapped_vote_and_a_repeat_goes_to_the_model(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    await vote(app, transport, polls(transport)[-1], NOT_THIS_TIME)

    await say(app, transport, "done")  # the option's own words count even after our reply
    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_source, delivery.vote_changes) == ("done", "typed", 1)
    assert transport.texts_to(ANA)[-1] == votes.CHANGED_REPLY["done"]

    fake_openai.say("Yes, noted as done. How did it feel?", match="done")
    await say(app, transport, "Done")  # it already says done: the participant is talking
    assert transport.texts_to(ANA)[-1] == "Yes, noted as done. How did it feel?"
    fake_openai.assert_complete()


async def test_a_longer_message_is_for_the_model(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    fake_openai.say("Lovely! What made it easy?", match="done, and it felt great")

    await say(app, transport, "done, and it felt great")

    [delivery] = await deliveries(app, pid)
    assert delivery.vote is None and delivery.replied_at is not None
    fake_openai.assert_complete()


async def test_numbers_and_yes_stop_counting_once_we_asked_something_else(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    fake_openai.say("Would you like me to move your nudge to 7:30?", match="can we talk about the time")
    await say(app, transport, "can we talk about the time")
    fake_openai.call_tool("scheduler", {"action": "list"}, match='"yes"')
    fake_openai.say("Done, 7:30 it is.", match='"yes"')

    await say(app, transport, "yes")  # answers our question, not the poll

    [delivery] = await deliveries(app, pid)
    assert delivery.vote is None
    await say(app, transport, "Done")  # the poll's own words still answer it
    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_source) == ("done", "typed")
    fake_openai.assert_complete()


async def test_a_typed_answer_after_its_lifetime_is_just_a_message(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai, TYPED_ANSWER_WINDOW="2h")
    await at(app, MONDAY_PROMPT + timedelta(hours=3))
    fake_openai.say("Thanks for letting me know!", match="done")

    await say(app, transport, "done")

    [delivery] = await deliveries(app, pid)
    assert delivery.vote is None
    await vote(app, transport, polls(transport)[-1], DONE)  # a tap still counts until the next prompt
    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_source) == ("done", "tap")
    fake_openai.assert_complete()


async def test_a_number_that_fits_two_open_polls_gets_a_question_back(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai, INTENSITY_POLL_ENABLED="on")

    await say(app, transport, "1")

    assert transport.texts_to(ANA)[-1] == AMBIGUOUS_REPLY.format(first=DONE, second=intensity.LESS)
    [delivery] = await deliveries(app, pid)
    assert delivery.vote is None and (await admin.show(app.db, ANA)).intensity == "normal"
    assert (await inbound(app))[-1].payload["handled_as"] == "ambiguous"

    intensity_poll = polls(transport, intensity.QUESTION)[-1]
    await say(app, transport, "1", quoted_message_id=intensity_poll)  # a swipe reply to the poll says which
    assert (await admin.show(app.db, ANA)).intensity == "low"
    assert transport.texts_to(ANA)[-1] == intensity.ACKS[intensity.LESS]
    await say(app, transport, "just right")  # its words need no quote
    assert (await admin.show(app.db, ANA)).intensity == "normal"
    fake_openai.assert_complete()


async def test_a_typed_answer_and_words_sent_together_are_a_vote_then_feedback(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    fake_openai.say("Coffee as the cue works for you, great.", match="the coffee helped")

    await transport.inject(ANA, "done")
    await transport.inject(ANA, "the coffee helped")
    await app.run_until_idle()

    [delivery] = await deliveries(app, pid)
    assert delivery.vote == "done"
    assert transport.texts_to(ANA)[-2:] == [votes.FIRST_REPLY["done"], "Coffee as the cue works for you, great."]
    assert (await admin.show(app.db, ANA)).sub_state == "FEEDBACK"  # the words went to the feedback module
    fake_openai.assert_complete()


async def test_a_thumbs_up_on_the_poll_counts_and_on_the_prompt_reaches_the_model(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    poll = polls(transport)[-1]

    await say(app, transport, "", reaction=Reaction(poll, "👍"))
    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_source) == ("done", "reaction")
    assert transport.texts_to(ANA)[-1] == votes.FIRST_REPLY["done"]

    fake_openai.say("Glad you liked that one!", match="[reacted ❤️ to your daily prompt of Monday 5 January")
    await say(app, transport, "", reaction=Reaction(sent_id(transport, NUDGE), "❤️"))
    assert transport.texts_to(ANA)[-1] == "Glad you liked that one!"
    rows = await inbound(app)
    assert [row.kind for row in rows] == ["reaction", "reaction"]
    assert rows[-1].payload["emoji"] == "❤️" and rows[-1].status == "answered"
    fake_openai.assert_complete()


async def test_other_reactions_are_kept_without_an_answer(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    sent_before = len(transport.sent)

    await say(app, transport, "", reaction=Reaction(sent_id(transport, "Welcome Ana!"), "❤️"))
    await say(app, transport, "", reaction=Reaction(polls(transport)[-1], ""))  # a reaction taken back
    await say(app, transport, "", reaction=Reaction("not-one-of-ours", "😂"))

    assert len(transport.sent) == sent_before
    rows = await inbound(app)
    assert [(row.kind, row.status) for row in rows] == [("reaction", "kept")] * 3
    assert rows[1].text == "(reaction taken back)"
    [delivery] = await deliveries(app, pid)
    assert delivery.vote is None
    fake_openai.assert_complete()


async def test_a_swipe_reply_to_an_older_prompt_is_feedback_on_that_day(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    monday_prompt = sent_id(transport, NUDGE)
    tuesday_nudge = "After your coffee, reach for the ceiling twice."
    fake_openai.say(tuesday_nudge, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    fake_openai.say("Ah, Monday's worked, good to know.",
                    match="[in reply to your daily prompt of Monday 5 January, an earlier day: \\\"After your")

    await say(app, transport, "this one was easy", quoted_message_id=monday_prompt)

    monday, tuesday = await deliveries(app, pid)
    assert monday.replied_at is not None and tuesday.replied_at is None
    assert transport.texts_to(ANA)[-1] == "Ah, Monday's worked, good to know."
    row = (await inbound(app))[-1]
    assert (row.text, row.payload["quoted_message_id"]) == ("this one was easy", monday_prompt)
    fake_openai.assert_complete()


async def test_typed_answers_and_their_source_reach_the_export(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path,  # type: ignore[no-untyped-def]
) -> None:
    import csv

    from promptpipe.export.files import ExportOptions, export_study

    app, transport, _pid = await prompted(make_app, fake_openai)
    await say(app, transport, "yes")
    await export_study(app.db, tmp_path / "out",
                       ExportOptions(fmt="csv", force=False, include_identifiers=False, now=app.clock.now()))

    with open(tmp_path / "out" / "deliveries.csv", encoding="utf-8") as fh:
        [delivery] = list(csv.DictReader(fh))
    assert (delivery["vote"], delivery["vote_source"], delivery["outcome"]) == ("done", "typed", "done")
    with open(tmp_path / "out" / "messages.csv", encoding="utf-8") as fh:
        typed = [row for row in csv.DictReader(fh) if row["direction"] == "in"][-1]
    assert (typed["vote_chosen"], typed["vote_source"], typed["handled_as"]) == ("Done", "typed", "counted")


async def test_a_typed_answer_the_next_day_is_not_credited_to_yesterdays_prompt(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """On a day with no prompt (yet), "done" is about today, not about Monday: it goes to the
    model, and Monday's decision keeps no vote. Quoting Monday's poll still answers it."""
    app, transport, pid = await prompted(make_app, fake_openai)
    await at(app, MONDAY_PROMPT + DAY - timedelta(hours=2))  # Tuesday 05:50 in Toronto, before its prompt
    fake_openai.say("Nice, well done today!", match="done")
    await say(app, transport, "done")
    [monday] = await deliveries(app, pid)
    assert monday.vote is None
    assert transport.texts_to(ANA)[-1] == "Nice, well done today!"

    await say(app, transport, "done", quoted_message_id=polls(transport)[-1])
    [monday] = await deliveries(app, pid)
    assert (monday.vote, monday.vote_source) == ("done", "typed")
    fake_openai.assert_complete()
