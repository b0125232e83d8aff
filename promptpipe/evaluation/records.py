"""What one evaluation run produces, as plain frozen records: conversations, checks, judge scores."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

__all__ = ["OPTED_OUT", "Agreement", "Calibration", "CheckRate", "CheckResult", "Comparison", "ComparisonRow",
           "Conversation", "CriterionMean", "Expectation", "Finding", "Interval", "JudgeHealth", "Kappa", "Missed",
           "RunResult", "Said", "Score", "Source", "Summary", "TokenCount", "ToolUse", "Verdict"]

OPTED_OUT = "opted_out"
"""A conversation's end status when the participant's own STOP holds (else a ``Status``)."""


class Source(StrEnum):
    PERSONA = "persona"
    """A simulated participant over several study days, played by a model."""
    CASE = "case"
    """A scripted hard case: fixed messages, no participant model."""


@dataclass(frozen=True)
class Said:
    """One message of the conversation, as the participant's phone would show it."""

    at: datetime
    """UTC, on the run's virtual clock."""
    incoming: bool
    """True: the (simulated) participant wrote it; False: the study sent it."""
    kind: str
    """A ``MessageKind``."""
    text: str
    options: tuple[str, ...] = ()
    """A poll's options (outgoing) or the options tapped (incoming vote)."""
    status: str = "sent"
    """Outgoing: sent, failed, queued …; incoming: received."""


@dataclass(frozen=True)
class ToolUse:
    """One tool call the coach's model made, as the model wrote it."""

    at: datetime
    name: str
    arguments: str
    """The raw JSON text."""
    offered: bool
    error: str | None = None


@dataclass(frozen=True)
class TokenCount:
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: TokenCount) -> TokenCount:
        return TokenCount(self.requests + other.requests, self.prompt_tokens + other.prompt_tokens,
                          self.completion_tokens + other.completion_tokens)


@dataclass(frozen=True)
class Expectation:
    """What a scripted case requires of the coach (see :mod:`.cases`); every field left at its default asks nothing."""

    safety_message: bool = False
    """The study's safety message was sent after the case's last message."""
    flagged: bool = False
    """A safety flag was raised (by the screen or the model's ``flag_concern``)."""
    no_coaching: bool = False
    """No reply but the safety message talks about the habit (``forbidden`` patterns, the habit's words)."""
    stopped: bool = False
    nothing_after: bool = False
    """Nothing but one confirmation is sent after the case's message, on any later day."""
    reply: bool = False
    """The coach answered at all (something other than the safety message)."""
    forbidden: tuple[str, ...] = ()
    """Regular expressions (case-insensitive) no outgoing message after the case's message may match."""
    required: tuple[str, ...] = ()
    """Regular expressions (case-insensitive) at least one reply after the case's message must match."""
    max_chars: int | None = None


@dataclass(frozen=True)
class Conversation:
    """One conversation of a run, with what the sandbox's database says at its end."""

    id: str
    """Unique within the run: ``persona:<name>`` or ``case:<id>``."""
    source: Source
    label: str
    group: str
    """Personas: their first trait (or "persona"); cases: the case's group (crisis, opt-out …)."""
    timezone: str
    messages: tuple[Said, ...]
    tool_uses: tuple[ToolUse, ...]
    profile: dict[str, str | None]
    """The habit plan the coach saved (``save_user_profile``), by field."""
    schedule_times: tuple[str, ...]
    """The daily prompt times set (local HH:MM; a random window as ``HH:MM-HH:MM``)."""
    status: str
    """A ``Status`` at the end, or :data:`OPTED_OUT`."""
    stage: str
    flags: tuple[str, ...]
    """Each safety flag raised: its source and trigger (``screen: …``, ``model: …``)."""
    quiet_hours: tuple[str, str] | None
    """Local HH:MM start and end, None when the study has none."""
    study_days: int
    persona: dict[str, Any] | None = None
    preferred_time: str | None = None
    """Personas: the time (HH:MM) the persona asked for, to check the schedule against."""
    case_from: int | None = None
    """Cases: the index in ``messages`` of the case's first scripted message (what comes before is set-up)."""
    expect: Expectation | None = None
    tokens: TokenCount = field(default_factory=TokenCount)
    """The coach's model."""
    player_tokens: TokenCount = field(default_factory=TokenCount)
    error: str | None = None
    """Why the run of this conversation failed; checks still run on what there is."""
    repeat: int | None = None
    """Which run (1 to N) of its persona or case this is; None when each ran once."""
    seed: int | None = None

    @property
    def subject(self) -> str:
        """The persona or case this is a run of: the id without its ``#<repeat>``."""
        suffix = f"#{self.repeat}"
        return self.id[:-len(suffix)] if self.repeat is not None and self.id.endswith(suffix) else self.id


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_APPLICABLE = "n/a"


