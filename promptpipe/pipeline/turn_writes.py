"""What a turn writes besides its messages, state and "done" marks, in order in its commit (:func:`apply_writes`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy.orm import Session

from promptpipe.domain.messages import MessageKind
from promptpipe.domain.profile import ServerRecord
from promptpipe.questionnaires.rules.answers import Answer, Missing
from promptpipe.questionnaires.rules.definition import EndReason, InstanceStatus, OpenQuestionnaire, QueuedQuestionnaire
from promptpipe.questionnaires.store.writes import (
    Scheduled,
    end_instance,
    record_answer,
    record_asked,
    record_late_answer,
    record_tries,
    reschedule_instance,
    schedule_instance,
)
from promptpipe.storage.deliveries import (
    delivery_row,
    mark_reminder_sent,
    record_delivery_and_recount,
    recount,
    set_vote,
)
from promptpipe.storage.inbox_rows import InboxRow, merge_inbox_payload
from promptpipe.storage.outbox_rows import drop_held_greetings
from promptpipe.storage.transcript import annotate_message, set_kind
from promptpipe.study.store.decisions import INSERT_DECISION, DecisionValues, record_decision

MessageIds = Mapping[str, int | None]
"""The transcript ids of the messages the commit queued, by outbox key (None: queued before)."""


@dataclass(frozen=True)
class InboxNote:
    """Keys added to an inbox row's payload (the screen flagged it; a team change's result)."""

    row: InboxRow
    fields: Mapping[str, object]


@dataclass(frozen=True)
class MessageNote:
    """Keys added to a transcript message's payload (how a vote was handled)."""

    message_id: int
    fields: Mapping[str, object]


@dataclass(frozen=True)
class Refiled:
    """Transcript messages filed under another kind (answers hidden from the model)."""

    message_ids: list[int]
    kind: MessageKind


@dataclass(frozen=True)
class Decision:
    """A decision point, with the transcript id of its prompt (when one went out)."""

    values: DecisionValues
    prompt_key: str


@dataclass(frozen=True)
class Delivery:
    """A daily prompt's delivery row (its poll is how votes find it), and the intensity poll's id on the record."""

    participant_id: str
    inbox_id: int
    schedule_id: str | None
    local_date: str
    prompt_text: str
    keys: tuple[str, str, str]
    """Outbox keys of the prompt, its poll and the intensity poll."""
    record: ServerRecord
    at: datetime


@dataclass(frozen=True)
class Recount:
    """The participant's counters recomputed from the delivery rows, onto their record."""

    record: ServerRecord
    participant_id: str


@dataclass(frozen=True)
class VoteSet:
    delivery_id: int
    vote: str | None
    changed: bool
    source: str
    at: datetime


@dataclass(frozen=True)
class ReminderSent:
    prompt_inbox_id: int
    at: datetime


@dataclass(frozen=True)
class PollNoted:
    """The message that asked the current item again: a vote on its poll answers the item."""

    open_: OpenQuestionnaire
    message_key: str


@dataclass(frozen=True)
class ItemAsked:
    """A questionnaire item asked (its poll noted on the questionnaire under way)."""

    open_: OpenQuestionnaire
    participant_id: str
    item_id: str
    message_key: str
    at: datetime
    reminded: bool = False
    expires_at: datetime | None = None
    after_answer: bool = False


@dataclass(frozen=True)
class TriesCounted:
    instance_id: int
    item_id: str
    tries: int


@dataclass(frozen=True)
class ItemAnswered:
    instance_id: int
    item_id: str
    outcome: Answer | Missing
    at: datetime
    tries: int = 0
    progress: bool = True


@dataclass(frozen=True)
class LateAnswer:
    """A tap given before its questionnaire's window closed, read after it expired (applies only then)."""

    instance_id: int
    item_id: str
    answer: Answer
    at: datetime


@dataclass(frozen=True)
class InstanceEnded:
    instance_id: int
    status: InstanceStatus
    reason: EndReason | None
    at: datetime


@dataclass(frozen=True)
class PlannedInstance:
    """One planned occasion: queued (``entry`` gets the instance's id), or recorded as not sent."""

    scheduled: Scheduled
    entry: QueuedQuestionnaire | None
    not_sent: bool
    reason: str | None


@dataclass(frozen=True)
class InstancesPlanned:
    """Instances written once per occasion; ``queue`` keeps only entries that got an instance."""

    plans: list[PlannedInstance]
    queue: list[QueuedQuestionnaire]
    at: datetime


@dataclass(frozen=True)
class InstanceMoved:
    instance_id: int
    due_at: datetime
    window: tuple[datetime, datetime] | None


