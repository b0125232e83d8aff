"""The daily "did you do it?" poll, and answers typed (or reacted) instead of tapped: "done", "2", "yes" or 👍,
resolved without the model. What counts, and when, is the README's "Typed answers"; an answer that fits two open polls
equally is :class:`Ambiguous` (a short question back); anything else is a message for the model."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from promptpipe.domain.states import Vote

POLL_QUESTION = "Did you do it?"
POLL_OPTIONS = ("Done", "Not this time")
DONE, NOT_THIS_TIME = POLL_OPTIONS
DONE_PURPOSE = "done"
"""The "did you do it?" poll (its ``purpose`` in the poll's payload)."""
VOTE_BY_OPTION = {DONE: Vote.DONE, NOT_THIS_TIME: Vote.NOT_THIS_TIME}
OPTION_BY_VOTE: dict[str, str] = {vote: option for option, vote in VOTE_BY_OPTION.items()}

EQUIVALENTS: dict[str, tuple[str, ...]] = {
    DONE: ("yes", "y", "yep", "yeah", "yes i did", "i did", "did it", "✅", "✔", "☑", "👍"),
    NOT_THIS_TIME: ("no", "n", "nope", "not today", "no not today", "❌", "✖", "👎"),
}
"""What else answers the "did you do it?" poll, as normalised text (README: typed answers)."""

REACTION_ANSWERS: dict[str, str] = {"👍": DONE, "✅": DONE, "✔": DONE, "☑": DONE,
                                    "👎": NOT_THIS_TIME, "❌": NOT_THIS_TIME, "✖": NOT_THIS_TIME}
"""A reaction on the "did you do it?" poll that counts like a typed answer."""

AMBIGUOUS_REPLY = ("Which question is that for? Please tap your answer on the poll, or type its words, "
                   "for example \"{first}\" or \"{second}\".")

_MODIFIERS = re.compile("[\ufe0e\ufe0f\U0001f3fb-\U0001f3ff\u200d]")
"""Variation selectors, skin tones and joiners: 👍🏽 is 👍."""


def normalise(text: str) -> str:
    """Lower case, no punctuation, single spaces, emoji without skin tone or style."""
    text = _MODIFIERS.sub("", unicodedata.normalize("NFKC", text)).casefold()
    kept = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return " ".join(kept.split())


@dataclass(frozen=True)
class OpenPoll:
    """A poll a typed answer may still resolve."""

    purpose: str
    """``done`` or ``intensity``."""
    poll_id: int
    options: tuple[str, ...]
    chosen: str | None
    """The option the participant's current vote names (None: no vote yet)."""
    moved_on: bool
    """We sent something conversational after the poll: numbers and equivalents no longer count."""
    wa_ids: tuple[str, ...] = ()
    """WhatsApp ids that, quoted, point at this poll (the poll; for the daily poll, its prompt too)."""
    same_day: bool = True
    """Its prompt is for their current local day: only then does an answer that quotes nothing count for it."""


@dataclass(frozen=True)
class PollAnswer:
    poll: OpenPoll
    option: str


@dataclass(frozen=True)
class Ambiguous:
    polls: tuple[OpenPoll, ...]

    @property
    def reply(self) -> str:
        first, second = (poll.options[0] for poll in self.polls[:2])
        return AMBIGUOUS_REPLY.format(first=first, second=second)


def _option_for(words: str, poll: OpenPoll, *, loose: bool) -> str | None:
    for option in poll.options:
        if words == normalise(option):
            return option
    if not loose:
        return None
    if words.isdigit() and 1 <= int(words) <= len(poll.options):
        return poll.options[int(words) - 1]
    if poll.purpose == DONE_PURPOSE:
        for option, equivalents in EQUIVALENTS.items():
            if words in equivalents and option in poll.options:
                return option
    return None


def read_answer(text: str, polls: list[OpenPoll], *, quoted: str | None = None) -> PollAnswer | Ambiguous | None:
    """The poll answer this message is, if any (one that repeats the current vote is talk, for the model)."""
    words = normalise(text)
    if not words or len(words) > 40:
        return None
    polls = [poll for poll in polls if (quoted in poll.wa_ids if quoted else poll.same_day)]
    found = []
    for poll in polls:
        option = _option_for(words, poll, loose=bool(quoted) or not poll.moved_on)
        if option is not None and option != poll.chosen:
            found.append(PollAnswer(poll, option))
    if len(found) > 1:
        unanswered = [answer for answer in found if answer.poll.chosen is None]
        found = unanswered if len(unanswered) == 1 else found
    if len(found) > 1:
        return Ambiguous(tuple(answer.poll for answer in found))
    return found[0] if found else None


def reaction_answer(emoji: str, poll: OpenPoll) -> str | None:
    """The option a reaction on the "did you do it?" poll stands for (None: none, or the current vote)."""
    if poll.purpose != DONE_PURPOSE:
        return None
    option = REACTION_ANSWERS.get(_MODIFIERS.sub("", emoji))
    return option if option in poll.options and option != poll.chosen else None
