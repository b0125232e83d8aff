"""Alarms into the inbox: one transaction per batch of alarms (few, set-based statements), each keyed so a repeat is a
no-op. A daily alarm becomes a ``daily_prompt`` row; a timer alarm settles its ``timer`` row (pending → fired,
compare-and-set) and becomes a ``timer`` row. One too late is recorded *missed* (a daily prompt as a missed inbox row
and an unavailable decision point; a timer as missed, unless it ``FIRES_LATE``). Alarms of withdrawn or completed
participants, deleted or changed schedules and cancelled timers are dropped, whatever the job store held; a paused
participant's daily alarm still becomes a row (the flow sends nothing), as does the end of their study.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.localtime import DailySpec, zone_or_utc
from promptpipe.domain.states import ALARMED, Status
from promptpipe.domain.timers import FIRES_LATE, RUNS_AFTER_COMPLETION, RUNS_WHILE_PAUSED
from promptpipe.logging import get_logger
from promptpipe.pipeline.events import DailyPromptDue, as_input, parse_event, timer_event
from promptpipe.scheduling.jobs import DAILY, Alarm
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import InputValues, NewInput, add_input_values, add_inputs, input_values
from promptpipe.storage.missed_decisions import MissedPoint, record_missed_decisions
from promptpipe.storage.participants import statuses_and_zones
from promptpipe.storage.queue_tables import TimerStatus
from promptpipe.storage.schedules import (
    DailyAlarmFacts,
    FactsRow,
    daily_alarm_facts,
    daily_alarm_rows,
    facts_of,
    settle_timers,
    timers_by_id,
)
from promptpipe.study.rules.protocol import Study

log = get_logger("promptpipe.scheduling")


@dataclass
class Delivered:
    """What a batch of alarms did."""

    queued: list[str] = field(default_factory=list)
    """Participants with a new inbox row (their lanes are woken)."""
    missed: int = 0
    dropped: int = 0


def deliver_alarms(db: Database, session: Session, alarms: Sequence[Alarm], now: datetime, *,
                   study: Study) -> Delivered:
    """``study``: the protocol the service runs (a missed point is drawn under its seed)."""
    result = Delivered()
    rows: list[NewInput] = []
    daily = [a for a in alarms if a.kind == DAILY]
    if daily:
        rows += _daily_rows(db, session, daily, result, study)
    timers = [a for a in alarms if a.kind != DAILY]
    if timers:
        rows += _timer_rows(db, session, timers, now, result)
    if rows:
        written = add_inputs(db, session, rows, now)
        missed: list[MissedPoint] = []
        for row in rows:
            if row.key not in written:
                continue
            if row.status == TimerStatus.MISSED:
                result.missed += 1
                prompt = parse_event(row.kind, row.payload)
                assert isinstance(prompt, DailyPromptDue) and prompt.due_at is not None
                log.warning("daily_prompt_missed", participant_id=row.participant_id, schedule_id=prompt.schedule_id,
                            local_date=prompt.local_date, due_at=prompt.due_at,
                            late_s=round((now - datetime.fromisoformat(prompt.due_at)).total_seconds()))
                missed.append(MissedPoint(row.participant_id, written[row.key], prompt.schedule_id,
                                          prompt.local_date or "", datetime.fromisoformat(prompt.due_at)))
            else:
                result.queued.append(row.participant_id)
        record_missed_decisions(session, missed, now, study)
    return result


def _daily_rows(db: Database, session: Session, alarms: list[Alarm], result: Delivered, study: Study,
                facts: dict[str, DailyAlarmFacts] | None = None) -> list[NewInput]:
    """``facts``: those of these alarms' schedules, when just read."""
    if facts is None:
        facts = daily_alarm_facts(db, session, {a.ref for a in alarms})
    rows, rules = [], _DailyRules(study)
    for alarm in alarms:
        row = rules.row(alarm, facts.get(alarm.ref))
        if isinstance(row, NewInput):
            rows.append(row)
            continue
        result.dropped += 1
        why, when = row
        log.info("daily_alarm_dropped", participant_id=alarm.participant_id, schedule_id=alarm.ref, why=why, **when)
    return rows


