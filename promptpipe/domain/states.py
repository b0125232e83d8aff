"""The values a participant's state takes: status, conversation sub-state, and a daily vote (each a StrEnum, so a
string read from the database or JSON compares equal to its member)."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """``paused`` while their own STOP or a researcher's pause holds; ``completed`` after their last study day (an
    extension can reopen it); ``withdrawn`` is final."""

    ACTIVE = "active"
    PAUSED = "paused"
    COMPLETED = "completed"
    WITHDRAWN = "withdrawn"


ALARMED = (Status.ACTIVE, Status.PAUSED)
"""Statuses whose daily alarms still ring: a paused one's prompt time is still a decision point."""


class Stage(StrEnum):
    """Which conversation module answers: intake (gathering the habit plan) or feedback. ``INTAKE_SUSPENDED``: intake on
    hold because the participant said "later" or went quiet; it resumes (with intake) when they write again."""

    INTAKE = "INTAKE"
    FEEDBACK = "FEEDBACK"
    INTAKE_SUSPENDED = "INTAKE_SUSPENDED"


INTAKE_STAGES = (Stage.INTAKE, Stage.INTAKE_SUSPENDED)
"""Intake, under way or on hold."""


class Vote(StrEnum):
    """The participant's answer on a daily prompt's "did you do it?" poll."""

    DONE = "done"
    NOT_THIS_TIME = "not_this_time"


VOTE_WORDS: dict[str, str] = {Vote.DONE: "done", Vote.NOT_THIS_TIME: "not this time"}
"""A vote as the team and the model read it in a sentence."""
