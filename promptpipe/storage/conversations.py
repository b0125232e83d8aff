"""The one write path for a participant's state and the transitions, consent, schedules and timers it carries. Every
write bumps the conversation version, so a turn that read the state before another change (a researcher's pause, another
node) fails its commit with :class:`VersionConflict` and runs again instead of writing its stale copy back.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import and_, bindparam, exists, select, true, update
from sqlalchemy.orm import Session

from promptpipe.domain.consent import ConsentKind
from promptpipe.domain.conversation import ParticipantInfo, PendingTimer, ScheduleEntry, TurnState
from promptpipe.domain.profile import Profile
from promptpipe.errors import StorageError
from promptpipe.questionnaires.rules.definition import QuestionnaireState
from promptpipe.storage.consent import record_consent
from promptpipe.storage.deliveries import NEWEST_POLLS_ROW
from promptpipe.storage.models import Conversation, Participant, ToneEvent, Transition, table_of
from promptpipe.storage.outbox_consent import cancel_unconsented
from promptpipe.storage.prepared import Prepared
from promptpipe.storage.prompt_tables import PromptDelivery, Schedule
from promptpipe.storage.queue_tables import Timer, TimerStatus
from promptpipe.storage.schedules import SCHEDULE_ENTRY_COLUMNS, apply_timer_ops, save_schedules
from promptpipe.storage.suppression import lift

__all__ = ["VersionConflict", "load_turn_state", "read_turn_state", "save_turn_state"]

_PARTICIPANT = table_of(Participant)
_CONVERSATION = table_of(Conversation)
_SCHEDULE, _TIMER, _DELIVERY = table_of(Schedule), table_of(Timer), table_of(PromptDelivery)
_TIMER_COLUMNS = (_TIMER.c.id, _TIMER.c.kind, _TIMER.c.due_at, _TIMER.c.payload)
_STATE_COLUMNS = (
    _PARTICIPANT.c.id, _PARTICIPANT.c.phone, _PARTICIPANT.c.name, _PARTICIPANT.c.timezone, _PARTICIPANT.c.status,
    _PARTICIPANT.c.background, _PARTICIPANT.c.lid, _PARTICIPANT.c.paused_by, _PARTICIPANT.c.opted_out,
    _PARTICIPANT.c.researcher_paused, _CONVERSATION.c.sub_state, _CONVERSATION.c.profile, _CONVERSATION.c.version,
    _CONVERSATION.c.tone, _CONVERSATION.c.summary, _CONVERSATION.c.summary_through,
    _CONVERSATION.c.turns_since_summary, _PARTICIPANT.c.arm, _PARTICIPANT.c.day_one, _PARTICIPANT.c.extra_days,
    _PARTICIPANT.c.completed_at, _PARTICIPANT.c.enrolled_at, _CONVERSATION.c.questionnaire,
    exists().where(_DELIVERY.c.participant_id == _PARTICIPANT.c.id).label("ever_prompted"), _PARTICIPANT.c.number,
    _PARTICIPANT.c.own_consent_at)
_TURN_STATE = (
    select(*_STATE_COLUMNS, *(column.label(f"s_{column.name}") for column in SCHEDULE_ENTRY_COLUMNS),
           *(column.label(f"t_{column.name}") for column in _TIMER_COLUMNS))
    .select_from(
        _PARTICIPANT.join(_CONVERSATION, _CONVERSATION.c.participant_id == _PARTICIPANT.c.id)
        .outerjoin(_SCHEDULE, and_(_SCHEDULE.c.participant_id == _PARTICIPANT.c.id, _SCHEDULE.c.active.is_(True)))
        .outerjoin(_TIMER, and_(_TIMER.c.participant_id == _PARTICIPANT.c.id, _TIMER.c.status == TimerStatus.PENDING)))
    .where(_PARTICIPANT.c.id == bindparam("pid"))
    .order_by(_SCHEDULE.c.created_at, _SCHEDULE.c.id, _TIMER.c.id)
)
"""The participant, their conversation, active schedules and pending timers in one read every turn: a row per
(schedule, timer) pair (a handful at most), or one row with empty schedule and timer columns."""
_TURN_STATE_ONLY = Prepared(_TURN_STATE)
_PARTICIPANT_WIDTH, _SCHEDULE_WIDTH = len(_STATE_COLUMNS), len(SCHEDULE_ENTRY_COLUMNS)
_TIMER_END = _PARTICIPANT_WIDTH + _SCHEDULE_WIDTH + len(_TIMER_COLUMNS)
_TURN_STATE_AND_POLLS = Prepared(
    _TURN_STATE.add_columns(*NEWEST_POLLS_ROW.c)
    .outerjoin(NEWEST_POLLS_ROW, true())
)
"""The same, with the newest prompt's polls joined to every row: what a short message may answer, in one statement."""


_SAVE_CONVERSATION = Prepared(
    update(_CONVERSATION)
    .where(_CONVERSATION.c.participant_id == bindparam("pid"), _CONVERSATION.c.version == bindparam("read_version"))
    .values(sub_state=bindparam("new_sub_state"), profile=bindparam("new_profile"), tone=bindparam("new_tone"),
            summary=bindparam("new_summary"), summary_through=bindparam("new_summary_through"),
            turns_since_summary=bindparam("new_turns_since_summary"), version=bindparam("new_version"),
            questionnaire=bindparam("new_questionnaire"), updated_at=bindparam("now"))
)
"""Built once: it runs with every turn's commit (building a statement costs more than running it)."""


class VersionConflict(StorageError):
    """Someone else changed the conversation during the turn; the turn runs again."""


