"""The study protocol as typed values: what a study file declares (:mod:`promptpipe.study.rules.file` reads one), and
without one an open-ended study with one arm, the global settings, no quiet hours and no randomisation."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import time, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any

from promptpipe.domain.localtime import format_hhmm
from promptpipe.domain.timers import NudgePolicy
from promptpipe.questionnaires.rules.definition import ItemType, Option, Questionnaire, QuestionnaireItem, SendAt

__all__ = ["AFTER_ENROLLMENT", "AFTER_INTAKE", "ARM_SETTINGS", "AVAILABILITY_RULES", "DAY_ONE_RULES",
           "DECISION_ACTIONS", "DEFAULT_ARM", "DEFAULT_CLOSING_MESSAGE", "FIXED_STYLE", "NO_SEND", "OPEN_STUDY",
           "PERSONALISED", "PROMPT_STYLES", "SEND", "Allocation", "Arm", "DecisionRule", "NotSent", "QuietHours",
           "Study", "Unavailable", "WhatsAppTemplate"]

PERSONALISED, FIXED_STYLE = "personalised", "fixed"
PROMPT_STYLES = (PERSONALISED, FIXED_STYLE)
"""An arm's daily prompt is written by the model from the profile, or taken in turn from the study file's texts."""

AFTER_INTAKE, AFTER_ENROLLMENT = "after_intake", "after_enrollment"
DAY_ONE_RULES = (AFTER_INTAKE, AFTER_ENROLLMENT)
"""Study day 1 is the participant's first local day after intake completes, or after enrollment."""

SEND, NO_SEND = "send", "no_send"
DECISION_ACTIONS: tuple[tuple[str, str], ...] = ((SEND, NO_SEND), (PERSONALISED, FIXED_STYLE))
"""The pairs a decision point may randomise between: (treatment, control)."""

class Unavailable(StrEnum):
    """Every coded reason a decision point can be unavailable."""

    NOT_IN_STUDY = "not_in_study"
    """before study day 1 or after the last day; it always applies"""
    OPTED_OUT = "opted_out"
    """the participant's own STOP holds (the study file's ``paused`` rule covers both)"""
    PAUSED = "paused"
    BASELINE = "baseline"
    QUIET_HOURS = "quiet_hours"
    ALREADY_ANSWERED = "already_answered"
    MISSED_SERVICE_DOWN = "missed_service_down"
    """the service was down past MISFIRE_GRACE at the decision point"""
    WITHDRAWN = "withdrawn"
    """a study day after the participant was withdrawn or erased (derived by the export: no row is written)"""


class NotSent(StrEnum):
    """Why a drawn prompt did not go out."""

    MODEL_OUTAGE = "model_outage"
    """the model could not write the prompt before its day ended or the quiet hours began"""
    AFTER_OUTCOME_QUESTION = "after_outcome_question"
    """the prompt could not go out before the self-report question that measures it: the treatment would follow it"""


AVAILABILITY_RULES = (Unavailable.PAUSED, Unavailable.BASELINE, Unavailable.QUIET_HOURS, Unavailable.ALREADY_ANSWERED)
"""Conditions that make a decision point unavailable, as a study file may list them."""

ARM_SETTINGS: dict[str, str] = {
    "reminder_delay": "duration",
    "auto_feedback": "bool",
    "auto_feedback_delay": "duration",
    "intensity_poll": "bool",
    "feedback_initial_timeout": "duration",
    "feedback_followup_delay": "duration",
}
"""Global settings an arm may override, by :class:`NudgePolicy` field, with their kind of value."""

DEFAULT_CLOSING_MESSAGE = (
    "This was the last day of the study. Thank you for taking part and for telling me how your days "
    "went! You won't get any more daily nudges from us. If you have questions, please contact the "
    "research team."
)


@dataclass(frozen=True)
class QuietHours:
    """A daily period in the participant's local time when nothing scheduled is sent (``end`` excluded)."""

    start: time
    end: time

    def describe(self) -> str:
        return f"{format_hhmm(self.start)}-{format_hhmm(self.end)}"


@dataclass(frozen=True)
class Arm:
    name: str
    ratio: int = 1
    """Its share in the allocation (2 with another arm's 1: two of every three participants)."""
    prompt_style: str = PERSONALISED
    fixed_prompts: tuple[str, ...] = ()
    """The texts a fixed-style prompt takes in turn (the study's list when the arm has none)."""
    settings: tuple[tuple[str, Any], ...] = ()
    """(NudgePolicy field, value) pairs that override the global settings for this arm."""

    def policy(self, base: NudgePolicy) -> NudgePolicy:
        """The global settings with this arm's overrides."""
        return replace(base, **dict(self.settings)) if self.settings else base


DEFAULT_ARM = Arm("default")


