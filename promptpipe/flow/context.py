"""What a turn reads before it starts, in the transaction that picked its batch."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.polls import DONE_PURPOSE, OPTION_BY_VOTE, POLL_OPTIONS, OpenPoll
from promptpipe.domain.profile import ServerRecord
from promptpipe.flow import intensity
from promptpipe.flow.turn import FlowConfig, TurnContext
from promptpipe.pipeline.events import DailyPromptDue, MessageReceived, PollVoteReceived, ReactionReceived, parse_event
from promptpipe.storage.conversations import read_turn_state
from promptpipe.storage.deliveries import NewestPolls, VoteTarget, messages_by_wa_id, newest_polls_of, vote_targets
from promptpipe.storage.inbox_rows import InboxRow, message_words
from promptpipe.storage.transcript import history_before
from promptpipe.study.store.seed import study_seed

__all__ = ["ANSWER_CHARS", "FOLD_SPAN", "load_context", "open_polls"]

FOLD_SPAN = 3
"""A turn reads at most this many windows of unsummarised history (the rest is folded first)."""
ANSWER_CHARS = 60
"""Messages longer than this are never a typed poll answer (their open polls are not even read)."""


def load_context(session: Session, participant_id: str, batch: list[InboxRow], config: FlowConfig,
                 now: datetime) -> TurnContext:
    message_ids = [item.message_id for item in batch if item.message_id is not None]
    texts_by_id = message_words(session, batch)
    texts = {item.id: texts_by_id.get(item.message_id, "") for item in batch if item.message_id is not None}
    events = [parse_event(item.kind, item.payload) for item in batch]
    may_answer_poll = isinstance(events[0], ReactionReceived) or (isinstance(events[0], MessageReceived) and any(
        len(text) <= ANSWER_CHARS for text in texts.values()))
    state, newest_row = read_turn_state(session, participant_id, with_polls=may_answer_poll)
    state.quiet_hours = config.study.quiet_hours
    # More than the window only when this turn folds into the summary (what it has not covered yet is folded in):
    # otherwise the turn shows the window alone, and reading three windows was a tenth of the turn's database time.
    fold_due = 0 < config.summary_every_turns <= state.turns_since_summary
    history = history_before(session, participant_id, min(message_ids, default=None),
                             (FOLD_SPAN if fold_due else 1) * config.history_window, after_id=state.summary_through)
    context = TurnContext(state, history, texts, events)
    pointed_at = [ref for event in events for ref in _pointed_at(event) if ref]
    context.quoted = messages_by_wa_id(session, participant_id, pointed_at)
    known: dict[int, VoteTarget | None] = {}
    if may_answer_poll:
        record = state.profile.record
        newest = newest_polls_of(session, newest_row, record.intensity_poll_message)
        today = now.astimezone(zone_or_utc(state.timezone)).date().isoformat()
        context.polls = open_polls(newest, record, now, config.typed_answer_window, today=today)
        known = newest.vote_targets() if newest is not None else {}
    poll_ids = {event.poll_id for event in events if isinstance(event, PollVoteReceived) and event.poll_id is not None}
    poll_ids |= {poll.poll_id for poll in context.polls}
    if poll_ids:
        unknown = sorted(poll_ids - known.keys())
        context.targets = vote_targets(session, participant_id, unknown) if unknown else {}
        context.targets.update({poll: target for poll, target in known.items()
                                if target is not None and poll in poll_ids})
    first = events[0]
    if isinstance(first, DailyPromptDue) and not first.manual and config.study.decision is not None:
        context.study_seed = study_seed(session, now, config.study.outside_seed)
    return context


def _pointed_at(event: object) -> tuple[str | None, ...]:
    if isinstance(event, MessageReceived):
        return (event.quoted_message_id,)
    if isinstance(event, ReactionReceived):
        return (event.reacted_to,)
    return ()


def open_polls(newest: NewestPolls | None, record: ServerRecord, now: datetime, lifetime: timedelta, *,
               today: str | None = None) -> list[OpenPoll]:
    """The polls a typed answer may resolve now: the newest prompt's, within ``lifetime`` (0: until the next)."""
    if newest is None or (lifetime > timedelta(0) and now - newest.sent_at > lifetime):
        return []
    same_day = today is None or newest.local_date == today
    polls = []
    if newest.daily is not None:
        polls.append(OpenPoll(
            DONE_PURPOSE, newest.daily.id, newest.daily.options or POLL_OPTIONS,
            OPTION_BY_VOTE.get(newest.vote or ""), moved_on=newest.last_conversational_out > newest.daily.id,
            wa_ids=tuple(wa for wa in (newest.daily.wa_message_id, newest.prompt_wa_id) if wa), same_day=same_day))
    if newest.intensity is not None:
        vote = record.intensity_vote
        chosen = vote.choice if vote is not None and vote.poll == newest.intensity.id else None
        polls.append(OpenPoll(
            intensity.PURPOSE, newest.intensity.id, newest.intensity.options, chosen,
            moved_on=newest.last_conversational_out > newest.intensity.id,
            wa_ids=tuple(wa for wa in (newest.intensity.wa_message_id,) if wa), same_day=same_day))
    return polls