@dataclass(frozen=True)
class GreetingDropped:
    """The conversation has begun: a greeting still held for quiet hours no longer goes."""

    participant_id: str


TurnWrite = (InboxNote | MessageNote | Refiled | Decision | Delivery | Recount | VoteSet | ReminderSent | PollNoted
             | ItemAsked | TriesCounted | ItemAnswered | LateAnswer | InstanceEnded | InstancesPlanned | InstanceMoved
             | GreetingDropped)


def apply_writes(session: Session, writes: Sequence[TurnWrite], ids: MessageIds) -> None:
    """Each write in order, in the commit's transaction."""
    along: Decision | None = None
    for n, write in enumerate(writes):
        if along is not None:
            along = None  # written with the delivery that followed it
            continue
        match write:
            case Decision() if n + 1 < len(writes) and isinstance(writes[n + 1], Delivery):
                along = write  # a daily prompt: its decision point goes with its delivery (one statement on PostgreSQL)
                delivery = writes[n + 1]
                assert isinstance(delivery, Delivery)
                _deliver(session, delivery, ids, _decision_values(write, ids))
            case InboxNote(row, fields):
                merge_inbox_payload(session, row, **fields)
            case MessageNote(message_id, fields):
                annotate_message(session, message_id, **fields)
            case Refiled(message_ids, kind):
                set_kind(session, message_ids, kind)
            case Decision():
                record_decision(session, _decision_values(write, ids))
            case Delivery():
                _deliver(session, write, ids)
            case Recount(record, participant_id):
                record.counters = recount(session, participant_id)
            case VoteSet(delivery_id, vote, changed, source, at):
                set_vote(session, delivery_id, vote, at, changed=changed, source=source)
            case ReminderSent(prompt_inbox_id, at):
                mark_reminder_sent(session, prompt_inbox_id, at)
            case PollNoted(open_, message_key):
                _note_poll(open_, ids.get(message_key))
            case ItemAsked(open_, participant_id, item_id, message_key, at, reminded, expires_at, after_answer):
                _note_poll(open_, ids.get(message_key))
                record_asked(session, open_.instance_id, participant_id, item_id, ids.get(message_key), at,
                             reminded=reminded, expires_at=expires_at, after_answer=after_answer)
            case TriesCounted(instance_id, item_id, tries):
                record_tries(session, instance_id, item_id, tries)
            case ItemAnswered(instance_id, item_id, outcome, at, tries, progress):
                record_answer(session, instance_id, item_id, outcome, at, tries=tries, progress=progress)
            case LateAnswer(instance_id, item_id, answer, at):
                record_late_answer(session, instance_id, item_id, answer, at)
            case InstanceEnded(instance_id, status, reason, at):
                end_instance(session, instance_id, status, reason, at)
            case InstancesPlanned():
                _plan(session, write)
            case InstanceMoved(instance_id, due_at, window):
                reschedule_instance(session, instance_id, due_at, window)
            case GreetingDropped(participant_id):
                drop_held_greetings(session, participant_id)


def _decision_values(decision: Decision, ids: MessageIds) -> DecisionValues:
    return replace(decision.values, prompt_message_id=ids.get(decision.prompt_key))


def _deliver(session: Session, delivery: Delivery, ids: MessageIds, decision: DecisionValues | None = None) -> None:
    prompt, poll, intensity_poll = delivery.keys
    row = delivery_row(
        participant_id=delivery.participant_id, inbox_id=delivery.inbox_id, schedule_id=delivery.schedule_id,
        local_date=delivery.local_date, prompt_text=delivery.prompt_text, prompt_message_id=ids.get(prompt),
        poll_message_id=ids.get(poll), now=delivery.at)
    along = None if decision is None else (INSERT_DECISION, vars(decision))
    delivery.record.counters = record_delivery_and_recount(session, row, along)
    if (poll_id := ids.get(intensity_poll)) is not None:
        delivery.record.intensity_poll_message = poll_id


def _plan(session: Session, planned: InstancesPlanned) -> None:
    for plan in planned.plans:
        if (instance_id := schedule_instance(session, plan.scheduled)) is None:
            continue
        if plan.not_sent:
            end_instance(session, instance_id, InstanceStatus.NOT_SENT, plan.reason, planned.at)
        elif plan.entry is not None:
            plan.entry.instance_id = instance_id
    planned.queue[:] = [entry for entry in planned.queue if entry.instance_id is not None]


def _note_poll(open_: OpenQuestionnaire, message_id: int | None) -> None:
    """The transcript id of the message that asked the current item: a vote on that poll answers it."""
    if message_id is not None:
        open_.poll_ids.append(message_id)
