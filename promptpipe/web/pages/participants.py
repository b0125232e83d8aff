"""The participant list (``/participants``), filtered, sorted and paged; and a look-up by id (or phone)."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.participant_filter import IDENTIFYING_SORT_KEYS, ParticipantSort
from promptpipe.research import admin
from promptpipe.research._common import PARTICIPANT_ID
from promptpipe.research.listing import participant_list
from promptpipe.research.views import ListedRow
from promptpipe.web.api_attention import participant_link as participant_url
from promptpipe.web.pages._lists import PER_PAGE, STAGE_LABELS, FilterForm, Pager, page_number, read_filter
from promptpipe.web.pages._render import PageError, Visiting, Visitor, attempt, render, url
from promptpipe.web.pages._times import TimeLabel

__all__ = ["COLUMNS", "done_redirect", "participant_url", "plain", "router", "share_text"]

router = APIRouter()
DEFAULT_SORT = ParticipantSort("enrolled")


@dataclass(frozen=True)
class Column:
    key: str
    """The sort key (see :data:`promptpipe.domain.participant_filter.SORT_KEYS`)."""
    label: str
    identifying: bool = False
    """Shown to researchers and admins only."""


COLUMNS = (
    Column("id", "Participant"), Column("name", "Name", identifying=True), Column("status", "Status"),
    Column("stage", "Stage"), Column("arm", "Arm"), Column("study_day", "Study day"), Column("streak", "Streak"),
    Column("last_in", "Last message in"), Column("last_out", "Last message out"),
    Column("answered", "Prompts answered"),
)


def done_redirect(participant_id: str, done: str) -> RedirectResponse:
    """Back to their page with the one-line result ``done`` (see :data:`participant.DONE_MESSAGES`)."""
    return RedirectResponse(f"{participant_url(participant_id)}?done={done}", status_code=303)


def plain(text: str) -> str:
    """A form's text as typed (browsers send line breaks as CR LF)."""
    return text.replace("\r\n", "\n").strip()


def share_text(answered: int, sent: int) -> str:
    if not sent:
        return "no prompts yet"
    return f"{answered / sent:.0%} ({answered} of {sent})"


def _sort(raw: str, found: Visitor) -> ParticipantSort:
    try:
        order = ParticipantSort.parse(raw) if raw else DEFAULT_SORT
    except ValueError:
        return DEFAULT_SORT
    return DEFAULT_SORT if order.key in IDENTIFYING_SORT_KEYS and not found.identified else order


def _headers(found: Visitor, form: FilterForm, order: ParticipantSort) -> list[dict[str, str | None]]:
    """Each visible column with the link that sorts by it (again: the other way round)."""
    headers = []
    for column in COLUMNS:
        if column.identifying and not found.identified:
            continue
        current = column.key == order.key
        flip = "-" if current and not order.descending else ""
        headers.append({"label": column.label, "url": url("/participants", **form.query, sort=flip + column.key),
                        "sorted": ("descending" if order.descending else "ascending") if current else None})
    return headers


def _row(found: Visitor, item: ListedRow) -> dict[str, str | int | TimeLabel | None]:
    """What one table row shows; a viewer's has no name (and no phone, as every row)."""
    return {
        "id": item.id, "url": participant_url(item.id),
        "name": (item.name or "—") if found.identified else None, "erased": item.erased,
        "status": item.status, "stage": STAGE_LABELS.get(item.stage, item.stage), "arm": item.arm or "—",
        "study_day": item.study_day if item.study_day is not None else "—", "streak": item.current_streak,
        "last_in": found.when(item.last_in_at, item.timezone),
        "last_out": found.when(item.last_out_at, item.timezone),
        "answered": share_text(item.prompts_answered, item.prompts_sent),
    }


@router.get("/participants", response_class=HTMLResponse)
async def participants(request: Request, found: Visiting, status: str = "",
                       stage: str = "", arm: str = "", silent: str = "", sort: str = "",
                       page: str = "1") -> HTMLResponse:
    form = read_filter(status, stage, arm, silent)
    order, number = _sort(sort, found), page_number(page)
    data = await attempt(participant_list(found.ctx.reader, found.ctx.clock, form.flt, order, limit=PER_PAGE,
                                          offset=(number - 1) * PER_PAGE))
    keep = {**form.query, "sort": str(order) if order != DEFAULT_SORT else ""}
    pager = Pager.build(number, data.total, lambda n: url("/participants", **keep, page=n))
    return render(request, "participants.html", found, section="participants", form=form, pager=pager,
                  headers=_headers(found, form, order), rows=[_row(found, item) for item in data.items],
                  sort=keep["sort"], filtered=form.flt.describe() != "everyone", who="")


@router.get("/participants/find", response_class=HTMLResponse)
async def find(request: Request, found: Visiting, who: str = "") -> Response:
    """Open the participant with this id (or phone, for researchers)."""
    who = who.strip()
    if not PARTICIPANT_ID.fullmatch(who) and not found.identified:
        raise PageError(400, "Look a participant up by their id (p_ and 16 letters and digits).")
    if not who:
        raise PageError(400, "Type a participant id or a phone number to look someone up.")
    row = await attempt(admin.show(found.ctx.reader, who))
    return RedirectResponse(participant_url(row.id), status_code=303)
