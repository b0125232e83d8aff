"""The conversation's decisions on an in-memory context: no database, no service, no transport.

A participant's state and what they send are plain values; :class:`Decider` runs the router's
decision (:meth:`ConversationFlow.decide`, which writes nothing) and returns what the turn would
send and how it leaves the participant. What a commit then writes (the ledger, the transcript,
the outbox) is the whole-service tests' part (tests/flow/test_commands.py and the others)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from promptpipe.clock import ManualClock
from promptpipe.domain.conversation import ParticipantInfo, TurnState
from promptpipe.domain.polls import OpenPoll
from promptpipe.domain.profile import Profile
from promptpipe.domain.states import Stage, Status
from promptpipe.flow.router import ConversationFlow
from promptpipe.flow.turn import FlowConfig, FlowDeps, Outcome, SafetyConfig, TurnContext
from promptpipe.llm import Completion
from promptpipe.pipeline.events import MessageReceived
from promptpipe.storage.db import Database
from promptpipe.storage.deliveries import VoteTarget
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.study.rules.protocol import OPEN_STUDY, Study
from promptpipe.tools import PromptTexts

PARTICIPANT_ID = "p-ana"
PHONE = "+14165550101"


class ModelNotExpected:
    """A model that fails the test when asked: the decision was to be made without it."""

    def __init__(self) -> None:
        self.asked = 0

    async def complete(self, messages: Sequence[dict[str, Any]],
                       tools: Sequence[dict[str, Any]] | None = None) -> Completion:
        self.asked += 1
        raise AssertionError("the model was asked, and this decision needs no model")


class ScriptedModel:
    """A model that answers with the given texts, in order."""

    def __init__(self, *answers: str) -> None:
        self._answers = list(answers)
        self.asked = 0

    async def complete(self, messages: Sequence[dict[str, Any]],
                       tools: Sequence[dict[str, Any]] | None = None) -> Completion:
        self.asked += 1
        return Completion(self._answers.pop(0))


def participant(status: Status = Status.ACTIVE, *, stage: Stage = Stage.FEEDBACK, paused_by: str | None = None,
                opted_out: bool = False, researcher_paused: bool = False) -> TurnState:
    """Ana's state as a turn reads it: past intake unless ``stage`` says otherwise."""
    info = ParticipantInfo(id=PARTICIPANT_ID, phone=PHONE, name="Ana", timezone="America/Toronto", status=status,
                           background="", paused_by=paused_by, opted_out=opted_out,
                           researcher_paused=researcher_paused)
    return TurnState(participant=info, sub_state=stage, profile=Profile(), version=1)


@dataclass
class Decided:
    """A turn's decision: the outcome and the state it leaves."""

    outcome: Outcome
    state: TurnState

    @property
    def replies(self) -> list[str]:
        return [message.text for message in self.outcome.outgoing]

    @property
    def consent(self) -> list[tuple[str, str]]:
        """(event, source) of each consent change the commit would write to the ledger."""
        return [(record.event, record.source) for record in self.state.consent]


class Decider:
    """The router's decisions with a model of the test's choosing (none by default)."""

    def __init__(self, model: ModelNotExpected | ScriptedModel | None = None, *, study: Study = OPEN_STUDY,
                 now: datetime | None = None, safety: SafetyConfig | None = None) -> None:
        self.model = model or ModelNotExpected()
        self.clock = ManualClock(now)
        prompts = PromptTexts(intake="intake", feedback="feedback", prompt_generator="prompts")
        config = FlowConfig(history_window=10, study=study, safety=safety or SafetyConfig())
        deps = FlowDeps(self.model, self.clock, prompts, config)
        # No database: a decision reads only its context, and nothing here commits.
        self._flow = ConversationFlow(cast(Database, None), deps)

    async def messages(self, state: TurnState, *texts: str, polls: Sequence[OpenPoll] = (),
                       targets: Mapping[int, VoteTarget] | None = None) -> Decided:
        """What the flow decides when the participant's ``texts`` come in one batch (``polls``: the
        polls still open to a typed answer; ``targets``: the deliveries their votes are about)."""
        now = self.clock.now()
        batch = [InboxRow(id=n, participant_id=state.participant.id, kind=MessageReceived.INBOX_KIND, payload={},
                          message_id=n, attempts=0, available_at=now, text=text)
                 for n, text in enumerate(texts, start=1)]
        context = TurnContext(state, history=[], texts={row.id: text for row, text in zip(batch, texts, strict=True)},
                              events=[MessageReceived() for _ in texts], polls=list(polls),
                              targets=dict(targets or {}))
        outcome = await self._flow.decide(state.participant.id, batch, context)
        return Decided(outcome, state)
