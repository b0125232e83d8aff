"""reply_language: the coach answers in the language the participant writes; short messages are not judged."""

from __future__ import annotations

import pytest

from promptpipe.domain.states import Vote
from promptpipe.evaluation.judge import render_transcript
from promptpipe.evaluation.language_check import language_of
from promptpipe.evaluation.records import Verdict
from promptpipe.flow.votes import FIRST_REPLY
from tests.evaluation.test_checks import GOOD_PERSONA, persona, result, said, them

AT = 60 * 50


@pytest.mark.parametrize(("text", "code"), [
    ("Hoy no salí a caminar, estaba muy cansada del trabajo.", "es"),
    ("Hoje não consegui caminhar, estava muito cansada do trabalho.", "pt"),
    ("Great, keep up the streak! Did you manage your walk today?", "en"),
    ("ok", None),
    ("gracias!", None),
])
def test_languages_are_told_apart_and_short_messages_are_not_judged(text: str, code: str | None) -> None:
    assert language_of(text) == code


@pytest.mark.parametrize("text", ["Hoy no salí a caminar, estaba muy cansada del trabajo.",
                                  "Hoje não consegui caminhar, estava muito cansada do trabalho."])
def test_a_spanish_or_portuguese_speaker_answered_in_english_fails(text: str) -> None:
    conversation = persona(messages=(*GOOD_PERSONA, them(AT, text),
                                     said(AT + 1, "No worries at all, tomorrow is a fresh start for your walk.")))
    verdict, detail, evidence = result(conversation, "reply_language")
    assert verdict == Verdict.FAIL
    assert "in English while the participant writes" in detail and "fresh start" in evidence


def test_a_reply_in_their_language_passes_and_a_short_one_is_not_judged() -> None:
    spanish = them(AT, "Hoy no salí a caminar, estaba muy cansada del trabajo.")
    answered = persona(messages=(*GOOD_PERSONA, spanish,
                                 said(AT + 1, "No pasa nada, mañana es un nuevo día para tu paseo."),
                                 said(AT + 2, "Ok!")))
    assert result(answered, "reply_language")[0] == Verdict.PASS
    short = persona(messages=(*GOOD_PERSONA[:1], them(AT, "sí"), said(AT + 1, "Great, see you at seven then!")))
    assert result(short, "reply_language")[0] == Verdict.NOT_APPLICABLE


def test_the_latest_language_counts_when_they_switch() -> None:
    conversation = persona(messages=(*GOOD_PERSONA, them(AT, "Can we switch to Spanish? It is easier for me."),
                                     them(AT + 1, "Hoy no salí a caminar, estaba muy cansada del trabajo."),
                                     said(AT + 2, "Claro. No pasa nada, mañana es un nuevo día para tu paseo.")))
    assert result(conversation, "reply_language")[0] == Verdict.PASS


def test_the_services_fixed_answer_to_a_poll_tap_is_not_held_against_the_coach() -> None:
    """The thanks the service itself sends for a tapped poll is its text, not the coach's: a Spanish
    speaker who taps "done" and whom the coach answers in Spanish passes, and the judge reads that
    line as the service's."""
    conversation = persona(messages=(
        *GOOD_PERSONA, them(AT, "Hoy sí salí a caminar después de la cena con mi hermana."),
        said(AT + 1, "¡Qué bien! Caminar con tu hermana suena a una buena costumbre."),
        said(AT + 2, "done", incoming=True, kind="poll_vote", status="received"),
        said(AT + 3, FIRST_REPLY[Vote.DONE])))
    assert result(conversation, "reply_language")[0] == Verdict.PASS
    assert f"Study (the service's fixed reply to a tapped poll): {FIRST_REPLY[Vote.DONE]}" in \
        render_transcript(conversation)
