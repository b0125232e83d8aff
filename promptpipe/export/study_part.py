"""The study's part of the export: ``decisions`` (the long format micro-randomised trial analyses expect), the strata
columns, and ``study.json``. Outcomes are coded exactly as ``deliveries`` codes them; the seed is never read."""

from __future__ import annotations

import functools
import importlib.metadata
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time
from itertools import zip_longest
from pathlib import Path
from typing import Any

from sqlalchemy import and_, func, literal, select, type_coerce
from sqlalchemy.orm import Session

from promptpipe.domain.consent import ConsentKind
from promptpipe.domain.outcomes import Outcome, delivery_outcome
from promptpipe.export.cells import Row, utc_iso
from promptpipe.export.codebook_study import DECISIONS
from promptpipe.export.pseudonyms import People
from promptpipe.export.self_report import self_report_days, with_self_reports
from promptpipe.export.withdrawn import with_withdrawn_days, withdrawn_day_counts
from promptpipe.storage.models import ConsentEvent, Message, Participant, UTCDateTime, table_of
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.storage.receipts import delivery_status, receipt_columns
from promptpipe.study.rules.protocol import DECISION_ACTIONS, Study
from promptpipe.study.rules.summary import study_as_dict
from promptpipe.study.store.protocol import ProtocolVersion, protocol_history, study_in_force
from promptpipe.study.store.tables import Decision

__all__ = ["DECISION_COLUMNS", "STUDY_JSON", "STUDY_JSON_FORMAT", "TREATMENT", "Protocol", "decision_batch",
           "decision_batches", "decision_csv", "delivery_receipt_columns", "is_study_json", "read_protocol",
           "strata_columns", "stratum_fields", "study_document", "study_json_text", "withdrawn_at"]

STUDY_JSON = "study.json"
STUDY_JSON_FORMAT = "promptpipe study export 1"
"""The first key of every ``study.json`` the export writes: how a later export knows the file is its own."""

DECISION_COLUMNS = DECISIONS.columns
TREATMENT = {pair[0]: 1 for pair in DECISION_ACTIONS} | {pair[1]: 0 for pair in DECISION_ACTIONS}
"""A study file can only list these pairs, treatment first, so the coding holds for every version."""

_DECISION, _DELIVERY, _MESSAGE, _PARTICIPANT, _LEDGER = (
    table_of(model) for model in (Decision, PromptDelivery, Message, Participant, ConsentEvent))


# ---------------------------------------------------------------- the protocol as run

@dataclass(frozen=True)
class Protocol:
    history: list[ProtocolVersion]
    study: Study | None
    """None: no study file in force (or its text no longer reads, see ``problem``)."""
    problem: str | None = None


def read_protocol(session: Session) -> Protocol:
    history = protocol_history(session)
    return Protocol(history, *study_in_force(history))


def stratum_fields(session: Session, study: Study | None) -> list[str]:
    """The study file's stratum fields, then any other a participant was enrolled with (an earlier protocol's)."""
    fields = list(study.allocation.stratum_fields) if study is not None else []
    others: set[str] = set()
    for (strata,) in session.connection().execute(select(_PARTICIPANT.c.strata)):
        if isinstance(strata, dict):
            others.update(str(key) for key in strata)
    return fields + sorted(others - set(fields))


def _software_version() -> str | None:
    try:
        return importlib.metadata.version("promptpipe")
    except importlib.metadata.PackageNotFoundError:
        return None


