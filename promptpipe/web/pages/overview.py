"""The overview (``/``): participants by status, stage and arm; today's prompts; the service's
health in one line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from promptpipe.research import monitoring
from promptpipe.research.status import StatusReport
from promptpipe.research.views import as_json
from promptpipe.transport.connection_state import CONNECTION_STATES
from promptpipe.web.charts import bar_chart
from promptpipe.web.pages._lists import STAGE_LABELS
from promptpipe.web.pages._render import Visitor, attempt, render, visitor

__all__ = ["health_line", "router"]

router = APIRouter()
TODAY_STEPS = (("sent", "sent"), ("delivered", "delivered"), ("read", "read"), ("answered", "answered"),
               ("done", "done"))


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def health_line(found: Visitor, service: StatusReport) -> tuple[str, bool]:
    """One line on the service, and whether all is well (connected, nothing uncertain)."""
    whatsapp = service.whatsapp
    if whatsapp:
        since = found.when(whatsapp.since, found.zone.key)
        state = CONNECTION_STATES.get(whatsapp.name, whatsapp.name or "unknown")
        connection = f"WhatsApp {state}" + (f" since {since.researcher} your time" if since else "")
        if whatsapp.detail:
            connection += f" ({whatsapp.detail})"
    else:
        connection = "WhatsApp: no connection recorded yet (the service has not run with WhatsApp on this database)"
    parts = [connection, f"{_plural(service.outbox_backlog, 'message')} waiting to be sent",
             f"{_plural(service.inbox_backlog, 'input')} waiting for a turn",
             f"{_plural(service.uncertain_sends, 'uncertain send')}"]
    healthy = bool(whatsapp and whatsapp.name == "connected") and not service.uncertain_sends
    return " · ".join(parts), healthy


def _relabel(counts: dict[str, int], labels: Mapping[str, str]) -> dict[str, int]:
    return {labels.get(key, key): count for key, count in counts.items()}


def _bars(title: str, counts: dict[str, int], colour: str) -> Markup:
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return Markup(bar_chart(title, ordered, colour=colour))  # charts escape what they draw


@router.get("/", response_class=HTMLResponse)
async def overview(request: Request, found: Annotated[Visitor, Depends(visitor)]) -> HTMLResponse:
    data = await attempt(monitoring.overview(found.ctx.reader, found.ctx.clock, zone=found.zone))
    line, healthy = health_line(found, data.service)
    error = data.service.last_model_error
    today = as_json(data.today)
    return render(
        request, "overview.html", found, section="overview", data=data, health=line, healthy=healthy,
        model_error=found.when(error.at, found.zone.key) if error else None,
        since=found.when(data.today.since, found.zone.key),
        today=[(label, today[key]) for key, label in TODAY_STEPS],
        today_chart=Markup(bar_chart("Today's prompts", [(label, today[key]) for key, label in TODAY_STEPS],
                                     colour="#1a7f37")),
        charts={"status": _bars("Participants by status", data.by_status, "#3b7dd8"),
                "stage": _bars("Participants by stage", _relabel(data.by_stage, STAGE_LABELS), "#6e4a9e"),
                "arm": _bars("Participants by arm", _relabel(data.by_arm, {"-": "no arm"}), "#b35900")})