@dataclass(frozen=True)
class Allocation:
    """Block randomisation from a secret seed (see :mod:`promptpipe.study.rules.allocation`)."""

    block_sizes: tuple[int, ...] = (1,)
    strata: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(enrollment field, its allowed values) pairs, in the file's order."""

    @property
    def stratum_fields(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.strata)


SELF_REPORT_QUESTION = "Before today ends: did you do your habit today, with or without a nudge from me?"
SELF_REPORT_OPTIONS = ("Yes, I did", "Not today")
SELF_REPORT_PURPOSE = "self_report"
"""The purpose of self-report polls from before it was a questionnaire (a late vote is thanked, not counted)."""
SELF_REPORT_ID = "self_report"
"""The questionnaire id the self-report runs under (a study file's own questionnaires cannot use it)."""
SELF_REPORT_ITEM = "did_habit"
SELF_REPORT_THANKS = "Thank you, noted for today."


@dataclass(frozen=True)
class SelfReport:
    """An end-of-day poll on every study day at ``at``, whatever was drawn, so every day has an outcome."""

    at: time
    window: timedelta = timedelta(hours=3)
    question: str = SELF_REPORT_QUESTION

    def as_questionnaire(self) -> Questionnaire:
        """A one-item questionnaire of its own, planned by its own timer: it never depends on the day's decision."""
        yes, no = SELF_REPORT_OPTIONS
        item = QuestionnaireItem(SELF_REPORT_ITEM, self.question, ItemType.YES_NO,
                                 options=(Option(yes, 1), Option(no, 0)))
        return Questionnaire(SELF_REPORT_ID, "End-of-day self-report", (item,), SendAt(at=self.at),
                             open_for=self.window, closing=SELF_REPORT_THANKS)


@dataclass(frozen=True)
class DecisionRule:
    """When a decision point is available, ``actions[0]`` is drawn with probability ``p``, ``actions[1]`` otherwise."""

    actions: tuple[str, str] = (SEND, NO_SEND)
    p: float = 1.0
    unavailable_when: tuple[str, ...] = AVAILABILITY_RULES


@dataclass(frozen=True)
class WhatsAppTemplate:
    """An approved Cloud API template: a message of its kind outside the 24-hour window goes as it (text: its body)."""

    name: str
    language: str = "en_US"


@dataclass(frozen=True)
class Study:
    name: str = ""
    length_days: int | None = None
    """None: open-ended."""
    baseline_days: int = 0
    """The first study days send no prompts."""
    day_one: str = AFTER_INTAKE
    closing_message: str = DEFAULT_CLOSING_MESSAGE
    quiet_hours: QuietHours | None = None
    arms: tuple[Arm, ...] = (DEFAULT_ARM,)
    allocation: Allocation = field(default_factory=Allocation)
    decision: DecisionRule | None = None
    """None: every available decision point sends the arm's prompt (probability 1)."""
    self_report: SelfReport | None = None
    questionnaires: tuple[Questionnaire, ...] = ()
    fixed_prompts: tuple[str, ...] = ()
    source: str = ""
    """The study file's text as read ("" without a study file)."""
    hash: str = ""
    """SHA-256 of the file's bytes, hex ("" without a study file)."""
    seed_in_database: bool = False
    """The database makes and keeps the secret seed (by default only its fingerprint)."""
    whatsapp_templates: tuple[tuple[str, WhatsAppTemplate], ...] = ()
    """``[whatsapp_templates]``: (message kind, template) pairs, for the Cloud API transport."""
    ordinary_words: frozenset[str] = frozenset()
    """Words ordinary in this study ("quit"): a stop phrase with one gets a confirming question, not an opt-out."""
    outside_seed: bytes | Path | None = field(default=None, repr=False, compare=False)
    """From the settings: the seed itself, or the directory the service keeps it in; None: the database keeps it."""

    @property
    def in_use(self) -> bool:
        """Whether a study file is in use (otherwise: the open-ended default)."""
        return bool(self.source)

    def arm(self, name: str | None) -> Arm:
        """The arm of that name (the first arm for an unknown or missing name)."""
        return next((arm for arm in self.arms if arm.name == name), self.arms[0])

    def questionnaire(self, questionnaire_id: str) -> Questionnaire | None:
        return next((q for q in self.questionnaires if q.id == questionnaire_id), None)

    def fixed_texts(self, arm: Arm) -> tuple[str, ...]:
        return arm.fixed_prompts or self.fixed_prompts

    def prompts_need_model(self, arm: str | None) -> bool:
        """Whether a daily prompt of this arm may be written by the model (a personalised arm, or drawn so)."""
        drawn = self.decision.actions if self.decision is not None else ()
        return self.arm(arm).prompt_style == PERSONALISED or PERSONALISED in drawn


OPEN_STUDY = Study()
"""The study without a study file."""
