"""The API's bodies for questionnaires: instances with their answers, and each questionnaire's compliance."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from promptpipe.questionnaires.rules.answers import AnswerSource, Missing
from promptpipe.questionnaires.store.reads import InstanceRow
from promptpipe.research.views import iso

__all__ = ["INSTANCE_STATUS", "InstanceOutcome", "OutcomeCounts", "QuestionnaireAnswerOut", "QuestionnaireCompliance",
           "QuestionnaireInstanceOut", "QuestionnaireInstancePage", "QuestionnaireReason", "QuestionnaireResponsePage",
           "instance_out"]

InstanceOutcome = Literal["planned", "under_way", "completed", "partial", "expired", "stopped", "not_sent"]
INSTANCE_STATUS = ("scheduled | sent | started | completed | expired | stopped | not_sent, as stored (and as "
                   "`promptpipe-admin questionnaire status` counts them)")


class OutcomeCounts(BaseModel):
    """Each instance counted once: planned (not sent yet), under way (sent or started, still open), completed, partial
    (expired or stopped after at least one answer), expired and stopped (no answer), not sent."""

    planned: int
    under_way: int
    completed: int
    partial: int
    expired: int
    stopped: int
    not_sent: int


class QuestionnaireReason(BaseModel):
    outcome: Literal["partial", "expired", "stopped", "not_sent"]
    reason: str | None = Field(description="why it ended unfinished or was never sent, as a code of the export's "
                               "codebook (questionnaire_instances.reason; null: none recorded)")
    count: int


class QuestionnaireCompliance(BaseModel):
    id: str
    title: str | None = Field(description="null when the study file in force no longer has it")
    by_status: dict[str, int] = Field(description="instances by status: " + INSTANCE_STATUS)
    outcomes: OutcomeCounts
    sent: int = Field(description="instances whose first item went out")
    completion_rate: float | None = Field(description="completed / sent (null: none sent yet)")
    reasons: list[QuestionnaireReason] = Field(description="why instances are partial, expired, stopped or "
                                                           "not sent, most frequent first")


class QuestionnaireAnswerOut(BaseModel):
    item_id: str
    asked_at: str | None
    answered_at: str | None
    coded: str | None = Field(None, description="the coded value (a code, codes joined by ;, a number; empty for a "
                                                "text or a skip); null for viewers")
    raw: str | None = Field(None, description="the reply as given (the option tapped or the words typed; empty "
                                              "after an erasure); null for viewers")
    source: AnswerSource | None
    missing: Missing | None = Field(description="why the item has no answer (null: answered, or still waiting)")
    tries: int = Field(description="replies that did not fit")


class QuestionnaireInstanceOut(BaseModel):
    id: int
    participant_id: str
    questionnaire_id: str
    occasion: str = Field(description="what it was sent for: an event, a local date, or manual:… for a team's send")
    schedule_kind: str
    study_day: int | None
    local_date: str | None
    status: str = Field(description=INSTANCE_STATUS)
    outcome: InstanceOutcome
    reason: str | None
    scheduled_at: str
    sent_at: str | None
    first_answer_at: str | None
    ended_at: str | None
    expires_at: str | None
    reminders_sent: int
    answers: list[QuestionnaireAnswerOut] = Field(description="each item asked, answered or missed, in order")


class QuestionnaireInstancePage(BaseModel):
    participant_id: str
    total: int
    limit: int
    offset: int
    items: list[QuestionnaireInstanceOut] = Field(description="newest first, the planned ones last")


class QuestionnaireResponsePage(BaseModel):
    questionnaire_id: str
    total: int
    limit: int
    offset: int
    items: list[QuestionnaireInstanceOut] = Field(description=(
        "everyone's instances: completed first, then partly answered, under way, expired or stopped, not sent; "
        "planned last; the newest first within each"))


def instance_out(row: InstanceRow, identified: bool) -> QuestionnaireInstanceOut:
    """An instance with its answers; the coded value and the reply only for ``identified`` callers."""
    return QuestionnaireInstanceOut.model_validate({
        **{name: getattr(row, name) for name in ("id", "participant_id", "questionnaire_id", "occasion",
                                                 "schedule_kind", "study_day", "local_date", "status", "reason",
                                                 "reminders_sent", "outcome")},
        **{name: iso(getattr(row, name)) for name in ("scheduled_at", "sent_at", "first_answer_at", "ended_at",
                                                       "expires_at")},
        "answers": [QuestionnaireAnswerOut.model_validate({
            "item_id": answer.item_id, "asked_at": iso(answer.asked_at), "answered_at": iso(answer.answered_at),
            "source": answer.source, "missing": answer.missing, "tries": answer.tries,
            "coded": answer.coded if identified else None, "raw": answer.raw if identified else None})
            for answer in row.answers]})
