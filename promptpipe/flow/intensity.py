"""The intensity poll: at most once a day, with a daily prompt; a vote moves the profile's ``intensity`` one level."""

from __future__ import annotations

from datetime import date

from promptpipe.domain.conversation import TurnState
from promptpipe.domain.profile import Intensity, IntensityVote

QUESTION = "How do these daily steps feel to you?"
LESS, SAME, MORE = "A bit lighter, please", "Just right", "A bit more, please"
PURPOSE = "intensity"

ACKS = {
    LESS: "Noted: I'll keep your daily steps a little lighter from now on.",
    SAME: "Great, I'll keep them just as they are.",
    MORE: "Noted: I'll make your daily steps a little more ambitious from now on.",
}
WITHDRAWN_REPLY = "Okay, I've put your daily steps back to how they were."
OUTDATED_REPLY = ("Thanks! That was an older poll, so I've kept your daily steps as they are. "
                  "The newest one is the one that counts.")
AT_LIMIT = {
    LESS: "They're already as light as I make them, so I'll keep them this way.",
    MORE: "They're already as ambitious as I make them, so I'll keep them this way.",
}


def poll_options(state: TurnState, local_day: date) -> list[str]:
    """Record today's poll on the profile and return the moves possible from here (empty: it went already)."""
    record = state.profile.record
    if record.intensity_poll_date == local_day.isoformat():
        return []
    record.intensity_poll_date = local_day.isoformat()
    return [option for option, possible in ((LESS, record.level != Intensity.LOW), (SAME, True),
                                            (MORE, record.level != Intensity.HIGH)) if possible]


def apply_vote(state: TurnState, chosen: list[str], poll_id: int | None, *, withdrawn: bool,
               source: str = "tap") -> tuple[str | None, str]:
    """Set the intensity as voted; the reply (or None) and how the vote was handled. A change moves from the poll's
    starting level, so "more" then "less" ends one step below it."""
    record = state.profile.record
    if record.intensity_poll_message is not None and poll_id != record.intensity_poll_message:
        return OUTDATED_REPLY, "outdated"
    earlier = record.intensity_vote if record.intensity_vote and record.intensity_vote.poll == poll_id else None
    base = earlier.base if earlier else record.level
    if withdrawn:
        if earlier is None:  # nothing on this poll to take back
            return None, "repeated"
        record.intensity, record.intensity_vote = base, None
        return WITHDRAWN_REPLY, "withdrawn"
    option = chosen[-1] if chosen else ""
    step = {LESS: -1, SAME: 0, MORE: 1}.get(option)
    if step is None:
        return None, "unknown_option"
    if earlier is not None and earlier.choice == option:
        return None, "repeated"
    levels: list[str] = list(Intensity)
    index = levels.index(base) + step
    record.intensity = levels[index] if 0 <= index < len(levels) else base
    record.intensity_vote = IntensityVote(poll=poll_id, base=base, choice=option, source=source)
    reply = ACKS[option] if 0 <= index < len(levels) else AT_LIMIT[option]
    return reply, "changed" if earlier is not None else "counted"
