"""Replies to the questionnaire item under way: a tap or a typed reply answers it (or earns a short re-ask), then the
next item is asked or the questionnaire closes; a question or a sentence that is no answer goes to the coach."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from promptpipe.domain import keys
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.states import Status
from promptpipe.flow.turn import Outcome, Outgoing, TurnContext
from promptpipe.pipeline.events import MessageReceived, PollVoteReceived, said_at
from promptpipe.pipeline.turn_writes import (
    ItemAnswered,
    ItemAsked,
    LateAnswer,
    MessageNote,
    PollNoted,
    Refiled,
    TriesCounted,
    TurnWrite,
)
from promptpipe.questionnaires.conversation.instance import answering, ask_item, end_outcome, hidden
from promptpipe.questionnaires.rules import definition
from promptpipe.questionnaires.rules.answers import MAX_TRIES, Answer, Missing, Reask, is_option, read_typed, read_vote
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.study.rules.protocol import Study

__all__ = ["answer_outcome", "ask_again_after", "is_conversation", "late_tap_outcome", "late_typed_outcome",
           "option_reader"]


CLOSING = "Thank you, that was the last question."
ASKED_AGAIN = "Back to the question:"


def option_reader(study: Study, state: TurnState) -> Callable[[str], bool] | None:
    """For an item under way with options: whether a typed message is one (an answer beats a command's words)."""
    open_ = state.questionnaire if answering(state) else None
    questionnaire = study.questionnaire(open_.questionnaire_id) if open_ is not None else None
    item = questionnaire.item(open_.item_id) if questionnaire is not None and open_ is not None else None
    if item is None or not item.options:
        return None
    return lambda text: is_option(item, text)


def answer_outcome(study: Study, context: TurnContext, batch: list[InboxRow], now: datetime) -> Outcome | None:
    """The batch's replies to the item under way; None when the batch is not for the questionnaire."""
    state, open_ = context.state, context.state.questionnaire
    if open_ is None:
        return None
    questionnaire = study.questionnaire(open_.questionnaire_id)
    item = questionnaire.item(open_.item_id) if questionnaire else None
    if questionnaire is None or item is None:  # the protocol changed under it
        state.questionnaire = None
        return None
    hidden: list[int] = []
    late: list[InboxRow] = []
    result: Answer | Reask | None = None
    answered_at = now
    for row, event in zip(batch, context.events, strict=True):
        if isinstance(event, PollVoteReceived):
            if event.purpose != definition.QUESTIONNAIRE_PURPOSE or event.poll_id not in open_.poll_ids:
                continue
            reply: Answer | Reask | None = read_vote(item, list(event.selected))
        elif isinstance(event, MessageReceived):
            text = context.texts.get(row.id, "")
            reply = read_typed(item, text)
            if isinstance(reply, Reask) and item.type is not definition.ItemType.TEXT and is_conversation(text):
                return None  # for the coach (who may flag it); the item is asked again after the reply
        else:
            continue
        said = said_at(event) or now
        if not open_.within(said):  # sent before it was asked or after it closed: it answers no question
            if isinstance(reply, Answer):
                late.append(row)
            continue
        result, answered_at = reply or result, said if reply else answered_at
        if row.message_id is not None and not questionnaire.coach_sees_answers:
            hidden.append(row.message_id)
    if result is None:
        return _late(late) if late else None
    writes: list[TurnWrite] = [Refiled(hidden, MessageKind.QUESTIONNAIRE)] if hidden else []
    return _advance(state, questionnaire, item, open_, result, batch[-1], now, writes, answered_at)


IN_TIME_REPLY = "Thanks! You answered before that question closed, so your answer counts."


def late_tap_outcome(study: Study, context: TurnContext, batch: list[InboxRow], now: datetime) -> Outcome | None:
    """Taps given before their poll's window closed and read after: they answer their item after all."""
    open_ = context.state.questionnaire
    if context.state.status != Status.ACTIVE:
        return None
    writes: list[TurnWrite] = []
    for row, event in zip(batch, context.events, strict=True):
        if (not isinstance(event, PollVoteReceived) or event.asks is None
                or event.purpose != definition.QUESTIONNAIRE_PURPOSE):
            return None
        instance_id, questionnaire_id, item_id, closes = event.asks
        said = said_at(event) or now
        questionnaire = study.questionnaire(questionnaire_id)
        item = questionnaire.item(item_id) if questionnaire is not None else None
        answer = read_vote(item, list(event.selected)) if item is not None else None
        closed_at = datetime.fromisoformat(closes)
        if (open_ is not None and open_.instance_id == instance_id) or not said <= closed_at < now \
                or not isinstance(answer, Answer):
            return None
        writes.append(LateAnswer(instance_id, item_id, answer, said))
        if row.message_id is not None:
            writes.append(MessageNote(row.message_id, {"handled_as": "in_time"}))
    return _in_time(batch, writes)


def late_typed_outcome(study: Study, context: TurnContext, batch: list[InboxRow], now: datetime) -> Outcome | None:
    """Typed answers to the question whose time ran out last, sent before it closed: the newest counts."""
    state, closed = context.state, context.state.questionnaires.closed
    if state.status != Status.ACTIVE or state.questionnaire is not None or closed is None or now <= closed.expires_at:
        return None
    questionnaire = study.questionnaire(closed.questionnaire_id)
    item = questionnaire.item(closed.item_id) if questionnaire is not None else None
    if questionnaire is None or item is None:
        return None
    answers: list[tuple[Answer, datetime]] = []
    for row, event in zip(batch, context.events, strict=True):
        said = said_at(event) if isinstance(event, MessageReceived) else None
        answer = read_typed(item, context.texts.get(row.id, "")) if said is not None else None
        if said is None or not closed.within(said) or not isinstance(answer, Answer):
            return None  # anything else in the batch is for the coach
        answers.append((answer, said))
    state.questionnaires.closed = None
    ids = [row.message_id for row in batch if row.message_id is not None]
    writes: list[TurnWrite] = [LateAnswer(closed.instance_id, item.id, *answers[-1]),
                               *(MessageNote(message_id, {"handled_as": "in_time"}) for message_id in ids)]
    if not questionnaire.coach_sees_answers:
        writes.append(Refiled(ids, MessageKind.QUESTIONNAIRE))
    return _in_time(batch, writes)


def _in_time(batch: list[InboxRow], writes: list[TurnWrite]) -> Outcome:
    return Outcome([Outgoing(keys.reply(batch[-1].id), IN_TIME_REPLY, MessageKind.TEXT)], writes=writes,
                   log=("questionnaire_answer_in_time", {"answers": len(batch)}))


LATE_REPLY = "Thanks! That question had closed when you answered, so this answer isn't counted."


def _late(rows: list[InboxRow]) -> Outcome:
    """Answers given outside every window: kept in the transcript, coded late, counted nowhere."""
    notes = [MessageNote(row.message_id, {"handled_as": "late"}) for row in rows if row.message_id is not None]
    return Outcome([Outgoing(keys.reply(rows[-1].id), LATE_REPLY, MessageKind.TEXT)], writes=list(notes),
                   log=("questionnaire_answer_late", {"answers": len(rows)}), answered=rows)


CONVERSATION_WORDS = 6
"""A typed reply that fits no answer and has this many words is the participant talking."""


def is_conversation(text: str) -> bool:
    """A question or sentence the coach must see although an item waits (to flag distress the crisis list misses)."""
    return "?" in text or len(text.split()) >= CONVERSATION_WORDS


def _advance(state: TurnState, questionnaire: definition.Questionnaire, item: definition.QuestionnaireItem,
             open_: definition.OpenQuestionnaire, result: Answer | Reask, last: InboxRow, now: datetime,
             writes: list[TurnWrite], answered_at: datetime) -> Outcome:
    """``answered_at``: when the participant sent the answer (``now``: when it is processed)."""
    instance_id = open_.instance_id
    if isinstance(result, Reask):
        open_.tries += 1
        if open_.tries < MAX_TRIES:
            reask = Outgoing(keys.questionnaire_message(last.id, "reask"), result.text, hidden(questionnaire, False))
            writes.append(TriesCounted(instance_id, item.id, open_.tries))
            return Outcome([reask], writes=writes, log=("questionnaire_reask", {"item": item.id}))
        outcome: Answer | Missing = Missing.INVALID
    else:
        outcome = result
    tries = open_.tries
    open_.codes[item.id] = list(outcome.codes) if isinstance(outcome, Answer) else []
    following = definition.next_item(questionnaire, {k: tuple(v) for k, v in open_.codes.items()}, after=item.id)
    # the instance's progress is written with the next item asked, or by its end
    writes.append(ItemAnswered(instance_id, item.id, outcome, answered_at, tries=tries, progress=following is None))
    if following is None:
        closing = Outgoing(keys.questionnaire_message(last.id, "closing"), questionnaire.closing or CLOSING,
                           hidden(questionnaire, False))
        return end_outcome(state, questionnaire, open_, definition.InstanceStatus.COMPLETED, now,
                           ended_at=answered_at, outgoing=[closing], writes=writes)
    skipped = questionnaire.items[questionnaire.items.index(item) + 1:questionnaire.items.index(following)]
    ask = ask_item(questionnaire, following, open_, keys.questionnaire_message(last.id, "ask"))
    open_.item_id, open_.tries, open_.poll_ids = following.id, 0, []
    writes += [ItemAnswered(instance_id, candidate.id, Missing.NOT_SHOWN, now) for candidate in skipped]
    writes.append(ItemAsked(open_, state.participant.id, following.id, ask.key, now,
                            after_answer=isinstance(outcome, Answer)))
    return Outcome([ask], writes=writes, log=("questionnaire_answered", {"item": item.id}))


def ask_again_after(outcome: Outcome, state: TurnState, study: Study, last: InboxRow) -> None:
    """The item under way asked again last, after something else was sent in the middle of a questionnaire."""
    open_ = state.questionnaire
    questionnaire = study.questionnaire(open_.questionnaire_id) if open_ else None
    item = questionnaire.item(open_.item_id) if questionnaire and open_ else None
    if open_ is None or questionnaire is None or item is None:
        return
    again = ask_item(questionnaire, item, open_, keys.questionnaire_message(last.id, "ask"), ASKED_AGAIN)
    outcome.outgoing.append(again)
    outcome.writes.append(PollNoted(open_, again.key))
