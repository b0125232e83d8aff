"""Overview (``/``): what needs attention, participants by status, stage and arm, today's prompts, service health."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from promptpipe.domain.participant_filter import MAX_SILENT_DAYS
from promptpipe.research import monitoring
from promptpipe.research.attention import Attention, AttentionEntry, AttentionKind
from promptpipe.research.status import NumberState, StatusReport, read_number_states
from promptpipe.research.views import counted
from promptpipe.transport.connection_state import CONNECTION_STATES
from promptpipe.web.api_attention import attention_for, entry_link, participant_link
from promptpipe.web.charts import bar_chart
from promptpipe.web.pages._lists import STAGE_LABELS
from promptpipe.web.pages._render import SILENT_DAYS_COOKIE, Visitor, attempt, remembered_silent_days, render, signed_in
from promptpipe.web.pages._times import TimeLabel

__all__ = ["AttentionRow", "NumberRow", "health_line", "number_rows", "router"]

router = APIRouter()


def health_line(found: Visitor, service: StatusReport, numbers: Sequence[NumberState] = ()) -> tuple[str, bool]:
    """One line on the service (with several ``numbers``, how many are in each state), and whether all is well."""
    whatsapp = service.whatsapp
    if numbers:  # WhatsApp numbers: 2 connected, 1 logged out: the device was unlinked
        counts = Counter(CONNECTION_STATES.get(number.state.name, number.state.name) if number.state
                         else "no state recorded" for number in numbers)
        connection = "WhatsApp numbers: " + ", ".join(f"{count} {label}" for label, count in counts.items())
    elif whatsapp:
        since = found.when(whatsapp.since, found.zone.key)
        state = CONNECTION_STATES.get(whatsapp.name, whatsapp.name or "unknown")
        connection = f"WhatsApp {state}" + (f" since {since.researcher} your time" if since else "")
        if whatsapp.detail:
            connection += f" ({whatsapp.detail})"
    else:
        connection = "WhatsApp: no connection recorded yet (the service has not run with WhatsApp on this database)"
    parts = [connection, f"{counted(service.outbox_backlog, 'message')} waiting to be sent",
             f"{counted(service.inbox_backlog, 'input')} waiting for a turn",
             f"{counted(service.uncertain_sends, 'uncertain send')}"]
    connected = (all(number.state is not None and number.state.name == "connected" for number in numbers) if numbers
                 else bool(whatsapp and whatsapp.name == "connected"))
    return " · ".join(parts), connected and not service.uncertain_sends


@dataclass(frozen=True)
class NumberRow:
    """One of the deployment's WhatsApp numbers as the service card lists it."""

    name: str
    state: str
    since: TimeLabel | None
    detail: str
    participants: int
    needs_the_team: bool
    connected: bool


def number_rows(found: Visitor, numbers: Sequence[NumberState]) -> list[NumberRow]:
    return [NumberRow(number.name, CONNECTION_STATES.get(state.name, state.name) if state else "no state recorded yet",
                      found.when(state.since, found.zone.key) if state else None, state.detail if state else "",
                      number.participants, number.needs_the_team, bool(state and state.name == "connected"))
            for number in numbers for state in [number.state]]


@dataclass(frozen=True)
class ConcernRow:
    participant_id: str
    link: str
    count: int
    since: TimeLabel | None
    name: str | None


@dataclass(frozen=True)
class AttentionRow:
    """One entry of "Needs attention" as the page shows it."""

    kind: str
    title: str
    hint: str
    link: str
    link_text: str
    participants: list[ConcernRow]


_TEXTS: dict[AttentionKind, tuple[str, str, str, str]] = {
    # noun (singular, plural), what resolves it, the link's words
    AttentionKind.SAFETY_FLAG: ("open safety flag", "open safety flags",
                                "Follow each up and resolve it with a note on the safety flags page.",
                                "Safety flags"),
    AttentionKind.NUMBER: ("participant", "participants",
                           "Their messages wait: move them to another number from their page, or link the "
                           "number again.", "The numbers"),
    AttentionKind.STUCK_INPUT: ("input that failed and waits", "inputs that failed and wait",
                                "The participant's page lists them, each with Try again and Skip.",
                                "The participant's page"),
    AttentionKind.UNCERTAIN_SEND: ("uncertain send", "uncertain sends",
                                   "A crash interrupted the send: it may or may not have arrived (marked ? in the "
                                   "transcript). Write again if it matters.", "The participant's page"),
    AttentionKind.NOT_DELIVERED: ("daily prompt not delivered for a day", "daily prompts not delivered for a day",
                                  "Sent 24 to 48 hours ago with no delivered receipt: the phone may be off or the "
                                  "number changed.", "The participant's page"),
    AttentionKind.SILENT: ("active participant silent", "active participants silent",
                           "No message from them in that time.", "Those participants"),
    AttentionKind.INTAKE_ON_HOLD: ("participant with intake on hold", "participants with intake on hold",
                                   "Intake resumes when they write again.", "Those participants"),
    AttentionKind.WHATSAPP: ("", "", "Nothing can be sent or received until it is connected again.",
                             "The service"),
    AttentionKind.MODEL_ERROR: ("", "", "Turns that failed are tried again; the service card has the time.",
                                "The service"),
}


