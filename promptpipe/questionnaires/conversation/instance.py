"""Questionnaires in the conversation: one item per message, handled by the server, never by the model; a turn's
writes share its one commit, so no item is asked twice or skipped."""

from __future__ import annotations

from datetime import datetime

from promptpipe.domain import keys
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.quiet_hours import quiet_period_end
from promptpipe.domain.states import Status
from promptpipe.domain.timers import TimerKind
from promptpipe.flow.turn import Outcome, Outgoing
from promptpipe.pipeline.turn_writes import InstanceEnded, ItemAnswered, ItemAsked, TurnWrite
from promptpipe.questionnaires.rules.answers import Missing, ask_text, poll_options
from promptpipe.questionnaires.rules.definition import (
    QUESTIONNAIRE_PURPOSE,
    EndReason,
    InstanceStatus,
    ItemType,
    OpenQuestionnaire,
    Questionnaire,
    QuestionnaireItem,
    SendEvent,
    next_item,
)
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.study.rules.protocol import QuietHours, Study

__all__ = ["answering", "arm_clock", "arm_next", "ask_item", "close_if_stopped", "end_outcome", "hidden",
           "not_sent_outcome", "start_outcome", "why_not_sent"]


def hidden(questionnaire: Questionnaire, poll: bool) -> MessageKind:
    """The kind its messages are kept under: hidden from the coach unless the study file allows."""
    if questionnaire.coach_sees_answers:
        return MessageKind.POLL if poll else MessageKind.TEXT
    return MessageKind.QUESTIONNAIRE_POLL if poll else MessageKind.QUESTIONNAIRE


def ask_item(questionnaire: Questionnaire, item: QuestionnaireItem, open_: OpenQuestionnaire, key: str,
             lead: str | None = None) -> Outgoing:
    """The message asking ``item``; its payload says when the window closes, so a late tap is judged by its time."""
    payload = {"purpose": QUESTIONNAIRE_PURPOSE, "questionnaire_id": questionnaire.id, "item_id": item.id,
               "instance_id": open_.instance_id, "closes_at": open_.expires_at.isoformat()}
    if item.is_poll:
        payload |= {"options": list(poll_options(item))}
        if item.type is ItemType.MULTIPLE_CHOICE:
            payload |= {"multiple": True}
        text = item.text
    else:
        text = ask_text(item)
    return Outgoing(key, f"{lead}\n{text}" if lead else text, hidden(questionnaire, item.is_poll), payload)


def arm_clock(state: TurnState, questionnaire: Questionnaire, open_: OpenQuestionnaire, sent_at: datetime) -> None:
    """The next reminder, or the end of the questionnaire."""
    offsets = questionnaire.reminder_offsets()
    if open_.reminders_sent < len(offsets):
        due, action = sent_at + offsets[open_.reminders_sent], "remind"
    else:
        due, action = open_.expires_at, "expire"
    state.arm_timer(TimerKind.QUESTIONNAIRE, due, {"instance_id": open_.instance_id,
                                                   "questionnaire_id": questionnaire.id,
                                                   "action": action, "sent_at": sent_at.isoformat()},
                    reason=f"questionnaire {questionnaire.id}: {action}")


def not_sent_outcome(instance_id: int, reason: EndReason, now: datetime) -> Outcome:
    return Outcome(writes=[InstanceEnded(instance_id, InstanceStatus.NOT_SENT, reason, now)],
                   log=("questionnaire_not_sent", {"instance_id": instance_id, "reason": reason}))


def start_outcome(state: TurnState, questionnaire: Questionnaire | None, instance_id: int, item: InboxRow,
                  now: datetime) -> Outcome:
    if questionnaire is None:
        return not_sent_outcome(instance_id, EndReason.NOT_IN_STUDY_FILE, now)
    why = why_not_sent(state, questionnaire)
    if why is not None:
        return not_sent_outcome(instance_id, why, now)
    if state.questionnaire is not None:
        return not_sent_outcome(instance_id, EndReason.ANOTHER_UNDER_WAY, now)
    first = next_item(questionnaire, {})
    if first is None:
        return not_sent_outcome(instance_id, EndReason.NO_ITEM, now)
    outgoing = []
    if questionnaire.intro:
        outgoing.append(Outgoing(keys.questionnaire_message(item.id, "intro"), questionnaire.intro,
                                 hidden(questionnaire, False)))
    open_ = OpenQuestionnaire(instance_id, questionnaire.id, first.id, now + questionnaire.open_for, asked_at=now)
    ask = ask_item(questionnaire, first, open_, keys.questionnaire_message(item.id, "ask"))
    outgoing.append(ask)
    state.questionnaire = open_
    arm_clock(state, questionnaire, open_, now)
    asked = ItemAsked(open_, state.participant.id, first.id, ask.key, now, expires_at=open_.expires_at)
    return Outcome(outgoing, writes=[asked], log=("questionnaire_sent", {"questionnaire": questionnaire.id,
                                                                        "instance_id": instance_id}))


