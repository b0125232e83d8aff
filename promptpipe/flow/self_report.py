"""The end-of-day self-report (``[self_report]`` in the study file): on every study day, at the
protocol's time on the participant's clock, one poll asks whether they did their habit that day,
whatever the day's decision drew, so a send/no_send design has an outcome on days without a
prompt too. Each day's decision point arms the question for that day (so it follows the
participant's zone and pauses); an answer counts within the protocol's window and is recorded
for that day, where the export joins it to the day's decision points.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta

from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.quiet_hours import in_quiet_hours
from promptpipe.domain.states import ACTIVE
from promptpipe.domain.study import SELF_REPORT_OPTIONS, SELF_REPORT_PURPOSE, Study
from promptpipe.domain.study_days import study_day
from promptpipe.domain.timers import SELF_REPORT
from promptpipe.flow import lifecycle
from promptpipe.flow.turn import CommitHook, Outgoing
from promptpipe.pipeline.events import SelfReportDue
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.storage.self_reports import SelfReportAsk, record_answer, record_question

__all__ = ["ANSWERS", "arm_self_report", "self_report_question", "self_report_vote"]

YES, NO = SELF_REPORT_OPTIONS
ANSWERS = {YES: "yes", NO: "no"}
THANKS = "Thank you, noted for today."
TOO_LATE = "Thanks! That question has closed, so this answer isn't counted; there's a new one tomorrow."


def arm_self_report(state: TurnState, study: Study, local_day: date, now: datetime) -> None:
    """Ask about ``local_day`` at the protocol's time (nothing when that time has passed already)."""
    report = study.self_report
    if report is None or state.status != ACTIVE:
        return
    zone = zone_or_utc(state.timezone)
    due = datetime.combine(local_day, report.at, tzinfo=zone)
    if due > now:
        state.arm_timer(SELF_REPORT, due, {"local_date": local_day.isoformat()},
                        reason="the day's self-report question")


def self_report_question(state: TurnState, study: Study, item: InboxRow, event: SelfReportDue,
                         now: datetime) -> tuple[list[Outgoing], CommitHook | None, str | None]:
    """The day's question, unless the participant may not be asked (not active, past their last
    day, or inside the quiet hours after a change of zone)."""
    report, day = study.self_report, date.fromisoformat(event.local_date) if event.local_date else None
    if report is None or day is None or state.status != ACTIVE:
        return [], None, None
    number, last = study_day(state.day_one, day), lifecycle.last_day(study, state)
    if number is None or number < 1 or (last is not None and number > last):
        return [], None, "outside the study days"
    if in_quiet_hours(study.quiet_hours, now, zone_or_utc(state.timezone)):
        return [], None, "inside quiet hours: not asked"
    key = keys.self_report_poll(item.id)
    poll = Outgoing(key, report.question, MessageKind.POLL, {"options": list(SELF_REPORT_OPTIONS),
                                                    "purpose": SELF_REPORT_PURPOSE, "local_date": event.local_date})

    def write(session: Session, ids: Mapping[str, int | None]) -> None:
        record_question(session, state.participant.id, event.local_date, ids.get(key), now)

    return [poll], write, "self-report asked"


def self_report_vote(ask: SelfReportAsk | None, poll_id: int | None, chosen: list[str], *, withdrawn: bool,
                     window: timedelta | None, now: datetime) -> tuple[str | None, str, CommitHook | None]:
    """The reply, how the vote was handled, and what it records."""
    if ask is None or poll_id is None or window is None:
        return None, "not_counted", None
    if now > ask.asked_at + window:
        return TOO_LATE, "late", None
    answer = None if withdrawn else ANSWERS.get(chosen[-1] if chosen else "")
    if answer is None and not withdrawn:
        return None, "unknown_option", None
    if answer == ask.answer:
        return None, "repeated", None

    def write(session: Session, _: Mapping[str, int | None]) -> None:
        record_answer(session, poll_id, answer, now)

    return (THANKS if answer else None), ("withdrawn" if withdrawn else "changed" if ask.answer else "counted"), write
