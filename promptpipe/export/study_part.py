"""The study's part of the export: ``decisions`` (the long format micro-randomised trial analyses expect), the strata
columns, and ``study.json``. Outcomes are coded exactly as ``deliveries`` codes them; the seed is never read."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time
from itertools import zip_longest
from pathlib import Path
from typing import Any

from sqlalchemy import and_, func, select, type_coerce
from sqlalchemy.orm import Session

from promptpipe.domain.consent import ConsentKind
from promptpipe.domain.outcomes import Outcome, delivery_outcome
from promptpipe.export.cells import Cells, Row, from_stored, stored_time, utc_iso, utc_stamps
from promptpipe.export.codebook_study import DECISIONS
from promptpipe.export.pseudonyms import People
from promptpipe.export.receipts import NO_RECEIPTS, Chunk, delivery_receipts, driver_rows, stored_status
from promptpipe.export.self_report import self_report_days, self_reports
from promptpipe.export.withdrawn import with_withdrawn_days, withdrawn_day_counts
from promptpipe.storage.models import ConsentEvent, Message, Participant, UTCDateTime, table_of
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.study.rules.protocol import DECISION_ACTIONS, Study
from promptpipe.study.rules.summary import study_as_dict
from promptpipe.study.store.protocol import ProtocolVersion, protocol_history, study_in_force
from promptpipe.study.store.tables import Decision

__all__ = ["DECISION_COLUMNS", "STUDY_JSON", "STUDY_JSON_FORMAT", "TREATMENT", "Protocol", "decision_batch",
           "decision_batches", "decision_csv", "is_study_json", "read_protocol",
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


def withdrawn_at(participant_id: Any) -> Any:
    """The consent ledger's withdrawn event, else their erasure (it ends the study too); None if neither."""
    def last(event: ConsentKind) -> Any:
        return select(func.max(_LEDGER.c.created_at)).where(
            _LEDGER.c.participant_id == participant_id, _LEDGER.c.event == event).scalar_subquery()
    return type_coerce(func.coalesce(last(ConsentKind.WITHDRAWN), last(ConsentKind.ERASED)), UTCDateTime())


def decision_batch(first: str, last: str, ceiling: int, cutoff: datetime,
                   report_at: time | None = None) -> Callable[[Session], Chunk]:
    """The decision points of ``first`` … ``last`` in time order, with their prompt's delivery and self-report."""
    d, pd, prompt = _DECISION, _DELIVERY, _MESSAGE.alias("prompt")
    query = (  # in decision_index order: the index is counted while formatting (a window function cost more)
        select(d.c.participant_id, d.c.schedule_id, d.c.study_day, d.c.local_date,
               stored_time(d.c.scheduled_for).label("scheduled_for"), stored_time(d.c.decided_at).label("decided_at"),
               d.c.local_time, d.c.timezone, d.c.arm, d.c.available, d.c.unavailable_reason, d.c.action,
               d.c.probability, d.c.draw, d.c.seed_ref, d.c.protocol_hash, d.c.prompt_style, d.c.model,
               d.c.system_prompt_hash, d.c.not_sent_reason, pd.c.id.label("delivery_id"),
               stored_time(pd.c.sent_at).label("queued_at"), stored_time(prompt.c.sent_at).label("prompt_sent_at"),
               pd.c.vote, pd.c.vote_source, stored_time(pd.c.voted_at).label("voted_at"),
               stored_time(pd.c.replied_at).label("replied_at"), stored_time(pd.c.reminder_at).label("reminder_at"),
               prompt.c.receipts_expected, stored_time(withdrawn_at(d.c.participant_id)).label("withdrawn_at"),
               stored_time(_PARTICIPANT.c.erased_at).label("erased_at"))
        .select_from(d.outerjoin(pd, and_(pd.c.inbox_id == d.c.inbox_id, pd.c.participant_id == d.c.participant_id))
                     .outerjoin(prompt, prompt.c.id == pd.c.prompt_message_id)
                     .join(_PARTICIPANT, _PARTICIPANT.c.id == d.c.participant_id))
        .where(d.c.participant_id >= first, d.c.participant_id <= last, d.c.id <= ceiling)
        .order_by(d.c.participant_id, d.c.decided_at, d.c.id)
    )

    columns = list(query.selected_columns.keys())

    def read(session: Session) -> Chunk:
        conn = session.connection()
        rows = with_withdrawn_days(session, columns, driver_rows(conn, query), first, last)
        receipts = delivery_receipts(conn, pd.c.participant_id >= first, pd.c.participant_id <= last)
        reports = (self_reports(rows, columns, self_report_days(session, first, last), report_at)
                   if report_at is not None else None)
        return Chunk(rows, receipts, cutoff, reports=reports)
    return read


