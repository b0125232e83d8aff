"""Questionnaires' compliance (``/questionnaires``), the section of a participant's page that lists theirs with each
item's answer (hidden for viewers), and one questionnaire's responses (``/questionnaires/{id}``, and as CSV)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from promptpipe.export.cells import utc_iso
from promptpipe.questionnaires import operations
from promptpipe.questionnaires.rules.definition import reason_words
from promptpipe.questionnaires.store.reads import AnswerRow, InstanceRow, Tally
from promptpipe.study.rules.protocol import Study
from promptpipe.web.export_download import csv_download
from promptpipe.web.pages._lists import PER_PAGE, Pager, page_number
from promptpipe.web.pages._render import Visiting, Visitor, attempt, identified_only, render, url
from promptpipe.web.pages._times import TimeLabel
from promptpipe.web.pages.participants import participant_url

__all__ = ["HIDDEN", "INSTANCES_SHOWN", "QuestionnaireSection", "questionnaire_section", "router"]

router = APIRouter()
INSTANCES_SHOWN = 30
"""The newest questionnaires shown on a participant's page; the API and the export have them all."""
OUTCOME_WORDS = {"planned": "planned", "under_way": "under way", "completed": "completed", "partial": "partly answered",
                 "expired": "expired", "stopped": "stopped", "not_sent": "not sent"}
OCCASION_WORDS = {"enrollment": "at enrolment", "intake_complete": "when intake was complete",
                  "study_end": "at the end of the study"}
MISSING_WORDS = {"skipped": "skipped", "invalid": "no reply fitted (recorded as invalid)",
                 "not_shown": "not asked (its condition did not hold)", "expired": "not answered before it closed",
                 "stopped": "not answered: the questionnaire was stopped", "not_sent": "never asked"}
HIDDEN = "hidden for viewers"


@dataclass(frozen=True)
class Counts:
    """One row of a compliance table."""

    by_outcome: dict[str, int]
    """Planned, under way, completed, partial, expired, stopped and not sent."""
    sent: int
    completion: str
    reasons: tuple[str, ...]


def counts(tally: Tally) -> Counts:
    rate, done = tally.completion_rate, tally.by_outcome["completed"]
    completion = f"{rate:.0%} ({done} of {tally.sent})" if rate is not None else "none sent yet"
    reasons = tuple(f"{OUTCOME_WORDS[r.outcome]}: {reason_words(r.reason) or 'no reason recorded'} ({r.count})"
                    for r in tally.reasons)
    return Counts(tally.by_outcome, tally.sent, completion, reasons)


@dataclass(frozen=True)
class QuestionnaireRow:
    id: str
    title: str
    counts: Counts


@dataclass(frozen=True)
class ParticipantRow:
    participant_id: str
    url: str
    questionnaire: str
    counts: Counts


def _title(study: Study, questionnaire_id: str) -> str:
    questionnaire = study.questionnaire(questionnaire_id)
    return questionnaire.title if questionnaire else f"{questionnaire_id} (not in the study file in force)"


@router.get("/questionnaires", response_class=HTMLResponse)
async def questionnaires(request: Request, found: Visiting, page: str = "1") -> HTMLResponse:
    study = found.ctx.settings.study
    number = page_number(page)
    overall = await attempt(operations.questionnaire_compliance(found.ctx.reader, study))
    people = await attempt(operations.compliance_by_participant(found.ctx.reader, limit=PER_PAGE,
                                                                offset=(number - 1) * PER_PAGE))
    rows = [QuestionnaireRow(row.questionnaire_id, _title(study, row.questionnaire_id), counts(row.tally))
            for row in overall]
    by_participant = [ParticipantRow(row.participant_id, participant_url(row.participant_id),
                                     _title(study, row.questionnaire_id), counts(row.tally)) for row in people.items]
    pager = Pager.build(number, people.total, lambda n: url("/questionnaires", page=n))
    return render(request, "questionnaires.html", found, section="questionnaires", questionnaires=rows,
                  participants=by_participant, pager=pager)


# ------------------------------------------------------------------------ a participant's page

@dataclass(frozen=True)
class ItemAnswer:
    question: str
    answer: str
    hidden: bool
    """The answer is there but not shown to this visitor."""
    how: str
    answered: TimeLabel | None


@dataclass(frozen=True)
class InstanceView:
    id: int
    title: str
    occasion: str
    outcome: str
    outcome_words: str
    reason: str | None
    due: TimeLabel | None
    sent: TimeLabel | None
    ended: TimeLabel | None
    items: tuple[ItemAnswer, ...]


@dataclass(frozen=True)
class QuestionnaireSection:
    instances: tuple[InstanceView, ...]
    total: int

    @property
    def more(self) -> int:
        return self.total - len(self.instances)


def _occasion(row: InstanceRow) -> str:
    if row.study_day is not None:
        return f"study day {row.study_day}" + (f" ({row.local_date})" if row.local_date else "")
    if row.occasion.startswith("manual:"):
        return "sent by the research team"
    return OCCASION_WORDS.get(row.occasion, row.occasion.replace("_", " "))  # study_end_day_16: study end day 16


