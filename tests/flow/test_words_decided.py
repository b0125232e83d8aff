"""What a participant's words decide before any model, on an in-memory context
(tests/flow/in_memory.py): stop words and HELP in other languages and the reply's language, the
one-word stop words asked about first in the middle of a conversation, putting intake on hold, and
the crisis screen. The whole
path of each (the ledger, the transcript, the outbox, the flag's alert) is tested through the
service in tests/flow/test_command_words.py and tests/flow/test_safety.py."""

from __future__ import annotations

from datetime import timedelta

import pytest

from promptpipe.domain.command_words import Reply, command_words
from promptpipe.domain.consent import ConsentKind, ConsentSource
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.safety import DEFAULT_SAFETY_MESSAGE, CrisisScreen, FlagSource
from promptpipe.domain.states import Stage, Status
from promptpipe.flow.commands import CONFIRM_STOP, CONVERSATION_WINDOW, HELP_TEXT, STOPPED
from promptpipe.flow.lifecycle import INTAKE_ON_HOLD
from promptpipe.flow.turn import SafetyConfig
from tests.flow.in_memory import Decider, participant

WORDS = command_words()
SCREEN = SafetyConfig(screen=CrisisScreen.load())


@pytest.mark.parametrize(("words", "language"), [("keine Nachrichten mehr", "de"), ("arrêtez svp", "fr"),
                                                 ("отпишите меня", "ru"), ("配信停止", "ja")])
async def test_a_stop_in_another_language_is_answered_in_it_and_remembered(words: str, language: str) -> None:
    decider, ana = Decider(), participant()
    stopped = await decider.messages(ana, words)
    assert stopped.replies == [WORDS.reply(Reply.STOPPED, language)] != [STOPPED]
    assert (ana.status, ana.opted_out, ana.profile.record.language) == (Status.PAUSED, True, language)
    assert stopped.consent == [(ConsentKind.OPTED_OUT, ConsentSource.PARTICIPANT)]
    # A command with no language of its own (HELP) is answered in the one they used last.
    assert (await decider.messages(ana, "HELP")).replies == [WORDS.reply(Reply.HELP, language)] != [HELP_TEXT]


async def test_words_shared_by_two_languages_are_answered_in_the_first_and_change_no_known_language() -> None:
    ana = participant()
    assert (await Decider().messages(ana, "Stopp bitte")).replies == [WORDS.reply(Reply.STOPPED, "de")]
    assert (ana.status, ana.profile.record.language) == (Status.PAUSED, None)


@pytest.mark.parametrize(("words", "language"), [("quit", "en"), ("basta", "es"), ("end", "en")])
async def test_a_one_word_stop_in_the_middle_of_intake_is_asked_about_first(words: str, language: str) -> None:
    ana = participant(stage=Stage.INTAKE)
    decided = await Decider().messages(ana, words)
    assert decided.replies == [WORDS.reply(Reply.CONFIRM_STOP, language)]
    assert (ana.status, ana.opted_out, decided.consent) == (Status.ACTIVE, False, [])


async def test_a_one_word_stop_asks_first_only_while_the_conversation_is_recent() -> None:
    decider = Decider()
    ana = participant()
    ana.profile.record.last_turn_at = (decider.clock.now() - timedelta(minutes=30)).isoformat()
    assert (await decider.messages(ana, "quit")).replies == [CONFIRM_STOP]
    assert ana.status == Status.ACTIVE

    decider.clock.advance(CONVERSATION_WINDOW)  # the last turn is now two and a half hours old
    decided = await decider.messages(ana, "quit")
    assert decided.replies == [STOPPED]
    assert (ana.status, ana.opted_out) == (Status.PAUSED, True)


async def test_a_standard_stop_stops_at_once_even_in_the_middle_of_intake() -> None:
    ana = participant(stage=Stage.INTAKE)
    assert (await Decider().messages(ana, "STOP")).replies == [STOPPED]
    assert ana.status == Status.PAUSED


@pytest.mark.parametrize("ana", [participant(), participant(Status.PAUSED, paused_by="participant", opted_out=True)],
                         ids=["active", "opted out"])
async def test_crisis_words_get_the_safety_message_and_a_flag_before_any_model(ana: TurnState) -> None:
    """Whatever their status; the batch then runs again, so what else they wrote is still answered."""
    decided = await Decider(safety=SCREEN).messages(ana, "walked a bit", "some nights I want to hurt myself")
    [message] = decided.outcome.outgoing
    assert (message.text, message.kind) == (DEFAULT_SAFETY_MESSAGE, MessageKind.SAFETY)
    [flag] = decided.outcome.flags
    assert (flag.source, flag.severity, flag.trigger, flag.message_id) == (FlagSource.SCREEN, "high", "hurt myself", 2)
    assert decided.outcome.again and decided.outcome.answered == []


async def test_words_that_only_sound_alarming_raise_no_flag() -> None:
    decided = await Decider(safety=SCREEN).messages(participant(Status.PAUSED, paused_by="participant",
                                                                 opted_out=True), "this habit is killing me lol")
    assert decided.outcome.flags == []
    assert all(message.kind != MessageKind.SAFETY for message in decided.outcome.outgoing)


@pytest.mark.parametrize(("text", "language"), [
    ("ayuda", "es"), ("Hilfe", "de"), ("aide", "fr"), ("ajuda", "pt"), ("помощь", "ru"), ("hjälp", "sv")])
async def test_help_in_other_languages_is_answered_in_that_language(text: str, language: str) -> None:
    assert (await Decider().messages(participant(), text)).replies == [WORDS.reply(Reply.HELP, language)] != [HELP_TEXT]


@pytest.mark.parametrize("words", ["later", "Not now, thanks!", "cancel", "Never mind", "stop asking",
                                   "maybe later 🙂", "I'm busy", "ok, another time"])
async def test_an_escape_phrase_puts_intake_on_hold_without_the_model(words: str) -> None:
    ana = participant(stage=Stage.INTAKE)
    assert (await Decider().messages(ana, words)).replies == [INTAKE_ON_HOLD]
    assert (ana.status, ana.sub_state, ana.opted_out) == (Status.ACTIVE, Stage.INTAKE_SUSPENDED, False)
