"""The intensity poll: at most once per local day, with a daily prompt, the participant says
whether the daily steps should be lighter, the same or more ambitious; their vote moves the
profile's ``intensity`` one level (low, normal, high)."""

from __future__ import annotations

from datetime import date

from promptpipe.state import TurnState

LEVELS = ("low", "normal", "high")
QUESTION = "How do these daily steps feel to you?"
LESS, SAME, MORE = "A bit lighter, please", "Just right", "A bit more, please"
PURPOSE = "intensity"

ACKS = {
    LESS: "Noted: I'll keep your daily steps a little lighter from now on.",
    SAME: "Great, I'll keep them just as they are.",
    MORE: "Noted: I'll make your daily steps a little more ambitious from now on.",
}
AT_LIMIT = {
    LESS: "They're already as light as I make them, so I'll keep them this way.",
    MORE: "They're already as ambitious as I make them, so I'll keep them this way.",
}


def current(state: TurnState) -> str:
    value = str(state.profile.get("intensity") or "normal")
    return value if value in LEVELS else "normal"


def options_for(level: str) -> list[str]:
    """Only the moves that are possible from here."""
    return [option for option, possible in ((LESS, level != "low"), (SAME, True), (MORE, level != "high")) if possible]


def poll_due(state: TurnState, local_day: date) -> bool:
    return state.profile.get("intensity_poll_date") != local_day.isoformat()


def mark_poll_sent(state: TurnState, local_day: date) -> list[str]:
    """Record today's poll on the profile; returns the options to offer."""
    state.profile = {**state.profile, "intensity_poll_date": local_day.isoformat()}
    return options_for(current(state))


def apply_vote(state: TurnState, chosen: list[str]) -> str | None:
    """Change the intensity as voted; returns the acknowledgement (None for a withdrawn vote)."""
    if not chosen:
        return None
    option = chosen[-1]
    level = current(state)
    step = {LESS: -1, SAME: 0, MORE: 1}.get(option)
    if step is None:
        return None
    index = LEVELS.index(level) + step
    if not 0 <= index < len(LEVELS):
        return AT_LIMIT[option]
    state.profile = {**state.profile, "intensity": LEVELS[index]}
    return ACKS[option]
