"""The timers a participant can have (one pending per kind), and the settings that decide when they fire."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from promptpipe.domain.limits import DEFAULT_MAX_SCHEDULES


class TimerKind(StrEnum):
    REMINDER = "reminder"
    """A nudge when a daily prompt got no reply (DAILY_PROMPT_REMINDER_DELAY after it)."""
    AUTO_FEEDBACK = "auto_feedback"
    """Hand a silent participant to FEEDBACK a few minutes after their prompt."""
    TRANSITION = "transition"
    """A hand-over between INTAKE and FEEDBACK that the assistant asked for with a delay."""
    FEEDBACK_CHECK_IN = "feedback_check_in"
    """Ask how it went when someone entered FEEDBACK and stayed silent (FEEDBACK_INITIAL_TIMEOUT)."""
    FEEDBACK_FOLLOWUP = "feedback_followup"
    """One more, gentler question after that (FEEDBACK_FOLLOWUP_DELAY)."""

    INTAKE_INACTIVE = "intake_inactive"
    """Put intake on hold when the participant went quiet in the middle of it (INTAKE_INACTIVITY)."""
    INTAKE_REMINDER = "intake_reminder"
    """Invite someone whose intake is on hold to finish it (INTAKE_REMINDER_DELAY, INTAKE_REMINDER_MAX)."""
    STUDY_END = "study_end"
    """The end of the participant's last study day: the closing message and the status completed."""
    SELF_REPORT = "self_report"
    """The study's end-of-day self-report question (``[self_report]``), armed by each day's decision."""

    PROMPT_NOW = "prompt_now"
    """A prompt the team asked for inside quiet hours, held until they end (prompt-now --after-quiet-hours)."""
    QUESTIONNAIRE = "questionnaire"
    """The questionnaire under way: its next reminder, or its end (``open_for`` after it was sent)."""


CANCELLED_BY_REPLY = (TimerKind.REMINDER, TimerKind.AUTO_FEEDBACK, TimerKind.FEEDBACK_CHECK_IN,
                      TimerKind.FEEDBACK_FOLLOWUP, TimerKind.INTAKE_REMINDER)
"""Anything the participant sends makes these moot (the intake inactivity timer checks the last turn when it fires)."""
FEEDBACK_TIMERS = (TimerKind.FEEDBACK_CHECK_IN, TimerKind.FEEDBACK_FOLLOWUP)
INTAKE_TIMERS = (TimerKind.INTAKE_INACTIVE, TimerKind.INTAKE_REMINDER)
SENDS_MESSAGE = (TimerKind.REMINDER, TimerKind.FEEDBACK_CHECK_IN, TimerKind.FEEDBACK_FOLLOWUP,
                 TimerKind.INTAKE_REMINDER, TimerKind.STUDY_END)
"""Timers that send something: inside the study's quiet hours they move to the end of them."""
RUNS_WHILE_PAUSED = (TimerKind.STUDY_END, TimerKind.QUESTIONNAIRE)
"""Timers a pause does not cancel: the study's days go on (a questionnaire due is recorded as not sent, with why)."""
RUNS_AFTER_COMPLETION = (TimerKind.QUESTIONNAIRE,)
"""Timers that still run for a participant who completed the study: the exit questionnaires."""
FIRES_LATE = (TimerKind.QUESTIONNAIRE, TimerKind.STUDY_END)
"""Timers that still run when later than MISFIRE_GRACE (the service was down, or the clock jumped): a questionnaire's
end must happen (the next one decides for itself), and the end of the study is not a nudge that may be skipped."""


@dataclass(frozen=True)
class NudgePolicy:
    """Built from the settings of the same names; a zero delay switches that timer off."""

    prep_minutes: int = 10
    misfire_grace: timedelta = timedelta(hours=1)
    reminder_delay: timedelta = timedelta(hours=5)
    auto_feedback: bool = True
    auto_feedback_delay: timedelta = timedelta(minutes=5)
    feedback_initial_timeout: timedelta = timedelta(minutes=15)
    feedback_followup_delay: timedelta = timedelta(hours=3)
    intensity_poll: bool = True
    max_schedules: int = DEFAULT_MAX_SCHEDULES
    intake_inactivity: timedelta = timedelta(minutes=30)
    intake_reminder_delay: timedelta = timedelta(days=1)
    intake_reminder_max: int = 2
