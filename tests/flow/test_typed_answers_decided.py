"""Typed answers to the "did you do it?" poll, decided on an in-memory context
(tests/flow/in_memory.py): which words count as a vote and which reply they get, without the
model. The whole path (the delivery's vote, the transcript's note, what the phone receives) is
tests/flow/test_typed_answers.py's."""

from __future__ import annotations

import pytest

from promptpipe.domain.polls import AMBIGUOUS_REPLY, DONE_PURPOSE, POLL_OPTIONS, OpenPoll
from promptpipe.flow import intensity, votes
from promptpipe.pipeline.turn_writes import MessageNote, VoteSet
from promptpipe.storage.deliveries import VoteTarget
from tests.flow.in_memory import Decided, Decider, ScriptedModel, participant

DONE, NOT_THIS_TIME = POLL_OPTIONS
POLL_ID, DELIVERY_ID = 70, 7
TODAY = VoteTarget(delivery_id=DELIVERY_ID, local_date="2026-11-30", vote=None, is_latest=True)


def daily_poll(*, moved_on: bool = False, same_day: bool = True) -> OpenPoll:
    return OpenPoll(DONE_PURPOSE, POLL_ID, POLL_OPTIONS, chosen=None, moved_on=moved_on, same_day=same_day)


def votes_set(decided: Decided) -> list[tuple[int, str | None, str]]:
    return [(w.delivery_id, w.vote, w.source) for w in decided.outcome.writes if isinstance(w, VoteSet)]


def handled_as(decided: Decided) -> list[object]:
    return [w.fields["handled_as"] for w in decided.outcome.writes if isinstance(w, MessageNote)]


@pytest.mark.parametrize(("typed", "vote_given"), [
    ("Done", "done"), ("done.", "done"), ("1", "done"), ("yes", "done"), ("👍🏽", "done"), ("✅", "done"),
    ("Not this time!", "not_this_time"), ("2", "not_this_time"), ("no", "not_this_time"), ("❌", "not_this_time"),
    ("👎", "not_this_time"), ("not today", "not_this_time"),
])
async def test_a_typed_answer_counts_like_a_tap_without_the_model(typed: str, vote_given: str) -> None:
    decided = await Decider().messages(participant(), typed, polls=[daily_poll()], targets={POLL_ID: TODAY})
    assert decided.replies == [votes.FIRST_REPLY[vote_given]]
    assert votes_set(decided) == [(DELIVERY_ID, vote_given, "typed")]
    assert handled_as(decided) == ["counted"]


@pytest.mark.parametrize(("typed", "counts"), [("yes", False), ("1", False), ("Done", True), ("not this time", True)])
async def test_once_we_asked_something_else_only_the_polls_own_words_count(typed: str, counts: bool) -> None:
    model = ScriptedModel("Great, 7:30 it is.")
    decided = await Decider(model).messages(participant(), typed, polls=[daily_poll(moved_on=True)],
                                            targets={POLL_ID: TODAY})
    assert bool(votes_set(decided)) is counts
    assert model.asked == (0 if counts else 1)


async def test_a_done_quoting_nothing_on_a_later_day_is_for_the_model() -> None:
    model = ScriptedModel("Nice one! Was today's easier?")
    decided = await Decider(model).messages(participant(), "done", polls=[daily_poll(same_day=False)],
                                            targets={POLL_ID: TODAY})
    assert decided.replies == ["Nice one! Was today's easier?"] and votes_set(decided) == []


async def test_a_number_that_fits_two_open_polls_gets_a_question_back() -> None:
    lighter = OpenPoll(intensity.PURPOSE, POLL_ID + 1, (intensity.LESS, intensity.SAME, intensity.MORE), chosen=None,
                       moved_on=False)
    both = [daily_poll(), lighter]
    decided = await Decider().messages(participant(), "1", polls=both, targets={POLL_ID: TODAY})
    assert decided.replies == [AMBIGUOUS_REPLY.format(first=DONE, second=intensity.LESS)]
    assert votes_set(decided) == [] and handled_as(decided) == ["ambiguous"]
