"""Each daily prompt time is a decision point: one ``decision`` row, drawn by its event's key (a rerun draws alike)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import to_instant, zone_or_utc
from promptpipe.domain.quiet_hours import in_quiet_hours
from promptpipe.domain.states import Status
from promptpipe.flow import lifecycle
from promptpipe.flow.turn import FlowConfig
from promptpipe.pipeline.events import DailyPromptDue
from promptpipe.study.rules.days import study_day
from promptpipe.study.rules.decision_rule import NOT_DRAWN, DecisionFacts, draw_action, unavailable_reason
from promptpipe.study.rules.protocol import NO_SEND, PROMPT_STYLES, QuietHours, Study, Unavailable
from promptpipe.study.store.decisions import DecisionValues

__all__ = ["DecisionPoint", "after_outcome_question", "decide", "fixed_prompt", "prompt_hash", "too_late_to_send"]


@dataclass(frozen=True)
class DecisionPoint:
    """Whether a prompt goes out and in which style, and the ``decision`` row (the message id comes at commit)."""

    sends: bool
    style: str | None
    row: DecisionValues

    def as_run(self, *, style: str | None, model: str | None, system_prompt_hash: str | None,
               not_sent_reason: str | None) -> DecisionValues:
        """The row to record once the turn has run: the style and model of what was sent."""
        return replace(self.row, prompt_style=style, model=model, system_prompt_hash=system_prompt_hash,
                       not_sent_reason=not_sent_reason)


def prompt_hash(system_prompt: str) -> str:
    return hashlib.sha256(system_prompt.encode("utf-8")).hexdigest()


def decide(config: FlowConfig, state: TurnState, event: DailyPromptDue, *, inbox_id: int, inbox_key: str,
           local_day: date, now: datetime, seed: bytes) -> DecisionPoint:
    """Availability first, judged at the scheduled time however late the turn runs (an outage must not make it depend
    on what was drawn), then the draw: recorded at unavailable points too, acted on only when available."""
    answered_today = state.profile.record.counter("last_success_date") == local_day.isoformat()
    study = config.study
    zone = zone_or_utc(state.timezone)
    day = study_day(state.day_one, local_day)
    scheduled = datetime.fromisoformat(event.due_at) if event.due_at else None
    facts = DecisionFacts(study_day=day, length_days=lifecycle.last_day(study, state),
                          baseline_days=study.baseline_days, paused=state.status != Status.ACTIVE,
                          in_quiet_hours=in_quiet_hours(study.quiet_hours, scheduled or now, zone),
                          answered_today=answered_today,
                          study_in_use=study.in_use, opted_out=state.opted_out)
    reason = unavailable_reason(facts, study.decision)
    if reason is None and state.status != Status.ACTIVE:  # never sent anything, whatever the rule lists
        reason = Unavailable.OPTED_OUT if state.opted_out else "paused"
    drawn = draw_action(study.decision, seed, inbox_key)
    row = DecisionValues(
        participant_id=state.participant.id, inbox_id=inbox_id, schedule_id=event.schedule_id,
        arm=state.participant.arm, study_day=day, local_date=local_day.isoformat(), scheduled_for=scheduled,
        decided_at=now, local_time=now.astimezone(zone).isoformat(timespec="seconds"), timezone=zone.key,
        available=reason is None, unavailable_reason=reason, probability=drawn.probability,
        action=NOT_DRAWN if reason is not None else drawn.action, draw=drawn.draw, seed_ref=drawn.seed_ref,
        protocol_hash=study.hash or None,
    )
    if reason is not None or drawn.action == NO_SEND:  # unavailable: drawn for the record (to check it), not acted on
        return DecisionPoint(False, None, row)
    style = drawn.action if drawn.action in PROMPT_STYLES else study.arm(state.participant.arm).prompt_style
    return DecisionPoint(True, style, row)


def fixed_prompt(config: FlowConfig, state: TurnState, day: int | None) -> str:
    """The fixed text for this study day (the list is taken in turn, day 1 the first)."""
    texts = config.study.fixed_texts(config.study.arm(state.participant.arm))
    if not texts:  # a study file without texts cannot ask for fixed prompts; be safe anyway
        raise ValueError("the study file lists no fixed prompt texts")
    return texts[((day or 1) - 1) % len(texts)]


def after_outcome_question(study: Study, timezone: str, local_day: date, scheduled_for: datetime | None,
                           now: datetime) -> bool:
    """Whether the self-report question that measures this prompt (as the export pairs them) was asked by ``now``."""
    if study.self_report is None:
        return False
    zone = zone_or_utc(timezone)
    asked = to_instant(local_day, study.self_report.at, zone)
    if scheduled_for is not None and scheduled_for >= asked:
        asked = to_instant(local_day + timedelta(days=1), study.self_report.at, zone)
    return now >= asked


def too_late_to_send(quiet_hours: QuietHours | None, timezone: str, local_day: date, now: datetime) -> bool:
    """Whether a prompt not written yet is given up: its day is over on their clock, or quiet hours have begun."""
    zone = zone_or_utc(timezone)
    return now.astimezone(zone).date() > local_day or in_quiet_hours(quiet_hours, now, zone)