def _answer_text(answer: AnswerRow) -> str:
    """What the participant answered, in words, with its code where that says more."""
    if answer.missing:
        return MISSING_WORDS.get(answer.missing, answer.missing.replace("_", " "))
    if answer.answered_at is None:
        return "waiting for an answer"
    if not answer.raw:
        return "(their words were erased)" + (f" (code {answer.coded})" if answer.coded else "")
    if answer.coded and answer.coded != answer.raw:
        return f"{answer.raw} (code {answer.coded})"
    return answer.raw


def _how(answer: AnswerRow) -> str:
    source = {"tap": "tapped", "typed": "typed"}.get(answer.source or "", "")
    if answer.tries:
        source += f"{', ' if source else ''}{answer.tries} repl{'y' if answer.tries == 1 else 'ies'} did not fit"
    return source


def _item(found: Visitor, study: Study, row: InstanceRow, answer: AnswerRow, zone: str | None) -> ItemAnswer:
    questionnaire = study.questionnaire(row.questionnaire_id)
    item = questionnaire.item(answer.item_id) if questionnaire else None
    hidden = not found.identified and not answer.missing and answer.answered_at is not None
    return ItemAnswer(item.text if item else answer.item_id, HIDDEN if hidden else _answer_text(answer), hidden,
                      _how(answer), found.when(answer.answered_at, zone))


def _instance(found: Visitor, study: Study, row: InstanceRow, zone: str | None) -> InstanceView:
    return InstanceView(row.id, _title(study, row.questionnaire_id), _occasion(row), row.outcome,
                        OUTCOME_WORDS.get(row.outcome, row.outcome), reason_words(row.reason),
                        found.when(row.scheduled_at, zone), found.when(row.sent_at, zone),
                        found.when(row.ended_at, zone),
                        tuple(_item(found, study, row, answer, zone) for answer in row.answers))


async def questionnaire_section(found: Visitor, participant_id: str, zone: str) -> QuestionnaireSection:
    """The participant's newest questionnaires, with each item's answer (in words)."""
    page = await attempt(operations.participant_questionnaires(found.ctx.reader, participant_id,
                                                               limit=INSTANCES_SHOWN))
    study = found.ctx.settings.study
    return QuestionnaireSection(tuple(_instance(found, study, row, zone) for row in page.items), page.total)


# ------------------------------------------------------------------------ one questionnaire's responses

@dataclass(frozen=True)
class ResponseRow:
    participant_id: str
    url: str
    instance: InstanceView


@router.get("/questionnaires/{questionnaire_id}", response_class=HTMLResponse)
async def responses(request: Request, questionnaire_id: str, found: Visiting, page: str = "1") -> HTMLResponse:
    study = found.ctx.settings.study
    number = page_number(page)
    got = await attempt(operations.questionnaire_responses(found.ctx.reader, study, questionnaire_id, limit=PER_PAGE,
                                                           offset=(number - 1) * PER_PAGE))
    rows = [ResponseRow(row.participant_id, participant_url(row.participant_id), _instance(found, study, row, None))
            for row in got.items]
    pager = Pager.build(number, got.total, lambda n: url(f"/questionnaires/{questionnaire_id}", page=n))
    return render(request, "questionnaire_responses.html", found, section="questionnaires", rows=rows,
                  questionnaire_id=questionnaire_id, title=_title(study, questionnaire_id), pager=pager)


_researcher = identified_only("The answers as a file are for researchers and admins")
FIXED_COLUMNS = ("participant_id", "occasion", "study_day", "local_date", "outcome", "reason", "scheduled_at_utc",
                 "sent_at_utc", "ended_at_utc")


@router.get("/questionnaires/{questionnaire_id}/responses.csv")
async def responses_csv(questionnaire_id: str, found: Annotated[Visitor, Depends(_researcher)]) -> Response:
    """One row per sending; per item its coded answer (or why it has none) and the words given."""
    study = found.ctx.settings.study
    got = await attempt(operations.questionnaire_responses(found.ctx.reader, study, questionnaire_id, limit=None))
    declared = study.questionnaire(questionnaire_id)
    items = list(dict.fromkeys([*(item.id for item in (declared.items if declared else ())),
                                *(a.item_id for row in got.items for a in row.answers)]))
    rows: list[list[object]] = [[*FIXED_COLUMNS, *(name for item in items for name in (item, f"{item}_text"))]]
    for row in got.items:
        answers = {answer.item_id: answer for answer in row.answers}
        cells: list[object] = [row.participant_id, row.occasion, row.study_day, row.local_date, row.outcome, row.reason,
                               *(utc_iso(at) for at in (row.scheduled_at, row.sent_at, row.ended_at))]
        for item in items:
            answer = answers.get(item)
            cells += [(answer.missing or answer.coded) if answer else None, answer.raw if answer else None]
        rows.append(cells)
    return csv_download(rows, f"{questionnaire_id}-responses.csv")