class _DailyRules:
    """A daily alarm's inbox row, or why it has none. A burst's alarms share a few arms, specs, zones and instants:
    each answer is worked out once per batch."""

    def __init__(self, study: Study) -> None:
        self.study = study
        self.model_free: dict[str | None, bool] = {}
        self.days: dict[tuple[DailySpec, str, datetime], date | None] = {}

    def row(self, alarm: Alarm, found: DailyAlarmFacts | None) -> NewInput | tuple[str, dict[str, str]]:
        pid = alarm.participant_id
        if found is None or not found.schedule.active or found.participant_id != pid:
            return "schedule deleted", {}
        if found.status not in ALARMED:
            return f"participant {found.status}", {}
        if (day := _day_of_fire(self.days, found.schedule.spec(), found.timezone, alarm.scheduled_for)) is None:
            # the schedule or the zone changed after this alarm was set
            return "schedule changed", {"scheduled_for": alarm.scheduled_for.isoformat()}
        if found.arm not in self.model_free:
            self.model_free[found.arm] = not self.study.prompts_need_model(found.arm)
        prompt = DailyPromptDue(schedule_id=found.schedule.id, local_date=day.isoformat(),
                                due_at=alarm.scheduled_for.isoformat(), model_free=self.model_free[found.arm])
        return as_input(prompt, key=keys.daily_prompt(pid, found.schedule.id, day), participant_id=pid,
                        status=TimerStatus.MISSED if alarm.missed else TimerStatus.PENDING)


# -- prepared before due ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PreparedPrompt:
    """A daily alarm's inbox row worked out before it is due, with the facts it was built from: at due it is only
    written, if those facts still hold (:func:`deliver_prepared`). Held by the thousand for a few seconds: only what
    the pass at due needs (its row as :func:`input_values`, not also as a :class:`NewInput`)."""

    alarm: Alarm
    found: FactsRow
    """Its schedule and participant as read when it was prepared."""
    values: InputValues = field(compare=False, repr=False)
    """The row's values (:func:`input_values`)."""

    @property
    def key(self) -> str:
        return self.values["key"]

    @property
    def participant_id(self) -> str:
        return self.values["participant_id"]


def prepare_daily_rows(db: Database, session: Session, alarms: Sequence[Alarm], *,
                       study: Study) -> list[PreparedPrompt]:
    """The rows these alarms (not yet due, none missed) would write; one that would be dropped is left out (the pass
    at due works it out and logs it as ever). Writes nothing."""
    found = daily_alarm_rows(db, session, {a.ref for a in alarms})
    rules, prepared = _DailyRules(study), []
    shared: dict[tuple[type, object], object] = {}
    """A burst's facts repeat (kind, habit time, status, zone): one object each, not one per row held."""
    for alarm in alarms:
        read = found.get(alarm.ref)
        if read is not None and isinstance(row := rules.row(alarm, facts_of(read)), NewInput):
            kept = tuple(shared.setdefault((type(value), value), value) for value in read)
            values = input_values(row)
            values["payload"] = {name: shared.setdefault((str, value), value) if isinstance(value, str) else value
                                 for name, value in row.payload.items()}  # its local date and due time
            prepared.append(PreparedPrompt(alarm, kept, values))
    return prepared