def study_document(protocol: Protocol, *, model: str | None, system_prompts: Mapping[str, str] | None,
                   exported_at: datetime) -> Row:
    """``study.json``: the protocol in force, its versions, and what ran the study."""
    hashes: dict[str, str] = {}
    if system_prompts:  # imported only then: the flow brings in the model client (0.6 s of the export's CPU)
        from promptpipe.flow.decisions import prompt_hash

        hashes = {name: prompt_hash(text) for name, text in system_prompts.items()}
    current = protocol.history[-1] if protocol.history else None
    in_force = current if current is not None and current.hash else None
    as_run = study_as_dict(protocol.study) if protocol.study is not None else None
    if as_run is not None and in_force is not None:
        as_run["hash"] = in_force.hash  # of the file's bytes as adopted (a re-encoded text may differ)
    return {
        "format": STUDY_JSON_FORMAT,
        "exported_at": utc_iso(exported_at),
        "software": {"name": "promptpipe", "version": _software_version()},
        "model": model,
        "system_prompt_hashes": hashes,
        "study_file": as_run,
        "hash": in_force.hash if in_force is not None else None,
        "study_file_text": in_force.contents if in_force is not None else None,
        "study_file_problem": protocol.problem,
        "changes": [{"name": v.name, "hash": v.hash or None, "previous_hash": v.previous_hash,
                     "adopted_at": utc_iso(v.adopted_at), "adopted_by": v.adopted_by,
                     "in_force_from": utc_iso(v.adopted_at),
                     "in_force_until": utc_iso(later.adopted_at) if later is not None else None,
                     "file": version_file_name(number, v.hash) if v.hash and v.contents else None}
                    for number, (v, later) in enumerate(zip_longest(protocol.history, protocol.history[1:]), 1)],
    }


def version_file_name(number: int, digest: str) -> str:
    return f"study_protocol_v{number}_{digest[:12]}.toml"


def protocol_files(protocol: Protocol) -> dict[str, str]:
    return {version_file_name(number, v.hash): v.contents
            for number, v in enumerate(protocol.history, 1) if v.hash and v.contents}


