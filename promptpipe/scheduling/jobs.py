"""The functions APScheduler jobs point at (by text: ``promptpipe.scheduling.jobs:…``): each hands an :class:`Alarm`
to the running service for the participant's lane, and never sends, changes state or touches the database. Keep names
and arguments stable: stored jobs refer to them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

DAILY_PROMPT_REF = "promptpipe.scheduling.jobs:daily_prompt_due"
TIMER_REF = "promptpipe.scheduling.jobs:timer_due"

DAILY, TIMER = "daily", "timer"


@dataclass(frozen=True, slots=True)
class Alarm:
    kind: str
    """daily | timer"""
    participant_id: str
    ref: str
    """The schedule id (daily) or the timer id (timer)."""
    scheduled_for: datetime
    missed: bool
    """True when it came later than the grace window allows: record it as missed, do not act."""


AlarmSink = Callable[[Alarm], None]
_sink: AlarmSink | None = None


def install(sink: AlarmSink | None) -> None:
    """Set (or clear) where alarms go; one service per process."""
    global _sink
    _sink = sink


def _emit(alarm: Alarm) -> None:
    sink = _sink
    if sink is None:
        raise RuntimeError("an alarm fired but no PromptPipe service is listening")
    sink(alarm)


# ``scheduled_for`` and ``missed`` come from our executor (defaults only so APScheduler accepts the stored arguments).
def daily_prompt_due(
    participant_id: str, schedule_id: str, *, scheduled_for: datetime | None = None, missed: bool = False
) -> None:
    assert scheduled_for is not None, "run by promptpipe's AlarmExecutor, which passes the due time"
    _emit(Alarm(DAILY, participant_id, schedule_id, scheduled_for, missed))


def timer_due(
    participant_id: str, timer_id: int, *, scheduled_for: datetime | None = None, missed: bool = False
) -> None:
    assert scheduled_for is not None, "run by promptpipe's AlarmExecutor, which passes the due time"
    _emit(Alarm(TIMER, participant_id, str(timer_id), scheduled_for, missed))


# APScheduler checks a job's arguments against its function's signature each time a job is made; working it out was
# 40 % of arming a timer's job: each function carries its own, worked out once.
for _job_function in (daily_prompt_due, timer_due):
    _job_function.__signature__ = inspect.signature(_job_function)  # type: ignore[union-attr]
