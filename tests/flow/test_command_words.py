"""Issue 46, 4 and 5: answers before commands where the study asks a question, words that are
ordinary in a study, one-word stop words asked about first in the middle of a conversation, and
STOP, START and HELP in every language the study knows, answered in the participant's language."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from promptpipe.domain.command_words import Reply, command_words
from promptpipe.flow.commands import CONFIRM_STOP, CONVERSATION_WINDOW, STOPPED, as_command
from promptpipe.questionnaires.operations import send_questionnaire
from promptpipe.research import admin, oversight
from promptpipe.study.rules.file import StudyFileError, parse_study
from promptpipe.study.rules.words import word_warnings
from promptpipe.study.store.tables import QuestionnaireAnswer
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA
from tests.flow.test_commands import ANA as ANA_UTC
from tests.flow.test_commands import send, started
from tests.study_helpers import in_study

WORDS = command_words()


async def answers(app, instance_id: int) -> list:  # type: ignore[no-untyped-def,type-arg]
    def read(session):  # type: ignore[no-untyped-def]
        return list(session.execute(sa.select(QuestionnaireAnswer).where(
            QuestionnaireAnswer.instance_id == instance_id)).scalars())
    return await app.db.run(read)

SMOKING = '''name = "Quit smoking pilot"
length_days = 10
{ordinary}
[[questionnaires]]
id = "week"
title = "Weekly check"
intro = "One question about your week."
closing = "Thanks!"
send = {{ study_days = [9], at = "19:00" }}
open_for = "2h"

[[questionnaires.items]]
id = "status"
text = "Where are you with smoking?"
type = "single_choice"
options = ["Still smoking", "Cutting down", "I quit"]
'''


async def test_an_option_that_spells_a_command_is_the_answer_inside_the_questionnaire(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, SMOKING.format(ordinary=""))
    sent = await send_questionnaire(app.db, app.clock, app.settings.study, phone=ANA, questionnaire_id="week")
    await app.run_until_idle()
    await transport.inject(ANA, "I quit!")
    await app.run_until_idle()

    show = await admin.show(app.db, ANA)
    assert show.status == "active" and STOPPED not in transport.texts_to(ANA)
    assert [e.event for e in (await oversight.consent(app.db, ANA)).events] == ["enrolled"]
    assert transport.texts_to(ANA)[-1] == "Thanks!"
    [answer] = await answers(app, sent.instance_id)
    assert (answer.item_id, answer.coded) == ("status", "3")


async def test_a_study_word_gets_a_question_instead_of_an_opt_out_and_stop_still_stops(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, SMOKING.format(ordinary='ordinary_words = ["quit"]'))
    app.clock.advance(CONVERSATION_WINDOW + timedelta(hours=1))  # not in the middle of a conversation
    await transport.inject(ANA, "I quit!")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == CONFIRM_STOP
    assert (await admin.show(app.db, ANA)).status == "active"

    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == STOPPED
    assert (await admin.show(app.db, ANA)).paused_by == "participant"


@pytest.mark.parametrize("word", ["quit", "para"])
async def test_a_one_word_stop_word_in_the_middle_of_a_conversation_is_asked_about_first(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, word: str
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai)
    fake_openai.say("Good morning! How did yesterday go?")
    await transport.inject(ANA, "morning")  # the coach has just answered
    await app.run_until_idle()
    await transport.inject(ANA, word)
    await app.run_until_idle()
    said = WORDS.said(word.lower())
    assert said is not None
    assert transport.texts_to(ANA)[-1] == WORDS.reply(Reply.CONFIRM_STOP, WORDS.language(said, None))
    assert (await admin.show(app.db, ANA)).status == "active"

    app.clock.advance(CONVERSATION_WINDOW)  # hours later, out of the blue, it means stop
    await transport.inject(ANA, word)
    await app.run_until_idle()
    assert (await admin.show(app.db, ANA)).paused_by == "participant"


async def test_help_in_another_language_is_answered_in_that_language(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """The whole path of one; the other languages are decided in test_words_decided.py."""
    app, transport = await started(make_app, fake_openai)
    assert await send(app, transport, "Hilfe") == WORDS.reply(Reply.HELP, "de")


async def test_a_participant_who_stopped_in_spanish_is_answered_in_spanish_afterwards(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    assert await send(app, transport, "darme de baja") == WORDS.reply(Reply.STOPPED, "es")
    assert await send(app, transport, "STOP") == WORDS.reply(Reply.ALREADY_STOPPED, "es")  # "stop" is many languages'
    assert await send(app, transport, "START") == WORDS.reply(Reply.RESUMED, "es")
    assert (await admin.show(app.db, ANA_UTC)).status == "active"


@pytest.mark.parametrize("text", ["Parem", "cancelar", "sair", "aufhören", "Aufhoren", "sluta", "lopeta", "sтop",
                                  "SТOP", "ѕтор"])
def test_the_wordings_that_were_missed_are_stop_words(text: str) -> None:
    assert as_command(text) == "STOP"


@pytest.mark.parametrize("text", ["empezar", "reanudar", "Starten", "commencer", "começar", "начать"])
def test_start_in_other_languages(text: str) -> None:
    assert as_command(text) == "START"


def test_study_check_warns_where_an_option_is_a_command_and_refuses_a_standard_word_as_ordinary() -> None:
    study = parse_study(SMOKING.format(ordinary="").encode())
    [warning] = word_warnings(study)
    assert 'item status: the option "I quit" is also an opt-out (STOP)' in warning
    assert 'list "quit" in ordinary_words' in warning

    with pytest.raises(StudyFileError, match="is a standard opt-out word") as refused:
        parse_study(SMOKING.format(ordinary='ordinary_words = ["stop", "unsubscribe"]').encode())
    assert len(refused.value.problems) == 2
