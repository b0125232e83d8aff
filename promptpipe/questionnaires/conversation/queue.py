"""The questionnaire timer and the planning every commit does: the study days up to a week ahead and a turn's events
are planned as instances and queued, the first due is sent; one left out is recorded as not sent."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from promptpipe.domain import keys
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import to_instant, zone_or_utc
from promptpipe.domain.quiet_hours import in_quiet_hours, quiet_period_end
from promptpipe.domain.states import Stage, Status
from promptpipe.domain.transitions import MOVE_TO
from promptpipe.flow.lifecycle import last_day as last_day_of
from promptpipe.flow.turn import Outcome, TurnContext
from promptpipe.pipeline import turn_writes
from promptpipe.pipeline.events import Enrolled, QuestionnaireDue
from promptpipe.questionnaires.conversation import instance
from promptpipe.questionnaires.rules.definition import EndReason, InstanceStatus, QueuedQuestionnaire, SendEvent
from promptpipe.questionnaires.rules.plan import PLAN_AHEAD_DAYS, Planned, plan_days, plan_event, replan_day
from promptpipe.questionnaires.store.writes import Scheduled
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.study.rules.days import study_day
from promptpipe.study.rules.protocol import SELF_REPORT_ID, Study

__all__ = ["questionnaire_due_outcome", "tend"]


REMINDER = "A gentle reminder: one question is still waiting for your answer."


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
        return instance.start_outcome(state, questionnaire, instance_id, item, now)
    open_ = state.questionnaire
    if open_ is None or open_.instance_id != instance_id or questionnaire is None:
        return Outcome(log=("questionnaire_timer_done", {"outcome": "nothing under way"}))
    sent_at = datetime.fromisoformat(event.sent_at) if event.sent_at else now
    if event.action == "remind" and now < open_.expires_at:
        current = questionnaire.item(open_.item_id)
        open_.reminders_sent += 1
        instance.arm_clock(state, questionnaire, open_, sent_at)
        if current is None or in_quiet_hours(study.quiet_hours, now, zone_or_utc(state.timezone)):
            return Outcome(log=("questionnaire_reminder_skipped", {"questionnaire": questionnaire.id}))
        key = keys.questionnaire_message(item.id, "ask")
        reminder = instance.ask_item(questionnaire, current, open_, key, REMINDER)
        asked = turn_writes.ItemAsked(open_, state.participant.id, current.id, reminder.key, now, reminded=True)
        return Outcome([reminder], writes=[asked], log=("questionnaire_reminded", {"questionnaire": questionnaire.id}))
    return instance.end_outcome(state, questionnaire, open_, InstanceStatus.EXPIRED, now,
                                reason=EndReason.WINDOW_CLOSED, ended_at=min(now, open_.expires_at))


def _next_due(study: Study, state: TurnState, item: InboxRow, now: datetime) -> Outcome:
    """The first planned questionnaire due is sent (unless one is under way, or quiet hours are on)."""
    queue = state.questionnaires.queue
    writes = _not_sent([entry for entry in queue if entry.expires_at <= now], EndReason.NOT_SENT_IN_TIME, now)
    queue[:] = [entry for entry in queue if entry.expires_at > now and entry.instance_id is not None]
    due = next((entry for entry in queue if entry.due_at <= now), None)
    quiet_end = quiet_period_end(study.quiet_hours, now, zone_or_utc(state.timezone))
    if due is None or due.instance_id is None or state.questionnaire is not None or quiet_end is not None:
        if state.questionnaire is None:
            instance.arm_next(state, now, reason="next planned questionnaire", quiet=study.quiet_hours)
        return Outcome(writes=writes, log=("questionnaire_timer_done", {"outcome": "waiting"}))
    queue.remove(due)
    last = last_day_of(study, state)
    number = study_day(state.day_one, date.fromisoformat(due.local_date)) if due.local_date else None
    if last is not None and number is not None and number > last:  # the study was shortened
        started = instance.not_sent_outcome(due.instance_id, EndReason.PAST_LAST_DAY, now)
    else:
        started = instance.start_outcome(state, study.questionnaire(due.questionnaire_id), due.instance_id, item, now)
    if state.questionnaire is None:  # it could not be sent: the next planned one
        instance.arm_next(state, now, reason="next planned questionnaire")
    return Outcome(started.outgoing, writes=[*writes, *started.writes], log=started.log)


def _not_sent(entries: list[QueuedQuestionnaire], reason: EndReason, now: datetime) -> list[turn_writes.TurnWrite]:
    return [turn_writes.InstanceEnded(entry.instance_id, InstanceStatus.NOT_SENT, reason, now)
            for entry in entries if entry.instance_id is not None]


def tend(state: TurnState, study: Study, events: Sequence[object], now: datetime) -> list[turn_writes.TurnWrite]:
    """At every commit that saves the participant's state: end, plan and keep the timer; the writes for the commit."""
    writes = instance.close_if_stopped(state, study, now)
    if not study.questionnaires:
        return writes
    planned: list[Planned] = []
    done = state.questionnaires.planned
    if state.status in (Status.COMPLETED, Status.WITHDRAWN):
        writes += _study_over(state, study, now)
        # after an extension past an earlier end, the exit questionnaires' occasion is study_end_day_<last study day>
        end = (f"{SendEvent.STUDY_END}_day_{last_day_of(study, state)}" if SendEvent.STUDY_END in done
               else SendEvent.STUDY_END.value)
        if (state.status == Status.COMPLETED and end not in done
                and any(t.name == "study_completed" for t in state.transitions)):  # sent, or coded why not
            planned += plan_event(study, SendEvent.STUDY_END, now, end)
            done.append(end)
        elif state.status == Status.WITHDRAWN and end not in done:  # a row that says why it stays empty
            planned += [replace(plan, due_at=None, expires_at=None, reason=EndReason.WITHDRAWN)
                        for plan in plan_event(study, SendEvent.STUDY_END, now, end)]
            done.append(end)
    else:
        if any(t.name == "reopened_by_researcher" for t in state.transitions):
            writes += _reopened(state, study, now)
        if SendEvent.ENROLLMENT not in done and any(isinstance(event, Enrolled) for event in events):
            planned += plan_event(study, SendEvent.ENROLLMENT, now)
            done.append(SendEvent.ENROLLMENT)
        if SendEvent.INTAKE_COMPLETE not in done and any(t.name == MOVE_TO[Stage.FEEDBACK] for t in state.transitions):
            planned += plan_event(study, SendEvent.INTAKE_COMPLETE, now)
            done.append(SendEvent.INTAKE_COMPLETE)
        if state.day_one is not None:
            planned += _plan_ahead(state, study, now)
    if planned:
        writes.append(_write_plans(state, study, planned, now))
    if state.timezone != state.participant.timezone and state.questionnaires.queue:
        writes += _follow_zone(state, study, now)
    if state.questionnaire is None:
        instance.arm_next(state, now, reason="planned questionnaires", wake=_planning_wakeup(state, study),
                          quiet=study.quiet_hours)
    return writes


