"""What the research team does with questionnaires: send one to a participant now (piloting) and
see how far every questionnaire got."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.states import ACTIVE
from promptpipe.domain.study import Study
from promptpipe.errors import AdminError, Forbidden
from promptpipe.pipeline.events import QuestionnaireDue, as_input
from promptpipe.research._common import get_participant
from promptpipe.research.quiet_check import quiet_hours_wait
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import add_input
from promptpipe.storage.questionnaires import InstanceCount, Scheduled, schedule_instance, status_counts

__all__ = ["QuestionnaireSent", "questionnaire_status", "send_questionnaire"]


@dataclass(frozen=True)
class QuestionnaireSent:
    instance_id: int
    inbox_id: int


async def send_questionnaire(db: Database, clock: Clock, study: Study, *, phone: str, questionnaire_id: str,
                             anyway: bool = False) -> QuestionnaireSent:
    """Queue the questionnaire for the participant now, as its own occasion (a piloting send);
    refused inside the study's quiet hours on their clock unless ``anyway``."""
    questionnaire = study.questionnaire(questionnaire_id)
    if questionnaire is None:
        known = ", ".join(q.id for q in study.questionnaires) or "none: add [[questionnaires]] to the study file"
        raise AdminError(f"questionnaire {questionnaire_id!r} is not in the study file in force (its questionnaires: "
                         f"{known})")
    participant, _ = await get_participant(db, phone)
    if participant.status != ACTIVE:
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


async def questionnaire_status(db: Database) -> list[InstanceCount]:
    """How many instances of each questionnaire are scheduled, sent, started, completed, expired,
    stopped or not sent."""
    return await db.run(status_counts)