_OUTCOME_COLUMNS = DECISION_COLUMNS[DECISION_COLUMNS.index("delivery_id"):DECISION_COLUMNS.index("outcome") + 1]
_NO_PROMPT_CELLS = (None, 0, *[None] * (len(_OUTCOME_COLUMNS) - 2))


def decision_csv(rows: Chunk, people: People, cell: Callable[[Any], Any]) -> list[tuple[Any, ...]]:
    """A chunk's ``decisions`` rows in ``DECISION_COLUMNS`` order (as :func:`.transcript.message_csv`; numbers and
    times never need ``cell``)."""
    utc, texts, outcomes = utc_stamps(), Cells(cell), Cells(cell)
    receipts, cutoff = rows.receipts, rows.cutoff
    yes, no = cell(True), cell(False)
    no_report = (cell(None), cell(None), cell(None), cell(None), None)
    reports = rows.reports if rows.reports is not None else [no_report] * len(rows)
    out: list[tuple[Any, ...]] = []
    last_pid, index = None, 0
    for (pid, schedule_id, study_day, local_date, scheduled_for, decided_at, local_time, zone, arm, available,
         unavailable_reason, action, probability, draw, seed_ref, protocol_hash, prompt_style, model, prompt_hash,
         not_sent_reason, delivery_id, queued_at, prompt_sent_at, vote, vote_source, voted_at, replied_at, reminder_at,
         expected, withdrawn, erased), (report_date, report, report_status, report_reason, report_at) in zip(
            rows, reports, strict=True):
        index = index + 1 if pid == last_pid else 1  # a participant's own points, then their derived ones
        last_pid = pid
        if delivery_id is None:
            outcome: tuple[Any, ...] = _NO_PROMPT_CELLS
        else:
            sent = prompt_sent_at or queued_at
            delivered_at, read_at, _ = receipts.get(delivery_id, NO_RECEIPTS)
            voted, replied = from_stored(voted_at), from_stored(replied_at)
            first: datetime | None
            if voted is not None and (replied is None or voted <= replied):
                first, first_at = voted, voted_at  # the stored value too: its cell is cut from SQLite's text
            else:
                first, first_at = replied, replied_at
            status = stored_status(sent, delivered_at, read_at, expected, cutoff)
            sent_time = None if first is None else from_stored(sent)
            outcome = (
                delivery_id, 1, utc(sent), utc(delivered_at), utc(read_at), texts[vote], texts[vote_source],
                utc(voted_at), utc(replied_at), utc(first_at),
                None if first is None or sent_time is None else round((first - sent_time).total_seconds()),
                outcomes[delivery_outcome(vote, replied_at, reminder_at,
                                          not_delivered=status == Outcome.NOT_DELIVERED)],
            )
        out.append((
            texts[pid], index, texts[schedule_id], study_day, texts[local_date], utc(scheduled_for), utc(decided_at),
            texts[local_time], texts[zone], texts[arm], yes if available else no, texts[unavailable_reason],
            texts[action], TREATMENT.get(action) if available and probability is not None else None,
            probability, draw, cell(seed_ref or None), texts[protocol_hash], texts[prompt_style], texts[model],
            texts[prompt_hash], texts[not_sent_reason], *outcome, texts[report_date], texts[report],
            texts[report_status], texts[report_reason], utc(report_at), utc(withdrawn), utc(erased),
        ))
    return out


def strata_columns(fields: Sequence[str]) -> tuple[str, ...]:
    return tuple(f"stratum_{name}" for name in fields)
