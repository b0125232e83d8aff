"""Questionnaires in the conversation: one item per message, handled by the server, never by
the model (see :mod:`promptpipe.questionnaires.rules.definition`).

An instance starts with a ``questionnaire`` inbox row (a team's piloting send, or later its
schedule): the intro and the first item go out and the conversation keeps the questionnaire
under way (:class:`~promptpipe.questionnaires.rules.definition.OpenQuestionnaire`), so each later turn
knows it without reading anything more. A tap on the item's poll or a typed reply answers the
item (or earns a short re-ask; after :data:`MAX_TRIES` the item is recorded as invalid), then the
next item whose condition holds is asked, or the closing line ends it. Commands and crisis words
are handled before any of this (STOP ends the questionnaire at once: :func:`close_if_stopped`);
a typed question or sentence that is no answer goes to the coach (who can flag distress the
crisis list does not know), and the item is asked again after the coach's reply (not after a
flag or the safety message: then it waits for its reminder). One ``questionnaire`` timer reminds
while it is open and ends it when its time is up. The coach sees neither the items nor the
answers unless the study file allows it (``coach_sees_answers``): they are kept in the transcript
under kinds hidden from the model. Every write of a turn (the answer, the next item asked, the
instance's state) is in the turn's one commit, so a crash repeats the turn or nothing: no item is
asked twice or skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import parse_hhmm, to_instant, zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.quiet_hours import in_quiet_hours, quiet_period_end
from promptpipe.domain.states import Stage, Status
from promptpipe.domain.timers import TimerKind
from promptpipe.domain.transitions import MOVE_TO
from promptpipe.flow.lifecycle import last_day as last_day_of
from promptpipe.flow.turn import CommitHook, Outcome, Outgoing, TurnContext
from promptpipe.pipeline.events import Enrolled, MessageReceived, PollVoteReceived, QuestionnaireDue
from promptpipe.questionnaires.rules.answers import (
    MAX_TRIES,
    Answer,
    Missing,
    Reask,
    ask_text,
    is_option,
    poll_options,
    read_typed,
    read_vote,
)
from promptpipe.questionnaires.rules.definition import (
    QUESTIONNAIRE_PURPOSE,
    InstanceStatus,
    ItemType,
    OpenQuestionnaire,
    Questionnaire,
    QuestionnaireItem,
    QueuedQuestionnaire,
    SendEvent,
    next_item,
)
from promptpipe.questionnaires.rules.plan import PLAN_AHEAD_DAYS, Planned, plan_days, plan_event, replan_day
from promptpipe.questionnaires.store.writes import (
    Scheduled,
    end_instance,
    record_answer,
    record_asked,
    record_tries,
    reschedule_instance,
    schedule_instance,
)
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.storage.transcript import set_kind
from promptpipe.study.rules.days import study_day
from promptpipe.study.rules.protocol import SELF_REPORT_ID, QuietHours, Study

__all__ = ["answer_outcome", "answering", "ask_again_after", "close_if_stopped", "exit_allowed",
           "questionnaire_due_outcome", "tend"]

CLOSING = "Thank you, that was the last question."
REMINDER = "A gentle reminder: one question is still waiting for your answer."
ASKED_AGAIN = "Back to the question:"


def _hidden(questionnaire: Questionnaire, poll: bool) -> MessageKind:
    if questionnaire.coach_sees_answers:
        return MessageKind.POLL if poll else MessageKind.TEXT
    return MessageKind.QUESTIONNAIRE_POLL if poll else MessageKind.QUESTIONNAIRE


def _ask(questionnaire: Questionnaire, item: QuestionnaireItem, instance_id: int, key: str,
         lead: str | None = None) -> Outgoing:
    payload = {"purpose": QUESTIONNAIRE_PURPOSE, "questionnaire_id": questionnaire.id, "item_id": item.id,
               "instance_id": instance_id}
    if item.is_poll:
        payload |= {"options": list(poll_options(item))}
        if item.type is ItemType.MULTIPLE_CHOICE:
            payload |= {"multiple": True}
        text = item.text
    else:
        text = ask_text(item)
    return Outgoing(key, f"{lead}\n{text}" if lead else text, _hidden(questionnaire, item.is_poll), payload)


def _arm_clock(state: TurnState, questionnaire: Questionnaire, open_: OpenQuestionnaire, sent_at: datetime) -> None:
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


def questionnaire_due_outcome(study: Study, context: TurnContext, item: InboxRow, event: QuestionnaireDue,
                              now: datetime) -> Outcome:
    """Send the instance, remind about the one under way, or end it."""
    state = context.state
    if event.action == "next":
        return _next_due(study, state, item, now)
    questionnaire = study.questionnaire(event.questionnaire_id)
    instance_id = event.instance_id
    if instance_id is None:
        return Outcome(log=("questionnaire_ignored", {"reason": "no instance"}))
    if event.action == "send":
        return _start(state, questionnaire, instance_id, item, now)
    open_ = state.questionnaire
    if open_ is None or open_.instance_id != instance_id or questionnaire is None:
        return Outcome(log=("questionnaire_timer_done", {"outcome": "nothing under way"}))
    sent_at = datetime.fromisoformat(event.sent_at) if event.sent_at else now
    if event.action == "remind" and now < open_.expires_at:
        current = questionnaire.item(open_.item_id)
        open_.reminders_sent += 1
        _arm_clock(state, questionnaire, open_, sent_at)
        if current is None or in_quiet_hours(study.quiet_hours, now, zone_or_utc(state.timezone)):
            return Outcome(log=("questionnaire_reminder_skipped", {"questionnaire": questionnaire.id}))
        reminder = _ask(questionnaire, current, instance_id, keys.questionnaire_message(item.id, "ask"), REMINDER)

        def reminded(session: Session, ids: Mapping[str, int | None]) -> None:
            _note_poll(open_, ids.get(reminder.key))
            record_asked(session, instance_id, state.participant.id, current.id, ids.get(reminder.key), now,
                         reminded=True)

        return Outcome([reminder], hook=reminded, log=("questionnaire_reminded", {"questionnaire": questionnaire.id}))
    return _end(state, questionnaire, open_, InstanceStatus.EXPIRED, Missing.EXPIRED, now, reason="its time ran out")


def _not_sent(instance_id: int, reason: str, now: datetime) -> Outcome:
    def write(session: Session, _: Mapping[str, int | None]) -> None:
        end_instance(session, instance_id, InstanceStatus.NOT_SENT, reason, now)
    return Outcome(hook=write, log=("questionnaire_not_sent", {"instance_id": instance_id, "reason": reason}))


def _start(state: TurnState, questionnaire: Questionnaire | None, instance_id: int, item: InboxRow,
           now: datetime) -> Outcome:
    def not_sent(reason: str) -> Outcome:
        return _not_sent(instance_id, reason, now)

    if questionnaire is None:
        return not_sent("the study file in force has no such questionnaire")
    why = _why_not_sent(state, questionnaire)
    if why is not None:
        return not_sent(why)
    if state.questionnaire is not None:
        return not_sent(f"questionnaire {state.questionnaire.questionnaire_id} was under way")
    first = next_item(questionnaire, {})
    if first is None:
        return not_sent("no item to ask")
    outgoing = []
    if questionnaire.intro:
        outgoing.append(Outgoing(keys.questionnaire_message(item.id, "intro"), questionnaire.intro,
                                 _hidden(questionnaire, False)))
    ask = _ask(questionnaire, first, instance_id, keys.questionnaire_message(item.id, "ask"))
    outgoing.append(ask)
    open_ = OpenQuestionnaire(instance_id, questionnaire.id, first.id, now + questionnaire.open_for)
    state.questionnaire = open_
    _arm_clock(state, questionnaire, open_, now)

    def write(session: Session, ids: Mapping[str, int | None]) -> None:
        _note_poll(open_, ids.get(ask.key))
        record_asked(session, instance_id, state.participant.id, first.id, ids.get(ask.key), now,
                     expires_at=open_.expires_at)

    return Outcome(outgoing, hook=write, log=("questionnaire_sent", {"questionnaire": questionnaire.id,
                                                                    "instance_id": instance_id}))


def _next_due(study: Study, state: TurnState, item: InboxRow, now: datetime) -> Outcome:
    """The planned questionnaires that came due: the first is sent (unless one is under way, or
    the quiet hours are on: then it waits); those whose time ran out unsent are recorded so."""
    queue = state.questionnaires.queue
    missed = [entry for entry in queue if entry.expires_at <= now]
    hooks: list[CommitHook] = [_missed(missed, now)] if missed else []
    queue[:] = [entry for entry in queue if entry.expires_at > now and entry.instance_id is not None]
    due = next((entry for entry in queue if entry.due_at <= now), None)
    quiet_end = quiet_period_end(study.quiet_hours, now, zone_or_utc(state.timezone))
    if due is None or due.instance_id is None or state.questionnaire is not None or quiet_end is not None:
        if state.questionnaire is None:
            _arm_next(state, now, reason="next planned questionnaire", quiet=study.quiet_hours)
        return Outcome(hook=_all(hooks) if hooks else None, log=("questionnaire_timer_done", {"outcome": "waiting"}))
    queue.remove(due)
    last = last_day_of(study, state)
    number = study_day(state.day_one, date.fromisoformat(due.local_date)) if due.local_date else None
    if last is not None and number is not None and number > last:  # the study was shortened
        started = _not_sent(due.instance_id, "after the participant's last study day", now)
    else:
        started = _start(state, study.questionnaire(due.questionnaire_id), due.instance_id, item, now)
    if started.hook is not None:
        hooks.append(started.hook)
    if state.questionnaire is None:  # it could not be sent: the next planned one
        _arm_next(state, now, reason="next planned questionnaire")
    return Outcome(started.outgoing, hook=_all(hooks) if hooks else None, log=started.log)


def _missed(entries: list[QueuedQuestionnaire], now: datetime) -> CommitHook:
    def write(session: Session, _: Mapping[str, int | None]) -> None:
        for entry in entries:
            if entry.instance_id is not None:
                end_instance(session, entry.instance_id, InstanceStatus.NOT_SENT,
                             "its time ran out before it could be sent (not active, or the service was down)", now)
    return write


def _arm_next(state: TurnState, now: datetime, *, reason: str, wake: datetime | None = None,
              quiet: QuietHours | None = None) -> None:
    """Point the questionnaire timer at the next planned questionnaire (none: at ``wake``, when
    more study days are to be planned, or no timer); a moment inside the ``quiet`` hours moves to
    their end (where the timer's own turn would put it: pointing it earlier would only wake it
    again and again)."""
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


def tend(state: TurnState, study: Study, events: Sequence[object], now: datetime) -> CommitHook | None:
    """At every commit that saves the participant's state: end the questionnaire under way if they
    became inactive; plan what an event of this turn brings and the study days up to a week
    ahead; keep the timer on the next planned questionnaire. The writes to add to the commit
    (None: nothing to write)."""
    hooks: list[CommitHook] = []
    stopped = close_if_stopped(state, study, now)
    if stopped is not None:
        hooks.append(stopped)
    if not study.questionnaires:
        return _all(hooks) if hooks else None
    planned: list[Planned] = []
    done = state.questionnaires.planned
    if state.status in (Status.COMPLETED, Status.WITHDRAWN):
        over = _study_over(state, study, now)
        if over is not None:
            hooks.append(over)
        if (state.status == Status.COMPLETED and SendEvent.STUDY_END not in done
                and any(t.name == "study_completed" for t in state.transitions)):  # sent, or coded why not
            planned += plan_event(study, SendEvent.STUDY_END, now)
            done.append(SendEvent.STUDY_END)
    else:
        if SendEvent.ENROLLMENT not in done and any(isinstance(event, Enrolled) for event in events):
            planned += plan_event(study, SendEvent.ENROLLMENT, now)
            done.append(SendEvent.ENROLLMENT)
        if SendEvent.INTAKE_COMPLETE not in done and any(t.name == MOVE_TO[Stage.FEEDBACK] for t in state.transitions):
            planned += plan_event(study, SendEvent.INTAKE_COMPLETE, now)
            done.append(SendEvent.INTAKE_COMPLETE)
        if state.day_one is not None:
            planned += _plan_ahead(state, study, now)
    if planned:
        hooks.append(_write_plans(state, study, planned, now))
    if state.timezone != state.participant.timezone and state.questionnaires.queue:
        hooks.append(_follow_zone(state, study, now))
    if state.questionnaire is None:
        _arm_next(state, now, reason="planned questionnaires", wake=_planning_wakeup(state, study),
                  quiet=study.quiet_hours)
    return _all(hooks) if hooks else None


def exit_allowed(state: TurnState) -> bool:
    """A completed participant may still get the ``study_end`` questionnaires: they ended the
    study as planned, with no opt-out and no pause by the team holding."""
    return state.status == Status.COMPLETED and not state.opted_out and not state.researcher_paused


def answering(state: TurnState) -> bool:
    """Whether the participant's replies may answer the questionnaire under way (an exit
    questionnaire is answered after the study has ended: see :func:`close_if_stopped`)."""
    return state.questionnaire is not None and state.status in (Status.ACTIVE, Status.COMPLETED)


def _why_not_sent(state: TurnState, questionnaire: Questionnaire) -> str | None:
    if state.status == Status.ACTIVE or (questionnaire.send.event is SendEvent.STUDY_END and exit_allowed(state)):
        return None
    held = "opted out" if state.opted_out else "paused by the team" if state.researcher_paused else ""
    if state.status == Status.COMPLETED and held:
        return f"the participant's study ended while {held}"
    return f"the participant is {state.status}" + (f" ({held})" if held and state.status == Status.PAUSED else "")


def _plan_ahead(state: TurnState, study: Study, now: datetime) -> list[Planned]:
    """The study days from where each questionnaire's plan stopped (a questionnaire new to the
    study file: from today) up to :data:`PLAN_AHEAD_DAYS` after today, within the last day."""
    assert state.day_one is not None
    zone = zone_or_utc(state.timezone)
    today = study_day(state.day_one, now.astimezone(zone).date()) or 0
    through = state.questionnaires.days
    if "days" in state.questionnaires.planned:  # planned in full before plans rolled: through the last day
        state.questionnaires.planned.remove("days")
        for q in study.questionnaires:
            if q.send.event is None and q.id != SELF_REPORT_ID:
                through.setdefault(q.id, last_day_of(study, state) or 28)
    last = last_day_of(study, state)
    horizon = today + PLAN_AHEAD_DAYS if last is None else min(today + PLAN_AHEAD_DAYS, last)
    starts = {q.id: through[q.id] + 1 if q.id in through else max(1, today)
              for q in study.questionnaires if q.send.event is None}
    first = min(starts.values(), default=horizon + 1)
    if first > horizon:
        return []
    for questionnaire_id in starts:
        through[questionnaire_id] = max(through.get(questionnaire_id, 0), horizon)
    queued: dict[str, list[datetime]] = {}
    for entry in state.questionnaires.queue:
        if entry.local_date is not None:
            queued.setdefault(entry.local_date, []).append(entry.due_at)
    return plan_days(study, state.participant.id, state.day_one, range(first, horizon + 1), zone,
                     lambda day: _prompt_times(state, day, zone) + queued.get(day.isoformat(), []),
                     lambda questionnaire_id, number: number >= starts[questionnaire_id])


def _planning_wakeup(state: TurnState, study: Study) -> datetime | None:
    """When the plan must move on although nothing is queued (the next study-day questionnaire is
    more than a week away): the local midnight from which that day is within reach."""
    through = state.questionnaires.days
    if state.day_one is None or not through or state.status not in (Status.ACTIVE, Status.PAUSED):
        return None
    last = last_day_of(study, state)
    reach = min(through.values())
    if last is not None and reach >= last:
        return None
    return to_instant(state.day_one + timedelta(days=reach - PLAN_AHEAD_DAYS), time(0, 0),
                      zone_or_utc(state.timezone))


def _study_over(state: TurnState, study: Study, now: datetime) -> CommitHook | None:
    """The study ended for the participant (completed or withdrawn): what was planned and not sent
    is recorded as not sent, except the exit questionnaires of one who completed (their own
    timer sends them, or records why not)."""
    keep = [entry for entry in state.questionnaires.queue if state.status == Status.COMPLETED and (
        (q := study.questionnaire(entry.questionnaire_id)) is not None and q.send.event is SendEvent.STUDY_END)]
    gone = [entry for entry in state.questionnaires.queue if entry not in keep]
    if not gone:
        return None
    state.questionnaires.queue[:] = keep
    reason = ("the participant withdrew before it was sent" if state.status == Status.WITHDRAWN
              else "the participant's study ended before it was sent")

    def write(session: Session, _: Mapping[str, int | None]) -> None:
        for entry in gone:
            if entry.instance_id is not None:
                end_instance(session, entry.instance_id, InstanceStatus.NOT_SENT, reason, now)
    return write


def _prompt_times(state: TurnState, day: date, zone: ZoneInfo) -> list[datetime]:
    """The daily prompts of fixed-time schedules on a local day (a random window's is not known)."""
    times = []
    for entry in state.active_schedules():
        if entry.habit_time:
            wall = datetime.combine(day, parse_hhmm(entry.habit_time)) - timedelta(minutes=entry.prep_minutes)
            times.append(to_instant(wall.date(), wall.time(), zone))
    return times


def _write_plans(state: TurnState, study: Study, planned: list[Planned], now: datetime) -> CommitHook:
    """Queue the plans that have a time (each is written as an instance in the commit, once per
    occasion); record the others as not sent."""
    entries = [(plan, QueuedQuestionnaire(plan.questionnaire_id, plan.due_at, plan.expires_at,
                                          local_date=plan.local_date))
               for plan in planned if plan.due_at is not None and plan.expires_at is not None]
    queued = {id(plan): entry for plan, entry in entries}
    queue = state.questionnaires.queue
    queue.extend(queued.values())
    queue.sort(key=lambda entry: entry.due_at)
    pid = state.participant.id

    def write(session: Session, _: Mapping[str, int | None]) -> None:
        for plan in planned:
            scheduled_at = plan.due_at or (plan.window[0] if plan.window else now)
            instance_id = schedule_instance(session, Scheduled(
                pid, plan.questionnaire_id, plan.occasion, plan.schedule_kind, scheduled_at,
                protocol_hash=study.hash or None, study_day=plan.study_day, local_date=plan.local_date,
                window=plan.window))
            if instance_id is None:
                continue
            if plan.due_at is None:
                end_instance(session, instance_id, InstanceStatus.NOT_SENT, plan.reason, now)
            elif id(plan) in queued:
                queued[id(plan)].instance_id = instance_id
        queue[:] = [entry for entry in queue if entry.instance_id is not None]  # a repeat of an occasion
    return write


def _follow_zone(state: TurnState, study: Study, now: datetime) -> CommitHook:
    """A new time zone: each planned study-day instance moves to its day and time on the new
    clock (a fixed time stays 19:00 where they are now; a drawn minute keeps its draw); one that
    now falls in the past or finds no free minute is recorded as not sent."""
    zone = zone_or_utc(state.timezone)
    moved: list[tuple[int, datetime, tuple[datetime, datetime] | None]] = []
    dropped: list[tuple[int, str]] = []
    taken: dict[str, list[datetime]] = {}
    for entry in sorted(state.questionnaires.queue, key=lambda e: e.due_at):
        if entry.local_date is None or entry.instance_id is None:
            continue
        day = date.fromisoformat(entry.local_date)
        busy = taken.setdefault(entry.local_date, _prompt_times(state, day, zone))
        due = replan_day(study, state.participant.id, entry.questionnaire_id, day, zone, busy)
        questionnaire = study.questionnaire(entry.questionnaire_id)
        if due is None or questionnaire is None:
            continue
        if due.at is None or due.at + questionnaire.open_for <= now:
            dropped.append((entry.instance_id, due.reason or "its time on the new clock had passed"))
            continue
        busy.append(due.at)
        entry.due_at, entry.expires_at = due.at, due.at + questionnaire.open_for
        moved.append((entry.instance_id, due.at, due.window))
    gone = {instance_id for instance_id, _ in dropped}
    state.questionnaires.queue[:] = sorted((e for e in state.questionnaires.queue if e.instance_id not in gone),
                                           key=lambda e: e.due_at)
    if state.questionnaire is None:
        _arm_next(state, now, reason="time zone changed")

    def write(session: Session, _: Mapping[str, int | None]) -> None:
        for instance_id, due_at, window in moved:
            reschedule_instance(session, instance_id, due_at, window)
        for instance_id, reason in dropped:
            end_instance(session, instance_id, InstanceStatus.NOT_SENT, f"time zone changed: {reason}", now)
    return write


def _end(state: TurnState, questionnaire: Questionnaire, open_: OpenQuestionnaire, status: InstanceStatus,
         missing: Missing,
         now: datetime, *, reason: str | None = None, outgoing: list[Outgoing] | None = None,
         hooks: list[CommitHook] | None = None) -> Outcome:
    """Close the questionnaire: the item under way and every later one get ``missing`` (or
    not_shown, when its condition cannot hold any more)."""
    codes = {key: tuple(value) for key, value in open_.codes.items()}
    later = [item for item in questionnaire.items if item.id not in open_.codes]
    state.questionnaire = None
    _arm_next(state, now, reason=f"questionnaire {questionnaire.id} {status}")

    def write(session: Session, ids: Mapping[str, int | None]) -> None:
        for hook in hooks or ():
            hook(session, ids)
        for item in later:
            shown = item.show_if is None or bool(set(codes.get(item.show_if.item, ())) & set(item.show_if.codes))
            record_answer(session, open_.instance_id, item.id, missing if shown else Missing.NOT_SHOWN, now)
        end_instance(session, open_.instance_id, status, reason, now)

    return Outcome(outgoing or [], hook=write, log=("questionnaire_ended", {"questionnaire": questionnaire.id,
                                                                           "status": status}))


def close_if_stopped(state: TurnState, study: Study, now: datetime) -> CommitHook | None:
    """A turn that left the participant inactive (STOP, a pause, a withdrawal) ends the
    questionnaire under way; the writes to add to the turn's commit."""
    open_ = state.questionnaire
    if open_ is None or state.status == Status.ACTIVE:
        return None
    questionnaire = study.questionnaire(open_.questionnaire_id)
    if questionnaire is None:
        state.questionnaire = None
        return None
    if _why_not_sent(state, questionnaire) is None:  # an exit questionnaire, after the study ended
        return None
    return _end(state, questionnaire, open_, InstanceStatus.STOPPED, Missing.STOPPED, now,
                reason=f"the participant is {state.status}").hook


def option_reader(study: Study, state: TurnState) -> Callable[[str], bool] | None:
    """For the item under way, if it has options: whether a typed message is one of them (an
    answer comes before a command its words spell)."""
    open_ = state.questionnaire if answering(state) else None
    questionnaire = study.questionnaire(open_.questionnaire_id) if open_ is not None else None
    item = questionnaire.item(open_.item_id) if questionnaire is not None and open_ is not None else None
    if item is None or not item.options:
        return None
    return lambda text: is_option(item, text)


def answer_outcome(study: Study, context: TurnContext, batch: list[InboxRow], now: datetime) -> Outcome | None:
    """The batch's replies to the item under way; None when the batch is not for the
    questionnaire (a question to the coach: see :func:`ask_again_after`)."""
    state, open_ = context.state, context.state.questionnaire
    if open_ is None:
        return None
    questionnaire = study.questionnaire(open_.questionnaire_id)
    item = questionnaire.item(open_.item_id) if questionnaire else None
    if questionnaire is None or item is None:  # the protocol changed under it
        state.questionnaire = None
        return None
    hooks: list[CommitHook] = []
    hidden: list[int] = []
    result: Answer | Reask | None = None
    for row, event in zip(batch, context.events, strict=True):
        if isinstance(event, PollVoteReceived):
            if event.purpose != QUESTIONNAIRE_PURPOSE or event.poll_id not in open_.poll_ids:
                continue
            result = read_vote(item, list(event.selected)) or result
        elif isinstance(event, MessageReceived):
            text = context.texts.get(row.id, "")
            reply = read_typed(item, text)
            if isinstance(reply, Reask) and item.type is not ItemType.TEXT and is_conversation(text):
                return None  # for the coach (who may flag it); the item is asked again after the reply
            result = reply
        else:
            continue
        if row.message_id is not None and not questionnaire.coach_sees_answers:
            hidden.append(row.message_id)
    if result is None:
        return None
    if hidden:
        hooks.append(lambda session, _: set_kind(session, hidden, MessageKind.QUESTIONNAIRE))
    return _advance(state, questionnaire, item, open_, result, batch[-1], now, hooks)


CONVERSATION_WORDS = 6
"""A typed reply that fits no answer and has this many words is the participant talking, not a
slip at answering ("lots", "seventy or so")."""


def is_conversation(text: str) -> bool:
    """A message the coach must see although an item waits: a question, or a sentence that is no
    answer. The coach could otherwise never flag distress written in words the crisis list lacks."""
    return "?" in text or len(text.split()) >= CONVERSATION_WORDS


def _advance(state: TurnState, questionnaire: Questionnaire, item: QuestionnaireItem, open_: OpenQuestionnaire,
             result: Answer | Reask, last: InboxRow, now: datetime, hooks: list[CommitHook]) -> Outcome:
    instance_id = open_.instance_id
    if isinstance(result, Reask):
        open_.tries += 1
        if open_.tries < MAX_TRIES:
            reask = Outgoing(keys.questionnaire_message(last.id, "reask"), result.text, _hidden(questionnaire, False))
            tries = open_.tries
            hooks.append(lambda session, _: record_tries(session, instance_id, item.id, tries))
            return Outcome([reask], hook=_all(hooks), log=("questionnaire_reask", {"item": item.id}))
        outcome: Answer | Missing = Missing.INVALID
    else:
        outcome = result
    tries = open_.tries
    open_.codes[item.id] = list(outcome.codes) if isinstance(outcome, Answer) else []
    following = next_item(questionnaire, {key: tuple(value) for key, value in open_.codes.items()}, after=item.id)
    # the instance's progress is written with the next item asked, or by its end
    hooks.append(lambda session, _: record_answer(session, instance_id, item.id, outcome, now, tries=tries,
                                                  progress=following is None))
    if following is None:
        closing = Outgoing(keys.questionnaire_message(last.id, "closing"), questionnaire.closing or CLOSING,
                           _hidden(questionnaire, False))
        return _end(state, questionnaire, open_, InstanceStatus.COMPLETED, Missing.NOT_SHOWN, now, outgoing=[closing],
                    hooks=hooks)
    skipped = questionnaire.items[questionnaire.items.index(item) + 1:questionnaire.items.index(following)]
    ask = _ask(questionnaire, following, instance_id, keys.questionnaire_message(last.id, "ask"))
    open_.item_id, open_.tries, open_.poll_ids = following.id, 0, []
    answered = isinstance(outcome, Answer)

    def asked(session: Session, ids: Mapping[str, int | None]) -> None:
        _note_poll(open_, ids.get(ask.key))
        for candidate in skipped:
            record_answer(session, instance_id, candidate.id, Missing.NOT_SHOWN, now)
        record_asked(session, instance_id, state.participant.id, following.id, ids.get(ask.key), now,
                     after_answer=answered)

    hooks.append(asked)
    return Outcome([ask], hook=_all(hooks), log=("questionnaire_answered", {"item": item.id}))


def ask_again_after(outcome: Outcome, state: TurnState, study: Study, last: InboxRow) -> None:
    """After something else was sent in the middle of a questionnaire (the coach's answer to a
    question, the daily prompt): the item under way again, last, so the participant sees where
    they were; a tap on its poll answers the item like one on the first."""
    open_ = state.questionnaire
    questionnaire = study.questionnaire(open_.questionnaire_id) if open_ else None
    item = questionnaire.item(open_.item_id) if questionnaire and open_ else None
    if open_ is None or questionnaire is None or item is None:
        return
    again = _ask(questionnaire, item, open_.instance_id, keys.questionnaire_message(last.id, "ask"), ASKED_AGAIN)
    outcome.outgoing.append(again)
    earlier = outcome.hook

    def noted(session: Session, ids: Mapping[str, int | None]) -> None:
        if earlier is not None:
            earlier(session, ids)
        _note_poll(open_, ids.get(again.key))
    outcome.hook = noted


def _note_poll(open_: OpenQuestionnaire, message_id: int | None) -> None:
    """The transcript id of the message that asked the current item (in the commit, before the
    conversation is saved): a vote on that poll answers it."""
    if message_id is not None:
        open_.poll_ids.append(message_id)


def _all(hooks: list[CommitHook]) -> CommitHook:
    def write(session: Session, ids: Mapping[str, int | None]) -> None:
        for hook in hooks:
            hook(session, ids)
    return write