def arm_next(state: TurnState, now: datetime, *, reason: str, wake: datetime | None = None,
             quiet: QuietHours | None = None) -> None:
    """Point the questionnaire timer at the next planned questionnaire (none: at ``wake``, or no timer), out of the
    ``quiet`` hours (earlier would only wake it again and again)."""
    queue = state.questionnaires.queue
    if not queue and wake is None:
        if state.timer_pending_after_commit(TimerKind.QUESTIONNAIRE):
            state.cancel_timers(TimerKind.QUESTIONNAIRE, reason=reason)
        return
    due = max(min(entry.due_at for entry in queue) if queue else wake or now, now)
    due = quiet_period_end(quiet, due, zone_or_utc(state.timezone)) or due
    pending = state.pending_timers.get(TimerKind.QUESTIONNAIRE)
    if (pending is not None and pending.due_at == due and pending.payload.get("action") == "next"
            and not any(op.kind == TimerKind.QUESTIONNAIRE for op in state.timer_ops)):
        return
    state.arm_timer(TimerKind.QUESTIONNAIRE, due, {"action": "next"}, reason=reason)


def answering(state: TurnState) -> bool:
    """Whether replies may answer the questionnaire under way (an exit one is answered after the study ended)."""
    return state.questionnaire is not None and state.status in (Status.ACTIVE, Status.COMPLETED)


def why_not_sent(state: TurnState, questionnaire: Questionnaire) -> EndReason | None:
    """None for an active participant, and for the ``study_end`` ones of a completer with no opt-out or team pause."""
    exit_allowed = state.status == Status.COMPLETED and not state.opted_out and not state.researcher_paused
    if state.status == Status.ACTIVE or (questionnaire.send.event is SendEvent.STUDY_END and exit_allowed):
        return None
    return inactive_reason(state)


def inactive_reason(state: TurnState) -> EndReason:
    """Why an inactive participant gets no questionnaire."""
    if state.status == Status.WITHDRAWN:
        return EndReason.WITHDRAWN
    if state.opted_out:
        return EndReason.OPTED_OUT
    if state.researcher_paused or state.status == Status.PAUSED:
        return EndReason.PAUSED
    return EndReason.STUDY_OVER


_MISSING_AT_END = {InstanceStatus.COMPLETED: Missing.NOT_SHOWN, InstanceStatus.EXPIRED: Missing.EXPIRED,
                   InstanceStatus.STOPPED: Missing.STOPPED}


def end_outcome(state: TurnState, questionnaire: Questionnaire, open_: OpenQuestionnaire, status: InstanceStatus,
                now: datetime, *, reason: EndReason | None = None, ended_at: datetime | None = None,
                outgoing: list[Outgoing] | None = None, writes: list[TurnWrite] | None = None) -> Outcome:
    """Close the questionnaire: every item not answered gets the status's missing code (or not_shown)."""
    writes, missing = list(writes or []), _MISSING_AT_END[status]
    for item in questionnaire.items:
        if item.id not in open_.codes:
            shown = item.show_if is None or bool(set(open_.codes.get(item.show_if.item, ())) & set(item.show_if.codes))
            writes.append(ItemAnswered(open_.instance_id, item.id, missing if shown else Missing.NOT_SHOWN, now))
    writes.append(InstanceEnded(open_.instance_id, status, reason, ended_at or now))
    state.questionnaire = None
    state.questionnaires.closed = open_ if status is InstanceStatus.EXPIRED else None
    arm_next(state, now, reason=f"questionnaire {questionnaire.id} {status}")
    return Outcome(outgoing or [], writes=writes, log=("questionnaire_ended", {"questionnaire": questionnaire.id,
                                                                              "status": status}))


def close_if_stopped(state: TurnState, study: Study, now: datetime) -> list[TurnWrite]:
    """A turn that left the participant inactive ends the questionnaire under way; the writes for the commit."""
    open_ = state.questionnaire
    if open_ is None or state.status == Status.ACTIVE:
        return []
    questionnaire = study.questionnaire(open_.questionnaire_id)
    if questionnaire is None:
        state.questionnaire = None
        return []
    if why_not_sent(state, questionnaire) is None:  # an exit questionnaire, after the study ended
        return []
    return end_outcome(state, questionnaire, open_, InstanceStatus.STOPPED, now,
                       reason=inactive_reason(state)).writes