def _plan_ahead(state: TurnState, study: Study, now: datetime) -> list[Planned]:
    """From where each questionnaire's plan stopped (or today) up to :data:`PLAN_AHEAD_DAYS` ahead."""
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
    """When the plan must move on although nothing is queued (the next one is more than a week away)."""
    through = state.questionnaires.days
    if state.day_one is None or not through or state.status not in (Status.ACTIVE, Status.PAUSED):
        return None
    last = last_day_of(study, state)
    reach = min(through.values())
    if last is not None and reach >= last:
        return None
    return to_instant(state.day_one + timedelta(days=reach - PLAN_AHEAD_DAYS), time(0, 0),
                      zone_or_utc(state.timezone))


def _study_over(state: TurnState, study: Study, now: datetime) -> list[turn_writes.TurnWrite]:
    """The study ended for them: what was planned is recorded as not sent, but a completer's exit questionnaires."""
    keep = [entry for entry in state.questionnaires.queue if state.status == Status.COMPLETED and (
        (q := study.questionnaire(entry.questionnaire_id)) is not None and q.send.event is SendEvent.STUDY_END)]
    gone = [entry for entry in state.questionnaires.queue if entry not in keep]
    if not gone:
        return []
    state.questionnaires.queue[:] = keep
    return _not_sent(gone, EndReason.WITHDRAWN if state.status == Status.WITHDRAWN else EndReason.STUDY_OVER, now)


