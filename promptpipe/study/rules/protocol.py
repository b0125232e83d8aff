"""The study protocol as typed values: what a study file declares (see
:mod:`promptpipe.study.rules.file` for reading one), and what the service does without one.

Without a study file the study is open-ended, has one arm with the global settings, no quiet
hours and no randomisation: the service behaves as it always did.
"""

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
"""How an arm's daily prompt is written: by the prompt generator from the profile, or taken in
turn from the study file's list of texts (no model)."""

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
    """the participant's own STOP holds (``paused`` is then the team's pause alone); the study
    file's ``paused`` rule covers both"""
    PAUSED = "paused"
    BASELINE = "baseline"
    QUIET_HOURS = "quiet_hours"
    ALREADY_ANSWERED = "already_answered"
    MISSED_SERVICE_DOWN = "missed_service_down"
    """the service was down past MISFIRE_GRACE at the decision point"""
    WITHDRAWN = "withdrawn"
    """a study day after the participant was withdrawn or erased: derived by the export (no row is
    written, nothing was decided or drawn)"""


class NotSent(StrEnum):
    """Why a drawn prompt did not go out."""

    MODEL_OUTAGE = "model_outage"
    """the model could not write the prompt before its day ended or the quiet hours began"""
    AFTER_OUTCOME_QUESTION = "after_outcome_question"
    """the prompt could not go out before the self-report question that measures it was asked (the model was down, or
    its turn waited that long): sent then, the treatment would follow the outcome question it is meant to precede"""


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
"""Global settings an arm may override, by :class:`NudgePolicy` field, with their kind of value
(a duration is written like ``5h`` or ``15m`` in the file; zero switches that timer off)."""

DEFAULT_CLOSING_MESSAGE = (
    "This was the last day of the study. Thank you for taking part and for telling me how your days "
    "went! You won't get any more daily nudges from us. If you have questions, please contact the "
    "research team."
)


@dataclass(frozen=True)
class QuietHours:
    """A daily period in the participant's local time when nothing scheduled is sent. ``start``
    is inside it, ``end`` is not; a period with ``start`` after ``end`` runs across midnight."""

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
    """Block randomisation: each block of enrolments (per stratum) holds every arm in its ratio,
    in an order drawn from a secret seed; with several ``block_sizes`` each block's size is drawn
    too, so nobody can tell where a block ends."""

    block_sizes: tuple[int, ...] = (1,)
    strata: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(enrollment field, its allowed values) pairs, in the file's order."""

    @property
    def stratum_fields(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.strata)


SELF_REPORT_QUESTION = "Before today ends: did you do your habit today, with or without a nudge from me?"
SELF_REPORT_OPTIONS = ("Yes, I did", "Not today")
SELF_REPORT_PURPOSE = "self_report"
"""The purpose of the self-report polls sent before it became a questionnaire (a late vote on one
is thanked and not counted)."""
SELF_REPORT_ID = "self_report"
"""The questionnaire id the self-report runs under (a study file's own questionnaires cannot use it)."""
SELF_REPORT_ITEM = "did_habit"
SELF_REPORT_THANKS = "Thank you, noted for today."


@dataclass(frozen=True)
class SelfReport:
    """An end-of-day poll on every study day at ``at`` (the participant's clock), whatever the day's decision drew, so a
    send/no_send design has an outcome on every day; an answer counts within ``window`` of the question."""

    at: time
    window: timedelta = timedelta(hours=3)
    question: str = SELF_REPORT_QUESTION

    def as_questionnaire(self) -> Questionnaire:
        """The self-report runs as a one-item questionnaire of its own (:data:`SELF_REPORT_ID`):
        planned for every study day by its own timer, so whether it is asked never depends on
        the day's decision, its prompt or the model; a tap or a typed yes/no answers it."""
        yes, no = SELF_REPORT_OPTIONS
        item = QuestionnaireItem(SELF_REPORT_ITEM, self.question, ItemType.YES_NO,
                                 options=(Option(yes, 1), Option(no, 0)))
        return Questionnaire(SELF_REPORT_ID, "End-of-day self-report", (item,), SendAt(at=self.at),
                             open_for=self.window, closing=SELF_REPORT_THANKS)


@dataclass(frozen=True)
class DecisionRule:
    """Each daily prompt time is a decision point: when available, ``actions[0]`` is drawn with
    probability ``p``, ``actions[1]`` otherwise."""

    actions: tuple[str, str] = (SEND, NO_SEND)
    p: float = 1.0
    unavailable_when: tuple[str, ...] = AVAILABILITY_RULES


@dataclass(frozen=True)
class WhatsAppTemplate:
    """An approved WhatsApp Cloud API template (``[whatsapp_templates]``): a message of its kind that must go outside
    the 24-hour service window goes as this template, its text the one body parameter."""

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
    """The optional end-of-day self-report (``[self_report]``)."""
    questionnaires: tuple[Questionnaire, ...] = ()
    """``[[questionnaires]]``, in the file's order."""
    fixed_prompts: tuple[str, ...] = ()
    """The study-wide list of fixed prompt texts."""
    source: str = ""
    """The study file's text as read ("" without a study file)."""
    hash: str = ""
    """SHA-256 of the file's bytes, hex ("" without a study file)."""
    seed_in_database: bool = False
    """``seed_in_database = true``: the database makes and keeps the secret seed (anyone who can read the database can
    then predict the arms and draws to come); by default it keeps only the seed's fingerprint."""
    whatsapp_templates: tuple[tuple[str, WhatsAppTemplate], ...] = ()
    """``[whatsapp_templates]``: (message kind, template) pairs, for the Cloud API transport."""
    ordinary_words: frozenset[str] = frozenset()
    """``ordinary_words``: words that are ordinary in this study ("quit" in a quit-smoking study);
    a stop phrase with one of them gets a confirming question instead of an opt-out."""
    outside_seed: bytes | Path | None = field(default=None, repr=False, compare=False)
    """Where the seed outside the database comes from, set with the settings: the seed itself
    (PROMPTPIPE_STUDY_SEED_FILE or PROMPTPIPE_STUDY_SEED), or the directory the service keeps it in
    (PROMPTPIPE_STATE_DIR, by default). None: the database keeps it (``seed_in_database``, or a study
    read without the settings)."""

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
        """Whether a daily prompt of this arm may be written by the model: a personalised arm, or a
        decision rule that may draw a personalised prompt."""
        drawn = self.decision.actions if self.decision is not None else ()
        return self.arm(arm).prompt_style == PERSONALISED or PERSONALISED in drawn


OPEN_STUDY = Study()
"""The study without a study file."""
