"""The study report read from the database in one transaction (counted by :mod:`promptpipe.study.report.counts`)."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from promptpipe.domain.states import Status
from promptpipe.domain.transition_log import TransitionKind
from promptpipe.questionnaires.store.reads import end_counts
from promptpipe.storage.db import Database
from promptpipe.storage.models import Message, Participant, Transition, table_of
from promptpipe.storage.prompt_tables import PromptDayCounts, PromptDelivery
from promptpipe.study.report.counts import ReportRows, StudyReport, report_of
from promptpipe.study.rules.protocol import SELF_REPORT_ID, Study
from promptpipe.study.store.seed import seed_kept
from promptpipe.study.store.tables import Decision, QuestionnaireInstance

__all__ = ["study_report"]

_P, _D, _M = table_of(Participant), table_of(PromptDelivery), table_of(Message)
_T, _DEC, _COUNTS = table_of(Transition), table_of(Decision), table_of(PromptDayCounts)
_QI = table_of(QuestionnaireInstance)
_DECISION_GROUP = (_DEC.c.arm, _DEC.c.available, _DEC.c.unavailable_reason, _DEC.c.action, _DEC.c.probability)


def _read(session: Session, study: Study) -> ReportRows:
    """One row per participant, the rest grouped (but the available decision points a self-report measures)."""
    conn = session.connection()
    return ReportRows(
        participants=conn.execute(select(
            _P.c.id, _P.c.status, _P.c.arm, _P.c.timezone, _P.c.day_one, _P.c.extra_days, _P.c.completed_at)).all(),
        withdrawn=conn.execute(select(_T.c.participant_id, func.max(_T.c.created_at)).where(
            _T.c.kind == TransitionKind.STATUS, _T.c.to_value == Status.WITHDRAWN).group_by(_T.c.participant_id)).all(),
        prompts=_prompt_totals(session),
        decisions=conn.execute(select(*_DECISION_GROUP, func.count()).group_by(*_DECISION_GROUP)).all(),
        seed=seed_kept(session),
        questionnaires=end_counts(session),
        self_report_points=conn.execute(select(
            _DEC.c.participant_id, _DEC.c.local_date, _DEC.c.scheduled_for, _DEC.c.decided_at, _DEC.c.timezone,
            _DEC.c.action).where(_DEC.c.available.is_(True))).all() if study.self_report is not None else (),
        self_report_days=conn.execute(select(_QI.c.participant_id, _QI.c.local_date, _QI.c.status).where(
            _QI.c.questionnaire_id == SELF_REPORT_ID)).all() if study.self_report is not None else (),
    )


def _prompt_totals(session: Session) -> list[tuple[str | None, int, int, int, int]]:
    """(arm, sent, delivered, answered, could show a receipt) from the rollup (a scan of every delivery took seconds
    at 10,000 participants); receipts are possible if one was delivered, else if the arm's newest prompt could."""
    c = _COUNTS.c
    rows = session.execute(select(c.arm, func.sum(c.sent), func.sum(c.delivered), func.sum(c.answered))
                           .group_by(c.arm).having(func.sum(c.sent) > 0)).all()
    totals = []
    for arm, sent, delivered, answered in rows:
        receipts = bool(delivered) or _newest_could_show_receipt(session, arm or None)
        totals.append((arm or None, int(sent), int(delivered), int(answered), int(sent) if receipts else 0))
    return totals


def _newest_could_show_receipt(session: Session, arm: str | None) -> bool:
    in_arm = _P.c.arm.is_(None) if arm is None else _P.c.arm == arm
    newest = session.execute(
        select(_M.c.receipts_expected).select_from(
            _D.join(_P, _P.c.id == _D.c.participant_id).join(_M, _M.c.id == _D.c.prompt_message_id))
        .where(in_arm).order_by(_D.c.id.desc()).limit(1)).scalar()
    return bool(newest)


async def study_report(db: Database, study: Study, *, now: datetime | None = None) -> StudyReport:
    """The report; ``now`` (default: the current time) decides which study day active participants are on."""
    rows = await db.run(lambda session: _read(session, study))
    return report_of(rows, study, now or datetime.now(timezone.utc))
