"""A change of a participant's state as the transition log records it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Actor", "PendingTransition", "TransitionKind"]


class Actor(StrEnum):
    """Who triggers a change (the transition log's ``actor``)."""

    PARTICIPANT = "participant"
    MODEL = "model"
    RESEARCHER = "researcher"
    TIMER = "timer"
    SERVER = "server"


class TransitionKind(StrEnum):
    """What a transition changes (the transition log's ``kind``)."""

    SUB_STATE = "sub_state"
    """the conversation's stage"""
    STATUS = "status"
    TIMEZONE = "timezone"
    STUDY = "study"
    """study day 1, or the participant's extra days"""
    NUMBER = "number"
    """the deployment's WhatsApp number they are served from"""


@dataclass(frozen=True)
class PendingTransition:
    """A transition applied during a turn, written to the log with its commit."""

    kind: TransitionKind
    name: str
    from_value: str | None
    to_value: str
    reason: str
    actor: Actor = Actor.SERVER