def _reopened(state: TurnState, study: Study, now: datetime) -> list[turn_writes.TurnWrite]:
    """A completed participant's study was extended: its exit questionnaire stops and is asked at the new end."""
    def is_exit(questionnaire_id: str) -> bool:
        questionnaire = study.questionnaire(questionnaire_id)
        return questionnaire is not None and questionnaire.send.event is SendEvent.STUDY_END

    queue = state.questionnaires.queue
    writes = _not_sent([entry for entry in queue if is_exit(entry.questionnaire_id)], EndReason.STUDY_EXTENDED, now)
    queue[:] = [entry for entry in queue if not is_exit(entry.questionnaire_id)]
    open_ = state.questionnaire
    if open_ is not None and (exit_ := study.questionnaire(open_.questionnaire_id)) is not None and is_exit(exit_.id):
        writes += instance.end_outcome(state, exit_, open_, InstanceStatus.STOPPED, now,
                                       reason=EndReason.STUDY_EXTENDED).writes
    return writes


def _prompt_times(state: TurnState, day: date, zone: ZoneInfo) -> list[datetime]:
    """The daily prompts of fixed-time schedules on a local day (a random window's is not known)."""
    return [entry.spec().fire_at(day, zone) for entry in state.active_schedules() if entry.habit_time]


def _write_plans(state: TurnState, study: Study, planned: list[Planned], now: datetime) -> turn_writes.InstancesPlanned:
    """Queue the plans that have a time; record the others as not sent."""
    entries = [(plan, QueuedQuestionnaire(plan.questionnaire_id, plan.due_at, plan.expires_at,
                                          local_date=plan.local_date))
               for plan in planned if plan.due_at is not None and plan.expires_at is not None]
    queued = {id(plan): entry for plan, entry in entries}
    queue = state.questionnaires.queue
    queue.extend(queued.values())
    queue.sort(key=lambda entry: entry.due_at)
    return turn_writes.InstancesPlanned([turn_writes.PlannedInstance(
        Scheduled(state.participant.id, plan.questionnaire_id, plan.occasion, plan.schedule_kind,
                  plan.due_at or (plan.window[0] if plan.window else now), protocol_hash=study.hash or None,
                  study_day=plan.study_day, local_date=plan.local_date, window=plan.window),
        queued.get(id(plan)), plan.due_at is None, plan.reason) for plan in planned], queue, now)


def _follow_zone(state: TurnState, study: Study, now: datetime) -> list[turn_writes.TurnWrite]:
    """A new time zone: each planned study-day instance moves to its day and time on the new clock (or is not sent)."""
    zone = zone_or_utc(state.timezone)
    moved: list[tuple[int, datetime, tuple[datetime, datetime] | None]] = []
    dropped: list[int] = []
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
            dropped.append(entry.instance_id)
            continue
        busy.append(due.at)
        entry.due_at, entry.expires_at = due.at, due.at + questionnaire.open_for
        moved.append((entry.instance_id, due.at, due.window))
    gone = set(dropped)
    state.questionnaires.queue[:] = sorted((e for e in state.questionnaires.queue if e.instance_id not in gone),
                                           key=lambda e: e.due_at)
    if state.questionnaire is None:
        instance.arm_next(state, now, reason="time zone changed")
    return [*(turn_writes.InstanceMoved(instance_id, due_at, window) for instance_id, due_at, window in moved),
            *(turn_writes.InstanceEnded(instance_id, InstanceStatus.NOT_SENT, EndReason.TIME_ZONE_CHANGED, now)
              for instance_id in dropped)]
