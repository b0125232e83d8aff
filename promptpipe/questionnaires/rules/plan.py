"""Which questionnaire instances a participant gets, and when: an event's when it happens; study days a week ahead at
a time (so an extension, a shortening or an open-ended study needs nothing more)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from promptpipe.questionnaires.rules.definition import EndReason, SendEvent
from promptpipe.questionnaires.rules.schedule import Due, due_on
from promptpipe.study.rules.protocol import Study

__all__ = ["PLAN_AHEAD_DAYS", "Planned", "plan_days", "plan_event", "replan_day"]

PLAN_AHEAD_DAYS = 7
"""Study-day instances are planned up to this many days ahead (the conversation's queue stays short)."""


@dataclass(frozen=True)
class Planned:
    """One instance as planned (``due_at`` None: not sent, for ``reason``)."""

    questionnaire_id: str
    occasion: str
    schedule_kind: str
    """event | fixed | random"""
    due_at: datetime | None
    expires_at: datetime | None
    study_day: int | None = None
    local_date: str | None = None
    window: tuple[datetime, datetime] | None = None
    reason: EndReason | None = None


def plan_event(study: Study, event: SendEvent, at: datetime, occasion: str | None = None) -> list[Planned]:
    """The questionnaires sent once at ``event``, at ``at`` (``occasion``: the event's name by default)."""
    return [Planned(q.id, occasion or event.value, "event", at + q.send.delay, at + q.send.delay + q.open_for)
            for q in study.questionnaires if q.send.event is event]


def _rng(participant_id: str, questionnaire_id: str, day: date) -> random.Random:
    """The same participant, questionnaire and day always draw the same minute (a restart changes nothing)."""
    digest = hashlib.sha256(f"{participant_id}:{questionnaire_id}:{day.isoformat()}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def replan_day(study: Study, participant_id: str, questionnaire_id: str, day: date, zone: ZoneInfo,
               busy: list[datetime]) -> Due | None:
    """A study-day instance's time again, on another clock: the same fixed time, or the same draw."""
    questionnaire = study.questionnaire(questionnaire_id)
    if questionnaire is None or questionnaire.send.event is not None:
        return None
    return due_on(questionnaire.send, day, zone, study.quiet_hours, busy, _rng(participant_id, questionnaire_id, day))


def plan_days(study: Study, participant_id: str, day_one: date, numbers: range, zone: ZoneInfo,
              busy: Callable[[date], list[datetime]], wanted: Callable[[str, int], bool] = lambda q, n: True
              ) -> list[Planned]:
    """The study-day instances of the study days ``numbers`` that ``wanted`` asks for, in the order they are due;
    a random time keeps ``min_gap`` from what else is ``busy`` that day and from those drawn before it."""
    planned: list[Planned] = []
    for number in numbers:
        day = day_one + timedelta(days=number - 1)
        taken = list(busy(day))
        for q in study.questionnaires:
            send = q.send
            if (send.event is not None or (send.study_days is not None and number not in send.study_days)
                    or not wanted(q.id, number)):
                continue
            due = due_on(send, day, zone, study.quiet_hours, taken, _rng(participant_id, q.id, day))
            if due.at is not None:
                taken.append(due.at)
            planned.append(Planned(q.id, day.isoformat(), "fixed" if send.at is not None else "random", due.at,
                                   None if due.at is None else due.at + q.open_for, number, day.isoformat(),
                                   due.window, due.reason))
    return sorted(planned, key=lambda plan: (plan.due_at is None, plan.due_at or datetime.min))
