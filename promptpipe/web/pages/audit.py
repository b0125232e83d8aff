"""The audit log (``/audit``) as ``/api/v1/audit``, researchers and admins only: it ties tokens to participants' ids."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from promptpipe.research.tokens import AuditView, audit_filters, audit_page
from promptpipe.web.pages._lists import PER_PAGE, Pager, page_number
from promptpipe.web.pages._render import Visitor, attempt, identified_only, render, url
from promptpipe.web.pages._times import TimeLabel, time_label
from promptpipe.web.pages.participants import participant_url

__all__ = ["VIA_LABELS", "audit_reader", "router"]

router = APIRouter()
VIA_LABELS = {"api": "API", "dashboard": "dashboard", "cli": "admin script"}


audit_reader = identified_only("The audit log is for researchers and admins")


@dataclass(frozen=True)
class Row:
    at: TimeLabel | None
    actor: str
    role: str
    action: str
    via: str
    participant_id: str | None
    participant_url: str | None
    address: str
    detail: tuple[str, ...]


def _words(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(_words(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "—" if value is None else str(value)


def _row(found: Visitor, entry: AuditView) -> Row:
    pid = entry.participant_id
    return Row(at=time_label(entry.at, found.zone, found.zone, found.now), actor=entry.actor, role=entry.role,
               action=entry.action.replace("_", " "), via=VIA_LABELS.get(entry.via, entry.via), participant_id=pid,
               participant_url=participant_url(pid) if pid else None, address=entry.address or "—",
               detail=tuple(f"{key.replace('_', ' ')}: {_words(value)}" for key, value in sorted(entry.detail.items())))


@router.get("/audit", response_class=HTMLResponse)
async def audit_log(request: Request, found: Annotated[Visitor, Depends(audit_reader)], actor: str = "",
                    action: str = "", page: str = "1") -> HTMLResponse:
    actor, action, number = actor.strip()[:200], action.strip()[:64], page_number(page)
    actors, actions = await attempt(audit_filters(found.ctx.reader))
    data = await attempt(audit_page(found.ctx.reader, actor=actor, action=action, limit=PER_PAGE,
                                    offset=(number - 1) * PER_PAGE))
    pager = Pager.build(number, data.total, lambda n: url("/audit", actor=actor, action=action, page=n))
    return render(request, "audit.html", found, section="audit", rows=[_row(found, e) for e in data.entries],
                  pager=pager, actor=actor, action=action, actors=sorted({*actors, *([actor] if actor else [])}),
                  actions=sorted({*actions, *([action] if action else [])}))
