"""What the research team does with questionnaires: send one now, see how far each got, read the answers."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.states import Status
from promptpipe.errors import AdminError, Forbidden, NotFound
from promptpipe.pipeline.events import QuestionnaireDue, as_input
from promptpipe.questionnaires.store import reads
from promptpipe.questionnaires.store.writes import Scheduled, schedule_instance
from promptpipe.research._common import get_participant
from promptpipe.research.listing import check_page
from promptpipe.research.quiet_check import quiet_hours_wait
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import add_input
from promptpipe.storage.participants import participant_by_id
from promptpipe.study.rules.protocol import Study

__all__ = ["InstancePage", "ParticipantCompliance", "ParticipantCompliancePage", "QuestionnaireCompliance",
           "QuestionnaireResponses", "QuestionnaireSent", "compliance_by_participant", "participant_questionnaires",
           "questionnaire_compliance", "questionnaire_responses", "questionnaire_status", "send_questionnaire"]


@dataclass(frozen=True)
class QuestionnaireSent:
    instance_id: int
    inbox_id: int


async def send_questionnaire(db: Database, clock: Clock, study: Study, *, phone: str, questionnaire_id: str,
                             anyway: bool = False) -> QuestionnaireSent:
    """Queue the questionnaire now, as its own occasion; refused inside quiet hours unless ``anyway``."""
    questionnaire = study.questionnaire(questionnaire_id)
    if questionnaire is None:
        known = ", ".join(q.id for q in study.questionnaires) or "none: add [[questionnaires]] to the study file"
        raise AdminError(f"questionnaire {questionnaire_id!r} is not in the study file in force (its questionnaires: "
                         f"{known})")
    participant, _ = await get_participant(db, phone)
    if participant.status != Status.ACTIVE:
        raise Forbidden(f"{participant.phone} is {participant.status}; questionnaires are not sent to them")
    now = clock.now()
    quiet_hours_wait(study.quiet_hours, who=participant.phone, timezone=participant.timezone, now=now,
                     what="the questionnaire", anyway=anyway, after_quiet_hours=False)
    due = Scheduled(participant.id, questionnaire.id, f"manual:{secrets.token_hex(4)}", "manual", now,
                    protocol_hash=study.hash or None)

    def write(session: Session) -> QuestionnaireSent:
        instance_id = schedule_instance(session, due)
        assert instance_id is not None  # a fresh occasion
        event = QuestionnaireDue(instance_id=instance_id, questionnaire_id=questionnaire.id, action="send",
                                 due_at=now.isoformat())
        inbox_id = add_input(db, session, as_input(event, key=keys.questionnaire_send(instance_id),
                                                   participant_id=participant.id), now)
        assert inbox_id is not None
        return QuestionnaireSent(instance_id, inbox_id)

    return await db.run(write)


async def questionnaire_status(db: Database) -> list[reads.InstanceCount]:
    """How many instances of each questionnaire are in each status."""
    return await db.run(reads.status_counts)


@dataclass(frozen=True)
class QuestionnaireCompliance:
    questionnaire_id: str
    title: str | None
    """None: the study file in force does not declare it (its instances are from an earlier version)."""
    tally: reads.Tally


async def questionnaire_compliance(db: Database, study: Study) -> list[QuestionnaireCompliance]:
    """Every questionnaire of the study file in force, then any other with instances, each with its tally."""
    rows = reads.by_questionnaire(await db.run(reads.end_counts), [q.id for q in study.questionnaires])
    titles = {questionnaire.id: questionnaire.title for questionnaire in study.questionnaires}
    return [QuestionnaireCompliance(qid, titles.get(qid), reads.tally(counts)) for qid, counts in rows]


@dataclass(frozen=True)
class ParticipantCompliance:
    participant_id: str
    questionnaire_id: str
    tally: reads.Tally


@dataclass(frozen=True)
class ParticipantCompliancePage:
    total: int
    """Participants with any questionnaire instance."""
    limit: int
    offset: int
    items: list[ParticipantCompliance]
    """One per participant of the page and questionnaire they have instances of."""


async def compliance_by_participant(db: Database, *, limit: int = 50, offset: int = 0) -> ParticipantCompliancePage:
    """A page of the participants who have questionnaire instances (by id), each questionnaire's tallied."""
    check_page(limit, offset)

    def read(session: Session) -> ParticipantCompliancePage:
        total, ids = reads.participants_with_instances(session, limit=limit, offset=offset)
        groups: dict[tuple[str, str], list[reads.EndCount]] = {}
        for row in reads.end_counts(session, ids):
            groups.setdefault((row.participant_id or "", row.questionnaire_id), []).append(row)
        items = [ParticipantCompliance(pid, qid, reads.tally(rows)) for (pid, qid), rows in sorted(groups.items())]
        return ParticipantCompliancePage(total, limit, offset, items)

    return await db.run(read)


@dataclass(frozen=True)
class InstancePage:
    participant_id: str
    total: int
    limit: int
    offset: int
    items: list[reads.InstanceRow]
    """Newest first, each with its items asked, answered or missed."""


async def participant_questionnaires(db: Database, participant_id: str, *, limit: int = 50,
                                     offset: int = 0) -> InstancePage:
    """The participant's questionnaire instances, newest first, with their answers."""
    check_page(limit, offset)

    def read(session: Session) -> InstancePage:
        if participant_by_id(session, participant_id) is None:
            raise NotFound(f"no participant has the id {participant_id}")
        total, rows = reads.instance_page(session, participant_id, limit=limit, offset=offset)
        return InstancePage(participant_id, total, limit, offset, rows)

    return await db.run(read)


@dataclass(frozen=True)
class QuestionnaireResponses:
    questionnaire_id: str
    total: int
    items: list[reads.InstanceRow]
    """Completed first, planned last (see :func:`~promptpipe.questionnaires.store.reads.responses_page`)."""


async def questionnaire_responses(db: Database, study: Study, questionnaire_id: str, *, limit: int | None = 50,
                                  offset: int = 0) -> QuestionnaireResponses:
    """Every participant's sendings of one questionnaire with their answers (``limit`` None: all)."""
    if limit is not None:
        check_page(limit, offset)
    total, rows = await db.run(lambda session: reads.responses_page(session, questionnaire_id, limit=limit,
                                                                    offset=offset))
    if not total and study.questionnaire(questionnaire_id) is None:
        raise NotFound(f"no questionnaire has the id {questionnaire_id[:40]!r}")
    return QuestionnaireResponses(questionnaire_id, total, rows)
