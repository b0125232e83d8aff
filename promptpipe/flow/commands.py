"""Deterministic commands, handled before any model sees the message.

A command is a message that is exactly one of the words below (any case, surrounding spaces and a
final full stop or exclamation mark ignored). "stop it" is a normal message, "STOP" is a command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from promptpipe.models import ACTIVE, PAUSED, WITHDRAWN
from promptpipe.state import TurnState

STOP, START, RESUME, HELP = "STOP", "START", "RESUME", "HELP"
COMMANDS = (STOP, START, RESUME, HELP)

STOPPED = (
    "Okay, you're unsubscribed: you won't get any more daily nudges, reminders or check-ins from "
    "this study. If you change your mind, send START. Send HELP for information."
)
ALREADY_STOPPED = "You're already unsubscribed, so nothing more will be sent. Send START to pick up again."
RESUMED = "Welcome back! Your daily nudges are switched on again."
ALREADY_ACTIVE = "You're all set: your daily nudges are already on. Send STOP at any time to pause them."
PAUSED_BY_TEAM = (
    "Your messages from this study are paused by the research team, so I can't switch them back on "
    "from here. Please contact the team if you have questions."
)
NOT_ENROLLED = (
    "You're no longer taking part in this study, so nothing more will be sent. Please contact the "
    "research team if you have questions."
)
PAUSED_HINT = "Your nudges are paused, so I won't reply here for now. Send START to resume, or HELP for information."
HELP_TEXT = (
    "This is a research study about building one small daily habit. Each day you get a short, "
    "personal nudge at the time you chose, and I'll ask now and then how it went. Your replies are "
    "part of the study data.\n\n"
    "Commands you can send at any time:\n"
    "STOP - no more nudges or messages from the study\n"
    "START or RESUME - switch them back on\n"
    "HELP - this message\n\n"
    "For anything else, just write to me, or contact the research team."
)

_TRAILING = re.compile(r"[.!]+$")


def as_command(text: str) -> str | None:
    """The command this message is, or None."""
    word = _TRAILING.sub("", text.strip()).strip().upper()
    return word if word in COMMANDS else None


def last_command(texts: Sequence[str]) -> str | None:
    """When several messages arrive together, the latest command is what the participant wants."""
    for text in reversed(texts):
        command = as_command(text)
        if command is not None:
            return command
    return None


def apply_command(state: TurnState, command: str) -> str:
    """Change the participant's status as the command asks; returns the reply to send."""
    if command == HELP:
        return HELP_TEXT
    if command == STOP:
        if state.status == PAUSED and state.paused_by == "participant":
            return ALREADY_STOPPED
        reason = "participant sent STOP: consent to messages withdrawn"
        if state.status == ACTIVE:
            state.change_status("opted_out", reason=reason)
        else:  # already silenced by the team: keep their decision, but record the participant's
            state.record_status_event("opted_out", reason=reason)
        return STOPPED
    if state.status == WITHDRAWN:
        return NOT_ENROLLED
    if state.status == ACTIVE:
        return ALREADY_ACTIVE
    if state.status == PAUSED and state.paused_by == "participant":
        state.change_status("opted_in", reason=f"participant sent {command}")
        return RESUMED
    return PAUSED_BY_TEAM