def deliver_prepared(db: Database, session: Session, prepared: Sequence[PreparedPrompt], now: datetime, *,
                     study: Study) -> Delivered:
    """At due: the prepared rows whose schedule and participant (status, zone, arm) read as they did when prepared are
    written; the others go the way of any alarm, by what the tables say now (a participant who withdrew gets
    nothing). Read again in the transaction that writes, so no change commits between the check and the rows."""
    result = Delivered()
    found = daily_alarm_rows(db, session, {p.alarm.ref for p in prepared})
    same = [p for p in prepared if found.get(p.alarm.ref) == p.found]
    written = add_input_values(db, session, list({p.key: p.values for p in same}.values()), now)
    result.queued += [p.participant_id for p in same if p.key in written]
    if len(same) < len(prepared):
        changed = [p.alarm for p in prepared if found.get(p.alarm.ref) != p.found]
        facts = {alarm.ref: facts_of(read) for alarm in changed if (read := found.get(alarm.ref)) is not None}
        rows = _daily_rows(db, session, changed, result, study, facts)
        more = add_inputs(db, session, rows, now)
        result.queued += [row.participant_id for row in rows if row.key in more]
    return result


def _day_of_fire(days: dict[tuple[DailySpec, str, datetime], date | None], spec: DailySpec,
                 zone: str, fired: datetime) -> date | None:
    key = (spec, zone, fired)
    if key not in days:
        days[key] = spec.day_of_fire(fired, zone_or_utc(zone))
    return days[key]


def _timer_rows(db: Database, session: Session, alarms: list[Alarm], now: datetime,
                result: Delivered) -> list[NewInput]:
    """Settle the timers (one compare-and-set statement per outcome); only those still pending count."""
    people = statuses_and_zones(db, session, {a.participant_id for a in alarms})
    by_outcome: dict[str, list[int]] = {TimerStatus.FIRED: [], TimerStatus.MISSED: [], TimerStatus.CANCELLED: []}

    def status_of(alarm: Alarm) -> str:
        return (people.get(alarm.participant_id) or ("", ""))[0]

    paused = [int(a.ref) for a in alarms if status_of(a) == Status.PAUSED]
    runs_anyway = {t.id for t in timers_by_id(db, session, paused) if t.kind in RUNS_WHILE_PAUSED}
    completed = [int(a.ref) for a in alarms if status_of(a) == Status.COMPLETED]
    if completed:  # the exit questionnaires' timer
        runs_anyway |= {t.id for t in timers_by_id(db, session, completed) if t.kind in RUNS_AFTER_COMPLETION}
    late = [int(a.ref) for a in alarms if a.missed]
    fires_late = {t.id for t in timers_by_id(db, session, late) if t.kind in FIRES_LATE} if late else set()
    for alarm in alarms:
        person = people.get(alarm.participant_id)
        goes_on = person is not None and (person[0] == Status.ACTIVE or int(alarm.ref) in runs_anyway)
        too_late = alarm.missed and int(alarm.ref) not in fires_late
        outcome = TimerStatus.CANCELLED if not goes_on else TimerStatus.MISSED if too_late else TimerStatus.FIRED
        by_outcome[outcome].append(int(alarm.ref))
    settled = settle_timers(db, session, by_outcome, now)
    result.dropped += sum(1 for outcome in settled.values() if outcome == TimerStatus.CANCELLED)
    fired = [timer_id for timer_id, outcome in settled.items() if outcome == TimerStatus.FIRED]
    missed = [timer_id for timer_id, outcome in settled.items() if outcome == TimerStatus.MISSED]
    for timer in timers_by_id(db, session, missed):
        result.missed += 1
        log.warning("timer_missed", participant_id=timer.participant_id, timer_id=timer.id, kind=timer.kind,
                    due_at=timer.due_at.isoformat(), late_s=round((now - timer.due_at).total_seconds()))
    # In the order they came due: after an outage a questionnaire's end goes before the study's end.
    return [
        as_input(timer_event(timer.kind, {**timer.payload, "timer_id": timer.id, "due_at": timer.due_at.isoformat()}),
                 key=keys.timer(timer.id or 0), participant_id=timer.participant_id)
        for timer in sorted(timers_by_id(db, session, fired), key=lambda t: (t.due_at, t.id or 0))
    ]
