"""The study file's words that meet the command words: ``ordinary_words`` and ``study check``'s warnings."""

from __future__ import annotations

from promptpipe.domain.command_words import Command, command_words
from promptpipe.domain.phrases import spoken
from promptpipe.study.rules.checks import Check, TomlTable, kind_of
from promptpipe.study.rules.protocol import Study

__all__ = ["ordinary_words", "word_warnings"]

MAX_ORDINARY_WORDS = 50


def ordinary_words(check: Check, table: TomlTable) -> frozenset[str]:
    """``ordinary_words = ["quit", "end"]``: single words, as a participant types them."""
    value = table.get("ordinary_words")
    if value is None:
        return frozenset()
    example = 'like ["quit"] in a quit-smoking study'
    if not isinstance(value, list) or not value or len(value) > MAX_ORDINARY_WORDS:
        check.add(f"ordinary_words must be a list of 1 to {MAX_ORDINARY_WORDS} words in quotes, {example}; it is "
                  f"{kind_of(value)}.")
        return frozenset()
    words: set[str] = set()
    table_of_words = command_words()
    for number, raw in enumerate(value, 1):
        word = spoken(raw) if isinstance(raw, str) else ""
        if not word or " " in word:
            check.add(f"ordinary_words[{number}] must be one word in quotes, {example}; it is {raw!r}.")
        elif table_of_words.standard(word):
            check.add(f"ordinary_words[{number}] = {raw!r} is a standard opt-out word: STOP, UNSUBSCRIBE and their "
                      "translations always stop messages at once, whatever the study; remove it.")
        else:
            words.add(word)
    return frozenset(words)


def word_warnings(study: Study) -> list[str]:
    """A questionnaire option that is also a command, and an ordinary word in no stop phrase."""
    table = command_words()
    warnings = []
    for questionnaire in study.questionnaires:
        for item in questionnaire.items:
            for option in item.options:
                said = table.said(spoken(option.label))
                if said is None:
                    continue
                what = {Command.STOP: "an opt-out (STOP)", Command.START: "START", Command.HELP: "HELP"}[said.command]
                advice = (f' or list "{said.phrase.split()[-1]}" in ordinary_words so it is asked about first'
                          if said.command is Command.STOP and not table.standard(said.phrase) else "")
                warnings.append(
                    f'questionnaire {questionnaire.id}, item {item.id}: the option "{option.label}" is also {what}. '
                    "Inside the questionnaire it is read as the answer, but typed at any other time it is the "
                    f"command: consider other words{advice}.")
    stop_words = {word for phrase in table.of(Command.STOP) for word in phrase.split()}
    for word in sorted(study.ordinary_words - stop_words):
        warnings.append(f'ordinary_words: "{word}" is in no stop phrase, so listing it changes nothing.')
    return warnings