def study_json_text(document: Mapping[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def is_study_json(path: Path) -> bool:
    try:
        with path.open("rb") as stream:
            head = stream.read(200)
    except OSError:
        return False
    return head.startswith(b'{\n  "format": ' + json.dumps(STUDY_JSON_FORMAT).encode())


# ---------------------------------------------------------------- decisions

def decision_batches(session: Session, ceiling: int, limit: int) -> list[tuple[str, str]]:
    """Ranges of participant ids (first, last) of about ``limit`` points, never splitting a participant."""
    d = _DECISION
    counts: dict[str, int] = dict(session.connection().execute(
        select(d.c.participant_id, func.count()).where(d.c.id <= ceiling).group_by(d.c.participant_id)).all())
    for pid, derived in withdrawn_day_counts(session).items():  # a withdrawn participant's days after it
        counts[pid] = counts.get(pid, 0) + derived
    batches: list[tuple[str, str]] = []
    first, last, total = None, "", 0
    for pid, count in sorted(counts.items()):
        if first is not None and total + count > limit:
            batches.append((first, last))
            first, total = None, 0
        first, last, total = first or pid, pid, total + count
    if first is not None:
        batches.append((first, last))
    return batches


def delivery_receipt_columns(delivery: Any, cutoff: datetime) -> list[Any]:
    """WhatsApp's receipts for a delivery's prompt and poll, whether they are expected, and the cut-off."""
    m = _MESSAGE
    ids = select(m.c.wa_message_id).where(
        m.c.id.in_([delivery.c.prompt_message_id, delivery.c.poll_message_id])).correlate(delivery)
    expected = select(m.c.receipts_expected).where(m.c.id == delivery.c.prompt_message_id).scalar_subquery()
    return [*receipt_columns(lambda r: r.c.wa_message_id.in_(ids.scalar_subquery())),
            expected.label("receipts_expected"), literal(cutoff, UTCDateTime()).label("receipt_cutoff")]


def withdrawn_at(participant_id: Any) -> Any:
    """The consent ledger's withdrawn event, else their erasure (it ends the study too); None if neither."""
    def last(event: ConsentKind) -> Any:
        return select(func.max(_LEDGER.c.created_at)).where(
            _LEDGER.c.participant_id == participant_id, _LEDGER.c.event == event).scalar_subquery()
    return type_coerce(func.coalesce(last(ConsentKind.WITHDRAWN), last(ConsentKind.ERASED)), UTCDateTime())


def decision_batch(first: str, last: str, ceiling: int, cutoff: datetime,
                   report_at: time | None = None) -> Callable[[Session], list[Any]]:
    """The decision points of ``first`` … ``last`` in time order, with their prompt's delivery and self-report."""
    d, pd, m = _DECISION, _DELIVERY, _MESSAGE
    index = func.row_number().over(partition_by=d.c.participant_id, order_by=(d.c.decided_at, d.c.id))
    prompt_sent_at = type_coerce(select(m.c.sent_at).where(m.c.id == pd.c.prompt_message_id).scalar_subquery(),
                                 UTCDateTime())
    query = (
        select(d.c.participant_id, index.label("decision_index"), d.c.schedule_id, d.c.study_day, d.c.local_date,
               d.c.scheduled_for, d.c.decided_at, d.c.local_time, d.c.timezone, d.c.arm, d.c.available,
               d.c.unavailable_reason, d.c.action, d.c.probability, d.c.draw, d.c.seed_ref, d.c.protocol_hash,
               d.c.prompt_style, d.c.model, d.c.system_prompt_hash, d.c.not_sent_reason,
               pd.c.id.label("delivery_id"), pd.c.sent_at.label("queued_at"),
               prompt_sent_at.label("prompt_sent_at"), pd.c.vote, pd.c.vote_source, pd.c.voted_at, pd.c.replied_at,
               pd.c.reminder_at, *delivery_receipt_columns(pd, cutoff),
               withdrawn_at(d.c.participant_id).label("withdrawn_at"), _PARTICIPANT.c.erased_at)
        .select_from(d.outerjoin(pd, and_(pd.c.inbox_id == d.c.inbox_id, pd.c.participant_id == d.c.participant_id))
                     .join(_PARTICIPANT, _PARTICIPANT.c.id == d.c.participant_id))
        .where(d.c.participant_id >= first, d.c.participant_id <= last, d.c.id <= ceiling)
        .order_by(d.c.participant_id, d.c.decided_at, d.c.id)
    )

    def read(session: Session) -> list[Any]:
        rows = with_withdrawn_days(session, session.connection().execute(query), first, last)
        days = self_report_days(session, first, last) if report_at is not None else {}
        return with_self_reports(rows, days, report_at)
    return read



_OUTCOME_COLUMNS = DECISION_COLUMNS[DECISION_COLUMNS.index("delivery_id"):DECISION_COLUMNS.index("outcome") + 1]
_NO_PROMPT_CELLS = (None, 0, *[None] * (len(_OUTCOME_COLUMNS) - 2))


def decision_csv(rows: Sequence[Any], people: People, cell: Callable[[Any], Any]) -> list[tuple[Any, ...]]:
    """A chunk's ``decisions`` rows in ``DECISION_COLUMNS`` order (as :func:`.transcript.message_csv`)."""
    utc = functools.cache(utc_iso)
    out = []
    for row in rows:
        available, probability, action = bool(row.available), row.probability, row.action
        if row.delivery_id is None:
            outcome: tuple[Any, ...] = _NO_PROMPT_CELLS
        else:
            sent = row.prompt_sent_at or row.queued_at
            voted_at, replied_at = row.voted_at, row.replied_at
            first = min((at for at in (voted_at, replied_at) if at is not None), default=None)
            status = delivery_status(sent, row.delivered_at, row.read_at,
                                     receipts_expected=bool(row.receipts_expected), cutoff=row.receipt_cutoff)
            outcome = (
                cell(row.delivery_id), 1, utc(sent), utc(row.delivered_at), utc(row.read_at), cell(row.vote),
                cell(row.vote_source), utc(voted_at), utc(replied_at), utc(first),
                None if first is None or sent is None else round((first - sent).total_seconds()),
                cell(delivery_outcome(row.vote, replied_at, row.reminder_at,
                                      not_delivered=status == Outcome.NOT_DELIVERED)),
            )
        out.append((
            cell(row.participant_id), cell(row.decision_index), cell(row.schedule_id), cell(row.study_day),
            cell(row.local_date), utc(row.scheduled_for), utc(row.decided_at), cell(row.local_time),
            cell(row.timezone), cell(row.arm), cell(available), cell(row.unavailable_reason),
            cell(action), cell(TREATMENT.get(action) if available and probability is not None else None),
            cell(probability), cell(row.draw), cell(row.seed_ref or None), cell(row.protocol_hash),
            cell(row.prompt_style), cell(row.model), cell(row.system_prompt_hash), cell(row.not_sent_reason),
            *outcome,
            cell(row.self_report_date), cell(row.self_report), cell(row.self_report_status),
            cell(row.self_report_reason), utc(row.self_report_at), utc(row.withdrawn_at), utc(row.erased_at),
        ))
    return out


def strata_columns(fields: Sequence[str]) -> tuple[str, ...]:
    return tuple(f"stratum_{name}" for name in fields)