def load_turn_state(session: Session, participant_id: str) -> TurnState:
    return read_turn_state(session, participant_id, with_polls=False)[0]


def read_turn_state(session: Session, participant_id: str, *,
                    with_polls: bool) -> tuple[TurnState, tuple[Any, ...] | None]:
    """The turn's state and, ``with_polls``, the row of :data:`.deliveries.NEWEST_POLLS_ROW` read with it."""
    statement = _TURN_STATE_AND_POLLS if with_polls else _TURN_STATE_ONLY
    rows = statement.rows(session.connection(), {"pid": participant_id})
    if not rows:
        raise StorageError(f"participant {participant_id} has no conversation row")
    (pid, phone, name, timezone, status, background, lid, paused_by, opted_out, researcher_paused, sub_state, profile,
     version, tone, summary, summary_through, turns_since_summary, arm, day_one, extra_days, completed_at,
     enrolled_at, questionnaire, ever_prompted, number, own_consent_at) = rows[0][:_PARTICIPANT_WIDTH]
    schedules: dict[str, ScheduleEntry] = {}
    timers: dict[int, PendingTimer] = {}
    for row in rows:
        schedule = row[_PARTICIPANT_WIDTH:_PARTICIPANT_WIDTH + _SCHEDULE_WIDTH]
        if schedule[0] is not None and schedule[0] not in schedules:
            schedules[schedule[0]] = ScheduleEntry(*schedule)
        timer_id, kind, due_at, payload = row[_PARTICIPANT_WIDTH + _SCHEDULE_WIDTH:_TIMER_END]
        if timer_id is not None and timer_id not in timers:
            timers[timer_id] = PendingTimer(timer_id, kind, due_at, dict(payload))
    info = ParticipantInfo(id=pid, phone=phone, name=name, timezone=timezone, status=status,
                           background=background, lid=lid, paused_by=paused_by, opted_out=bool(opted_out),
                           researcher_paused=bool(researcher_paused), arm=arm,
                           day_one=date.fromisoformat(day_one) if day_one else None, extra_days=extra_days or 0,
                           completed=completed_at is not None, enrolled_at=enrolled_at, number=number,
                           own_consent_at=own_consent_at)
    state = TurnState(participant=info, sub_state=sub_state, profile=Profile.from_json(profile), version=version,
                      schedules=list(schedules.values()), pending_timers={t.kind: t for t in timers.values()},
                      tone=dict(tone or {}), summary=summary or "", summary_through=summary_through or 0,
                      turns_since_summary=turns_since_summary or 0, ever_prompted=bool(ever_prompted),
                      questionnaires=QuestionnaireState.from_json(questionnaire))
    return state, (tuple(rows[0][_TIMER_END:]) if with_polls else None)


def save_turn_state(session: Session, state: TurnState, now: datetime) -> None:
    """Write the working copy back unless someone changed it meanwhile (VersionConflict), and what the turn changed."""
    changed_rows = _SAVE_CONVERSATION.changed(session.connection(), {
        "pid": state.participant.id, "read_version": state.version, "new_sub_state": state.sub_state,
        "new_profile": state.profile.to_json(), "new_tone": state.tone, "new_summary": state.summary,
        "new_summary_through": state.summary_through, "new_turns_since_summary": state.turns_since_summary,
        "new_version": state.version + 1, "now": now,
        "new_questionnaire": state.questionnaires.to_json()})
    if changed_rows != 1:
        raise VersionConflict(f"conversation of {state.participant.id} changed during the turn")
    state.version += 1
    person = state.participant
    changed: dict[str, object] = {}
    if state.status_facts != (person.status, person.paused_by, person.opted_out, person.researcher_paused,
                              person.completed):
        changed.update(status=state.status, paused_by=state.paused_by, opted_out=state.opted_out,
                       researcher_paused=state.researcher_paused)
    if state.completed != person.completed:
        changed.update(completed_at=now if state.completed else None)
    if state.day_one != person.day_one:
        changed.update(day_one=state.day_one.isoformat() if state.day_one else None)
    for name in ("timezone", "extra_days", "number", "own_consent_at"):
        if getattr(state, name) != getattr(person, name):
            changed[name] = getattr(state, name)
    if changed:
        session.connection().execute(
            update(_PARTICIPANT).where(_PARTICIPANT.c.id == person.id).values(**changed, updated_at=now))
        cancel_unconsented(session, person.id)  # STOP, a pause or a withdrawal: nothing queued goes out
    if any(record.event == ConsentKind.OPTED_IN for record in state.consent):
        lift(session, person.phone)  # their own START: the number leaves the suppression list, if on it
    record_consent(session, person.id, state.consent, now)
    state.consent.clear()
    save_schedules(session, state.participant.id, state.schedules, now)
    state.committed_timer_changes = apply_timer_ops(session, state.participant.id, state.timer_ops, now)
    state.timer_ops.clear()
    session.add_all(Transition(participant_id=person.id, kind=change.kind, name=change.name, actor=change.actor,
                               from_value=change.from_value, to_value=change.to_value, reason=change.reason,
                               created_at=now) for change in state.transitions)
    state.transitions.clear()
    session.add_all(ToneEvent(participant_id=person.id, source=tone.proposal.source, proposed=list(tone.proposal.tags),
                              stripped=list(tone.proposal.stripped), outcome=tone.outcome,
                              active_before=list(tone.before.active), active_after=list(tone.after.active),
                              scores=dict(tone.after.scores), created_at=now) for tone in state.tone_updates)
    state.tone_updates.clear()
