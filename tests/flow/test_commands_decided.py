"""What STOP, START and HELP decide, on an in-memory context (tests/flow/in_memory.py): the
replies, the participant's status and the consent change, with no model asked. The whole path
(the ledger, the transcript, the outbox) is tests/flow/test_commands.py's."""

from __future__ import annotations

import pytest

from promptpipe.domain.consent import ConsentKind, ConsentSource
from promptpipe.domain.states import Status
from promptpipe.flow.commands import ALREADY_ACTIVE, HELP_TEXT, PAUSED_BY_TEAM, PAUSED_HINT, RESUMED, STOPPED
from tests.flow.in_memory import Decider, participant
from tests.flow.test_opt_out_phrases import WJ, ZWJ, ZWSP

OPTED_OUT = [(ConsentKind.OPTED_OUT, ConsentSource.PARTICIPANT)]


@pytest.mark.parametrize("words", ["Stop please", "Stop?", "stop 🙏", "ＳＴＯＰ", "unsubscribe", "stop texting me",
                                   f"S{ZWSP}T{ZWJ}O{WJ}P\nSTOP"])
async def test_opt_out_in_the_words_people_use_needs_no_model(words: str) -> None:
    """Defect 6: these reached the model, which could not pause anyone (nor could a STOP hidden
    by zero-width characters)."""
    decided = await Decider().messages(participant(), words)
    assert decided.replies == [STOPPED]
    assert (decided.state.status, decided.state.paused_by, decided.state.opted_out) == (
        Status.PAUSED, "participant", True)
    assert decided.consent == OPTED_OUT


async def test_help_works_in_any_state_and_start_when_active_says_so() -> None:
    decider, ana = Decider(), participant()
    assert (await decider.messages(ana, "HELP")).replies == [HELP_TEXT]
    assert (await decider.messages(ana, "resume")).replies == [ALREADY_ACTIVE]
    assert (await decider.messages(ana, "STOP")).replies == [STOPPED]
    assert (await decider.messages(ana, "Help")).replies == [HELP_TEXT]
    assert ana.status == Status.PAUSED  # help changes nothing
    assert (await decider.messages(ana, "are you still there?")).replies == [PAUSED_HINT]


async def test_the_latest_command_wins_when_messages_arrive_together() -> None:
    decided = await Decider().messages(participant(), "I'm tired of this", "STOP")
    assert decided.replies == [STOPPED]
    assert decided.state.status == Status.PAUSED


async def test_words_after_stop_are_kept_not_answered() -> None:
    """Defect 4: STOP folded with a later message; the message is kept, not answered, and STOP holds."""
    decided = await Decider().messages(participant(), "STOP", "sorry wrong chat, please keep sending")
    assert decided.replies == [STOPPED]
    assert [row.id for row in decided.outcome.kept] == [2]
    assert decided.state.status == Status.PAUSED


async def test_researcher_pause_cannot_be_lifted_by_the_participant() -> None:
    paused = participant(Status.PAUSED, paused_by="researcher", researcher_paused=True)
    decided = await Decider().messages(paused, "START")
    assert decided.replies == [PAUSED_BY_TEAM]
    assert decided.state.status == Status.PAUSED and decided.state.researcher_paused
    assert decided.outcome.kept == []  # their START is answered, not set aside


async def test_start_lifts_the_participants_own_stop() -> None:
    stopped = participant(Status.PAUSED, paused_by="participant", opted_out=True)
    decided = await Decider().messages(stopped, "START")
    assert decided.replies == [RESUMED]
    assert (decided.state.status, decided.state.opted_out) == (Status.ACTIVE, False)
    assert decided.consent == [(ConsentKind.OPTED_IN, ConsentSource.PARTICIPANT)]