@dataclass(frozen=True)
class CheckResult:
    conversation_id: str
    check: str
    verdict: Verdict
    detail: str
    """What was found, in a sentence a researcher reads in the report."""
    evidence: str = ""
    """The message (quoted, shortened) that made it fail, when there is one."""


@dataclass(frozen=True)
class Score:
    conversation_id: str
    criterion: str
    judge: str
    """Which judging pass: ``<model>#1``, ``<model>#2``."""
    score: int | None
    """1 (poor) to 5 (excellent); None when the judge gave no usable score."""
    evidence: str
    evidence_found: bool
    """The quotation really is in the conversation (a judge inventing quotes is reported)."""
    reason: str = ""


@dataclass(frozen=True)
class Finding:
    """A judge's word that the participant may be in crisis or asked to stop, with their words as quoted."""

    conversation_id: str
    judge: str
    kind: str
    """``crisis`` or ``opt_out``."""
    quote: str


@dataclass(frozen=True)
class RunResult:
    label: str
    """The configuration's name (``--label``), e.g. "prompts v2 on gpt-4o-mini"."""
    started_at: datetime
    finished_at: datetime
    coach_model: str
    player_model: str | None
    judge_models: tuple[str, ...]
    study_days: int
    conversations: tuple[Conversation, ...]
    checks: tuple[CheckResult, ...]
    scores: tuple[Score, ...]
    judge_tokens: TokenCount = field(default_factory=TokenCount)
    about: dict[str, str] = field(default_factory=dict)
    """What else identifies the configuration: the study's name, a digest of the prompts, the seed …"""
    calibration: tuple[Score, ...] = ()
    """Each judging pass's scores of the calibration set (conversation ids ``calibration:<id>``)."""
    calibration_labels: dict[str, dict[str, int]] = field(default_factory=dict)
    """The calibration set's expected score per conversation id and criterion."""
    repeats: int = 1


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95 % confidence interval (None where it cannot be computed: no data)."""

    value: float | None
    low: float | None
    high: float | None
    n: int


@dataclass(frozen=True)
class CheckRate:
    check: str
    passed: int
    failed: int
    not_applicable: int
    rate: Interval
    """Among conversations it applies to (Wilson interval)."""


@dataclass(frozen=True)
class CriterionMean:
    criterion: str
    mean: Interval
    """The mean score over conversations (each conversation's judges averaged first)."""
    by_group: dict[str, Interval] = field(default_factory=dict)
    low: int = 0
    """How many single scores (each pass, each conversation) are 2 or below."""
    scored: int = 0
    by_conversation: dict[str, float] = field(default_factory=dict)
    """Each conversation's score (its judges averaged)."""


@dataclass(frozen=True)
class Agreement:
    """How far the judging passes agree on one criterion (the first two passes)."""

    criterion: str
    exact: float | None
    within_one: float | None
    kappa: float | None
    """Quadratic-weighted Cohen's kappa."""
    n: int


@dataclass(frozen=True)
class Kappa:
    """One judging pass against the calibration set's labels (bootstrap interval over conversations)."""

    judge: str
    kappa: Interval
    exact: float | None
    by_criterion: dict[str, float | None] = field(default_factory=dict)
    """The kappa of each criterion alone (no interval: too few conversations)."""


@dataclass(frozen=True)
class Calibration:
    conversations: int
    passes: tuple[Kappa, ...]


@dataclass(frozen=True)
class Missed:
    """Where the judge scored well what a rule check failed: ``high`` of ``scores`` single scores of
    ``criterion`` were 4 or more in the ``conversations`` that failed ``check``."""

    check: str
    criterion: str
    conversations: int
    scores: int
    high: int


@dataclass(frozen=True)
class JudgeHealth:
    """Whether the judge's scores can be trusted at all, before reading them."""

    expected: int
    """Single scores asked for (conversations with something to judge × passes × criteria)."""
    missing: dict[str, int]
    """Scores missing or unusable, counted by why."""
    quoted: int
    """Usable scores (each should carry a quotation)."""
    unfound: int
    constant: tuple[str, ...]
    """Judging passes that gave every conversation the same score on every criterion."""
    missed: tuple[Missed, ...] = ()


@dataclass(frozen=True)
class Summary:
    checks: tuple[CheckRate, ...]
    criteria: tuple[CriterionMean, ...]
    agreement: tuple[Agreement, ...]
    """Self-consistency: the first two judging passes against each other."""
    tokens: TokenCount
    judging: JudgeHealth | None = None
    """None when the run had no judge."""
    calibration: Calibration | None = None


@dataclass(frozen=True)
class ComparisonRow:
    """One check's pass rate or one criterion's mean score in two runs, and B − A."""

    what: str
    """``check`` or ``criterion``."""
    name: str
    a: Interval
    b: Interval
    difference: Interval


@dataclass(frozen=True)
class Comparison:
    a_label: str
    b_label: str
    rows: tuple[ComparisonRow, ...]
