"""The table of command words and replies (promptpipe/data/commands.toml) holds together: every
language answers every command, a phrase means one thing everywhere, and every word a reply tells
the participant to type is understood."""

from __future__ import annotations

import re
import tomllib

import pytest

from promptpipe.domain.command_words import COMMAND_FILE, Command, Reply, command_words, parse
from promptpipe.domain.phrases import spoken

WORDS = command_words()
TABLE = tomllib.loads(COMMAND_FILE.read_text(encoding="utf-8"))


def test_the_languages_the_study_answers_in() -> None:
    assert set(WORDS.replies) >= {"en", "es", "pt", "fr", "de", "it", "nl", "sv", "fi", "ru", "zh", "ja", "ko", "ar"}


@pytest.mark.parametrize("language", sorted(TABLE))
def test_every_language_has_stop_start_and_help_and_every_reply(language: str) -> None:
    for command in Command:
        assert any(language in said.languages for said in WORDS.phrases.values() if said.command is command)
    assert set(WORDS.replies[language]) == set(Reply)


def test_each_phrase_is_written_as_a_message_of_it_is_matched() -> None:
    """Lower case, no punctuation, no politeness word at either end: else it could never match."""
    unreachable = [phrase for phrase in WORDS.phrases if spoken(phrase) != phrase]
    assert unreachable == []


@pytest.mark.parametrize("language", sorted(TABLE))
def test_every_word_a_reply_asks_for_is_understood_in_that_language(language: str) -> None:
    known = {phrase for phrase, said in WORDS.phrases.items() if {language, "en"} & set(said.languages)}
    for key in Reply:
        text = WORDS.reply(key, language)
        asked = [word for word in re.findall(r"\b[^\W\d_]{2,}\b", text) if word.isupper()]
        assert [word for word in asked if word.casefold() not in known] == [], (language, key)


@pytest.mark.parametrize("language", sorted(TABLE))
def test_the_confirming_question_asks_for_a_word_that_stops_at_once(language: str) -> None:
    """Else a participant who answers it in the middle of a conversation would be asked again."""
    text = WORDS.reply(Reply.CONFIRM_STOP, language)
    asked = {word.casefold() for word in re.findall(r"\b[^\W\d_]{2,}\b", text) if word.isupper()}
    assert asked and all(WORDS.standard(word) for word in asked)


def test_a_phrase_that_means_two_commands_is_refused() -> None:
    broken = {"en": TABLE["en"], "xx": {**TABLE["es"], "help": ["stop"]}}
    with pytest.raises(ValueError, match="'stop' is help but already STOP"):
        parse(broken)


def test_a_language_without_one_of_the_replies_is_refused() -> None:
    replies = {key: text for key, text in TABLE["es"]["replies"].items() if key != "confirm_stop"}
    with pytest.raises(ValueError, match=r"\[xx.replies\] must have exactly the keys"):
        parse({"en": TABLE["en"], "xx": {**TABLE["es"], "replies": replies}})


def test_a_phrase_of_several_languages_is_answered_in_the_participants_own() -> None:
    stop = WORDS.said("stop")
    assert stop is not None and len(stop.languages) > 1
    assert WORDS.language(stop, None) == "en"
    assert WORDS.language(stop, "es") == "es"
    baja = WORDS.said("baja")
    assert baja is not None and WORDS.language(baja, "de") == "es"  # what they wrote, when it says
