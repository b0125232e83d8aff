"""The values a turn is made of: what it reads, what it needs to run, and the :class:`Outcome` every handler returns."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from promptpipe.clock import Clock
from promptpipe.domain.conversation import HistoryEntry, TurnState
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.polls import OpenPoll
from promptpipe.domain.safety import DEFAULT_SAFETY_MESSAGE, CrisisScreen, NewFlag
from promptpipe.domain.timers import NudgePolicy
from promptpipe.llm import LLM
from promptpipe.pipeline.events import InboxEvent
from promptpipe.pipeline.turn_writes import TurnWrite
from promptpipe.storage.deliveries import QuotedMessage, VoteTarget
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.study.rules.protocol import OPEN_STUDY, Study
from promptpipe.tools import PromptTexts
from promptpipe.transport import Recipient

__all__ = ["FlowConfig", "FlowDeps", "Outcome", "Outgoing", "SafetyConfig", "TurnContext", "Typing"]


@dataclass(frozen=True)
class Outgoing:
    """A message to queue: its outbox key (a repeat is a no-op), text, transcript kind, payload."""

    key: str
    text: str
    kind: MessageKind
    payload: dict[str, Any] = field(default_factory=dict)
    not_before: datetime | None = None
    """Held until then (the end of the participant's quiet hours); None: at once."""


@dataclass
class Outcome:
    """What a handled batch comes to; the router commits all of it in one transaction."""

    outgoing: list[Outgoing] = field(default_factory=list)
    writes: list[TurnWrite] = field(default_factory=list)
    """What else the turn writes, after its messages are queued, before its state is saved."""
    answered: list[InboxRow] | None = None
    """Rows done with an answer (None: every row of the batch not in ``kept``)."""
    kept: list[InboxRow] = field(default_factory=list)
    """Rows done without an answer (kept in the transcript)."""
    save_state: bool = True
    """False: nothing of the participant's state changed (only rows are settled)."""
    again: bool = False
    """Rows of the batch are still pending: the lane runs them next."""
    flags: list[NewFlag] = field(default_factory=list)
    """Flags raised by the safety screen (the model's are on the state)."""
    resync_alarms: bool = False
    log: tuple[str, dict[str, object]] | None = None
    """An event and its fields, logged once the outcome is committed."""
    model_turn: bool = False
    """The model answered: counted in the router's ``turns`` once committed."""


@dataclass(frozen=True)
class SafetyConfig:
    screen: CrisisScreen = field(default_factory=lambda: CrisisScreen.of(()))
    message: str = DEFAULT_SAFETY_MESSAGE
    alerts: bool = False
    """Whether flags are sent to ALERT_WEBHOOK_URL."""


@dataclass(frozen=True)
class FlowConfig:
    history_window: int
    debug: bool = False
    policy: NudgePolicy = field(default_factory=NudgePolicy)
    summary_every_turns: int = 10
    """Fold messages older than the window into the summary at most once per this many turns (0: never)."""
    safety: SafetyConfig = field(default_factory=SafetyConfig)
    mark_read: bool = True
    """Blue ticks on the participant's messages once the turn that answers them is committed."""
    typed_answer_window: timedelta = timedelta(0)
    """How long after a prompt a typed answer still resolves its polls (0: until the next prompt)."""
    study: Study = OPEN_STUDY
    model_name: str = ""
    """The model that writes personalised prompts (recorded with each decision point)."""

    def policy_for(self, state: TurnState) -> NudgePolicy:
        """The timer settings of the participant's arm."""
        return self.study.arm(state.participant.arm).policy(self.policy)


Typing = Callable[[Recipient, bool], Awaitable[None]]


async def _no_typing(_: Recipient, __: bool) -> None:
    return None


@dataclass(frozen=True)
class FlowDeps:
    """What handlers use besides the context (``typing``: the one call that reaches the transport)."""

    llm: LLM
    clock: Clock
    prompts: PromptTexts
    config: FlowConfig
    typing: Typing = _no_typing


@dataclass
class TurnContext:
    """What a turn reads before it starts, in one transaction."""

    state: TurnState
    history: list[HistoryEntry]
    texts: dict[int, str]
    """The transcript texts of the batch, by inbox row id."""
    events: list[InboxEvent]
    """The batch's rows as typed events, in order."""
    polls: list[OpenPoll] = field(default_factory=list)
    """Polls a typed answer or a reaction in the batch may resolve."""
    quoted: dict[str, QuotedMessage] = field(default_factory=dict)
    """Messages the batch quotes or reacts to, by WhatsApp id."""
    targets: dict[int, VoteTarget] = field(default_factory=dict)
    """The deliveries the batch's votes may be about, by poll transcript id."""
    study_seed: bytes = b""
    """The study's secret seed (read for daily-prompt events of a randomised study only)."""
