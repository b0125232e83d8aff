"""``reply_language``: the coach answers in the language the participant writes. Told by lingua (built for short texts),
asked only about the languages of ``commands.toml`` to keep its memory to a few hundred megabytes."""

from __future__ import annotations

import functools

from lingua import IsoCode639_1, Language, LanguageDetector, LanguageDetectorBuilder

from promptpipe.domain.command_words import command_words
from promptpipe.evaluation.conversation_checks import ANSWER_WINDOW, Context, Found, fail, na, ok

__all__ = ["MIN_WORDS", "language_of", "reply_language"]

MIN_WORDS = 5
"""Shorter messages carry too little to tell a language by ("ok", "no", "gracias!")."""
MIN_DISTANCE = 0.2
"""lingua's minimum relative distance: below it the message is not placed in any language, so not judged."""


@functools.cache
def _detector() -> LanguageDetector:
    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper()))
                 for code in command_words().names if hasattr(IsoCode639_1, code.upper())]
    return LanguageDetectorBuilder.from_languages(*languages).with_minimum_relative_distance(MIN_DISTANCE).build()



def language_of(text: str) -> str | None:
    """The ISO 639-1 code of the message's language (``es``), or None when it is too short or unclear."""
    if len(text.split()) < MIN_WORDS:
        return None
    found = _detector().detect_language_of(text)
    return found.iso_code_639_1.name.lower() if found is not None else None


def reply_language(c: Context) -> Found:
    """Every coach answer long enough to judge is in the language of their latest message long enough to judge."""
    messages = c.conversation.messages
    theirs: str | None = None
    last_written = None
    judged = 0
    coach = {id(said) for said in c.coach_messages()}
    for said in messages:
        if said.incoming:
            theirs, last_written = language_of(said.text) or theirs, said.at
            continue
        if theirs is None or last_written is None or id(said) not in coach or said.at > last_written + ANSWER_WINDOW:
            continue  # not an answer: the day's prompt is written apart from the conversation
        ours = language_of(said.text)
        if ours is None:
            continue
        judged += 1
        if ours != theirs:
            names = command_words().names
            return fail(f"A reply is in {names.get(ours, ours)} while the participant writes "
                        f"{names.get(theirs, theirs)}.", said)
    if not judged:
        return na("No reply came after a participant message long enough to tell its language.")
    return ok(f"All {judged} replies long enough to judge are in the participant's language.")