def _title(found: Visitor, entry: AttentionEntry, silent_days: int) -> str:
    one, many, _, _ = _TEXTS[entry.kind]
    since = found.when(entry.since, found.zone.key)
    if entry.kind == AttentionKind.WHATSAPP:
        state = CONNECTION_STATES.get(entry.state or "", entry.state or "") or "no connection recorded yet"
        return f"WhatsApp is not connected: {state}" + (f" since {since.researcher} your time" if since else "")
    if entry.kind == AttentionKind.NUMBER:
        state = CONNECTION_STATES.get(entry.state or "", entry.state or "")
        return (f"{entry.count} {one if entry.count == 1 else many} on WhatsApp number {entry.number!r}, which is "
                f"{state}" + (f" since {since.researcher} your time" if since else ""))
    if entry.kind == AttentionKind.MODEL_ERROR:
        return (f"Model error at {since.researcher if since else '?'} your time"
                + (f": {entry.error}" if entry.error else ""))
    title = f"{entry.count} {one if entry.count == 1 else many}"
    return title + (f" for {silent_days} days" if entry.kind == AttentionKind.SILENT else "")


def attention_rows(found: Visitor, attention: Attention) -> list[AttentionRow]:
    rows = []
    for entry in attention.entries:
        _, _, hint, link_text = _TEXTS[entry.kind]
        concerns = [ConcernRow(c.participant_id, participant_link(c.participant_id), c.count,
                               found.when(c.since, found.zone.key), c.name) for c in entry.participants]
        if entry.reason:
            hint = entry.reason[:1].upper() + entry.reason[1:] + "."
        rows.append(AttentionRow(entry.kind, _title(found, entry, attention.silent_days), hint,
                                 entry_link(entry, attention.silent_days), link_text, concerns))
    return rows


def _silent_days(request: Request, silent: str) -> tuple[int, str | None]:
    """The days of silence asked for in the page, else the remembered ones; and what was wrong."""
    value = silent.strip()
    if not value:
        return remembered_silent_days(request), None
    if value.isdigit() and 1 <= int(value) <= MAX_SILENT_DAYS:
        return int(value), None
    return remembered_silent_days(request), f"silent days: give a whole number of days from 1 to {MAX_SILENT_DAYS}"


def _relabel(counts: dict[str, int], labels: Mapping[str, str]) -> dict[str, int]:
    return {labels.get(key, key): count for key, count in counts.items()}


def _bars(title: str, counts: dict[str, int], colour: str) -> Markup:
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return Markup(bar_chart(title, ordered, colour=colour))  # charts escape what they draw


@router.get("/", response_class=HTMLResponse)
async def overview(request: Request, found: Annotated[Visitor, Depends(signed_in)], silent: str = "") -> HTMLResponse:
    silent_days, problem = _silent_days(request, silent)
    attention = await attempt(attention_for(found.ctx, found.caller.role, silent_days=silent_days))
    found = replace(found, attention=attention.total)  # the navigation's count, read with the list
    data = await attempt(monitoring.overview(found.ctx.reader, found.ctx.clock, zone=found.zone))
    numbers = await attempt(read_number_states(found.ctx.reader, found.ctx.settings.number_plan))
    line, healthy = health_line(found, data.service, numbers)
    error = data.service.last_model_error
    today = [(key, getattr(data.today, key)) for key in monitoring.STEPS]
    response = render(
        request, "overview.html", found, section="overview", data=data, health=line, healthy=healthy,
        attention=attention_rows(found, attention), numbers=number_rows(found, numbers), silent_days=silent_days,
        silent_problem=problem, max_silent_days=MAX_SILENT_DAYS,
        model_error=found.when(error.at, found.zone.key) if error else None,
        since=found.when(data.today.since, found.zone.key),
        today=today, today_chart=Markup(bar_chart("Today's prompts", today, colour="#1a7f37")),
        charts={"status": _bars("Participants by status", data.by_status, "#3b7dd8"),
                "stage": _bars("Participants by stage", _relabel(data.by_stage, STAGE_LABELS), "#6e4a9e"),
                "arm": _bars("Participants by arm", _relabel(data.by_arm, {"-": "no arm"}), "#b35900")})
    if silent.strip() and problem is None:  # remembered for this browser: the navigation's count uses it
        response.set_cookie(SILENT_DAYS_COOKIE, str(silent_days), max_age=365 * 24 * 3600, path="/", httponly=True,
                            samesite="strict", secure=request.url.scheme == "https")
    return response
